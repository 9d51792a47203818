#!/usr/bin/env bash
# make compare: boot one board with the same kernel binary under each
# strategy for its CMA memory, changing only the command line and the device
# tree, run the same workload in each (tests/qemu/compare.sh), and collect
# before/after snapshots and facts into build/compare/ARCH/STRATEGY/boot-N/.
#
#   [COMPARE_BOOTS=N] compare.sh ARCH [STRATEGY...]
#
# COMPARE_BOOTS (default 3) boots each strategy N times: latency and pages
# migrated vary from boot to boot, and the report ranks strategies only
# where the spread of their boots separates them.
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
#
# A real board instead of QEMU: COMPARE_BOOT=CMD is run once per strategy and boot as
#   CMD ARCH STRATEGY DTS DEST      (EXTRA_CMDLINE in its environment)
# where DTS is the device-tree fragment (kernel-patches/dts/...dtsi) to add
# to the board's tree and EXTRA_CMDLINE what to append to its command line;
# it must boot the board that way, run tests/qemu/compare.sh there with
# COMPARE_OUT=FILE, and unpack FILE into DEST (README.md, "make compare").
# The host's facts (how it booted, timing, TLB) are appended to facts.txt.
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
# strategy_boot ARCH STRATEGY: "DTS_VARIANT|EXTRA_CMDLINE|DESCRIPTION"
# ('-' = the default tree; the description is the report's one line)
strategy_boot() {
	case $1:$2 in
	arm:a-split) echo "-|cma=32M@0x50000000|lowmem CMA, linear map split into pages (mainline)" ;;
	arm:b-highmem) echo "highmem|cma=32M|CMA in highmem only: never in the linear map" ;;
	arm:c-carveout) echo "carveout|cma=32M|no-map coherent pool carved out at boot (not CMA)" ;;
	arm:d-sections) echo "-|cma=32M@0x50000000 dma_cma_keep_sections|lowmem CMA left section-mapped (dma_cma_keep_sections: unsafe)" ;;
	arm64:rodata-on) echo "-|rodata=on|CMA, linear map in blocks (rodata=on)" ;;
	arm64:rodata-full) echo "-|rodata=full|CMA, linear map in pages (rodata=full)" ;;
	arm64:carveout) echo "carveout|rodata=on|no-map coherent pool carved out at boot (not CMA)" ;;
	*) die "no strategy '$2' on $1 (strategies: $(strategies "$1"))" ;;
	esac
}

# host_facts ARCH DTS DESCRIPTION: what only the host knows, for facts.txt
host_facts() {
	echo "description=$3"
	echo "dts=kernel-patches/dts/$1${2:+-$2}.dtsi"
	if [ -n "${COMPARE_BOOT:-}" ]; then
		echo "tlb=not-measured"
		echo "boot=COMPARE_BOOT=$COMPARE_BOOT"
		echo "timing=board"
		echo "tlb_reason=make compare counts no TLB events; measure them with perf-scripts/ (cmadebug tlb)"
	else
		echo "tlb=not-supported"
		echo "boot=$(qemu_board "$1")${QEMU_EXTRA_ARGS:+ $QEMU_EXTRA_ARGS}; kernel $(basename "$kdir")"
		case " ${QEMU_EXTRA_ARGS:-} " in
		*kvm*) echo "timing=qemu-kvm" ;;
		*) echo "timing=qemu-tcg" ;;
		esac
		echo "tlb_reason=QEMU emulates no TLB and counts no TLB refills or walks"
	fi
}

boots=${COMPARE_BOOTS:-3}
case $boots in
'' | *[!0-9]* | 0) die "COMPARE_BOOTS must be a number of boots, 1 or more (got '$boots')" ;;
esac
[ $# -gt 0 ] || set -- $(strategies "$arch")
[ -n "${COMPARE_BOOT:-}" ] || kdir=${KERNEL_DIR:-$("$TOP/scripts/kernel-build.sh" "$arch")}
for s in "$@"; do
	boot=$(strategy_boot "$arch" "$s")
	IFS='|' read -r dts cmdline description <<<"$boot"
	[ "$dts" = - ] && dts=
	# A strategy's boots are all of this run: none left from an earlier one.
	rm -rf "$BUILD/compare/$arch/$s"
	for n in $(seq "$boots"); do
		dest=$BUILD/compare/$arch/$s/boot-$n
		if [ -n "${COMPARE_BOOT:-}" ]; then
			mkdir -p "$dest"
			EXTRA_CMDLINE="$cmdline cmadebug.strategy=$s" \
				$COMPARE_BOOT "$arch" "$s" "$TOP/kernel-patches/dts/$arch${dts:+-$dts}.dtsi" "$dest" ||
				die "COMPARE_BOOT failed for $s (boot $n)"
			[ -f "$dest/facts.txt" ] || die "COMPARE_BOOT left no $dest/facts.txt for $s"
		else
			# qemu-run.sh unpacks into build/compare/ARCH/NAME, one level deep
			BOARD_DTS=$dts KERNEL_DIR=$kdir EXTRA_CMDLINE="$cmdline cmadebug.strategy=$s" \
				"$TOP/scripts/qemu-run.sh" "$arch" compare "$s.boot-$n"
			mkdir -p "$(dirname "$dest")"
			mv "$BUILD/compare/$arch/$s.boot-$n" "$dest"
		fi
		host_facts "$arch" "$dts" "$description" >>"$dest/facts.txt"
		sed 's/^/   /' "$dest/facts.txt" >&2
	done
done
