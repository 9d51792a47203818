# make bench (bench/cma-alloc.sh): instruction counts of CMA allocate/release
# pairs and of failing allocations, with the cma trace events off and on.
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
