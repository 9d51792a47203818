"""cmadebug/cmadebug.1 renders cleanly: no groff warnings, every command a tagged paragraph."""
import pathlib
import re
import subprocess

import pytest

MAN = pathlib.Path(__file__).resolve().parents[2] / "cmadebug" / "cmadebug.1"


def render(*args):
    p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", *args, str(MAN)],
                       capture_output=True, text=True, timeout=60,
                       env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "MANWIDTH": "80"})
    assert p.returncode == 0, p.stderr
    return p


def test_no_groff_warnings():
    assert render("-z").stderr == ""


@pytest.mark.parametrize("command", ["areas", "bitmap", "stats", "failures", "splits", "alias",
                                     "snapshot", "events", "tlb", "trace record", "trace report", "help"])
def test_each_command_starts_its_own_paragraph(command):
    """The tag line of each command sits at the tag indent (7 columns)."""
    text = re.sub(r".\x08", "", render().stdout)
    tags = [line for line in text.splitlines() if re.match(rf"^ {{7}}{command}(\s|$)", line)]
    assert tags, f"'{command}' has no tagged paragraph of its own in the rendered page"
