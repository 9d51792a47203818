# Guest tests: what cmadebug reports about the CMA areas agrees with the
# kernel's own files, the device tree and /proc/meminfo; then the failure
# reports of kernel-patches/ (cma-failures.sh) and the device-private area
# (cma-devices.sh).
. /tests/ktap.sh
. /tests/cma-failures.sh
. /tests/cma-trace.sh
. /tests/cma-devices.sh
. /tests/cma-inactive.sh
. /tests/linear-map.sh
. /tests/tlb.sh
. /tests/perf-record.sh
. /tests/stress.sh
. /tests/stock.sh

CMA=/sys/kernel/debug/cma
DT=/sys/firmware/devicetree/base
PAGE_SIZE=4096 # both boards use 4 KiB pages (arm64.config: ARM64_4K_PAGES)

# json_field AREA KEY: KEY of AREA in 'cmadebug --pretty areas' (one member a line).
json_field() {
	awk -v area="$1" -v key="\"$2\":" '
		$1 == "\"name\":" { gsub(/[",]/, "", $2); name = $2 }
		name == area && $1 == key { gsub(/,/, "", $2); print $2; exit }
	' /tmp/areas.json
}

# dt_u64 FILE [INDEX]: the INDEX-th (from 0) 64-bit big-endian value of a
# device-tree property (two cells), in decimal.
dt_u64() {
	echo $((0x$(od -An -tx1 -j $((${2:-0} * 8)) -N8 "$1" | tr -d ' \n')))
}

test_cma_debugfs_present() {
	[ -d $CMA ] || t_fail "$CMA missing (CONFIG_CMA_DEBUGFS)" || return 1
	n=$(ls $CMA | wc -l)
	[ "$n" -ge 2 ] || t_fail "expected >= 2 CMA areas, found $n: $(ls $CMA)"
}

test_cmadebug_areas_runs() {
	cmadebug areas >/tmp/areas.txt 2>/tmp/areas.err || t_fail "exit $?: $(cat /tmp/areas.err)" || return 1
	cmadebug --pretty areas >/tmp/areas.json 2>>/tmp/areas.err || t_fail "--json exit $?: $(cat /tmp/areas.err)" || return 1
	cat /tmp/areas.txt | sed 's/^/# /'
	[ ! -s /tmp/areas.err ] || t_fail "stderr not empty: $(cat /tmp/areas.err)"
}

test_every_area_listed_as_kernel_reports() {
	for d in $CMA/*/; do
		a=$(basename $d)
		grep -q "^$a " /tmp/areas.txt || t_fail "area $a missing from the table" || return 1
		for f in base_pfn count used maxchunk order_per_bit; do
			k=$f
			case $f in count | used | maxchunk) k=${f}_pages ;; esac
			t_eq "$a $k" "$(cat $d$f)" "$(json_field $a $k)" || return 1
		done
	done
}

test_default_area_matches_cmdline() {
	# cma=32M on the kernel command line
	t_eq "reserved count_pages" $((32 * 1024 * 1024 / PAGE_SIZE)) "$(cat $CMA/reserved/count)" || return 1
	t_eq "reserved size_bytes" $((32 * 1024 * 1024)) "$(json_field reserved size_bytes)"
}

test_private_pool_matches_device_tree() {
	node=$DT/reserved-memory/fimc-pool
	[ -f $node/size ] || t_fail "no $node/size in the device tree" || return 1
	size=$(dt_u64 $node/size)
	t_eq "fimc-pool size (DT)" $((16 * 1024 * 1024)) "$size" || return 1
	t_eq "fimc-pool count_pages" $((size / PAGE_SIZE)) "$(cat $CMA/fimc-pool/count)" || return 1
	t_eq "fimc-pool size_bytes" "$size" "$(json_field fimc-pool size_bytes)" || return 1
	grep -q 'cmadebug,test-dma' $DT/cmadebug-fimc/compatible ||
		t_fail "test device node /cmadebug-fimc missing from the device tree" || return 1
	if [ -f $node/alloc-ranges ]; then
		lo=$(dt_u64 $node/alloc-ranges 0)
		hi=$((lo + $(dt_u64 $node/alloc-ranges 1)))
		start=$(json_field fimc-pool phys_start)
		end=$(json_field fimc-pool phys_end)
		[ "$start" -ge "$lo" ] && [ "$end" -lt "$hi" ] ||
			t_fail "fimc-pool at $start-$end, outside DT alloc-ranges $lo-$hi"
	fi
}

test_cmatotal_equals_sum_of_areas() {
	total_kb=$(awk '$1 == "CmaTotal:" { print $2 }' /proc/meminfo)
	sum=0
	for d in $CMA/*/; do sum=$((sum + $(cat ${d}count))); done
	t_eq "CmaTotal vs sum of debugfs counts" $((sum * PAGE_SIZE / 1024)) "$total_kb" || return 1
	t_eq "cmadebug total_bytes" $((total_kb * 1024)) "$(awk '$1 == "\"total_bytes\":" { gsub(/,/, "", $2); print $2 }' /tmp/areas.json)" || return 1
	t_eq "cmadebug meminfo_cma_total_bytes" $((total_kb * 1024)) "$(awk '$1 == "\"meminfo_cma_total_bytes\":" { gsub(/,/, "", $2); print $2 }' /tmp/areas.json)"
}

test_sysfs_counters_match() {
	for d in /sys/kernel/mm/cma/*/; do
		a=$(basename $d)
		t_eq "$a alloc_pages_success" "$(cat ${d}alloc_pages_success)" "$(json_field $a alloc_pages_success)" || return 1
		t_eq "$a alloc_pages_fail" "$(cat ${d}alloc_pages_fail)" "$(json_field $a alloc_pages_fail)" || return 1
	done
}

test_cmadebug_events_parses_cma_formats() {
	out=$(cmadebug events) || t_fail "cmadebug events exit $?" || return 1
	echo "$out" | sed 's/^/# /'
	echo "$out" | grep -q '^cma *cma_alloc_finish *yes .*pfn' ||
		t_fail "cma_alloc_finish not listed with its fields"
}

# Runs first in the main suite: nothing has injected anything yet.
test_kernel_untainted_at_boot() {
	t_eq "/proc/sys/kernel/tainted" 0 "$(cat /proc/sys/kernel/tainted)"
}

# The guest's userland sleeps: the tests' waits poll with sleep, and their
# stand-in processes are "sleep 600 &".  Debian's armhf busybox (32-bit
# time_t) calls nanosleep(), which a 32-bit kernel without
# CONFIG_COMPAT_32BIT_TIME answers ENOSYS, and sleep then returned at
# once: a stand-in gone before its pid was written (ESRCH), waits that
# never waited.  (A lower bound, on /proc/uptime's 10 ms ticks.)
test_sleep_sleeps() {
	before=$(cut -d' ' -f1 /proc/uptime)
	sleep 1
	after=$(cut -d' ' -f1 /proc/uptime)
	slept=$(awk -v a="$after" -v b="$before" 'BEGIN { printf "%d", (a - b) * 100 + 0.5 }')
	[ "$slept" -ge 99 ] || t_fail "sleep 1 returned after ${slept}0 ms of /proc/uptime"
}

test_bad_root_is_environment_error() {
	cmadebug --root /proc/self areas 2>/tmp/err
	rc=$?
	t_eq "exit code for --root without proc/mounts" 2 $rc || return 1
	t_eq "stderr lines" 1 "$(wc -l </tmp/err)"
}

suite=main
for arg in $(cat /proc/cmdline); do
	case $arg in
	cmadebug.suite=*) suite=${arg#cmadebug.suite=} ;;
	esac
done

case $suite:$LM_ARCH in
main:arm) lm_board_tests="$LM_ARM_MAIN_TESTS $TLB_TESTS" ;;
kernel:arm) lm_board_kernel_tests="test_private_pool_split_at_boot test_section_linear_type_is_cache_policy test_alias_check_clean_at_boot test_user_alias_by_pid_clean" ;;
kernel:arm64) lm_board_kernel_tests="test_noncoherent_buffer_alias_found test_user_alias_by_pid_sanctioned" ;;
main:arm64) lm_board_tests="$LM_ARM64_MAIN_TESTS $PERF_RECORD_TESTS" ;;
forced-split:arm) lm_board_tests="$LM_ARM_FORCED_SPLIT_TESTS $TLB_TESTS" ;;
esac

# shellcheck disable=SC2086 # the lists are words
case $suite in
main)
	run_ktap \
		test_kernel_untainted_at_boot \
		test_sleep_sleeps \
		test_cma_debugfs_present \
		test_cmadebug_areas_runs \
		test_every_area_listed_as_kernel_reports \
		test_default_area_matches_cmdline \
		test_private_pool_matches_device_tree \
		test_cmatotal_equals_sum_of_areas \
		test_sysfs_counters_match \
		test_cmadebug_events_parses_cma_formats \
		test_bad_root_is_environment_error \
		$CMA_FAILURE_TESTS \
		$CMA_TRACE_TESTS \
		$CMA_DEVICE_TESTS \
		$LM_MAIN_TESTS \
		$lm_board_tests
	;;
# The kernel's side of main, for the slow debug boards ("short and
# targeted"): every debugfs file the series adds, both kinds of injection,
# the test driver, the linear-map walks, alias_check under allocations and
# the boards' own aliases; not the cases of cmadebug itself, nor the TLB
# runner or perf.
kernel)
	run_ktap \
		test_kernel_untainted_at_boot \
		test_sleep_sleeps \
		test_cma_debugfs_present \
		test_failure_files_are_root_only \
		test_stats_are_name_value \
		test_nospace_failure_is_recorded \
		test_pinned_pages_fail_migration_at_their_pfn \
		test_isolated_pageblock_fails_isolation_at_its_pfn \
		test_bad_input_is_rejected \
		test_failures_end_with_count_line \
		$CMA_DEVICE_TESTS \
		test_linear_map_files_and_modes \
		test_splits_records_and_totals \
		test_layout_adds_up_to_boot_mapping \
		test_layout_agrees_with_ptdump \
		test_meminfo_agrees_with_layout \
		test_alias_injection_found_and_removed \
		test_inject_rejects_bad_input \
		test_alias_check_pid_rejects_bad_input \
		test_alias_check_during_alloc_free \
		test_walk_rejects_bad_input \
		$lm_board_kernel_tests
	;;
lowmem-cma) run_ktap $LM_LOWMEM_CMA_TESTS ;;
unsafe-sections) run_ktap $LM_UNSAFE_SECTIONS_TESTS ;;
keep-sections-fail) run_ktap $LM_KEEP_SECTIONS_FAIL_TESTS ;;
no-default-cma) run_ktap $LM_NO_DEFAULT_CMA_TESTS ;;
forced-split | forced-split-top) run_ktap $LM_FORCED_SPLIT_TESTS $lm_board_tests ;;
forced-split-nomap) run_ktap $LM_FORCED_SPLIT_NOMAP_TESTS ;;
inactive-pool) run_ktap $CMA_INACTIVE_TESTS ;;
kfence-late) run_ktap test_kernel_untainted_at_boot test_kfence_late_split_counted ;;
stress) run_ktap test_stress_workload ;;
# a distribution kernel (make distro-test)
stock) run_ktap test_kernel_untainted_at_boot $STOCK_TESTS ;;
rodata-full) run_ktap $LM_RODATA_FULL_TESTS ;;
tlb-icount | tlb-icount-split) run_ktap $TLB_TESTS test_tlb_paired_within_boot ;;
*) echo "cmadebug-guest: unknown cmadebug.suite=$suite" ;;
esac
tlb_export
perf_export
