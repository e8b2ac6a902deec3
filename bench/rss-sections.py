#!/usr/bin/env python3
"""bench/rss-sections.py BIN: which sections of the daemon's own file are resident.

Runs `BIN run --replay` of the bundled ride as bench/rss.sh does (no review page), reads
/proc/PID/pagemap of BIN's mappings every 50 ms (root: without CAP_SYS_ADMIN the kernel
hides whether a page is present), keeps the sample with the most pages present and prints
them by ELF section (readelf -S), largest first. bench/rss-map.sh says how much of the
peak is BIN's; this says which part of BIN (docs/performance.md, "Memory of the daemon").
"""

import collections
import os
import re
import struct
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) != 2:
    sys.exit("usage: bench/rss-sections.py BIN")
binary = os.path.realpath(sys.argv[1])
work = tempfile.mkdtemp(prefix="bikepath-rsssect.")
open(f"{work}/plain.toml", "w").close()
run = subprocess.Popen(
    [binary, "run", "--config", f"{work}/plain.toml",
     "--replay", f"{root}/Recordings/allthedocks-GX010056.bpr", "--summary",
     "--db", f"{work}/store.sqlite", "--status-socket", f"{work}/status.sock"],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
peak = []
while run.poll() is None:
    try:
        present = []
        with open(f"/proc/{run.pid}/maps") as maps, open(f"/proc/{run.pid}/pagemap", "rb") as pagemap:
            for line in maps:
                fields = line.split()
                if len(fields) < 6 or fields[5] != binary:
                    continue
                start, end = (int(x, 16) for x in fields[0].split("-"))
                offset = int(fields[2], 16)
                pagemap.seek((start >> 12) * 8)
                entries = pagemap.read(((end - start) >> 12) * 8)
                for i in range(len(entries) // 8):
                    if struct.unpack_from("<Q", entries, i * 8)[0] >> 63:  # bit 63: present
                        present.append(offset + (i << 12))
        if len(present) >= len(peak):
            peak = present
    except (FileNotFoundError, ProcessLookupError):
        pass  # it ended between two reads
    time.sleep(0.05)
subprocess.run(["rm", "-rf", work], check=True)
if not peak:
    sys.exit("no page of BIN was seen present: run as root")

# [Nr] Name Type Address Off Size: sections by their place in the file.
sections = []
for line in subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
    if m and int(m.group(3), 16) > 0:
        sections.append((int(m.group(2), 16), int(m.group(3), 16), m.group(1)))
kib = collections.Counter()
for page in peak:
    # A page belongs to the first section that overlaps it (headers, padding: "-").
    name = next((n for off, size, n in sections if off < page + 4096 and page < off + size), "-")
    kib[name] += 4
print(f"{binary}: {len(peak) * 4} KiB of the file present at the peak")
for name, k in kib.most_common():
    size = next((s for _, s, n in sections if n == name), 0)
    print(f"{k:8d} KiB  {name:32s} of {size // 1024:8d} KiB")
