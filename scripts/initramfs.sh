#!/usr/bin/env bash
# The guest initramfs: static busybox for the guest arch, the statically
# cross-linked cmadebug, tests/qemu/, and for arm64 Debian's perf with the
# shared libraries it loads.  Built with the kernel's own
# gen_init_cpio, so device nodes need no root.  Prints the .cpio path.
#
#   initramfs.sh arm|arm64 OUTDIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-}
check_arch "$arch"
out=${2:?usage: initramfs.sh ARCH OUTDIR}
# the userland's Debian arch: armel on the ARMv6 board (lib.sh guest_deb_arch)
debarch=$(guest_deb_arch "$arch")
cross=$(guest_cross_compile "$arch")
require_cmd "${cross}gcc" "gcc-${cross%-}"
sysroot=$CMADEBUG_CACHE/sysroot/$debarch
[ -f "$sysroot/.complete" ] || die "guest packages for $debarch not fetched: run 'make deps'"
busybox=$sysroot/root/bin/busybox
[ -x "$busybox" ] || die "no static busybox in $sysroot (busybox-static:$debarch)"
[ -f "$KERNEL_SRC/usr/gen_init_cpio.c" ] || die "no kernel tree: run 'make kernel-tree'"
mkdir -p "$out"

# cmadebug, static, against the guest-arch libtracefs/libtraceevent, the
# guest sides of bench/cma-alloc.sh, bench/linear-map.sh,
# bench/debug-pagealloc.sh, make compare, and the guest tests' helpers
# tests/qemu/dma-mmap-hold.c and thp-hold.c (a process holding a user
# mapping of a coherent buffer, or of huge pages, for alias_check_pid):
# built once per arch in
# $BUILD/guest-ARCH for every board of that arch (a dozen boards boot in
# make check; building them each time cost three core-minutes), under a
# lock, as boards of one arch start side by side.
guest=$BUILD/guest-$arch
[ "$debarch" = "$(deb_arch "$arch")" ] || guest=$BUILD/guest-$arch-$debarch
mkdir -p "$guest"
(
	flock 9
	make -s -C "$TOP/cmadebug" O="$guest/cmadebug" CROSS_COMPILE="$cross" \
		STATIC=1 SYSROOT="$sysroot/root" >"$guest/cmadebug-build.log" 2>&1 || {
		grep -m 5 -E 'error' "$guest/cmadebug-build.log" >&2 || true
		die "cross-building cmadebug for $arch failed (log: $guest/cmadebug-build.log)"
	}
	for b in cma_alloc_bench read_bench page_churn dma_alloc_load; do
		[ "$guest/${b//_/-}" -nt "$TOP/bench/$b.c" ] && continue
		"${cross}gcc" -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -static \
			-o "$guest/${b//_/-}.tmp" "$TOP/bench/$b.c" ||
			die "cross-building bench/$b.c for $arch failed"
		mv "$guest/${b//_/-}.tmp" "$guest/${b//_/-}"
	done
	for h in dma-mmap-hold thp-hold; do
		[ "$guest/$h" -nt "$TOP/tests/qemu/$h.c" ] && continue
		"${cross}gcc" -std=c11 -O2 -Wall -Wextra -Werror -static \
			-o "$guest/$h.tmp" "$TOP/tests/qemu/$h.c" ||
			die "cross-building tests/qemu/$h.c for $arch failed"
		mv "$guest/$h.tmp" "$guest/$h"
	done
) 9>"$guest/.lock" || exit 1

# perf_entries PERF_ROOT: gen_init_cpio lines for Debian's perf (its
# binary is /usr/bin/perf) and the closure of its DT_NEEDED libraries from
# the unpacked packages, in /lib/<triplet> where the loader looks; the
# loader itself at its PT_INTERP path.
perf_entries() {
	local root=$1 triplet todo=() seen=" " f n d lib interp
	triplet=$cross
	triplet=${triplet%-}
	[ -x "$root/usr/bin/perf" ] || die "no perf in $root (linux-perf:$debarch)"
	echo "dir /lib 0755 0 0"
	echo "dir /lib/$triplet 0755 0 0"
	echo "file /usr/bin/perf $root/usr/bin/perf 0755 0 0"
	todo=("$root/usr/bin/perf")
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case $seen in *" $n "*) continue ;; esac
			seen="$seen$n "
			lib=""
			for d in lib usr/lib; do
				[ -e "$root/$d/$triplet/$n" ] && lib=$(readlink -f "$root/$d/$triplet/$n") && break
			done
			[ -n "$lib" ] || die "perf needs $n, which no package in $root holds (scripts/deps.sh GUEST_PERF_PACKAGES)"
			echo "file /lib/$triplet/$n $lib 0755 0 0"
			todo+=("$lib")
		done
	done
	interp=$(readelf -l "$root/usr/bin/perf" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
	case $seen in *" ${interp##*/} "*) ;; *) die "perf's loader $interp is not among its libraries" ;; esac
	[ "$interp" = "/lib/$triplet/${interp##*/}" ] || echo "slink $interp $triplet/${interp##*/} 0777 0 0"
}

perf_root=""
if [ "$arch" = arm64 ]; then
	perf_root=$CMADEBUG_CACHE/perf/$debarch
	[ -f "$perf_root/.complete" ] || die "Debian's perf for $debarch not fetched: run 'make deps'"
fi

gen=$BUILD/host/gen_init_cpio
if [ ! -x "$gen" ] || [ "$KERNEL_SRC/usr/gen_init_cpio.c" -nt "$gen" ]; then
	mkdir -p "$(dirname "$gen")"
	# a file of its own: boards start side by side
	cc -O2 -o "$gen.$$" "$KERNEL_SRC/usr/gen_init_cpio.c" && mv "$gen.$$" "$gen"
fi

list=$out/initramfs.list
{
	for d in /bin /usr /usr/bin /dev /proc /sys /tmp /tests; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "file /bin/busybox $busybox 0755 0 0"
	echo "file /init $TOP/tests/qemu/init 0755 0 0"
	echo "file /usr/bin/cmadebug $guest/cmadebug/cmadebug 0755 0 0"
	echo "file /usr/bin/cma-alloc-bench $guest/cma-alloc-bench 0755 0 0"
	echo "file /usr/bin/read-bench $guest/read-bench 0755 0 0"
	echo "file /usr/bin/page-churn $guest/page-churn 0755 0 0"
	echo "file /usr/bin/dma-alloc-load $guest/dma-alloc-load 0755 0 0"
	echo "file /usr/bin/dma-mmap-hold $guest/dma-mmap-hold 0755 0 0"
	echo "file /usr/bin/thp-hold $guest/thp-hold 0755 0 0"
	echo "file /usr/bin/tlb-ab.sh $TOP/perf-scripts/tlb-ab.sh 0755 0 0"
	for f in "$TOP"/tests/qemu/*.sh; do
		echo "file /tests/$(basename "$f") $f 0644 0 0"
	done
	[ -z "$perf_root" ] || perf_entries "$perf_root/root"
	# a distribution kernel's own modules (scripts/distro-kernel.sh)
	if [ -n "${KERNEL_DIR:-}" ] && [ -f "$KERNEL_DIR/modules/.complete" ]; then
		[ -n "$perf_root" ] || echo "dir /lib 0755 0 0"
		echo "dir /lib/modules 0755 0 0"
		for f in "$KERNEL_DIR"/modules/*.ko* "$KERNEL_DIR/modules/load-order"; do
			echo "file /lib/modules/$(basename "$f") $f 0644 0 0"
		done
	fi
} >"$list"
"$gen" "$list" >"$out/initramfs.cpio.tmp"
mv "$out/initramfs.cpio.tmp" "$out/initramfs.cpio"
echo "$out/initramfs.cpio"
