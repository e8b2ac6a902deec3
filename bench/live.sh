#!/bin/bash
# bench/live.sh [SECONDS] — live sources benchmark: IMU at 1 kHz (the fake 6-axis IIO
# device of Tests/Harness served by a real iiod in a private mount namespace) and GNSS at
# 10 Hz (a real gpsd fed NMEA over UDP), both drained by `BikePathBench live-drain` (release
# build), which consumes the streams like the daemon does and reports its own CPU time and
# peak RSS (getrusage). iiod, gpsd and the feeders are not counted: they play the kernel and
# the receiver. Needs root, gpsd, iiod, python3. Every process started is stopped by its pid.
#   BIKEPATH_STATIC=1  build with --static-swift-stdlib (scratch .build-static): the Swift
#                      runtime and Foundation linked in, as a deployment would ship it
#   BIKEPATH_BIN=PATH  use this BikePathBench instead of building one
set -euo pipefail
seconds=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
harness=$root/Tests/Harness
run=$(mktemp -d /tmp/bikepath-bench.XXXXXX)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pids=()
cleanup() {
  [ -f "$run/imu/feeder.pid" ] && kill -TERM "$(cat "$run/imu/feeder.pid")" 2>/dev/null || true
  [ -n "${iiod_pid:-}" ] && kill -KILL "$iiod_pid" 2>/dev/null || true
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$run"
}
trap cleanup EXIT

build=(-c release --package-path "$root")
[ "${BIKEPATH_STATIC:-}" = 1 ] && build+=(--static-swift-stdlib --scratch-path "$root/.build-static")
if [ -n "${BIKEPATH_BIN:-}" ]; then
  bin=$BIKEPATH_BIN
else
  swift build "${build[@]}" --product BikePathBench >&2
  bin=$(swift build "${build[@]}" --show-bin-path)/BikePathBench
fi

gpsd_port=$(free_port); udp_port=$(free_port); iio_port=$(free_port)
gpsd -N -n -b -S "$gpsd_port" "udp://127.0.0.1:$udp_port" </dev/null >"$run/gpsd.log" 2>&1 &
pids+=($!)
"$harness/iiod_fake_imu.sh" "$run/imu" "$iio_port" </dev/null >"$run/iiod.log" 2>&1 &
iiod_pid=$!
for _ in $(seq 100); do
  ss -ltn | grep -q ":$gpsd_port " && ss -ltn | grep -q ":$iio_port " && break
  sleep 0.05
done

"$bin" live-drain --seconds "$seconds" --imu-rate 1000 --gpsd-host 127.0.0.1 --gpsd-port "$gpsd_port" \
  --iio-uri "ip:127.0.0.1:$iio_port" >"$run/summary.json" 2>"$run/drain.log" &
drain=$!
sleep 0.5
python3 "$harness/gpsd_udp_feed.py" "$root/Tests/BikePathSensorsTests/Fixtures/bike.nmea" "$udp_port" \
  --epoch-hz 10 --seconds "$seconds" 2>"$run/feed.log" &
pids+=($!)
wait "$drain"
python3 - "$run/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"wall {s['elapsed_s']:.1f} s, CPU {s['cpu_s']:.2f} s = {100*s['cpu_share_of_one_core']:.2f} % of one core, "
      f"peak RSS {s['max_rss_kib']/1024:.1f} MB")
print(f"IMU: {s['imu_samples_consumed']} samples consumed, measured {s['imu'].get('measured_rate_hz')} Hz, "
      f"gaps {s['imu']['gaps']}, overruns {s['imu']['overruns']}, timeouts {s['imu']['timeouts']}")
print(f"GNSS: {s['gnss']['epochs']} epochs, {s['nmea_sentences_consumed']} NMEA sentences, "
      f"protocol errors {s['gnss']['protocol_errors']}")
PY
