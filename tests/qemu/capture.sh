# make fixtures: copy the kernel files cmadebug reads into a tree shaped like
# the root file system, and print it as a base64 tarball between markers on
# the console (debugfs/sysfs files report size 0, so they are read with cat).
echo 1 >/proc/sys/kernel/printk # keep kernel messages out of the stream
dst=/tmp/capture
mkdir -p $dst

copy() { # copy FILE...: readable regular files only (skips write-only knobs)
	for f in "$@"; do
		[ -f "$f" ] && [ -r "$f" ] || continue
		mkdir -p "$dst$(dirname "$f")"
		cat "$f" >"$dst$f" 2>/dev/null || rm -f "$dst$f"
	done
}

copy /proc/mounts /proc/meminfo /proc/cmdline /proc/version
for a in /sys/kernel/debug/cma/*/; do
	for f in "$a"*; do
		case $(stat -c %a "$f") in 2*) continue ;; esac # alloc/free are write-only
		copy "$f"
	done
done
copy /sys/kernel/mm/cma/*/*
for e in cma/cma_alloc_start cma/cma_alloc_finish cma/cma_alloc_busy_retry \
	cma/cma_release migrate/mm_migrate_pages; do
	copy /sys/kernel/tracing/events/$e/format /sys/kernel/tracing/events/$e/id
done
copy /sys/kernel/debug/kernel_page_tables

# cmadebug's own view, for the expected output of the host tests.
mkdir -p $dst/.cmadebug
cmadebug areas >$dst/.cmadebug/areas.txt 2>&1
cmadebug --json areas >$dst/.cmadebug/areas.json 2>&1
cmadebug events >$dst/.cmadebug/events.txt 2>&1
cmadebug --json events >$dst/.cmadebug/events.json 2>&1

echo "=== CMADEBUG CAPTURE BEGIN ==="
tar -C $dst -cf - . | gzip -9 | base64
echo "=== CMADEBUG CAPTURE END ==="
