#!/usr/bin/env python3
"""Turn a LAVA job log into per-case results, and fail on anything wrong.

lava-run writes the job log on stderr, one YAML mapping a line (a lab's
stored log has the same lines as items of a list, "- {...}"): "target"
lines are the guest's console, "results" lines the test cases (the
definition's cases, and LAVA's own under definition "lava", the last of
them case "job").  This prints each case of the suite's definition and one
closing line '<name>: N passed, N failed, N skipped', and exits 1 when

  - a case failed, or the job's own result is not pass (incomplete: a
    timeout, an infrastructure error, a kernel panic LAVA saw), said with
    LAVA's error type and message;
  - the console's KTAP plan and results (scripts/ktap_check.py's rules) do
    not match the cases LAVA recorded: a case that never reported (a hang,
    a crash mid-suite) is a failure, nothing is dropped silently;
  - a kernel splat is on the console (ktap_check.py's patterns).

Exit 2: not a usable log — not YAML lines, cut before the job's result
(truncated), or the log of another job (--definition names the one
expected).  Cases that completed are printed either way.
"""
import argparse
import base64
import binascii
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap_check  # noqa: E402


class LogError(Exception):
    """The log cannot be judged (exit 2)."""


def _yaml():
    try:
        import yaml  # lava-dispatcher's own dependency
    except ImportError:
        raise LogError("python3-yaml is missing (make lava-check installs lava-dispatcher)")
    return yaml


def read_log(lines):
    """[(level, message)] of a lava-run log; LogError for a line that is not
    one of its records (the log's lines carry YAML tags: '! "455"')."""
    yaml = _yaml()
    records = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = yaml.load(line, Loader=yaml.SafeLoader)
        except yaml.YAMLError:
            rec = None
        # a lab's stored log (output.yaml, 'lavacli jobs logs --raw') is
        # one YAML list: the same records, each line "- {...}"
        if isinstance(rec, list) and len(rec) == 1:
            rec = rec[0]
        if not isinstance(rec, dict) or "lvl" not in rec or "msg" not in rec:
            if not line.endswith("\n"):
                raise LogError(f"the log is cut short: its last line ({n}) is incomplete")
            raise LogError(f"line {n} is not a LAVA log record: {line[:80]!r}")
        records.append((rec["lvl"], rec["msg"]))
    return records


BASE64_LINE = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")


def console_lines(records):
    """The guest's console (the "target" records), one string a line."""
    return [str(msg).rstrip("\r") for level, msg in records if level == "target"]


def console_section(console, what, begin, end):
    """The bytes a guest printed as base64 between the BEGIN and END marker
    lines (tests/qemu/tlb.sh's tlb_export, perf-record.sh's perf_export);
    LogError naming WHAT when they are missing, cut or garbled."""
    if begin not in console:
        raise LogError(f"no {what} on the console")
    start = console.index(begin) + 1
    if end not in console[start:]:
        raise LogError(f"the {what} on the console end before their end marker")
    body = console[start:console.index(end, start)]
    bad = next((line for line in body if not BASE64_LINE.match(line)), None)
    if bad is not None:
        # a kernel message written into the middle of the dump, say
        raise LogError(f"the {what} on the console are garbled: {bad[:60]!r}")
    try:
        return base64.b64decode("".join(body), validate=True)
    except (binascii.Error, ValueError) as e:
        raise LogError(f"the {what} on the console are not base64: {e}")


def judge(records, definition):
    """(cases, problems): the definition's cases [(name, result)] in order,
    and what makes the job fail, one line each.  LogError when the log is
    not that job's, or ends before the job's result."""
    console, cases, job, lava_failed, definitions = [], [], None, [], set()
    for level, msg in records:
        if level == "target":
            console.append(str(msg))
        elif level == "results" and isinstance(msg, dict):
            d = msg.get("definition")
            if d == "lava":
                if msg.get("case") == "job":
                    job = msg
                elif msg.get("result") == "fail":
                    lava_failed.append(msg)
            else:
                definitions.add(d)
                name = str(msg.get("case"))
                if "measurement" in msg:
                    # a figure the guest measured: shown with its units
                    name += f" = {msg['measurement']} {msg.get('units', '')}".rstrip()
                cases.append((name, str(msg.get("result"))))
    if job is None:
        raise LogError("the log ends before the job's result (cut short, or lava-run was killed)")
    other = definitions - {definition}
    if other:
        raise LogError(f"a log of another job: results of {', '.join(sorted(map(str, other)))}, "
                       f"not {definition}")

    problems = []
    if job.get("result") != "pass":
        # the first line: a panic's message carries its whole trace, and
        # the actions that failed with it (login, boot retry) say it again
        problems.append(f"job incomplete: {job.get('error_type', 'unknown')} error: "
                        f"{str(job.get('error_msg', 'no message')).strip().splitlines()[0]}")
    else:
        # a job that passed with one of LAVA's own checks failed (its
        # kernel-messages case: a warning it matched, say)
        for msg in lava_failed:
            problems.append(f"LAVA's {msg.get('case')} failed")
    for name, result in cases:
        if result == "fail":
            problems.append(f"case failed: {name}")
    plan, results, splats = ktap_check.parse(console)
    reported = {name for name, _ in cases}
    if plan is None:
        problems.append("no KTAP plan on the console: the suite never started")
    else:
        if len(results) < plan:
            after = f" (the first after {results[-1][2]})" if results else ""
            problems.append(f"KTAP plan 1..{plan}, {len(results)} results on the console: "
                            f"case {len(results) + 1}{after} never reported (hung, or the guest died)")
        for _, _, name, _ in results:
            if name not in reported:
                problems.append(f"on the console but not recorded by LAVA: {name}")
    for line in splats:
        problems.append(f"kernel splat: {line.strip()}")
    return cases, problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--name", required=True, help="label of the closing line (ARCH/SUITE)")
    ap.add_argument("--definition", required=True,
                    help="the test definition's name in the log (0_cmadebug-SUITE)")
    ap.add_argument("log", help="lava-run's job log (its stderr)")
    a = ap.parse_args(argv)
    try:
        with open(a.log, encoding="utf-8", errors="replace") as f:
            cases, problems = judge(read_log(f), a.definition)
    except (OSError, LogError) as e:
        print(f"lava_results.py: {a.name}: {e}", file=sys.stderr)
        return 2
    for name, result in cases:
        print(f"{a.name}: {'ok' if result == 'pass' else result} {name}")
    for p in problems:
        print(f"{a.name}: {p}")
    count = {r: sum(1 for _, x in cases if x == r) for r in ("pass", "fail", "skip")}
    # each problem that is not a failed case counts as one failure more
    others = sum(1 for p in problems if not p.startswith("case failed: "))
    print(f"{a.name}: {count['pass']} passed, {count['fail'] + others} failed, {count['skip']} skipped")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
