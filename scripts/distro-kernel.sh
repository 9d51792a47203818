#!/usr/bin/env bash
# Fetches (once; cached) the distribution kernel a QEMU board boots as a
# stock-kernel test board, and prints its directory: what qemu-run.sh takes
# as KERNEL_DIR (Image or zImage, .config, .complete), plus 'version'.
#
#   distro-kernel.sh ARCH [FLAVOUR]   Debian's linux-image-FLAVOUR, the version
#                                     the archive serves (default FLAVOUR:
#                                     arm64 for arm64, armmp for arm; also
#                                     armmp-lpae)
#
# The directory also holds modules/: the package's own modules a guest
# loads to make the CMA allocations a stock kernel makes for a real driver
# (DISTRO_MODULES, in load order: virtio-blk over PCI, whose rings come
# from dma_alloc_coherent() and so from CMA when QEMU's device has
# iommu_platform=on; tests/qemu/stock.sh).
#
# The package lists of each guest architecture live in the cache
# ($CMADEBUG_CACHE/apt/DEBARCH), not in /var/lib/apt: another 'apt-get update' on the
# machine cannot drop them, and no root is needed.  They are refreshed when
# older than DISTRO_LISTS_MAX_AGE days (default 7; 0: now); a cached kernel
# of the version they name boots without the network.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-}
check_arch "$arch"
debarch=$(deb_arch "$arch")
flavour=${2:-$(distro_default_flavour "$arch")}
meta=linux-image-$flavour
# one directory per architecture: an update drops the lists it was not asked for
apt_dir=$CMADEBUG_CACHE/apt/$debarch
apt_opts=(-q -o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache"
	-o Dir::State::status=/dev/null -o APT::Architecture="$debarch"
	-o APT::Architectures::="$debarch" -o Debug::NoLocking=1)

mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
stamp=$apt_dir/updated
if [ -z "$(find "$stamp" -mtime -"${DISTRO_LISTS_MAX_AGE:-7}" 2>/dev/null)" ]; then
	note "updating the $debarch package lists in $apt_dir"
	apt_update apt-get "${apt_opts[@]}" update >"$apt_dir/update.log" 2>&1
	touch "$stamp"
fi

# The metapackage's candidate depends on exactly one versioned image package.
pkg= ver=
read -r pkg ver < <(distro_image_package "$meta" "${apt_opts[@]}") || true
[ -n "$pkg" ] && [ -n "$ver" ] || die "no $meta:$debarch in the package lists ($apt_dir/lists)"
kdir=$CMADEBUG_CACHE/distro/$pkg-$ver
image=$(basename "$(kernel_image_path "$arch")")
if [ ! -f "$kdir/.complete" ]; then
	mkdir -p "$CMADEBUG_CACHE/distro"
	tmp=$(mktemp -d "$CMADEBUG_CACHE/distro/.$pkg.XXXXXX")
	chmod 755 "$tmp"
	note "fetching $pkg $ver ($debarch)"
	(cd "$tmp" && apt-get "${apt_opts[@]}" download "$pkg=$ver" >"$tmp/.apt.log" 2>&1) || {
		cat "$tmp/.apt.log" >&2
		rm -rf "$tmp"
		die "could not download $pkg=$ver ($debarch)"
	}
	dpkg-deb -x "$tmp"/*.deb "$tmp/pkg"
	kver=${pkg#linux-image-}
	vmlinuz=$tmp/pkg/boot/vmlinuz-$kver
	[ -f "$vmlinuz" ] || die "$pkg has no /boot/vmlinuz-$kver"
	# arm64's vmlinuz is a gzip-compressed Image on some releases
	if [ "$(head -c2 "$vmlinuz" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
		gzip -dc "$vmlinuz" >"$tmp/$image"
	else
		cp "$vmlinuz" "$tmp/$image"
	fi
	cp "$tmp/pkg/boot/config-$kver" "$tmp/.config"
	echo "$pkg $ver $debarch" >"$tmp/version"
	rm -rf "$tmp/pkg" "$tmp/.apt.log"
	mv "$tmp"/*.deb "$tmp/package.deb"
	touch "$tmp/.complete"
	rm -rf "$kdir"
	mv "$tmp" "$kdir"
fi
# apart from .complete: a kernel cached before modules/ existed gets them
# from its package.deb, without the network
if [ ! -f "$kdir/modules/.complete" ]; then
	tmp=$(mktemp -d "$kdir/.modules.XXXXXX")
	dpkg-deb -x "$kdir/package.deb" "$tmp/pkg"
	mkdir "$tmp/modules"
	for m in $DISTRO_MODULES; do
		ko=$(find "$tmp/pkg/lib/modules" -path "*/kernel/$m.ko*" -print -quit)
		[ -n "$ko" ] || die "$pkg has no module $m"
		cp "$ko" "$tmp/modules/"
		basename "$ko" >>"$tmp/modules/load-order"
	done
	touch "$tmp/modules/.complete"
	rm -rf "$kdir/modules"
	mv "$tmp/modules" "$kdir/modules"
	rm -rf "$tmp"
fi
echo "$kdir"
