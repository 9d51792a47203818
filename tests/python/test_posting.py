"""make posting AUTHOR=...: kernel-patches/ as two postable series under a
person's identity (scripts/posting.sh), from the kernel tree make check
prepares first."""
import os
import pathlib
import re
import subprocess

import pytest

from conftest import TOP

KERNEL = pathlib.Path(os.environ.get("CMADEBUG_CACHE", pathlib.Path.home() / ".cache" / "cmadebug")) / "linux"
AUTHOR = "Ada Lovelace <ada@example.org>"
PLACEHOLDER = "cmadebug@localhost"
SERIES = {"cma-diagnostics": 9}  # the first series; linear-map takes the rest

needs_tree = pytest.mark.skipif(not (KERNEL / ".git").is_dir(),
                                reason="no kernel tree (make kernel-tree; make check makes it first)")


def posting(*args):
    return subprocess.run(["bash", str(TOP / "scripts/posting.sh"), *args],
                          capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def posted(tmp_path_factory):
    out = tmp_path_factory.mktemp("posting")
    p = posting(AUTHOR, str(out))
    assert p.returncode == 0, p.stderr
    return out


def series_patches():
    return [l for l in (TOP / "kernel-patches/series").read_text().splitlines() if l and not l.startswith("#")]


@needs_tree
def test_two_series_with_cover_letters(posted):
    total = len(series_patches())
    counts = {d.name: sorted(p.name for p in d.glob("*.patch")) for d in posted.iterdir()}
    assert set(counts) == {"cma-diagnostics", "linear-map"}
    assert len(counts["cma-diagnostics"]) == SERIES["cma-diagnostics"] + 1
    assert len(counts["linear-map"]) == total - SERIES["cma-diagnostics"] + 1
    for name, files in counts.items():
        n = len(files) - 1
        cover = (posted / name / files[0]).read_text()
        assert files[0] == "0000-cover-letter.patch"
        subject = (TOP / f"kernel-patches/cover/{name}.txt").read_text().splitlines()[0]
        assert re.search(rf"^Subject: \[PATCH 0+/{n}\] {re.escape(subject)}$", cover, re.M), name
        assert "***" not in cover, f"{name}: a cover-letter placeholder left"
        assert re.search(rf"^ \d+ files changed", cover, re.M), f"{name}: no diffstat"
        first = (posted / name / files[1]).read_text()
        assert re.search(rf"^Subject: \[PATCH 0*1/{n}\] ", first, re.M), name


@needs_tree
def test_identity_is_the_authors_everywhere(posted):
    for patch in posted.glob("*/*.patch"):
        text = patch.read_text()
        assert PLACEHOLDER not in text, patch.name
        assert re.search(rf"^From: {re.escape(AUTHOR)}$", text, re.M), patch.name
        if patch.name != "0000-cover-letter.patch":
            sobs = re.findall(r"^Signed-off-by: (.*)$", text, re.M)
            assert sobs == [AUTHOR], f"{patch.name}: {sobs}"


@needs_tree
def test_notes_and_patches_carried_over(posted):
    """Each posted patch is the exported one: same subject, same diff, and the
    notes (the checkpatch leftovers explained) below the ---."""
    posted_patches = sorted(posted.glob("cma-diagnostics/*.patch"))[1:] + \
        sorted(posted.glob("linear-map/*.patch"))[1:]
    exported = [TOP / "kernel-patches" / p for p in series_patches()]
    assert len(posted_patches) == len(exported)
    diff = re.compile(r"^diff --git .*", re.M | re.S)
    for new, old in zip(posted_patches, exported):
        new_text, old_text = new.read_text(), old.read_text()
        assert diff.search(new_text).group(0) == diff.search(old_text).group(0), new.name
        if "\nNotes:\n" in old_text:
            assert "\nNotes:\n" in new_text, f"{new.name}: notes lost"


@needs_tree
def test_checkpatch_accepts_the_identity(posted):
    """checkpatch matches From: against Signed-off-by: in the mail: no ERROR
    in the first patch of each series (the identity is set alike in every
    patch, which the test above checks; make checkpatch checks the code)."""
    checkpatch = KERNEL / "scripts/checkpatch.pl"
    patches = [str(sorted(d.glob("*.patch"))[1]) for d in sorted(posted.iterdir())]
    p = subprocess.run(["perl", str(checkpatch), "--strict", "--terse", "--no-summary", *patches],
                       capture_output=True, text=True, cwd=posted, timeout=600)
    errors = [l for l in p.stdout.splitlines() if ": ERROR:" in l]
    assert not errors, "\n".join(errors)
    assert "Missing Signed-off-by" not in p.stdout
    assert "email address mismatch" not in p.stdout


@pytest.mark.parametrize("author", ["", "Ada Lovelace", "<ada@example.org>", "Ada <ada>",
                                    "Ada <ada@example.org> <b@example.org>",
                                    "cmadebug <cmadebug@localhost>"])
def test_bad_author_refused(author, tmp_path):
    p = posting(author, str(tmp_path / "out"))
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert not (tmp_path / "out").exists()
