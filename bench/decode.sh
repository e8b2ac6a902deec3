#!/usr/bin/env bash
# Decode throughput: bikepathd decode against gpsd's gpsdecode -j on the same
# NMEA corpus (the 88 gpsd regression logs, repeated to ~80 MB), in one run.
# Usage: bench/decode.sh [TARGET_MB]   (default 80)
# Prints MB/s for each and the ratio, and checks both produce the same fixes on a
# small log. Results go in docs/performance.md ("Decode").
set -euo pipefail
cd "$(dirname "$0")/.."
target_mb=${1:-80}
command -v gpsdecode >/dev/null || { echo "bench: gpsdecode missing (apt-get install gpsd-clients)"; exit 1; }

echo "bench: building release"
swift build -c release --product bikepathd >/dev/null
bin=$(swift build -c release --show-bin-path)/bikepathd

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
logs=(Tests/BikePathCoreTests/Fixtures/gpsd/*.log)
cat "${logs[@]}" > "$tmp/one.nmea"
one=$(stat -c %s "$tmp/one.nmea")
: > "$tmp/corpus.nmea"
while [ "$(stat -c %s "$tmp/corpus.nmea")" -lt $((target_mb * 1000000)) ]; do cat "$tmp/one.nmea" >> "$tmp/corpus.nmea"; done
size=$(stat -c %s "$tmp/corpus.nmea")
echo "bench: corpus $((size / 1000000)) MB ($((size / one)) copies of the 88 logs)"

# Best of three runs each, wall-clock seconds.
best() {
  local best_t=999999
  for _ in 1 2 3; do
    local s e
    s=$(date +%s.%N); "$@" > /dev/null 2>&1 || true; e=$(date +%s.%N)
    best_t=$(echo "$e - $s" | bc -l | awk -v b="$best_t" '{ print ($1 < b) ? $1 : b }')
  done
  echo "$best_t"
}
mbps() { echo "$2 / $1 / 1000000" | bc -l | xargs printf '%.1f'; }
run_pair() { # corpus label
  local corpus=$1 label=$2 bytes t_gpsd t_ours
  bytes=$(stat -c %s "$corpus")
  t_gpsd=$(best sh -c "gpsdecode -j < '$corpus'")
  t_ours=$(best "$bin" decode "$corpus")
  echo "bench: [$label, $((bytes / 1000000)) MB] gpsdecode -j      $(mbps "$t_gpsd" "$bytes") MB/s  (${t_gpsd}s)"
  echo "bench: [$label, $((bytes / 1000000)) MB] bikepathd decode  $(mbps "$t_ours" "$bytes") MB/s  (${t_ours}s)"
  echo "bench: [$label] ratio $(echo "$t_gpsd / $t_ours" | bc -l | xargs printf '%.1f')x"
}
run_pair "$tmp/corpus.nmea" "logs as they are"
# The logs are half binary noise by size (u-blox packets), which both reject fast;
# the sentence-only corpus measures NMEA decoding itself.
LC_ALL=C grep -a '^\$' "$tmp/corpus.nmea" > "$tmp/sentences.nmea"
run_pair "$tmp/sentences.nmea" "sentences only"

# Same fixes on a small clean log: every epoch gpsdecode reports (its last TPV per
# time) must have a bikepathd fix with the same time of day, mode, lat and lon.
# (Time of day only: gpsd 3.22 moves dates that look older than its build date by
# 1024 GPS weeks, e.g. 2010-08-21 -> 2030-04-06; bikepathd keeps the receiver's date.)
small=Tests/BikePathCoreTests/Fixtures/gpsd/${2:-ublox-lea-5h.log}
gpsdecode -j < "$small" > "$tmp/gpsd.json"
"$bin" decode "$small" > "$tmp/ours.json" 2>/dev/null
python3 - "$tmp/gpsd.json" "$tmp/ours.json" "$(basename "$small")" <<'PY'
import json, sys
def key(o): return o["time"][11:]
gpsd = {}
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("class") == "TPV" and "time" in o: gpsd[key(o)] = o
ours = {key(o): o for o in map(json.loads, open(sys.argv[2])) if "time" in o}
same = [t for t, g in gpsd.items() if t in ours and ours[t]["mode"] == g["mode"]
        and abs(ours[t].get("lat", 999) - g.get("lat", 999)) <= 1e-6 and abs(ours[t].get("lon", 999) - g.get("lon", 999)) <= 1e-6]
extra = len(set(ours) - set(gpsd))
print(f"bench: {sys.argv[3]}: {len(same)} of {len(gpsd)} gpsdecode epochs have the same fix from bikepathd "
      f"(time of day, mode, lat, lon); bikepathd has {extra} more (epochs gpsdecode does not report)")
sys.exit(0 if len(same) == len(gpsd) else 1)
PY
