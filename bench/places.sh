#!/usr/bin/env bash
# Places by name (docs/hub.md, "Places by name"): central London's real named places
# (../shared/datasets/osm/central-london.osm.pbf, © OpenStreetMap contributors, ODbL; read
# by the hub's OSM import), stored COPIES times shifted north (5 copies: 10,235
# places), on SQLite and on PostgreSQL (pg_trgm); per store the p95 of a search by name
# (half the names with a typo) near random points, the goal (< 20 ms) met or not, and
# whether the stores agree.
#
#   bench/places.sh   (COPIES=5 SEED=1; CONFIG=debug to skip the release build;
#                      SCRATCH=DIR for the build directory; BIN=DIR for binaries built elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
COPIES=${COPIES:-5}; SEED=${SEED:-1}
PBF=../shared/datasets/osm/central-london.osm.pbf
source bench/lib/build.sh
build_products BikePathBench
source bench/postgres.sh
psql_ -c "CREATE DATABASE places" >/dev/null
"$BIN/BikePathBench" places "$PBF" "$COPIES" "$SEED" "sqlite:$WORK/places.sqlite" \
  "postgres://postgres@127.0.0.1:$PGPORT/places?sslmode=disable"
