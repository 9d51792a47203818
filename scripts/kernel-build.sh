#!/usr/bin/env bash
# Build the patched kernel for one board, out of tree, cached by a hash of
# (base version, patches, config fragments, arch).  Prints the directory that
# holds the finished kernel (image, .config, System.map, vmlinux).
#
#   kernel-build.sh arm|arm64
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-}
check_arch "$arch"
cross=$(cross_compile "$arch")
require_cmd "${cross}gcc" "gcc-$( [ "$arch" = arm ] && echo arm-linux-gnueabihf || echo aarch64-linux-gnu)"
for tool in flex:flex bison:bison bc:bc; do
	require_cmd "${tool%%:*}" "${tool#*:}"
done

"$TOP/scripts/kernel-tree.sh" prepare

out=$(kernel_dir_for "$arch")
if [ -f "$out/.complete" ]; then
	echo "$out"
	exit 0
fi

# Its own object tree per flavour: switching configs would rebuild everything.
obj=$CMADEBUG_CACHE/obj/$(kernel_flavour "$arch")
mkdir -p "$obj" "$CMADEBUG_CACHE/kernels"
log=$obj/build.log
kmake() {
	make -C "$KERNEL_SRC" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross" "$@"
}

# Every line of every fragment must survive olddefconfig: a dependency that
# silently dropped an option would make the tests lie.  A later fragment
# overrides an earlier one (arm-lpae.config turns on what arm.config turns
# off), as merge_config.sh does.
verify_config() {
	local frag line sym bad=0
	local -A want from
	while read -r frag; do
		while read -r line; do
			case $line in
			CONFIG_*=*) sym=${line%%=*} ;;
			"# CONFIG_"*" is not set")
				sym=${line#\# }
				sym=${sym%% *}
				;;
			*) continue ;;
			esac
			want[$sym]=$line
			from[$sym]=$(basename "$frag")
		done <"$frag"
	done < <(config_fragments "$arch")
	for sym in "${!want[@]}"; do
		line=${want[$sym]}
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$obj/.config" || {
				echo "cmadebug: ${from[$sym]}: '$line' did not stick; .config has: $(grep -E "^(# )?$sym[= ]" "$obj/.config" || echo 'nothing')" >&2
				bad=1
			}
			;;
		*)
			if grep -q "^$sym=" "$obj/.config"; then
				echo "cmadebug: ${from[$sym]}: $sym should be off but is on" >&2
				bad=1
			fi
			;;
		esac
	done
	return $bad
}

note "building the $arch kernel (log: $log)"
{
	kmake tinyconfig
	# shellcheck disable=SC2046
	"$KERNEL_SRC/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" $(config_fragments "$arch")
	kmake olddefconfig
} >"$log" 2>&1 || {
	tail -n 20 "$log" >&2
	die "configuring the $arch kernel failed (full log: $log)"
}
verify_config || die "the $arch kernel config does not have what kernel-patches/configs asks for"

image=$(kernel_image_path "$arch")
dtb=$(board_kernel_dtb "$arch")
if ! kmake -j"$(nproc)" "$(basename "$image")" ${dtb:+"$dtb"} >>"$log" 2>&1; then
	grep -m 10 -E 'error:|Error [0-9]' "$log" >&2 || true
	tail -n 5 "$log" >&2
	die "building the $arch kernel failed (full log: $log)"
fi

tmp=$(mktemp -d "$CMADEBUG_CACHE/kernels/.$arch.XXXXXX")
cp "$obj/$image" "$tmp/$(basename "$image")"
cp "$obj/.config" "$tmp/config"
cp "$obj/System.map" "$obj/vmlinux" "$tmp/"
[ -z "$dtb" ] || cp "$obj/arch/$arch/boot/dts/$dtb" "$tmp/"
{
	echo "arch=$arch"
	echo "base=$(kernel_base_version)"
	echo "patches=$(git -C "$KERNEL_SRC" rev-list --count base..HEAD)"
	echo "head=$(git -C "$KERNEL_SRC" rev-parse --short HEAD)"
	echo "image=$(basename "$image")"
} >"$tmp/build-info"
touch "$tmp/.complete"
rm -rf "$out"
mv "$tmp" "$out"

# Keep the three newest kernels per flavour (16 hex digits: arm- must not
# match arm-debug-).
ls -1dt "$CMADEBUG_CACHE/kernels/$(kernel_flavour "$arch")-"???????????????? 2>/dev/null |
	tail -n +4 | xargs -r rm -rf
echo "$out"
