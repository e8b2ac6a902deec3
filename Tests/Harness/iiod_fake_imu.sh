#!/bin/bash
# iiod_fake_imu.sh RUNDIR PORT [--variant V] [feeder options...]
# Builds a fake 6-axis IIO device in RUNDIR/sys, then, in a private mount
# namespace, starts the feeder (pid in RUNDIR/feeder.pid) and execs
# `iiod -p PORT -u local:`, so the pid of this script IS iiod's pid (stop it
# with SIGKILL: iiod ignores SIGTERM) and clients connect to ip:127.0.0.1:PORT.
# Feeder output goes to RUNDIR/feeder.log. Needs root, iiod, python3.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
run=$1; port=$2; shift 2
variant=normal
if [ "${1:-}" = "--variant" ]; then variant=$2; shift 2; fi
mkdir -p "$run"
python3 "$here/fake_iio_tree.py" "$run/sys" --variant "$variant"
rm -f "$run/feeder.pid"
exec unshare -m --propagation private "$here/iio_ns.sh" "$run/sys" "$run" \
  bash -c 'python3 "$0" /sys/bus/iio/devices/iio:device0 /dev/iio:device0 --pidfile "$1/feeder.pid" "${@:3}" \
             >"$1/feeder.log" 2>&1 </dev/null &
           exec iiod -p "$2" -u local:' "$here/iio_feeder.py" "$run" "$port" "$@"
