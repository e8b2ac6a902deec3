#!/bin/bash
# iio_ns.sh FAKESYS RUNDIR CMD...
# Runs CMD where libiio's local backend sees the fake device FAKESYS/iio:device0:
#   /sys/bus/iio/devices -> FAKESYS (bind mount; this kernel has no IIO) and
#   /dev/iio:device0 is a FIFO (an overlay over /dev whose upper layer is in RUNDIR).
# Must run in a private mount namespace, so nothing leaks to the host:
#   unshare -m --propagation private iio_ns.sh FAKESYS RUNDIR CMD...
# Needs root. CMD is exec'd, so the pid of `unshare` is the pid of CMD.
set -euo pipefail
fake=$1; run=$2; shift 2
mkdir -p "$run/devupper" "$run/devwork"
mount -t tmpfs tmpfs /sys/bus
mkdir -p /sys/bus/iio/devices
mount --bind "$fake" /sys/bus/iio/devices
mount -t overlay overlay -o lowerdir=/dev,upperdir="$run/devupper",workdir="$run/devwork" /dev
[ -p /dev/iio:device0 ] || mkfifo -m 660 /dev/iio:device0
exec "$@"
