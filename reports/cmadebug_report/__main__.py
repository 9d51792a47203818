"""python3 -m cmadebug_report SNAPSHOT... [-o REPORT.html] [--tlb RESULTS]...
python3 -m cmadebug_report compare DIR... [-o REPORT.html] [--check]   (compare.py)

Reads cmadebug snapshots (cmadebug snapshot -o FILE) and, optionally, TLB A/B
results (an abstats JSON file, or a results directory analysed on the spot),
prints a plain-text summary and writes one self-contained HTML file.
"""
import json
import os
import sys
import tempfile

from . import ArgumentParser, InputError, UsageError, read_json, run_main
from . import analysis, snapshot, text


def load_tlb(path):
    from . import abstats

    if os.path.isdir(path):
        return abstats.analyse_paths([path])
    doc = read_json(path, "TLB A/B results")
    if not isinstance(doc, dict) or doc.get("schema") != abstats.SCHEMA:
        raise InputError(f"{path}: not TLB A/B results (schema {abstats.SCHEMA!r}, "
                         "written by 'python3 -m cmadebug_report.abstats --json FILE')")
    if doc.get("version") != abstats.VERSION:
        raise InputError(f"{path}: {abstats.SCHEMA} version {doc.get('version')!r} is not supported "
                         f"(this report reads version {abstats.VERSION})")
    for key in ("results", "baseline", "method", "variants", "groups", "comparisons", "sweeps", "notes"):
        if key not in doc:
            raise InputError(f"{path}: {key}: missing")
    return doc


def write_atomically(path, data):
    d = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".cmadebug-report.")
    except OSError as e:
        raise InputError(f"{path}: cannot write beside it: {e.strerror}") from None
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # as open() would have made it, not mkstemp's 0600
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        os.unlink(tmp)
        raise InputError(f"{path}: {e.strerror}") from None


def parser():
    p = ArgumentParser(prog="python3 -m cmadebug_report",
                       description="Render cmadebug snapshots (and TLB A/B results) as one "
                                   "self-contained HTML file and a text summary.",
                       epilog="'python3 -m cmadebug_report compare --help': make compare's "
                              "side-by-side strategy report.")
    p.add_argument("snapshots", nargs="*", metavar="SNAPSHOT", help="cmadebug snapshot JSON files")
    p.add_argument("-o", "--output", metavar="REPORT.html", help="write the HTML report here")
    p.add_argument("--tlb", action="append", default=[], metavar="RESULTS",
                   help="TLB A/B results: abstats JSON or a results directory (repeatable)")
    p.add_argument("--summary-json", metavar="FILE", help="write the summary as JSON ('-': stdout)")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print the text summary")
    return p


def main(argv):
    if argv[:1] == ["compare"]:  # a snapshot file named 'compare' is ./compare
        from . import compare

        return compare.main(argv[1:])
    args = parser().parse_args(argv)
    if not args.snapshots and not args.tlb:
        raise UsageError("give at least one SNAPSHOT or --tlb RESULTS")
    snaps = [snapshot.load(p) for p in args.snapshots]
    tlb = [load_tlb(p) for p in args.tlb] or None
    summary = analysis.summarise(snaps, tlb)
    summary_text = text.format_summary(summary)
    if args.output:
        from . import render

        write_atomically(args.output, render.render(summary, analysis.ordered_systems(snaps)))
    emit_summary(summary, summary_text, args.summary_json, args.quiet)
    return 0


def emit_summary(summary, summary_text, summary_json, quiet):
    """The JSON summary to SUMMARY_JSON ('-': stdout, instead of the text),
    the text summary to stdout unless QUIET."""
    if summary_json == "-":
        json.dump(summary, sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif summary_json:
        write_atomically(summary_json, json.dumps(summary, indent=1) + "\n")
    if not quiet and summary_json != "-":
        sys.stdout.write(summary_text)


if __name__ == "__main__":
    sys.exit(run_main("cmadebug-report", main, sys.argv[1:]))
