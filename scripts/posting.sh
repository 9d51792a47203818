#!/usr/bin/env bash
# make posting AUTHOR="Name <mail>": kernel-patches/ as the series a person
# sends, under their own name.  The patches here carry a placeholder
# identity (cmadebug <cmadebug@localhost>): a Signed-off-by certifies the
# Developer's Certificate of Origin, which only a person can do, so nobody
# posts them as they are.  This writes, in OUT (default build/posting):
#
#   cma-diagnostics/   0000-cover-letter.patch, then 0001-0009
#   linear-map/        0000-cover-letter.patch, then the rest, "based on"
#                      the first series
#
# each patch applied with 'git am' on the base tree (so the series is known
# to apply), its From: and Signed-off-by: those of AUTHOR, its notes (the
# checkpatch leftovers explained) below the "---", and each cover letter's
# subject and text from kernel-patches/cover/<series>.txt (first line the
# subject) with git's shortlog and diffstat below.
#
#   scripts/posting.sh "Name <mail>" [OUT]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

placeholder="cmadebug <cmadebug@localhost>"
author=${1:-}
out=${2:-$BUILD/posting}
# "Name <user@host>": a name of its own, one address, nothing else.
if ! [[ $author =~ ^([^<>@]*[^<>@[:space:]])[[:space:]]+\<([^<>@[:space:]]+@[^<>@[:space:]]+\.[^<>@[:space:]]+)\>$ ]]; then
	echo "cmadebug: AUTHOR=\"$author\": not \"Name <user@example.org>\"; usage: make posting AUTHOR=\"Name <mail>\"" >&2
	exit 2
fi
# (the placeholder's host has no domain: it never matches)
name=${BASH_REMATCH[1]}
mail=${BASH_REMATCH[2]}

# Series name and first patch, in order; each runs to the next one's first.
series=(cma-diagnostics:1 linear-map:10)

tree=$CMADEBUG_CACHE/posting/tree
kernel_worktree "$tree"
git_t() {
	git -C "$tree" -c user.name="$name" -c user.email="$mail" "$@"
}
git_t am --abort >/dev/null 2>&1 || true
git_t checkout -q --detach base

mapfile -t patches < <(series_patches)
mapfile -t originals < <(git -C "$KERNEL_SRC" rev-list --reverse base..cmadebug)
[ ${#patches[@]} -eq ${#originals[@]} ] ||
	die "kernel-patches/series has ${#patches[@]} patches, the kernel tree ${#originals[@]}: run 'make kernel-tree'"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for p in "${patches[@]}"; do
	sed -e "s|^From: $placeholder\$|From: $author|" \
		-e "s|^Signed-off-by: $placeholder\$|Signed-off-by: $author|" \
		"$TOP/kernel-patches/$p" >"$work/$p"
done
GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$mail git_t am -q "${patches[@]/#/$work/}" ||
	die "kernel-patches/ does not apply on the base tree with 'git am' (see $tree)"
mapfile -t applied < <(git_t rev-list --reverse base..HEAD)

# The notes of the kernel tree's commits, on the applied ones, in a ref of
# their own.
git_t update-ref -d refs/notes/posting
for i in "${!originals[@]}"; do
	if git -C "$KERNEL_SRC" notes show "${originals[$i]}" >"$work/note" 2>/dev/null; then
		git_t notes --ref=posting add -f -F "$work/note" "${applied[$i]}"
	fi
done

rm -rf "$out"
for s in "${!series[@]}"; do
	sname=${series[$s]%%:*}
	first=${series[$s]#*:}
	last=${#applied[@]}
	[ $((s + 1)) -lt ${#series[@]} ] && last=$((${series[$((s + 1))]#*:} - 1))
	cover=$TOP/kernel-patches/cover/$sname.txt
	[ -f "$cover" ] || die "$cover missing"
	from=${applied[$((first - 1))]}
	to=${applied[$((last - 1))]}
	git_t -c diff.suppressBlankEmpty=true format-patch -q --cover-letter --thread=shallow \
		--notes=posting --no-signature --zero-commit -o "$out/$sname" "$from^..$to"
	# git labels notes of another ref with its name: as the export shows them
	sed -i 's/^Notes (posting):$/Notes:/' "$out/$sname"/*.patch
	subject=$(head -n 1 "$cover")
	tail -n +3 "$cover" >"$work/blurb"
	cl=$out/$sname/0000-cover-letter.patch
	"${PYTHON:-python3}" - "$cl" "$subject" "$work/blurb" <<'PY'
import sys
path, subject, blurb = sys.argv[1], sys.argv[2], open(sys.argv[3]).read().rstrip("\n")
text = open(path).read()
if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
    sys.exit(f"{path}: no placeholders from git format-patch to fill")
open(path, "w").write(text.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***", blurb))
PY
	note "posting: $out/$sname: cover letter and $((last - first + 1)) patches, From: $author"
done
