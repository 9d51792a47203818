#!/usr/bin/env bash
# What the series costs on arm64's attribute-change path, the one
# debug_pagealloc takes twice per page (unmap at free, map at allocation):
# the unpatched and the patched arm64 kernel, both with DEBUG_PAGEALLOC
# (KERNEL_VARIANT=pagealloc) and debug_pagealloc=on, under QEMU -icount
# (one virtual ns = one guest instruction), run 'page-churn' (64 rounds of
# a populated 1 MiB anonymous mapping), three runs each.  Target: patched
# <= 1.02x unpatched instructions per page.
#   bench/debug-pagealloc.sh            (make bench)
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

arch=arm64
export KERNEL_VARIANT=pagealloc
bench_kernels "$arch"
for cfg in "$bench_patched/config" "$bench_base/.config"; do
	grep -qx CONFIG_DEBUG_PAGEALLOC=y "$cfg" ||
		die "$cfg: built without CONFIG_DEBUG_PAGEALLOC"
done

cmdline="debug_pagealloc=on cmadebug.bench=pagealloc"
results=$(mktemp)
trap 'rm -f "$results"' EXIT
bench_boot "$arch" "$bench_base" "$cmdline" | sed 's/^bench: /kernel=unpatched /' >>"$results"
bench_boot "$arch" "$bench_patched" "$cmdline" | sed 's/^bench: /kernel=patched /' >>"$results"

"${PYTHON:-python3}" - "$results" <<'PY'
import statistics, sys
rows = [dict(f.split("=", 1) for f in line.split() if "=" in f) for line in open(sys.argv[1]) if line.strip()]
if not rows or any("insns_per_page" not in r for r in rows):
    sys.exit("debug-pagealloc: the guest printed no page-churn results:\n" + open(sys.argv[1]).read())
med = {k: statistics.median(int(r["insns_per_page"]) for r in rows if r["kernel"] == k)
       for k in ("unpatched", "patched")}
spread = {k: max(int(r["insns_per_page"]) for r in rows if r["kernel"] == k) -
             min(int(r["insns_per_page"]) for r in rows if r["kernel"] == k) for k in med}
ratio = med["patched"] / med["unpatched"]
print("workload                         unpatched   patched   ratio  target")
print(f"page alloc+free, debug_pagealloc {med['unpatched']:9.0f} {med['patched']:9.0f}  "
      f"{ratio:.4f}  <= 1.02 {'ok' if ratio <= 1.02 else 'OVER'}")
print(f"(instructions per page, median of 3 runs; spread {spread['unpatched']} and {spread['patched']})")
PY
