"""make lava-check's pieces without LAVA: the collector on job logs that
lava-run wrote for our arm64 board (tests/fixtures/lava/*.log.gz: suite
rodata-full passing; with cmadebug.fail_case, rdinit=/nonexistent (a
panic at boot) and cmadebug.hang_case under a 60 s test timeout), the guest
script that reports KTAP cases to LAVA, and the job renderer."""
import gzip
import json
import os
import subprocess
import sys

import pytest

from conftest import FIXTURES, TOP

yaml = pytest.importorskip("yaml")  # python3-yaml: lava-dispatcher's, and make deps'
LOGS = FIXTURES / "lava"
DEFINITION = "0_cmadebug-rodata-full"
CASES = ["test_page_granular_linear_map", "test_layout_adds_up_to_boot_mapping",
         "test_layout_agrees_with_ptdump", "test_alias_injection_found_and_removed"]


def log(tmp_path, name, cut=None):
    text = gzip.decompress((LOGS / f"{name}.log.gz").read_bytes()).decode()
    if cut is not None:
        text = text[:cut(len(text))]
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return path


def collect(path, definition=DEFINITION):
    return subprocess.run([sys.executable, str(TOP / "scripts" / "lava_results.py"), "--name", "arm64/rodata-full",
                           "--definition", definition, str(path)], capture_output=True, text=True, timeout=60)


def test_passing_job_lists_every_case(tmp_path):
    res = collect(log(tmp_path, "pass"))
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.splitlines() == [f"arm64/rodata-full: ok {c}" for c in CASES] + \
        ["arm64/rodata-full: 4 passed, 0 failed, 0 skipped"]


def test_failed_case_fails_the_job(tmp_path):
    res = collect(log(tmp_path, "fail"))
    assert res.returncode == 1
    assert "arm64/rodata-full: fail test_deliberate_failure" in res.stdout.splitlines()
    assert res.stdout.splitlines()[-1] == "arm64/rodata-full: 4 passed, 1 failed, 0 skipped"


def test_panic_at_boot_is_named(tmp_path):
    """LAVA saw the panic (no panic=-1 on its command line): the job is
    incomplete with the panic's first line, the suite never started, and
    the console's splat is named too."""
    res = collect(log(tmp_path, "panic"))
    assert res.returncode == 1
    lines = res.stdout.splitlines()
    assert any(line.startswith("arm64/rodata-full: job incomplete: Job error: ") and
               "Kernel panic - not syncing: No working init found" in line for line in lines), lines
    assert "arm64/rodata-full: no KTAP plan on the console: the suite never started" in lines
    assert any("kernel splat: " in line and "Kernel panic" in line for line in lines)
    assert all("Call trace" not in line for line in lines), "one line per problem"


def test_hung_case_keeps_the_cases_before_it(tmp_path):
    res = collect(log(tmp_path, "hang"))
    assert res.returncode == 1
    lines = res.stdout.splitlines()
    assert lines[:4] == [f"arm64/rodata-full: ok {c}" for c in CASES]
    assert "arm64/rodata-full: job incomplete: Test error: lava-test-shell timed out after 60 seconds" in lines
    assert ("arm64/rodata-full: KTAP plan 1..5, 4 results on the console: case 5 (the first after "
            "test_alias_injection_found_and_removed) never reported (hung, or the guest died)") in lines
    assert lines[-1] == "arm64/rodata-full: 4 passed, 2 failed, 0 skipped"


@pytest.mark.parametrize("cut, words", [
    (lambda n: n // 2, "the log is cut short"),            # mid-line
    (lambda n: n - 300, "ends before the job's result"),   # whole lines, the last records gone
])
def test_truncated_log_is_no_report(tmp_path, cut, words):
    path = log(tmp_path, "pass")
    text = path.read_text()
    if words.startswith("ends"):  # cut at a line boundary
        text = text[:text.rindex("\n", 0, cut(len(text))) + 1]
    else:
        text = text[:cut(len(text))].rstrip("\n")
    path.write_text(text)
    res = collect(path)
    assert res.returncode == 2 and res.stdout == ""
    assert len(res.stderr.splitlines()) == 1 and words in res.stderr, res.stderr


def test_log_of_another_job_is_no_report(tmp_path):
    res = collect(log(tmp_path, "pass"), definition="0_cmadebug-main")
    assert res.returncode == 2 and res.stdout == ""
    assert "a log of another job: results of 0_cmadebug-rodata-full, not 0_cmadebug-main" in res.stderr


def test_not_a_log_is_no_report(tmp_path):
    path = tmp_path / "console.log"
    path.write_text("[    0.000000] Booting Linux on physical CPU 0x0\n")
    res = collect(path)
    assert res.returncode == 2 and "line 1 is not a LAVA log record" in res.stderr


def test_guest_script_reports_each_case_as_it_comes(tmp_path):
    """tests/qemu/lava-suite.sh: ok -> pass, not ok -> fail, # SKIP -> skip,
    a measurement -> a case with its figure and units, comments and kernel
    lines passed through and not reported."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    calls = tmp_path / "calls"
    (bindir / "lava-test-case").write_text(f"#!/bin/sh\necho \"$*\" >>{calls}\n")
    (bindir / "lava-test-case").chmod(0o755)
    # the last line without its newline: still a case
    (tmp_path / "ktap").write_text("TAP version 13\n1..3\n# a comment\n"
                                   "# measurement tlb_walk_split_262144B_instructions 2154170 instructions\n"
                                   "# measurement only_two 5\n# measurement not_a_number n/a ns\n"
                                   "ok 1 test_one\n[    1.0] ok 9 kernel\n"
                                   "not ok 2 test_two\nok 3 test_three # SKIP no kcore")
    env = {**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}", "LAVA_SUITE_RUN": f"cat {tmp_path}/ktap"}
    res = subprocess.run(["sh", str(TOP / "tests" / "qemu" / "lava-suite.sh")], env=env,
                         capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr
    assert "# a comment" in res.stdout
    assert calls.read_text().splitlines() == [
        "tlb_walk_split_262144B_instructions --result pass --measurement 2154170 --units instructions",
        "test_one --result pass", "test_two --result fail",
                                              "test_three --result skip"]


def test_job_renderer_drops_panic_minus_one_nowhere_else(tmp_path):
    """lava_job.py writes YAML (as JSON) lava-run reads: the command line as
    given, the suite's QEMU options in the device file, our definition
    inline."""
    out = tmp_path / "job"
    subprocess.run([sys.executable, str(TOP / "scripts" / "lava_job.py"), "--arch", "arm64", "--suite", "tlb-icount",
                    "--kernel", "/k/Image", "--dtb", "/k/board.dtb", "--initrd", "/k/initramfs.cpio",
                    "--cmdline", "console=ttyAMA0 cma=32M cmadebug.mode=lava cmadebug.suite=tlb-icount rodata=on",
                    "--qemu", "qemu-system-aarch64 -M virt -cpu cortex-a57 -m 1024 -icount shift=0",
                    "--timeout", "300", "--out", str(out)], check=True, timeout=30)
    device = yaml.safe_load((out / "device.yaml").read_text())
    job = yaml.safe_load((out / "job.yaml").read_text())
    qemu = device["actions"]["boot"]["methods"]["qemu"]["parameters"]
    assert qemu["command"] == "qemu-system-aarch64" and qemu["options"][-2:] == ["-icount", "shift=0"]
    assert device["available_architectures"] == ["arm64"] == [job["context"]["arch"]]
    deploy, boot, test = (next(iter(a.values())) for a in job["actions"])
    assert deploy["images"]["kernel"]["image_arg"] == \
        "-kernel {kernel} -append 'console=ttyAMA0 cma=32M cmadebug.mode=lava cmadebug.suite=tlb-icount rodata=on'"
    assert deploy["images"]["ramdisk"]["overlays"] == {"lava": True}
    assert boot["prompts"] == ["cmadebug-lava:/# "] and ":" in boot["prompts"][0]
    definition = test["definitions"][0]
    assert definition["name"] == "cmadebug-tlb-icount"
    assert definition["repository"]["run"]["steps"] == ["sh /tests/lava-suite.sh"]
    assert json.loads((out / "job.yaml").read_text()) == job


def test_a_labs_stored_log_reads_as_lava_runs(tmp_path):
    """lava-server keeps the job log as one YAML list (output.yaml, what
    'lavacli jobs logs --raw' prints): each record a "- {...}" line."""
    stored = tmp_path / "output.yaml"
    stored.write_text("".join("- " + line for line in log(tmp_path, "pass").read_text().splitlines(keepends=True)))
    assert collect(stored).stdout == collect(log(tmp_path, "pass")).stdout
    assert collect(stored).returncode == 0
