#!/usr/bin/env bash
# make lava-tlb: the TLB A/B as LAVA jobs, run by the real dispatcher.
#
#   lava-tlb.sh BOARD BOOTS
#
# BOARD is a QEMU board (arm64: the walk under -icount shift=0, instructions
# exact and TLB events "not supported"; arm: no PMU, every event "not
# supported").  Its two variants (lib.sh tlb_ab_suites: the walked range in
# blocks/sections, then split to pages) become one job each, with the
# kernel command line each needs; BOOTS boots of each run in an order
# shuffled with SEED (scripts/lava_tlb.py plan), recorded in plan.tsv
# before the first boot.  Each job log is judged (scripts/lava_results.py),
# then scripts/lava_tlb.py collect puts every boot's results into
# tlb-ab.sh's layout (results/WORKLOAD/VARIANT/boot-K; it refuses logs of
# other jobs, failed or cut-short jobs, different kernels or events), and
# make tlb-report reads results/walk: tlb-report.html and .json.
#
# Environment: SEED (default: a random one, printed and recorded),
# LAVA_TLB_OUT (default build/lava-tlb/BOARD; emptied first: one
# experiment per directory), UNTIL (the sequential mode: BOOTS is the
# most; whenever both variants have had as many boots, at least abstats'
# minimum, stop once every interval is within +-UNTIL, e.g. 0.5%: abstats
# --until), ALLOW_INSUFFICIENT (too few boots for an interval is not a
# failure: make lava-check, which cannot afford enough).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

board=${1:-}
boots=${2:-}
check_arch "$board"
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
out=${LAVA_TLB_OUT:-$BUILD/lava-tlb/$board}
py=${PYTHON:-python3}

variants=$(tlb_ab_suites "$board")
# the plan first: lava_tlb.py checks BOOTS and SEED before anything is built
# shellcheck disable=SC2086 # the VARIANT:SUITE words
plan=$("$py" "$TOP/scripts/lava_tlb.py" plan --boots "$boots" --seed "$seed" $variants) || exit 2
lava_install
rm -rf "$out"
mkdir -p "$out/jobs" "$out/runs"
{
	echo "# make lava-tlb BOARD=$board BOOTS=$boots SEED=$seed ($(date -u +%FT%TZ))"
	echo "# position variant suite boot"
	echo "$plan"
} >"$out/plan.tsv"

# One job per variant: every boot of a variant is the same job.
for vs in $variants; do
	BOARD_FLAVOUR=$(board_flavour "$board")-lava \
		"$TOP/scripts/qemu-run.sh" "$board" lava-job "${vs#*:}" "$out/jobs/${vs%%:*}" >/dev/null
done
note "$board: $((boots * 2)) boots in the order of $out/plan.tsv (SEED=$seed)"

# --until: are the intervals over the boots so far narrow enough?
narrow_enough() {
	rm -rf "$out/until"
	"$py" "$TOP/scripts/lava_tlb.py" collect --name "lava-tlb $board" --out "$out/until" "${logs[@]}" >/dev/null &&
		PYTHONPATH=$TOP/reports "$py" -m cmadebug_report.abstats "$out/until/walk" --baseline nosplit \
			--until "$UNTIL" >/dev/null
}

rc=0 logs=()
declare -A booted=()
while read -r pos variant suite boot; do
	case $pos in '#'*) continue ;; esac
	run=$out/runs/$(printf '%03d' "$pos")-$variant
	start=$SECONDS
	lava_run "$out/jobs/$variant" "$run"
	lava_judge "$board/$variant/boot-$boot" "0_cmadebug-$suite" "$run" >&2 || rc=1
	note "$board/$variant boot $boot: LAVA job $LAVA_JOB_ID in $((SECONDS - start)) s, log $run/log.yaml"
	logs+=("$run/log.yaml")
	booted[$variant]=$boot
	[ $rc = 0 ] || break
	if [ -n "${UNTIL:-}" ] && [ "${#booted[@]}" = 2 ] && [ "${booted[nosplit]}" = "${booted[split]}" ] &&
		[ "$boot" -ge 3 ]; then
		if narrow_enough; then
			note "$board: every interval within +-$UNTIL after $boot boots of each variant"
			break
		fi
	fi
done <"$out/plan.tsv"
rm -rf "$out/until"
[ $rc = 0 ] || die "lava-tlb: a job failed: no results collected"

"$py" "$TOP/scripts/lava_tlb.py" collect --name "lava-tlb $board" --out "$out/results" "${logs[@]}"
make -s -C "$TOP" tlb-report RESULTS="$out/results/walk" OUT="$out/tlb-report.html" \
	${ALLOW_INSUFFICIENT:+ALLOW_INSUFFICIENT=1}
