# Guest tests for a private pool CMA could not activate (suite inactive-pool:
# kernel-patches/dts/arm-inactive-pool.dtsi places it across the end of
# lowmem, so it spans two zones).  The area is declared, then handed back
# to the buddy allocator; the test device's memory-region still names it.
# Before 0004/0008 initialised the area's locks and device list when it was
# declared, binding that device wrote through a NULL list head (an oops the
# console checker fails on).  Sourced by run-tests.sh: CMA_INACTIVE_TESTS.

INACTIVE=/sys/kernel/debug/cma/fimc-pool
INACTIVE_DEV=cmadebug-fimc

test_pool_is_declared_but_not_active() {
	dmesg | grep -q 'CMA area fimc-pool could not be activated' ||
		t_fail "no 'could not be activated' boot message: the pool did not straddle the zones" || return 1
	t_eq "count of the inactive area" 0 "$(cat $INACTIVE/count)" || return 1
	t_eq "its failures" "records=0 dropped=0" "$(cat $INACTIVE/failures)" || return 1
	t_eq "its devices before any probe" records=0 "$(cat $INACTIVE/devices)" || return 1
	t_eq "its allocated runs" "records=0 pages=0 order_per_bit=$(cat $INACTIVE/order_per_bit)" "$(cat $INACTIVE/allocated)"
}

test_device_on_inactive_pool_binds_and_is_listed_once() {
	for round in 1 2; do
		echo dma-cma-test >/sys/bus/platform/devices/$INACTIVE_DEV/driver_override &&
			echo $INACTIVE_DEV >/sys/bus/platform/drivers/dma-cma-test/bind ||
			t_fail "binding dma-cma-test to $INACTIVE_DEV failed (round $round)" || return 1
		t_eq "devices after bind $round" "device=$INACTIVE_DEV driver=dma-cma-test
records=1" "$(cat $INACTIVE/devices)" || return 1
		echo $INACTIVE_DEV >/sys/bus/platform/drivers/dma-cma-test/unbind ||
			t_fail "unbind failed (round $round)" || return 1
		t_eq "devices after unbind $round" records=0 "$(cat $INACTIVE/devices)" || return 1
	done
}

test_allocation_from_inactive_pool_fails_cleanly() {
	dir=/sys/kernel/debug/dma-cma-test/$INACTIVE_DEV
	echo $INACTIVE_DEV >/sys/bus/platform/drivers/dma-cma-test/bind ||
		t_fail "bind failed" || return 1
	# arm's CMA allocator has no fallback: the allocation fails, no splat.
	if echo 8192 >$dir/alloc 2>/dev/null; then
		sed 's/^/# /' $dir/buffers
		echo 1 >$dir/free
	fi
	t_eq "cmadebug areas still exits 0" 0 "$(cmadebug areas >/dev/null 2>&1; echo $?)" || return 1
	echo $INACTIVE_DEV >/sys/bus/platform/drivers/dma-cma-test/unbind
}

CMA_INACTIVE_TESTS="
	test_pool_is_declared_but_not_active
	test_device_on_inactive_pool_binds_and_is_listed_once
	test_allocation_from_inactive_pool_fails_cleanly"
