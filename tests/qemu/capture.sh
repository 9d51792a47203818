# make fixtures: copy the kernel files cmadebug reads into a tree shaped like
# the root file system, and print it as a base64 tarball between markers on
# the console (debugfs/sysfs files report size 0, so they are read with cat).
# On a board: CAPTURE_OUT=/tmp/board.tar.gz sh capture.sh writes the tarball
# there instead (root/ is what 'cmadebug --root' reads).
[ -n "${CAPTURE_OUT:-}" ] || echo 1 >/proc/sys/kernel/printk # keep kernel messages out of the stream
dst=/tmp/capture/root
mkdir -p $dst

copy() { # copy FILE...: readable regular files only (skips write-only knobs)
	for f in "$@"; do
		[ -f "$f" ] && [ -r "$f" ] || continue
		mkdir -p "$dst$(dirname "$f")"
		cat "$f" >"$dst$f" 2>/dev/null || rm -f "$dst$f"
	done
}

# On a kernel with the series' fault injection, leave something to report:
# one failure of each stage the knobs provoke, and a device buffer in the
# private area (a board capture skips this: no inject/ there).
provoke() {
	area=/sys/kernel/debug/cma/reserved
	[ -d $area/inject ] || return 0
	echo $(($(cat $area/count) + 1)) >$area/alloc 2>/dev/null
	echo 2 >$area/inject/pin && echo $(cat $area/maxchunk) >$area/alloc 2>/dev/null
	echo 1 >$area/inject/release
	echo 1 >$area/inject/isolate && echo $(cat $area/maxchunk) >$area/alloc 2>/dev/null
	echo 1 >$area/inject/release
	dev=/sys/bus/platform/devices/cmadebug-fimc
	if [ -d /sys/bus/platform/drivers/dma-cma-test ] && [ -d $dev ]; then
		echo dma-cma-test >$dev/driver_override
		echo cmadebug-fimc >/sys/bus/platform/drivers/dma-cma-test/bind
		echo 1048576 >/sys/kernel/debug/dma-cma-test/cmadebug-fimc/alloc
	fi
	# one deliberate write-combined alias of a cached lowmem page
	lm=/sys/kernel/debug/linear_map/inject
	[ -d $lm ] && echo 1 >$lm/alias_add
}
[ -n "${CAPTURE_OUT:-}" ] || provoke

# A recording of one injected migrate-stage failure (pin, allocate,
# release) with what 'cmadebug trace record' said about it: the host tests
# read trace.dat back with 'cmadebug trace report' (libtracecmd).
if [ -z "${CAPTURE_OUT:-}" ] && [ -d /sys/kernel/debug/cma/reserved/inject ]; then
	mkdir -p /tmp/capture/trace
	area=/sys/kernel/debug/cma/reserved
	# and a coherent buffer of the test driver (bound by provoke()): on
	# arm, __dma_remap()'s linear_map_attr_change events (no run-time
	# splits happen to record)
	fimc=/sys/kernel/debug/dma-cma-test/cmadebug-fimc
	cmadebug --json trace record -o /tmp/capture/trace/trace.dat -- sh -c "
		echo 2 >$area/inject/pin && { echo \$(cat $area/maxchunk) >$area/alloc; } 2>/dev/null
		echo 1 >$area/inject/release
		echo 8 >$area/alloc && echo 8 >$area/free
		[ -d $fimc ] && echo 8192 >$fimc/alloc && echo 1 >$fimc/free" \
		>/tmp/capture/trace/record.json 2>/tmp/capture/trace/record.err
	echo $? >/tmp/capture/trace/record.rc
elif [ -z "${CAPTURE_OUT:-}" ] && [ -f /lib/modules/load-order ]; then
	# a distribution kernel: its own virtio_blk's rings, three unbind/bind
	# cycles (tests/qemu/stock.sh says why they come from CMA)
	mkdir -p /tmp/capture/trace
	while read -r m; do insmod /lib/modules/$m; done </lib/modules/load-order
	blk=/sys/bus/virtio/drivers/virtio_blk
	dev=$(ls $blk | grep '^virtio[0-9]' | head -n 1)
	cmadebug --json trace record -o /tmp/capture/trace/trace.dat -- sh -c "
		for i in 1 2 3; do echo $dev >$blk/unbind && echo $dev >$blk/bind; done" \
		>/tmp/capture/trace/record.json 2>/tmp/capture/trace/record.err
	echo $? >/tmp/capture/trace/record.rc
fi

copy /proc/mounts /proc/meminfo /proc/cmdline /proc/version /proc/vmstat
# per-zone CMA pages and free CMA blocks by order (areas, stock view)
copy /proc/zoneinfo /proc/pagetypeinfo
copy /sys/kernel/security/lockdown
# What a kernel without CMA debugfs still tells (cmadebug areas' stock
# view): the device tree's reserved-memory nodes and the boot log, the text
# of 'dmesg' where Debian's bootlogd kept it.
for f in $(find /sys/firmware/devicetree/base/reserved-memory -type f 2>/dev/null); do
	copy "$f"
done
mkdir -p $dst/var/log && dmesg >$dst/var/log/dmesg
for a in /sys/kernel/debug/cma/*/; do
	for f in "$a"*; do
		case $(stat -c %a "$f") in 2*) continue ;; esac # alloc/free are write-only
		copy "$f"
	done
done
copy /sys/kernel/debug/cma/*/inject/list /sys/kernel/debug/dma-cma-test/*/buffers
copy /sys/kernel/mm/cma/*/*
for e in cma/cma_alloc_start cma/cma_alloc_finish cma/cma_alloc_busy_retry \
	cma/cma_release cma/cma_alloc_fail migrate/mm_migrate_pages; do
	copy /sys/kernel/tracing/events/$e/format /sys/kernel/tracing/events/$e/id
done
copy /sys/kernel/debug/kernel_page_tables
copy /sys/kernel/debug/linear_map/layout /sys/kernel/debug/linear_map/splits \
	/sys/kernel/debug/linear_map/attr_changes /sys/kernel/debug/linear_map/alias_check \
	/sys/kernel/debug/linear_map/inject/aliases
for e in linear_map/linear_map_split linear_map/linear_map_attr_change; do
	copy /sys/kernel/tracing/events/$e/format /sys/kernel/tracing/events/$e/id
done

# What cmadebug says on the live guest, and its exit status (<cmd>.rc: 3 for
# alias conflicts, 2 where the kernel lacks a file): the host tests expect the
# same from 'cmadebug --root root/' on the captured copy.
exp=/tmp/capture/expected
mkdir -p $exp
for cmd in areas events stats failures bitmap splits alias doctor; do
	cmadebug $cmd >$exp/$cmd.txt 2>&1
	echo $? >$exp/$cmd.rc
	cmadebug --json $cmd >$exp/$cmd.json 2>&1
done
# A live kernel without linear_map/ and ptdump answers splits and alias
# from its tables through /proc/kcore, which no tree holds: that answer is
# kept as <cmd>-kcore.*, and <cmd>.* is what the tree itself gives.
# doctor's /proc/kcore row is live-only too.
for cmd in splits alias doctor; do
	grep -q '"source":"kcore"\|through /proc/kcore' $exp/$cmd.json || continue
	for f in txt json rc; do mv $exp/$cmd.$f $exp/$cmd-kcore.$f; done
	cmadebug --root $dst $cmd 2>&1 | sed "s|$dst||g" >$exp/$cmd.txt
	cmadebug --root $dst $cmd >/dev/null 2>&1
	echo $? >$exp/$cmd.rc
	cmadebug --json --root $dst $cmd 2>&1 | sed "s|$dst||g" >$exp/$cmd.json
done

if [ -n "${CAPTURE_OUT:-}" ]; then
	tar -C /tmp/capture -cf - . | gzip -9 >"$CAPTURE_OUT"
	rm -rf /tmp/capture
	exit 0
fi
echo "=== CMADEBUG CAPTURE BEGIN ==="
tar -C /tmp/capture -cf - . | gzip -9 | base64
echo "=== CMADEBUG CAPTURE END ==="
