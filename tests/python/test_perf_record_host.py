"""tests/qemu/perf_record_host.py: the host's perf script, with
perf-scripts/cmadebug-events.py, over the perf.data Debian's perf recorded
in the arm64 guest (tests/fixtures/perf-record, cut from its console)."""
import json
import shutil
import subprocess
import sys

import pytest

from conftest import FIXTURES, TOP

HOST = TOP / "tests" / "qemu" / "perf_record_host.py"
CONSOLE = FIXTURES / "perf-record" / "console.log"


def run(*args):
    return subprocess.run([sys.executable, str(HOST), *map(str, args)], capture_output=True, text=True)


@pytest.mark.skipif(shutil.which("perf") is None, reason="no perf on this host (linux-perf: make deps)")
def test_host_perf_script_counts_what_the_guest_did():
    res = run(CONSOLE, "arm64/main")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "arm64/main: 11 passed, 0 failed" in res.stdout
    assert "ok failures by errno: {'-16': 1}" in res.stdout
    assert "#   cma:cma_alloc_start                  4" in res.stdout


def test_a_log_without_a_recording_is_exit_2(tmp_path):
    log = tmp_path / "console.log"
    log.write_text("ok 1 test_something\n")
    res = run(log)
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "no perf recording on the console" in res.stderr


def test_a_cut_recording_is_exit_2(tmp_path):
    log = tmp_path / "console.log"
    log.write_text("".join(CONSOLE.read_text().splitlines(keepends=True)[:-1]))
    res = run(log)
    assert res.returncode == 2 and "end before their end marker" in res.stderr


def expected():
    return {"area": "reserved", "requests": 4, "finished_ok": 3, "finished_failed": 1, "pages_allocated": 24,
            "releases": 3, "pages_released": 24, "attempts_failed": 1, "stage": "migrate", "errno": -16}


def summary(errnos):
    return {"areas": {"reserved": {"requests": 4, "finished_ok": 3, "finished_failed": 1, "pages_allocated": 24,
                                   "releases": 3, "pages_released": 24, "attempts_failed": 1}},
            "failures_by_stage": {"migrate": 1}, "failures_by_errno": errnos, "events": {},
            "pages_blamed": [{"area": "reserved", "pfn": 0x7bc3a, "kind": "movable_ops"}]}


def test_a_zero_extended_errno_fails_the_check():
    """What the handler reported before it sign-extended perf's 4-byte ints."""
    sys.path.insert(0, str(HOST.parent))
    import perf_record_host
    assert all(ok for ok, _ in perf_record_host.checks(summary({"-16": 1}), expected()))
    bad = [what for ok, what in perf_record_host.checks(summary({"4294967280": 1}), expected()) if not ok]
    assert len(bad) == 1 and "failures by errno" in bad[0]


def test_expected_json_in_the_fixture_is_what_the_guest_wrote(tmp_path):
    sys.path.insert(0, str(HOST.parent))
    import perf_record_host
    console = perf_record_host.console_of(CONSOLE)
    data = perf_record_host.lava_results.console_section(console, "perf recording",
                                                         perf_record_host.BEGIN, perf_record_host.END)
    perf_record_host.unpack(data, tmp_path)
    assert json.loads((tmp_path / "expected.json").read_text()) == expected()
    assert (tmp_path / "perf.data").read_bytes()[:8] == b"PERFILE2"
