# The stress workload (make stress; sourced by run-tests.sh for
# cmadebug.suite=stress).  For cmadebug.stress_seconds=S seconds, on every
# CPU the board has, at once: coherent DMA alloc/free through both test
# devices, cma/<area>/alloc|free, every readable debugfs file of the series
# read in a loop, alias_check walks, CMA and linear-map injection toggled,
# and 'cmadebug trace record' running throughout.  The console checker
# (scripts/ktap_check.py) fails the boot on any kernel report; the test
# checks that every worker got work done and that the ones that must never
# fail did not.

STRESS=/tmp/stress
CMA=/sys/kernel/debug/cma
DMA_TEST=/sys/kernel/debug/dma-cma-test

# stress_worker NAME CMD...: run CMD until $STRESS/stop exists; write
# "NAME ok=N failed=M" to $STRESS/NAME.
stress_worker() {
	name=$1
	shift
	ok=0
	failed=0
	while [ ! -e $STRESS/stop ]; do
		if "$@" >/dev/null 2>&1; then
			ok=$((ok + 1))
		else
			failed=$((failed + 1))
		fi
	done
	echo "$name ok=$ok failed=$failed" >$STRESS/$name
}

# Allocations may fail while an injection holds pages: counted, not fatal.
stress_dma() { # DEVICE
	echo 65536 >$DMA_TEST/$1/alloc && echo 1 >$DMA_TEST/$1/free
}

stress_cma_debugfs() { # AREA
	echo 16 >$CMA/$1/alloc && echo 16 >$CMA/$1/free
}

# Every file a reader can read, the series' and the kernel's own beside it.
stress_read_all() {
	for f in $CMA/*/* $LM/layout $LM/splits $LM/attr_changes $LM/alias_check_pid \
		$LM/inject/aliases $CMA/*/inject/list $DMA_TEST/*/buffers \
		/sys/kernel/debug/kernel_page_tables; do
		[ -f "$f" ] && [ -r "$f" ] || continue
		case $f in
		*/alloc | */free) continue ;;
		esac
		cat "$f" >/dev/null || return 1
	done
}

stress_alias_check() {
	cat $LM/alias_check >/dev/null
}

# CMA pins and isolations in the private pool, linear-map aliases: on and
# off again, while the allocations above run into them.
stress_inject() {
	echo 2 >$CMA/fimc-pool/inject/pin
	echo 1 >$CMA/fimc-pool/inject/isolate
	echo 1 >$CMA/fimc-pool/inject/release || return 1
	echo 4 >$LM/inject/alias_add || return 1
	addr=$(sed -n 's/^alias=\(0x[0-9a-f]*\) .*/\1/p' $LM/inject/aliases | head -n 1)
	echo "$addr" >$LM/inject/alias_remove
}

# stress_result NAME: "ok failed" of a finished worker.
stress_result() {
	sed -n "s/^$1 ok=\([0-9]*\) failed=\([0-9]*\)$/\1 \2/p" $STRESS/$1
}

test_stress_workload() {
	seconds=60
	for arg in $(cat /proc/cmdline); do
		case $arg in
		cmadebug.stress_seconds=*) seconds=${arg#cmadebug.stress_seconds=} ;;
		esac
	done
	cpus=$(grep -c '^processor' /proc/cpuinfo)
	echo "# $cpus CPUs, $seconds s"
	[ "$cpus" -ge 2 ] || t_fail "the stress board needs SMP: $cpus CPU" || return 1
	rm -rf $STRESS
	mkdir -p $STRESS
	bind_test_device cmadebug-fimc || t_fail "binding cmadebug-fimc failed" || return 1
	bind_test_device cmadebug-plain || t_fail "binding cmadebug-plain failed" || return 1
	default_area=$(for d in $CMA/*/; do
		n=$(basename $d)
		[ "$n" = fimc-pool ] || echo $n
	done | head -n 1)

	# -m 1: the limit reached within seconds whatever the machine's speed
	# (with debug_pagealloc an event per page allocated and freed; the
	# recorder once kept them all and was OOM-killed within a minute)
	cmadebug --pretty trace record -m 1 -o $STRESS/trace.dat -- sleep "$seconds" >$STRESS/trace.json 2>$STRESS/trace.err &
	trace_pid=$!
	workers="dma_fimc_a dma_fimc_b dma_plain cma_debugfs readers alias_check inject"
	stress_worker dma_fimc_a stress_dma cmadebug-fimc &
	stress_worker dma_fimc_b stress_dma cmadebug-fimc &
	stress_worker dma_plain stress_dma cmadebug-plain &
	stress_worker cma_debugfs stress_cma_debugfs "$default_area" &
	stress_worker readers stress_read_all &
	stress_worker alias_check stress_alias_check &
	stress_worker inject stress_inject &
	sleep "$seconds"
	touch $STRESS/stop
	wait $trace_pid
	trace_rc=$?
	wait
	echo 1 >$CMA/fimc-pool/inject/release

	total=0
	for w in $workers; do
		[ -f $STRESS/$w ] || t_fail "worker $w left no result" || return 1
		echo "# $(cat $STRESS/$w)"
		set -- $(stress_result $w)
		[ "${1:-0}" -gt 0 ] || t_fail "worker $w got nothing done: $(cat $STRESS/$w)" || return 1
		case $w in
		readers | alias_check | inject)
			t_eq "$w failures" 0 "$2" || return 1
			;;
		esac
		total=$((total + $1 + $2))
	done
	sed 's/^/# trace: /' $STRESS/trace.err
	grep -E '"(records|lost_events|max_bytes|capped)"' $STRESS/trace.json | sed 's/^ */# trace: /'
	t_eq "cmadebug trace record exit status" 0 $trace_rc || return 1
	case " $(cat /proc/cmdline) " in
	*" debug_pagealloc=on "*)
		grep -q '"capped": true' $STRESS/trace.json || t_fail "the recording was not capped" || return 1
		grep -q '"lost_events": [1-9]' $STRESS/trace.json || t_fail "capped, but no events counted as lost" || return 1
		;;
	esac
	summary=$(for w in $workers; do cat $STRESS/$w; done | tr '\n' ',')
	echo "stress: $total operations in $seconds s on $cpus CPUs: ${summary%,}"
}
