# Guest tests for the device-private area (kernel-patches 0007-0009): the
# dma-cma-test driver bound to the DT test device allocates coherent buffers
# through the architecture's real dma_alloc_coherent() path, from the
# fimc-pool area, and debugfs "devices" and "allocated" show it.  Sourced by
# run-tests.sh, which runs the functions listed in CMA_DEVICE_TESTS.

POOL=/sys/kernel/debug/cma/fimc-pool
TESTDEV=cmadebug-fimc
TESTDIR=/sys/kernel/debug/dma-cma-test/$TESTDEV

# in_run PFN: whether PFN lies in one of fimc-pool's allocated runs.
in_run() {
	grep '^0x' $POOL/allocated | while read -r range pages; do
		[ "$1" -ge $((${range%-*})) ] && [ "$1" -le $((${range#*-})) ] && echo yes
	done | grep -q yes
}

test_allocated_agrees_with_used() {
	for d in /sys/kernel/debug/cma/*/; do
		last=$(tail -n 1 ${d}allocated)
		t_eq "$(basename $d) allocated pages vs used" "$(cat ${d}used)" "${last#*pages=}" || return 1
		sum=$(awk '$1 ~ /^0x/ { t += $2 } END { print t + 0 }' ${d}allocated)
		t_eq "$(basename $d) sum of runs" "$(cat ${d}used)" "$sum" || return 1
	done
}

test_test_driver_attaches_to_private_pool() {
	echo dma-cma-test >/sys/bus/platform/devices/$TESTDEV/driver_override &&
		echo $TESTDEV >/sys/bus/platform/drivers/dma-cma-test/bind ||
		t_fail "binding dma-cma-test to $TESTDEV failed" || return 1
	t_eq "fimc-pool devices" "$TESTDEV dma-cma-test
count=1" "$(cat $POOL/devices)" || return 1
	t_eq "default area devices" count=0 "$(cat /sys/kernel/debug/cma/reserved/devices)" || return 1
	for f in alloc:200 free:200 buffers:400; do
		t_eq "mode of dma-cma-test ${f%:*}" "${f#*:}" "$(stat -c %a $TESTDIR/${f%:*})" || return 1
	done
}

test_coherent_buffers_come_from_private_pool() {
	base=$(($(cat $POOL/base_pfn)))
	end=$((base + $(cat $POOL/count)))
	used=$(cat $POOL/used)
	echo 1048576 >$TESTDIR/alloc && echo 8192 >$TESTDIR/alloc ||
		t_fail "dma_alloc_coherent through $TESTDIR/alloc failed" || return 1
	sed 's/^/# /' $TESTDIR/buffers
	for pfn in $(sed -n 's/.* pfn=\(0x[0-9a-f]*\) .*/\1/p' $TESTDIR/buffers); do
		[ $((pfn)) -ge $base ] && [ $((pfn)) -lt $end ] ||
			t_fail "buffer at pfn $pfn outside fimc-pool [$base, $end)" || return 1
		in_run $((pfn)) || t_fail "pfn $pfn not in any run of allocated" || return 1
	done
	t_eq "fimc-pool used pages" $((used + 256 + 2)) "$(cat $POOL/used)" || return 1
	t_eq "cmadebug used_pages" $((used + 256 + 2)) "$(cmadebug --pretty areas | awk '$1 == "\"name\":" { n = $2 } n ~ /fimc-pool/ && $1 == "\"used_pages\":" { gsub(/,/, "", $2); print $2; exit }')" || return 1
	t_eq "cmadebug bitmap used_pages" "$(cat $POOL/used)" "$(cmadebug --pretty bitmap fimc-pool | awk '$1 == "\"used_pages\":" { gsub(/,/, "", $2); print $2 }')" || return 1
	t_eq "cmadebug bitmap runs" "$(grep -c '^0x' $POOL/allocated)" "$(cmadebug --pretty bitmap fimc-pool | grep -c '"first_pfn":')" || return 1
	echo 2 >$TESTDIR/free || t_fail "free 2 refused" || return 1
	t_eq "buffers after free" count=0 "$(cat $TESTDIR/buffers)" || return 1
	t_eq "fimc-pool used after free" "$used" "$(cat $POOL/used)"
}

test_test_driver_rejects_bad_input() {
	for v in 0 -1 abc 268435457 99999999999999999999 ""; do
		if echo "$v" >$TESTDIR/alloc 2>/dev/null; then
			t_fail "alloc accepted '$v'"
			return 1
		fi
	done
	for v in 0 1 -1 abc ""; do
		if echo "$v" >$TESTDIR/free 2>/dev/null; then
			t_fail "free accepted '$v' with no buffers"
			return 1
		fi
	done
	t_eq "buffers" count=0 "$(cat $TESTDIR/buffers)"
}

CMA_DEVICE_TESTS="
	test_allocated_agrees_with_used
	test_test_driver_attaches_to_private_pool
	test_coherent_buffers_come_from_private_pool
	test_test_driver_rejects_bad_input"
