"""Parse 'perf stat -x,' output (one aggregate count per event).

perf writes one line per event:

    VALUE,UNIT,EVENT,RUN_TIME,PERCENT,METRIC_VALUE,METRIC_UNIT

for example (perf 6.1, this machine has no PMU):

    <not supported>,,instructions:k,0,100.00,,
    0.70,msec,task-clock:k,699542,100.00,0.436,CPUs utilized

VALUE is a number, "<not supported>" (the kernel cannot count the event) or
"<not counted>" (it never got a counter: multiplexing or a failed group).
PERCENT is the share of the run time the event had a counter; below 100 perf
scaled the count (multiplexing).  'perf stat -r N' adds a variance column
("0.84%") after EVENT; '-o FILE' adds a "# started on ..." line.  Per-CPU
output (-A, --per-core, ...) puts a location first and is refused here.
An event name may itself contain commas (cpu/event=0x3c,umask=0x0/).
"""
import re
from dataclasses import dataclass

from . import InputError

NOT_SUPPORTED = "<not supported>"
NOT_COUNTED = "<not counted>"

_INT = re.compile(r"^\d+$")
_FLOAT = re.compile(r"^\d+(\.\d+)?$")
_VARIANCE = re.compile(r"^\d+(\.\d+)?%$")


@dataclass
class Reading:
    event: str
    value: object  # float, or None when not supported / not counted
    status: str  # "ok", "not supported", "not counted"
    unit: str
    percent: object  # float or None


def _number(s):
    try:
        return float(s)
    except ValueError:
        return None


def parse(text, path="<perf csv>"):
    """Return {event: Reading} in the order perf printed them."""
    readings = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        where = f"{path}:{lineno}"
        f = line.split(",")
        if len(f) < 5:
            raise InputError(f"{where}: not 'perf stat -x,' output ({line.strip()[:60]!r})")
        value = f[0].strip()
        if value in (NOT_SUPPORTED, NOT_COUNTED):
            num = None
        else:
            num = _number(value)
            if num is None:
                raise InputError(f"{where}: {value!r} is not a count (per-CPU '-A' or "
                                 "'--per-*' output is not supported: count the whole run)")
        # RUN_TIME,PERCENT: the first integer followed by a decimal after the name.
        j = next((j for j in range(3, len(f) - 1)
                  if _INT.match(f[j]) and _FLOAT.match(f[j + 1])), None)
        if j is None:
            raise InputError(f"{where}: no run time and percentage columns ({line.strip()[:60]!r})")
        name_fields = f[2:j]
        if len(name_fields) > 1 and _VARIANCE.match(name_fields[-1]):
            name_fields = name_fields[:-1]  # perf stat -r: variance column
        event = ",".join(name_fields).strip()
        if not event:
            raise InputError(f"{where}: no event name")
        if event in readings:
            raise InputError(f"{where}: event {event} counted twice in one run")
        status = "ok" if num is not None else (
            "not supported" if value == NOT_SUPPORTED else "not counted")
        readings[event] = Reading(event, num, status, f[1].strip(), float(f[j + 1]))
    if not readings:
        raise InputError(f"{path}: no counts (an empty or non-perf file)")
    return readings


def write(readings):
    """The inverse, in perf's exact format (for tests and synthetic data):
    readings is a list of (event, value, unit, percent) with value a number,
    NOT_SUPPORTED or NOT_COUNTED."""
    lines = []
    for event, value, unit, percent in readings:
        if isinstance(value, str):
            lines.append(f"{value},{unit},{event},0,{percent:.2f},,")
        else:
            v = f"{value:.2f}" if isinstance(value, float) else str(value)
            lines.append(f"{v},{unit},{event},1000000,{percent:.2f},,")
    return "\n".join(lines) + "\n"
