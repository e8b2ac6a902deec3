#!/usr/bin/env bash
# Builds each libFuzzer target in Fuzz/Targets against the pure core (which has no
# dependencies, so swiftc compiles it directly) and runs it for a bounded number of
# inputs. The core is compiled once, instrumented, into a static library the targets
# link (`@testable import BikePathCore`): compiling it into each of the four targets took
# ~80 s a target on two cores; a target alone links in ~2 s. Usage: Fuzz/run.sh [RUNS] [TARGET...]   (default 1000000 runs, every target)
# Fails if a target crashes or ran fewer than RUNS inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}; shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=($(cd Fuzz/Targets && ls *.swift | sed 's/\.swift$//'))
out=fuzz-out; mkdir -p "$out"
core_sources=$(find Sources/BikePathCore -name '*.swift' | sort)
core="$out/core"
# Linking ASan-instrumented objects makes gold warn once per ASan helper symbol (~140 lines).
quiet_link() { grep -v "Cannot export local symbol '__asan" || true; }
build_core() {
  [ -f "$core/libBikePathCore.a" ] && return
  echo "fuzz: building the core (instrumented, once)"
  mkdir -p "$core"
  swiftc -O -sanitize=fuzzer,address -parse-as-library -enable-testing -module-name BikePathCore \
    -emit-module -emit-module-path "$core/BikePathCore.swiftmodule" -emit-library -static \
    -o "$core/libBikePathCore.a" $core_sources
}
rm -rf "$core"  # the core's sources may have changed since the last run
# Every target is built first (swiftc takes both cores), then run two at a time (a libFuzzer
# run takes one core): run one after another, the four runs took ~20 of CI's ~40 minutes.
for t in "${targets[@]}"; do
  echo "fuzz: building $t"
  # A target may name its own sources (`// fuzz-sources:`) instead of the core, and a C++
  # file (`// fuzz-cxx:`) built against the TOML library's toml.hpp (resolved by SwiftPM).
  sources=$(sed -n 's|^// fuzz-sources: ||p' "Fuzz/Targets/$t.swift")
  cxx=$(sed -n 's|^// fuzz-cxx: ||p' "Fuzz/Targets/$t.swift")
  objects=()
  if [ -n "$cxx" ]; then
    toml_include=.build/checkouts/TOMLKit/Sources/CTOML/Sources
    [ -f "$toml_include/toml.hpp" ] || swift package resolve >/dev/null
    clang++ -std=c++17 -O1 -g -fsanitize=fuzzer-no-link,address -w -I"$toml_include" -c "$cxx" -o "$out/$t-cxx.o"
    objects=("$out/$t-cxx.o" -lstdc++)
  fi
  if [ -n "$sources" ]; then
    inputs=($sources "Fuzz/Targets/$t.swift")
  else
    build_core
    # The archive after the target's source: the linker takes from it what is still undefined.
    inputs=(-I "$core" "Fuzz/Targets/$t.swift" "$core/libBikePathCore.a")
  fi
  swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name FuzzTarget \
    "${inputs[@]}" "${objects[@]}" -o "$out/$t" 2>&1 | quiet_link
  [ "${PIPESTATUS[0]}" = 0 ] || { echo "fuzz: $t did not build"; exit 1; }
done
# Runs target $1; its verdict is in $out/$1.verdict (ok, or why not).
fuzz_one() {
  local t=$1 divisor target_runs log done_runs
  # A slow target (the structure-aware one builds a whole recording and runs the chain per
  # input, ~0.4 ms; the configuration one runs the real toml++ with exceptions and ASan,
  # ~2,000 inputs/s) says `// fuzz-runs-divisor: N` and runs RUNS/N: about a minute each.
  divisor=$(sed -n 's|^// fuzz-runs-divisor: ||p' "Fuzz/Targets/$t.swift")
  target_runs=$(( runs / ${divisor:-1} > 0 ? runs / ${divisor:-1} : 1 ))
  mkdir -p "$out/$t-corpus"
  [ -d "Fuzz/Seeds/$t" ] && cp -n Fuzz/Seeds/$t/* "$out/$t-corpus/" 2>/dev/null || true
  log="$out/$t.log"
  echo "fuzz: running $t for $target_runs inputs"
  if ! "$out/$t" -runs="$target_runs" -max_len=4096 -print_final_stats=1 -artifact_prefix="$out/$t-" "$out/$t-corpus" >"$log" 2>&1; then
    echo "CRASHED (log: $log)" > "$out/$t.verdict"; return
  fi
  done_runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$')
  if [ "${done_runs:-0}" -ge "$target_runs" ]; then
    echo "fuzz: $t executed ${done_runs:-0} inputs without a crash"
    echo ok > "$out/$t.verdict"
  else
    echo "ran ${done_runs:-0} of $target_runs inputs" > "$out/$t.verdict"
  fi
}
for t in "${targets[@]}"; do
  rm -f "$out/$t.verdict"
  # A core frees up when either run ends (a verdict file says how it went).
  while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n || true; done
  fuzz_one "$t" &
done
wait
failed=0
for t in "${targets[@]}"; do
  verdict=$(cat "$out/$t.verdict" 2>/dev/null || echo "no verdict")
  [ "$verdict" = ok ] && continue
  case $verdict in CRASHED*) tail -40 "$out/$t.log" ;; esac
  echo "fuzz: $t $verdict"
  failed=1
done
exit $failed
