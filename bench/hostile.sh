#!/usr/bin/env bash
# The hub under hostile work (docs/hub.md, "Upload budget" and "Request budget"; figures in
# docs/performance.md), on loopback, bounded in time: the SQLite hub, in a memory cgroup of
# 1 GiB, holds a synthesised city of KM km of public paths (GridCity). For SECONDS_, legitimate
# devices upload 10 rides a second and two riders confirm a fresh street every 2 s, once
# quiet and once while a token holder uploads the rides that took the hub down (a path
# round the North Pole, a 12 MB giant ride, a zigzag of 1.99 km steps), asks for a thin
# heatmap box round the world, and 50 clients ask for routes across the city without pause.
# Prints each run's upload p50/p99, map freshness and /v1/health, how the hostile requests
# were answered, the ratios hostile/quiet (goal ≤ 2), the hub's peak memory (goal < 512 MB)
# and whether it restarted (goal: never).
#
#   bench/hostile.sh   (KM=2000 SECONDS_=30; CONFIG=debug to skip the release build;
#                       SCRATCH=DIR for the build directory; BIN=DIR for binaries built elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
KM=${KM:-2000}; SECONDS_=${SECONDS_:-30}
source bench/lib/build.sh
build_products bikepath-hub BikePathBench
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/bikepath-hostile.XXXXXX")
CG=/sys/fs/cgroup/memory/bikepath-hostile-$$
HUB=
cleanup() {
  [ -n "$HUB" ] && kill -9 "$HUB" 2>/dev/null || true
  sleep 0.2; rmdir "$CG" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
umask 077
for d in $(seq 0 8); do echo "bench-$d bench-token-$d-0123456789abcdef"; done >"$WORK/tokens"

echo "city: $KM km of public paths"
read -r FROM TO < <("$BIN/BikePathBench" hostile-city "$KM" "$WORK/hub.sqlite")

# cgroup v1 (this machine) or v2: the hub alone in it, its peak read at the end.
if [ -d /sys/fs/cgroup/memory ]; then
  mkdir "$CG"; echo 1G >"$CG/memory.limit_in_bytes"; PEAK_FILE=$CG/memory.max_usage_in_bytes
else
  CG=/sys/fs/cgroup/bikepath-hostile-$$; mkdir "$CG"; echo 1G >"$CG/memory.max"; PEAK_FILE=$CG/memory.peak
fi
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
sh -c "echo \$\$ > $CG/cgroup.procs; exec \"$BIN/bikepath-hub\" serve --port $PORT --db \"$WORK/hub.sqlite\" --tokens \"$WORK/tokens\" --device-rate 0" \
  >"$WORK/hub.out" 2>"$WORK/hub.err" &
HUB=$!
for _ in $(seq 300); do grep -q listening "$WORK/hub.out" 2>/dev/null && break; sleep 0.1; done
grep -q listening "$WORK/hub.out" || { echo "the hub did not start: $(tail -5 "$WORK/hub.err")" >&2; exit 1; }

run() { # name hostile
  echo "== $1"
  "$BIN/BikePathBench" hostile "http://127.0.0.1:$PORT" "$SECONDS_" "$2" "$FROM" "$TO" | tee "$WORK/$1.txt"
}
run quiet 0
run hostile 1
figure() { sed -n "s/.*$2=\([0-9.]*\).*/\1/p" "$WORK/$1.txt"; }
ratio() { python3 -c "q, h = float('$1'), float('$2'); r = h / q if q > 0 else float('inf'); print(f'{r:.2f} ({\"met\" if r <= 2 else \"NOT met\"})')"; }
echo "upload p99 hostile/quiet: $(ratio "$(figure quiet upload_p99_ms)" "$(figure hostile upload_p99_ms)")"
echo "freshness p50 hostile/quiet: $(ratio "$(figure quiet freshness_p50_ms)" "$(figure hostile freshness_p50_ms)")"
PEAK=$(( $(cat "$PEAK_FILE") / 1048576 ))
echo "hub peak memory (cgroup): $PEAK MB (goal < 512: $([ "$PEAK" -lt 512 ] && echo met || echo NOT met))"
echo "hub VmHWM: $(sed -n 's/VmHWM:\s*//p' /proc/$HUB/status 2>/dev/null || echo gone)"
if kill -0 "$HUB" 2>/dev/null; then echo "restarts: none (goal met)"; else echo "the hub DIED (goal NOT met): $(tail -5 "$WORK/hub.err")"; fi
echo "map records set aside: $(grep -c 'set aside' "$WORK/hub.err" || true)"
echo "requests that failed in the hub, by reason:"
{ grep -o 'request failed: .*' "$WORK/hub.err" || true; } | cut -c1-120 | sort | uniq -c | sort -rn | head -5
