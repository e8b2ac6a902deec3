#!/usr/bin/env bash
# Store throughput: StoreWriter vs the sqlite3 CLI `.import` of the same rows
# into the same schema, with the same durability (WAL, synchronous=FULL).
#
#   bench/store.sh [POINTS] [EVENTS]      (defaults 100000 and 5000)
#
# The writer half is `bikepathd store-bench` (hidden): it writes the track points,
# then the obstacle events (200-sample IMU windows), through StoreWriter in its
# catch-up cadence (batches of 500 rows, one fsynced commit each, hash chain and
# all), times each phase, and dumps the stored rows as CSV. The CLI half imports
# those CSVs into a fresh database made by the same bikepathd (same schema,
# indexes and constraints) in one `.import` per table. One run, wall clock.
set -euo pipefail
cd "$(dirname "$0")/.."
POINTS=${1:-100000}
EVENTS=${2:-5000}
command -v sqlite3 >/dev/null || { echo "sqlite3 CLI missing: apt-get install sqlite3" >&2; exit 1; }
swift build -c release --product bikepathd >/dev/null
BIN=.build/release/bikepathd
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/bikepath-store-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

"$BIN" store-bench --db "$WORK/writer.db" --csv-dir "$WORK" --points "$POINTS" --events "$EVENTS" > "$WORK/writer.txt"
read -r _ wp wps < <(grep writer_points "$WORK/writer.txt")
read -r _ we wes < <(grep writer_events "$WORK/writer.txt")

# Same schema: let bikepathd create it, then add the trip the rows belong to.
"$BIN" drafts list --db "$WORK/cli.db" >/dev/null
sqlite3 "$WORK/cli.db" < "$WORK/trips.sql"
now() { date +%s.%N; }
cli_import() { # table file
  sqlite3 "$WORK/cli.db" <<SQL
PRAGMA journal_mode=WAL;
PRAGMA synchronous=FULL;
PRAGMA foreign_keys=ON;
.mode csv
.import $2 $1
SQL
}
t0=$(now); cli_import track_points "$WORK/points.csv" >/dev/null; t1=$(now)
cli_import events "$WORK/events.csv" >/dev/null; t2=$(now)
cp=$(sqlite3 "$WORK/cli.db" "SELECT COUNT(*) FROM track_points")
ce=$(sqlite3 "$WORK/cli.db" "SELECT COUNT(*) FROM events")
[ "$cp" = "$wp" ] && [ "$ce" = "$we" ] || { echo "row counts differ: cli $cp/$ce writer $wp/$we" >&2; exit 1; }

awk -v wp="$wp" -v wps="$wps" -v we="$we" -v wes="$wes" -v t0="$t0" -v t1="$t1" -v t2="$t2" 'BEGIN {
  cps = t1 - t0; ces = t2 - t1
  printf "%-13s %8s %10s %12s %12s %7s\n", "rows", "count", "writer s", "writer/s", "sqlite3/s", "ratio"
  printf "%-13s %8d %10.3f %12.0f %12.0f %6.2fx\n", "track points", wp, wps, wp/wps, wp/cps, (wp/wps)/(wp/cps)
  printf "%-13s %8d %10.3f %12.0f %12.0f %6.2fx\n", "events", we, wes, we/wes, we/ces, (we/wes)/(we/ces)
}'
