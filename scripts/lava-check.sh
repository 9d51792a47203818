#!/usr/bin/env bash
# make lava-check: every QEMU board's guest suites as LAVA jobs, run by the
# real dispatcher (Debian's lava-dispatcher, lava-run standalone: no server,
# no worker, as root).  Jobs and device files come from qemu-run.sh's own
# tables (qemu-run.sh ARCH lava-job SUITE DIR); scripts/lava_results.py
# turns each job log into per-case results and fails on a failed case, an
# incomplete job, a case that never reported or a kernel splat.  Then the
# gate proves itself: a job with a deliberately failing case
# (cmadebug.fail_case) must come out failed.  The real-board examples
# (tests/lava/boards/) are checked with lava-run --validate.
#
# Environment: LAVA_BOARDS (default "arm arm64"), LAVA_SUITES (default each
# board's suites, lib.sh board_suites).  Jobs, logs and results in
# build/lava/ARCH-SUITE/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || die "lava-run runs jobs as root only (make lava-check as root)"
# lava-run, and what its --validate checks a U-Boot worker has (the
# real-board examples, tests/lava/boards/validate.sh): in.tftpd and its
# /etc/default/tftpd-hpa, mkimage, telnet
missing=()
command -v lava-run >/dev/null || missing+=(lava-dispatcher)
{ command -v in.tftpd && [ -f /etc/default/tftpd-hpa ]; } >/dev/null || missing+=(tftpd-hpa)
command -v mkimage >/dev/null || missing+=(u-boot-tools)
command -v telnet >/dev/null || missing+=(telnet)
if [ ${#missing[@]} -gt 0 ]; then
	note "installing ${missing[*]} (no recommends)"
	apt_update apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

out=$BUILD/lava
mkdir -p "$out"
# lava-run works in /var/lib/lava/dispatcher/tmp/JOB_ID: unique per run
job_id=$(($$ * 100))

# run_job ARCH SUITE DIR: render the job, run it, judge its log
run_job() {
	local arch=$1 suite=$2 dir=$3 start=$SECONDS
	rm -rf "$dir"
	# a build directory of its own: make check runs this beside compare
	BOARD_FLAVOUR=$(board_flavour "$arch")-lava \
		"$TOP/scripts/qemu-run.sh" "$arch" lava-job "$suite" "$dir" >/dev/null
	job_id=$((job_id + 1))
	# lava-run's exit status says little (0 for a job whose test failed):
	# the log says everything
	lava-run --job-id "$job_id" --output-dir "$dir/out" --device "$dir/device.yaml" \
		"$dir/job.yaml" >"$dir/lava-run.out" 2>"$dir/log.yaml" || true
	local rc=0
	"${PYTHON:-python3}" "$TOP/scripts/lava_results.py" --name "$arch/$suite" \
		--definition "0_cmadebug-$suite" "$dir/log.yaml" >"$dir/results.txt" || rc=$?
	grep -v ': ok ' "$dir/results.txt" || true
	note "$arch/$suite: LAVA job $job_id in $((SECONDS - start)) s, log $dir/log.yaml"
	return $rc
}

rc=0
for arch in ${LAVA_BOARDS:-arm arm64}; do
	for suite in ${LAVA_SUITES:-$(board_suites "$arch")}; do
		run_job "$arch" "$suite" "$out/$arch-$suite" || rc=1
	done
done

# The real-board job templates and device files (U-Boot, TFTP, NFS):
# rendered and accepted by lava-run --validate
"$TOP/tests/lava/boards/validate.sh" || rc=1

# A failed case must make the check red.
gate=$out/deliberate-failure
if EXTRA_CMDLINE=cmadebug.fail_case run_job arm64 rodata-full "$gate" >/dev/null; then
	echo "lava-check: a job with cmadebug.fail_case passed: failures would go unseen"
	rc=1
elif ! grep -q 'case failed: test_deliberate_failure' "$gate/results.txt"; then
	echo "lava-check: the deliberately failing case was not reported as failed:"
	cat "$gate/results.txt"
	rc=1
else
	echo "lava-check: a deliberately failing case makes a job fail (as it should)"
fi
exit $rc
