"""The host-side KTAP/splat checker, on real console logs of the guest tests
(tests/fixtures/qemu-*/console-test.log, saved by make fixtures) and on
copies of them with one thing broken."""
import pytest

import ktap_check
from conftest import FIXTURES, PATCHED

# The fixtures with a console log of the guests' main suite (make fixtures);
# the 64 KiB-page board runs only the linear-map suites, so it has none.
CAPTURED = [f for f in PATCHED if (FIXTURES / f / "console-test.log").exists()]


def test_both_boards_have_a_console_log():
    assert {"qemu-arm", "qemu-arm64"} <= set(CAPTURED)


def lines_of(fixture):
    return (FIXTURES / fixture / "console-test.log").read_text().splitlines(True)


def run_check(lines):
    return ktap_check.check(*ktap_check.parse(lines))


@pytest.mark.parametrize("fixture", CAPTURED)
def test_real_log_passes(fixture):
    problems, passed, failed, skipped = run_check(lines_of(fixture))
    assert problems == []
    assert failed == 0 and passed >= 9


@pytest.mark.parametrize("fixture", CAPTURED)
def test_not_ok_fails(fixture):
    lines = [l.replace("ok 3 ", "not ok 3 ", 1) if l.startswith("ok 3 ") else l for l in lines_of(fixture)]
    problems, _, failed, _ = run_check(lines)
    assert failed == 1
    assert any(p.startswith("not ok 3") for p in problems)


@pytest.mark.parametrize("fixture", CAPTURED)
def test_short_plan_fails(fixture):
    lines = lines_of(fixture)
    last = max(i for i, l in enumerate(lines) if l.startswith("ok "))
    problems, *_ = run_check(lines[:last])
    assert any("plan says" in p for p in problems), problems


def test_missing_plan_fails():
    lines = [l for l in lines_of(CAPTURED[0]) if not l.startswith("1..")]
    problems, *_ = run_check(lines)
    assert any("no KTAP plan" in p for p in problems)


def test_no_tests_at_all_fails():
    lines = [l for l in lines_of(CAPTURED[0]) if l.startswith("[")]
    problems, *_ = run_check(lines)
    assert any("no KTAP plan" in p for p in problems)


@pytest.mark.parametrize(
    "splat",
    [
        "[    1.234567] WARNING: CPU: 0 PID: 1 at mm/cma.c:500 cma_alloc+0x1c/0x40",
        "[    1.234567] BUG: unable to handle page fault for address: 0",
        "[    1.234567] Internal error: Oops: 96000005 [#1] SMP",
        "[    1.234567] ------------[ cut here ]------------",
        "[    1.234567] WARNING: possible circular locking dependency detected",
        "[    1.234567] BUG: KASAN: slab-out-of-bounds in foo+0x10/0x20",
        "[    1.234567] Kernel panic - not syncing: Attempted to kill init!",
        # seen on the arm64 debug board (make debug-test) before 0020
        "[    2.861774] [ BUG: Invalid wait context ]",
        "[    2.861774] DEBUG_LOCKS_WARN_ON(1)",
        "[    2.861774] =============================\n[    2.861775] WARNING: suspicious RCU usage",
    ],
)
def test_kernel_splat_fails(splat):
    lines = lines_of(CAPTURED[0])
    lines.insert(len(lines) // 2, splat + "\n")
    problems, *_ = run_check(lines)
    assert any(p.startswith("kernel splat") for p in problems), problems


def test_test_output_mentioning_warning_is_not_a_splat():
    lines = lines_of(CAPTURED[0])
    idx = next(i for i, l in enumerate(lines) if l.startswith("TAP version")) + 2
    lines.insert(idx, "# the word WARNING: in a test comment\n")
    problems, *_ = run_check(lines)
    assert problems == []


@pytest.mark.parametrize(
    "banner",
    [
        # a lockdep kernel's boot messages (make debug-test)
        "[    0.000000] rcu: \tRCU lockdep checking is enabled.",
        "[    0.037497] ... MAX_LOCKDEP_SUBCLASSES:  8",
        "[    0.012139] kfence: initialized - using 2097152 bytes for 255 objects",
    ],
)
def test_debug_kernel_banner_is_not_a_splat(banner):
    lines = lines_of(CAPTURED[0])
    lines.insert(1, banner + "\n")
    problems, *_ = run_check(lines)
    assert problems == []


def test_cli_summary_line(tmp_path, capsys):
    log = tmp_path / "console.log"
    log.write_text("".join(lines_of(CAPTURED[0])))
    assert ktap_check.main(["--name", "arm", str(log)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("arm: ") and out[-1].endswith("0 failed, 0 skipped")


def test_cli_missing_log(tmp_path, capsys):
    assert ktap_check.main([str(tmp_path / "none.log")]) == 2
    assert "none.log" in capsys.readouterr().err
