#!/bin/sh
# Copies the captured files each fuzz harness parses into OUT/<harness>/.
# usage: seeds.sh FIXTURES OUT
set -eu
fixtures=$1 out=$2

seed() {	# harness, then find(1) -path patterns under the fixture trees
	h=$1
	shift
	rm -rf "$out/$h"
	mkdir -p "$out/$h"
	for pat in "$@"; do
		find "$fixtures" -path "$pat" -type f | while read -r f; do
			name=$(printf '%s' "${f#"$fixtures"/}" | tr / _)
			cp "$f" "$out/$h/$name"
		done
	done
	[ -n "$(ls "$out/$h")" ] || { echo "seeds.sh: no seeds for $h" >&2; exit 1; }
}

seed fuzz_failures '*/debug/cma/*/failures'
seed fuzz_stats '*/debug/cma/*/stats'
seed fuzz_devices '*/debug/cma/*/devices'
seed fuzz_allocated '*/debug/cma/*/allocated'
seed fuzz_bitmap '*/debug/cma/*/bitmap'
seed fuzz_text '*/root/proc/mounts' '*/root/proc/meminfo' '*/root/proc/vmstat' '*/debug/cma/*/count' \
	'*/debug/cma/*/base_pfn' '*/mm/cma/*/alloc_pages_*'
seed fuzz_format '*/tracing/events/*/*/format'
seed fuzz_layout '*/debug/linear_map/layout'
seed fuzz_ptdump '*/debug/kernel_page_tables'
seed fuzz_splits '*/debug/linear_map/splits' '*/debug/linear_map/attr_changes'
seed fuzz_alias '*/debug/linear_map/alias_check'
seed fuzz_trace_dat '*/trace/trace.dat'
seed fuzz_pmu '*/pmu/*/root/sys/devices/*/events/*' '*/pmu/*/root/sys/devices/*/format/*' \
	'*/pmu/*/root/sys/devices/*/cpus'
seed fuzz_stock '*/root/var/log/dmesg' '*/root/proc/version' '*/reserved-memory/*/size' \
	'*/reserved-memory/*/compatible' '*/reserved-memory/#size-cells'

# fuzz_trace_page: each page of the guests' trace.dat files (trace-cmd v6:
# the flyrecord table gives each CPU's offset and size), after one byte that
# picks the guest's formats (0 arm64, 1 arm).
rm -rf "$out/fuzz_trace_page"
mkdir -p "$out/fuzz_trace_page"
for f in "$fixtures"/qemu-arm64/trace/trace.dat "$fixtures"/qemu-arm/trace/trace.dat; do
	[ -f "$f" ] || continue
	python3 - "$f" "$out/fuzz_trace_page" <<'PY'
import pathlib, struct, sys
path, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
d = path.read_bytes()
guest = path.parent.parent.name
page = struct.unpack_from("<I", d, 14)[0]
at = d.index(b"flyrecord\0") + 10
cpu = 0
while at + 16 <= len(d):
    off, size = struct.unpack_from("<QQ", d, at)
    if off == 0 or off + size > len(d) or size % page:
        break
    for i in range(0, size, page):
        sel = b"\1" if guest == "qemu-arm" else b"\0"
        (out / f"{guest}-cpu{cpu}-page{i // page}").write_bytes(sel + d[off + i:off + i + page])
    at += 16
    cpu += 1
PY
done
[ -n "$(ls "$out/fuzz_trace_page")" ] || { echo "seeds.sh: no seeds for fuzz_trace_page" >&2; exit 1; }
