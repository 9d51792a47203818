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

# areas without CMA debugfs: the device tree, the log and meminfo, labelled.
test_stock_areas_from_device_tree_and_log() {
	cmadebug areas >/tmp/areas.txt 2>/tmp/areas.err || t_fail "exit $?: $(cat /tmp/areas.err)" || return 1
	cmadebug --pretty areas >/tmp/areas.json || t_fail "--json exit $?" || return 1
	sed 's/^/# /' /tmp/areas.txt
	[ ! -s /tmp/areas.err ] || t_fail "stderr: $(cat /tmp/areas.err)" || return 1
	t_eq "view" stock "$(json_value /tmp/areas.json view)" || return 1
	t_eq "nr_areas" 2 "$(json_value /tmp/areas.json nr_areas)" || return 1
	# the log's base of each area, the DT's and the log's sizes
	for a in reserved:32 fimc-pool:16; do
		name=${a%:*} mib=${a#*:}
		grep -q "^$name .* $mib MiB " /tmp/areas.txt || t_fail "$name not listed with $mib MiB" || return 1
	done
	pool=$(grep -oE 'created CMA memory pool at 0x[0-9a-f]+' /tmp/dmesg.txt | sed 's/.* at //')
	grep -q "^fimc-pool  *$(printf '%#x' $((pool)))-" /tmp/areas.txt ||
		t_fail "fimc-pool not at the log's $pool" || return 1
	# the pool's size: the device tree's request, confirmed by the log
	grep -q '"size_bytes_source": "device tree, kernel log"' /tmp/areas.json ||
		t_fail "no size given by both the device tree and the log"
}

test_stock_areas_total_is_cmatotal() {
	kb=$(awk '$1 == "CmaTotal:" { print $2 }' /proc/meminfo)
	t_eq "total_bytes" $((kb * 1024)) "$(json_value /tmp/areas.json total_bytes)" || return 1
	t_eq "meminfo_cma_total_bytes" $((kb * 1024)) "$(json_value /tmp/areas.json meminfo_cma_total_bytes)"
}

# doctor: exit 2, names the options, says the series is for 6.12.
test_stock_doctor_names_the_missing_options() {
	cmadebug doctor >/tmp/doctor.txt 2>&1
	t_eq "exit status" 2 $? || return 1
	sed 's/^/# /' /tmp/doctor.txt
	for w in CONFIG_CMA_DEBUGFS CONFIG_CMA_SYSFS CONFIG_PTDUMP_DEBUGFS CONFIG_LINEAR_MAP_DEBUGFS; do
		grep -q "$w" /tmp/doctor.txt || t_fail "$w not named" || return 1
	done
	grep -q '^Series applies: no: .* made for Linux 6.12, this kernel is 6.1$' /tmp/doctor.txt ||
		t_fail "the series' version not compared"
}

# A real CMA allocation by a stock kernel: Debian's own virtio_blk (its
# modules in /lib/modules, scripts/distro-kernel.sh) allocates its ring
# with dma_alloc_coherent(); QEMU's device has iommu_platform=on, so the
# ring goes through the DMA API and, at two pages, comes from CMA.
stock_load_modules() {
	[ -f /lib/modules/load-order ] || return 1
	while read -r m; do
		grep -q "^${m%%.ko*} " /proc/modules || insmod /lib/modules/$m || return 1
	done </lib/modules/load-order
}

STOCK_BLK=/sys/bus/virtio/drivers/virtio_blk

# trace record around three unbind/bind cycles: three start/finish pairs
# and three releases, failures without a stage (no cma_alloc_fail here)
test_stock_trace_records_the_driver_allocations() {
	stock_load_modules || t_fail "insmod of $(tr '\n' ' ' </lib/modules/load-order) failed" || return 1
	dev=$(ls $STOCK_BLK | grep '^virtio[0-9]' | head -n 1)
	[ -n "$dev" ] || t_fail "virtio_blk bound no device" || return 1
	before=$(awk '$1 == "cma_alloc_success" { print $2 }' /proc/vmstat)
	cmadebug --pretty trace record -o /tmp/stock.dat -- sh -c "
		for i in 1 2 3; do
			echo $dev >$STOCK_BLK/unbind && echo $dev >$STOCK_BLK/bind || exit 1
		done" >/tmp/stock-record.json 2>/tmp/stock-record.err
	t_eq "trace record's exit status" 0 $? || { sed 's/^/# /' /tmp/stock-record.err; return 1; }
	after=$(awk '$1 == "cma_alloc_success" { print $2 }' /proc/vmstat)
	t_eq "cma_alloc_success (vmstat) during the recording" 3 $((after - before)) || return 1
	sed 's/^/# /' /tmp/stock-record.json | grep -v '^# *[]{}[]' | head -n 40
	# (trace report needs libtracecmd: the host reads make fixtures' capture)
	for f in /tmp/stock-record.json; do
		t_eq "requests ($f)" 3 "$(json_value $f requests)" || return 1
		t_eq "succeeded ($f)" 3 "$(json_value $f succeeded)" || return 1
		t_eq "unmatched ($f)" 0 "$(json_value $f unmatched)" || return 1
		# the ring the first unbind frees is the size of those allocated
		t_eq "pages released ($f)" "$(json_value $f pages)" "$(json_value $f pages_released)" || return 1
		t_eq "stages recorded ($f)" false "$(json_value $f stages_recorded)" || return 1
		grep -q '"why_not": "no cma:cma_alloc_fail in this kernel' $f ||
			t_fail "$f does not say why there are no stages" || return 1
	done
	grep -q '"cma:cma_alloc_fail"' /tmp/stock-record.json || t_fail "cma_alloc_fail not listed as missing"
}

STOCK_TESTS="
	test_stock_kernel_lacks_cma_debugfs
	test_stock_log_creates_both_areas
	test_stock_cmatotal_is_both_areas
	test_stock_device_tree_pool_is_reusable
	test_stock_vmstat_has_cma_counters
	test_stock_has_the_cma_events
	test_stock_stats_names_the_missing_option
	test_stock_areas_from_device_tree_and_log
	test_stock_areas_total_is_cmatotal
	test_stock_doctor_names_the_missing_options
	test_stock_trace_records_the_driver_allocations
"
