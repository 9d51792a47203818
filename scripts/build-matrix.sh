#!/usr/bin/env bash
# Build every prefix of kernel-patches/series for arm and arm64, with the
# options the series adds on and off, as a maintainer would before sending it:
#
#   on   the board config + PAGE_OWNER, KFENCE and MEMORY_HOTPLUG (arm64),
#        whose code the series touches (KFENCE: both arches' pool splits)
#   off  the board config without CMA_DEBUGFS, LINEAR_MAP_DEBUGFS, TEST_DMA_CMA,
#        TEST_LINEAR_MAP_WALK and (arm) ARM_DMA_CMA_KEEP_SECTIONS: no failure
#        log, no linear_map files, no fault injection, no walker, no test
#        driver, sections always split; KFENCE on, whose hooks then call
#        the series' stubs
#   nocma  without CMA at all (only at the tip of the series)
#   lmcore LINEAR_MAP_DEBUGFS without its fault injection and the walker (tip)
#   modules both arches with MODULES: the two lib/ test modules built as
#          modules, so modpost checks they use only exported symbols (tip)
#   lpae   arm with LPAE: 2M blocks instead of sections (tip)
#   os48   arm at -Os with a failure log of 48 (not a power of two): a u64
#          modulo there needs __aeabi_uldivmod, which the kernel lacks (tip)
#   clang  both arches with Debian's clang and lld (LLVM=1), log of 48 (tip)
#   noperf both arches without PERF_EVENTS, the walker on: its counters
#          say "unsupported" (tip)
#
# Out of tree in $CMADEBUG_CACHE/matrix/, from a git worktree of the cache
# tree, so the work tree is left alone.  Prints one line per build and a
# closing "N passed, N failed"; logs in $CMADEBUG_CACHE/matrix/*.log.
# MATRIX_FROM=N starts at patch N, MATRIX_TO=N ends there (the "tip" is then
# patch N); MATRIX_TIP="arm:os48 arm64:clang ..." builds only those tip
# variants (no per-patch builds).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mdir=$CMADEBUG_CACHE/matrix
tree=$mdir/tree
kernel_worktree "$tree"
mapfile -t commits < <(git -C "$KERNEL_SRC" rev-list --reverse base..cmadebug)
[ ${#commits[@]} -gt 0 ] || die "kernel-patches/series is empty: nothing to build"
# MATRIX_FROM=N starts at patch N (1-based), for re-checking a changed tail.
from=${MATRIX_FROM:-1}
[[ $from =~ ^[1-9][0-9]*$ ]] && [ "$from" -le ${#commits[@]} ] || die "MATRIX_FROM=$from: not a patch number (1-${#commits[@]})"
# MATRIX_TO=N ends at patch N: the tip variants build there too.
to=${MATRIX_TO:-${#commits[@]}}
[[ $to =~ ^[1-9][0-9]*$ ]] && [ "$to" -ge "$from" ] && [ "$to" -le ${#commits[@]} ] ||
	die "MATRIX_TO=$to: not a patch number ($from-${#commits[@]})"
commits=("${commits[@]:$((from - 1)):$((to - from + 1))}")

extra_config() {
	local arch=$1 variant=$2
	case $variant in
	on)
		echo "CONFIG_PAGE_OWNER=y"
		echo "CONFIG_KFENCE=y"
		[ "$arch" = arm64 ] && echo "CONFIG_MEMORY_HOTPLUG=y" && echo "CONFIG_MEMORY_HOTREMOVE=y"
		;;
	off) printf '%s\n' "# CONFIG_CMA_DEBUGFS is not set" "# CONFIG_LINEAR_MAP_DEBUGFS is not set" \
		"# CONFIG_ARM_DMA_CMA_KEEP_SECTIONS is not set" "# CONFIG_TEST_DMA_CMA is not set" \
		"# CONFIG_TEST_LINEAR_MAP_WALK is not set" "CONFIG_KFENCE=y" ;;
	lmcore) printf '%s\n' "# CONFIG_LINEAR_MAP_FAULT_INJECT is not set" "# CONFIG_TEST_LINEAR_MAP_WALK is not set" ;;
	modules) printf '%s\n' "CONFIG_MODULES=y" "CONFIG_MODULE_UNLOAD=y" "CONFIG_TEST_DMA_CMA=m" \
		"CONFIG_TEST_LINEAR_MAP_WALK=m" ;;
	lpae) printf '%s\n' "CONFIG_ARM_LPAE=y" ;;
	os48) printf '%s\n' "CONFIG_CC_OPTIMIZE_FOR_SIZE=y" "CONFIG_CMA_DEBUGFS_FAILURES=48" ;;
	clang) printf '%s\n' "CONFIG_CMA_DEBUGFS_FAILURES=48" ;;
	nocma) printf '%s\n' "# CONFIG_CMA is not set" "# CONFIG_DMA_CMA is not set" ;;
	noperf) printf '%s\n' "# CONFIG_PERF_EVENTS is not set" "CONFIG_TEST_LINEAR_MAP_WALK=y" ;;
	esac
	return 0
}

# The variant's options must have survived olddefconfig, or "on" would
# quietly build without the code it is meant to cover.
variant_applied() {
	local frag=$1 config=$2 line sym
	while read -r line; do
		case $line in
		CONFIG_*=*) grep -qxF "$line" "$config" || return 1 ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			! grep -q "^$sym=" "$config" || return 1
			;;
		esac
	done <"$frag"
}

pass=0 fail=0
build_one() {
	local commit=$1 arch=$2 variant=$3 obj frag log subject
	obj=$mdir/obj-$arch-$variant
	log=$mdir/$arch-$variant.log
	frag=$mdir/extra-$arch-$variant.config
	subject=$(git -C "$KERNEL_SRC" log -1 --format=%s "$commit")
	mkdir -p "$obj"
	extra_config "$arch" "$variant" >"$frag"
	git -C "$tree" checkout -q --detach "$commit"
	local kmake=(make -C "$tree" O="$obj" ARCH="$arch" CROSS_COMPILE="$(cross_compile "$arch")")
	local targets=("$(basename "$(kernel_image_path "$arch")")")
	[ "$variant" = clang ] && kmake+=(LLVM=1)
	[ "$variant" = modules ] && targets+=(modules)
	# shellcheck disable=SC2046
	if { "${kmake[@]}" tinyconfig &&
		"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" $(config_fragments "$arch") "$frag" &&
		"${kmake[@]}" olddefconfig &&
		variant_applied "$frag" "$obj/.config" &&
		"${kmake[@]}" -j"$(nproc)" "${targets[@]}"; } >"$log" 2>&1 &&
		! grep -E "^[^ ]*(mm|include|kernel/dma|lib|arch/arm(64)?/mm)/[^ ]*: (warning|error):" "$log" >/dev/null; then
		pass=$((pass + 1))
		echo "ok   $arch $variant: $subject"
	else
		fail=$((fail + 1))
		echo "FAIL $arch $variant: $subject (log: $log)"
		grep -m 5 -E 'warning:|error:' "$log" || true
	fi
}

if [ -n "${MATRIX_TIP:-}" ]; then
	for av in $MATRIX_TIP; do
		build_one "${commits[-1]}" "${av%%:*}" "${av#*:}"
	done
else
	for commit in "${commits[@]}"; do
		for arch in arm arm64; do
			for variant in on off; do
				build_one "$commit" "$arch" "$variant"
			done
		done
	done
	for arch in arm arm64; do
		build_one "${commits[-1]}" "$arch" nocma
		build_one "${commits[-1]}" "$arch" lmcore
		build_one "${commits[-1]}" "$arch" clang
		build_one "${commits[-1]}" "$arch" noperf
		build_one "${commits[-1]}" "$arch" modules
	done
	build_one "${commits[-1]}" arm lpae
	build_one "${commits[-1]}" arm os48
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
