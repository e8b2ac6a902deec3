#!/usr/bin/env bash
# bench/rss.sh [BIN...] — the daemon's memory: `bikepathd run --replay` of the real ride
# (Recordings/allthedocks-GX010056.bpr, 205.6 s of riding: `bikepathd inspect`) through
# the whole runtime (status socket, chain, store, sync off), once without and once with
# the review page listening; peak RSS from `--summary` (getrusage's ru_maxrss). Each BIN
# (default: a release build of this tree) is measured side by side, three times each, and
# the median printed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bins=("$@")
if [ ${#bins[@]} = 0 ]; then
  swift build -c release --package-path "$root" --scratch-path "$root/.build-release" --product bikepathd >&2
  bins=("$root/.build-release/release/bikepathd")
fi
ride=$root/Recordings/allthedocks-GX010056.bpr
work=$(mktemp -d "${TMPDIR:-/var/tmp}/bikepath-rss.XXXXXX")
trap 'rm -rf "$work"' EXIT
peak() {  # BIN CONFIG → peak RSS in KiB
  rm -f "$work/store.sqlite"*
  "$1" run --config "$2" --replay "$ride" --summary --db "$work/store.sqlite" --status-socket "$work/status.sock" 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["max_rss_kib"])'
}
: > "$work/plain.toml"
printf '[review]\nlisten = "127.0.0.1:%s"\n' $((20000 + RANDOM % 20000)) > "$work/review.toml"  # a free port, most likely
for bin in "${bins[@]}"; do
  for config in plain review; do
    runs=$(for _ in 1 2 3; do peak "$bin" "$work/$config.toml"; done | sort -n | tr '\n' ' ')
    median=$(echo "$runs" | awk '{print $2}')
    printf 'rss: %-60s %-7s peak %5.1f MiB (runs, KiB: %s)\n' "$bin" "$config" "$(echo "$median / 1024" | bc -l)" "$runs"
  done
done
