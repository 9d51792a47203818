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
own fields in the order of its format file, then perf_sample_dict.
Standard library only (perf's embedded Python).
"""
import collections
import json
import os
import sys

# __print_symbolic tables of the linear_map events (their format files).
SPLIT_CAUSES = {0: "cma-remap", 1: "page-granular", 2: "forced"}
ATTR_CAUSES = {0: "dma-remap", 1: "set_memory", 2: "set_direct_map"}


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


def cma__cma_alloc_fail(event_name, context, common_cpu, common_secs, common_nsecs, common_pid,
                        common_comm, common_callchain, name, start_pfn, count, align, attempt, errorno,
                        stage, pfn, flags, refcount, mapcount, migratetype, kind, owner,
                        perf_sample_dict=None):
    errorno = _int(errorno)
    summary.areas[name]["attempts_failed"] += 1
    summary.fail_stage[stage] += 1
    summary.fail_errno[errorno] += 1
    summary.blamed[(name, pfn)] += 1
    summary.blamed_state[(name, pfn)] = {"flags": flags, "refcount": refcount, "mapcount": mapcount,
                                         "migratetype": migratetype, "kind": kind, "owner": owner}
    _line("cma:cma_alloc_fail", common_secs, common_nsecs, common_cpu, common_comm,
          [("name", name), ("start_pfn", f"{start_pfn:#x}"), ("count", count), ("align", align),
           ("attempt", attempt), ("errorno", errorno), ("stage", stage), ("pfn", f"{pfn:#x}"),
           ("flags", f"{flags:#x}"), ("refcount", refcount), ("mapcount", mapcount),
           ("migratetype", migratetype), ("kind", kind), ("owner", owner)])


# ---- linear_map --------------------------------------------------------------

def linear_map__linear_map_split(event_name, context, common_cpu, common_secs, common_nsecs, common_pid,
                                 common_comm, common_callchain, addr, size, from_, to, count, cause,
                                 perf_sample_dict=None):
    c = SPLIT_CAUSES.get(cause, f"cause-{cause}")
    summary.splits[c][f"{from_}->{to}"] += count
    _line("linear_map:linear_map_split", common_secs, common_nsecs, common_cpu, common_comm,
          [("addr", f"{addr:#x}"), ("size", size), ("from", from_), ("to", to), ("count", count),
           ("cause", c)])


def linear_map__linear_map_attr_change(event_name, context, common_cpu, common_secs, common_nsecs,
                                       common_pid, common_comm, common_callchain, start, pfn, size,
                                       old_type, new_type, ret, cause, perf_sample_dict=None):
    c = ATTR_CAUSES.get(cause, f"cause-{cause}")
    ret = _int(ret)
    summary.attr[c]["changes" if ret == 0 else "failures"] += 1
    summary.attr[c]["bytes"] += size
    _line("linear_map:linear_map_attr_change", common_secs, common_nsecs, common_cpu, common_comm,
          [("start", f"{start:#x}"), ("pfn", f"{pfn:#x}"), ("size", size), ("old", old_type),
           ("new", new_type), ("ret", ret), ("cause", c)])


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
                   f"ref {p['refcount']} map {p['mapcount']} flags {p['flags']:#x} owner {p['owner']}")
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
