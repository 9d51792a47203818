# Guest tests for the TLB A/B (perf-scripts/tlb-ab.sh, cmadebug tlb), in the
# boots that form the A/B pair: arm main (the walked range in 1 MiB
# sections) and forced-split (linear_map_split=16M@0x60000000: pages);
# arm64 tlb-icount (rodata=on: blocks; the paired range 0x4a000000 split)
# and tlb-icount-split (linear_map_split=16M@0x48000000), both under QEMU
# -icount shift=0.
# Sourced by run-tests.sh after linear-map.sh (WALK_START, LM_ARCH,
# layout_kb).  tlb_export prints the results for the host side
# (tests/qemu/tlb-ab-host.sh), which compares the two boots.

TLB_OUT=/tmp/tlb-results
# The A/B's variant is whether the walked range itself is split (arm64's
# tlb-icount splits the paired range beside it instead).
case " $(cat /proc/cmdline) " in
*" linear_map_split=16M@$WALK_START "*) TLB_VARIANT=split TLB_MAPPING=4k ;;
*) TLB_VARIANT=nosplit TLB_MAPPING=block ;;
esac

# The walked range as the page tables map it: 16 MiB of pages when split,
# sections/blocks otherwise, and linear_map/layout counts those pages.
test_tlb_walked_range_mapping() {
	out=$(tlb-ab.sh mapping --start $WALK_START --pages 4096) || t_fail "tlb-ab.sh mapping failed" || return 1
	echo "# $out"
	t_eq "mapping of the walked range ($TLB_VARIANT boot)" $TLB_MAPPING "${out%% *}" || return 1
	sed 's/^/# /' $LM/layout
	k4=$(layout_kb DirectMap4k) k64=$(layout_kb DirectMap64k)
	pages_kb=$((${k4:-0} + ${k64:-0}))
	if [ $TLB_VARIANT = split ]; then
		[ "$pages_kb" -ge 16384 ] || t_fail "layout has $pages_kb kB in pages, less than the walked 16 MiB"
	fi
}

# tlb-ab.sh end to end with no perf binary: it falls back to cmadebug tlb,
# writes the A/B layout, and refuses a boot that is not mapped as expected.
test_tlb_runner_end_to_end() {
	PERF=none tlb-ab.sh run $TLB_VARIANT -o $TLB_OUT --start $WALK_START --sweep "64 1024 4096" \
		--accesses 20000 --runs 3 --expect $TLB_MAPPING --workload tmpfs-read --tmpfs-mib 4 \
		2>/tmp/tlb-ab.err || t_fail "exit $?: $(cat /tmp/tlb-ab.err)" || return 1
	sed 's/^/# /' /tmp/tlb-ab.err
	d=$TLB_OUT/walk/$TLB_VARIANT/boot-1
	t_eq "walk runs" 9 "$(ls $d/run-*.csv | wc -l)" || return 1
	t_eq "walker reports" 9 "$(ls $d/run-*.walker.json | wc -l)" || return 1
	t_eq "tmpfs-read runs" 3 "$(ls $TLB_OUT/tmpfs-read/$TLB_VARIANT/boot-1/run-*.csv | wc -l)" || return 1
	grep -q "\"walk_mapping\": \"$TLB_MAPPING\"" $d/meta.json || t_fail "meta.json: $(grep walk_mapping $d/meta.json)" || return 1
	grep -q '"working_set_bytes": 16777216' $d/run-9.walker.json || t_fail "run-9.walker.json: $(cat $d/run-9.walker.json)" || return 1
	other=block
	[ $TLB_MAPPING = block ] && other=4k
	if PERF=none tlb-ab.sh run wrong -o /tmp/tlb-wrong --start $WALK_START --runs 1 --expect $other 2>/tmp/tlb-ab.err; then
		t_fail "a boot not mapped as --expect says was measured"
		return 1
	fi
	t_eq "exit code of a wrong --expect" 3 "$(PERF=none tlb-ab.sh run wrong -o /tmp/tlb-wrong --start $WALK_START --runs 1 --expect $other 2>/dev/null; echo $?)" || return 1
	tlb_measurements
}

# The walk's figures as measurements for LAVA (tests/qemu/lava-suite.sh
# turns "# measurement NAME VALUE UNITS" into a test case with
# --measurement/--units): per working set, the median over the runs of the
# instructions counted (only where the PMU counted them: arm has none) and
# of the walker's ns per access.
# instructions_event RESULTS: the instructions event as the PMU names it
# (armv8_pmuv3/inst_retired/k), from tlb-ab.sh's manifest.
instructions_event() {
	e=$(sed -n 's/.*"instructions_event": "\([^"]*\)".*/\1/p' $1/walk/manifest.json)
	echo "${e:-instructions:k}"
}

tlb_measurements() {
	d=$TLB_OUT/walk/$TLB_VARIANT/boot-1
	ins_event=$(instructions_event $TLB_OUT)
	for w in $d/run-*.walker.json; do
		csv=${w%.walker.json}.csv
		bytes=$(sed -n 's/^ *"working_set_bytes": \([0-9]*\),*$/\1/p' $w)
		ns=$(sed -n 's/^ *"elapsed_ns": \([0-9]*\),*$/\1/p' $w)
		acc=$(sed -n 's/^ *"accesses": \([0-9]*\),*$/\1/p' $w)
		ins=$(grep -F ",,$ins_event," $csv | sed -n 's/^\([0-9][0-9]*\),.*/\1/p')
		echo "$bytes $ns $acc ${ins:--}"
	done | sort -n | awk -v v=$TLB_VARIANT '
		function median(list, n,   a, k) {
			n = split(list, a, " ")
			# n is small (the runs of one size): insertion sort
			for (i = 2; i <= n; i++) for (k = i; k > 1 && a[k - 1] + 0 > a[k] + 0; k--) {
				t = a[k]; a[k] = a[k - 1]; a[k - 1] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		$1 != "" && $3 > 0 { sizes[$1] = 1; nsa[$1] = nsa[$1] " " $2 / $3
			if ($4 != "-") ins[$1] = ins[$1] " " $4 }
		END { for (b in sizes) {
			printf "# measurement tlb_walk_%s_%dB_ns_per_access %.3f ns\n", v, b, median(nsa[b])
			if (b in ins) printf "# measurement tlb_walk_%s_%dB_instructions %d instructions\n", v, b, median(ins[b])
		} }' | sort
}

# What the emulated PMU counts: arm (cortex-a15) has no PMU, so every event
# is "not supported"; arm64's lists no TLB event and instructions
# (inst_retired) only under -icount.  cmadebug tlb events picks from that
# list: no TLB event, the walk metric "not supported", and the manifest and
# every run say so.
test_tlb_events_not_supported() {
	d=$TLB_OUT/walk/$TLB_VARIANT/boot-1
	sed 's/^/# /' $d/run-1.csv $TLB_OUT/walk/manifest.json
	grep -q '"walk_metric": "not supported", "walk_events": \[\]' $TLB_OUT/walk/manifest.json ||
		t_fail "manifest: $(cat $TLB_OUT/walk/manifest.json)" || return 1
	for f in $d/run-*.csv $TLB_OUT/tmpfs-read/$TLB_VARIANT/boot-1/run-*.csv; do
		bad=$(grep -E 'tlb_refill|tlb_walk' $f | head -n 1)
		[ -z "$bad" ] || t_fail "$f: '$bad': a TLB event the PMU does not list was counted" || return 1
		if [ $LM_ARCH = arm ]; then
			bad=$(grep -v '^#' $f | grep . | grep -v '^<not supported>,' | head -n 1)
			[ -z "$bad" ] || t_fail "$f: '$bad' should be not supported" || return 1
		fi
	done
	if [ $LM_ARCH = arm64 ]; then
		grep -Eq '^[1-9][0-9]*,,armv8_pmuv3/inst_retired/k,' $d/run-1.csv ||
			t_fail "no instruction count under -icount" || return 1
	fi
	# and cmadebug's own choice says so
	out=$(cmadebug tlb events) || t_fail "cmadebug tlb events exit $?" || return 1
	echo "$out" | sed 's/^/# /'
	echo "$out" | grep -qx 'Walk metric: not supported' || t_fail "cmadebug tlb events chose a TLB event" || return 1
	# a TLB event named explicitly that the PMU does not list: refused up front
	t_eq "exit code of --events dtlb_walk" 2 \
		"$(cmadebug tlb walk --start $WALK_START --pages 16 --accesses 10 --events dtlb_walk >/dev/null 2>&1; echo $?)"
}

# The results, for the host to compare the two boots (tlb-ab-host.sh).
tlb_export() {
	[ -d $TLB_OUT ] || return 0
	echo "=== CMADEBUG TLB RESULTS BEGIN ==="
	tar -C $TLB_OUT -cf - . | gzip -9 | base64
	echo "=== CMADEBUG TLB RESULTS END ==="
}

TLB_TESTS="
	test_tlb_walked_range_mapping
	test_tlb_runner_end_to_end
	test_tlb_events_not_supported"

# The within-boot design (tlb-ab.sh paired) in arm64's two -icount boots:
# the walked range and the 16 MiB beside it, one split in each boot (a
# crossover: tlb-icount splits 0x4a000000, tlb-icount-split 0x48000000),
# walked interleaved ABBA.  Under -icount the instructions of the two
# ranges' walks agree within 0.5 % (the code path does not depend on the
# mapping); the host (tlb_ab_host.py) pairs the two boots.
TLB_PAIRED_RANGES=0x48000000,0x4a000000
test_tlb_paired_within_boot() {
	out=$TLB_OUT/paired
	tlb-ab.sh paired --ranges $TLB_PAIRED_RANGES -o $out --pages 4096 --accesses 20000 \
		--blocks 2 2>/tmp/tlb-paired.err || t_fail "exit $?: $(cat /tmp/tlb-paired.err)" || return 1
	sed 's/^/# /' /tmp/tlb-paired.err
	for v in nosplit split; do
		d=$out/walk/$v/boot-1
		t_eq "$v runs (2 ABBA blocks)" 4 "$(ls $d/run-*.csv | wc -l)" || return 1
		grep -q '"design": "within"' $d/meta.json || t_fail "$v meta.json: not the within-boot design" || return 1
		grep -q '"warmup_runs": 1' $d/meta.json || t_fail "$v meta.json: no warm-up recorded" || return 1
	done
	t_eq "boot_id of both ranges" "$(sed -n 's/.*"boot_id": "\(.*\)".*/\1/p' $out/walk/nosplit/boot-1/meta.json)" \
		"$(sed -n 's/.*"boot_id": "\(.*\)".*/\1/p' $out/walk/split/boot-1/meta.json)" || return 1
	ins_event=$(instructions_event $out)
	# one working-set size (the count depends on it); the fewest: the run the fewest timer interrupts hit
	a=$(cat $out/walk/nosplit/boot-1/run-*.csv | grep -F ",,$ins_event," | cut -d, -f1 | sort -n | sed -n 1p)
	b=$(cat $out/walk/split/boot-1/run-*.csv | grep -F ",,$ins_event," | cut -d, -f1 | sort -n | sed -n 1p)
	echo "# $ins_event, fewest of 4 runs: nosplit $a, split $b"
	is_count "$a" && is_count "$b" || t_fail "instructions '$a', '$b'" || return 1
	d=$((a > b ? a - b : b - a))
	[ $((d * 1000)) -le $((a * 5)) ] || t_fail "$a and $b differ by more than 0.5 %"
}

# Debian's perf (the arm64 initramfs): tlb-ab.sh counts a workload with
# 'perf stat' on the events cmadebug chose, named as the PMU lists them
# (a name it lacks is refused by perf: perf-record.sh), and says it counts
# the whole command; the walk, which counts itself, stays with the walker.
test_tlb_runner_real_perf() {
	out=/tmp/tlb-perf
	rm -rf $out
	tlb-ab.sh run $TLB_VARIANT -o $out --start $WALK_START --pages 1024 --accesses 20000 --runs 2 \
		--expect $TLB_MAPPING --workload tmpfs-read --tmpfs-mib 4 2>/tmp/tlb-perf.err ||
		t_fail "exit $?: $(cat /tmp/tlb-perf.err)" || return 1
	sed 's/^/# /' /tmp/tlb-perf.err
	d=$out/tmpfs-read/$TLB_VARIANT/boot-1
	grep -q '"tool": "perf stat: the whole command' $d/meta.json || t_fail "tmpfs-read meta.json: $(grep '"tool"' $d/meta.json)" || return 1
	grep -q '"tool": "cmadebug: the walker.s own counters' $out/walk/$TLB_VARIANT/boot-1/meta.json ||
		t_fail "walk meta.json: $(grep '"tool"' $out/walk/$TLB_VARIANT/boot-1/meta.json)" || return 1
	ins_event=$(instructions_event $out)
	t_eq "tmpfs-read runs under perf stat" 2 "$(ls $d/run-*.csv | wc -l)" || return 1
	for r in $d/run-*.csv; do
		head -1 $r | grep -q '^# started on' || t_fail "$r is not perf stat's output: $(head -1 $r)" || return 1
		sed "s|^|# $(basename $r): |" $r
		v=$(grep -F ",,$ins_event," $r | cut -d, -f1)
		is_count "$v" || t_fail "perf stat counted '$v' $ins_event" || return 1
	done
}

# Another system-wide perf holding every general counter (a second user,
# the NMI watchdog): the run's group gets no counter, or one part of the
# time; real perf stat says so in its CSV, and tlb-ab.sh rejects the run
# (exit 3) instead of scaling it.  The hog is a flexible group of six raw
# events, none 0x11 (that one takes the cycle counter): QEMU's a57 has six.
test_tlb_runner_rejects_runs_perf_could_not_count() {
	out=/tmp/tlb-mux
	rm -rf $out
	# system-wide with no command: perf counts until SIGINT.  (With
	# '-- sleep 120' perf waits for its child after SIGINT: every boot
	# of this suite spent two minutes here.)
	perf stat -a -x, -e '{r10,r12,r13,r14,r15,r16}' -o /tmp/tlb-mux-hog.csv 2>/tmp/tlb-mux-hog.err &
	hog=$!
	sleep 1
	tlb-ab.sh run $TLB_VARIANT -o $out --start $WALK_START --pages 64 --accesses 2000 --runs 1 \
		--expect $TLB_MAPPING --workload tmpfs-read --tmpfs-mib 4 2>/tmp/tlb-mux.err
	rc=$?
	kill -INT $hog
	i=0
	while kill -0 $hog 2>/dev/null && [ $i -lt 10 ]; do sleep 1; i=$((i + 1)); done
	kill -0 $hog 2>/dev/null && kill -KILL $hog
	wait $hog
	sed 's/^/# /' /tmp/tlb-mux.err
	[ $i -lt 10 ] || t_fail "the hog perf stat ran on 10 s after SIGINT" || return 1
	sed -n 's/^\([0-9]\)/# hog: \1/p' /tmp/tlb-mux-hog.csv
	t_eq "hog's events counted (it held the counters)" 6 "$(grep -c '^[0-9][0-9]*,,r1[0-6],' /tmp/tlb-mux-hog.csv)" || return 1
	t_eq "tlb-ab.sh exit with every counter held" 3 $rc || return 1
	grep -q "rejected, multiplexed: .*inst_retired/k \(was not counted\|had a counter\)" /tmp/tlb-mux.err ||
		t_fail "no multiplexed rejection of tmpfs-read's run" || return 1
	r=$out/tmpfs-read/$TLB_VARIANT/boot-1/run-1.rejected.csv
	[ -f $r ] || t_fail "no $r" || return 1
	sed "s|^|# run-1.rejected.csv: |" $r
	! ls $out/tmpfs-read/$TLB_VARIANT/boot-1/run-*.csv 2>/dev/null | grep -v rejected ||
		t_fail "a run perf could not count was kept"
}

# ---- the walker's own counters (kernel-patches/0019) ----------------------
# The walk brackets its loop with kernel perf counters and reports them
# (linear_map_debugfs.rst): what QEMU's PMUs honestly give.  arm: no PMU,
# so every counter is "unsupported".  arm64 under -icount: instructions
# exact (one per virtual ns), cycles from the virtual clock, and the TLB
# events, which the PMU does not implement (nor list in events/), taken by
# the driver and counting nothing: 0.  Helpers from linear-map.sh.
TLB_WALK_ACCESSES=200000
tlb_walk() { # EXTRA: a walk of the A/B's range; its report on stdout
	echo "start=$WALK_START pages=4096 accesses=$TLB_WALK_ACCESSES seed=5${1:+ $1}" >$WALK ||
		t_fail "walk '$1' failed" || return 1
	cat $WALK
}

test_tlb_walk_counts_itself() {
	out=$(tlb_walk events=0x34,0x35,0x5) || return 1
	echo "# $out"
	case $out in
	*" checksum="*" instructions="*" cycles="*" raw_0x34="*" raw_0x35="*" raw_0x5="*) ;;
	*) t_fail "counter keys missing or out of order" || return 1 ;;
	esac
	pmu=$(cpu_pmu)
	if [ $LM_ARCH = arm ]; then
		[ -z "$pmu" ] || t_fail "the arm guest has a PMU now: $pmu" || return 1
		for k in instructions cycles raw_0x34 raw_0x35 raw_0x5; do
			t_eq "$k (no PMU)" unsupported "$(walk_value $k)" || return 1
		done
		return 0
	fi
	echo "# $pmu/events: $(ls $pmu/events | tr '\n' ' ')"
	[ -e $pmu/events/inst_retired ] || t_fail "no inst_retired: not under -icount?" || return 1
	ins=$(walk_value instructions) cyc=$(walk_value cycles)
	is_count "$ins" || t_fail "instructions=$ins" || return 1
	is_count "$cyc" || t_fail "cycles=$cyc" || return 1
	# the loop is some tens of instructions per access
	[ "$ins" -gt $TLB_WALK_ACCESSES ] || t_fail "$ins instructions for $TLB_WALK_ACCESSES accesses" || return 1
	[ "$cyc" -gt 0 ] || t_fail "cycles=0" || return 1
	for e in l1d_tlb_refill:0x5 dtlb_walk:0x34 itlb_walk:0x35; do
		[ ! -e $pmu/events/${e%:*} ] || t_fail "the PMU lists ${e%:*}: QEMU counts it now?" || return 1
		t_eq "raw_${e#*:} (${e%:*}: not implemented, counts nothing)" 0 "$(walk_value raw_${e#*:})" || return 1
	done
}

# Under -icount the instruction count is exact, but the counter is the
# task's: a timer interrupt taken during the walk counts too (~13500
# instructions).  Interrupts only add, so the fewest of five identical
# short walks (the same pages, accesses, seed: the same loop; ~0.2 ms of
# virtual time, so a tick lands in one of them ~5 % of the time, in all
# five ~4e-7; three 2 ms walks were all hit in a LAVA run) is the loop
# itself, and two such floors agree within 0.5 %.
fewest_walk_instructions() {
	n=
	for i in 1 2 3 4 5; do
		v=$(TLB_WALK_ACCESSES=$TLB_REPEAT_ACCESSES; tlb_walk | sed -n 's/.* instructions=\([^ ]*\).*/\1/p') || return 1
		is_count "$v" || t_fail "instructions '$v'" || return 1
		[ -n "$n" ] && [ "$n" -le "$v" ] || n=$v
	done
	echo "$n"
}

TLB_REPEAT_ACCESSES=2000
test_tlb_walk_instructions_repeat() {
	a=$(fewest_walk_instructions) || return 1
	b=$(fewest_walk_instructions) || return 1
	echo "# instructions, fewest of 5 walks: $a and $b"
	d=$((a > b ? a - b : b - a))
	[ $((d * 1000)) -le $((a * 5)) ] || t_fail "$a and $b differ by more than 0.5 %"
}

# instructions and 6 raw events need 7 event counters; QEMU's cortex-a57
# has 6 (and the cycle counter): perf multiplexes them, and a counter that
# did not count the whole walk must say so rather than give a number.
test_tlb_walk_more_events_than_counters() {
	out=$(tlb_walk events=0x34,0x35,0x5,0x8,0x10,0x12) || return 1
	echo "# $out"
	short=0
	for k in instructions cycles raw_0x34 raw_0x35 raw_0x5 raw_0x8 raw_0x10 raw_0x12; do
		v=$(walk_value $k)
		case $v in
		multiplexed | not-counted) short=$((short + 1)) ;;
		*) is_count "$v" || t_fail "$k=$v" || return 1 ;;
		esac
	done
	[ $short -gt 0 ] || t_fail "7 event counters' worth all counted the whole walk"
}

# A bad events= is -EINVAL (nothing walked, the last report kept).
test_tlb_walk_bad_events_einval() {
	before=$(cat $WALK)
	for e in "events=" "events=0x34," "events=,0x34" "events=0x34,,0x35" "events=0x10000" \
		"events=-1" "events=0x34,0x34" "events=1,2,3,4,5,6,7" "events=zz" "events=0x34x" \
		"events=0x34 events=0x35" "events"; do
		if echo "start=$WALK_START pages=16 accesses=10 $e" >$WALK 2>/tmp/walk.err; then
			t_fail "walk accepted '$e'"
			return 1
		fi
		grep -q 'Invalid argument' /tmp/walk.err || t_fail "'$e': $(cat /tmp/walk.err), not EINVAL" || return 1
	done
	t_eq "last walk after bad events= only" "$before" "$(cat $WALK)"
}

TLB_TESTS="$TLB_TESTS
	test_tlb_walk_counts_itself
	test_tlb_walk_bad_events_einval"
if [ $LM_ARCH = arm64 ]; then
	TLB_TESTS="$TLB_TESTS
	test_tlb_runner_real_perf
	test_tlb_runner_rejects_runs_perf_could_not_count
	test_tlb_walk_instructions_repeat
	test_tlb_walk_more_events_than_counters"
fi
