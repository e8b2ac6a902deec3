# Sourced by the hub benchmarks (hub.sh, network.sh, hostile.sh): their build, said once.
#   build_products PRODUCT…   builds each product (CONFIG=release unless set, at nice 10, so
#                             that other builds on the machine keep their cores) in SCRATCH
#                             (.build-release for release, .build for debug: a release build
#                             never waits on a debug one) and sets BIN to the binaries' folder.
#                             With BIN already set (binaries built elsewhere, e.g. an older
#                             commit's) nothing is built.
build_products() {
  CONFIG=${CONFIG:-release}
  local default_scratch=.build
  [ "$CONFIG" = release ] && default_scratch=.build-release
  SCRATCH=${SCRATCH:-$default_scratch}
  [ -n "${BIN:-}" ] && return 0
  local product
  for product in "$@"; do
    nice -n 10 swift build -c "$CONFIG" --scratch-path "$SCRATCH" --product "$product" >/dev/null
  done
  BIN=$SCRATCH/$CONFIG
}
