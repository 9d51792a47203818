#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TLB A/B runner for a real board (POSIX sh: runs under busybox too).
#
#   tlb-ab.sh run VARIANT --start PHYS [options]   measure this boot
#   tlb-ab.sh paired --ranges PHYS,PHYS [options]  both ranges, interleaved
#   tlb-ab.sh mapping --start PHYS --pages N       how the range is mapped now
#   tlb-ab.sh check RESULTS BLOCK_VARIANT SPLIT_VARIANT
#
# 'run' records this boot (kernel, cmdline, linear_map/layout, the walked
# range's mapping from kernel_page_tables) in RESULTS/<workload>/VARIANT/
# boot-N/meta.json and measures R runs of the linear_map_walk walker (and,
# with --workload, page-cache reads from tmpfs or hackbench) with kernel-only
# instructions, cycles and TLB events as one group of <= 6 counters:
# 'perf stat -x, -e {...:k}' when there is a perf binary, else
# 'cmadebug tlb'.  The events are those 'cmadebug tlb events' chooses from
# the CPU's PMU's sysfs list: its table walks, else its L2 TLB refills, else
# its L1 TLB refills, else none ("not supported").  A multiplexed run is set
# aside (run-M.rejected.csv) and the exit status is 3.  The layout is
# perf-scripts/README.md's; analyse it with reports/' abstats ('make
# tlb-report RESULTS=DIR').
#
# run options: -o RESULTS (default ./tlb-results), --start PHYS, --pages N
# (4096) or --sweep "N1 N2 ..." (working-set sizes in pages), --accesses M
# (1000000), --seed S, --runs R (5), --events LIST (names the PMU lists in
# sysfs, or instructions, cycles, rNNNN; without :k; at most 6), --pmu NAME
# and --cpu N (count on that PMU, on that CPU: default CPU 0 and its PMU;
# the runs are pinned there with taskset), --expect 4k|block, --workload
# tmpfs-read|hackbench (repeatable), --tmpfs-mib N (64).  A results
# directory counts one set of events: another is refused (exit 3).
#
# 'paired' is the within-boot design: two equal ranges, one forced to pages
# (linear_map_split=) and one left in sections/blocks, told apart by their
# mapping now.  After a discarded warm-up walk of each, --blocks K (16)
# blocks of four single runs in the order ABBA (A: the block-mapped range
# as variant nosplit, B: the split one as split), so a drift over the boot
# cancels; both variants' boot-N share this boot's boot_id, and abstats
# pairs them.  Swap the split range between boots (a crossover) and the
# two ranges' own differences cancel too.  It takes run's -o, --pages,
# --sweep, --accesses, --seed, --events, --pmu and --cpu.
#
# Every boot's meta.json records the design, the warm-up runs discarded,
# the counting CPU's cpufreq governor and frequency, and the thermal zones'
# temperatures when the boot's first run was taken.
#
# 'check' refuses (exit 3) to compare variants whose layouts do not differ
# as intended: the walked range must be block/section-mapped in every boot
# of BLOCK_VARIANT, 4k-mapped in every boot of SPLIT_VARIANT, over the same
# range, with the same kernel (two ranges when every boot ran 'paired').
#
# Exit status: 0 ok, 1 usage, 2 environment (no debugfs, no walker, not
# root, an event the PMU does not list), 3 a check failed, a run was
# multiplexed, or the results directory holds other events.
#
# Environment: TLB_AB_ROOT (read proc/ and sys/ under this directory; for
# tests), DEBUGFS (default /sys/kernel/debug), PERF (perf binary; PERF=none
# forces the cmadebug fallback), CMADEBUG (cmadebug binary: needed either
# way, it chooses the events).
set -u

ROOT=${TLB_AB_ROOT:-}
DEBUGFS=${DEBUGFS:-$ROOT/sys/kernel/debug}
PTDUMP=$DEBUGFS/kernel_page_tables
LM=$DEBUGFS/linear_map
WALK=$DEBUGFS/linear_map_walk
PAGE=4096

die() { # CODE MESSAGE
	echo "tlb-ab.sh: $2" >&2
	exit "$1"
}

usage() {
	sed -n '4,7p' "$0" | sed 's/^# //' >&2
	echo "see the comments at the top of $0 and perf-scripts/README.md" >&2
	exit 1
}

# ---- the walked range's mapping (kernel_page_tables) ----------------------

# The offset from a linear-map virtual address to its physical one: from a
# linear_map/splits record (addr= phys=) when there is one that shows its
# address (addr=0x0 where kptr_restrict hides it from this reader), else the
# first linear-map entry in ptdump is the first System RAM in /proc/iomem.
# Prints "VA_HEX_LOW48 PHYS_HEX" of one matching pair, or nothing.
va_phys_pair() {
	if [ -r "$LM/splits" ]; then
		pair=$(sed -n 's/.* addr=0x\([1-9a-f][0-9a-f]*\) phys=0x\([0-9a-f]*\) .*/\1 \2/p' "$LM/splits" | head -n 1)
		if [ -n "$pair" ]; then
			echo "$pair splits"
			return
		fi
	fi
	ram=${TLB_AB_RAM_START:-}
	if [ -z "$ram" ] && [ -r "$ROOT/proc/iomem" ]; then
		ram=$(sed -n 's/^\([0-9a-f]*\)-[0-9a-f]* : System RAM$/\1/p' "$ROOT/proc/iomem" | head -n 1)
	fi
	ram=${ram#0x}
	[ -n "$ram" ] && [ "$ram" != 00000000 ] || return 0
	first=$(awk '/^---\[ (Kernel Mapping|Linear Mapping start) \]---/ { getline; sub(/-.*/, ""); print; exit }' "$PTDUMP")
	[ -n "$first" ] && echo "${first#0x} $ram ptdump+iomem"
}

# mapping START PAGES: "CLASS detail" where CLASS is 4k (every byte mapped
# with pages), block (sections or blocks only), mixed, or unknown.
mapping() {
	[ -r "$PTDUMP" ] || {
		echo "unknown $PTDUMP not readable (CONFIG_PTDUMP_DEBUGFS, root)"
		return
	}
	pair=$(va_phys_pair)
	[ -n "$pair" ] || {
		echo "unknown no virtual/physical pair (linear_map/splits record or System RAM in /proc/iomem)"
		return
	}
	# shellcheck disable=SC2086
	set -- "$1" "$2" $pair
	awk -v start="$1" -v pages="$2" -v pva="$3" -v pphys="$4" -v how="$5" -v page=$PAGE '
	function hex(s,    i, c, v) {
		sub(/^0x/, "", s)
		if (length(s) > 12) s = substr(s, length(s) - 11)	# low 48 bits: exact in a double
		v = 0
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", tolower(substr(s, i, 1)))
			if (!c) return -1
			v = v * 16 + c - 1
		}
		return v
	}
	BEGIN {
		lo = hex(pva) + (start - hex(pphys)); hi = lo + pages * page
		arch = "?"
	}
	/^---\[ Kernel Mapping \]---/ { inlin = 1; arch = "arm"; next }
	/^---\[ Linear Mapping start \]---/ { inlin = 1; arch = "arm64"; next }
	/^---\[/ { inlin = 0; next }
	!inlin { next }
	{
		split($1, r, "-"); s = hex(r[1]); e = hex(r[2])
		if (e == 0 && s > 0) e = 281474976710656	# the end of the last 48-bit range
		if (e <= lo || s >= hi) next
		if (arch == "arm") cls = ($3 == "PTE") ? "4k" : "block"
		else if ($0 !~ /MEM\/|DEVICE\//) cls = "none"
		else cls = ($3 == "PTE") ? "4k" : "block"
		a = s > lo ? s : lo; b = e < hi ? e : hi
		bytes[cls] += b - a; level[cls] = level[cls] " " $3 ($0 ~ / CON / ? "+CON" : "")
		covered += b - a
	}
	END {
		want = hi - lo
		detail = sprintf("phys 0x%x +%d KiB, ptdump placed by %s", start, pages * page / 1024, how)
		if (covered != want || bytes["none"] > 0) {
			printf "unknown %s: only %d of %d bytes mapped in the linear map\n", detail, covered - bytes["none"], want
		} else if (bytes["4k"] == want) {
			printf "4k %s: all %d KiB in pages\n", detail, want / 1024
		} else if (bytes["block"] == want) {
			printf "block %s: all %d KiB in sections/blocks\n", detail, want / 1024
		} else {
			printf "mixed %s: %d KiB in pages, %d KiB in sections/blocks\n", detail, bytes["4k"] / 1024, bytes["block"] / 1024
		}
	}' "$PTDUMP"
}

# ---- meta.json --------------------------------------------------------------

# echo, without dash's backslash escapes (the JSON strings hold "\n").
say() {
	printf '%s\n' "$*"
}

# json_file_str FILE|-: the contents as one JSON string (newlines kept as \n).
json_file_str() {
	awk 'BEGIN { printf "\"" }
	{
		gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); gsub(/\t/, "\\t"); gsub(/\r/, "")
		printf "%s%s", (NR > 1 ? "\\n" : ""), $0
	}
	END { printf "\"" }' "$1"
}

json_str() {
	printf '%s\n' "$1" | json_file_str -
}

# The boot directory of this boot under VDIR: the boot-N whose meta.json
# has our boot_id, else a new N.
boot_dir() {
	vdir=$1 id=$2 n=0
	for d in "$vdir"/boot-*; do
		[ -d "$d" ] || continue
		k=${d##*/boot-}
		case $k in '' | *[!0-9]*) continue ;; esac
		if [ -n "$id" ] && grep -q "\"boot_id\": \"$id\"" "$d/meta.json" 2>/dev/null; then
			echo "$d"
			return
		fi
		[ "$k" -gt $n ] && n=$k
	done
	echo "$vdir/boot-$((n + 1))"
}

# workload_tool WORKLOAD: what counts it, and how much (meta.json "tool").
workload_tool() {
	if [ "$1" = walk ] && [ "$WALKER_COUNTS" = 1 ]; then
		echo "cmadebug: the walker's own counters, the walk's loop only"
	elif [ "$TOOL" = perf ]; then
		echo "perf stat: the whole command (sh -c, its start and exit too), not only the $1"
	else
		echo "cmadebug: perf_event_open around the whole command, not only the $1"
	fi
}

# cpufreq KEY: scaling_KEY of the counting CPU, or "none" (no cpufreq).
cpufreq() {
	cat "$ROOT/sys/devices/system/cpu/cpu$SEL_CPU/cpufreq/scaling_$1" 2>/dev/null || echo none
}

# thermal_zones: "TYPE=TEMP_mC ..." of every thermal zone, or "none".
thermal_zones() {
	out=""
	for z in "$ROOT"/sys/class/thermal/thermal_zone*; do
		[ -r "$z/temp" ] || continue
		out="$out $(cat "$z/type" 2>/dev/null || basename "$z")=$(cat "$z/temp" 2>/dev/null || echo unknown)"
	done
	echo "${out# }" | grep . || echo none
}

# kept_runs DIR...: whether any of DIR holds a kept run (run-M.csv).
kept_runs() {
	for d in "$@"; do
		for f in "$d"/run-*[0-9].csv; do
			[ -f "$f" ] && return 0
		done
	done
	return 1
}

# write_meta DIR WORKLOAD: meta.json, rewritten until a run is kept in DIR;
# after that it must name the events counted now.
write_meta() {
	dir=$1
	if [ -f "$dir/meta.json" ] && kept_runs "$dir"; then
		grep -qxF "  \"events\": $(json_str "$GROUP")," "$dir/meta.json" && return 0
		die 3 "$dir/meta.json: this boot's runs counted other events ($(meta_get "$dir/meta.json" events)) than $GROUP"
	fi
	kernel=$(cat "$ROOT/proc/version" 2>/dev/null || echo unknown)
	cmdline=$(cat "$ROOT/proc/cmdline" 2>/dev/null || echo unknown)
	machine="$(uname -m)"
	[ -r "$ROOT/sys/firmware/devicetree/base/model" ] &&
		machine="$machine $(tr -d '\0' <"$ROOT/sys/firmware/devicetree/base/model")"
	summary=$(awk '$1 ~ /^DirectMap/ && $2 > 0 { sub(/^DirectMap/, "", $1); sub(/:$/, "", $1); printf "%s%s:%skB", sep, $1, $2; sep = " " }' "$LM/layout" 2>/dev/null)
	class=${MAPPING%% *}
	{
		say "{"
		say "  \"machine\": $(json_str "$machine"),"
		say "  \"kernel\": $(json_str "$kernel"),"
		say "  \"cmdline\": $(json_str "$cmdline"),"
		say "  \"layout\": $(json_str "walked range 0x$(printf %x $START) +$((MAX_PAGES * PAGE / 1024)) KiB: $class; linear map ${summary:-unknown}"),"
		if [ -r "$LM/layout" ]; then
			say "  \"linear_map_layout\": $(json_file_str "$LM/layout"),"
		else
			say "  \"linear_map_layout\": null,"
		fi
		say "  \"walk_mapping\": \"$class\","
		say "  \"walk_mapping_detail\": $(json_str "${MAPPING#* }"),"
		say "  \"walk_start\": $START,"
		say "  \"walk_pages\": $MAX_PAGES,"
		say "  \"workload\": \"$2\","
		say "  \"events\": $(json_str "$GROUP"),"
		say "  \"walk_metric\": $(json_str "$WALK_METRIC"),"
		say "  \"walk_events\": $(json_str "$WALK_EVENTS"),"
		say "  \"pmu\": $(json_str "${SEL_PMU:-none}"),"
		say "  \"cpu\": $SEL_CPU,"
		say "  \"tool\": \"$(workload_tool "$2")\","
		say "  \"design\": \"${DESIGN:-across}\","
		say "  \"warmup_runs\": ${WARMUP_RUNS:-0},"
		say "  \"cpufreq_governor\": $(json_str "$(cpufreq governor)"),"
		say "  \"cpufreq_khz\": $(json_str "$(cpufreq cur_freq)"),"
		say "  \"thermal\": $(json_str "$(thermal_zones)"),"
		say "  \"boot_id\": \"$BOOT_ID\""
		say "}"
	} >"$dir/meta.json.tmp" && mv "$dir/meta.json.tmp" "$dir/meta.json"
}

# ---- the events: cmadebug's choice from the PMU's sysfs list -------------

# json_list "a,b": ["a", "b"] ([] for nothing).
json_list() {
	printf '['
	sep=""
	for e in $(echo "$1" | tr , ' '); do
		printf '%s%s' "$sep" "$(json_str "$e")"
		sep=", "
	done
	printf ']'
}

# choose_events: GROUP (perf's spelling, :k), the instructions event, the
# walk metric and its events, the PMU and CPU, as 'cmadebug tlb events'
# says; an event the PMU does not list ends here, before any run.
choose_events() {
	sel=$("$CMADEBUG" ${ROOT:+--root "$ROOT"} tlb events ${PMU:+--pmu "$PMU"} \
		${CPU:+--cpu "$CPU"} ${EVENTS:+--events "$EVENTS"} 2>&1) || {
		c=$?
		die $c "$(printf '%s\n' "$sel" | sed -n '1{s/^cmadebug: //;p;}')"
	}
	field() { printf '%s\n' "$sel" | sed -n "s/^$1: //p" | sed -n '1s/^-$//;1p'; }
	GROUP=$(field Events) INS_EVENT=$(field Instructions) WALK_METRIC=$(field "Walk metric")
	WALK_EVENTS=$(field "Walk events") SEL_PMU=$(field PMU) SEL_CPU=$(field CPU)
	[ -n "$GROUP" ] && [ -n "$SEL_CPU" ] || die 2 "'$CMADEBUG tlb events' said no events: $sel"
	# the names again, for cmadebug tlb --events (it adds PMU and :k itself)
	NAMES=$(echo "$GROUP" | tr , '\n' | sed 's|^[^/]*/||; s|/k$||; s|:k$||' | tr '\n' ,)
	NAMES=${NAMES%,}
}

# The manifest of these events: what abstats sums into its walk metric.
manifest_text() {
	printf '{"instructions_event": %s, "walk_metric": %s, "walk_events": %s, "events": %s, "pmu": %s}\n' \
		"$(if [ -n "$INS_EVENT" ]; then json_str "$INS_EVENT"; else echo null; fi)" \
		"$(json_str "$WALK_METRIC")" "$(json_list "$WALK_EVENTS")" "$(json_list "$GROUP")" \
		"$(if [ -n "$SEL_PMU" ]; then json_str "$SEL_PMU"; else echo null; fi)"
}

# check_manifest FILE: refuses a results directory of other events.
check_manifest() {
	[ -f "$1" ] || return 0
	[ "$(cat "$1")" = "$(manifest_text)" ] ||
		die 3 "$1 is of other events ($(cat "$1")); counting $GROUP into it would mix them: use another -o, or its --events/--pmu/--cpu"
}

# write_manifest FILE VDIR: once a run of VDIR's boots is kept, atomically.
write_manifest() {
	[ -f "$1" ] && return 0
	kept_runs "$2"/boot-* || return 0
	manifest_text >"$1.tmp" && mv "$1.tmp" "$1" || die 2 "cannot write $1"
}

# ---- measuring --------------------------------------------------------------

# multiplexed CSV: a reason if any event had a counter part of the time.
multiplexed() {
	awk -F, '/^#/ || NF < 5 { next }
	$1 == "<not counted>" { print $3 " was not counted"; exit }
	$1 != "<not supported>" && $5 + 0 < 100 { print $3 " had a counter " $5 "% of the time"; exit }' "$1"
}

# The next run number in DIR.
next_run() {
	n=0
	for f in "$1"/run-*.csv; do
		k=${f##*/run-}
		k=${k%%.*}
		case $k in '' | *[!0-9]*) continue ;; esac
		[ "$k" -gt $n ] && n=$k
	done
	echo $((n + 1))
}

# perf_run DIR WORKLOAD_CMD: one run under perf stat; 0 kept, 3 rejected.
perf_run() {
	m=$(next_run "$1")
	$PIN "$PERF" stat -x, -o "$1/run-$m.csv" -e "{$GROUP}" -- sh -c "$2" ||
		die 2 "perf stat failed (run $m in $1)"
	why=$(multiplexed "$1/run-$m.csv")
	if [ -n "$why" ]; then
		mv "$1/run-$m.csv" "$1/run-$m.rejected.csv"
		echo "tlb-ab.sh: run $m rejected, multiplexed: $why (count fewer events; the NMI watchdog may hold a counter)" >&2
		return 3
	fi
	LAST_RUN=$m
	return 0
}

# walker_json FILE PAGES: the walker's report as run-M.walker.json.
walker_json() {
	echo "$(cat "$WALK")" | awk -v pages="$2" -v page=$PAGE '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "{\"working_set_bytes\": %d, \"pages\": %d, \"accesses\": %s, \"elapsed_ns\": %s, \"cpu\": %s, \"faults\": %s, \"seed\": %s}\n",
			pages * page, pages, v["accesses"], v["elapsed_ns"], v["cpu"], v["faults"], v["seed"]
	}' >"$1"
}

# cmadebug_run REPORT ARGS...: 'cmadebug ARGS' with its report in REPORT
# and its messages on stderr; 3 when it rejected a run (a counter held by
# another user: its one line says "run N rejected"), other failures die.
cmadebug_run() {
	report=$1
	shift
	errs=${TMPDIR:-/tmp}/tlb-ab.$$.err
	if "$CMADEBUG" "$@" >"$report" 2>"$errs"; then
		c=0
	else
		c=$?
	fi
	cat "$errs" >&2
	grep -q '^cmadebug: run [0-9]* rejected: ' "$errs" && rejected=1 || rejected=0
	rm -f "$errs"
	[ $c = 0 ] && return 0
	[ $c = 2 ] && [ $rejected = 1 ] && return 3
	die $c "cmadebug $* failed (see its message above)"
}

# The walk: where the walker counts itself (kernel-patches/0019), always
# with cmadebug tlb walk, which then counts exactly the walk's loop on any
# core; else perf stat around 'echo > walk' (it counts the shell's start
# and exit too), or cmadebug's perf_event_open around the write.
measure_walk() { # BOOTDIR VARIANT
	rc=0
	for pages in $SWEEP; do
		req="start=0x$(printf %x $START) pages=$pages accesses=$ACCESSES seed=$SEED"
		if [ "$TOOL" = perf ] && [ "$WALKER_COUNTS" = 0 ]; then
			r=0
			while [ $r -lt "$RUNS" ]; do
				r=$((r + 1))
				if perf_run "$1" "echo '$req' >$WALK"; then
					walker_json "$1/run-$LAST_RUN.walker.json" "$pages"
				else
					rc=3
				fi
			done
		else
			cmadebug_run "$1/cmadebug-$pages.txt" tlb walk --start "$START" --pages "$pages" \
				--accesses "$ACCESSES" --seed "$SEED" --runs "$RUNS" --events "$NAMES" \
				${SEL_PMU:+--pmu "$SEL_PMU"} --cpu "$SEL_CPU" --results "$OUT/walk" --variant "$2" || rc=3
		fi
	done
	return $rc
}

measure_cmd() { # BOOTDIR VARIANT WORKLOAD CMD
	rc=0
	if [ "$TOOL" = perf ]; then
		r=0
		while [ $r -lt "$RUNS" ]; do
			r=$((r + 1))
			perf_run "$1" "$4" || rc=3
		done
	else
		cmadebug_run "$1/cmadebug.txt" tlb --runs "$RUNS" --events "$NAMES" ${SEL_PMU:+--pmu "$SEL_PMU"} \
			--cpu "$SEL_CPU" --results "$OUT/$3" --variant "$2" -- sh -c "$4" || rc=3
	fi
	return $rc
}

cmd_run() {
	[ $# -ge 1 ] || usage
	variant=$1
	shift
	case $variant in '' | .* | */*) die 1 "VARIANT is a directory name (no '/', not starting with '.')" ;; esac
	OUT=./tlb-results START="" PAGES=4096 ACCESSES=1000000 SEED=1 RUNS=5 SWEEP="" WORKLOADS=walk
	EVENTS="" EXPECT="" TMPFS_MIB=64 PMU="" CPU=""
	while [ $# -gt 0 ]; do
		[ $# -ge 2 ] || usage
		case $1 in
		-o) OUT=$2 ;;
		--start) START=$(($2)) ;;
		--pages) PAGES=$2 ;;
		--accesses) ACCESSES=$2 ;;
		--seed) SEED=$2 ;;
		--runs) RUNS=$2 ;;
		--sweep) SWEEP=$2 ;;
		--events) EVENTS=$2 ;;
		--pmu) PMU=$2 ;;
		--cpu) CPU=$2 ;;
		--expect) EXPECT=$2 ;;
		--workload) WORKLOADS="$WORKLOADS $2" ;;
		--tmpfs-mib) TMPFS_MIB=$2 ;;
		*) usage ;;
		esac
		shift 2
	done
	[ -n "$START" ] || die 1 "run: --start PHYS is required (the walked range)"
	for n in $PAGES $ACCESSES $SEED $RUNS $TMPFS_MIB $SWEEP $CPU; do
		case $n in '' | *[!0-9]*) die 1 "run: '$n' is not a number" ;; esac
	done
	[ "$(echo "$EVENTS" | tr , '\n' | wc -l)" -le 6 ] || die 1 "run: at most 6 events (one group, no multiplexing)"
	# CPU 0 and its PMU unless told: the same choice in every boot
	[ -n "$PMU$CPU" ] || CPU=0
	SWEEP=${SWEEP:-$PAGES}
	MAX_PAGES=0
	for p in $SWEEP; do [ "$p" -gt $MAX_PAGES ] && MAX_PAGES=$p; done
	[ -e "$WALK" ] || die 2 "$WALK missing: the kernel lacks CONFIG_TEST_LINEAR_MAP_WALK (kernel-patches/0019), or debugfs is not mounted"

	PERF=${PERF:-$(command -v perf || true)}
	CMADEBUG=${CMADEBUG:-$(command -v cmadebug || true)}
	[ -n "$CMADEBUG" ] || die 2 "no cmadebug (CMADEBUG=): it chooses the events from the PMU's sysfs list"
	if [ -n "$PERF" ] && [ "$PERF" != none ]; then
		TOOL=perf
	else
		TOOL=cmadebug
	fi
	choose_events
	# does the walker count itself?  A one-access walk says (not in a
	# captured tree: its walk file is a record, not the walker)
	WALKER_COUNTS=0
	if [ -z "$ROOT" ] && echo "start=0x$(printf %x $START) pages=1 accesses=1 seed=1" >"$WALK" 2>/dev/null &&
		grep -q ' instructions=' "$WALK"; then
		WALKER_COUNTS=1
	fi
	echo "tlb-ab.sh: counting $GROUP on CPU $SEL_CPU (walk metric: $WALK_METRIC)" >&2
	for w in $WORKLOADS; do
		check_manifest "$OUT/$w/manifest.json"
	done
	# perf's workload on the CPU cmadebug chose (a PMU counts on its own
	# cores); a captured tree's CPU numbers are not this machine's
	PIN=""
	[ -z "$ROOT" ] && command -v taskset >/dev/null && PIN="taskset -c $SEL_CPU"
	BOOT_ID=$(cat "$ROOT/proc/sys/kernel/random/boot_id" 2>/dev/null || echo unknown)
	MAPPING=$(mapping "$START" "$MAX_PAGES")
	echo "tlb-ab.sh: walked range: $MAPPING" >&2
	if [ -n "$EXPECT" ] && [ "${MAPPING%% *}" != "$EXPECT" ]; then
		die 3 "the walked range is not mapped as expected ($EXPECT): $MAPPING"
	fi

	rc=0
	for w in $WORKLOADS; do
		vdir=$OUT/$w/$variant
		mkdir -p "$vdir" || die 2 "cannot create $vdir"
		bdir=$(boot_dir "$vdir" "$BOOT_ID")
		mkdir -p "$bdir" || die 2 "cannot create $bdir"
		write_meta "$bdir" "$w" || die 2 "cannot write $bdir/meta.json"
		case $w in
		walk) measure_walk "$bdir" "$variant" || rc=3 ;;
		tmpfs-read)
			f=${TMPDIR:-/tmp}/tlb-ab.$$
			dd if=/dev/zero of="$f" bs=1048576 count="$TMPFS_MIB" 2>/dev/null || die 2 "cannot write $f"
			measure_cmd "$bdir" "$variant" "$w" "cat $f >/dev/null" || rc=3
			rm -f "$f"
			;;
		hackbench)
			command -v hackbench >/dev/null || {
				echo "tlb-ab.sh: no hackbench here: skipped" >&2
				continue
			}
			measure_cmd "$bdir" "$variant" "$w" "hackbench -g 4 -l 200 >/dev/null" || rc=3
			;;
		*) die 1 "unknown workload '$w' (walk, tmpfs-read, hackbench)" ;;
		esac
		write_manifest "$OUT/$w/manifest.json" "$vdir"
		echo "tlb-ab.sh: $w: $bdir ($(workload_tool "$w" | cut -d: -f1))" >&2
	done
	exit $rc
}

# ---- check ----------------------------------------------------------------

meta_get() { # FILE KEY: a string or number value of our one-key-a-line JSON
	sed -n "s/^ *\"$2\": \"\{0,1\}\([^\"]*\)\"\{0,1\},\{0,1\}$/\1/p" "$1" | head -n 1
}

cmd_check() {
	[ $# = 3 ] || usage
	res=$1 problems=0 ref_kernel="" ref_range=""
	for pair in "$2:block" "$3:4k"; do
		v=${pair%:*} want=${pair#*:} n=0
		for m in "$res/$v"/boot-*/meta.json; do
			[ -f "$m" ] || continue
			n=$((n + 1))
			got=$(meta_get "$m" walk_mapping)
			kernel=$(meta_get "$m" kernel)
			range="$(meta_get "$m" walk_start)+$(meta_get "$m" walk_pages)"
			if [ "$got" != "$want" ]; then
				echo "tlb-ab.sh: check: $m: the walked range is mapped '${got:-unrecorded}', variant $v needs '$want' ($(meta_get "$m" walk_mapping_detail))" >&2
				problems=$((problems + 1))
			fi
			# within-boot (paired) boots walk two ranges: the one split in that boot
			[ "$(meta_get "$m" design)" = within ] && range="$(meta_get "$m" walk_pages) pages, paired"
			ref_kernel=${ref_kernel:-$kernel} ref_range=${ref_range:-$range}
			if [ "$kernel" != "$ref_kernel" ]; then
				echo "tlb-ab.sh: check: $m: another kernel ($kernel) than the first boot's ($ref_kernel)" >&2
				problems=$((problems + 1))
			fi
			if [ "$range" != "$ref_range" ]; then
				echo "tlb-ab.sh: check: $m: walked range $range, not $ref_range as in the first boot" >&2
				problems=$((problems + 1))
			fi
		done
		[ $n -gt 0 ] || die 2 "check: no $res/$v/boot-*/meta.json"
	done
	[ $problems = 0 ] || die 3 "check: $problems problem(s): these variants do not compare a split with an unsplit walked range"
	echo "tlb-ab.sh: check: ok: $2 block-mapped, $3 4k-mapped, same kernel and range in every boot"
}

# paired --ranges X,Y [run's options]: the within-boot ABBA design.
cmd_paired() {
	ranges="" blocks=16 pages=4096 sweep="" pass=""
	while [ $# -ge 2 ]; do
		case $1 in
		--ranges) ranges=$2 ;;
		--blocks) blocks=$2 ;;
		--pages) pages=$2 pass="$pass $1 $2" ;;
		--sweep) sweep=$2 ;;
		--runs | --expect | --start | --workload | --tmpfs-mib) die 1 "paired: $1 is not an option of paired (runs: --blocks)" ;;
		-o | --accesses | --seed | --events | --pmu | --cpu) pass="$pass $1 $2" ;;
		*) usage ;;
		esac
		shift 2
	done
	[ $# = 0 ] || usage
	case $ranges in *,*) ;; *) die 1 "paired: --ranges PHYS,PHYS (two equal ranges, one of them split)" ;; esac
	case $blocks in '' | 0 | *[!0-9]*) die 1 "paired: --blocks '$blocks' is not a positive number" ;; esac
	max=$pages
	for p in $sweep; do
		case $p in '' | *[!0-9]*) die 1 "paired: '$p' is not a number" ;; esac
		[ "$p" -gt "$max" ] && max=$p
	done
	split="" block=""
	for r in $(echo "$ranges" | tr , ' '); do
		class=$(mapping $(($r)) "$max")
		echo "tlb-ab.sh: paired: $r: $class" >&2
		case ${class%% *} in
		4k) [ -z "$split" ] || die 3 "paired: both ranges are split: swap one back (linear_map_split=)"; split=$r ;;
		block) [ -z "$block" ] || die 3 "paired: neither range is split (linear_map_split=)"; block=$r ;;
		*) die 3 "paired: $r is neither all pages nor all blocks: $class" ;;
		esac
	done
	[ -n "$split" ] && [ -n "$block" ] || die 3 "paired: one range must be split and the other not"
	[ -e "$WALK" ] || die 2 "$WALK missing: the kernel lacks CONFIG_TEST_LINEAR_MAP_WALK (kernel-patches/0019), or debugfs is not mounted"
	# the discarded warm-up: one walk of each range, nothing recorded (not
	# in a captured tree: its walk file is a record, not the walker)
	WARMUP_RUNS=0
	[ -n "$ROOT" ] || WARMUP_RUNS=1
	[ "$WARMUP_RUNS" = 0 ] || for r in $block $split; do
		for p in ${sweep:-$pages}; do
			echo "start=$r pages=$p accesses=${ACCESSES_WARMUP:-100000} seed=1" >"$WALK" ||
				die 2 "paired: the warm-up walk of $r failed"
		done
	done
	export DESIGN=within WARMUP_RUNS
	k=0
	while [ $k -lt "$blocks" ]; do
		k=$((k + 1))
		for slot in A B B A; do
			if [ $slot = A ]; then
				set -- nosplit --start "$block" --expect block
			else
				set -- split --start "$split" --expect 4k
			fi
			# shellcheck disable=SC2086 # the options passed on, word by word
			sh "$0" run "$@" --runs 1 ${sweep:+--sweep "$sweep"} $pass || return $?
		done
	done
	echo "tlb-ab.sh: paired: $blocks ABBA blocks: nosplit $block (blocks), split $split (pages)" >&2
}

case ${1:-} in
run)
	shift
	cmd_run "$@"
	;;
paired)
	shift
	cmd_paired "$@"
	;;
mapping)
	shift
	start="" pages=4096
	while [ $# -ge 2 ]; do
		case $1 in
		--start) start=$(($2)) ;;
		--pages) pages=$2 ;;
		*) usage ;;
		esac
		shift 2
	done
	[ -n "$start" ] && [ $# = 0 ] || usage
	mapping "$start" "$pages"
	;;
check)
	shift
	cmd_check "$@"
	;;
*) usage ;;
esac
