#!/usr/bin/env bash
# Cost of the CMA failure reports (kernel-patches 0001-0008) in instructions:
# the same arm64 board boots the unpatched and the patched kernel under
# QEMU with -icount shift=0 (one virtual ns per guest instruction), and the
# guest times 1000 allocate/release pairs and 1000 no-space failures through
# the default area's debugfs files, with the cma trace events off and on.
# Prints the medians and the patched/unpatched ratios (targets for the pairs:
# <= 1.01 with tracing off, <= 1.10 with it on; failures show their cost).
#
#   bench/cma-alloc.sh            (make bench)
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

arch=arm64
bench_kernels "$arch"
results=$(mktemp)
trap 'rm -f "$results"' EXIT
bench_boot "$arch" "$bench_base" | sed 's/^bench: /kernel=unpatched /' >>"$results"
bench_boot "$arch" "$bench_patched" | sed 's/^bench: /kernel=patched /' >>"$results"

"${PYTHON:-python3}" - "$results" <<'PY'
import statistics, sys
rows = [dict(f.split("=", 1) for f in line.split() if "=" in f) for line in open(sys.argv[1]) if line.strip()]
broken = [r for r in rows if "pairs_insns" not in r or "fail_insns" not in r]
if broken or not rows:
    sys.exit("cma-alloc.sh: the guest reported no counts (see build/arm64/console-bench.log)")
def median(kernel, trace, key):
    return statistics.median(int(r[key]) for r in rows if r["kernel"] == kernel and r["trace"] == trace)
print(f"{'workload':<28}{'trace':<7}{'unpatched':>12}{'patched':>12}{'ratio':>8}  target")
# The targets are for allocations that succeed; a failure is where the
# series does its work (record, count, trace), so it has a cost, not a target.
targets = {("pairs_insns", "off"): 1.01, ("pairs_insns", "on"): 1.10}
for key, label in (("pairs_insns", "1000 alloc/release pairs"), ("fail_insns", "1000 no-space failures")):
    for trace in ("off", "on"):
        base, new = median("unpatched", trace, key), median("patched", trace, key)
        ratio = new / base
        target = targets.get((key, trace))
        verdict = "-" if target is None else f"<= {target} " + ("ok" if ratio <= target else "OVER")
        print(f"{label:<28}{trace:<7}{base:>12}{new:>12}{ratio:>8.4f}  {verdict}")
print("(guest instructions, median of 3 runs, QEMU -icount shift=0, arm64 board)")
PY
