#!/usr/bin/env bash
# bench/soak.sh [HOURS] — the soak: `BikePathBench soak --hours HOURS` (default 24), the
# daemon as `run` assembles it (Daemon.make), fed a synthetic day of riding (each hour 50 min at 5.5 m/s, 10 min standing, so 24
# trips; 100 Hz IMU, 1 Hz GNSS as RMC+GGA) as fast as the daemon takes it, through the
# whole daemon path: chain, StoreWriter (commit every second of sample time), trip ends,
# drafts, retention. Reports RSS at start, after the first hour, at the end, and the peak
# (goal: no growth after the first hour). Release build, own scratch folder.
#   BIKEPATH_BIN=PATH  use this BikePathBench instead of building one
set -euo pipefail
hours=${1:-24}
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${BIKEPATH_BIN:-}" ]; then
  bin=$BIKEPATH_BIN
else
  swift build -c release --package-path "$root" --scratch-path "$root/.build-release" --product BikePathBench >&2
  bin=$root/.build-release/release/BikePathBench
fi
work=$(mktemp -d "${TMPDIR:-/var/tmp}/bikepath-soak.XXXXXX")
trap 'rm -rf "$work"' EXIT
: > "$work/bikepathd.toml"
"$bin" soak --config "$work/bikepathd.toml" --hours "$hours" \
  --db "$work/store.sqlite" --status-socket "$work/status.sock" 2>/dev/null > "$work/summary.json"
python3 - "$work/summary.json" "$hours" "$work/store.sqlite" <<'PY'
import json, os, sys
s = json.load(open(sys.argv[1])); hours = float(sys.argv[2])
size = os.path.getsize(sys.argv[3]) / 1e6
print(f"soak: {hours:g} h of synthetic riding in {s['elapsed_s']:.1f} s ({hours * 3600 / s['elapsed_s']:.0f}x real time); "
      f"{s['records']} records, {s['outputs']} outputs, {s['trips_ended']} trips ended, {s['obstacles']} obstacles; store {size:.1f} MB")
first = s.get('rss_after_first_hour_kib')
after = f"{first / 1024:.1f} MiB" if first else "n/a (under 1 h)"
print(f"soak: RSS start {s['rss_start_kib'] / 1024:.1f} MiB, after 1 h {after}, "
      f"end {s['rss_end_kib'] / 1024:.1f} MiB, peak {s['max_rss_kib'] / 1024:.1f} MiB"
      + (f"; growth after the first hour {(s['rss_end_kib'] - first) / 1024:+.1f} MiB" if first else ""))
hourly = s.get('rss_by_hour_kib', [])
if hourly:
    print("soak: RSS at each hour (MiB): " + " ".join(f"{k / 1024:.1f}" for k in hourly))
PY
