# Guest tests for 'cmadebug trace record' (sourced by run-tests.sh, which
# runs CMA_TRACE_TESTS in the main suite): a recording around an injected
# migrate-stage failure names the stage and the pinned pfn the kernel blamed;
# the user's own tracing is as it was; no tracefs instance is left behind,
# also after SIGINT.  Uses cma-failures.sh's AREA, TRACE and helpers.

# trace_state: what a user may have set up at the top level.
trace_state() {
	for f in tracing_on current_tracer set_event buffer_size_kb trace_clock \
		events/cma/cma_alloc_start/enable events/cma/cma_alloc_fail/enable; do
		echo "$f=$(cat $TRACE/$f | tr '\n' ' ')"
	done
}

# json_num KEY FILE: the first "KEY": number in FILE (one member a line).
json_num() {
	awk -v k="\"$1\":" '$1 == k { gsub(/,/, "", $2); print $2; exit }' "$2"
}

instances_left() {
	ls $TRACE/instances | grep -c '^cmadebug-'
}

test_trace_record_shows_injected_failure_with_its_pfn() {
	# The user's own tracing: one event on, in the top-level buffer.
	echo 0 >$TRACE/tracing_on
	echo >$TRACE/trace
	echo 1 >$TRACE/events/cma/cma_alloc_start/enable
	echo 1 >$TRACE/tracing_on
	state=$(trace_state)
	rm -f /tmp/trace.dat /tmp/pinned
	cmadebug --pretty trace record -o /tmp/trace.dat -- sh -c "
		echo 3 >$AREA/inject/pin &&
		sed -n 's/^type=pin pfn=\(0x[0-9a-f]*\) .*/\1/p' $AREA/inject/list >/tmp/pinned &&
		{ echo \$(cat $AREA/maxchunk) >$AREA/alloc; } 2>/dev/null
		echo 1 >$AREA/inject/release" >/tmp/trace.json 2>/tmp/trace.err
	rc=$?
	after=$(trace_state)
	echo 0 >$TRACE/tracing_on
	user_saw=$(grep -c 'cma_alloc_start:' $TRACE/trace)
	echo 0 >$TRACE/events/cma/cma_alloc_start/enable
	echo 1 >$TRACE/tracing_on
	t_eq "exit code" 0 $rc || { cat /tmp/trace.err; return 1; }
	t_eq "stderr" "" "$(cat /tmp/trace.err)" || return 1
	cmadebug trace record -d 1 >/dev/null 2>&1 # the text form runs too
	rec=$(newest_failure)
	echo "# kernel: $rec"
	t_eq "stage in the failures file" migrate "$(field stage "$rec")" || return 1
	pfn=$(field pfn "$rec")
	grep -qx "$pfn" /tmp/pinned || t_fail "blamed pfn $pfn is not one of the pinned: $(cat /tmp/pinned)" || return 1
	# The summary: one migrate failure, blamed on that pfn.
	stages=$(awk '/"by_stage"/,/\]/' /tmp/trace.json | tr -d ' \n')
	echo "# by_stage: $stages"
	case $stages in
	*'"stage":"migrate","count":1}'*) ;;
	*) t_fail "by_stage does not count one migrate failure: $stages" || return 1 ;;
	esac
	top=$(awk '/"top_pfns"/,/\]/' /tmp/trace.json | awk '$1 == "\"pfn\":" { gsub(/,/, "", $2); print $2; exit }')
	t_eq "top pfn" $((pfn)) "$top" || return 1
	t_eq "allocations" 1 "$(json_num requests /tmp/trace.json)" || return 1
	t_eq "failed" 1 "$(json_num failed /tmp/trace.json)" || return 1
	t_eq "lost events" 0 "$(json_num lost_events /tmp/trace.json)" || return 1
	[ -s /tmp/trace.dat ] || t_fail "-o wrote no /tmp/trace.dat" || return 1
	t_eq "trace.dat magic" "$(printf '\027\010Dtracing6')" "$(head -c 11 /tmp/trace.dat)" || return 1
	# The user's tracing: as it was, and it kept recording.
	t_eq "top-level tracing state" "$state" "$after" || return 1
	[ "$user_saw" -ge 1 ] || t_fail "the user's top-level cma_alloc_start saw nothing" || return 1
	t_eq "instances left" 0 "$(instances_left)"
}

test_trace_record_stops_on_sigint_and_removes_its_instance() {
	cmadebug trace record >/tmp/sigint.txt 2>/tmp/sigint.err &
	pid=$!
	inst=$TRACE/instances/cmadebug-$pid
	i=0 # recording has begun once the instance's events and tracing are on
	recording() {
		[ "$(cat $inst/events/cma/cma_alloc_fail/enable 2>/dev/null)" = 1 ] &&
			[ "$(cat $inst/tracing_on 2>/dev/null)" = 1 ]
	}
	while ! recording && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if ! recording; then
		kill -INT $pid
		wait $pid
		t_fail "instance cmadebug-$pid not recording within 10 s: $(cat /tmp/sigint.err)"
		return 1
	fi
	t_eq "top-level cma_alloc_fail untouched" 0 "$(cat $TRACE/events/cma/cma_alloc_fail/enable)" || { kill -INT $pid; wait $pid; return 1; }
	echo 1 >$AREA/alloc && echo 1 >$AREA/free # one allocation to summarize
	kill -INT $pid
	wait $pid
	rc=$?
	t_eq "exit code after SIGINT" 0 $rc || { cat /tmp/sigint.err; return 1; }
	sed 's/^/# /' /tmp/sigint.txt | head -n 12
	grep -qx 'Allocations: 1' /tmp/sigint.txt || t_fail "the summary after SIGINT does not count the one allocation" || return 1
	t_eq "instances left" 0 "$(instances_left)"
}

test_trace_record_refuses_without_command_or_with_both() {
	cmadebug trace record -d 1 -- true 2>/tmp/err
	t_eq "exit code for -d with a command" 1 $? || return 1
	t_eq "stderr lines" 1 "$(wc -l </tmp/err)" || return 1
	cmadebug trace report /tmp/trace.dat 2>/tmp/err
	t_eq "trace report in a static build" 2 $? || return 1
	t_eq "instances left" 0 "$(instances_left)"
}

# The command's failure is cmadebug's: its status (126/127 when it cannot
# run, 128 + signal when killed, as sh reports them), one stderr line, and
# the summary still printed.  Before, all three exited 0.
test_trace_record_exits_with_the_command_status() {
	cmadebug trace record -- sh -c 'exit 3' >/tmp/cmd.txt 2>/tmp/err
	t_eq "exit code when the command exits 3" 3 $? || return 1
	t_eq "stderr lines" 1 "$(wc -l </tmp/err)" || return 1
	grep -q 'sh exited with status 3' /tmp/err || t_fail "stderr: $(cat /tmp/err)" || return 1
	grep -qx 'Allocations: 0' /tmp/cmd.txt || t_fail "no summary after a failed command" || return 1
	cmadebug trace record -- /nonexistent/command >/dev/null 2>/tmp/err
	t_eq "exit code when the command cannot be run" 127 $? || return 1
	t_eq "stderr lines" 1 "$(wc -l </tmp/err)" || return 1
	grep -q 'cannot run /nonexistent/command' /tmp/err || t_fail "stderr: $(cat /tmp/err)" || return 1
	cmadebug trace record -- sh -c 'kill -USR1 $$' >/dev/null 2>/tmp/err
	t_eq "exit code when the command is killed by SIGUSR1" $((128 + 10)) $? || return 1
	t_eq "stderr lines" 1 "$(wc -l </tmp/err)" || return 1
	cmadebug trace record -- true >/dev/null 2>/tmp/err
	t_eq "exit code when the command succeeds" 0 $? || return 1
	t_eq "stderr lines" 0 "$(wc -l </tmp/err)" || return 1
	t_eq "instances left" 0 "$(instances_left)"
}

CMA_TRACE_TESTS="
	test_trace_record_shows_injected_failure_with_its_pfn
	test_trace_record_stops_on_sigint_and_removes_its_instance
	test_trace_record_refuses_without_command_or_with_both
	test_trace_record_exits_with_the_command_status"
