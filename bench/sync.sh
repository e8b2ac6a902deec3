#!/usr/bin/env bash
# Sync figures (issue 6), against bikepath-hub on loopback:
#   1. one ride-hour uploaded as a private draft (+ its trip summary), then the
#      same ride confirmed: requests and bytes on the wire;
#   2. what the raw IMU windows of that hour would add (they are never uploaded);
#   3. a 30-day backlog (2 rides of 30 min a day, all confirmed, plus an SOS)
#      drained by one `bikepathd sync --once`: wall-clock time of the process.
#
#   bench/sync.sh            (CONFIG=debug bench/sync.sh to skip the release build)
#
# Rides are SyntheticRides (1 Hz fixes, path kept every 10th fix, an obstacle
# every 45 s with a 200-sample window, road quality every 60 s).
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${CONFIG:-release}
# Release builds go to their own folder, so they never wait on (or for) debug builds.
SCRATCH=.build; [ "$CONFIG" = release ] && SCRATCH=.build-release
swift build -c "$CONFIG" --scratch-path "$SCRATCH" --product bikepathd >/dev/null
swift build -c "$CONFIG" --scratch-path "$SCRATCH" --product bikepath-hub >/dev/null
swift build -c "$CONFIG" --scratch-path "$SCRATCH" --product BikePathBench >/dev/null
BIN=$SCRATCH/$CONFIG
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/bikepath-sync-bench.XXXXXX")
HUB_PID=
cleanup() { [ -n "$HUB_PID" ] && kill "$HUB_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

TOKEN=bench-token-0123456789abcdef
umask 077
printf '%s\n' "$TOKEN" > "$WORK/token"
printf 'bench-device %s\n' "$TOKEN" > "$WORK/tokens"

start_hub() { # db
  "$BIN/bikepath-hub" --port 0 --db "$1" --tokens "$WORK/tokens" > "$WORK/hub.out" 2>/dev/null &
  HUB_PID=$!
  for _ in $(seq 100); do grep -q listening "$WORK/hub.out" 2>/dev/null && break; sleep 0.1; done
  PORT=$(sed -n 's/.*listening on .*:\([0-9]*\)$/\1/p' "$WORK/hub.out")
}
stop_hub() { kill "$HUB_PID"; wait "$HUB_PID" 2>/dev/null || true; HUB_PID=; }
wire() { grep 'sync: wire' "$1" | sed 's/^sync: wire: //'; }

# 1. One ride-hour.
"$BIN/BikePathBench" store-replay --db "$WORK/hour.db" --trips 1 --seconds-per-trip 3600 >/dev/null
"$BIN/bikepathd" sync consent trips on --db "$WORK/hour.db" >/dev/null
start_hub "$WORK/hub-hour.db"
"$BIN/bikepathd" sync --once --db "$WORK/hour.db" --hub "http://127.0.0.1:$PORT" --token-file "$WORK/token" 2> "$WORK/draft.err"
DRAFT=$("$BIN/bikepathd" drafts list --db "$WORK/hour.db" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["drafts"][0]["id"])')
"$BIN/bikepathd" drafts confirm "$DRAFT" --db "$WORK/hour.db" >/dev/null
"$BIN/bikepathd" sync --once --db "$WORK/hour.db" --hub "http://127.0.0.1:$PORT" --token-file "$WORK/token" 2> "$WORK/confirm.err"
stop_hub
echo "ride-hour as a draft (draft + trip summary, one batch): $(wire "$WORK/draft.err")"
echo "the same ride confirmed (confirmation, one batch):      $(wire "$WORK/confirm.err")"
python3 - "$WORK/hour.db" <<'PY'
import gzip, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
# Windows live in event_windows (newer stores) or in events.window (schema v1-v2).
sql = ("SELECT samples FROM event_windows" if "event_windows" in tables
       else "SELECT window FROM events WHERE kind = 'obstacle' AND window IS NOT NULL")
w = [r[0] for r in db.execute(sql)]
raw = b"".join(w)
print(f"raw IMU windows of that hour (not uploaded): {len(w)} windows, {len(raw)} B raw float32, {len(gzip.compress(raw))} B gzipped")
PY
# The synthetic path is a straight line and compresses unusually well. Worst case
# for a real ride: a path NOT simplified (3600 fixes at 1 Hz), wandering, with
# 2 m of GNSS noise, encoded as the draft encodes it (6 decimals, [lat,lon] pairs).
python3 - <<'PY'
import gzip, json, math, random
random.seed(6)
lat, lon, heading, pts = 52.52, 13.40, 0.0, []
for s in range(3600):
    heading += random.gauss(0, 0.08)
    lat += 5 * math.cos(heading) / 111195 + random.gauss(0, 2) / 111195
    lon += 5 * math.sin(heading) / (111195 * math.cos(math.radians(lat))) + random.gauss(0, 2) / (111195 * 0.6088)
    pts.append([round(lat, 6), round(lon, 6)])
doc = json.dumps({"path": pts}, separators=(",", ":")).encode()
print(f"worst-case path, 3600 noisy unsimplified fixes: {len(doc)} B JSON, {len(gzip.compress(doc))} B gzipped")
PY

# 3. A 30-day backlog.
"$BIN/BikePathBench" store-replay --db "$WORK/month.db" --trips 60 --seconds-per-trip 1800 >/dev/null
for id in $("$BIN/bikepathd" drafts list --db "$WORK/month.db" --json | python3 -c 'import json,sys; print(" ".join(d["id"] for d in json.load(sys.stdin)["drafts"]))'); do
  "$BIN/bikepathd" drafts confirm "$id" --db "$WORK/month.db" >/dev/null
done
"$BIN/bikepathd" sync consent trips on --db "$WORK/month.db" >/dev/null
"$BIN/bikepathd" sync consent sos on --db "$WORK/month.db" >/dev/null
start_hub "$WORK/hub-month.db"
t0=$(date +%s.%N)
"$BIN/bikepathd" sync --once --db "$WORK/month.db" --hub "http://127.0.0.1:$PORT" --token-file "$WORK/token" 2> "$WORK/month.err"
t1=$(date +%s.%N)
stop_hub
HELD=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from records').fetchone()[0])" "$WORK/hub-month.db")
echo "30-day backlog (60 rides x 30 min, all confirmed, 1 SOS): $HELD records on the hub; $(wire "$WORK/month.err")"
echo "30-day backlog drain, whole process: $(python3 -c "print(f'{$t1-$t0:.2f}')") s"
echo "config: $CONFIG; machine: $(nproc) cores, $(uname -m), $(uname -r); date: $(date -u +%Y-%m-%dT%H:%MZ)"
