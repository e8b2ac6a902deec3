#!/usr/bin/env python3
"""gpsd_udp_feed.py LOG PORT [--gap SECONDS] [--time-shift S] [--epoch-hz HZ --seconds S]

Sends each NMEA sentence of LOG as one UDP datagram to 127.0.0.1:PORT, where a
real `gpsd -N -n -b -S GPSDPORT udp://127.0.0.1:PORT` listens.
Default: as fast as gpsd keeps up (--gap 0.0001 s between sentences; with no
gap gpsd loses about half of them).
--time-shift S: move every RMC/GGA time (and date) S seconds later, so a second
feed of the same log carries new epochs.
--epoch-hz HZ --seconds S: live mode for benchmarks: loop over the log's epochs
(an epoch starts at each RMC) sending HZ epochs per second for S seconds, with
the time and date fields rewritten to advance by 1/HZ s per epoch, from
2024-06-01T12:00:00Z or from --start-epoch UNIX_SECONDS (e.g. now, so that a
second feed continues the first one's times)."""
import argparse, socket, sys, time, datetime


def checksum(body):
    c = 0
    for ch in body.encode():
        c ^= ch
    return f"{c:02X}"


def shift_time(sentence, seconds):
    """Returns the sentence with its time of day (and RMC date) moved by `seconds`."""
    body = sentence[1:sentence.index("*")]
    f = body.split(",")
    if f[0][2:] not in ("RMC", "GGA"):
        return sentence
    date = f[9] if f[0][2:] == "RMC" else "010624"
    t = datetime.datetime.strptime(date + f[1][:6], "%d%m%y%H%M%S")
    t += datetime.timedelta(seconds=seconds)
    return retime(sentence, t)


def retime(sentence, t):
    body = sentence[1:sentence.index("*")]
    f = body.split(",")
    kind = f[0][2:]
    hms = t.strftime("%H%M%S.") + f"{t.microsecond // 10000:02d}"
    if kind in ("RMC", "GGA"):
        f[1] = hms
    if kind == "RMC":
        f[9] = t.strftime("%d%m%y")
    body = ",".join(f)
    return f"${body}*{checksum(body)}"


def main():
    parser = argparse.ArgumentParser(usage=__doc__.splitlines()[0])
    parser.add_argument("log")
    parser.add_argument("port", type=int)
    parser.add_argument("--gap", type=float, default=0.0001)
    parser.add_argument("--time-shift", type=float)
    parser.add_argument("--epoch-hz", type=float)
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--start-epoch", type=float)
    opts = parser.parse_args()
    sentences = [l.strip().decode() for l in open(opts.log, "rb").read().split(b"\n")
                 if l.strip().startswith(b"$")]
    if opts.time_shift is not None:
        sentences = [shift_time(l, opts.time_shift) for l in sentences]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dest = ("127.0.0.1", opts.port)
    if opts.epoch_hz is None:
        gap = opts.gap
        for l in sentences:
            s.sendto(l.encode() + b"\r\n", dest)
            if gap:
                time.sleep(gap)
        print(f"sent {len(sentences)} sentences", file=sys.stderr)
        return
    epochs, cur = [], []
    for l in sentences:
        if l[3:6] == "RMC" and cur:
            epochs.append(cur)
            cur = []
        cur.append(l)
    if cur:
        epochs.append(cur)
    if opts.seconds is None:
        parser.error("--epoch-hz needs --seconds")
    hz, seconds = opts.epoch_hz, opts.seconds
    t = datetime.datetime(2024, 6, 1, 12, 0, 0)
    if opts.start_epoch is not None:
        t = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=opts.start_epoch)
    start = time.monotonic()
    k = 0
    while time.monotonic() - start < seconds:
        for l in epochs[k % len(epochs)]:
            s.sendto(retime(l, t).encode() + b"\r\n", dest)
        k += 1
        t += datetime.timedelta(seconds=1 / hz)
        delay = start + k / hz - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    print(f"sent {k} epochs", file=sys.stderr)


if __name__ == "__main__":
    main()
