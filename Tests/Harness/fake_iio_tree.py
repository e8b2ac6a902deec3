#!/usr/bin/env python3
"""fake_iio_tree.py ROOT [--variant normal|unknown-channel|bad-format]

Builds a sysfs-like tree ROOT/iio:device0 for a 6-axis IMU (accel + anglvel +
timestamp), the layout libiio's local backend reads under /sys/bus/iio/devices.
Mounted there by iio_ns.sh inside a private mount namespace (this kernel has no IIO).

Variants exercise the sensor source's bad-input paths:
  unknown-channel  adds a scan element libiio cannot type (in_bogus_x)
  bad-format       accel channels stored in 24 bits, which the source refuses
The scales and offsets here are what tests/feeder use to predict scaled values."""
import os, shutil, sys

ACCEL_SCALE = "0.000598"      # m/s^2 per LSB (+-2 g)
ACCEL_OFFSET = "10"           # raw offset, to prove (raw + offset) * scale is applied
ANGLVEL_SCALE = "0.001065264" # rad/s per LSB (+-2000 dps)


def build(root, variant="normal"):
    d = os.path.join(root, "iio:device0")
    shutil.rmtree(root, ignore_errors=True)
    for sub in ("scan_elements", "buffer", "trigger"):
        os.makedirs(os.path.join(d, sub))

    def w(rel, value):
        with open(os.path.join(d, rel), "w") as f:
            f.write(f"{value}\n")

    w("name", "bmi160-fake")
    w("sampling_frequency", 100)
    w("sampling_frequency_available", "25 50 100 200 400 800 1000 1600")
    w("current_timestamp_clock", "monotonic")
    w("in_accel_scale", ACCEL_SCALE)
    w("in_accel_offset", ACCEL_OFFSET)
    w("in_anglvel_scale", ANGLVEL_SCALE)
    w("trigger/current_trigger", "")
    accel_type = "le:s24/24>>0" if variant == "bad-format" else "le:s16/16>>0"
    chans = [(c, accel_type if c.startswith("accel") else "le:s16/16>>0")
             for c in ("accel_x", "accel_y", "accel_z", "anglvel_x", "anglvel_y", "anglvel_z")]
    if variant == "unknown-channel":
        chans.append(("bogus_x", "le:s16/16>>0"))
    for i, (ch, typ) in enumerate(chans):
        w(f"in_{ch}_raw", 0)
        w(f"scan_elements/in_{ch}_en", 0)
        w(f"scan_elements/in_{ch}_index", i)
        w(f"scan_elements/in_{ch}_type", typ)
    w("scan_elements/in_timestamp_en", 0)
    w("scan_elements/in_timestamp_index", len(chans))
    w("scan_elements/in_timestamp_type", "le:s64/64>>0")
    for attr, v in (("enable", 0), ("length", 0), ("watermark", 1), ("data_available", 0)):
        w(f"buffer/{attr}", v)


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    variant = "normal"
    if "--variant" in args:
        i = args.index("--variant")
        variant = args[i + 1]
        del args[i:i + 2]
    if variant not in ("normal", "unknown-channel", "bad-format"):
        sys.exit(f"unknown variant {variant!r}")
    build(args[0], variant)
