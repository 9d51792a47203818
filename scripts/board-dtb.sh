#!/usr/bin/env bash
# The board's device tree: QEMU's own (dumped with the exact options the boot
# uses, BOARD_QEMU_ARGS included) plus kernel-patches/dts/<arch>.dtsi, or <arch>-<VARIANT>.dtsi with
# BOARD_DTS=VARIANT (make compare's strategies).  A board QEMU makes no tree
# for (lib.sh board_kernel_dtb) starts from the kernel's own instead, the
# .dtb in BOARD_KERNEL_DIR (qemu-run.sh sets it).  Prints the .dtb path.
#
#   board-dtb.sh arm|arm64 OUTDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-}
check_arch "$arch"
out=${2:?usage: board-dtb.sh ARCH OUTDIR}
dtsi=$arch${BOARD_DTS:+-$BOARD_DTS}
[ -f "$TOP/kernel-patches/dts/$dtsi.dtsi" ] || die "no kernel-patches/dts/$dtsi.dtsi (BOARD_DTS=${BOARD_DTS:-})"
read -r -a board <<<"$(qemu_board "$arch")"
require_cmd "${board[0]}" qemu-system-arm
require_cmd dtc device-tree-compiler

mkdir -p "$out"
tmp=$(mktemp -d "$out/.dtb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
kernel_dtb=$(board_kernel_dtb "$arch")
if [ -n "$kernel_dtb" ]; then
	kernel_dtb=${BOARD_KERNEL_DIR:?BOARD_KERNEL_DIR: the kernel whose $kernel_dtb the board boots}/$(basename "$kernel_dtb")
	[ -f "$kernel_dtb" ] || die "no $kernel_dtb: the kernel was built without the board's device tree"
	cp "$kernel_dtb" "$tmp/qemu.dtb"
else
	# what the suite adds (BOARD_QEMU_ARGS, from qemu-run.sh): -smp 2 gives the
	# tree two cpu nodes, and the kernel counts CPUs from the tree
	read -r -a suite_args <<<"${BOARD_QEMU_ARGS:-}"
	board+=("${suite_args[@]}" -machine "dumpdtb=$tmp/qemu.dtb")
	"${board[@]}" -display none -nodefaults >/dev/null 2>"$tmp/qemu.err" ||
		die "$(qemu_board "$arch") -machine dumpdtb failed: $(head -n 1 "$tmp/qemu.err")"
fi
dtc -q -I dtb -O dts -o "$tmp/qemu.dts" "$tmp/qemu.dtb"
{
	cat "$tmp/qemu.dts"
	echo "/include/ \"$dtsi.dtsi\""
} >"$tmp/board.dts"
dtc -q -I dts -O dtb -i "$TOP/kernel-patches/dts" -o "$tmp/board.dtb" "$tmp/board.dts" 2>"$tmp/dtc.err" ||
	die "dtc failed on kernel-patches/dts/$dtsi.dtsi: $(head -n 3 "$tmp/dtc.err" | tr '\n' ' ')"
mv "$tmp/board.dts" "$out/$dtsi.dts"
mv "$tmp/board.dtb" "$out/$dtsi.dtb"
echo "$out/$dtsi.dtb"
