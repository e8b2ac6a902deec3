#!/usr/bin/env bash
# The community path network and routes (docs/hub.md; figures in docs/performance.md):
# a synthesised city of at least KM km of public paths (GridCity) stored on SQLite and on
# PostgreSQL (PostGIS, pgRouting); per store, one ride appended on an empty store and on
# the city, the p95 of a 1 km² /v1/map/network answer and of a route search (k = 3), the
# alternatives' overlap bound; then the best routes checked against networkx's Dijkstra
# on the exported links (bench/route-check.py), and whether the stores agree. Then routes
# over OpenStreetMap's streets alone: PBF (central London, © OpenStreetMap contributors,
# ODbL) imported into each store, the p95 of a route search between random street points
# 0.5–3 km apart, and whether the stores agree.
#
#   bench/network.sh   (KM=10000 SEED=1; CONFIG=debug to skip the release build;
#                       SCRATCH=DIR for the build directory; BIN=DIR for binaries built elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
KM=${KM:-10000}; SEED=${SEED:-1}
PBF=../shared/datasets/osm/central-london.osm.pbf
source bench/lib/build.sh
build_products BikePathBench
source bench/postgres.sh
psql_ -c "CREATE DATABASE network" >/dev/null
mkdir -p "$WORK/export"
"$BIN/BikePathBench" network "$KM" "$SEED" "$WORK/export" "sqlite:$WORK/network.sqlite" \
  "postgres://postgres@127.0.0.1:$PGPORT/network?sslmode=disable"
python3 bench/route-check.py "$WORK/export"
psql_ -c "CREATE DATABASE streets" >/dev/null
"$BIN/BikePathBench" street-routes "$PBF" "$SEED" "sqlite:$WORK/streets.sqlite" \
  "postgres://postgres@127.0.0.1:$PGPORT/streets?sslmode=disable"
