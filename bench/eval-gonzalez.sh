#!/usr/bin/env bash
# Runs `bikepathd detect` on every window of the González 2017 dataset and prints
# accuracy (anomaly vs regular road), recall per class and the false-positive rate.
# Usage: bench/eval-gonzalez.sh [DATASET_DIR] [BIKEPATHD]
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-Tests/BikePathCoreTests/Fixtures/gonzalez-2017}
bin=${2:-.build/release/bikepathd}
[ -x "$bin" ] || swift build -c release --product bikepathd >/dev/null
for class in "$data"/*/; do
  c=$(basename "$class")
  for f in "$class"*.csv; do
    n=$("$bin" detect --accel-z-csv "$f" --rate 50 | wc -l)
    echo "$c $n"
  done
done | awk '
  { total[$1]++; if ($2 > 0) flagged[$1]++ }
  END {
    correct = 0; n = 0
    for (c in total) {
      f = flagged[c] + 0; n += total[c]
      if (c == "regular_road") { correct += total[c] - f; fpr = f / total[c] }
      else { correct += f }
      printf "%-14s %3d windows, %3d flagged (%.1f%%)\n", c, total[c], f, 100 * f / total[c]
    }
    printf "accuracy (anomaly vs regular): %.1f%%\nFPR on regular road: %.1f%%\n", 100 * correct / n, 100 * fpr
  }'
