#!/usr/bin/env bash
# make compare: boot one board with the same kernel binary under each
# strategy for its CMA memory, changing only the command line and the device
# tree, run the same workload in each (tests/qemu/compare.sh), and collect
# before/after snapshots and facts into build/compare/ARCH/STRATEGY/.
#
#   compare.sh ARCH [STRATEGY...]
#
# arm (the article's choice):
#   a-split        lowmem CMA, linear map split into pages (mainline)
#   b-highmem      CMA in highmem only
#   c-carveout     an unmapped no-map coherent pool (not CMA)
#   d-sections     lowmem CMA left section-mapped (dma_cma_keep_sections)
# arm64:
#   rodata-on      CMA, linear map in blocks
#   rodata-full    CMA, linear map in pages
#   carveout       an unmapped no-map coherent pool
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-}
check_arch "$arch"
shift
strategies() {
	case $1 in
	arm) echo a-split b-highmem c-carveout d-sections ;;
	arm64) echo rodata-on rodata-full carveout ;;
	esac
}
# strategy_boot ARCH STRATEGY: "DTS_VARIANT|EXTRA_CMDLINE" ('-' = the default tree)
strategy_boot() {
	case $1:$2 in
	arm:a-split) echo "-|cma=32M@0x50000000" ;;
	arm:b-highmem) echo "highmem|cma=32M" ;;
	arm:c-carveout) echo "carveout|cma=32M" ;;
	arm:d-sections) echo "-|cma=32M@0x50000000 dma_cma_keep_sections" ;;
	arm64:rodata-on) echo "-|rodata=on" ;;
	arm64:rodata-full) echo "-|rodata=full" ;;
	arm64:carveout) echo "carveout|rodata=on" ;;
	*) die "no strategy '$2' on $1 (strategies: $(strategies "$1"))" ;;
	esac
}

[ $# -gt 0 ] || set -- $(strategies "$arch")
kdir=${KERNEL_DIR:-$("$TOP/scripts/kernel-build.sh" "$arch")}
for s in "$@"; do
	boot=$(strategy_boot "$arch" "$s")
	dts=${boot%%|*}
	[ "$dts" = - ] && dts=
	BOARD_DTS=$dts KERNEL_DIR=$kdir EXTRA_CMDLINE="${boot#*|} cmadebug.strategy=$s" \
		"$TOP/scripts/qemu-run.sh" "$arch" compare "$s"
	sed 's/^/   /' "$BUILD/compare/$arch/$s/facts.txt" >&2
done
