# make compare, guest side: one strategy's run on this boot.  Snapshot,
# fill memory with movable page cache and keep rewriting part of it, run
# coherent allocations and frees through the test device, keep one buffer,
# snapshot again, and print everything as a base64 tarball between markers.
# On a board: COMPARE_OUT=/tmp/STRATEGY.tar.gz sh compare.sh writes the
# tarball there instead (unpack it into build/compare/BOARD/STRATEGY/).
#
# facts.txt is KEY=VALUE, one a line, read by 'python3 -m cmadebug_report
# compare' (reports/README.md lists the keys); a value the guest cannot know
# is "unknown".  scripts/compare.sh appends what only the host knows.
[ -n "${COMPARE_OUT:-}" ] || echo 1 >/proc/sys/kernel/printk # keep kernel messages out of the stream
strategy=unknown
for arg in $(cat /proc/cmdline); do
	case $arg in
	cmadebug.strategy=*) strategy=${arg#cmadebug.strategy=} ;;
	esac
done
out=/tmp/compare
mkdir -p $out
dev=cmadebug-fimc
knobs=/sys/kernel/debug/dma-cma-test/$dev
LM=/sys/kernel/debug/linear_map

meminfo_kb() { awk -v k="$1:" '$1 == k { print $2; f = 1 } END { if (!f) print "unknown" }' /proc/meminfo; }

# The device tree's no-map reserved-memory regions: memory the kernel never
# manages (not in MemTotal, not in the linear map).  Prints "KIB NAMES".
nomap_regions() {
	rm=/proc/device-tree/reserved-memory
	[ -d $rm ] || { echo "0 none"; return; }
	cells() { od -An -v -tx1 "$1" 2>/dev/null | tr -d ' \n'; }
	ac=$((0x$(cells $rm/#address-cells))) sc=$((0x$(cells $rm/#size-cells)))
	kb=0 names=
	for n in $rm/*/; do
		[ -e "$n/no-map" ] && [ -e "$n/reg" ] || continue
		hex=$(cells "$n/reg")
		while [ ${#hex} -ge $(((ac + sc) * 8)) ]; do
			size=${hex:$((ac * 8)):$((sc * 8))}
			kb=$((kb + 0x$size / 1024))
			hex=${hex:$(((ac + sc) * 8))}
		done
		names="$names${names:+,}$(basename "$n")"
	done
	echo "$kb ${names:-none}"
}

echo dma-cma-test >/sys/bus/platform/devices/$dev/driver_override
echo $dev >/sys/bus/platform/drivers/dma-cma-test/bind
memtotal=$(meminfo_kb MemTotal)
memavailable=$(meminfo_kb MemAvailable)
cmatotal=$(meminfo_kb CmaTotal)
lowtotal=$(meminfo_kb LowTotal)
hightotal=$(meminfo_kb HighTotal)
nomap=$(nomap_regions)
nomap_kb=${nomap%% *} nomap_names=${nomap#* }
model=$(tr -d '\0' </proc/device-tree/model 2>/dev/null || echo unknown)
cmadebug snapshot -o $out/before.json 2>$out/before.err

# Pressure: page cache in tmpfs (movable, so it may sit in CMA pageblocks and
# must be migrated out), 60 % of what is available, and a writer that keeps
# replacing 8 MiB of it while the allocations run.
fill=$(($(meminfo_kb MemAvailable) * 6 / 10 / 1024))
dd if=/dev/zero of=/tmp/fill bs=1M count=$fill 2>/dev/null
(
	while [ ! -f /tmp/stop ]; do
		dd if=/dev/zero of=/tmp/churn bs=1M count=8 2>/dev/null
		rm -f /tmp/churn
	done
) &
churn=$!
size=1048576 rounds=48
load=$(dma-alloc-load $knobs $size $rounds 2>$out/load.err)
echo $size >$knobs/alloc # one buffer stays: what alias_check sees with one in use
: >/tmp/stop
wait $churn
rm -f /tmp/fill
cmadebug snapshot -o $out/after.json 2>$out/after.err

# entries split, summed over the causes' "type=total cause=C entries=N" lines
splits=$(awk '$1 == "type=total" && sub(/^entries=/, "", $3) { t += $3; n++ } END { if (n) print t }' $LM/splits 2>/dev/null)
conflicts=$(tail -n 1 $LM/alias_check 2>/dev/null | sed -n 's/^count=\([0-9]*\) .*/\1/p')
failures=$(sed -n 's/^cause=dma-remap .*failures=\([0-9]*\).*/\1/p' $LM/attr_changes 2>/dev/null)
{
	echo "strategy=$strategy"
	echo "machine=$(uname -m) $model"
	echo "kernel=$(cat /proc/version)"
	echo "cmdline=$(cat /proc/cmdline)"
	echo "memtotal_kb=$memtotal"
	echo "memavailable_kb=$memavailable"
	echo "cmatotal_kb=$cmatotal"
	echo "lowtotal_kb=$lowtotal"
	echo "hightotal_kb=$hightotal"
	echo "nomap_kb=$nomap_kb"
	echo "nomap_regions=$nomap_names"
	echo "fill_mib=$fill"
	echo "alloc_size_bytes=$size"
	echo "alloc_rounds=$rounds"
	echo "alloc_kept=1"
	echo "splits=${splits:-unknown}"
	echo "conflicts=${conflicts:-unknown}"
	echo "dma_remap_failures=${failures:-unknown}"
	echo "load=${load:-none}"
} >$out/facts.txt
cp $LM/layout $LM/splits $LM/alias_check $LM/attr_changes $out/ 2>/dev/null
cat /sys/kernel/debug/kernel_page_tables >$out/kernel_page_tables 2>/dev/null

if [ -n "${COMPARE_OUT:-}" ]; then
	tar -C $out -cf - . | gzip -9 >"$COMPARE_OUT"
	exit
fi
echo "=== CMADEBUG CAPTURE BEGIN ==="
tar -C $out -cf - . | gzip -9 | base64
echo "=== CMADEBUG CAPTURE END ==="
