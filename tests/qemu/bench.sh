# make bench: instruction counts (QEMU -icount) for the benchmark that
# cmadebug.bench= names: cma (bench/cma-alloc.sh, the default),
# linear-map (bench/linear-map.sh) or pagealloc (bench/debug-pagealloc.sh).
bench=cma
for arg in $(cat /proc/cmdline); do
	case $arg in
	cmadebug.bench=*) bench=${arg#cmadebug.bench=} ;;
	esac
done

# One read of alias_check against one of ptdump's file, on the same kernel:
# the check walks less of the tables than ptdump and prints much less.  And
# /proc/meminfo, on the patched and the unpatched kernel: the difference is
# what its DirectMap lines cost.
if [ $bench = linear-map ]; then
	files=/proc/meminfo
	if [ -d /sys/kernel/debug/linear_map ]; then
		echo 1 >/sys/kernel/debug/linear_map/inject/alias_add # something to report
		files="/sys/kernel/debug/kernel_page_tables /sys/kernel/debug/linear_map/alias_check
			/sys/kernel/debug/linear_map/layout $files"
	fi
	for run in 1 2 3; do
		for f in $files; do
			echo "bench: run=$run $(read-bench $f 20)"
		done
	done
	exit 0
fi

# Pages allocated and freed: with debug_pagealloc=on, each one an unmap and
# a map of the linear map (the attribute-change path).
if [ $bench = pagealloc ]; then
	grep -qw debug_pagealloc=on /proc/cmdline || echo "bench: error=no-debug_pagealloc"
	for run in 1 2 3; do
		echo "bench: run=$run $(page-churn 64)"
	done
	exit 0
fi

# CMA allocate/release pairs and failing allocations, with the cma trace
# events off and on.
AREA=/sys/kernel/debug/cma/reserved
EVENTS=/sys/kernel/tracing/events/cma
N=${BENCH_N:-1000}
for trace in off on; do
	[ $trace = on ] && echo 1 >$EVENTS/enable
	for run in 1 2 3; do
		echo "bench: trace=$trace run=$run $(cma-alloc-bench $AREA $N "$(cat $AREA/count)")"
	done
	echo 0 >$EVENTS/enable
done
