#!/usr/bin/env bash
# make kernel-lint: the C files the series touches, compiled with W=1 and
# checked by sparse (C=2), for arm and arm64, on the pristine base and on
# the tip of the series; fails on any warning the series adds.
#
#   kernel-lint.sh [ARCH...]     (default: arm arm64)
#
# Which files: those base..cmadebug adds or changes that the board kernel
# builds (their object exists in the board's object tree, so build the
# kernel first: make kernel), and page_owner.c and (arm64) memory_hotplug.c,
# for which the board's configuration gains PAGE_OWNER and MEMORY_HOTPLUG.  Both
# trees are built in a git worktree of the cache tree, out of tree in
# $CMADEBUG_CACHE/lint/ARCH; logs in $CMADEBUG_CACHE/lint/ARCH-{base,tip}.log.
# A warning is compared without its line and column (the series moves
# lines), so "new" means: this text, in this file, more often than before.
# Prints the new warnings, then "N passed, N failed" (one check per arch).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

require_cmd sparse sparse
ldir=$CMADEBUG_CACHE/lint
tree=$ldir/tree
kernel_worktree "$tree"
tip=$(git -C "$KERNEL_SRC" rev-parse cmadebug)

# lint_extras ARCH: OPTION=y:OBJECT pairs, options the board configs lack
# whose files the series touches (build-matrix.sh's "on" adds them too)
lint_extras() {
	echo "CONFIG_PAGE_OWNER=y:mm/page_owner.o"
	[ "$1" = arm64 ] && echo "CONFIG_MEMORY_HOTPLUG=y:mm/memory_hotplug.o" "CONFIG_MEMORY_HOTREMOVE=y:"
	return 0
}

# touched_objects ARCH: the objects of the changed C files that ARCH's board
# kernel builds, and those of lint_extras
touched_objects() {
	local arch=$1 obj f extra
	obj=$CMADEBUG_CACHE/obj/$(kernel_flavour "$arch")
	[ -f "$obj/.config" ] || die "no $arch kernel built in $obj: run 'make kernel' first"
	git -C "$KERNEL_SRC" diff --name-only --diff-filter=AM base "$tip" -- '*.c' | while read -r f; do
		[ -f "$obj/${f%.c}.o" ] && echo "${f%.c}.o"
	done
	for extra in $(lint_extras "$arch"); do
		[ -z "${extra#*:}" ] || echo "${extra#*:}"
	done
	return 0
}

# warnings LOG: "file: text" for each compiler or sparse warning/error
warnings() {
	sed -n -E 's/^([^ :]+):[0-9]+(:[0-9]+)?: (warning|error): (.*)$/\1: \3: \4/p' "$1" |
		sed "s|^$tree/||" | sort
}

# extras_stuck ARCH CONFIG: whether olddefconfig kept lint_extras' options
extras_stuck() {
	local extra
	for extra in $(lint_extras "$1"); do
		grep -qxF "${extra%%:*}" "$2" || { echo "${extra%%:*} did not stick"; return 1; }
	done
}

# lint ARCH COMMIT LOG OBJECT...: compile the objects at COMMIT with W=1
# and sparse, output in LOG
lint() {
	local arch=$1 commit=$2 log=$3
	shift 3
	local obj=$ldir/$arch objs=() o
	git -C "$tree" checkout -q --detach "$commit"
	mkdir -p "$obj"
	# removed first: a compiler warning shows only when the file compiles
	for o in "$@"; do
		[ -f "$tree/${o%.o}.c" ] && objs+=("$o") && rm -f "$obj/$o"
	done
	cp "$CMADEBUG_CACHE/obj/$(kernel_flavour "$arch")/.config" "$obj/.config"
	local extra
	for extra in $(lint_extras "$arch"); do
		echo "${extra%%:*}" >>"$obj/.config"
	done
	local kmake=(make -C "$tree" O="$obj" ARCH="$arch" CROSS_COMPILE="$(cross_compile "$arch")")
	{
		"${kmake[@]}" olddefconfig && extras_stuck "$arch" "$obj/.config" &&
			{ [ ${#objs[@]} = 0 ] || "${kmake[@]}" -j"$(nproc)" W=1 C=2 "${objs[@]}"; }
	} >"$log" 2>&1 || {
		tail -n 20 "$log" >&2
		die "$arch: building at $(git -C "$KERNEL_SRC" log -1 --format=%h "$commit") failed (log: $log)"
	}
}

arches=("$@")
[ $# -gt 0 ] || arches=(arm arm64)
pass=0 fail=0
for arch in "${arches[@]}"; do
	check_arch "$arch"
	mapfile -t objs < <(touched_objects "$arch")
	lint "$arch" base "$ldir/$arch-base.log" "${objs[@]}"
	lint "$arch" "$tip" "$ldir/$arch-tip.log" "${objs[@]}"
	new=$(comm -13 <(warnings "$ldir/$arch-base.log") <(warnings "$ldir/$arch-tip.log"))
	if [ -z "$new" ]; then
		pass=$((pass + 1))
		echo "ok   $arch: W=1 and sparse add no warning in ${#objs[@]} objects: ${objs[*]}"
	else
		fail=$((fail + 1))
		echo "FAIL $arch: the series adds $(echo "$new" | wc -l) warnings in ${#objs[@]} objects: ${objs[*]} (logs: $ldir/$arch-{base,tip}.log):"
		echo "$new" | sed 's/^/  /'
	fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
