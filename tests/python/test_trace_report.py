"""'cmadebug trace report' on the trace.dat files the guests recorded.

make fixtures runs 'cmadebug --json trace record -o trace.dat -- sh -c ...'
in each guest around an injected migrate-stage failure (tests/qemu/capture.sh)
and keeps the file and what the guest printed in tests/fixtures/qemu-*/trace/.
On the host, libtracecmd reads the file back (the guests' static cmadebug has
no libtracecmd): the summary must be the guest's, and show the failure.
"""
import json
import subprocess

import pytest

from conftest import FIXTURES

TRACED = sorted(p.parent.parent.name for p in FIXTURES.glob("qemu-*/trace/trace.dat"))


def run(binary, *args):
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=30)


def test_both_guests_recorded_a_trace():
    assert {"qemu-arm", "qemu-arm64"} <= set(TRACED), f"recorded traces: {TRACED}"


@pytest.mark.parametrize("fixture", TRACED)
def test_report_matches_what_the_guest_recorded(cmadebug_bin, fixture):
    d = FIXTURES / fixture / "trace"
    assert (d / "record.rc").read_text().strip() == "0", (d / "record.err").read_text()
    live = json.loads((d / "record.json").read_text())
    p = run(cmadebug_bin, "--json", "trace", "report", str(d / "trace.dat"))
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    report = json.loads(p.stdout)
    # Where the records came from differs, and only record knows which
    # events the kernel lacked; everything else is computed from the records.
    for k in ("source", "missing_events"):
        live.pop(k)
        report.pop(k, None)
    assert report == live


@pytest.mark.parametrize("fixture", TRACED)
def test_report_shows_the_injected_failure(cmadebug_bin, fixture):
    p = run(cmadebug_bin, "--json", "trace", "report", str(FIXTURES / fixture / "trace" / "trace.dat"))
    s = json.loads(p.stdout)
    assert s["failures"]["by_stage"] == [{"stage": "migrate", "count": 1}]
    top = s["failures"]["top_pfns"]
    assert len(top) == 1 and top[0]["area"] == "reserved" and top[0]["kind"] == "movable_ops"
    # capture.sh allocates the area's largest free run over 2 pinned pages
    # (fails), then 8 pages (succeeds) and frees them.
    assert s["allocations"]["requests"] == 2
    assert s["allocations"]["failed"] == 1 and s["allocations"]["succeeded"] == 1
    assert s["latency"]["count"] == 2
    assert s["migration"]["calls"] >= 1
    assert s["lost_events"] == 0


@pytest.mark.parametrize("fixture", TRACED)
def test_report_text_form(cmadebug_bin, fixture):
    p = run(cmadebug_bin, "trace", "report", str(FIXTURES / fixture / "trace" / "trace.dat"))
    assert p.returncode == 0, p.stderr
    assert "Allocations: 2" in p.stdout.splitlines()
    assert any(line.split()[:1] == ["migrate"] for line in p.stdout.splitlines())


def test_report_refuses_what_is_not_a_trace_dat(cmadebug_bin, tmp_path):
    bad = tmp_path / "not.dat"
    bad.write_bytes(b"\x17\x08Dtracing6\0garbage")
    for args in (["trace", "report", str(bad)], ["trace", "report", str(tmp_path / "missing.dat")]):
        p = run(cmadebug_bin, *args)
        assert p.returncode == 2 and len(p.stderr.splitlines()) == 1, p.stderr
    for args in (["trace"], ["trace", "report"], ["trace", "report", "a", "b"], ["trace", "record", "-d", "x"]):
        p = run(cmadebug_bin, *args)
        assert p.returncode == 1 and len(p.stderr.splitlines()) == 1, (args, p.stderr)
