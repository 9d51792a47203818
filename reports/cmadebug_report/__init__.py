"""cmadebug_report: render cmadebug snapshots and TLB A/B results.

python3 -m cmadebug_report SNAPSHOT... -o report.html   (see reports/README.md)
python3 -m cmadebug_report.abstats RESULTS...          (TLB A/B statistics)

Standard library and matplotlib only.  Exit status: 0 ok, 1 usage, 2 bad or
empty input; every error is one line on stderr.
"""
import argparse
import sys

EXIT_OK = 0
EXIT_USAGE = 1
EXIT_INPUT = 2

UNKNOWN = "unknown"


class InputError(Exception):
    """Malformed, unsupported or empty input: one line, exit 2."""


def read_json(path, what):
    """The JSON document in PATH; a missing, empty or malformed file is an
    InputError naming PATH and WHAT it should have been."""
    import json

    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    if not raw.strip():
        raise InputError(f"{path}: empty file, not {what}")
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: not JSON ({e})") from None


class UsageError(Exception):
    """Bad command line: one line, exit 1."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a usage error is exit 1 and one line (argparse uses 2)."""

    def error(self, message):
        raise UsageError(f"{message} (see --help)")


def run_main(prog, func, argv):
    """Call FUNC(argv); turn our errors into one line and an exit status.

    Anything else that escapes is bad input the validation did not foresee:
    still one line, exit 2, and CMADEBUG_REPORT_DEBUG=1 shows the traceback.
    """
    import os

    try:
        return func(argv)
    except UsageError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except InputError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        return EXIT_OK
    except Exception as e:  # pylint: disable=broad-except
        if os.environ.get("CMADEBUG_REPORT_DEBUG"):
            raise
        print(f"{prog}: unexpected input ({type(e).__name__}: {e}); "
              "CMADEBUG_REPORT_DEBUG=1 shows where", file=sys.stderr)
        return EXIT_INPUT
