# SPDX-License-Identifier: GPL-2.0
"""perf script handler for cmadebug's trace events (tracepoints/events.md):
the cma:* events (allocation start/finish/busy retry/release and the
series' cma_alloc_fail) and linear_map:* (linear_map_split,
linear_map_attr_change).

    perf record -e 'cma:*' -e 'linear_map:*' -a -- sleep 10
    perf script -s perf-scripts/cmadebug-events.py

Prints one line per event ("TIME CPU COMM EVENT key=value ...", the
symbolic fields by name) and, at the end, a summary: allocations and
failures per CMA area, failures by stage and errno, the pages blamed most,
linear-map splits and attribute changes by cause.  CMADEBUG_EVENTS_QUIET=1
prints the summary only; CMADEBUG_EVENTS_JSON=FILE also writes it as JSON.

perf calls each handler with the common fields first, then the event's
own fields in the order of its format file, then perf_sample_dict.  The
enum and flag fields arrive as ints; their names are the recording's own
format files' __print_symbolic()/__print_flags() tables, which perf hands
to the define_* functions below.  Standard library only (perf's embedded
Python).
"""
import collections
import json
import os
import re
import sys

# The __print_symbolic() and __print_flags() tables of the recording's own
# format files.  Before an event's first record, perf walks its print fmt
# and calls define_symbolic_field/define_symbolic_value and
# define_flag_field/define_flag_value (as for its own Core.py), the value
# an int, the event named as its handler is ("cma__cma_alloc_fail").
# Nothing is hard-coded here: the numbers (migratetype's) follow the
# kernel's config.  Keyed by (event, field).
symbolic = collections.defaultdict(dict)
flag_delim = {}
flag_names = collections.defaultdict(dict)
flag_zero = {}
# Fields whose table names one value twice: an enum constant the format
# file left unresolved ('{ 1UL << PG_locked, "locked" }' from a kernel
# without TRACE_DEFINE_ENUM(PG_locked): libtraceevent evaluates the name as
# 0, so every page flag arrives as 1).  Such a field prints as its number.
ambiguous = set()
_NUMBER = re.compile(r"\(*(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*\)*$")


def _define(table, key, value, name):
    if table.setdefault(value, name) != name:
        ambiguous.add(key)


def define_symbolic_field(event_name, field_name):
    symbolic[(event_name, field_name)]


def define_symbolic_value(event_name, field_name, value, field_str):
    key = (event_name, field_name)
    _define(symbolic[key], key, int(value), field_str)


def define_flag_field(event_name, field_name, delim):
    flag_delim[(event_name, field_name)] = delim


def define_flag_value(event_name, field_name, value, field_str):
    key = (event_name, field_name)
    value = int(value)
    if value:
        _define(flag_names[key], key, value, field_str)
    elif not _NUMBER.match(field_str):
        # perf also hands over each atom of the field's print args as value
        # 0: the numbers of a mask ("REC->flags & ((1UL << 20) - 1)") and
        # the string after ':' in 'REC->f ? __print_flags(...) : "none"',
        # which is what 0 prints as.
        flag_zero[key] = field_str


def sym(event, field, value):
    """A __print_symbolic() field by name; a value without one as its number."""
    key = (event, field)
    if key in ambiguous:
        return str(value)
    return symbolic.get(key, {}).get(value, str(value))


def flags_str(event, field, value):
    """A __print_flags() field: the names of its bits, in the table's order,
    joined by the table's delimiter, bits without a name in hex, 0 as the
    format's zero string ("none"); in hex when the recording gave no table
    or an ambiguous one."""
    key = (event, field)
    if key not in flag_delim:
        return f"{value:#x}"
    if value == 0:
        return flag_zero.get(key, "none")
    if key in ambiguous:
        return f"{value:#x}"
    names, rest = [], value
    for bit, name in flag_names[key].items():
        if rest & bit == bit:
            names.append(name)
            rest &= ~bit
    if rest:
        names.append(f"{rest:#x}")
    return flag_delim[key].join(names)


def _pfn(pfn):
    """cma_alloc_fail's start_pfn/pfn: all ones (ULONG_MAX, of 32 or 64
    bits) is none."""
    return None if pfn in (0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF) else pfn


def _hex_pfn(pfn):
    return "none" if _pfn(pfn) is None else f"{pfn:#x}"


class Summary:
    def __init__(self):
        self.reset()

    def reset(self):
        self.events = collections.Counter()
        self.areas = collections.defaultdict(lambda: collections.Counter())
        self.fail_stage = collections.Counter()
        self.fail_errno = collections.Counter()
        self.blamed = collections.Counter()
        self.blamed_state = {}
        self.splits = collections.defaultdict(lambda: collections.Counter())
        self.attr = collections.defaultdict(lambda: collections.Counter())

    def as_dict(self):
        return {
            "events": dict(self.events),
            "areas": {a: dict(c) for a, c in sorted(self.areas.items())},
            "failures_by_stage": dict(self.fail_stage),
            "failures_by_errno": {str(k): v for k, v in self.fail_errno.items()},
            "pages_blamed": [{"pfn": pfn, "count": n, **self.blamed_state[(area, pfn)], "area": area}
                             for (area, pfn), n in self.blamed.most_common(10)],
            "splits": {c: dict(v) for c, v in sorted(self.splits.items())},
            "attr_changes": {c: dict(v) for c, v in sorted(self.attr.items())},
        }


summary = Summary()
_out = sys.stdout


def _int(v):
    """An 'int' field (errorno, ret) as the signed value it is: perf hands a
    4-byte signed field to Python zero-extended (Debian's perf 6.1 gives
    -16 as 4294967280)."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def _quiet():
    return os.environ.get("CMADEBUG_EVENTS_QUIET") == "1"


def _line(event, secs, nsecs, cpu, comm, fields):
    summary.events[event] += 1
    if _quiet():
        return
    kv = " ".join(f"{k}={v}" for k, v in fields)
    _out.write(f"{secs:5d}.{nsecs:09d} [{cpu:03d}] {comm:<16} {event} {kv}\n")


def trace_begin():
    summary.reset()


# ---- cma -------------------------------------------------------------------

def cma__cma_alloc_start(event_name, context, common_cpu, common_secs, common_nsecs, common_pid,
                         common_comm, common_callchain, name, count, align, perf_sample_dict=None):
    summary.areas[name]["requests"] += 1
    _line("cma:cma_alloc_start", common_secs, common_nsecs, common_cpu, common_comm,
          [("name", name), ("count", count), ("align", align)])


def cma__cma_alloc_finish(event_name, context, common_cpu, common_secs, common_nsecs, common_pid,
                          common_comm, common_callchain, name, pfn, page, count, align, errorno,
                          perf_sample_dict=None):
    errorno = _int(errorno)
    summary.areas[name]["finished_ok" if errorno == 0 else "finished_failed"] += 1
    if errorno == 0:
        summary.areas[name]["pages_allocated"] += count
    _line("cma:cma_alloc_finish", common_secs, common_nsecs, common_cpu, common_comm,
          [("name", name), ("pfn", f"{pfn:#x}"), ("count", count), ("align", align), ("errorno", errorno)])


def cma__cma_alloc_busy_retry(event_name, context, common_cpu, common_secs, common_nsecs, common_pid,
                              common_comm, common_callchain, name, pfn, page, count, align,
                              perf_sample_dict=None):
    summary.areas[name]["busy_retries"] += 1
    _line("cma:cma_alloc_busy_retry", common_secs, common_nsecs, common_cpu, common_comm,
          [("name", name), ("pfn", f"{pfn:#x}"), ("count", count), ("align", align)])


def cma__cma_release(event_name, context, common_cpu, common_secs, common_nsecs, common_pid,
                     common_comm, common_callchain, name, pfn, page, count, perf_sample_dict=None):
    summary.areas[name]["releases"] += 1
    summary.areas[name]["pages_released"] += count
    _line("cma:cma_release", common_secs, common_nsecs, common_cpu, common_comm,
          [("name", name), ("pfn", f"{pfn:#x}"), ("count", count)])


FAIL = "cma__cma_alloc_fail"


def cma__cma_alloc_fail(event_name, context, common_cpu, common_secs, common_nsecs, common_pid,
                        common_comm, common_callchain, name, start_pfn, count, attempt, errorno, stage,
                        pfn, flags, refcount, mapcount, migratetype, kind, perf_sample_dict=None):
    errorno = _int(errorno)
    stage = sym(FAIL, "stage", _int(stage))
    flags = flags_str(FAIL, "flags", flags)
    migratetype = sym(FAIL, "migratetype", _int(migratetype))
    kind = sym(FAIL, "kind", _int(kind))
    refcount, mapcount = _int(refcount), _int(mapcount)
    summary.areas[name]["attempts_failed"] += 1
    summary.fail_stage[stage] += 1
    summary.fail_errno[errorno] += 1
    if _pfn(pfn) is not None:
        summary.blamed[(name, pfn)] += 1
        summary.blamed_state[(name, pfn)] = {"flags": flags, "refcount": refcount, "mapcount": mapcount,
                                             "migratetype": migratetype, "kind": kind}
    _line("cma:cma_alloc_fail", common_secs, common_nsecs, common_cpu, common_comm,
          [("name", name), ("start_pfn", _hex_pfn(start_pfn)), ("count", count), ("attempt", attempt),
           ("errorno", errorno), ("stage", stage), ("pfn", _hex_pfn(pfn)), ("flags", flags),
           ("refcount", refcount), ("mapcount", mapcount), ("migratetype", migratetype), ("kind", kind)])


# ---- linear_map --------------------------------------------------------------

SPLIT = "linear_map__linear_map_split"
ATTR = "linear_map__linear_map_attr_change"


def linear_map__linear_map_split(event_name, context, common_cpu, common_secs, common_nsecs, common_pid,
                                 common_comm, common_callchain, pfn, size, from_shift, to_shift, count,
                                 cause, perf_sample_dict=None):
    frm, to = sym(SPLIT, "from_shift", from_shift), sym(SPLIT, "to_shift", to_shift)
    c = sym(SPLIT, "cause", _int(cause))
    summary.splits[c][f"{frm}->{to}"] += count
    _line("linear_map:linear_map_split", common_secs, common_nsecs, common_cpu, common_comm,
          [("pfn", f"{pfn:#x}"), ("size", size), ("from", frm), ("to", to), ("count", count), ("cause", c)])


def linear_map__linear_map_attr_change(event_name, context, common_cpu, common_secs, common_nsecs,
                                       common_pid, common_comm, common_callchain, pfn, nr_pages, set,
                                       clear, memtype, ret, cause, perf_sample_dict=None):
    c = sym(ATTR, "cause", _int(cause))
    ret = _int(ret)
    summary.attr[c]["changes" if ret == 0 else "failures"] += 1
    summary.attr[c]["pages"] += nr_pages
    _line("linear_map:linear_map_attr_change", common_secs, common_nsecs, common_cpu, common_comm,
          [("pfn", f"{pfn:#x}"), ("nr_pages", nr_pages), ("set", flags_str(ATTR, "set", set)),
           ("clear", flags_str(ATTR, "clear", clear)), ("memtype", sym(ATTR, "memtype", _int(memtype))),
           ("ret", ret), ("cause", c)])


def trace_unhandled(event_name, context, event_fields_dict, perf_sample_dict=None):
    summary.events[f"unhandled {event_name}"] += 1


def format_summary(d):
    out = ["", "== cmadebug events summary"]
    for ev, n in sorted(d["events"].items()):
        out.append(f"  {ev:<36} {n}")
    for area, c in d["areas"].items():
        out.append(f"  area {area}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
    if d["failures_by_stage"]:
        out.append("  failures by stage: " + ", ".join(f"{k} {v}" for k, v in
                                                      sorted(d["failures_by_stage"].items())))
        out.append("  failures by errno: " + ", ".join(f"{k} {v}" for k, v in
                                                      sorted(d["failures_by_errno"].items())))
    for p in d["pages_blamed"]:
        out.append(f"  blamed {p['area']} pfn {p['pfn']:#x} x{p['count']}: {p['kind']} {p['migratetype']} "
                   f"ref {p['refcount']} map {p['mapcount']} flags {p['flags']}")
    for cause, c in d["splits"].items():
        out.append(f"  splits {cause}: " + ", ".join(f"{k} x{v}" for k, v in sorted(c.items())))
    for cause, c in d["attr_changes"].items():
        out.append(f"  attribute changes {cause}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
    return "\n".join(out) + "\n"


def trace_end():
    d = summary.as_dict()
    _out.write(format_summary(d))
    path = os.environ.get("CMADEBUG_EVENTS_JSON")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(d, f, indent=1)
            f.write("\n")
