#!/usr/bin/env bash
# Trip distance against the receiver's own Doppler speed integrated over the trip (issue 22;
# docs/evaluation.md, "Trip distance"): per ride, the distance from positions alone (the
# chain before issue 22), the distance now, and the Doppler integral. Each GoPro ride is
# imported as `bikepathd import gopro PREFIX` imports it, then replayed through the chain.
# Usage: bench/distance.sh [RECORDING.bpr|GOPRO_CSV_FOLDER…]   (default ../shared/datasets/allthedocks)
# An accuracy figure, not a timing: the debug build gives the same numbers.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product BikePathBench >/dev/null
if [ $# -eq 0 ]; then set -- ../shared/datasets/allthedocks; fi
exec .build/debug/BikePathBench distance "$@"
