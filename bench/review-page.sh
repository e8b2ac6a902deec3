#!/usr/bin/env bash
# The review page's draft of a 1 h ride: time to render and bytes sent.
#
#   bench/review-page.sh [CONFIG] [RUNS]     (defaults: debug, 20)
#
# The ride is synthesised: `BikePathBench store-replay --trips 1 --seconds-per-trip 3600`
# (SyntheticRides: 3600 fixes at ~5 m/s, a candidate every 45 s = 80, of which the
# review budget asks about 10, each with a 200-sample window; 60 road-quality
# stretches; the chain's path, 1 fix in 10). `bikepathd review` serves it on
# loopback; the script pairs with `review pair` + POST /pair like a phone, then
# fetches the draft page and its map (the two requests a phone makes) RUNS times
# after one warm-up with curl, and prints the median and the largest of each
# (time_total: request sent to last byte received, on loopback).
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${1:-debug}
RUNS=${2:-20}
swift build -c "$CONFIG" --product bikepathd >/dev/null
swift build -c "$CONFIG" --product BikePathBench >/dev/null
BIN=.build/$CONFIG/bikepathd
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/bikepath-review-bench.XXXXXX")
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
".build/$CONFIG/BikePathBench" store-replay --db "$WORK/s.db" --trips 1 --seconds-per-trip 3600 >/dev/null
"$BIN" review --db "$WORK/s.db" --listen "127.0.0.1:$PORT" 2>"$WORK/review.log" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/pair" && break; sleep 0.1; done
CODE=$("$BIN" review pair --db "$WORK/s.db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["code"])')
curl -s -o /dev/null -c "$WORK/cookies" -d "code=$CODE" "http://127.0.0.1:$PORT/pair"
ID=$("$BIN" drafts list --db "$WORK/s.db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["drafts"][0]["id"])')
measure() {  # URL → "median_ms max_ms bytes"
  curl -s -o /dev/null -b "$WORK/cookies" "$1"
  for _ in $(seq "$RUNS"); do curl -s -o /dev/null -b "$WORK/cookies" -w '%{time_total} %{size_download} %{http_code}\n' "$1"; done |
    python3 -c '
import sys, statistics
rows = [l.split() for l in sys.stdin]
assert all(r[2] == "200" for r in rows), rows
t = [float(r[0]) * 1000 for r in rows]
print(f"{statistics.median(t):.1f} {max(t):.1f} {rows[0][1]}")'
}
read -r pm px pb < <(measure "http://127.0.0.1:$PORT/drafts/$ID")
read -r mm mx mb < <(measure "http://127.0.0.1:$PORT/drafts/$ID/map.svg")
echo "config: $CONFIG, runs: $RUNS, 1 h synthetic ride"
echo "draft page: median ${pm} ms, max ${px} ms, ${pb} bytes"
echo "map.svg:    median ${mm} ms, max ${mx} ms, ${mb} bytes"
python3 -c "print(f'page + map: median {$pm + $mm:.1f} ms, {($pb + $mb) / 1024:.1f} KB')"
