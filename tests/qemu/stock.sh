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

# The zones' CMA (zoneinfo, pagetypeinfo) is the areas' sum: CmaTotal
# counts the same pages, and CMA areas are whole pageblocks.  (arm64: both
# areas in DMA; armmp: the cma= area lands in HighMem.)
test_stock_zones_hold_cmatotal() {
	kb=$(awk '$1 == "CmaTotal:" { print $2 }' /proc/meminfo)
	free_kb=$(awk '$1 == "CmaFree:" { print $2 }' /proc/meminfo)
	cmadebug --json areas >/tmp/areas-zones.json || t_fail "exit $?" || return 1
	grep -o '"zones":\[.*\],"pages_per_pageblock":[0-9]*' /tmp/areas-zones.json | sed 's/},{/}\n# {/g; s/^/# /'
	sum() { grep -o "\"$1\":[0-9]*" /tmp/areas-zones.json | awk -F: '{ s += $2 } END { print s + 0 }'; }
	[ "$(sum cma_pages)" -gt 0 ] || t_fail "no zone with CMA" || return 1
	t_eq "zones' cma_bytes" $((kb * 1024)) "$(sum cma_bytes)" || return 1
	t_eq "zones' cma_free_bytes (CmaFree)" $((free_kb * 1024)) "$(sum cma_free_bytes)" || return 1
	t_eq "pageblocks x pages per block = cma pages" "$(sum cma_pages)" \
		$(($(sum cma_pageblocks) * $(sum pages_per_pageblock))) || return 1
	for largest in $(grep -o '"largest_free_cma_block_bytes":[0-9]*' /tmp/areas-zones.json | cut -d: -f2); do
		[ "$largest" -gt 0 ] && [ "$largest" -le $((free_kb * 1024)) ] ||
			t_fail "largest free CMA block $largest not in (0, CmaFree]" || return 1
	done
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

# Lockdown, raised in this order (it never goes down: the last test).
# integrity leaves /proc/kcore readable (LOCKDOWN_KCORE is one of
# confidentiality's reasons, security/lockdown); confidentiality refuses it:
# splits and alias say so in one line and exit 2, areas still answers from
# the device tree and the log, doctor names lockdown.
test_stock_lockdown_refuses_only_kcore() {
	lockdown=/sys/kernel/security/lockdown
	sed 's/^/# lockdown: /' $lockdown
	echo integrity >$lockdown || t_fail "cannot raise lockdown to integrity" || return 1
	if [ -e /proc/kcore ]; then
		cmadebug splits >/tmp/ld-splits.txt 2>&1
		t_eq "splits' exit status under lockdown=integrity" 0 $? || { sed 's/^/# /' /tmp/ld-splits.txt; return 1; }
	fi
	echo confidentiality >$lockdown || t_fail "cannot raise lockdown to confidentiality" || return 1
	grep -q '\[confidentiality\]' $lockdown || t_fail "lockdown: $(cat $lockdown)" || return 1
	if [ -e /proc/kcore ]; then
		for cmd in splits alias; do
			cmadebug $cmd >/tmp/ld-$cmd.out 2>/tmp/ld-$cmd.err
			t_eq "$cmd's exit status" 2 $? || return 1
			sed "s/^/# $cmd: /" /tmp/ld-$cmd.err
			t_eq "$cmd's stderr lines" 1 "$(wc -l </tmp/ld-$cmd.err)" || return 1
			grep -q 'lockdown=confidentiality' /tmp/ld-$cmd.err || t_fail "$cmd does not name lockdown" || return 1
			[ ! -s /tmp/ld-$cmd.out ] || t_fail "$cmd wrote to stdout" || return 1
		done
	fi
	cmadebug areas >/tmp/ld-areas.txt 2>&1 || t_fail "areas exit $?: $(cat /tmp/ld-areas.txt)" || return 1
	grep -q '^fimc-pool .* 16 MiB ' /tmp/ld-areas.txt || t_fail "areas lost fimc-pool" || return 1
	cmadebug doctor >/tmp/ld-doctor.txt 2>&1
	t_eq "doctor's exit status" 2 $? || return 1
	sed 's/^/# /' /tmp/ld-doctor.txt
	grep -q '^Lockdown: confidentiality$' /tmp/ld-doctor.txt || t_fail "doctor: no 'Lockdown: confidentiality'" || return 1
	for v in tracefs 'events: cma_alloc_start/finish, cma_release'; do
		grep -q "^$v  *no  *permission denied (kernel lockdown=confidentiality forbids tracefs)" \
			/tmp/ld-doctor.txt || t_fail "doctor does not say lockdown closes $v" || return 1
	done
	# recording needs trace_pipe_raw, which lockdown closes: one line, exit 2
	cmadebug trace record -o /tmp/ld.dat -- true >/tmp/ld-record.out 2>/tmp/ld-record.err
	t_eq "trace record's exit status" 2 $? || { sed 's/^/# /' /tmp/ld-record.err; return 1; }
	sed 's/^/# trace record: /' /tmp/ld-record.err
	t_eq "trace record's stderr lines" 1 "$(wc -l </tmp/ld-record.err)" || return 1
	grep -q 'lockdown=confidentiality' /tmp/ld-record.err || t_fail "trace record does not name lockdown" || return 1
	[ ! -e /proc/kcore ] || grep -q 'through /proc/kcore  *no .*lockdown=confidentiality' /tmp/ld-doctor.txt ||
		t_fail "doctor does not say lockdown closes /proc/kcore"
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
	test_stock_zones_hold_cmatotal
	test_stock_doctor_names_the_missing_options
	test_stock_trace_records_the_driver_allocations
"
# raises lockdown for good: the last one
if [ -f /sys/kernel/security/lockdown ]; then
	STOCK_TESTS="$STOCK_TESTS test_stock_lockdown_refuses_only_kcore"
fi
