#!/usr/bin/env bash
# The guest initramfs: static busybox for the guest arch, the statically
# cross-linked cmadebug, and tests/qemu/.  Built with the kernel's own
# gen_init_cpio, so device nodes need no root.  Prints the .cpio path.
#
#   initramfs.sh arm|arm64 OUTDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-}
check_arch "$arch"
out=${2:?usage: initramfs.sh ARCH OUTDIR}
sysroot=$CMADEBUG_CACHE/sysroot/$(deb_arch "$arch")
[ -f "$sysroot/.complete" ] || die "guest packages for $(deb_arch "$arch") not fetched: run 'make deps'"
busybox=$sysroot/root/bin/busybox
[ -x "$busybox" ] || die "no static busybox in $sysroot (busybox-static:$(deb_arch "$arch"))"
[ -f "$KERNEL_SRC/usr/gen_init_cpio.c" ] || die "no kernel tree: run 'make kernel-tree'"
mkdir -p "$out"

# cmadebug, static, against the guest-arch libtracefs/libtraceevent.
make -s -C "$TOP/cmadebug" O="$out/cmadebug" CROSS_COMPILE="$(cross_compile "$arch")" \
	STATIC=1 SYSROOT="$sysroot/root" >"$out/cmadebug-build.log" 2>&1 || {
	grep -m 5 -E 'error' "$out/cmadebug-build.log" >&2 || true
	die "cross-building cmadebug for $arch failed (log: $out/cmadebug-build.log)"
}

# The guest sides of bench/cma-alloc.sh, bench/linear-map.sh,
# bench/debug-pagealloc.sh, make compare.
for b in cma_alloc_bench read_bench page_churn dma_alloc_load; do
	"$(cross_compile "$arch")gcc" -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -static \
		-o "$out/${b//_/-}" "$TOP/bench/$b.c" ||
		die "cross-building bench/$b.c for $arch failed"
done

gen=$BUILD/host/gen_init_cpio
if [ ! -x "$gen" ] || [ "$KERNEL_SRC/usr/gen_init_cpio.c" -nt "$gen" ]; then
	mkdir -p "$(dirname "$gen")"
	cc -O2 -o "$gen.tmp" "$KERNEL_SRC/usr/gen_init_cpio.c" && mv "$gen.tmp" "$gen"
fi

list=$out/initramfs.list
{
	for d in /bin /usr /usr/bin /dev /proc /sys /tmp /tests; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "file /bin/busybox $busybox 0755 0 0"
	echo "file /init $TOP/tests/qemu/init 0755 0 0"
	echo "file /usr/bin/cmadebug $out/cmadebug/cmadebug 0755 0 0"
	echo "file /usr/bin/cma-alloc-bench $out/cma-alloc-bench 0755 0 0"
	echo "file /usr/bin/read-bench $out/read-bench 0755 0 0"
	echo "file /usr/bin/page-churn $out/page-churn 0755 0 0"
	echo "file /usr/bin/dma-alloc-load $out/dma-alloc-load 0755 0 0"
	echo "file /usr/bin/tlb-ab.sh $TOP/perf-scripts/tlb-ab.sh 0755 0 0"
	for f in "$TOP"/tests/qemu/*.sh; do
		echo "file /tests/$(basename "$f") $f 0644 0 0"
	done
	# a distribution kernel's own modules (scripts/distro-kernel.sh)
	if [ -n "${KERNEL_DIR:-}" ] && [ -f "$KERNEL_DIR/modules/.complete" ]; then
		echo "dir /lib 0755 0 0"
		echo "dir /lib/modules 0755 0 0"
		for f in "$KERNEL_DIR"/modules/*.ko* "$KERNEL_DIR/modules/load-order"; do
			echo "file /lib/modules/$(basename "$f") $f 0644 0 0"
		done
	fi
} >"$list"
"$gen" "$list" >"$out/initramfs.cpio.tmp"
mv "$out/initramfs.cpio.tmp" "$out/initramfs.cpio"
echo "$out/initramfs.cpio"
