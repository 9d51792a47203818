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
# experiment per directory).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

board=${1:-}
boots=${2:-}
check_arch "$board"
case $boots in
'' | *[!0-9]* | 0*) die "BOOTS=$boots: a number of boots per variant (1-1000)" ;;
esac
[ "$boots" -le 1000 ] || die "BOOTS=$boots: a number of boots per variant (1-1000)"
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
case $seed in
'' | *[!0-9]*) die "SEED=$seed: a number" ;;
esac
out=${LAVA_TLB_OUT:-$BUILD/lava-tlb/$board}
py=${PYTHON:-python3}

lava_install
rm -rf "$out"
mkdir -p "$out/jobs" "$out/runs"

# One job per variant: every boot of a variant is the same job.
variants=$(tlb_ab_suites "$board")
for vs in $variants; do
	BOARD_FLAVOUR=$(board_flavour "$board")-lava \
		"$TOP/scripts/qemu-run.sh" "$board" lava-job "${vs#*:}" "$out/jobs/${vs%%:*}" >/dev/null
done

# shellcheck disable=SC2086 # the VARIANT:SUITE words
"$py" "$TOP/scripts/lava_tlb.py" plan --boots "$boots" --seed "$seed" $variants >"$out/plan.txt"
{
	echo "# make lava-tlb BOARD=$board BOOTS=$boots SEED=$seed ($(date -u +%FT%TZ))"
	echo "# position variant suite boot"
	cat "$out/plan.txt"
} >"$out/plan.tsv"
rm "$out/plan.txt"
note "$board: $((boots * 2)) boots in the order of $out/plan.tsv (SEED=$seed)"

rc=0 logs=()
while read -r pos variant suite boot; do
	case $pos in '#'*) continue ;; esac
	run=$out/runs/$(printf '%03d' "$pos")-$variant
	start=$SECONDS
	lava_run "$out/jobs/$variant" "$run"
	if ! "$py" "$TOP/scripts/lava_results.py" --name "$board/$variant/boot-$boot" \
		--definition "0_cmadebug-$suite" "$run/log.yaml" >"$run/results.txt"; then
		grep -v ': ok ' "$run/results.txt" >&2 || true
		rc=1
	else
		tail -n 1 "$run/results.txt" >&2
	fi
	note "$board/$variant boot $boot: LAVA job $LAVA_JOB_ID in $((SECONDS - start)) s, log $run/log.yaml"
	logs+=("$run/log.yaml")
done <"$out/plan.tsv"
[ $rc = 0 ] || die "lava-tlb: a job failed: no results collected"

"$py" "$TOP/scripts/lava_tlb.py" collect --name "lava-tlb $board" --out "$out/results" "${logs[@]}"
make -s -C "$TOP" tlb-report RESULTS="$out/results/walk" OUT="$out/tlb-report.html"
