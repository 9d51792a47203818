#!/usr/bin/env python3
"""Check a guest console log: KTAP results and kernel splats.

Fails (exit 1) on any 'not ok', a missing or short plan, duplicated or
out-of-order test numbers, or a kernel splat anywhere in the log (BUG,
WARNING, Oops, lockdep, KASAN, panic).  Prints each result and one closing
line: '<name>: N passed, N failed, N skipped'.
"""
import argparse
import re
import sys

RESULT = re.compile(r"^(not ok|ok) (\d+)(?: -)? ?([^#]*?)\s*(?:#\s*(.*))?$")
PLAN = re.compile(r"^1\.\.(\d+)$")
SPLATS = [
    re.compile(p)
    for p in (
        r"\bBUG:",
        r"\bWARNING:",
        r"\bOops\b",
        r"cut here \]",
        # lockdep's own reports start with BUG:/WARNING:; these are the
        # rest (its boot banner, "RCU lockdep checking is enabled", is not)
        r"DEBUG_LOCKS_WARN_ON",
        r"INFO: lockdep is turned off",
        r"suspicious RCU usage",
        r"possible (circular|recursive) locking",
        r"\bKASAN\b",
        r"Kernel panic",
        r"Unable to handle kernel",
        r"\bsoft lockup\b",
        r"\bhung_task\b|blocked for more than",
    )
]
# A kernel line carries a printk timestamp; our own KTAP comment lines and
# results never do, so a test that prints the word WARNING is not a splat.
KERNEL_LINE = re.compile(r"^\[\s*\d+\.\d+\]")


def parse(lines):
    """Returns (plan or None, [(ok, num, name, directive)], [splat lines])."""
    plan = None
    results = []
    splats = []
    in_ktap = False
    for raw in lines:
        line = raw.rstrip("\r\n")
        if KERNEL_LINE.match(line):
            if any(p.search(line) for p in SPLATS):
                splats.append(line)
            continue
        if line.startswith("TAP version") or line.startswith("KTAP version"):
            in_ktap = True
            continue
        if not in_ktap:
            continue
        m = PLAN.match(line)
        if m and plan is None:
            plan = int(m.group(1))
            continue
        m = RESULT.match(line)
        if m:
            results.append((m.group(1) == "ok", int(m.group(2)), m.group(3), m.group(4) or ""))
    return plan, results, splats


def check(plan, results, splats):
    """Returns (problems, passed, failed, skipped)."""
    problems = []
    passed = failed = skipped = 0
    for i, (ok, num, name, directive) in enumerate(results, 1):
        if num != i:
            problems.append(f"result {num} ({name}) out of order: expected test {i}")
        if directive.upper().startswith("SKIP"):
            skipped += 1
        elif ok:
            passed += 1
        else:
            failed += 1
            problems.append(f"not ok {num} {name}")
    if plan is None:
        problems.append("no KTAP plan (1..N) in the log: the guest tests did not run")
    elif len(results) != plan:
        problems.append(f"plan says {plan} tests, the log has {len(results)} results")
    for s in splats:
        problems.append(f"kernel splat: {s.strip()}")
    return problems, passed, failed, skipped


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--name", default="guest")
    args = ap.parse_args(argv)
    try:
        with open(args.log, encoding="utf-8", errors="replace") as f:
            plan, results, splats = parse(f)
    except OSError as e:
        print(f"ktap_check: {args.log}: {e.strerror}", file=sys.stderr)
        return 2
    for ok, num, name, directive in results:
        print(f"{args.name}: {'ok' if ok else 'not ok'} {num} {name}" + (f" # {directive}" if directive else ""))
    problems, passed, failed, skipped = check(plan, results, splats)
    for p in problems:
        print(f"{args.name}: FAIL: {p}", file=sys.stderr)
    print(f"{args.name}: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
