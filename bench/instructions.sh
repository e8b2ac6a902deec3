#!/usr/bin/env bash
# bench/instructions.sh [BIN] — the daemon's CPU as instructions per ride-hour, for a board
# where it cannot be timed here (a Pi's Cortex-A53). `perf stat -e instructions` says
# <not supported> in this VM (no PMU), so valgrind's callgrind counts the instructions
# (Ir) of two runs of the bundled ride (Recordings/allthedocks-GX010056.bpr):
#   replay   `BIN replay --json --crash-detection`: the filter chain alone, as the .chk files;
#   run      `BIN run --replay … --summary`: the whole daemon (status socket, chain, store,
#            sync off), as bench/rss.sh runs it.
# Each count is scaled to one hour of riding by the recording's time span (`BIN inspect`),
# then to the share of one 1 GHz core at 0.5 and 1 instruction per cycle (docs/performance.md
# says why those two). Counts are x86-64 instructions: an AArch64 build of the same code
# executes a similar number (both are load/store-heavy RISC-like code after compilation),
# not the same. Default BIN: a release build of this tree in .build-release.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-}
if [ -z "$bin" ]; then
  swift build -c release --package-path "$root" --scratch-path "$root/.build-release" --product bikepathd >&2
  bin=$root/.build-release/release/bikepathd
fi
command -v valgrind >/dev/null || { echo "bench/instructions.sh needs valgrind (apt-get install valgrind)" >&2; exit 2; }
ride=$root/Recordings/allthedocks-GX010056.bpr
work=$(mktemp -d "${TMPDIR:-/var/tmp}/bikepath-instr.XXXXXX")
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 (Debian 12) cannot read Swift 6's DWARF 5 debug information ("unhandled
# dwarf2 abbrev form", then it gives up): count a copy without it, the same code.
strip --strip-debug -o "$work/bikepathd" "$bin"
bin=$work/bikepathd
# "time: 0.0 s to 205.594923858 s (205.594923858 s)": the span in parentheses.
span=$("$bin" inspect "$ride" | sed -n 's/^time: .*(\([0-9.]*\) s)$/\1/p')
[ -n "$span" ] || { echo "no time span in \`bikepathd inspect\`" >&2; exit 1; }
: >"$work/plain.toml"
count() {  # NAME ARGS... → callgrind's total Ir of the command
  local name=$1
  shift
  valgrind --tool=callgrind --callgrind-out-file="$work/$name.cg" "$@" >"$work/$name.out" 2>"$work/$name.log" ||
    { tail -20 "$work/$name.log" >&2; echo "valgrind $name failed" >&2; exit 1; }
  awk '/^(summary|totals):/ { print $2; exit }' "$work/$name.cg"
}
report() {  # NAME IR
  python3 - "$1" "$2" "$span" <<'EOF'
import sys
name, ir, span = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
per_hour = ir * 3600 / span
print(f"instructions: {name:6} {ir:,} Ir over {span:.1f} s of ride = {per_hour / 1e9:.2f} G per ride-hour;"
      f" 1 GHz core at 1 / 0.5 IPC: {per_hour / 1e9 / 3600 * 100:.3f} % / {per_hour / 0.5e9 / 3600 * 100:.3f} %")
EOF
}
ir_replay=$(count replay "$bin" replay --json --crash-detection "$ride")
report replay "$ir_replay"
ir_run=$(count run "$bin" run --config "$work/plain.toml" --replay "$ride" --summary \
  --db "$work/store.sqlite" --status-socket "$work/status.sock")
report run "$ir_run"
