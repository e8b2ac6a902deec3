#!/usr/bin/env python3
"""iio_feeder.py SYSFS_DEV FIFO [--stall-after N] [--stall-seconds S] [--pidfile F]

Plays the kernel's side of an IIO buffer for the fake device, session after
session (libiio or iiod may open and close the buffer many times):
  1. wait until buffer/enable is 1, read sampling_frequency and which
     scan_elements/*_en are set;
  2. open FIFO for writing (blocks until the reader opens it) and write packed
     samples at sampling_frequency, paced by CLOCK_MONOTONIC, in kernel layout
     (index order, each element aligned to its storage size, record padded to the
     largest element);
  3. when the reader goes away (EPIPE) or buffer/enable drops to 0, start over.

Raw values are a pure function of a global sample counter n, so a test can
recover n from anglvel_z and predict every other channel:
  accel_x = (7n mod 2001) - 1000     accel_y = (13n mod 4001) - 2000
  accel_z = 16400 + (n mod 50)       anglvel_x = (3n mod 601) - 300
  anglvel_y = -(n mod 1000)          anglvel_z = n mod 32768
  timestamp = CLOCK_MONOTONIC ns when the sample is due
--stall-after N: after N samples (total) stop writing for --stall-seconds (default 3),
  keeping the FIFO open, so the reader sees a short read / timeout."""
import argparse, errno, glob, os, signal, struct, sys, time

SIGNED = {1: "<b", 2: "<h", 4: "<i", 8: "<q"}
UNSIGNED = {1: "<B", 2: "<H", 4: "<I", 8: "<Q"}


def raw_value(name, n):
    return {
        "accel_x": (7 * n) % 2001 - 1000,
        "accel_y": (13 * n) % 4001 - 2000,
        "accel_z": 16400 + n % 50,
        "anglvel_x": (3 * n) % 601 - 300,
        "anglvel_y": -(n % 1000),
        "anglvel_z": n % 32768,
    }.get(name, 0)


def read_attr(dev, rel):
    with open(os.path.join(dev, rel)) as f:
        return f.read().strip("\x00 \n")  # libiio writes "1\0"


def enabled_channels(dev):
    chans = []
    for en in glob.glob(os.path.join(dev, "scan_elements/in_*_en")):
        name = os.path.basename(en)[3:-3]
        if read_attr(dev, f"scan_elements/in_{name}_en") != "1":
            continue
        idx = int(read_attr(dev, f"scan_elements/in_{name}_index"))
        typ = read_attr(dev, f"scan_elements/in_{name}_type")  # e.g. le:s16/16>>0
        storage = int(typ.split("/")[1].split(">>")[0]) // 8
        chans.append((idx, name, storage, typ[3] == "s"))
    chans.sort()
    return chans


def pack(chans, n, t_ns):
    rec = bytearray()
    maxsz = max(c[2] for c in chans)
    for _, name, sz, signed in chans:
        while len(rec) % sz:
            rec.append(0)
        val = t_ns if name == "timestamp" else raw_value(name, n)
        if sz in SIGNED:
            rec += struct.pack(SIGNED[sz] if signed else UNSIGNED[sz], val)
        else:  # odd storage (e.g. 24 bits): little-endian two's complement
            rec += (val & ((1 << (8 * sz)) - 1)).to_bytes(sz, "little")
    while len(rec) % maxsz:
        rec.append(0)
    return bytes(rec)


def main():
    parser = argparse.ArgumentParser(usage=__doc__.splitlines()[0])
    parser.add_argument("dev")
    parser.add_argument("fifo")
    parser.add_argument("--stall-after", type=int)
    parser.add_argument("--stall-seconds", type=float, default=3)
    parser.add_argument("--pidfile")
    opts = parser.parse_args()
    dev, fifo = opts.dev, opts.fifo
    if opts.pidfile:
        with open(opts.pidfile, "w") as f:
            f.write(f"{os.getpid()}\n")
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    stall_after = opts.stall_after
    stall_seconds = opts.stall_seconds
    n = 0
    while True:
        while read_attr(dev, "buffer/enable") != "1":
            time.sleep(0.01)
        rate = float(read_attr(dev, "sampling_frequency") or "100")
        chans = enabled_channels(dev)
        if not chans:
            time.sleep(0.05)
            continue
        period = int(1e9 / rate)
        fd = os.open(fifo, os.O_WRONLY)
        print(f"feeder: session at {rate:g} Hz, channels={[c[1] for c in chans]}, "
              f"record={len(pack(chans, 0, 0))} bytes", file=sys.stderr, flush=True)
        next_t = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        try:
            while read_attr(dev, "buffer/enable") == "1":
                now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
                chunk = bytearray()
                while next_t <= now:
                    if stall_after is not None and n == stall_after:
                        stall_after = None
                        if chunk:
                            os.write(fd, chunk)
                            chunk = bytearray()
                        print(f"feeder: stalling {stall_seconds:g} s after sample {n}",
                              file=sys.stderr, flush=True)
                        time.sleep(stall_seconds)
                        next_t = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
                        break
                    chunk += pack(chans, n, next_t)
                    n += 1
                    next_t += period
                if chunk:
                    os.write(fd, chunk)
                time.sleep(0.005)
        except OSError as e:
            if e.errno not in (errno.EPIPE, errno.EBADF):
                raise
        finally:
            try:
                os.close(fd)
            except OSError:
                pass
        print(f"feeder: session ended after sample {n}", file=sys.stderr, flush=True)
        time.sleep(0.02)


if __name__ == "__main__":
    main()
