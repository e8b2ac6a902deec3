#!/usr/bin/env bash
# bench/rss-map.sh BIN [CONFIG] — what the daemon's resident memory is made of: runs
# `BIN run --replay` of the bundled ride (as bench/rss.sh does, without the review page
# unless CONFIG enables it), samples /proc/PID/smaps every 20 ms, keeps the sample with the
# largest Rss, and prints that sample's Rss per mapping (file-backed by library, anonymous
# as [heap]/[anon]/[stack]), largest first, plus the total. Use it to see which library
# keeps the daemon above the 20 MB goal (docs/performance.md, "Memory of the daemon").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: bench/rss-map.sh BIN [CONFIG]}
work=$(mktemp -d "${TMPDIR:-/var/tmp}/bikepath-rssmap.XXXXXX")
trap 'rm -rf "$work"' EXIT
config=${2:-$work/plain.toml}
[ -n "${2:-}" ] || : >"$config"
"$bin" run --config "$config" --replay "$root/Recordings/allthedocks-GX010056.bpr" --summary \
  --db "$work/store.sqlite" --status-socket "$work/status.sock" >"$work/summary.json" 2>/dev/null &
pid=$!
best=0
while kill -0 "$pid" 2>/dev/null; do
  if cp "/proc/$pid/smaps" "$work/now" 2>/dev/null; then
    rss=$(awk '/^Rss:/ {s += $2} END {print s + 0}' "$work/now")
    if [ "$rss" -gt "$best" ]; then
      best=$rss
      mv "$work/now" "$work/peak"
    fi
  fi
  sleep 0.02
done
wait "$pid"
printf 'peak sampled Rss %d KiB; getrusage max_rss_kib %s\n' "$best" \
  "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["max_rss_kib"])' "$work/summary.json")"
# A mapping header line has an address range first; its 6th field is the path, if any.
awk '
  /^[0-9a-f]+-[0-9a-f]+ / { name = ($6 == "" ? "[anon]" : $6); next }
  /^Rss:/ { rss[name] += $2 }
  END { for (n in rss) if (rss[n] > 0) printf "%8d KiB  %s\n", rss[n], n }
' "$work/peak" | sort -rn
