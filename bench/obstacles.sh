#!/usr/bin/env bash
# The obstacle detector on a real bike ride (issue 11's yardstick; docs/evaluation.md,
# "Bicycle"): candidates per km at the defaults, whether the ride's largest jolts are among
# them, and the recall of modelled wheel impacts (BikePathFixtures.WheelImpact) injected
# into the same ride's IMU, eight per replay, one replay per seed.
# Usage: bench/obstacles.sh [FIRST_SEED LAST_SEED]   (default 1 50: 400 injected crossings)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product BikePathBench >/dev/null
exec .build/release/BikePathBench obstacles Recordings/allthedocks-GX010056.bpr "${1:-1}" "${2:-50}"
