#!/usr/bin/env bash
# Store throughput: StoreWriter vs the sqlite3 CLI `.import` of the same rows
# into the same schema, with the same durability (WAL, synchronous=FULL).
#
#   bench/store.sh [POINTS] [EVENTS]      (defaults 100000 and 5000)
#
# The writer half is `BikePathBench store-bench`: it writes the track points,
# then the obstacle events (200-sample Float32 IMU windows), through StoreWriter
# in its catch-up cadence (rows 10 µs apart in sample time, so batches of the
# default 5000 rows, one fsynced commit each, hash chain and all), times each
# phase, and dumps the stored rows as CSV. The CLI half imports those CSVs into a
# fresh database made by the same bikepathd (same schema, indexes and
# constraints), one `.import` per table, one process each. One run; wall clock
# and CPU (user+sys) time are both reported because the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/.."
POINTS=${1:-100000}
EVENTS=${2:-5000}
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI missing: apt-get install sqlite3" >&2; exit 1; }
swift build -c release --product bikepathd >/dev/null
swift build -c release --product BikePathBench >/dev/null
BIN=.build/release/bikepathd
BENCH=.build/release/BikePathBench
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/bikepath-store-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

"$BENCH" store-bench --db "$WORK/writer.db" --csv-dir "$WORK" --points "$POINTS" --events "$EVENTS" > "$WORK/writer.txt"
read -r _ wp wps wpc < <(grep writer_points "$WORK/writer.txt")
read -r _ we wes wec < <(grep writer_events "$WORK/writer.txt")

# Same schema: let bikepathd create it, then add the trip the rows belong to.
"$BIN" drafts list --db "$WORK/cli.db" >/dev/null
sqlite3 "$WORK/cli.db" < "$WORK/trips.sql"
cli_import() { # table file -> prints "wall user sys"
  printf 'PRAGMA journal_mode=WAL;\nPRAGMA synchronous=FULL;\nPRAGMA foreign_keys=ON;\n.mode csv\n.import %s %s\n' "$2" "$1" > "$WORK/import.sql"
  /usr/bin/time -f '%e %U %S' -o "$WORK/time.txt" sqlite3 "$WORK/cli.db" < "$WORK/import.sql" >/dev/null
  cat "$WORK/time.txt"
}
read -r cpw cpu cps < <(cli_import track_points "$WORK/points.csv")
read -r cew ceu ces < <(cli_import events "$WORK/events.csv")
read -r cww cwu cws < <(cli_import event_windows "$WORK/windows.csv")
# An event is its row plus its window row: both imports count.
cew=$(awk "BEGIN{print $cew+$cww}"); ceu=$(awk "BEGIN{print $ceu+$cwu}"); ces=$(awk "BEGIN{print $ces+$cws}")
cp=$(sqlite3 "$WORK/cli.db" "SELECT COUNT(*) FROM track_points")
ce=$(sqlite3 "$WORK/cli.db" "SELECT COUNT(*) FROM events")
[ "$cp" = "$wp" ] && [ "$ce" = "$we" ] || { echo "row counts differ: cli $cp/$ce writer $wp/$we" >&2; exit 1; }

echo "$(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), sqlite $(sqlite3 --version | cut -d' ' -f1)"
awk -v wp="$wp" -v wps="$wps" -v wpc="$wpc" -v we="$we" -v wes="$wes" -v wec="$wec" \
    -v cpw="$cpw" -v cpc="$(awk "BEGIN{print $cpu+$cps}")" -v cew="$cew" -v cec="$(awk "BEGIN{print $ceu+$ces}")" 'BEGIN {
  printf "%-13s %7s | %10s %10s %6s | %10s %10s %6s\n", "rows", "count", "writer/s", "sqlite3/s", "ratio", "writer/CPUs", "sqlite3/CPUs", "ratio"
  printf "%-13s %7d | %10.0f %10.0f %5.2fx | %10.0f %10.0f %5.2fx\n", "track points", wp, wp/wps, wp/cpw, cpw/wps, wp/wpc, wp/cpc, cpc/wpc
  printf "%-13s %7d | %10.0f %10.0f %5.2fx | %10.0f %10.0f %5.2fx\n", "events", we, we/wes, we/cew, cew/wes, we/wec, we/cec, cec/wec
}'
