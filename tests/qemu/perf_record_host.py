#!/usr/bin/env python3
"""The host side of tests/qemu/perf-record.sh: perf's own Python scripting
over the perf.data Debian's perf recorded in the arm64 guest.

    perf_record_host.py LOG [NAME]

LOG is the guest's console (qemu-run.sh's console-test.log) or a lava-run
job log of the same suite.  The perf.data and what the guest did
(expected.json) come from its console, between the '=== CMADEBUG PERF
RECORD BEGIN/END ===' markers; the host's perf (Debian's linux-perf) runs
'perf script -s perf-scripts/cmadebug-events.py' over the file, and the
script's JSON summary must count exactly what the guest did and perf's
text dump showed there.  One 'ok'/'fail' line a check and a closing
'NAME: N passed, N failed' line; exit 0 when all passed, 1 when one
failed, 2 when LOG holds no recording or the host has no perf.
"""
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import lava_results  # noqa: E402

BEGIN = "=== CMADEBUG PERF RECORD BEGIN ==="
END = "=== CMADEBUG PERF RECORD END ==="
SCRIPT = os.path.join(TOP, "perf-scripts", "cmadebug-events.py")


def console_of(path):
    """The console lines of LOG: a lava-run job log's target records, else
    the file's own lines."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    try:
        return lava_results.console_lines(lava_results.read_log(lines))
    except lava_results.LogError:
        return [line.rstrip("\r\n") for line in lines]


def unpack(data, dest):
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        names = sorted(m.name for m in tar.getmembers())
        if names != ["expected.json", "perf.data"]:
            raise lava_results.LogError(f"the perf recording holds {names}, not perf.data and expected.json")
        tar.extractall(dest)


def perf_script(perf, data, summary_path):
    """Runs the handler over DATA: (its JSON summary, its text report)."""
    env = dict(os.environ, CMADEBUG_EVENTS_JSON=summary_path, CMADEBUG_EVENTS_QUIET="1")
    res = subprocess.run([perf, "script", "-i", data, "-s", SCRIPT], env=env,
                         capture_output=True, text=True, timeout=120)
    if res.returncode != 0 or not os.path.exists(summary_path):
        raise RuntimeError(f"perf script -s exited {res.returncode}: {res.stderr.strip()[-400:]}")
    with open(summary_path, encoding="utf-8") as f:
        return json.load(f), res.stdout


def checks(summary, expected):
    """[(ok, what)]: the script's summary against what the guest did."""
    area = summary["areas"].get(expected["area"], {})
    out = []
    for key in ("requests", "finished_ok", "finished_failed", "pages_allocated", "releases",
                "pages_released", "attempts_failed"):
        out.append((area.get(key, 0) == expected[key],
                    f"{expected['area']} {key}: {area.get(key, 0)} (the guest: {expected[key]})"))
    stages = summary["failures_by_stage"]
    out.append((stages.get(expected["stage"], 0) == expected["attempts_failed"],
                f"failures by stage: {stages} (the guest: {expected['attempts_failed']} {expected['stage']})"))
    errnos = summary["failures_by_errno"]
    out.append((errnos == {str(expected["errno"]): expected["attempts_failed"]},
                f"failures by errno: {errnos} (the guest: {expected['attempts_failed']} of {expected['errno']})"))
    unhandled = [e for e in summary["events"] if e.startswith("unhandled")]
    out.append((not unhandled, f"events without a handler: {unhandled or 'none'}"))
    blamed = summary["pages_blamed"]
    out.append((bool(blamed) and all(p["area"] == expected["area"] and p["pfn"] > 0 for p in blamed),
                f"pages blamed: {[(p['area'], hex(p['pfn']), p['kind']) for p in blamed]}"))
    return out


def main(argv):
    if len(argv) not in (1, 2):
        print("usage: perf_record_host.py LOG [NAME]", file=sys.stderr)
        return 2
    log, name = argv[0], argv[1] if len(argv) == 2 else "perf-record"
    perf = shutil.which(os.environ.get("PERF", "perf"))
    if perf is None:
        print(f"{name}: no perf on the host (Debian's linux-perf: make deps)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        try:
            unpack(lava_results.console_section(console_of(log), "perf recording", BEGIN, END), tmp)
        except (OSError, tarfile.TarError, lava_results.LogError) as e:
            print(f"{name}: {log}: {e}", file=sys.stderr)
            return 2
        with open(os.path.join(tmp, "expected.json"), encoding="utf-8") as f:
            expected = json.load(f)
        try:
            summary, report = perf_script(perf, os.path.join(tmp, "perf.data"), os.path.join(tmp, "summary.json"))
        except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
            results = [(False, f"perf script -s perf-scripts/cmadebug-events.py: {e}")]
        else:
            sys.stdout.write("".join(f"# {line}\n" for line in report.strip("\n").splitlines()))
            results = checks(summary, expected)
    for ok, what in results:
        print(f"{name}: {'ok' if ok else 'fail'} {what}")
    failed = sum(1 for ok, _ in results if not ok)
    print(f"{name}: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
