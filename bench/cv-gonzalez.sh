#!/usr/bin/env bash
# Two-fold cross-validation of the obstacle detector's thresholds on the González 2017
# windows (docs/evaluation.md). Usage: bench/cv-gonzalez.sh [DATASET_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product BikePathBench >/dev/null
exec .build/release/BikePathBench gonzalez-cv "${1:-Tests/BikePathCoreTests/Fixtures/gonzalez-2017}"
