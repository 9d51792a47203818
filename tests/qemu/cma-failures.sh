# Guest tests for the CMA failure reports (kernel-patches 0002-0006): the
# debugfs files stats, failures and inject/, and the cma:cma_alloc_fail event,
# provoked on purpose through the fault injection knobs.  Sourced by
# run-tests.sh, which runs the functions listed in CMA_FAILURE_TESTS.

AREA=/sys/kernel/debug/cma/reserved
TRACE=/sys/kernel/tracing

# stat_of NAME [TEXT]: a counter from the area's stats file ("name=value"
# lines), or from TEXT, an earlier read of it.
stat_of() {
	if [ $# -gt 1 ]; then
		echo "$2" | sed -n "s/^$1=//p"
	else
		sed -n "s/^$1=//p" $AREA/stats
	fi
}

# newest_failure: the newest record (the line before the records= trailer).
newest_failure() {
	tail -n 2 $AREA/failures | head -n 1
}

# field KEY LINE: the value of KEY=value in LINE.
field() {
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# expect_stats_moved 'name=delta ...': compare with the snapshot in $before.
expect_stats_moved() {
	for kv in $1; do
		k=${kv%=*}
		d=${kv#*=}
		was=$(stat_of "$k" "$before")
		[ -n "$was" ] || t_fail "no $k= line in stats: $before" || return 1
		t_eq "stats $k moved by $d" $((was + d)) "$(stat_of $k)" || return 1
	done
}

trace_start() {
	echo 0 >$TRACE/tracing_on
	echo >$TRACE/trace
	echo 1 >$TRACE/events/cma/cma_alloc_fail/enable
	echo 1 >$TRACE/tracing_on
}

trace_stop() {
	echo 0 >$TRACE/tracing_on
	echo 0 >$TRACE/events/cma/cma_alloc_fail/enable
	grep 'cma_alloc_fail:' $TRACE/trace
}

# alloc_all: allocate the largest free run; succeeds or not, like the kernel.
alloc_all() {
	echo "$(cat $AREA/maxchunk)" >$AREA/alloc 2>/dev/null
}

test_failure_files_are_root_only() {
	for f in stats:400 failures:400 allocated:400 devices:400 inject/list:400 inject/pin:200 inject/isolate:200 inject/release:200; do
		t_eq "mode of ${f%:*}" "${f#*:}" "$(stat -c %a $AREA/${f%:*})" || return 1
	done
}

# stats: one "name=value" line per counter, in the documented order.
test_stats_are_name_value() {
	cat $AREA/stats >/tmp/stats.txt
	sed 's/^/# /' /tmp/stats.txt
	t_eq "stats lines that are not name=value" 0 "$(grep -Evc '^[a-z_]+=[0-9]+$' /tmp/stats.txt)" || return 1
	t_eq "stats names" "requests successes failures retries pages_migrated failed_isolate failed_migrate failed_test failed_no_space failed_signal failed_other last_failure_ns" \
		"$(sed 's/=.*//' /tmp/stats.txt | tr '\n' ' ' | sed 's/ $//')"
}

# Record lines, then one "records=N dropped=M" trailer, nothing else; no
# record carries an owner= key any more.
test_failures_end_with_count_line() {
	cat $AREA/failures >/tmp/failures.txt
	last=$(tail -n 1 /tmp/failures.txt)
	echo "$last" | grep -Eqx 'records=[0-9]+ dropped=[0-9]+' ||
		t_fail "last line of failures is '$last', expected records=N dropped=M" || return 1
	records=$(grep -c '^time_ns=' /tmp/failures.txt)
	t_eq "records= vs record lines" "$records" "$(field records "$last")" || return 1
	t_eq "lines (records and the trailer)" $((records + 1)) "$(wc -l </tmp/failures.txt)" || return 1
	t_eq "records with an owner= key" 0 "$(grep -c ' owner=' /tmp/failures.txt)"
}

test_nospace_failure_is_recorded() {
	before=$(cat $AREA/stats)
	want=$(($(cat $AREA/count) + 1))
	trace_start
	if echo $want >$AREA/alloc 2>/dev/null; then
		t_fail "allocating $want pages from a $(cat $AREA/count)-page area succeeded"
		return 1
	fi
	traced=$(trace_stop)
	rec=$(newest_failure)
	echo "# $rec"
	t_eq "stage" no-space "$(field stage "$rec")" || return 1
	t_eq "err" -12 "$(field err "$rec")" || return 1
	t_eq "count" $want "$(field count "$rec")" || return 1
	t_eq "pfn" none "$(field pfn "$rec")" || return 1
	expect_stats_moved "requests=1 failures=1 successes=0 retries=0 failed_no_space=1 failed_migrate=0" || return 1
	echo "$traced" | grep -q "stage=no-space" || t_fail "no cma_alloc_fail event with stage=no-space: $traced"
}

test_full_area_fails_with_no_space() {
	free=$(cat $AREA/maxchunk)
	echo $free >$AREA/alloc || t_fail "allocating the free $free pages failed" || return 1
	before=$(cat $AREA/stats)
	if echo 1 >$AREA/alloc 2>/dev/null; then
		t_fail "allocated a page from a full area"
		return 1
	fi
	rec=$(newest_failure)
	echo "# $rec"
	echo $free >$AREA/free
	t_eq "stage" no-space "$(field stage "$rec")" || return 1
	t_eq "count" 1 "$(field count "$rec")" || return 1
	expect_stats_moved "requests=1 failures=1 failed_no_space=1 retries=0"
}

test_pinned_pages_fail_migration_at_their_pfn() {
	echo 3 >$AREA/inject/pin || t_fail "inject/pin refused 3" || return 1
	t_eq "TAINT_USER after inject/pin" 1 "$(user_taint)" || return 1
	cat $AREA/inject/list >/tmp/inject-list.txt
	pinned=$(sed -n 's/^type=pin pfn=\(0x[0-9a-f]*\) pages=1$/\1/p' /tmp/inject-list.txt)
	t_eq "pinned pages listed" 3 "$(echo "$pinned" | grep -c .)" || return 1
	t_eq "inject/list (3 pins, then records=3)" "type=pin type=pin type=pin records=3" \
		"$(sed 's/ .*//' /tmp/inject-list.txt | tr '\n' ' ' | sed 's/ $//')" || return 1
	before=$(cat $AREA/stats)
	trace_start
	if alloc_all; then
		t_fail "allocation over pinned pages succeeded"
		return 1
	fi
	traced=$(trace_stop)
	rec=$(newest_failure)
	echo "# $rec"
	pfn=$(field pfn "$rec")
	t_eq "stage" migrate "$(field stage "$rec")" || return 1
	t_eq "err" -16 "$(field err "$rec")" || return 1
	# what blocks CMA on real boards: a page-cache folio on the LRU with a
	# reference migration does not expect (kernel-patches 0006)
	t_eq "kind" file "$(field kind "$rec")" || return 1
	t_eq "mapcount" 0 "$(field mapcount "$rec")" || return 1
	# the pageblock's type before the allocation isolated it: a CMA area's
	t_eq "migratetype" CMA "$(field migratetype "$rec")" || return 1
	# the whole record, in order; the owner= key is gone
	echo "$rec" | grep -Eqx "time_ns=[0-9]+ attempt=[0-9]+ start_pfn=0x[0-9a-f]+ count=[0-9]+ align=[0-9]+ err=-16 stage=migrate pfn=$pfn flags=0x[0-9a-f]+ refcount=[0-9]+ mapcount=0 migratetype=CMA kind=file" ||
		t_fail "the record's keys are not as documented: $rec" || return 1
	[ "$(field refcount "$rec")" -ge 2 ] || t_fail "refcount $(field refcount "$rec"): the page cache's and the pin's" || return 1
	echo "$pinned" | grep -qx "$pfn" || t_fail "blamed pfn $pfn is not one of the pinned: $pinned" || return 1
	echo "$traced" | grep -q "stage=migrate pfn=$pfn " || t_fail "event does not carry pfn $pfn: $traced" || return 1
	# the print format names the enums and the page flags (uptodate ...)
	echo "$traced" | grep -q "stage=migrate pfn=$pfn flags=[a-z][a-z_0-9|]* .* migratetype=CMA kind=file" ||
		t_fail "event does not name the flags, migratetype and kind: $traced" || return 1
	expect_stats_moved "requests=1 failures=1 successes=0 failed_migrate=1 failed_isolate=0" || return 1

	echo 1 >$AREA/inject/release || t_fail "release refused" || return 1
	t_eq "inject/list after release" records=0 "$(cat $AREA/inject/list)" || return 1
	got=$(cat $AREA/maxchunk)
	alloc_all || t_fail "allocation after release failed" || return 1
	echo $got >$AREA/free
	expect_stats_moved "requests=2 successes=1 failures=1"
}

test_isolated_pageblock_fails_isolation_at_its_pfn() {
	echo 1 >$AREA/inject/isolate || t_fail "inject/isolate refused 1" || return 1
	cat $AREA/inject/list >/tmp/inject-list.txt
	block=$(sed -n 's/^type=isolate pfn=\(0x[0-9a-f]*\) pages=[1-9][0-9]*$/\1/p' /tmp/inject-list.txt)
	[ -n "$block" ] || t_fail "no isolated pageblock listed: $(cat /tmp/inject-list.txt)" || return 1
	t_eq "inject/list trailer" records=1 "$(tail -n 1 /tmp/inject-list.txt)" || return 1
	before=$(cat $AREA/stats)
	if alloc_all; then
		t_fail "allocation over an isolated pageblock succeeded"
		return 1
	fi
	rec=$(newest_failure)
	echo "# $rec"
	t_eq "stage" isolate "$(field stage "$rec")" || return 1
	t_eq "pfn" "$block" "$(field pfn "$rec")" || return 1
	expect_stats_moved "requests=1 failures=1 failed_isolate=1" || return 1
	echo 1 >$AREA/inject/release || t_fail "release refused" || return 1
	got=$(cat $AREA/maxchunk)
	alloc_all || t_fail "allocation after release failed" || return 1
	echo $got >$AREA/free
}

test_bad_input_is_rejected() {
	count=$(cat $AREA/count)
	for v in 0 -1 abc 1x 4294967296 99999999999999999999 $((count + 1)) ""; do
		for knob in pin isolate; do
			if echo "$v" >$AREA/inject/$knob 2>/dev/null; then
				t_fail "inject/$knob accepted '$v'"
				return 1
			fi
		done
	done
	for v in 0 2 -1 abc ""; do
		if echo "$v" >$AREA/inject/release 2>/dev/null; then
			t_fail "inject/release accepted '$v'"
			return 1
		fi
	done
	for f in stats failures inject/list; do
		if echo 1 >$AREA/$f 2>/dev/null; then
			t_fail "write to read-only $f succeeded"
			return 1
		fi
	done
	t_eq "nothing leaked" records=0 "$(cat $AREA/inject/list)"
}

test_cmadebug_agrees_with_failures_and_stats() {
	newest=$(newest_failure)
	out=$(cmadebug --pretty failures reserved) || t_fail "cmadebug failures exit $?" || return 1
	last_time=$(echo "$out" | awk '$1 == "\"time_ns\":" { gsub(/,/, "", $2); t = $2 } END { print t }')
	t_eq "newest time_ns" "$(field time_ns "$newest")" "$last_time" || return 1
	kept=$(echo "$out" | awk '$1 == "\"kept\":" { gsub(/,/, "", $2); print $2 }')
	t_eq "records kept" "$(field records "$(tail -n 1 $AREA/failures)")" "$kept" || return 1
	t_eq "failures --since newest" 0 "$(cmadebug --pretty failures --since "$last_time" reserved | awk '$1 == "\"nr_shown\":" { gsub(/,/, "", $2); print $2 }')" || return 1
	stats=$(cmadebug --pretty stats reserved) || t_fail "cmadebug stats exit $?" || return 1
	for k in requests successes failures retries failed_migrate failed_isolate failed_no_space; do
		t_eq "stats $k" "$(stat_of $k)" "$(echo "$stats" | awk -v k="\"$k\":" '$1 == k { gsub(/,/, "", $2); print $2 }')" || return 1
	done
}

test_cmadebug_snapshot_of_the_live_kernel() {
	cmadebug snapshot -o /tmp/snap.json 2>/tmp/snap.err || t_fail "snapshot exit $?: $(cat /tmp/snap.err)" || return 1
	grep -q '"schema": "cmadebug-snapshot"' /tmp/snap.json || t_fail "no schema in the snapshot" || return 1
	grep -q '"source": "live"' /tmp/snap.json || t_fail "source is not live" || return 1
	grep -q '"missing": \[\]' /tmp/snap.json || t_fail "the patched kernel lacks: $(grep -A3 '"missing"' /tmp/snap.json)" || return 1
	t_eq "stderr" "" "$(cat /tmp/snap.err)" || return 1
	t_eq "temporary files left" 0 "$(ls -a /tmp | grep -c cmadebug-snapshot)" || return 1
	# The initramfs root (rootfs) and /tmp (tmpfs): where O_TMPFILE works
	# and, on a ramfs root, the named-file fallback; both leave nothing.
	echo "# root file system: $(stat -f -c %T /), /tmp: $(stat -f -c %T /tmp)"
	for dir in / /tmp; do
		(umask 027 && cmadebug snapshot -o $dir/snap-mode.json) 2>/tmp/snap.err ||
			t_fail "snapshot into $dir exit $?: $(cat /tmp/snap.err)" || return 1
		t_eq "mode of a snapshot in $dir under umask 027" 640 "$(stat -c %a $dir/snap-mode.json)" || return 1
		t_eq "temporary files left in $dir" 0 "$(ls -a $dir | grep -c cmadebug-snapshot)" || return 1
		rm -f $dir/snap-mode.json
	done
	t_eq "snapshot -o - is the document" cmadebug-snapshot \
		"$(cmadebug snapshot -o - | awk -F'"' '$2 == "schema" { print $4 }')"
}

CMA_FAILURE_TESTS="
	test_failure_files_are_root_only
	test_stats_are_name_value
	test_nospace_failure_is_recorded
	test_full_area_fails_with_no_space
	test_pinned_pages_fail_migration_at_their_pfn
	test_isolated_pageblock_fails_isolation_at_its_pfn
	test_bad_input_is_rejected
	test_failures_end_with_count_line
	test_cmadebug_agrees_with_failures_and_stats
	test_cmadebug_snapshot_of_the_live_kernel"
