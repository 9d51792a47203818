import os
import pathlib
import sys

import pytest

TOP = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = TOP / "tests" / "fixtures"
CAPTURED = sorted(p.name for p in FIXTURES.glob("qemu-*") if (p / "root").is_dir())
# Kernels with kernel-patches/ applied; qemu-arm64-unpatched is the plain 6.12
# base (same config fragments), captured to test what cmadebug does without;
# qemu-arm64-debian is Debian's own kernel (make distro-test): no CMA debugfs.
STOCK = [f for f in CAPTURED if f.endswith("-debian")]
PATCHED = [f for f in CAPTURED if not f.endswith("-unpatched") and f not in STOCK]
UNPATCHED = [f for f in CAPTURED if f.endswith("-unpatched")]


def expected_rc(fixture, command):
    """The exit status of 'cmadebug COMMAND' on the live guest (expected/<command>.rc)."""
    rc = FIXTURES / fixture / "expected" / f"{command}.rc"
    return int(rc.read_text()) if rc.exists() else 0

sys.path.insert(0, str(TOP / "scripts"))


@pytest.fixture
def cmadebug_bin():
    path = TOP / "cmadebug" / "cmadebug"
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is not built: run 'make cmadebug' first")
    return path


# reports/ is a package directory, not installed: import it from the tree.
sys.path.insert(0, str(TOP / "reports"))


def make_snapshot(binary, root, out):
    """'cmadebug --root ROOT snapshot -o OUT', run from the top of the tree so
    that the snapshot's "source" is the relative path (stable for golden files)."""
    import subprocess

    try:
        root = os.path.relpath(root, TOP)
    except ValueError:
        pass
    res = subprocess.run([str(binary), "--root", str(root), "snapshot", "-o", str(out)],
                         cwd=TOP, capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr
    return out


@pytest.fixture(scope="session")
def fixture_snapshots(tmp_path_factory):
    """{fixture name: snapshot path}, made by the built cmadebug from the captured trees."""
    binary = TOP / "cmadebug" / "cmadebug"
    if not os.access(binary, os.X_OK):
        pytest.fail(f"{binary} is not built: run 'make cmadebug' first")
    d = tmp_path_factory.mktemp("snapshots")
    return {f: make_snapshot(binary, FIXTURES / f / "root", d / f"{f}.json") for f in CAPTURED}
