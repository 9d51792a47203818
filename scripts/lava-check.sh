#!/usr/bin/env bash
# make lava-check: every QEMU board's guest suites as LAVA jobs, run by the
# real dispatcher (Debian's lava-dispatcher, lava-run standalone: no server,
# no worker, as root).  Jobs and device files come from qemu-run.sh's own
# tables (qemu-run.sh ARCH lava-job SUITE DIR); scripts/lava_results.py
# turns each job log into per-case results and fails on a failed case, an
# incomplete job, a case that never reported or a kernel splat.
#
#   lava-check.sh install      lava-dispatcher and what --validate needs
#                              (once, before lanes run side by side)
#   lava-check.sh board ARCH   each suite of the board as a job; the TLB A/B
#                              suites as make lava-tlb (scripts/lava-tlb.sh)
#                              with a fixed seed, the A/B checked as
#                              make qemu-test checks its own
#                              (tests/qemu/tlb_ab_host.py); arm64's main
#                              job's perf.data through the host's perf
#                              script (tests/qemu/perf_record_host.py)
#   lava-check.sh gate         the real-board examples (tests/lava/boards/)
#                              through lava-run --validate, and a job with a
#                              deliberately failing case (cmadebug.fail_case)
#                              must come out failed
#
# Environment: LAVA_SUITES (default the board's suites, lib.sh
# board_suites), LAVA_TLB_BOARDS ("ARCH:BOOTS ...", default "arm:1 arm64:1";
# empty: the TLB suites run once each like the others).  Jobs, logs and
# results in build/lava/ARCH-SUITE/ and build/lava-tlb/ARCH/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/lava

# run_job ARCH SUITE DIR [FLAVOUR-SUFFIX]: render the job, run it, judge its log
run_job() {
	local arch=$1 suite=$2 dir=$3 start=$SECONDS rc=0
	rm -rf "$dir"
	mkdir -p "$dir"
	# a build directory of its own: make check runs this beside compare
	BOARD_FLAVOUR=$(board_flavour "$arch")-lava${4:-} \
		"$TOP/scripts/qemu-run.sh" "$arch" lava-job "$suite" "$dir" >/dev/null
	lava_run "$dir" "$dir"
	lava_judge "$arch/$suite" "0_cmadebug-$suite" "$dir" || rc=$?
	note "$arch/$suite: LAVA job $LAVA_JOB_ID in $((SECONDS - start)) s, log $dir/log.yaml"
	return $rc
}

cmd_board() {
	local arch=$1 tlb_boots="" tlb_suites=" " entry suite rc=0
	check_arch "$arch"
	for entry in ${LAVA_TLB_BOARDS-arm:1 arm64:1}; do
		[ "${entry%%:*}" = "$arch" ] && tlb_boots=${entry#*:}
	done
	[ -z "$tlb_boots" ] || tlb_suites=" $(tlb_ab_suites "$arch" | sed 's/[^ ]*://g') "
	for suite in ${LAVA_SUITES:-$(board_suites "$arch")}; do
		case $tlb_suites in *" $suite "*) continue ;; esac
		run_job "$arch" "$suite" "$out/$arch-$suite" || rc=1
		# the arm64 guest's perf record (tests/qemu/perf-record.sh), read
		# by the host's perf with perf-scripts/cmadebug-events.py
		if [ "$arch/$suite" = arm64/main ]; then
			"${PYTHON:-python3}" "$TOP/tests/qemu/perf_record_host.py" "$out/$arch-$suite/log.yaml" \
				"$arch/$suite/perf-script" || rc=1
		fi
	done
	[ -n "$tlb_boots" ] || return $rc
	if LAVA_TLB_OUT=$BUILD/lava-tlb/$arch SEED=1 ALLOW_INSUFFICIENT=1 "$TOP/scripts/lava-tlb.sh" "$arch" "$tlb_boots" >/dev/null &&
		"${PYTHON:-python3}" "$TOP/tests/qemu/tlb_ab_host.py" "$BUILD/lava-tlb/$arch/results" "$arch"; then
		echo "lava-check: $arch: the TLB A/B from LAVA jobs alone: $BUILD/lava-tlb/$arch/tlb-report.html"
	else
		echo "lava-check: $arch: the TLB A/B from LAVA jobs (make lava-tlb BOARD=$arch BOOTS=$tlb_boots) failed"
		rc=1
	fi
	return $rc
}

cmd_gate() {
	local rc=0 gate=$out/deliberate-failure
	# the U-Boot job templates and device files: rendered, and accepted by
	# lava-run --validate
	"$TOP/tests/lava/boards/validate.sh" || rc=1
	# a failed case must make the check red (a build directory of its own:
	# it may run beside the arm board's jobs); the shortest suite there is
	if EXTRA_CMDLINE=cmadebug.fail_case run_job arm no-default-cma "$gate" -gate >/dev/null; then
		echo "lava-check: a job with cmadebug.fail_case passed: failures would go unseen"
		rc=1
	elif ! grep -q 'case failed: test_deliberate_failure' "$gate/results.txt"; then
		echo "lava-check: the deliberately failing case was not reported as failed:"
		cat "$gate/results.txt"
		rc=1
	else
		echo "lava-check: a deliberately failing case makes a job fail (as it should)"
	fi
	return $rc
}

case ${1:-} in
install) lava_install ;;
board)
	[ $# = 2 ] || die "usage: lava-check.sh board ARCH"
	lava_install
	cmd_board "$2"
	;;
gate)
	lava_install
	cmd_gate
	;;
*) die "usage: lava-check.sh install | board ARCH | gate" ;;
esac
