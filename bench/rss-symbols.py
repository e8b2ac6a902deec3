#!/usr/bin/env python3
"""bench/rss-symbols.py [--root DIR] BIN [UNSTRIPPED]: whose code and data the daemon keeps resident.

Runs `BIN run --replay` of the bundled ride (as bench/rss.sh does, no review page), inside
`chroot DIR` when --root is given (BIN is then a path inside it: the Debian package installed
in a trixie root, docs/install.md), samples /proc/PID/pagemap of BIN's mappings every 20 ms
(root), keeps the sample with the largest total Rss, and splits BIN's present pages among the
symbols of UNSTRIPPED (the same link before `strip`; default BIN) by the bytes each covers,
grouped by ELF section and origin: a Swift module (from the mangled name), the Swift runtime,
or C/C++: which sections are resident, and whose they are
(docs/performance.md, "Memory of the daemon").
"""
import bisect, collections, json, os, re, shutil, struct, subprocess, sys, tempfile, time

args = sys.argv[1:]
root = None
if args[:1] == ["--root"]:
    root, args = args[1], args[2:]
if len(args) not in (1, 2):
    sys.exit("usage: bench/rss-symbols.py [--root DIR] BIN [UNSTRIPPED]")
binary = args[0]
unstripped = args[1] if len(args) == 2 else (root or "") + binary
ride = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Recordings/allthedocks-GX010056.bpr")
outer = tempfile.mkdtemp(prefix="bikepath-rsssym.", dir=(root + "/tmp") if root else None)
inner = outer[len(root):] if root else outer
shutil.copy(ride, f"{outer}/ride.bpr")
open(f"{outer}/plain.toml", "w").close()
command = [binary, "run", "--config", f"{inner}/plain.toml", "--replay", f"{inner}/ride.bpr", "--summary",
           "--db", f"{inner}/store.sqlite", "--status-socket", f"{inner}/status.sock"]
if root:
    command = ["chroot", root, "env", "-i", "PATH=/usr/bin:/bin"] + command
run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
name = os.path.basename(binary)
peak, peak_total = [], 0
while run.poll() is None:
    try:
        present, total = [], 0
        with open(f"/proc/{run.pid}/maps") as maps:
            lines = maps.read().splitlines()
        # chroot and env exec the daemon: the same pid
        with open(f"/proc/{run.pid}/smaps_rollup") as r:
            total = int(re.search(r"^Rss:\s+(\d+)", r.read(), re.M).group(1))
        with open(f"/proc/{run.pid}/pagemap", "rb") as pagemap:
            for line in lines:
                fields = line.split()
                if len(fields) < 6 or os.path.basename(fields[5]) != name: continue
                start, end = (int(x, 16) for x in fields[0].split("-"))
                offset = int(fields[2], 16)
                pagemap.seek((start >> 12) * 8)
                entries = pagemap.read(((end - start) >> 12) * 8)
                for i in range(len(entries) // 8):
                    if struct.unpack_from("<Q", entries, i * 8)[0] >> 63:
                        present.append(offset + (i << 12))
        if total > peak_total: peak_total, peak = total, present
    except (FileNotFoundError, ProcessLookupError, AttributeError):
        pass
    time.sleep(0.02)
summary = json.loads(run.stdout.read() or "{}")
shutil.rmtree(outer)
if not peak:
    sys.exit("no page of BIN was seen present: run as root")
print(f"max_rss_kib {summary.get('max_rss_kib')}; sampled total Rss {peak_total} KiB; binary present {len(peak)*4} KiB")
# file offset -> vaddr via program headers of the unstripped file (same layout)
loads = []
for line in subprocess.run(["readelf", "-lW", unstripped], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r"\s*LOAD\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)", line)
    if m: loads.append(tuple(int(x, 16) for x in m.groups()))
sections = []
for line in subprocess.run(["readelf", "-SW", unstripped], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
    if m and int(m.group(4), 16) > 0 and int(m.group(2), 16) > 0:
        sections.append((int(m.group(2), 16), int(m.group(4), 16), m.group(1)))
syms = []
for line in subprocess.run(["nm", "-S", "--defined-only", unstripped], capture_output=True, text=True).stdout.splitlines():
    p = line.split()
    if len(p) == 4: syms.append((int(p[0], 16), int(p[1], 16), p[3]))
syms.sort()
starts = [s[0] for s in syms]
def group(name):
    m = re.match(r"_?\$s(\d+)(\w+)", name)
    if m:
        n = int(m.group(1)); return "swift:" + m.group(2)[:n]
    if name.startswith("$s") or name.startswith("_$s"): return "swift:(stdlib)"
    if re.search(r"icu_\d+|_7[0-9]$|^u[a-z]+_\w+_7\d|icudt", name): return "c:ICU"
    if name.startswith("_Z"): return "c++:other"
    if name.startswith("swift_") or name.startswith("_swift"): return "swift:runtime"
    if name.startswith("sqlite3"): return "c:sqlite"
    return "c:other"
bysection, bygroup = collections.Counter(), collections.Counter()
for off in peak:
    va = next((v + (off - o) for o, v, sz in loads if o <= off < o + sz), None)
    if va is None: bysection["-"] += 4; continue
    sec = next((n for a, sz, n in sections if a < va + 4096 and va < a + sz), "-")
    bysection[sec] += 4
    # symbols overlapping this page: split the page's 4 KiB by bytes covered
    i = bisect.bisect_right(starts, va) - 1
    covered = collections.Counter()
    j = max(i, 0)
    while j < len(syms) and syms[j][0] < va + 4096:
        a, sz, n = syms[j]
        lo, hi = max(a, va), min(a + max(sz, 1), va + 4096)
        if hi > lo: covered[group(n)] += hi - lo
        j += 1
    tot = sum(covered.values())
    if not tot: bygroup[sec + ":(no symbol)"] += 4; continue
    for g, b in covered.items(): bygroup[sec + " " + g] += 4 * b / tot
print("by section:"); [print(f"  {k:7.0f} KiB {n}") for n, k in bysection.most_common(12)]
print("by section and origin:"); [print(f"  {k:7.0f} KiB {n}") for n, k in bygroup.most_common(40)]
