import os
import pathlib
import sys

import pytest

TOP = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = TOP / "tests" / "fixtures"
CAPTURED = sorted(p.name for p in FIXTURES.glob("qemu-*") if (p / "root").is_dir())

sys.path.insert(0, str(TOP / "scripts"))


@pytest.fixture
def cmadebug_bin():
    path = TOP / "cmadebug" / "cmadebug"
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is not built: run 'make cmadebug' first")
    return path
