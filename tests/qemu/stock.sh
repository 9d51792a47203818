# Guest tests for a distribution kernel on our board (suite stock, make
# distro-test: Debian's linux-image-arm64 with our device tree and
# initramfs, no kernel of ours).  What such a kernel reports about CMA
# without the series or CMA_DEBUGFS, and what cmadebug makes of it.
# Sourced by run-tests.sh: STOCK_TESTS.

STOCK_DT=/sys/firmware/devicetree/base/reserved-memory/fimc-pool

test_stock_kernel_lacks_cma_debugfs() {
	grep -q ' /sys/kernel/debug debugfs ' /proc/mounts || t_fail "debugfs not mounted" || return 1
	# Debian's configs: CMA=y, DMA_CMA=y, no CMA_DEBUGFS, no CMA_SYSFS
	[ ! -e /sys/kernel/debug/cma ] || t_fail "debugfs cma/ exists: CONFIG_CMA_DEBUGFS is on now" || return 1
	[ ! -e /sys/kernel/mm/cma ] || t_fail "sysfs mm/cma/ exists: CONFIG_CMA_SYSFS is on now"
}

test_stock_log_creates_both_areas() {
	dmesg >/tmp/dmesg.txt
	grep -E 'Reserved memory: created CMA memory pool at 0x[0-9a-f]+, size 16 MiB' /tmp/dmesg.txt | sed 's/^/# /'
	grep -qE 'Reserved memory: created CMA memory pool at 0x[0-9a-f]+, size 16 MiB' /tmp/dmesg.txt ||
		t_fail "no 'created CMA memory pool ... size 16 MiB' line for the device tree's pool" || return 1
	grep -q 'OF: reserved mem: initialized node fimc-pool, compatible id shared-dma-pool' /tmp/dmesg.txt ||
		t_fail "no 'initialized node fimc-pool' line" || return 1
	grep -E 'cma: Reserved 32 MiB at 0x[0-9a-f]+' /tmp/dmesg.txt | sed 's/^/# /'
	grep -qE 'cma: Reserved 32 MiB at 0x[0-9a-f]+' /tmp/dmesg.txt ||
		t_fail "no 'cma: Reserved 32 MiB' line for cma=32M" || return 1
	! grep -q 'could not be activated' /tmp/dmesg.txt || t_fail "an area was not activated"
}

test_stock_cmatotal_is_both_areas() {
	t_eq "CmaTotal (kB)" $(((16 + 32) * 1024)) "$(awk '$1 == "CmaTotal:" { print $2 }' /proc/meminfo)"
}

test_stock_device_tree_pool_is_reusable() {
	[ -f $STOCK_DT/reusable ] || t_fail "no $STOCK_DT/reusable" || return 1
	t_eq "fimc-pool size (DT)" $((16 * 1024 * 1024)) "$(dt_u64 $STOCK_DT/size)"
}

test_stock_vmstat_has_cma_counters() {
	grep -q '^cma_alloc_success ' /proc/vmstat || t_fail "no cma_alloc_success in /proc/vmstat" || return 1
	grep -q '^cma_alloc_fail ' /proc/vmstat || t_fail "no cma_alloc_fail in /proc/vmstat"
}

test_stock_has_the_cma_events() {
	for e in cma_alloc_start cma_alloc_finish cma_alloc_busy_retry cma_release; do
		[ -f /sys/kernel/tracing/events/cma/$e/format ] || t_fail "no event cma:$e" || return 1
	done
	out=$(cmadebug events) || t_fail "cmadebug events exit $?" || return 1
	echo "$out" | sed 's/^/# /'
	echo "$out" | grep -q '^cma *cma_alloc_finish *yes' || t_fail "cma_alloc_finish not listed"
}

# One line, exit 2, naming the option (cmadebug.1: EXIT STATUS).
test_stock_stats_names_the_missing_option() {
	cmadebug stats >/tmp/stats.out 2>/tmp/stats.err
	t_eq "exit status" 2 $? || return 1
	t_eq "stderr lines" 1 "$(wc -l </tmp/stats.err)" || return 1
	grep -q 'CONFIG_CMA_DEBUGFS' /tmp/stats.err || t_fail "not named: $(cat /tmp/stats.err)"
}

STOCK_TESTS="
	test_stock_kernel_lacks_cma_debugfs
	test_stock_log_creates_both_areas
	test_stock_cmatotal_is_both_areas
	test_stock_device_tree_pool_is_reusable
	test_stock_vmstat_has_cma_counters
	test_stock_has_the_cma_events
	test_stock_stats_names_the_missing_option
"
