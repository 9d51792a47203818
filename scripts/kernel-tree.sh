#!/usr/bin/env bash
# The kernel work tree in the cache: the pristine linux-source-6.12 committed
# as tag 'base', with kernel-patches/series applied on branch 'cmadebug'.
#
#   kernel-tree.sh prepare   unpack once; (re)apply the series when it changed
#   kernel-tree.sh export    regenerate kernel-patches/ from base..cmadebug
#   kernel-tree.sh path      print the tree's path
set -euo pipefail
. "$(dirname "$0")/lib.sh"

STAMP=$KERNEL_SRC/.git/cmadebug-series

git_k() {
	git -C "$KERNEL_SRC" "$@"
}

series_hash() {
	{
		series_patches
		series_patches | while read -r p; do cat "$TOP/kernel-patches/$p"; done
	} | sha256sum | cut -c1-16
}

unpack_base() {
	[ -d "$KERNEL_SRC/.git" ] && git_k rev-parse -q --verify base >/dev/null && return 0
	[ -f "$KERNEL_TARBALL" ] || die "no $KERNEL_TARBALL (Debian package linux-source-6.12): run 'make deps'"
	mkdir -p "$CMADEBUG_CACHE"
	local tmp
	tmp=$(mktemp -d "$CMADEBUG_CACHE/.linux.XXXXXX")
	note "unpacking $(basename "$KERNEL_TARBALL") into the cache (once)"
	tar -C "$tmp" --strip-components=1 -xJf "$KERNEL_TARBALL" || {
		rm -rf "$tmp"
		die "could not unpack $KERNEL_TARBALL"
	}
	(
		cd "$tmp"
		git init -q -b cmadebug
		git config user.name "cmadebug"
		git config user.email "cmadebug@localhost"
		git config gc.auto 0
		# -f: Debian's top-level .gitignore ignores everything but debian/
		git add -A -f
		git commit -q -m "Linux $(kernel_base_version) (Debian linux-source-6.12)"
		git tag base
	) || {
		rm -rf "$tmp"
		die "could not commit the pristine tree"
	}
	rm -rf "$KERNEL_SRC"
	mv "$tmp" "$KERNEL_SRC"
}

# git am drops the "Notes:" block format-patch --notes writes below "---"
# (why a checkpatch remark stays); put it back on the commit just applied.
restore_notes() {
	local note
	note=$(awk '/^---$/ { body = 1; next } body && /^Notes:$/ { grab = 1; next }
		grab && /^    / { sub(/^    /, ""); print; next } grab { exit }' "$1")
	[ -z "$note" ] || git_k notes add -f -m "$note" HEAD
}

apply_series() {
	local want have
	want=$(series_hash)
	have=$(cat "$STAMP" 2>/dev/null || true)
	[ "$want" = "$have" ] && return 0

	if [ -n "$(git_k status --porcelain --untracked-files=no)" ]; then
		die "kernel tree $KERNEL_SRC has uncommitted changes and kernel-patches/ changed; commit them and run 'make kernel-patches', or discard them"
	fi
	note "applying kernel-patches/series to $KERNEL_SRC"
	git_k am --abort >/dev/null 2>&1 || true
	git_k checkout -q -f -B cmadebug base
	local p out
	while read -r p; do
		[ -f "$TOP/kernel-patches/$p" ] || die "series names $p, which is not in kernel-patches/"
		if ! out=$(git_k am -q --whitespace=nowarn "$TOP/kernel-patches/$p" 2>&1); then
			git_k am --abort >/dev/null 2>&1 || true
			echo "$out" | grep -E '^(error|Patch failed|patch failed)' >&2 || echo "$out" >&2
			die "patch $p does not apply to $(kernel_base_version)"
		fi
		restore_notes "$TOP/kernel-patches/$p"
	done < <(series_patches)
	echo "$want" >"$STAMP"
}

export_series() {
	[ -d "$KERNEL_SRC/.git" ] || die "no kernel tree yet: run 'make kernel-tree'"
	if [ -n "$(git_k status --porcelain --untracked-files=no)" ]; then
		die "kernel tree $KERNEL_SRC has uncommitted changes: commit them first"
	fi
	local tmp
	tmp=$(mktemp -d)
	git_k -c diff.suppressBlankEmpty=true format-patch -q --zero-commit --no-signature --notes -o "$tmp" base..cmadebug
	find "$TOP/kernel-patches" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
	{
		echo "# Applied in order with 'git am' on Debian's linux-source-6.12 (make kernel-tree)."
		for f in "$tmp"/*.patch; do
			[ -e "$f" ] || continue
			mv "$f" "$TOP/kernel-patches/"
			basename "$f"
		done
	} >"$SERIES"
	rmdir "$tmp"
	series_hash >"$STAMP"
	note "kernel-patches/: $(series_patches | wc -l) patches"
}

case ${1:-} in
prepare)
	unpack_base
	apply_series
	;;
export) export_series ;;
path) echo "$KERNEL_SRC" ;;
*) die "usage: kernel-tree.sh prepare|export|path" ;;
esac
