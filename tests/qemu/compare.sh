# make compare, guest side: one strategy's run on this boot.  Snapshot,
# fill memory with movable page cache and keep rewriting part of it, run
# coherent allocations and frees through the test device, keep one buffer,
# snapshot again, and print everything as a base64 tarball between markers.
echo 1 >/proc/sys/kernel/printk # keep kernel messages out of the stream
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

meminfo_kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

echo dma-cma-test >/sys/bus/platform/devices/$dev/driver_override
echo $dev >/sys/bus/platform/drivers/dma-cma-test/bind
memtotal=$(meminfo_kb MemTotal)
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
load=$(dma-alloc-load $knobs 1048576 48 2>$out/load.err)
echo 1048576 >$knobs/alloc # one buffer stays: what alias_check sees with one in use
: >/tmp/stop
wait $churn
rm -f /tmp/fill
cmadebug snapshot -o $out/after.json 2>$out/after.err

splits=$(awk '$1 == "total" { sub(/^count=/, "", $3); t += $3 } END { print t + 0 }' $LM/splits 2>/dev/null)
conflicts=$(tail -n 1 $LM/alias_check 2>/dev/null | sed -n 's/^count=\([0-9]*\) .*/\1/p')
failures=$(sed -n 's/^cause=dma-remap .*failures=\([0-9]*\).*/\1/p' $LM/attr_changes 2>/dev/null)
{
	echo "strategy=$strategy"
	echo "cmdline=$(cat /proc/cmdline)"
	echo "memtotal_kb=$memtotal"
	echo "fill_mib=$fill"
	echo "splits=${splits:-unknown}"
	echo "conflicts=${conflicts:-unknown}"
	echo "dma_remap_failures=${failures:-unknown}"
	echo "load=${load:-none}"
} >$out/facts.txt
cp $LM/layout $LM/splits $LM/alias_check $LM/attr_changes $out/ 2>/dev/null
cat /sys/kernel/debug/kernel_page_tables >$out/kernel_page_tables 2>/dev/null

echo "=== CMADEBUG CAPTURE BEGIN ==="
tar -C $out -cf - . | gzip -9 | base64
echo "=== CMADEBUG CAPTURE END ==="
