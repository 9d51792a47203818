#!/usr/bin/env bash
# Boot the patched kernel on one QEMU board and run the guest in one mode.
#
#   qemu-run.sh ARCH test [SUITE]   KTAP guest tests; fails on not ok, short
#                              plan, timeout or a kernel splat.  SUITE (default
#                              main) picks the command line: lib.sh board_suites
#   qemu-run.sh ARCH demo      print 'cmadebug areas' from inside the guest
#   qemu-run.sh ARCH capture NAME   capture a fixture tree into tests/fixtures/NAME
#   qemu-run.sh ARCH compare NAME   run make compare's workload, results into
#                              build/compare/ARCH/NAME (scripts/compare.sh)
#   qemu-run.sh ARCH bench     print the guest's "bench:" lines (bench/cma-alloc.sh)
#   qemu-run.sh ARCH shell     boot to a shell on this terminal
#   qemu-run.sh ARCH lava-job SUITE DIR   boot nothing: write DIR/device.yaml
#                              and DIR/job.yaml, the same boot as a LAVA job
#                              (scripts/lava_job.py; make lava-check runs it)
#
# Environment: QEMU_TIMEOUT (seconds, default 300), EXTRA_CMDLINE (appended
# to the kernel command line), QEMU_EXTRA_ARGS (appended to QEMU's), KERNEL_DIR
# (boot this built kernel instead of the series' own), BOARD_FLAVOUR (the
# build/ directory of its console logs, initramfs and device tree; default
# the board's flavour, lib.sh board_flavour).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-}
check_arch "$arch"
mode=${2:-test}
case $mode in
test | demo | capture | compare | bench | shell | lava-job) ;;
*) die "unknown mode '$mode' (test, demo, capture, compare, bench, shell, lava-job)" ;;
esac

suite=main
extra=""
if [ "$mode" = test ] || [ "$mode" = lava-job ]; then
	suite=${3:-main}
	extra=$(suite_cmdline "$arch" "$suite")
fi

"$TOP/scripts/deps.sh" --check
kdir=${KERNEL_DIR:-$("$TOP/scripts/kernel-build.sh" "$arch")}
[ -f "$kdir/.complete" ] || die "KERNEL_DIR $kdir holds no finished kernel"
out=$BUILD/${BOARD_FLAVOUR:-$(board_flavour "$arch")}
mkdir -p "$out"
# BOARD_DTS picks a variant; a suite may name its own (lib.sh suite_dts)
[ -n "${BOARD_DTS:-}" ] || BOARD_DTS=$(suite_dts "$arch" "$suite")
export BOARD_DTS
BOARD_QEMU_ARGS="$(suite_qemu_args "$arch" "$suite") $(variant_qemu_args "$arch")"
# a distribution kernel's modules drive a device of their own (lib.sh)
[ ! -f "$kdir/modules/.complete" ] || BOARD_QEMU_ARGS+=" $(echo $DISTRO_QEMU_ARGS)"
export BOARD_QEMU_ARGS
dtb=$(BOARD_KERNEL_DIR=$kdir "$TOP/scripts/board-dtb.sh" "$arch" "$out")
initrd=$("$TOP/scripts/initramfs.sh" "$arch" "$out")
image=$kdir/$(basename "$(kernel_image_path "$arch")")
log=$out/console-$mode.log
[ "$suite" = main ] || log=$out/console-$mode-$suite.log
[ "$mode" != compare ] || log=$out/console-compare-${3:-}.log
timeout_s=${QEMU_TIMEOUT:-300}
read -r -a board <<<"$(qemu_board "$arch")"

console_tail() {
	echo "---- last 30 lines of the console ($log) ----" >&2
	tail -n 30 "$log" >&2
	echo "----" >&2
}

cmdline="$BOARD_CMDLINE $(variant_cmdline "$arch") cmadebug.mode=$mode cmadebug.suite=$suite $extra ${EXTRA_CMDLINE:-}"
board_args="-display none -nodefaults -serial stdio -no-reboot ${QEMU_EXTRA_ARGS:-} $BOARD_QEMU_ARGS"
if [ "$mode" = lava-job ]; then
	dir=${4:?usage: qemu-run.sh ARCH lava-job SUITE DIR}
	# LAVA reports a panic it sees: the guest must not reboot past it
	cmdline=$(echo "$cmdline" | sed 's/ *panic=-1//; s/cmadebug.mode=lava-job/cmadebug.mode=lava/')
	exec "${PYTHON:-python3}" "$TOP/scripts/lava_job.py" --arch "$arch" --suite "$suite" \
		--kernel "$image" --dtb "$dtb" --initrd "$initrd" --cmdline "$(echo $cmdline)" \
		--qemu "${board[*]} $(echo $board_args)" --timeout "$timeout_s" --out "$dir"
fi
note "booting $arch ($(basename "$kdir")) in mode $mode${extra:+, suite $suite}; console: $log"
qemu_args=("${board[@]}" -kernel "$image" -dtb "$dtb" -initrd "$initrd" -append "$cmdline")
# shellcheck disable=SC2206
qemu_args+=($board_args)
if [ "$mode" = shell ]; then
	exec "${qemu_args[@]}"
fi
rc=0
if [ "$(board_halts "$arch")" = 1 ]; then
	# the guest halts (lib.sh board_halts): QEMU is stopped once the
	# kernel says "reboot: System halted", which it prints last
	timeout --foreground "$timeout_s" "${qemu_args[@]}" </dev/null >"$log" 2>&1 &
	qemu_pid=$!
	while kill -0 "$qemu_pid" 2>/dev/null && ! grep -q 'reboot: System halted' "$log"; do
		sleep 0.5
	done
	if grep -q 'reboot: System halted' "$log"; then
		kill "$qemu_pid" 2>/dev/null || true
		wait "$qemu_pid" 2>/dev/null || true
	else
		wait "$qemu_pid" || rc=$?
	fi
else
	timeout --foreground "$timeout_s" "${qemu_args[@]}" </dev/null >"$log" 2>&1 || rc=$?
fi
if [ $rc = 124 ]; then
	console_tail
	die "the $arch guest did not power off within ${timeout_s}s (QEMU_TIMEOUT)"
elif [ $rc != 0 ]; then
	console_tail
	die "QEMU exited with status $rc"
fi

case $mode in
test)
	"${PYTHON:-python3}" "$TOP/scripts/ktap_check.py" --name "${BOARD_FLAVOUR:-$arch}/$suite" "$log" || {
		console_tail
		exit 1
	}
	# TLB A/B results of this boot, for tests/qemu/tlb-ab-host.sh
	if grep -q '^=== CMADEBUG TLB RESULTS BEGIN ===' "$log"; then
		tmp=$(mktemp -d "$out/.tlb.XXXXXX")
		sed -n '/^=== CMADEBUG TLB RESULTS BEGIN ===/,/^=== CMADEBUG TLB RESULTS END ===/p' "$log" |
			tr -d '\r' | grep -v '^===' | base64 -d | tar -C "$tmp" -xzf - ||
			die "the TLB results in $log do not unpack"
		# the within-boot design (tlb-ab.sh paired): both variants of this
		# boot, as boot-K of tlb-paired/walk, K the suite's place in the A/B
		if [ -d "$tmp/paired/walk" ]; then
			k=0 n=0
			for vs in $(tlb_ab_suites "$arch"); do
				n=$((n + 1))
				[ "${vs#*:}" = "$suite" ] && k=$n
			done
			[ $k != 0 ] || die "$suite is not one of the TLB A/B's suites ($(tlb_ab_suites "$arch")): paired results unexpected"
			for v in "$tmp"/paired/walk/*/; do
				v=${v%/}
				mkdir -p "$out/tlb-paired/walk/$(basename "$v")"
				rm -rf "$out/tlb-paired/walk/$(basename "$v")/boot-$k"
				mv "$v/boot-1" "$out/tlb-paired/walk/$(basename "$v")/boot-$k"
			done
			cp "$tmp/paired/walk/manifest.json" "$out/tlb-paired/walk/manifest.json"
			rm -rf "$tmp/paired"
		fi
		for v in "$tmp"/*/*/; do # WORKLOAD/VARIANT: this boot's replaces an earlier one's
			v=${v%/}
			w=$(basename "$(dirname "$v")")
			mkdir -p "$out/tlb-results/$w"
			rm -rf "$out/tlb-results/$w/$(basename "$v")"
			mv "$v" "$out/tlb-results/$w/"
		done
		# the events the boots counted (tlb-ab.sh's manifest): this boot's
		for m in "$tmp"/*/manifest.json; do
			[ -f "$m" ] || continue
			cp "$m" "$out/tlb-results/$(basename "$(dirname "$m")")/manifest.json"
		done
		rm -rf "$tmp"
	fi
	;;
bench)
	grep '^bench: ' "$log" | tr -d '\r' | grep . || {
		console_tail
		die "the guest printed no bench results"
	}
	;;
demo)
	sed -n '/^=== cmadebug areas/,/^=== end ===/p' "$log" | tr -d '\r' | grep -v '^=== end' ||
		{
			console_tail
			die "the guest printed no 'cmadebug areas' output"
		}
	;;
capture | compare)
	name=${3:?usage: qemu-run.sh ARCH $mode NAME}
	if [ "$mode" = capture ]; then
		dest=$TOP/tests/fixtures/$name
	else
		dest=$BUILD/compare/$arch/$name
	fi
	mkdir -p "$(dirname "$dest")"
	tmp=$(mktemp -d "$(dirname "$dest")/.$name.XXXXXX")
	if ! sed -n '/^=== CMADEBUG CAPTURE BEGIN ===/,/^=== CMADEBUG CAPTURE END ===/p' "$log" |
		tr -d '\r' | grep -v '^===' | base64 -d | tar -C "$tmp" -xzf -; then
		rm -rf "$tmp"
		console_tail
		die "no usable capture in the console log"
	fi
	rm -rf "$dest"
	mv "$tmp" "$dest"
	note "captured ${dest#"$TOP"/}"
	;;
esac
