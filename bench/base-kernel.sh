#!/usr/bin/env bash
# Builds (once; cached by hash) the unpatched kernel of the benchmarks: the
# 'base' tag of the kernel tree (Debian's 6.12 without kernel-patches/) with
# the same config fragments as the series' kernel of ARCH (KERNEL_VARIANT
# included; the options only the series has drop out), and prints its
# directory (Image and .config) on stdout.
#   bench/base-kernel.sh ARCH
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

arch=${1:?usage: base-kernel.sh ARCH}
flavour=$(kernel_flavour "$arch")
bdir=$CMADEBUG_CACHE/bench
base_kernel=$bdir/kernel-$flavour-base-$(
	{
		echo "recipe $BUILD_RECIPE_VERSION base $(kernel_base_version)"
		config_fragments "$arch" | xargs cat
	} | sha256sum | cut -c1-16
)
if [ ! -f "$base_kernel/.complete" ]; then
	"$TOP/scripts/kernel-tree.sh" prepare
	tree=$bdir/tree
	obj=$bdir/obj-$flavour
	image=$(kernel_image_path "$arch")
	mkdir -p "$bdir" "$obj"
	[ -d "$tree" ] || git -C "$KERNEL_SRC" worktree add -q --detach "$tree" base
	kmake=(make -C "$tree" O="$obj" ARCH="$arch" CROSS_COMPILE="$(cross_compile "$arch")")
	note "building the unpatched $flavour kernel (log: $obj/build.log)"
	# shellcheck disable=SC2046
	{ "${kmake[@]}" tinyconfig &&
		"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" $(config_fragments "$arch") &&
		"${kmake[@]}" olddefconfig &&
		"${kmake[@]}" -j"$(nproc)" "$(basename "$image")"; } >"$obj/build.log" 2>&1 ||
		die "building the unpatched kernel failed (log: $obj/build.log)"
	tmp=$(mktemp -d "$bdir/.kernel.XXXXXX")
	cp "$obj/$image" "$obj/.config" "$tmp/"
	touch "$tmp/.complete"
	rm -rf "$base_kernel"
	mv "$tmp" "$base_kernel"
fi
echo "$base_kernel"
