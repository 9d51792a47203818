# Guest test for Debian's perf over the series' cma events (sourced by
# run-tests.sh; the arm64 main suite: scripts/initramfs.sh puts perf and
# its libraries in the arm64 initramfs).  perf record counts what a known
# sequence of allocations made the kernel emit; perf_export prints the
# perf.data and what was done, for the host to run
# 'perf script -s perf-scripts/cmadebug-events.py' over it
# (tests/qemu/perf_record_host.py).  Uses cma-failures.sh's AREA.

PERF_OUT=/tmp/perf-record
PERF_EVENTS="cma:cma_alloc_start cma:cma_alloc_finish cma:cma_release cma:cma_alloc_fail"

# perf_script_count EVENT: records of EVENT in perf's own text dump
perf_script_count() {
	grep -c " $1: " $PERF_OUT/script.txt
}

# Three 8-page allocations, one that fails (three pages pinned in the way
# of the largest free run: stage migrate), the three freed: 4 starts, 4
# finishes (one with an error), at least one cma_alloc_fail, 3 releases of
# 24 pages.
test_perf_record_cma_events() {
	rm -rf $PERF_OUT
	mkdir -p $PERF_OUT
	set --
	for e in $PERF_EVENTS; do set -- "$@" -e "$e"; done
	perf record -a -N --no-buildid "$@" -o $PERF_OUT/perf.data -- sh -c "
		for i in 1 2 3; do echo 8 >$AREA/alloc || exit 1; done
		echo 3 >$AREA/inject/pin || exit 1
		{ echo \$(cat $AREA/maxchunk) >$AREA/alloc; } 2>/dev/null && exit 1
		echo 1 >$AREA/inject/release && echo 24 >$AREA/free" 2>$PERF_OUT/record.err ||
		t_fail "perf record or its workload failed (exit $?): $(cat $PERF_OUT/record.err)" || return 1
	perf script -i $PERF_OUT/perf.data >$PERF_OUT/script.txt 2>$PERF_OUT/script.err ||
		t_fail "perf script failed: $(cat $PERF_OUT/script.err)" || return 1
	sed -n '1,12s/^/# /p' $PERF_OUT/script.txt
	t_eq "cma_alloc_start records" 4 "$(perf_script_count cma:cma_alloc_start)" || return 1
	t_eq "cma_alloc_finish records" 4 "$(perf_script_count cma:cma_alloc_finish)" || return 1
	t_eq "cma_release records" 3 "$(perf_script_count cma:cma_release)" || return 1
	fails=$(perf_script_count cma:cma_alloc_fail)
	[ "$fails" -ge 1 ] || t_fail "no cma_alloc_fail record for the pinned allocation" || return 1
	errno=$(sed -n 's/.* cma:cma_alloc_fail: .* errorno=\(-[0-9]*\) .*/\1/p' $PERF_OUT/script.txt | sort -u)
	t_eq "errorno of the failed attempts (perf's text)" -16 "$errno" || return 1
	# what the host's cmadebug-events.py must find in the same perf.data
	printf '{"area": "%s", "requests": 4, "finished_ok": 3, "finished_failed": 1, "pages_allocated": 24, "releases": 3, "pages_released": 24, "attempts_failed": %d, "stage": "migrate", "errno": %d}\n' \
		"$(basename $AREA)" "$fails" "$errno" >$PERF_OUT/expected.json
}

# A name the emulated PMU does not list is refused by perf itself.
test_perf_rejects_an_event_the_pmu_lacks() {
	pmu=/sys/bus/event_source/devices/armv8_pmuv3_0
	[ ! -e $pmu/events/dtlb_walk ] || t_fail "the PMU lists dtlb_walk: QEMU counts it now?" || return 1
	if perf stat -e dtlb_walk -- true >/dev/null 2>$PERF_OUT.err; then
		t_fail "perf stat accepted dtlb_walk"
		return 1
	fi
	echo "# $(head -1 $PERF_OUT.err)"
}

perf_export() {
	[ -s $PERF_OUT/expected.json ] || return 0
	echo "=== CMADEBUG PERF RECORD BEGIN ==="
	tar -C $PERF_OUT -cf - perf.data expected.json | gzip -9 | base64
	echo "=== CMADEBUG PERF RECORD END ==="
}

PERF_RECORD_TESTS="
	test_perf_record_cma_events
	test_perf_rejects_an_event_the_pmu_lacks"
