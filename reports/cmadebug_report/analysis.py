"""From snapshots to the report's model: one plain, JSON-able summary.

Snapshots of one system (same machine, kernel and command line) are put in
time order and read as a series; snapshots of different systems are reported
side by side, never mixed.  The text summary, the JSON summary and the HTML
are all rendered from what summarise() returns.
"""
from collections import Counter, OrderedDict

from . import UNKNOWN
from .snapshot import STAGES, describe_method

SUMMARY_SCHEMA = "cmadebug-report-summary"
SUMMARY_VERSION = 1
TOP_PAGES = 10


def _order(snaps):
    """Snapshots in time order, and how that order was decided."""
    if all(s.realtime_ns is not None for s in snaps):
        return sorted(snaps, key=lambda s: s.realtime_ns), "by time (snapshot time.realtime_ns)"
    if all(s.monotonic_ns is not None for s in snaps):
        return sorted(snaps, key=lambda s: s.monotonic_ns), "by time (snapshot time.monotonic_ns)"
    if len(snaps) == 1:
        return list(snaps), "one snapshot"
    return list(snaps), "as given on the command line (the snapshots record no time)"


def group_systems(snaps):
    groups = OrderedDict()
    for s in snaps:
        groups.setdefault(s.system_key, []).append(s)
    return list(groups.values())


def _stage_counts(stats):
    if stats is None:
        return None
    return {st: stats.get("failed_" + st.replace("-", "_"), 0) for st in STAGES}


def _failure_key(f):
    return (f["area"], f["time_ns"], f["attempt"], f["start_pfn"], f["stage"], f["pfn"])


def _area_summary(name, ordered):
    present = [(s, s.area(name)) for s in ordered]
    last_snap, last = next((s, a) for s, a in reversed(present) if a is not None)
    series = [None if a is None else a.used_pages for _, a in present]
    stages_series = [None if a is None else _stage_counts(a.stats) for _, a in present]

    # Failure records: the union over the series (each snapshot repeats the
    # kernel's last N), oldest first.
    have_log = any(s.failures is not None for s in ordered)
    records = OrderedDict()
    for s in ordered:
        for f in s.failures or []:
            if f["area"] == name:
                records.setdefault(_failure_key(f), f)
    records = sorted(records.values(), key=lambda f: f["time_ns"])
    blamed = Counter(f["pfn"] for f in records if f["pfn"] is not None)
    top = []
    for pfn, n in sorted(blamed.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_PAGES]:
        latest = [f for f in records if f["pfn"] == pfn][-1]
        top.append({"pfn": pfn, "times_blamed": n,
                    "stages": sorted({f["stage"] for f in records if f["pfn"] == pfn}),
                    **{k: latest[k] for k in ("kind", "migratetype", "refcount", "mapcount",
                                              "flags", "owner")}})
    by_stage_log = Counter(f["stage"] for f in records)

    return {
        "name": name,
        "base_pfn": last.base_pfn,
        "count_pages": last.count_pages,
        "size_bytes": None if last_snap.page_size is None else last.count_pages * last_snap.page_size,
        "used_pages": last.used_pages,
        "free_pages": last.count_pages - last.used_pages,
        "maxchunk_pages": last.maxchunk_pages,
        "alloc_pages_success": last.alloc_pages_success,
        "alloc_pages_fail": last.alloc_pages_fail,
        "map_source": last.map_source,
        "map": last.map_strip,
        "allocated_runs": None if last.runs is None else [list(r) for r in last.runs],
        "failed_pfns": last.failed_pfns,
        "used_pages_series": series,
        # Complete counts from the stats file (None: the kernel has no stats).
        "failures_by_stage": _stage_counts(last.stats),
        "failures_by_stage_series": stages_series,
        "requests": None if last.stats is None else last.stats.get("requests"),
        "failures": None if last.stats is None else last.stats.get("failures"),
        # The failure log keeps the last N records per area.
        "failure_log": None if not have_log else {
            "records": len(records),
            "kept": None if last.kept is None else last.kept[0],
            "dropped": None if last.kept is None else last.kept[1],
            "by_stage": {st: by_stage_log.get(st, 0) for st in STAGES},
            "times_ns": [f["time_ns"] for f in records],
            "stages": [f["stage"] for f in records],
        },
        "most_blamed_pages": top if have_log else None,
    }


def _linear_map_summary(snap):
    lm = snap.linear_map
    layout = {"available": lm.mapped is not None}
    if lm.mapped is None:
        layout["reason"] = lm.reason_layout
    else:
        layout["source"] = lm.source
        layout["mapped"] = [{"level": n, "size_bytes": s, "bytes": b} for n, s, b in lm.mapped]
        layout["splits"] = None if lm.splits is None else \
            [{"from": f, "to": t, "cause": c, "count": n} for f, t, c, n in lm.splits]
        layout["attr_changes"] = None if lm.attr_changes is None else \
            [{"cause": c, "changes": n, "failures": f, "bytes": b} for c, n, f, b in lm.attr_changes]
    alias = {"available": lm.conflicts is not None}
    if lm.conflicts is None:
        alias["reason"] = lm.reason_alias
    else:
        alias["conflicts"] = lm.conflicts
        alias["pages"] = lm.alias_pages
        alias["unlisted_pages"] = lm.unlisted_pages
        alias["incomplete"] = lm.incomplete
    return {"layout": layout, "alias": alias}


def summarise_system(snaps):
    ordered, order = _order(snaps)
    last = ordered[-1]
    names = []
    for s in ordered:
        for a in s.areas:
            if a.name not in names:
                names.append(a.name)
    return {
        "machine": last.machine or UNKNOWN,
        "kernel": last.kernel or UNKNOWN,
        "cmdline": last.cmdline or UNKNOWN,
        "method": describe_method(last) if len(ordered) == 1 else
        f"{len(ordered)} cmadebug snapshots, ordered {order}; latest: {describe_method(last)}",
        "order": order,
        "snapshots": [{"path": s.path, "source": s.source,
                       "realtime_ns": s.realtime_ns, "monotonic_ns": s.monotonic_ns,
                       "missing": s.missing} for s in ordered],
        "page_size": last.page_size,
        "areas": [_area_summary(n, ordered) for n in names],
        "linear_map": _linear_map_summary(last),
    }


def summarise(snaps, tlb=None):
    """The whole report as one JSON-able dict."""
    return {
        "schema": SUMMARY_SCHEMA,
        "version": SUMMARY_VERSION,
        "systems": [summarise_system(g) for g in group_systems(snaps)],
        "tlb": tlb,
    }


def ordered_systems(snaps):
    """Per system, its snapshots in the order summarise() uses."""
    return [_order(g)[0] for g in group_systems(snaps)]
