#!/usr/bin/env bash
# What reading linear_map/alias_check costs next to reading ptdump's
# kernel_page_tables on the same arm64 kernel (target: <= 1.0x), what a
# layout read costs, and what the DirectMap lines of /proc/meminfo cost next
# to a layout read (target: < 1 %): meminfo read on the patched kernel less
# meminfo read on the unpatched one (bench/base-kernel.sh).  The arm64 board
# runs under QEMU -icount shift=0, where one virtual nanosecond is one guest
# instruction; the guest reads each file 20 times per run
# (bench/read_bench.c), three runs, after injecting one alias.
#
#   bench/linear-map.sh        prints instructions per read and the ratios
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

arch=arm64
results=$(mktemp)
trap 'rm -f "$results"' EXIT
bench_kernels "$arch"
bench_boot "$arch" "$bench_patched" cmadebug.bench=linear-map | sed 's/^/kernel=patched /' >>"$results"
bench_boot "$arch" "$bench_base" cmadebug.bench=linear-map | sed 's/^/kernel=unpatched /' >>"$results"

"${PYTHON:-python3}" - "$results" <<'PY'
import statistics, sys
rows = [dict(f.split("=", 1) for f in line.split() if "=" in f) for line in open(sys.argv[1]) if line.strip()]
def median(name, kernel="patched"):
    vals = [int(r["insns_per_read"]) for r in rows
            if r.get("file", "").endswith(name) and r.get("kernel") == kernel]
    if not vals:
        sys.exit(f"linear-map.sh: the {kernel} guest reported no reads of {name} (see build/arm64/console-bench.log)")
    return statistics.median(vals)
ptdump = median("kernel_page_tables")
print(f"{'file':<28}{'insns/read':>12}{'vs ptdump':>11}  target")
for name, target in (("kernel_page_tables", None), ("linear_map/alias_check", 1.0), ("linear_map/layout", None)):
    v = median(name)
    ratio = v / ptdump
    verdict = "-" if target is None else f"<= {target} " + ("ok" if ratio <= target else "OVER")
    print(f"{name:<28}{v:>12}{ratio:>11.3f}  {verdict}")
layout = median("linear_map/layout")
with_lines, without = median("/proc/meminfo"), median("/proc/meminfo", "unpatched")
cost = with_lines - without
verdict = "< 0.01 " + ("ok" if cost / layout < 0.01 else "OVER")
print(f"{'/proc/meminfo':<28}{with_lines:>12}  unpatched {without}: DirectMap lines {cost} "
      f"= {cost / layout:.4f} of a layout read  {verdict}")
print("(guest instructions per read, median of 3 runs of 20 reads, QEMU -icount shift=0, arm64 board)")
PY
