#!/usr/bin/env bash
# Map matching (docs/hub.md, "Map matching"): the real central London streets
# (../shared/datasets/osm/central-london.osm.pbf, © OpenStreetMap contributors, ODbL; read by
# the hub's OSM import), RIDES simulated rides per noise level (seeded random walks of 2–5 km
# over them at 5 m/s, a fix a second, Gaussian GNSS noise σ 5 m and 10 m) matched by the
# hidden-Markov matcher: the fixes matched per second, and the share of each ride's length
# on its true street, the goal (≥ 97 % of every ride) met or not, and for each ride under it
# where its length went (chain breaks, the other way, another street; there-and-backs laid);
# and the edges and ways the hub would credit (StreetRides.counted) that no ride rode, by kind.
#
#   bench/matching.sh   (RIDES=20 SEED=1 PBF=…; CONFIG=debug to skip the release build;
#                        SCRATCH=DIR for the build directory; BIN=DIR for binaries built elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
RIDES=${RIDES:-20}; SEED=${SEED:-1}
PBF=${PBF:-../shared/datasets/osm/central-london.osm.pbf}
source bench/lib/build.sh
build_products BikePathBench
"$BIN/BikePathBench" matching "$PBF" "$RIDES" "$SEED"
