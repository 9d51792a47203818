#!/usr/bin/env bash
# What the cmadebug tool itself costs, on this machine, in one run:
#  1. 'cmadebug snapshot' against 'cat' of exactly the files it reads (found
#     with strace), over the captured arm64 guest tree; target <= 2x.
#  2. 'cmadebug bitmap' over a 1 GiB area with order_per_bit 0 (262144 bits,
#     alternating runs, from mainline's 'bitmap' file only); target < 50 ms.
#  3. The worst case of fragmentation, every other page used: a 1 GiB area
#     (131072 runs) in < 100 ms and a 16 GiB one (4194304 pages, 2097152
#     runs) in < 2 s and < 64 MB resident, as text and as JSON.
# Wall times, median of 30 runs each (5 for 16 GiB), interleaved so load hits
# all alike; resident size is the largest of the runs.
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

tool=$TOP/cmadebug/cmadebug
[ -x "$tool" ] || die "build cmadebug first (make cmadebug)"
require_cmd strace strace
root=$TOP/tests/fixtures/qemu-arm64/root
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The files snapshot opens under the tree, as cat will read them.
# (-y names each returned fd: --root opens with openat2 relative to the root.)
strace -f -qq -y -e trace=openat,openat2 -o "$work/trace" "$tool" --root "$root" snapshot -o "$work/s.json" >/dev/null
grep -o "= [0-9]*<$root/[^>]*>\$" "$work/trace" | sed 's/^= [0-9]*<//; s/>$//' | sort -u |
	while read -r f; do [ -f "$f" ] && echo "$f"; done >"$work/files"
[ -s "$work/files" ] || die "strace saw snapshot open no files"

# A 1 GiB area (4 KiB pages) in a copy of the tree: mainline files only, a
# bitmap of alternating used/free runs of 1..64 pages (seeded).
big=$work/tree/sys/kernel/debug/cma/big
mkdir -p "$work/tree"
cp -r "$root/." "$work/tree/"
mkdir -p "$big"
echo 524288 >"$big/base_pfn"
echo 262144 >"$big/count"
echo 0 >"$big/order_per_bit"
"${PYTHON:-python3}" - "$big" <<'PY'
import random, sys
rnd, bits, used, pos, words = random.Random(1), [], 0, 0, []
while pos < 262144:
    n = min(rnd.randint(1, 64), 262144 - pos)
    bits.extend([used] * n)
    pos, used = pos + n, 1 - used
for w in range(0, 262144, 32):
    words.append(str(sum(b << i for i, b in enumerate(bits[w:w + 32]))))
d = sys.argv[1]
open(f"{d}/bitmap", "w").write(" ".join(words) + "\n")
open(f"{d}/used", "w").write(f"{sum(bits)}\n")
open(f"{d}/maxchunk", "w").write("64\n")
PY

# Every other page used (0x55555555 words): one run per used page.
for spec in "alt1g 262144" "alt16g 4194304"; do
	set -- $spec
	d=$work/tree/sys/kernel/debug/cma/$1
	mkdir -p "$d"
	echo 524288 >"$d/base_pfn"
	echo "$2" >"$d/count"
	echo 0 >"$d/order_per_bit"
	echo $(($2 / 2)) >"$d/used"
	echo 1 >"$d/maxchunk"
	"${PYTHON:-python3}" -c 'import sys; print(" ".join(["1431655765"] * (int(sys.argv[1]) // 32)))' "$2" >"$d/bitmap"
done

"${PYTHON:-python3}" - "$tool" "$root" "$work" <<'PY'
import os, statistics, subprocess, sys, time
tool, root, work = sys.argv[1:4]
files = open(f"{work}/files").read().split()
def wall(cmd, **kw):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)
    return time.perf_counter() - t
snap, cat, bitmap = [], [], []
for _ in range(30):
    snap.append(wall([tool, "--root", root, "snapshot", "-o", f"{work}/s.json"]))
    cat.append(wall(["cat", *files]))
    bitmap.append(wall([tool, "--root", f"{work}/tree", "bitmap", "--width", "80", "big"]))
s, c, b = (statistics.median(x) for x in (snap, cat, bitmap))
print(f"snapshot of the arm64 guest tree   {s * 1e3:8.2f} ms")
print(f"cat of the same {len(files):3d} files         {c * 1e3:8.2f} ms")
print(f"ratio                              {s / c:8.2f}x   target <= 2x {'ok' if s / c <= 2 else 'OVER'}")
print(f"bitmap, 1 GiB area, order 0        {b * 1e3:8.2f} ms   target < 50 ms {'ok' if b < 0.05 else 'OVER'}")

def run_rss(cmd):
    """Wall time and peak resident size (KiB) of one run."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, cmd
    return time.perf_counter() - t, usage.ru_maxrss
cases = [("alt1g", "1 GiB", 30, 0.1, None), ("alt16g", "16 GiB", 5, 2.0, 64 * 1024)]
for area, size, n, t_max, rss_max in cases:
    for fmt in ([], ["--json"]):
        runs = [run_rss([tool, "--root", f"{work}/tree", "bitmap", *fmt, area]) for _ in range(n)]
        t = statistics.median(r[0] for r in runs)
        rss = max(r[1] for r in runs)
        ok = t < t_max and (rss_max is None or rss < rss_max)
        label = f"bitmap, {size}, every other page, {'JSON' if fmt else 'text'}"
        limit = f"< {t_max * 1e3:.0f} ms" + (f", < {rss_max // 1024} MB" if rss_max else "")
        print(f"{label:38s} {t * 1e3:8.1f} ms {rss / 1024:6.1f} MB   target {limit} {'ok' if ok else 'OVER'}")
print("(wall time, median of interleaved runs, process start included, this machine)")
PY
