#!/usr/bin/env bash
# Full filter-chain throughput (IMU samples/s, one core) on a synthetic 1 h ride with
# IMU at 200 Hz and 1 kHz and GNSS at 10 Hz; see docs/performance.md, "Filter chain".
# Usage: bench/chain.sh [HOURS]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product BikePathBench >/dev/null
# taskset pins the run to one core so the figure is per core, not per machine.
exec taskset -c 0 .build/release/BikePathBench chain "${1:-1}"
