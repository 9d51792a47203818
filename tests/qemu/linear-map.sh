# Guest tests for linear_map debugfs (kernel-patches 0010-0032): the layout
# agrees with ptdump and adds up, splits are counted by cause, coherent
# allocations are traced, alias_check finds injected and real aliases.
# Sourced by run-tests.sh; each suite (scripts/lib.sh suite_cmdline) boots
# with its own command line and runs the functions its LM_*_TESTS lists.

LM=/sys/kernel/debug/linear_map
WALK=/sys/kernel/debug/linear_map_walk
PTDUMP=/sys/kernel/debug/kernel_page_tables
TRACING=/sys/kernel/tracing
MIB=1048576
case $(uname -m) in
aarch64) LM_ARCH=arm64 ;;
*) LM_ARCH=arm ;;
esac

# layout_kb NAME [FILE]: a "NAME: N kB" line of layout (DirectMap1M,
# Mapped ...), from FILE when the lines must come from one read (KFENCE
# makes pages valid and not valid all the time).
layout_kb() {
	awk -v k="$1:" '$1 == k { print $2 }' "${2:-$LM/layout}"
}

# arm_block_mib: the arm linear map's block size in MiB: 2 with LPAE (the
# layout names DirectMap2M), else 1 (classic 1 MiB sections).
arm_block_mib() {
	if grep -q '^DirectMap2M:' $LM/layout; then echo 2; else echo 1; fi
}

# vmstat_of NAME: the /proc/vmstat counter's value, nothing if it is absent
vmstat_of() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat
}

# lm_level N: the layout's name of the Nth entry size, largest first (arm64:
# 1 PUD, 2 contiguous PMD, 3 PMD, 4 contiguous PTE, 5 PTE; "1G 32M 2M 64k 4k"
# with 4 KiB pages, "4T 16G 512M 2M 64k" with 64 KiB).
lm_level() {
	awk '$1 ~ /^DirectMap/ { sub(/^DirectMap/, "", $1); sub(/:$/, "", $1); print $1 }' $LM/layout |
		sed -n "${1}p"
}

# size_mib NAME: an entry size's name ("2M", "512M", "1G", "4T") in MiB.
size_mib() {
	case $1 in
	*T) echo $((${1%T} * 1024 * 1024)) ;;
	*G) echo $((${1%G} * 1024)) ;;
	*M) echo ${1%M} ;;
	esac
}

# ptdump_linear_kb: "SIZE KB" for each entry size in ptdump's linear-map
# section, classified the way layout names sizes; entries in the tables but
# not valid (arm64 prints them with F: KFENCE's guard pages) as "np".
ptdump_linear_kb() {
	block=1M
	[ "$LM_ARCH" = arm ] && block=$(arm_block_mib)M
	levels=""
	[ "$LM_ARCH" = arm64 ] && levels="$(lm_level 1) $(lm_level 2) $(lm_level 3) $(lm_level 4) $(lm_level 5)"
	awk -v arch=$LM_ARCH -v block=$block -v levels="$levels" '
	BEGIN { split(levels, lv, " ") }
	/^---\[/ {
		inlin = (arch == "arm" && /Kernel Mapping/) || (arch == "arm64" && /Linear Mapping start/)
		next
	}
	!inlin { next }
	{
		n = $2; unit = substr(n, length(n)); n = substr(n, 1, length(n) - 1)
		kb = n * (unit == "K" ? 1 : unit == "M" ? 1024 : unit == "G" ? 1048576 : 0)
		if (arch == "arm") {
			cls = ($3 == "PTE") ? "4k" : block
		} else {
			if ($0 !~ /MEM\/|DEVICE\//) next
			con = / CON /
			if ($4 == "F") cls = "np"
			else if ($3 == "PUD" || $3 == "PGD") cls = lv[1]
			else if ($3 == "PMD") cls = con ? lv[2] : lv[3]
			else cls = con ? lv[4] : lv[5]
		}
		t[cls] += kb
	}
	END { for (c in t) print c, t[c] }' $PTDUMP
}

# count_line FILE: the closing count line of a listing (alias_check ...).
count_of() {
	tail -n 1 "$1" | sed -n 's/^count=\([0-9]*\) .*/\1/p'
}

# sanctioned_of FILE: the sanctioned aliases alias_check's count line counts.
sanctioned_of() {
	tail -n 1 "$1" | sed -n 's/.* sanctioned=\([0-9]*\) .*/\1/p'
}

# split_line CAUSE PHYS: the splits record of CAUSE at physical address PHYS
# ("type=split cause=C addr=0x.. phys=0x.. size=N from=A to=B entries=N").
split_line() {
	grep "^type=split cause=$1 .* phys=$2 " $LM/splits
}

# split_total CAUSE: the entries= of CAUSE's "type=total cause=C entries=N".
split_total() {
	sed -n "s/^type=total cause=$1 entries=\([0-9]*\)$/\1/p" $LM/splits
}

# split_trailer KEY: records= or dropped= of the splits trailer line
# ("records=N dropped=M"), nothing when the last line is not one.
split_trailer() {
	tail -n 1 $LM/splits | grep -Ex 'records=[0-9]+ dropped=[0-9]+' | tr ' ' '\n' | sed -n "s/^$1=//p"
}

attr_stat() { # CAUSE FIELD
	sed -n "s/^cause=$1 .*$2=\([0-9]*\).*/\1/p" $LM/attr_changes
}

# bind_test_device NAME: dma-cma-test on a DT test device (once per boot).
bind_test_device() {
	[ -d /sys/kernel/debug/dma-cma-test/$1 ] && return 0
	echo dma-cma-test >/sys/bus/platform/devices/$1/driver_override &&
		echo $1 >/sys/bus/platform/drivers/dma-cma-test/bind
}

# last_buffer_pfn DEV: pfn of the newest buffer of the test device.
last_buffer_pfn() {
	sed -n 's/.* pfn=\(0x[0-9a-f]*\) .*/\1/p' /sys/kernel/debug/dma-cma-test/$1/buffers | tail -n 1
}

test_linear_map_files_and_modes() {
	for f in layout:400 splits:400 attr_changes:400 alias_check:400 alias_check_pid:600 \
		inject/aliases:400 inject/alias_add:200 inject/alias_remove:200; do
		[ -e $LM/${f%:*} ] || t_fail "$LM/${f%:*} missing" || return 1
		t_eq "mode of ${f%:*}" "${f#*:}" "$(stat -c %a $LM/${f%:*})" || return 1
	done
	# the TLB walker is a lib/ test module of its own, at the top level
	[ -e $WALK ] || t_fail "$WALK missing" || return 1
	t_eq "mode of $WALK" 600 "$(stat -c %a $WALK)" || return 1
	sed 's/^/# /' $LM/layout
}

test_layout_adds_up_to_boot_mapping() {
	cat $LM/layout >/tmp/layout.txt
	sum=0
	for k in $(awk '$1 ~ /^DirectMap/ { print $2 }' /tmp/layout.txt); do sum=$((sum + k)); done
	t_eq "sum of DirectMap lines vs Mapped" "$(layout_kb Mapped /tmp/layout.txt)" $sum || return 1
	t_eq "Mapped + NotPresent vs BootMapped" "$(layout_kb BootMapped /tmp/layout.txt)" \
		$(($(layout_kb Mapped /tmp/layout.txt) + $(layout_kb NotPresent /tmp/layout.txt))) || return 1
	[ "$(layout_kb Mapped /tmp/layout.txt)" -gt 0 ] || t_fail "nothing mapped"
}

# splits: "type=split" records, "type=total" lines, then the
# "records=N dropped=M" trailer, nothing else; records= counts the records
# shown, and each cause's total is no less than its records' entries.
test_splits_records_and_totals() {
	cat $LM/splits >/tmp/splits.txt
	sed 's/^/# /' /tmp/splits.txt
	trailer=$(tail -n 1 /tmp/splits.txt)
	echo "$trailer" | grep -Eqx 'records=[0-9]+ dropped=[0-9]+' ||
		t_fail "splits ends with '$trailer', expected records=N dropped=M" || return 1
	records=$(grep -c '^type=split ' /tmp/splits.txt)
	totals=$(grep -c '^type=total ' /tmp/splits.txt)
	t_eq "records= vs type=split lines" "$records" "$(echo "$trailer" | sed 's/^records=\([0-9]*\) .*/\1/')" || return 1
	t_eq "well-formed type=split lines" "$records" "$(grep -Ec '^type=split cause=[a-z_-]+ addr=0x[0-9a-f]+ phys=0x[0-9a-f]+ size=[0-9]+ from=[0-9]+[kMGT] to=[0-9]+[kMGT] entries=[0-9]+$' /tmp/splits.txt)" || return 1
	t_eq "well-formed type=total lines" "$totals" "$(grep -Ec '^type=total cause=[a-z_-]+ entries=[0-9]+$' /tmp/splits.txt)" || return 1
	t_eq "lines (records, totals, trailer)" $((records + totals + 1)) "$(wc -l </tmp/splits.txt)" || return 1
	[ "$totals" -gt 0 ] || t_fail "no type=total line" || return 1
	# addr= is 0x0 only where kptr_restrict hides addresses: not from root
	t_eq "records with addr=0x0 (kptr_restrict=$(cat /proc/sys/kernel/kptr_restrict))" 0 \
		"$(grep -c '^type=split .* addr=0x0 ' /tmp/splits.txt)" || return 1
	for cause in $(sed -n 's/^type=split cause=\([^ ]*\) .*/\1/p' /tmp/splits.txt | sort -u); do
		listed=$(awk -v c="cause=$cause" '$1 == "type=split" && $2 == c {
			for (i = 3; i <= NF; i++) if (sub(/^entries=/, "", $i)) n += $i
		} END { print n + 0 }' /tmp/splits.txt)
		total=$(sed -n "s/^type=total cause=$cause entries=//p" /tmp/splits.txt)
		[ -n "$total" ] || t_fail "records of cause $cause, but no type=total line for it" || return 1
		[ "$total" -ge "$listed" ] ||
			t_fail "$cause: total entries=$total, fewer than its records' $listed" || return 1
	done
}

# Page entries are compared valid or not (4k + NotPresent): ptdump and
# layout are two reads, and KFENCE flips its pages' valid bit in between.
test_layout_agrees_with_ptdump() {
	ptdump_linear_kb >/tmp/ptdump-kb.txt
	cat $LM/layout >/tmp/layout.txt
	sed 's/^/# ptdump /' /tmp/ptdump-kb.txt
	np=$(awk '$1 == "np" { print $2 }' /tmp/ptdump-kb.txt)
	page=4k
	[ "$LM_ARCH" = arm64 ] && page=$(lm_level 5)
	for line in $(awk '$1 ~ /^DirectMap/ { sub(/^DirectMap/, "", $1); sub(/:$/, "", $1); print $1 "=" $2 }' /tmp/layout.txt); do
		cls=${line%=*}
		want=$(awk -v c=$cls '$1 == c { print $2 }' /tmp/ptdump-kb.txt)
		got=${line#*=}
		if [ "$cls" = "$page" ]; then
			want=$((${want:-0} + ${np:-0}))
			got=$((got + $(layout_kb NotPresent /tmp/layout.txt)))
			cls="$page (valid or not)"
		fi
		t_eq "kB mapped with $cls entries (ptdump vs layout)" "${want:-0}" "$got" || return 1
	done
}

# The DirectMap counters of /proc/meminfo (kept where the arch maps,
# kernel-patches 0024/0025) against the layout walk, to the byte.  An entry
# whose valid bit KFENCE or debug_pagealloc cleared keeps its size in the
# counters and is NotPresent in the walk, so page entries are compared
# valid or not, from one read of each file.
test_meminfo_agrees_with_layout() {
	grep '^DirectMap' /proc/meminfo >/tmp/meminfo-dm.txt
	cat $LM/layout >/tmp/layout.txt
	sed 's/^/# meminfo /' /tmp/meminfo-dm.txt
	[ -s /tmp/meminfo-dm.txt ] || t_fail "/proc/meminfo has no DirectMap lines" || return 1
	page=$(awk '$1 ~ /^DirectMap/ { n = $1 } END { print n }' /tmp/layout.txt)
	for name in $(awk '$1 ~ /^DirectMap/ { print $1 }' /tmp/layout.txt /tmp/meminfo-dm.txt | sort -u); do
		walk=$(layout_kb "${name%:}" /tmp/layout.txt)
		counted=$(layout_kb "${name%:}" /tmp/meminfo-dm.txt)
		[ -n "$walk" ] || t_fail "meminfo has $name, a size the layout walk does not know" || return 1
		if [ "$name" = "$page" ]; then
			walk=$((walk + $(layout_kb NotPresent /tmp/layout.txt)))
			name="$name (valid or not)"
		fi
		t_eq "kB in $name (meminfo vs layout)" "$walk" "${counted:-0}" || return 1
	done
}

# kfence-late (the arm debug and LPAE boards, KFENCE off at boot): KFENCE
# enabled after boot allocates its pool then, and arch_kfence_init_pool()
# splits the sections over it while the system runs.  The DirectMap
# counters move what it split from sections to pages and still agree with
# the layout walk; /proc/vmstat counts each section split as a
# direct_map_level2_splits event, as x86 counts its run-time splits (the
# boot-time ones, the CMA remap's, are no events); linear_map/splits
# records each 2 MiB of it as page-granular, the cause arm64 gives its pool.
test_kfence_late_split_counted() {
	param=/sys/module/kfence/parameters/sample_interval
	t_eq "kfence.sample_interval at boot" 0 "$(cat $param)" || return 1
	t_eq "direct_map_level2_splits after boot" 0 "$(vmstat_of direct_map_level2_splits)" || return 1
	t_eq "direct_map_level3_splits after boot" 0 "$(vmstat_of direct_map_level3_splits)" || return 1
	mib=$(arm_block_mib)
	blocks=DirectMap${mib}M
	pages0=$(layout_kb DirectMap4k /proc/meminfo) blocks0=$(layout_kb $blocks /proc/meminfo)
	split0=$(split_total page-granular)
	records0=$(grep -c '^type=split cause=page-granular ' $LM/splits)
	echo 100 >$param || t_fail "enabling KFENCE after boot failed" || return 1
	[ -d /sys/kernel/debug/kfence ] && grep -q 'enabled: 1' /sys/kernel/debug/kfence/stats ||
		t_fail "KFENCE not enabled: $(head -n 1 /sys/kernel/debug/kfence/stats 2>&1)" || return 1
	pages1=$(layout_kb DirectMap4k /proc/meminfo) blocks1=$(layout_kb $blocks /proc/meminfo)
	echo "# DirectMap4k $pages0 -> $pages1 kB, $blocks $blocks0 -> $blocks1 kB"
	moved=$((pages1 - pages0))
	[ $moved -gt 0 ] || t_fail "the late pool moved nothing to pages" || return 1
	t_eq "kB out of $blocks" $moved $((blocks0 - blocks1)) || return 1
	t_eq "direct_map_level2_splits after the late pool" $((moved / (mib * 1024))) \
		"$(vmstat_of direct_map_level2_splits)" || return 1
	# linear_map/splits (0032): a page-granular record per 2 MiB split
	sed 's/^/# /' $LM/splits
	t_eq "page-granular entries split for the late pool" $((moved / (mib * 1024))) \
		$(($(split_total page-granular) - split0)) || return 1
	t_eq "page-granular records of the late pool (2 MiB each)" $((moved / 2048)) \
		$(($(grep -c "^type=split cause=page-granular .* size=$((2 * MIB)) from=${mib}M to=4k entries=$((2 / mib))\$" $LM/splits) - records0)) || return 1
	test_meminfo_agrees_with_layout
}

# arm: fimc-pool (16 MiB, lowmem by alloc-ranges) split into pages at boot.
test_private_pool_split_at_boot() {
	base=$(printf '0x%x' $(($(cat /sys/kernel/debug/cma/fimc-pool/base_pfn) * 4096)))
	sed 's/^/# /' $LM/splits
	line=$(split_line cma-remap $base) || t_fail "no cma-remap record at phys=$base" || return 1
	b=$(arm_block_mib)
	t_eq "fimc-pool split" "size=$((16 * MIB)) from=${b}M to=4k entries=$((16 / b))" "size=${line#* size=}"
}

test_cmadebug_alias_clean_board_exits_0() {
	cmadebug alias >/tmp/alias-clean.txt 2>&1
	t_eq "cmadebug alias on a clean arm board" 0 $?
}

test_alias_check_clean_at_boot() {
	cat $LM/alias_check >/tmp/alias.txt
	sed 's/^/# /' /tmp/alias.txt
	t_eq "conflicts on a clean arm board" 0 "$(count_of /tmp/alias.txt)"
}

# One injected page shows up exactly, and goes away again.
test_alias_injection_found_and_removed() {
	cat $LM/alias_check >/tmp/alias0.txt
	before=$(count_of /tmp/alias0.txt)
	echo 1 >$LM/inject/alias_add || t_fail "alias_add 1 failed" || return 1
	t_eq "TAINT_USER after alias_add" 1 "$(user_taint)" || return 1
	line=$(grep '^alias=' $LM/inject/aliases)
	addr=$(echo "$line" | sed 's/^alias=\(0x[0-9a-f]*\) .*/\1/')
	pfn=$(echo "$line" | sed 's/.* pfns=\(0x[0-9a-f]*\)$/\1/')
	cat $LM/alias_check >/tmp/alias1.txt
	sed 's/^/# /' /tmp/alias1.txt
	t_eq "conflicts after injecting one page" $((before + 1)) "$(count_of /tmp/alias1.txt)" || return 1
	# a write-combined vmap of a cached page: a hazard on every arch
	grep -q "^type=alias pfn=$pfn pages=1 class=hazard linear=.* alias=$addr alias_type=[^ ]* region=vmalloc caller=linear_map_alias_add_write" /tmp/alias1.txt ||
		t_fail "no alias_check line for pfn $pfn at $addr" || return 1
	# one grammar: every line but the count trailer names its type first
	t_eq "alias_check lines without type=alias/coverage (trailer aside)" 0 \
		"$(sed '$d' /tmp/alias1.txt | grep -Evc '^type=(alias|coverage) ')" || return 1
	echo "$addr" >$LM/inject/alias_remove || t_fail "alias_remove $addr failed" || return 1
	t_eq "injected aliases after removal" records=0 "$(cat $LM/inject/aliases)" || return 1
	t_eq "conflicts after removal" "$before" "$(count_of $LM/alias_check)"
}

# arm: the memory type alias_check gives a section-mapped linear page is
# the one the kernel built its sections with, the cache policy of the
# boot's "Memory policy: Data cache POLICY" line (ptdump names no type for
# a section).  The decoders differ by board: TEX/C/B on ARMv6 (the v6
# board), the TEX remap index on ARMv7, AttrIndx with LPAE.  A page of
# the injected alias, from the page allocator:
# section-mapped on every board that runs this (no forced split).
test_section_linear_type_is_cache_policy() {
	policy=$(dmesg | sed -n 's/.*Memory policy: .*Data cache \([a-z]*\).*/\1/p' | tail -n 1)
	case $policy in
	writeback) want=MEM/CACHED/WBRA ;;
	writealloc) want=MEM/CACHED/WBWA ;;
	writethrough) want=MEM/CACHED/WT ;;
	*) t_fail "no cache policy in the boot log ('$policy')" || return 1 ;;
	esac
	echo 1 >$LM/inject/alias_add || t_fail "alias_add 1 failed" || return 1
	pfn=$(sed -n 's/^alias=0x[0-9a-f]* .* pfns=\(0x[0-9a-f]*\)$/\1/p' $LM/inject/aliases)
	addr=$(sed -n 's/^alias=\(0x[0-9a-f]*\) .*/\1/p' $LM/inject/aliases)
	got=$(sed -n "s/^type=alias pfn=$pfn .* linear=\(0x[0-9a-f]*\) linear_type=\([^ ]*\) .*/\1 \2/p" $LM/alias_check)
	echo "$addr" >$LM/inject/alias_remove || t_fail "alias_remove $addr failed" || return 1
	[ -n "$got" ] || t_fail "alias_check lists no alias of pfn $pfn" || return 1
	linear=${got% *}
	# ptdump's entry level over the linear address: PTE, or a section
	level=$(sed -n '/^---\[ Kernel Mapping/,/^---\[/p' /sys/kernel/debug/kernel_page_tables |
		while read -r range size lvl rest; do
			case $range in 0x*-0x*) ;; *) continue ;; esac
			if [ $((${range%-*})) -le $((linear)) ] && [ $((linear)) -lt $((${range#*-})) ]; then
				echo "$lvl"
				break
			fi
		done)
	echo "# policy=$policy pfn=$pfn linear=$linear level=$level linear_type=${got#* }"
	[ -n "$level" ] && [ "$level" != PTE ] || t_fail "pfn $pfn is not section-mapped (ptdump: '$level')" || return 1
	t_eq "linear_type of a section-mapped page" "$want" "${got#* }"
}

# kptr_restrict=2 hides kernel addresses from everyone, root too: the
# files print 0 where a kernel virtual address would be, and the pfns still.
test_kptr_restrict_hides_kernel_addresses() {
	old=$(cat /proc/sys/kernel/kptr_restrict) || t_fail "no kptr_restrict sysctl" || return 1
	echo 1 >$LM/inject/alias_add || t_fail "alias_add 1 failed" || return 1
	addr=$(sed -n 's/^alias=\(0x[0-9a-f]*\) .*/\1/p' $LM/inject/aliases)
	echo 2 >/proc/sys/kernel/kptr_restrict
	cat $LM/splits >/tmp/kptr-splits.txt
	cat $LM/inject/aliases >/tmp/kptr-aliases.txt
	cat $LM/alias_check >/tmp/kptr-alias.txt
	echo "$old" >/proc/sys/kernel/kptr_restrict
	echo "$addr" >$LM/inject/alias_remove || t_fail "alias_remove $addr failed" || return 1
	sed 's/^/# /' /tmp/kptr-aliases.txt /tmp/kptr-alias.txt
	[ "$addr" != 0x0 ] || t_fail "root saw alias=0x0 with kptr_restrict=$old" || return 1
	t_eq "injected aliases shown" 1 "$(grep -c '^alias=0x0 pages=1 pfns=0x[0-9a-f]' /tmp/kptr-aliases.txt)" || return 1
	! grep '^type=split' /tmp/kptr-splits.txt | grep -qv ' addr=0x0 ' ||
		t_fail "a split record shows an address" || return 1
	grep -q '^type=alias pfn=0x[0-9a-f]* .* linear=0x0 .* alias=0x0 .* region=vmalloc caller=linear_map_alias_add_write' /tmp/kptr-alias.txt ||
		t_fail "the injected alias is not listed with hidden addresses" || return 1
	! grep '^type=alias pfn=' /tmp/kptr-alias.txt | grep -v ' region=user ' | grep -q '\(linear\|alias\)=0x[1-9a-f]' ||
		t_fail "alias_check shows a kernel address under kptr_restrict=2"
}

test_inject_rejects_bad_input() {
	for v in 0 -1 abc 513 1x "" 99999999999999999999; do
		if echo "$v" >$LM/inject/alias_add 2>/dev/null; then
			t_fail "alias_add accepted '$v'"
			return 1
		fi
	done
	for v in 0 abc -1 0x1000 ""; do
		if echo "$v" >$LM/inject/alias_remove 2>/dev/null; then
			t_fail "alias_remove accepted '$v'"
			return 1
		fi
	done
	t_eq "injected aliases" records=0 "$(cat $LM/inject/aliases)"
}

# arm: a coherent buffer from fimc-pool changes its linear-map type: traced.
test_coherent_alloc_traces_attr_change() {
	bind_test_device cmadebug-fimc || t_fail "binding cmadebug-fimc failed" || return 1
	ev=$TRACING/events/linear_map/linear_map_attr_change
	changes=$(attr_stat dma-remap changes)
	echo >$TRACING/trace
	echo 1 >$ev/enable
	echo 1 >$TRACING/tracing_on
	echo 8192 >/sys/kernel/debug/dma-cma-test/cmadebug-fimc/alloc || t_fail "alloc 8192 failed" || return 1
	pfn=$(last_buffer_pfn cmadebug-fimc)
	echo 1 >/sys/kernel/debug/dma-cma-test/cmadebug-fimc/free || t_fail "free failed" || return 1
	echo 0 >$TRACING/tracing_on
	echo 0 >$ev/enable
	grep linear_map_attr_change $TRACING/trace | sed 's/^/# /'
	t_eq "dma-remap changes" $((changes + 2)) "$(attr_stat dma-remap changes)" || return 1
	# no virtual address in the event: the pfn, the pages, what was set
	on=$(grep -c "linear_map_attr_change: pfn=$pfn nr_pages=2 set=memtype clear=none memtype=noncached ret=0 cause=dma-remap" $TRACING/trace)
	off=$(grep -c "linear_map_attr_change: pfn=$pfn nr_pages=2 set=memtype clear=none memtype=cached ret=0 cause=dma-remap" $TRACING/trace)
	t_eq "events making pfn $pfn write-combined, then cached again" "1 1" "$on $off"
}

# The walk holds up against allocations and frees running beside it.
test_alias_check_during_alloc_free() {
	dev=cmadebug-fimc
	bind_test_device $dev || t_fail "binding $dev failed" || return 1
	(
		i=0
		while [ $i -lt 60 ]; do
			echo 65536 >/sys/kernel/debug/dma-cma-test/$dev/alloc
			echo 1 >/sys/kernel/debug/dma-cma-test/$dev/free
			i=$((i + 1))
		done
	) &
	writer=$!
	n=0
	while [ $n -lt 20 ]; do
		cat $LM/alias_check >/tmp/alias-loop.txt || t_fail "read $n failed" || break
		tail -n 1 /tmp/alias-loop.txt | grep -Eq '^count=[0-9]+ pages=[0-9]+ sanctioned=[0-9]+ sanctioned_pages=[0-9]+ unlisted_pages=[0-9]+$' ||
			t_fail "read $n ends with '$(tail -n 1 /tmp/alias-loop.txt)'" || break
		lines=$(grep -c '^type=alias pfn=[^ ]* pages=[^ ]* class=hazard ' /tmp/alias-loop.txt)
		t_eq "read $n: hazard lines vs count" "$lines" "$(count_of /tmp/alias-loop.txt)" || break
		lines=$(grep -c '^type=alias pfn=[^ ]* pages=[^ ]* class=sanctioned ' /tmp/alias-loop.txt)
		t_eq "read $n: sanctioned lines vs sanctioned" "$lines" "$(sanctioned_of /tmp/alias-loop.txt)" || break
		n=$((n + 1))
	done
	wait $writer
	[ $n = 20 ] && t_eq "buffers left" records=0 "$(cat /sys/kernel/debug/dma-cma-test/$dev/buffers)"
}

# buffer_alias_listed DEV CLASS PATTERN: one 8 KiB coherent buffer of DEV
# adds exactly one alias_check line, "type=alias pfn=<its pfn> pages=2 class=CLASS
# PATTERN", counted as CLASS, which goes away when the buffer is freed.
buffer_alias_listed() {
	bind_test_device $1 || t_fail "binding $1 failed" || return 1
	case $2 in
	hazard) count=count_of other=sanctioned_of ;;
	*) count=sanctioned_of other=count_of ;;
	esac
	before=$($count $LM/alias_check)
	others=$($other $LM/alias_check)
	echo 8192 >/sys/kernel/debug/dma-cma-test/$1/alloc || t_fail "alloc 8192 failed" || return 1
	pfn=$(last_buffer_pfn $1)
	cat $LM/alias_check >/tmp/alias-buf.txt
	echo 1 >/sys/kernel/debug/dma-cma-test/$1/free
	sed 's/^/# /' /tmp/alias-buf.txt
	t_eq "$2 aliases with one buffer" $((before + 1)) "$($count /tmp/alias-buf.txt)" || return 1
	t_eq "the other class's count" "$others" "$($other /tmp/alias-buf.txt)" || return 1
	grep -q "^type=alias pfn=$pfn pages=2 class=$2 $3" /tmp/alias-buf.txt ||
		t_fail "no alias line for the buffer at pfn $pfn" || return 1
	t_eq "$2 aliases after free" "$before" "$($count $LM/alias_check)"
}

# arm64: a non-coherent device's coherent buffer is a NC vmap alias of
# cached linear-map pages (dma-direct's remap, VM_DMA_COHERENT): found,
# and sanctioned (ARMv8 and arch_dma_prep_coherent() make it safe).
test_noncoherent_buffer_alias_found() {
	buffer_alias_listed cmadebug-fimc sanctioned \
		"linear=[^ ]* linear_type=MEM/NORMAL[^ ]* alias=[^ ]* alias_type=MEM/NORMAL-NC region=vmalloc .* cma=fimc-pool$"
}

# alias_check_pid (0600): "pid=N" or "pid=none"; takes a decimal pid of a
# process with an mm, or "none"; anything else is EINVAL, a pid no process
# has ESRCH, and a refused write leaves the value as it was.  With a pid
# set whose process has gone, alias_check reads as without one.
test_alias_check_pid_rejects_bad_input() {
	t_eq "alias_check_pid at boot" pid=none "$(cat $LM/alias_check_pid)" || return 1
	for v in abc -1 "" 0 1x 0x1 none1; do
		if echo "$v" >$LM/alias_check_pid 2>/tmp/pid.err; then
			t_fail "alias_check_pid accepted '$v'"
			return 1
		fi
		grep -q 'Invalid argument' /tmp/pid.err || t_fail "'$v': $(cat /tmp/pid.err), not EINVAL" || return 1
		t_eq "alias_check_pid after '$v'" pid=none "$(cat $LM/alias_check_pid)" || return 1
	done
	# a kernel thread has no mm (kthreadd); a number too large for any pid
	for v in 2 99999999999999999999; do
		if echo "$v" >$LM/alias_check_pid 2>/dev/null; then
			echo none >$LM/alias_check_pid
			t_fail "alias_check_pid accepted '$v'"
			return 1
		fi
		t_eq "alias_check_pid after '$v'" pid=none "$(cat $LM/alias_check_pid)" || return 1
	done
	sleep 600 >/dev/null 2>&1 &
	gone=$!
	kill $gone
	wait $gone
	if echo $gone >$LM/alias_check_pid 2>/tmp/pid.err; then
		echo none >$LM/alias_check_pid
		t_fail "alias_check_pid accepted $gone, a pid no process has"
		return 1
	fi
	grep -q 'No such process' /tmp/pid.err || t_fail "pid $gone: $(cat /tmp/pid.err), not ESRCH" || return 1
	t_eq "alias_check_pid after a pid no process has" pid=none "$(cat $LM/alias_check_pid)" || return 1
	# a live process (this shell): taken, read back, then none again
	echo $$ >$LM/alias_check_pid || t_fail "alias_check_pid refused $$, this shell" || return 1
	t_eq "alias_check_pid after $$" "pid=$$" "$(cat $LM/alias_check_pid)" || return 1
	grep -Eq "^type=coverage checked=linear[a-z,_-]*,failed-changes,user pid=$$ not_checked=other-users,[a-z,_-]+$" $LM/alias_check ||
		t_fail "the checked line with pid $$ set: $(grep '^type=coverage checked=' $LM/alias_check)" || { echo none >$LM/alias_check_pid; return 1; }
	# a process that exits while its pid is set: nothing to walk
	sleep 600 >/dev/null 2>&1 &
	pid=$!
	echo $pid >$LM/alias_check_pid || t_fail "alias_check_pid refused $pid" || { kill $pid; return 1; }
	kill $pid
	wait $pid
	checked=$(grep '^type=coverage checked=' $LM/alias_check)
	echo none >$LM/alias_check_pid || t_fail "alias_check_pid refused none" || return 1
	t_eq "alias_check_pid after none" pid=none "$(cat $LM/alias_check_pid)" || return 1
	echo "$checked" | grep -Eq "$CHECKED_WITHOUT_USER" ||
		t_fail "the checked line once pid $pid has exited: $checked" || return 1
	grep -Eq "$CHECKED_WITHOUT_USER" $LM/alias_check ||
		t_fail "the checked line with pid=none: $(grep '^type=coverage checked=' $LM/alias_check)"
}

# trailer_of KEY FILE: KEY's value in alias_check's last line.
trailer_of() {
	tail -n 1 "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# alias_check's coverage line when no process's user mappings were walked
CHECKED_WITHOUT_USER='^type=coverage checked=linear[a-z,_-]*,failed-changes not_checked=user,[a-z,_-]+$'

# same_totals WHAT FILE FILE: two alias_check reads count the same hazards
# and sanctioned aliases (count= pages= sanctioned= sanctioned_pages=).
same_totals() {
	for k in count pages sanctioned sanctioned_pages; do
		t_eq "$k= $1" "$(trailer_of $k "$2")" "$(trailer_of $k "$3")" || return 1
	done
}

# user_alias_by_pid DEV CLASS LINEAR_TYPE ALIAS_TYPE CMA [RC]: a process
# maps a 64 KiB coherent buffer of DEV write-combined (dma-mmap-hold,
# through dma-cma-test's mmap); with its pid in alias_check_pid, the
# checked line says whose user mappings were walked, and alias_check lists
# every page of that mapping once, as region=user lines of CLASS with the
# pid (linear_type=LINEAR_TYPE alias_type=ALIAS_TYPE cma=CMA), at the user
# addresses the holder mapped them, counted in CLASS's totals.  CLASS none:
# the mapping has the linear map's class, no line and no count changes.
# The mapped buffer cannot be freed (EBUSY) until the holder is gone.  With
# RC, 'cmadebug alias --pid' lists the same aliases, counts as the kernel,
# exits RC and puts back the pid that was set before it.
user_alias_by_pid() {
	dev=$1
	dir=/sys/kernel/debug/dma-cma-test/$dev
	size=65536
	pages=$((size / 4096))
	bind_test_device $dev || t_fail "binding $dev failed" || return 1
	echo none >$LM/alias_check_pid || t_fail "alias_check_pid refused none" || return 1
	nbuf=$(sed -n 's/^records=//p' $dir/buffers)
	echo $size >$dir/alloc || t_fail "alloc $size failed" || return 1
	newest=$(grep '^dma=' $dir/buffers | tail -n 1)
	bufpfn=$(($(echo "$newest" | sed -n 's/.* pfn=\(0x[0-9a-f]*\) .*/\1/p')))
	rm -f /tmp/hold.out /tmp/hold.err
	dma-mmap-hold $dir/mmap $size >/tmp/hold.out 2>/tmp/hold.err &
	holder=$!
	i=0
	while ! grep -q '^mapped ' /tmp/hold.out 2>/dev/null && [ -e /proc/$holder ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	hold=$(cat /tmp/hold.out)
	cat $LM/alias_check >/tmp/alias-nopid.txt
	set_rc=0
	echo $holder >$LM/alias_check_pid 2>/tmp/pid.err || set_rc=1
	pid_read=$(cat $LM/alias_check_pid)
	cat $LM/alias_check >/tmp/alias-user.txt
	# read by a process in a new pid namespace, where the holder has no
	# number (the boards built with pid namespaces)
	otherns=
	if [ -e /proc/self/ns/pid ]; then
		otherns=0
		unshare -p -f cat $LM/alias_check >/tmp/alias-otherns.txt 2>&1 || otherns=1
	fi
	busy_rc=0
	echo 1 >$dir/free 2>/tmp/free-busy.err || busy_rc=1
	nbuf_busy=$(sed -n 's/^records=//p' $dir/buffers)
	if [ -n "${6:-}" ]; then
		# something else set before: cmadebug puts it back
		echo $$ >$LM/alias_check_pid
		cmadebug alias --pid $holder >/tmp/alias-pid.txt 2>&1
		cli_rc=$?
		restored=$(cat $LM/alias_check_pid)
	fi
	echo none >$LM/alias_check_pid
	none_read=$(cat $LM/alias_check_pid)
	kill $holder 2>/dev/null
	wait $holder
	# (not someone else's buffer, should the mapped one have been freed)
	free_rc="not tried: the free while mapped took a buffer"
	if [ "$nbuf_busy" = $((nbuf + 1)) ]; then
		free_rc=0
		echo 1 >$dir/free 2>/tmp/free.err || free_rc=1
	fi
	nbuf_after=$(sed -n 's/^records=//p' $dir/buffers)

	sed 's/^/# /' /tmp/alias-user.txt
	echo "# holder: $hold $(cat /tmp/hold.err)"
	echo "$newest" | grep -Eq "^dma=0x[0-9a-f]+ pfn=0x[0-9a-f]+ size=$size$" ||
		t_fail "newest buffer: '$newest'" || return 1
	addr=$(echo "$hold" | sed -n "s/^mapped addr=\(0x[0-9a-f]*\) size=$size$/\1/p")
	[ -n "$addr" ] || t_fail "dma-mmap-hold printed '$hold' (stderr: $(cat /tmp/hold.err))" || return 1
	t_eq "writing the holder's pid to alias_check_pid" "0 pid=$holder" "$set_rc $pid_read" || { cat /tmp/pid.err; return 1; }
	# without a pid: no user lines, and user mappings not checked
	t_eq "region=user lines without a pid" 0 "$(grep -c ' region=user ' /tmp/alias-nopid.txt)" || return 1
	grep -Eq "$CHECKED_WITHOUT_USER" /tmp/alias-nopid.txt ||
		t_fail "checked line without a pid: $(grep '^type=coverage checked=' /tmp/alias-nopid.txt)" || return 1
	grep -Eq "^type=coverage checked=linear[a-z,_-]*,failed-changes,user pid=$holder not_checked=other-users,[a-z,_-]+$" /tmp/alias-user.txt ||
		t_fail "checked line with pid $holder: $(grep '^type=coverage checked=' /tmp/alias-user.txt)" || return 1
	if [ -n "$otherns" ]; then
		t_eq "reading alias_check in a new pid namespace" 0 "$otherns" || { cat /tmp/alias-otherns.txt; return 1; }
		# the holder is not in that namespace: not walked (its lines would
		# have no pid to name it by and pass for the kernel's), so the
		# read adds up as without a pid
		same_totals "read from another pid namespace" /tmp/alias-nopid.txt /tmp/alias-otherns.txt || return 1
		grep -Eq "$CHECKED_WITHOUT_USER" /tmp/alias-otherns.txt ||
			t_fail "checked line read from another pid namespace: $(grep '^type=coverage checked=' /tmp/alias-otherns.txt)" || return 1
	else
		echo "# no pid namespaces on this board: the other-namespace read is not made"
	fi
	grep ' region=user ' /tmp/alias-user.txt >/tmp/alias-user-lines.txt
	n=$(wc -l </tmp/alias-user-lines.txt)
	if [ "$2" = none ]; then
		t_eq "region=user lines (the mapping has the linear map's class)" 0 "$n" || return 1
		same_totals "with the pid" /tmp/alias-nopid.txt /tmp/alias-user.txt || return 1
	else
		user_alias_lines_match "$2" "$3" "$4" "$5" || return 1
	fi
	# a mapped buffer is busy; freed once the holder is gone
	[ $busy_rc != 0 ] || t_fail "freed the buffer while $holder mapped it" || return 1
	grep -q 'Device or resource busy' /tmp/free-busy.err || t_fail "free while mapped: $(cat /tmp/free-busy.err), not EBUSY" || return 1
	t_eq "buffers while mapped" $((nbuf + 1)) "$nbuf_busy" || return 1
	t_eq "free after the holder exited" 0 "$free_rc" || { cat /tmp/free.err; return 1; }
	t_eq "buffers after free" "$nbuf" "$nbuf_after" || return 1
	t_eq "alias_check_pid after none" pid=none "$none_read" || return 1
	[ -n "${6:-}" ] || return 0
	sed 's/^/# cmadebug: /' /tmp/alias-pid.txt
	t_eq "cmadebug alias --pid exit status" "$6" $cli_rc || return 1
	t_eq "alias_check_pid after cmadebug alias --pid (put back)" "pid=$$" "$restored" || return 1
	t_eq "hazards cmadebug counted" "Hazards: $(trailer_of count /tmp/alias-user.txt)" "$(grep '^Hazards:' /tmp/alias-pid.txt)" || return 1
	t_eq "sanctioned aliases cmadebug counted" "Sanctioned: $(trailer_of sanctioned /tmp/alias-user.txt)" "$(grep '^Sanctioned:' /tmp/alias-pid.txt)" || return 1
	# each user alias: a row with its pfn, its user address and region user
	while read -r l; do
		pfn=$(echo "$l" | sed 's/^type=alias pfn=\([^ ]*\) .*/\1/')
		va=$(echo "$l" | sed 's/.* alias=\(0x[0-9a-f]*\) .*/\1/')
		t_eq "cmadebug rows with pfn $pfn, alias $va, region user" 1 "$(awk -v pfn=$pfn -v va=$va '{
			p = a = u = 0
			for (i = 1; i <= NF; i++) { if ($i == pfn) p = 1; if ($i == va) a = 1; if ($i == "user") u = 1 }
			if (p && a && u) n++
		} END { print n + 0 }' /tmp/alias-pid.txt)" || return 1
	done </tmp/alias-user-lines.txt
}

# user_alias_lines_match CLASS LINEAR_TYPE ALIAS_TYPE CMA: user_alias_by_pid's
# region=user lines (/tmp/alias-user-lines.txt, of $holder's mapping at
# $addr of the buffer at $bufpfn, $pages pages) against the reads without
# and with the pid (/tmp/alias-nopid.txt, /tmp/alias-user.txt).
user_alias_lines_match() {
	[ "$n" -gt 0 ] || t_fail "no region=user line for pid $holder" || return 1
	t_eq "region=user lines as documented" "$n" "$(grep -Ec "^type=alias pfn=0x[0-9a-f]+ pages=[0-9]+ class=$1 linear=0x[0-9a-f]+ linear_type=$2 alias=0x[0-9a-f]+ alias_type=$3 region=user caller=none cma=$4 pid=$holder$" /tmp/alias-user-lines.txt)" || return 1
	# every page of the mapping once, where the holder mapped it
	sum=0
	while read -r l; do
		pfn=$(($(echo "$l" | sed 's/^type=alias pfn=\([^ ]*\) .*/\1/')))
		np=$(echo "$l" | sed 's/^type=alias pfn=[^ ]* pages=\([0-9]*\) .*/\1/')
		va=$(echo "$l" | sed 's/.* alias=\(0x[0-9a-f]*\) .*/\1/')
		[ $pfn -ge $bufpfn ] && [ $((pfn + np)) -le $((bufpfn + pages)) ] ||
			t_fail "user alias at pfn $pfn+$np outside the buffer's $bufpfn+$pages" || return 1
		t_eq "user address of pfn $pfn" $((addr + (pfn - bufpfn) * 4096)) $((va)) || return 1
		sum=$((sum + np))
	done </tmp/alias-user-lines.txt
	t_eq "pages in region=user lines" $pages $sum || return 1
	# counted in CLASS's totals, the other class's as without a pid
	case $1 in
	hazard) c=count p=pages o=sanctioned ;;
	*) c=sanctioned p=sanctioned_pages o=count ;;
	esac
	t_eq "$c= with the pid" $(($(trailer_of $c /tmp/alias-nopid.txt) + n)) "$(trailer_of $c /tmp/alias-user.txt)" || return 1
	t_eq "$p= with the pid" $(($(trailer_of $p /tmp/alias-nopid.txt) + pages)) "$(trailer_of $p /tmp/alias-user.txt)" || return 1
	t_eq "$o= with the pid" "$(trailer_of $o /tmp/alias-nopid.txt)" "$(trailer_of $o /tmp/alias-user.txt)"
}

# arm (and LPAE): fimc-pool's buffer is lowmem CMA that __dma_remap() made
# write-combined in the linear map itself, so the user's write-combined
# mapping of it has the linear map's class: walked, nothing to list, and
# cmadebug alias still exits 0 on the clean board.
test_user_alias_by_pid_clean() {
	user_alias_by_pid cmadebug-fimc none - - -
}

test_cmadebug_alias_pid_clean_exits_0() {
	user_alias_by_pid cmadebug-fimc none - - - 0
}

# arm, cma=0: the plain device's buffer comes from the remap allocator,
# cached in the linear map; the user's write-combined mapping of it is a
# hazard, as every alias is on 32-bit ARM (no arch_dma_prep_coherent());
# cmadebug alias exits 3.
test_cmadebug_alias_pid_hazard_exits_3() {
	user_alias_by_pid cmadebug-plain hazard "MEM/CACHED/[A-Z]*" MEM/BUFFERABLE/WC none 3
}

# arm64: the buffer's kernel remap is a sanctioned VM_DMA_COHERENT alias
# of its cached linear-map pages; the user's write-combined mapping has the
# same non-cacheable class, so it is sanctioned too; cmadebug alias exits 0.
test_user_alias_by_pid_sanctioned() {
	user_alias_by_pid cmadebug-fimc sanctioned "MEM/NORMAL[^ ]*" MEM/NORMAL-NC fimc-pool
}

test_cmadebug_alias_pid_sanctioned_exits_0() {
	user_alias_by_pid cmadebug-fimc sanctioned "MEM/NORMAL[^ ]*" MEM/NORMAL-NC fimc-pool 0
}

# arm, cma=32M@0x50000000: exactly 32 sections (16 LPAE blocks) split for the
# default area.
test_lowmem_cma_area_split() {
	sed 's/^/# /' $LM/splits
	line=$(split_line cma-remap 0x50000000) || t_fail "no cma-remap record at 0x50000000" || return 1
	b=$(arm_block_mib)
	t_eq "reserved split" "size=$((32 * MIB)) from=${b}M to=4k entries=$((32 / b))" "size=${line#* size=}" || return 1
	t_eq "cma-remap total (reserved + fimc-pool)" $((48 / b)) "$(split_total cma-remap)"
}

# arm, dma_cma_keep_sections[=fail]: no split, a banner that says what
# the mode does, and the kernel tainted.
test_kept_sections_not_split() {
	t_eq "cma-remap total" 0 "$(split_total cma-remap)" || return 1
	dmesg | grep -q 'dma_cma_keep_sections: lowmem CMA areas stay mapped' ||
		t_fail "no boot banner for dma_cma_keep_sections" || return 1
	case " $(cat /proc/cmdline) " in
	*" dma_cma_keep_sections=fail "*) banner='Coherent DMA allocations from them will fail' ;;
	*) banner='Coherent DMA buffers from them are CACHEABLE' ;;
	esac
	dmesg | grep -q "$banner" || t_fail "the banner does not say '$banner'" || return 1
	t_eq "TAINT_USER" 1 "$(user_taint)"
}

# dma_cma_keep_sections=fail: what every kernel does since the series' first
# patch when a remap fails: the allocation fails and its pages go back to
# the area, the attributes the remap changed are put back (a second
# counted failure over sections), and nothing is left cacheable under a
# device.  The old series handed the buffer out.
test_kept_sections_alloc_fails() {
	bind_test_device cmadebug-fimc || t_fail "binding cmadebug-fimc failed" || return 1
	failures=$(attr_stat dma-remap failures)
	used=$(cat /sys/kernel/debug/cma/fimc-pool/used)
	if echo 8192 >/sys/kernel/debug/dma-cma-test/cmadebug-fimc/alloc 2>/dev/null; then
		t_fail "alloc 8192 from a section-mapped area succeeded"
		return 1
	fi
	t_eq "dma-remap failures (the remap, then the restore)" $((failures + 2)) "$(attr_stat dma-remap failures)" || return 1
	t_eq "fimc-pool used pages" "$used" "$(cat /sys/kernel/debug/cma/fimc-pool/used)" || return 1
	t_eq "conflicts" 0 "$(count_of $LM/alias_check)"
}

test_kept_sections_buffer_reported() {
	bind_test_device cmadebug-fimc || t_fail "binding cmadebug-fimc failed" || return 1
	failures=$(attr_stat dma-remap failures)
	echo 8192 >/sys/kernel/debug/dma-cma-test/cmadebug-fimc/alloc || t_fail "alloc 8192 failed" || return 1
	pfn=$(last_buffer_pfn cmadebug-fimc)
	cat $LM/alias_check >/tmp/alias-kept.txt
	sed 's/^/# /' /tmp/alias-kept.txt
	t_eq "dma-remap failures after alloc" $((failures + 1)) "$(attr_stat dma-remap failures)" || return 1
	grep -q "^type=alias pfn=$pfn pages=2 class=hazard linear=[^ ]* linear_type=MEM/CACHED/[A-Z]* alias=none alias_type=MEM/BUFFERABLE/WC region=failed-change caller=none cma=fimc-pool$" /tmp/alias-kept.txt ||
		t_fail "buffer at pfn $pfn not reported" || return 1
	t_eq "conflicts" 1 "$(count_of /tmp/alias-kept.txt)" || return 1
	echo 1 >/sys/kernel/debug/dma-cma-test/cmadebug-fimc/free || t_fail "free failed" || return 1
	t_eq "conflicts after free" 0 "$(count_of $LM/alias_check)"
}

# forced-split-nomap: the range covers a no-map reserved-memory region
# at its base (arm-nomap.dtsi), which the linear map leaves out: refused, and the region
# stays unmapped (the old series mapped it cacheable).
test_split_over_nomap_refused() {
	forced_range
	dmesg | grep -q "linear_map_split=.*@$FORCED_PHYS: .*; ignored" ||
		t_fail "no boot message refusing linear_map_split over no-map memory" || return 1
	t_eq "forced total" 0 "$(split_total forced)" || return 1
	nomap_virt=$((FORCED_PHYS - 0x40000000 + 0xc0000000))
	mapped=0
	for l in $(awk '/^0x/ { print $1 }' $PTDUMP); do
		[ $((${l%%-*})) -le $nomap_virt ] && [ $nomap_virt -lt $((${l#*-})) ] || continue
		mapped=$((mapped + 1))
		echo "# mapped over the no-map region: $l"
	done
	t_eq "ptdump entries over the no-map region" 0 $mapped
}

test_bad_split_parameter_rejected() {
	dmesg | grep -q 'linear_map_split=.*ignored' || t_fail "no boot message for the bad linear_map_split=" || return 1
	t_eq "forced total" 0 "$(split_total forced)"
}

# arm, cma=0: the plain device's buffers come from the remap allocator, a
# write-combined vmap over cached sections: a mainline hazard, reported.
test_remap_allocator_alias_found() {
	buffer_alias_listed cmadebug-plain hazard \
		"linear=[^ ]* linear_type=MEM/CACHED/[A-Z]* alias=[^ ]* alias_type=MEM/BUFFERABLE/WC region=vmalloc caller=[^ ]* cma=none$"
}

# The linear_map_split=SIZE@BASE of this boot: FORCED_MIB and FORCED_PHYS
# (whole MiB, as every suite gives it).
forced_range() {
	arg=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^linear_map_split=//p' | tail -n 1)
	FORCED_MIB=${arg%%M@*}
	FORCED_PHYS=${arg#*@}
}

# forced-split suites: linear_map_split= mapped its range with pages.
test_forced_split_counted() {
	forced_range
	phys=$FORCED_PHYS
	case $LM_ARCH in
	arm) b=$(arm_block_mib) && want="size=$((FORCED_MIB * MIB)) from=${b}M to=4k entries=$((FORCED_MIB / b))" ;;
	arm64)
		# every PMD block the range touches is split (64 KiB pages: one
		# 512 MiB block around a 16 MiB range)
		pmd=$(size_mib $(lm_level 3))
		first=$(((FORCED_PHYS / MIB) / pmd * pmd))
		last=$((((FORCED_PHYS / MIB) + FORCED_MIB + pmd - 1) / pmd * pmd))
		phys=$(printf '0x%x' $((first * MIB)))
		want="size=$(((last - first) * MIB)) from=$(lm_level 3) to=$(lm_level 5) entries=$(((last - first) / pmd))"
		;;
	esac
	sed 's/^/# /' $LM/splits
	line=$(split_line forced $phys) || t_fail "no forced record at $phys" || return 1
	t_eq "forced split" "$want" "size=${line#* size=}" || return 1
	t_eq "TAINT_USER after linear_map_split=" 1 "$(user_taint)"
}

# ptdump shows the forced range mapped with pages, and nothing bigger in it.
test_forced_range_page_mapped_in_ptdump() {
	line=$(grep '^type=split cause=forced ' $LM/splits) || t_fail "no forced record" || return 1
	addr=$(echo "$line" | sed 's/.* addr=\(0x[0-9a-f]*\) .*/\1/')
	size=$(echo "$line" | sed 's/.* size=\([0-9]*\) .*/\1/')
	# addr= reads 0x0 only where kptr_restrict hides addresses from the reader
	[ $((addr)) -ne 0 ] ||
		t_fail "addr=0x0 for root (kptr_restrict=$(cat /proc/sys/kernel/kptr_restrict)): $line" || return 1
	pte=0 other=0
	for l in $(awk '/^0x/ { print $1 ":" $3 }' $PTDUMP); do
		start=${l%%-*}
		[ $((start)) -ge $((addr)) ] && [ $((start)) -lt $((addr + size)) ] || continue
		case ${l#*:} in
		PTE) pte=$((pte + 1)) ;;
		*) other=$((other + 1)); echo "# not PTE inside the range: $l" ;;
		esac
	done
	[ $pte -gt 0 ] || t_fail "no PTE lines inside $addr+$size" || return 1
	t_eq "ptdump lines inside the forced range that are not PTE" 0 $other
}

# rodata=full: the linear map is page-granular (but for the kernel image's
# alias, which map_mem() maps with blocks and no contiguous hint), and the
# splits say why.
test_page_granular_linear_map() {
	sed 's/^/# /' $LM/layout
	for k in DirectMap$(lm_level 1) DirectMap$(lm_level 2); do
		t_eq "$k with rodata=full" 0 "$(layout_kb $k)" || return 1
	done
	page=$(lm_level 5)
	[ $(($(layout_kb DirectMap$page) * 10)) -ge $(($(layout_kb Mapped) * 9)) ] ||
		t_fail "less than 90% of the linear map in $page pages" || return 1
	[ "$(split_total page-granular)" -gt 0 ] ||
		t_fail "no page-granular splits recorded"
}

# The UEFI board with rodata=full: edk2's memory map, its runtime-services
# regions NOMAP, leaves map_mem() more page-granular pieces than the 16
# records splits keeps.  The totals are kept apart from the records (issue
# 11, defect 5: they were summed from the kept records and undercounted).
test_split_totals_beyond_kept_records() {
	sed 's/^/# /' $LM/splits
	dropped=$(split_trailer dropped)
	[ "${dropped:-0}" -gt 0 ] ||
		t_fail "no split record dropped: fewer mapped regions than splits keeps" || return 1
	listed=$(awk '$1 == "type=split" && $2 == "cause=page-granular" {
		for (i = 3; i <= NF; i++) if (sub(/^entries=/, "", $i)) n += $i
	} END { print n + 0 }' $LM/splits)
	total=$(split_total page-granular)
	[ "$total" -gt "$listed" ] ||
		t_fail "page-granular total $total is no more than the kept records' $listed, with $dropped records dropped"
}

# debug_pagealloc=on (the kasan board): each page allocated and then freed
# is mapped and unmapped in the linear map by set_memory_valid(), two
# one-page changes.  Under KASAN_SW_TAGS page addresses carry a tag that
# the series must strip before it can tell a linear-map address (issue 11,
# defect 8: they counted 0).
test_debug_pagealloc_changes_counted() {
	changes=$(attr_stat set_memory changes)
	bytes=$(attr_stat set_memory bytes)
	dd if=/dev/zero of=/tmp/pagealloc bs=4096 count=256 2>/dev/null ||
		t_fail "writing 1 MiB to tmpfs failed" || return 1
	rm /tmp/pagealloc
	grown=$(($(attr_stat set_memory changes) - changes))
	sed 's/^/# /' $LM/attr_changes
	[ $grown -ge 512 ] ||
		t_fail "set_memory changes grew by $grown for 256 pages allocated and freed, not 512 or more" || return 1
	[ $(($(attr_stat set_memory bytes) - bytes)) -ge $((grown * 4096)) ] ||
		t_fail "set_memory bytes grew by less than a page per change"
}

# With debug_pagealloc=on free pages are not mapped: a walk is refused
# (EINVAL), and nothing is recorded.
test_walk_refused_with_debug_pagealloc() {
	if echo "start=$WALK_START pages=16 accesses=1" >$WALK 2>/dev/null; then
		t_fail "a walk ran with debug_pagealloc=on"
		return 1
	fi
	t_eq "last walk" runs=0 "$(cat $WALK)"
}

# The forced-split suites' range: split in one boot, walked in every boot.
case $LM_ARCH in
arm) WALK_START=0x60000000 ;;
arm64) WALK_START=0x48000000 ;;
esac
# the ARMv6 board (RealView EB) has its 256 MiB of RAM at 0
case $(cat /proc/device-tree/model 2>/dev/null) in
*RealView*) WALK_START=0x08000000 ;;
esac

# The first address past the last System RAM range of /proc/iomem: RAM on
# no board (PA 0 is RAM on the RealView board).
past_ram() {
	end=$(sed -n 's/^\([0-9a-f]*\)-\([0-9a-f]*\) : System RAM$/\2/p' /proc/iomem | tail -n 1)
	printf '0x%x' $((0x$end + 1))
}

# The last: RAM's address plus 2^44, whose pfn is RAM's once cut to 32 bits
# (arm without LPAE): the old walker walked RAM and reported the other.
test_walk_rejects_bad_input() {
	ram=$WALK_START
	noram=$(past_ram)
	[ "$noram" != 0x1 ] || t_fail "no System RAM in /proc/iomem" || return 1
	for v in "" "start=$ram" "start=$ram pages=1" "start=$((ram + 1)) pages=1 accesses=1" \
		"start=$ram pages=0 accesses=1" "start=$ram pages=1 accesses=0" \
		"start=$noram pages=1 accesses=1" "start=$ram pages=1048577 accesses=1" \
		"start=$ram pages=1 accesses=4294967297" "start=$ram pages=1 accesses=1 foo=1" \
		"start=$ram start=$ram pages=1 accesses=1" "start=$ram pages=-1 accesses=1" \
		"start=$ram pages=1x accesses=1" "start=0xffffffffffff0000 pages=16 accesses=1" \
		"start=$ram pages=1000000 accesses=1" \
		"start=$(printf '0x%x' $((0x100000000000 + ram))) pages=16 accesses=1"; do
		if echo "$v" >$WALK 2>/dev/null; then
			t_fail "walk accepted '$v'"
			return 1
		fi
	done
	t_eq "walk after bad input only" runs=0 "$(cat $WALK)"
}

test_walk_runs_over_range() {
	echo "start=$WALK_START pages=4096 accesses=100000 seed=7" >$WALK ||
		t_fail "walk over $WALK_START failed" || return 1
	out=$(cat $WALK)
	echo "# $out"
	case $out in
	"start=$WALK_START pages=4096 accesses=100000 seed=7 cpu=0 elapsed_ns="*" faults=0 checksum="*) ;;
	*) t_fail "unexpected result '$out'" || return 1 ;;
	esac
	ns=${out#*elapsed_ns=}
	[ "${ns%% *}" -gt 0 ] || t_fail "elapsed_ns is ${ns%% *}"
}

# walk_value KEY: KEY's value in the last walk's report (a counter's).
walk_value() {
	sed -n "s/.* $1=\([^ ]*\).*/\1/p" $WALK
}

# cpu_pmu: the CPU PMU's directory in sysfs (arm64: armv8_pmuv3), or
# nothing: QEMU's cortex-a15 has no PMU (the arm board's device tree has an
# empty pmu node, no driver binds), so the arm guest has none.
cpu_pmu() {
	for d in /sys/bus/event_source/devices/armv*; do
		[ -d "$d" ] && echo "$d" && return 0
	done
	return 0
}

# is_count VALUE: a decimal count, not a word (unsupported, ...)
is_count() {
	case $1 in
	"" | *[!0-9]*) return 1 ;;
	esac
}

# The walk counts itself with the CPU's PMU (0019), as the PMU has the
# events: perf's generic instructions and cycles are counted where the PMU
# lists inst_retired and cpu_cycles (QEMU's arm64 PMU lists inst_retired
# only under -icount: its instruction count needs it), unsupported where
# it does not, and everything is unsupported without a PMU (arm).  Raw
# events: 0x11 (CPU_CYCLES) counts; 0x34 (DTLB_WALK), which QEMU's PMU does
# not list, is taken by the driver and counts nothing: 0.
test_walk_counts_as_the_pmu_has_it() {
	echo "start=$WALK_START pages=1024 accesses=50000 events=0x11,0x34" >$WALK ||
		t_fail "walk with events= failed" || return 1
	out=$(cat $WALK)
	echo "# $out"
	case $out in
	"start=$WALK_START pages=1024 accesses=50000 seed=1 cpu="*" checksum="*" instructions="*" cycles="*" raw_0x11="*" raw_0x34="*) ;;
	*) t_fail "counter keys missing or out of order" || return 1 ;;
	esac
	pmu=$(cpu_pmu)
	echo "# PMU: ${pmu:-none} events: $(ls $pmu/events 2>/dev/null | tr '\n' ' ')"
	if [ -z "$pmu" ]; then
		for k in instructions cycles raw_0x11 raw_0x34; do
			t_eq "$k without a PMU" unsupported "$(walk_value $k)" || return 1
		done
		return 0
	fi
	for k in instructions:inst_retired cycles:cpu_cycles; do
		v=$(walk_value ${k%:*})
		if [ -e $pmu/events/${k#*:} ]; then
			is_count "$v" && [ "$v" -gt 0 ] ||
				t_fail "${k%:*}=$v, but the PMU lists ${k#*:}" || return 1
		else
			t_eq "${k%:*} (the PMU does not list ${k#*:})" unsupported "$v" || return 1
		fi
	done
	v=$(walk_value raw_0x11)
	is_count "$v" && [ "$v" -gt 0 ] || t_fail "raw_0x11 (CPU_CYCLES) is '$v'" || return 1
	[ ! -e $pmu/events/dtlb_walk ] || t_fail "the PMU lists dtlb_walk: QEMU counts TLB walks now?" || return 1
	t_eq "raw_0x34 (DTLB_WALK, not implemented)" 0 "$(walk_value raw_0x34)"
}

# A walk of 2^32 accesses runs for hours under TCG: SIGKILL must end it
# between stretches (the old walker ran to the end), and the killed run
# must not replace the last finished one.
test_walk_ends_on_sigkill() {
	before=$(cat $WALK)
	sh -c "echo 'start=$WALK_START pages=16 accesses=4294967296' >$WALK" &
	pid=$!
	sleep 1
	# a walk refused at once would pass the rest of this test
	[ -e /proc/$pid ] || t_fail "the walk ended within a second: not started?" || return 1
	kill -9 $pid
	i=0
	# a zombie has ended its write; /proc/PID goes when it is reaped
	while [ $i -lt 100 ] && [ -e /proc/$pid ] &&
		[ "$(cut -d ' ' -f 3 /proc/$pid/stat 2>/dev/null)" != Z ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ -e /proc/$pid ] && [ "$(cut -d ' ' -f 3 /proc/$pid/stat 2>/dev/null)" != Z ]; then
		t_fail "the walk still runs 10 s after SIGKILL"
		return 1
	fi
	wait $pid
	t_eq "last walk after the killed one" "$before" "$(cat $WALK)"
}

# arm forced-split suite: dma_cma_keep_sections=1 is malformed, so ignored.
test_malformed_keep_sections_ignored() {
	dmesg | grep -q "Malformed early option 'dma_cma_keep_sections'" ||
		t_fail "no boot message for dma_cma_keep_sections=1" || return 1
	t_eq "cma-remap total (fimc-pool split as usual)" $((16 / $(arm_block_mib))) "$(split_total cma-remap)"
}

# cmadebug in the guest agrees with the kernel's files it reads.  Its
# layout comes from meminfo's DirectMap counters on this kernel (0024/0025),
# which keep a page whose valid bit is clear at its size: the page level is
# compared valid or not, as in test_meminfo_agrees_with_layout.
test_cmadebug_splits_agrees_with_kernel() {
	cmadebug --pretty splits >/tmp/splits.json || t_fail "cmadebug splits exit $?" || return 1
	cat $LM/layout >/tmp/layout.txt
	page=$(awk '$1 ~ /^DirectMap/ { n = $1 } END { sub(/^DirectMap/, "", n); sub(/:$/, "", n); print n }' /tmp/layout.txt)
	for line in $(awk '$1 ~ /^DirectMap/ { sub(/^DirectMap/, "", $1); sub(/:$/, "", $1); print $1 "=" $2 }' /tmp/layout.txt); do
		cls=${line%=*}
		got=$(awk -v c="\"$cls\"," '$1 == "\"level\":" && $2 == c { want = 1; next } want && $1 == "\"bytes\":" { gsub(/,/, "", $2); print $2; exit }' /tmp/splits.json)
		want=$((${line#*=} * 1024))
		[ "$cls" = "$page" ] && want=$((want + $(layout_kb NotPresent /tmp/layout.txt) * 1024))
		t_eq "cmadebug splits bytes at $cls" $want "${got:-0}" || return 1
	done
	t_eq "cmadebug splits source" '"source": "meminfo",' "$(grep -o '"source": "[a-z_]*",' /tmp/splits.json)" || return 1
	# from layout (a number; KFENCE and debug_pagealloc change it between reads)
	grep -q '^ *"not_present_bytes": [0-9]' /tmp/splits.json ||
		t_fail "no not_present_bytes from linear_map/layout" || return 1
	t_eq "split records" "$(split_trailer records)" \
		"$(sed -n 's/^ *"nr_splits": \([0-9]*\),$/\1/p' /tmp/splits.json)"
}

# alias exits 3 with an injected alias, and 0 (or as before) after removal.
test_cmadebug_alias_exit_status() {
	cmadebug alias >/dev/null 2>&1
	before=$?
	base=$(count_of $LM/alias_check)
	echo 1 >$LM/inject/alias_add || t_fail "alias_add failed" || return 1
	cmadebug alias >/tmp/alias-cli.txt 2>&1
	rc=$?
	addr=$(sed -n 's/^alias=\(0x[0-9a-f]*\) .*/\1/p' $LM/inject/aliases)
	echo "$addr" >$LM/inject/alias_remove
	sed 's/^/# /' /tmp/alias-cli.txt
	t_eq "exit status with an injected alias" 3 $rc || return 1
	t_eq "hazards cmadebug counted" "Hazards: $((base + 1))" "$(grep '^Hazards:' /tmp/alias-cli.txt)" || return 1
	cmadebug alias >/dev/null 2>&1
	t_eq "exit status after removal (as before injecting)" $before $?
}

# arm64 at boot: the atomic DMA pool and the non-coherent test devices'
# buffers are sanctioned aliases, no hazard: cmadebug alias lists them and
# exits 0; an injected write-combined alias makes it exit 3.
test_cmadebug_alias_sanctioned_exits_0() {
	cat $LM/alias_check >/tmp/alias-boot.txt
	sed 's/^/# /' /tmp/alias-boot.txt
	t_eq "hazards at boot" 0 "$(count_of /tmp/alias-boot.txt)" || return 1
	n=$(sanctioned_of /tmp/alias-boot.txt)
	[ "${n:-0}" -gt 0 ] || t_fail "no sanctioned alias at boot (the atomic pool)" || return 1
	cmadebug alias >/tmp/alias-cli.txt 2>&1
	rc=$?
	sed 's/^/# /' /tmp/alias-cli.txt
	t_eq "exit status with sanctioned aliases only" 0 $rc || return 1
	t_eq "sanctioned aliases cmadebug counted" "Sanctioned: $n" "$(grep '^Sanctioned:' /tmp/alias-cli.txt)" || return 1
	echo 1 >$LM/inject/alias_add || t_fail "alias_add failed" || return 1
	cmadebug alias >/dev/null 2>&1
	rc=$?
	addr=$(sed -n 's/^alias=\(0x[0-9a-f]*\) .*/\1/p' $LM/inject/aliases)
	echo "$addr" >$LM/inject/alias_remove
	t_eq "exit status with an injected write-combined alias" 3 $rc
}

# levels FILE: "LEVEL=BYTES" per layout entry of a --pretty splits document
levels() {
	awk '$1 == "\"level\":" { l = $2; gsub(/[",]/, "", l) }
		$1 == "\"bytes\":" && l != "" { b = $2; gsub(/,/, "", b); print l "=" b; l = "" }' "$1"
}

# The tables walked through /proc/kcore (what cmadebug reads on a
# distribution kernel) against ptdump's dump of the same tables, level by
# level to the byte: ptdump's view from a tree holding only its file.
test_kcore_layout_equals_ptdump() {
	mkdir -p /tmp/pt/proc /tmp/pt/sys/kernel/debug
	echo "debugfs /sys/kernel/debug debugfs rw 0 0" >/tmp/pt/proc/mounts
	cat /sys/kernel/debug/kernel_page_tables >/tmp/pt/sys/kernel/debug/kernel_page_tables
	cmadebug --pretty splits --kcore >/tmp/kcore-splits.json 2>/tmp/kcore.err ||
		t_fail "splits --kcore exit $?: $(cat /tmp/kcore.err)" || return 1
	cmadebug --pretty --root /tmp/pt splits >/tmp/pt-splits.json ||
		t_fail "splits from ptdump exit $?" || return 1
	cmadebug splits --kcore | sed 's/^/# /'
	t_eq "source" '"source": "kcore",' "$(grep -o '"source": "[a-z_]*",' /tmp/kcore-splits.json)" || return 1
	t_eq "layout (kcore vs ptdump)" "$(levels /tmp/pt-splits.json | tr '\n' ' ')" \
		"$(levels /tmp/kcore-splits.json | tr '\n' ' ')" || return 1
	pages=$(levels /tmp/kcore-splits.json | awk -F= '$1 == "4k" || $1 == "64k" { s += $2 } END { print s + 0 }')
	t_eq "page_mapped_bytes (4k + 64k)" "$pages" "$(json_value /tmp/kcore-splits.json page_mapped_bytes)"
}

# alias --kcore finds what alias_check lists with an alias address: the
# boot's non-coherent buffers and one injected page, the same pfn, pages,
# addresses and memory types.
test_kcore_alias_equals_alias_check() {
	echo 1 >$LM/inject/alias_add || t_fail "alias_add failed" || return 1
	cat $LM/alias_check >/tmp/alias-k.txt
	cmadebug alias --kcore >/tmp/alias-kcore.txt 2>&1
	rc=$?
	addr=$(sed -n 's/^alias=\(0x[0-9a-f]*\) .*/\1/p' $LM/inject/aliases)
	echo "$addr" >$LM/inject/alias_remove
	sed 's/^/# /' /tmp/alias-kcore.txt
	t_eq "alias --kcore exit status (conflicts)" 3 $rc || return 1
	sed -n 's/^type=alias pfn=\([^ ]*\) pages=\([^ ]*\) class=[^ ]* linear=\([^ ]*\) linear_type=\([^ ]*\) alias=\(0x[^ ]*\) alias_type=\([^ ]*\) region=\([^ ]*\) .*/\1 \2 \3 \4 \5 \6 \7/p' \
		/tmp/alias-k.txt | sort >/tmp/alias-k.want
	# the text's CLASS column is "-": /proc/kcore has no vmalloc flags
	awk '$2 ~ /^0x/ { print $2, $3, $4, $5, $6, $7, $8 }' /tmp/alias-kcore.txt | sort >/tmp/alias-k.got
	[ -s /tmp/alias-k.want ] || t_fail "alias_check listed no alias" || return 1
	t_eq "conflicts (kcore vs alias_check)" "$(tr '\n' ';' </tmp/alias-k.want)" "$(tr '\n' ';' </tmp/alias-k.got)"
}

# A process's transparent huge pages: the user walk checks each PMD whole
# and must never split it (a walk with only a PTE callback would), and a
# cached huge page is no alias.  On the boards built with THP.
test_user_walk_keeps_huge_pages_whole() {
	echo always >/sys/kernel/mm/transparent_hugepage/enabled ||
		t_fail "cannot enable THP" || return 1
	thp-hold 4194304 >/tmp/thp.out 2>&1 &
	pid=$!
	i=0
	while ! grep -q '^mapped ' /tmp/thp.out && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	huge_before=$(awk '/^AnonHugePages:/ { print $2 }' /proc/meminfo)
	echo "$pid" >$LM/alias_check_pid
	cat $LM/alias_check >/tmp/thp-alias.txt
	echo none >$LM/alias_check_pid
	huge_after=$(awk '/^AnonHugePages:/ { print $2 }' /proc/meminfo)
	kill "$pid"
	wait "$pid" 2>/dev/null
	sed 's/^/# /' /tmp/thp.out
	grep '^type=coverage checked=' /tmp/thp-alias.txt | sed 's/^/# /'
	[ "${huge_before:-0}" -ge 2048 ] ||
		t_fail "no huge page mapped (AnonHugePages: ${huge_before:-none} kB)" || return 1
	t_eq "AnonHugePages after the walk (kB)" "$huge_before" "$huge_after" || return 1
	grep -q "^type=coverage checked=.*,user pid=$pid " /tmp/thp-alias.txt ||
		t_fail "the process was not walked" || return 1
	! grep -q " region=user .* pid=$pid\$" /tmp/thp-alias.txt ||
		t_fail "a cached huge page listed as an alias"
}

LM_WALK_TESTS="
	test_walk_rejects_bad_input
	test_walk_runs_over_range
	test_walk_counts_as_the_pmu_has_it
	test_walk_ends_on_sigkill"
# debug_pagealloc unmaps free pages: the walker refuses to run (0019)
if grep -qw debug_pagealloc=on /proc/cmdline; then
	LM_WALK_TESTS=test_walk_refused_with_debug_pagealloc
fi
LM_MAIN_TESTS="
	test_linear_map_files_and_modes
	test_splits_records_and_totals
	test_layout_adds_up_to_boot_mapping
	test_layout_agrees_with_ptdump
	test_meminfo_agrees_with_layout
	test_alias_injection_found_and_removed
	test_inject_rejects_bad_input
	test_kptr_restrict_hides_kernel_addresses
	test_alias_check_pid_rejects_bad_input
	test_alias_check_during_alloc_free
	$LM_WALK_TESTS
	test_cmadebug_splits_agrees_with_kernel
	test_cmadebug_alias_exit_status"
LM_ARM_MAIN_TESTS="
	test_private_pool_split_at_boot
	test_section_linear_type_is_cache_policy
	test_cmadebug_alias_clean_board_exits_0
	test_alias_check_clean_at_boot
	test_coherent_alloc_traces_attr_change
	test_cmadebug_alias_pid_clean_exits_0"
LM_ARM64_MAIN_TESTS="
	test_noncoherent_buffer_alias_found
	test_cmadebug_alias_sanctioned_exits_0
	test_cmadebug_alias_pid_sanctioned_exits_0"
# on the boards whose linear map holds still between two reads: not with
# KFENCE (the debug and UEFI boards) or debug_pagealloc=on (the KASAN
# board, whose shadow also lies where the walk assumes the linear map)
if [ -r /proc/kcore ] && [ ! -d /sys/kernel/debug/kfence ] &&
	! grep -qw debug_pagealloc=on /proc/cmdline; then
	LM_ARM64_MAIN_TESTS="$LM_ARM64_MAIN_TESTS test_kcore_layout_equals_ptdump test_kcore_alias_equals_alias_check"
fi
# the boards built with transparent huge pages (the KASAN board)
if [ -d /sys/kernel/mm/transparent_hugepage ]; then
	LM_ARM64_MAIN_TESTS="$LM_ARM64_MAIN_TESTS test_user_walk_keeps_huge_pages_whole"
fi
if grep -qw debug_pagealloc=on /proc/cmdline; then
	LM_ARM64_MAIN_TESTS="$LM_ARM64_MAIN_TESTS test_debug_pagealloc_changes_counted"
fi
LM_LOWMEM_CMA_TESTS="
	test_lowmem_cma_area_split
	test_layout_adds_up_to_boot_mapping
	test_layout_agrees_with_ptdump
	test_meminfo_agrees_with_layout"
LM_UNSAFE_SECTIONS_TESTS="
	test_kept_sections_not_split
	test_layout_agrees_with_ptdump
	test_meminfo_agrees_with_layout
	test_kept_sections_buffer_reported
	test_bad_split_parameter_rejected"
LM_KEEP_SECTIONS_FAIL_TESTS="
	test_kept_sections_not_split
	test_layout_agrees_with_ptdump
	test_meminfo_agrees_with_layout
	test_kept_sections_alloc_fails"
LM_NO_DEFAULT_CMA_TESTS="
	test_remap_allocator_alias_found
	test_cmadebug_alias_pid_hazard_exits_3
	test_layout_agrees_with_ptdump
	test_meminfo_agrees_with_layout"
LM_FORCED_SPLIT_NOMAP_TESTS="
	test_split_over_nomap_refused
	test_layout_adds_up_to_boot_mapping
	test_layout_agrees_with_ptdump
	test_meminfo_agrees_with_layout"
LM_ARM_FORCED_SPLIT_TESTS="
	test_malformed_keep_sections_ignored"
LM_FORCED_SPLIT_TESTS="
	test_forced_split_counted
	test_forced_range_page_mapped_in_ptdump
	test_walk_runs_over_range
	test_layout_adds_up_to_boot_mapping
	test_layout_agrees_with_ptdump
	test_meminfo_agrees_with_layout"
LM_RODATA_FULL_TESTS="
	test_page_granular_linear_map
	test_layout_adds_up_to_boot_mapping
	test_layout_agrees_with_ptdump
	test_meminfo_agrees_with_layout
	test_alias_injection_found_and_removed"
# booted through UEFI (the uefi board): the firmware's memory map
if [ -d /sys/firmware/efi ]; then
	LM_RODATA_FULL_TESTS="$LM_RODATA_FULL_TESTS test_split_totals_beyond_kept_records"
fi
