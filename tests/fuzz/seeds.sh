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
seed fuzz_allocated '*/debug/cma/*/allocated'
seed fuzz_bitmap '*/debug/cma/*/bitmap'
seed fuzz_text '*/root/proc/mounts' '*/root/proc/meminfo' '*/debug/cma/*/count' \
	'*/debug/cma/*/base_pfn' '*/mm/cma/*/alloc_pages_*'
seed fuzz_format '*/tracing/events/*/*/format'
seed fuzz_layout '*/debug/linear_map/layout'
seed fuzz_ptdump '*/debug/kernel_page_tables'
seed fuzz_splits '*/debug/linear_map/splits' '*/debug/linear_map/attr_changes'
seed fuzz_alias '*/debug/linear_map/alias_check'
