# Guest tests for the device-private area (kernel-patches 0007-0009): the
# dma-cma-test driver bound to the DT test device allocates coherent buffers
# through the architecture's real dma_alloc_coherent() path, from the
# fimc-pool area, and debugfs "devices" and "allocated" show it.  Sourced by
# run-tests.sh, which runs the functions listed in CMA_DEVICE_TESTS.

POOL=/sys/kernel/debug/cma/fimc-pool
TESTDEV=cmadebug-fimc
TESTDIR=/sys/kernel/debug/dma-cma-test/$TESTDEV

# runs FILE: "FIRST LAST PAGES" (decimal) for each run line of an
# allocated file, "start_pfn=0xA end_pfn=0xB pages=N" (end_pfn inclusive).
runs() {
	sed -n 's/^start_pfn=\(0x[0-9a-f]*\) end_pfn=\(0x[0-9a-f]*\) pages=\([0-9]*\)$/\1 \2 \3/p' "$1" |
		while read -r first last pages; do
			echo $((first)) $((last)) "$pages"
		done
}

# in_run PFN: whether PFN lies in one of fimc-pool's allocated runs.
in_run() {
	cat $POOL/allocated >/tmp/allocated.txt
	runs /tmp/allocated.txt | while read -r first last pages; do
		[ "$1" -ge "$first" ] && [ "$1" -le "$last" ] && echo yes
	done | grep -q yes
}

# Each area's allocated: run lines, then "records=R pages=P order_per_bit=K";
# the runs are whole bitmap bits, they add up to used, and nothing else is
# in the file.
test_allocated_agrees_with_used() {
	for d in /sys/kernel/debug/cma/*/; do
		a=$(basename $d)
		cat ${d}allocated >/tmp/allocated.txt
		used=$(cat ${d}used)
		opb=$(cat ${d}order_per_bit)
		trailer=$(tail -n 1 /tmp/allocated.txt)
		echo "$trailer" | grep -Eqx 'records=[0-9]+ pages=[0-9]+ order_per_bit=[0-9]+' ||
			t_fail "$a: allocated ends with '$trailer', expected records=R pages=P order_per_bit=K" || return 1
		t_eq "$a allocated pages= vs used" "$used" "$(echo "$trailer" | sed 's/.* pages=\([0-9]*\) .*/\1/')" || return 1
		t_eq "$a allocated order_per_bit= vs order_per_bit" "$opb" "${trailer##*order_per_bit=}" || return 1
		runs /tmp/allocated.txt >/tmp/runs.txt
		n=$(wc -l </tmp/runs.txt)
		t_eq "$a allocated records= vs run lines" "$n" "$(echo "$trailer" | sed 's/^records=\([0-9]*\) .*/\1/')" || return 1
		t_eq "$a allocated lines (runs and the trailer)" $((n + 1)) "$(wc -l </tmp/allocated.txt)" || return 1
		sum=0
		bit=$((1 << opb))
		while read -r first last pages; do
			t_eq "$a run $first-$last pages" $((last - first + 1)) "$pages" || return 1
			[ $(((first - $(cat ${d}base_pfn)) % bit)) = 0 ] && [ $((pages % bit)) = 0 ] ||
				t_fail "$a run $first-$last is not whole bitmap bits of $bit pages" || return 1
			sum=$((sum + pages))
		done </tmp/runs.txt
		t_eq "$a sum of runs" "$used" "$sum" || return 1
	done
}

test_test_driver_attaches_to_private_pool() {
	echo dma-cma-test >/sys/bus/platform/devices/$TESTDEV/driver_override &&
		echo $TESTDEV >/sys/bus/platform/drivers/dma-cma-test/bind ||
		t_fail "binding dma-cma-test to $TESTDEV failed" || return 1
	t_eq "fimc-pool devices" "device=$TESTDEV driver=dma-cma-test
records=1" "$(cat $POOL/devices)" || return 1
	t_eq "default area devices" records=0 "$(cat /sys/kernel/debug/cma/reserved/devices)" || return 1
	for f in alloc:200 free:200 buffers:400 mmap:600; do
		[ -e $TESTDIR/${f%:*} ] || t_fail "no $TESTDIR/${f%:*}" || return 1
		t_eq "mode of dma-cma-test ${f%:*}" "${f#*:}" "$(stat -c %a $TESTDIR/${f%:*})" || return 1
	done
	t_eq "buffers of a new device" records=0 "$(cat $TESTDIR/buffers)"
}

test_coherent_buffers_come_from_private_pool() {
	base=$(($(cat $POOL/base_pfn)))
	end=$((base + $(cat $POOL/count)))
	used=$(cat $POOL/used)
	echo 1048576 >$TESTDIR/alloc && echo 8192 >$TESTDIR/alloc ||
		t_fail "dma_alloc_coherent through $TESTDIR/alloc failed" || return 1
	cat $TESTDIR/buffers >/tmp/buffers.txt
	sed 's/^/# /' /tmp/buffers.txt
	t_eq "buffers (sizes, then records=)" "size=1048576 size=8192 records=2" \
		"$(sed 's/^dma=0x[0-9a-f]* pfn=0x[0-9a-f]* //' /tmp/buffers.txt | tr '\n' ' ' | sed 's/ $//')" || return 1
	for pfn in $(sed -n 's/.* pfn=\(0x[0-9a-f]*\) .*/\1/p' /tmp/buffers.txt); do
		[ $((pfn)) -ge $base ] && [ $((pfn)) -lt $end ] ||
			t_fail "buffer at pfn $pfn outside fimc-pool [$base, $end)" || return 1
		in_run $((pfn)) || t_fail "pfn $pfn not in any run of allocated" || return 1
	done
	t_eq "fimc-pool used pages" $((used + 256 + 2)) "$(cat $POOL/used)" || return 1
	t_eq "cmadebug used_pages" $((used + 256 + 2)) "$(cmadebug --pretty areas | awk '$1 == "\"name\":" { n = $2 } n ~ /fimc-pool/ && $1 == "\"used_pages\":" { gsub(/,/, "", $2); print $2; exit }')" || return 1
	t_eq "cmadebug bitmap used_pages" "$(cat $POOL/used)" "$(cmadebug --pretty bitmap fimc-pool | awk '$1 == "\"used_pages\":" { gsub(/,/, "", $2); print $2 }')" || return 1
	t_eq "cmadebug bitmap runs" "$(grep -c '^start_pfn=' $POOL/allocated)" "$(cmadebug --pretty bitmap fimc-pool | grep -c '"first_pfn":')" || return 1
	echo 2 >$TESTDIR/free || t_fail "free 2 refused" || return 1
	t_eq "buffers after free" records=0 "$(cat $TESTDIR/buffers)" || return 1
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
	t_eq "buffers" records=0 "$(cat $TESTDIR/buffers)"
}

CMA_DEVICE_TESTS="
	test_allocated_agrees_with_used
	test_test_driver_attaches_to_private_pool
	test_coherent_buffers_come_from_private_pool
	test_test_driver_rejects_bad_input"
