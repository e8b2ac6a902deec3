#!/usr/bin/env bash
# Recording format benchmark (not a test): size per ride-hour at 200 Hz and 1 kHz IMU
# (+ 10 Hz RMC/GGA) as .bpr and as a lossless CSV equivalent, and the time to read each
# file back through the decoder / a strtod CSV parser. Also sizes the bundled real ride.
# Usage: bench/recording.sh   (needs swiftc; ~1.5 GB of disk in bench-out/, removed after)
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench-out; mkdir -p "$out"
core_sources=$(find Sources/BikePathCore -name '*.swift' | sort)
swiftc -O -parse-as-library -module-name RecordingBench $core_sources bench/RecordingBench.swift -o "$out/recording-bench"
"$out/recording-bench" "$out"
rm -f "$out"/hour-*.bpr "$out"/hour-*.csv
ride=Recordings/allthedocks-GX010056.bpr
csv=$(for f in accl gyro gps; do cat ../shared/datasets/allthedocks/GX010056-$f.csv 2>/dev/null; done | wc -c)
echo
echo "bundled real ride $ride: $(wc -c <"$ride") bytes for 205.6 s (GoPro CSV export of the same ride: $csv bytes)"
