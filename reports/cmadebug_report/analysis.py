"""From snapshots to the report's model: one plain, JSON-able summary.

Snapshots of one system (same machine, kernel and command line) are put in
time order and read as a series; snapshots of different systems are reported
side by side, never mixed.  The text summary, the JSON summary and the HTML
are all rendered from what summarise() returns.
"""
from collections import Counter, OrderedDict

from . import UNKNOWN
from .snapshot import STAGES, describe_method
from .text import mib, pct

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
                                              "flags")}})
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
        alias["hazards"] = sum(1 for c in lm.conflicts if c["class"] != "sanctioned")
        alias["pages"] = lm.alias_pages
        alias["sanctioned"] = len(lm.conflicts) - alias["hazards"]
        alias["sanctioned_pages"] = lm.sanctioned_pages
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


# ---------------------------------------------------------------- the overview

NO_STATS = "not available (kernel lacks the CMA failure patches)"
NO_SYSFS = "not available (no /sys/kernel/mm/cma counters: CONFIG_CMA_SYSFS off)"
PTDUMP_SPLITS = "not available (layout from ptdump: the kernel lacks the linear_map patches)"


def _cell(text, value=None):
    return {"text": text, "value": value}


def _na(reason):
    """A cell the snapshot cannot fill: its reason, never a number."""
    reason = reason if reason.startswith("not available") else f"not available ({reason})"
    return {"text": reason.replace(" in this snapshot", ""), "value": None}


def _per_area(areas, key):
    """KEY summed over the areas, or None when an area does not know it."""
    vals = [a[key] for a in areas]
    return None if any(v is None for v in vals) else sum(vals)


def _ov_areas(s):
    areas = s["areas"]
    total = _per_area(areas, "size_bytes")
    each = ", ".join(f"{a['name']} " + (f"{a['count_pages']} pages" if a["size_bytes"] is None
                                         else mib(a["size_bytes"])) for a in areas)
    n = f"{len(areas)} area{'s' if len(areas) != 1 else ''}"
    if total is None:
        return _cell(f"{n}, {sum(a['count_pages'] for a in areas)} pages: {each}", None)
    return _cell(f"{n}, {mib(total)}: {each}", total)


def _ov_used(s):
    areas = s["areas"]
    used, count = sum(a["used_pages"] for a in areas), sum(a["count_pages"] for a in areas)
    text = f"{used} of {count} pages ({pct(used, count)})"
    if s["page_size"] is not None:
        text = f"{used} of {count} pages, {mib(used * s['page_size'])} ({pct(used, count)})"
    series = [sum(x) if None not in x else None for x in zip(*(a["used_pages_series"] for a in areas))]
    if len(series) > 1:
        text += "; over the snapshots: " + " -> ".join("?" if u is None else str(u) for u in series)
    return _cell(text, used)


def _ov_failed_requests(s):
    areas = s["areas"]
    fails, reqs = _per_area(areas, "failures"), _per_area(areas, "requests")
    if fails is None or reqs is None:
        return _na(NO_STATS)
    which = ", ".join(f"{a['name']} {a['failures']} of {a['requests']}" for a in areas if a["failures"])
    return _cell(f"{fails} of {reqs} requests" + (f" ({which})" if which and len(areas) > 1 else ""), fails)


def _ov_failed_pages(s):
    n = _per_area(s["areas"], "alloc_pages_fail")
    return _na(NO_SYSFS) if n is None else _cell(f"{n} pages", n)


def _ov_migrate(s):
    stages = [a["failures_by_stage"] for a in s["areas"]]
    if any(st is None for st in stages):
        return _na(NO_STATS)
    n = sum(st["migrate"] for st in stages)
    return _cell(f"{n} attempt{'s' if n != 1 else ''}", n)


def _layout_records(s, key):
    """The linear map's KEY records (splits, attr_changes), or the cell that
    says why the snapshot has none."""
    lay = s["linear_map"]["layout"]
    if not lay["available"]:
        return None, _na(lay["reason"])
    if lay[key] is None:
        return None, _na(PTDUMP_SPLITS if lay["source"] == "ptdump" else
                         "not available (no linear_map/ in debugfs: nothing recorded it)")
    return lay[key], None


def _ov_splits(s):
    splits, na = _layout_records(s, "splits")
    if na:
        return na
    n = sum(x["count"] for x in splits)
    recs = [x for x in splits if x["count"]]
    by = ""
    if len(recs) == 1:
        by = f", {recs[0]['from']}->{recs[0]['to']} ({recs[0]['cause']})"
    elif recs:
        by = ": " + ", ".join(f"{x['count']} {x['from']}->{x['to']} ({x['cause']})" for x in recs)
    return _cell(f"{n} entr{'y' if n == 1 else 'ies'}{by}", n)


def _ov_smallest(s):
    lay = s["linear_map"]["layout"]
    if not lay["available"]:
        return _na(lay["reason"])
    sized = [m for m in lay["mapped"] if m["size_bytes"] is not None]
    total = sum(m["bytes"] for m in lay["mapped"])
    if not sized or not total:
        return _na("the layout lists no sized mappings")
    small = min(sized, key=lambda m: m["size_bytes"])
    return _cell(f"{mib(small['bytes'])} of {mib(total)} in {small['level']} entries "
                 f"({pct(small['bytes'], total)}; from {lay['source']})", small["bytes"])


def _ov_attr(s):
    changes, na = _layout_records(s, "attr_changes")
    if na:
        return na
    changed = [a for a in changes if a["changes"] or a["failures"]]
    return _cell(", ".join(f"{a['cause']} {a['changes']} ({mib(a['bytes'])}), {a['failures']} failed"
                           for a in changed) or "none", sum(a["changes"] for a in changed))


def _ov_alias(s):
    al = s["linear_map"]["alias"]
    if not al["available"]:
        return _na(al["reason"])
    n = al["hazards"]
    return _cell(f"{n} ({al['pages']} page{'s' if al['pages'] != 1 else ''}"
                 + (f", {al['unlisted_pages']} not listed" if al["unlisted_pages"] else "")
                 + (", incomplete check" if al["incomplete"] else "") + ")"
                 + (f"; {al['sanctioned']} sanctioned ({al['sanctioned_pages']} pages)"
                    if al["sanctioned"] else ""), n)


def _text_cell(key, what):
    def get(s):
        v = s[key]
        return _na(f"the snapshot does not record the {what}") if v == UNKNOWN else _cell(v, v)
    return get


# id, label, cell, ranked (fewer is better: compared across systems)
OVERVIEW_ROWS = [
    ("machine", "machine", _text_cell("machine", "machine"), False),
    ("kernel", "kernel (/proc/version)", _text_cell("kernel", "kernel"), False),
    ("cmdline", "command line", _text_cell("cmdline", "command line"), False),
    ("cma", "CMA areas", _ov_areas, False),
    ("used", "CMA used", _ov_used, False),
    ("failed-requests", "allocation failures (failed requests, cma/<area>/stats)", _ov_failed_requests, True),
    ("failed-pages", "pages that failed to allocate (sysfs alloc_pages_fail)", _ov_failed_pages, True),
    ("migrate", "migration failures (attempts failed in migration, cma/<area>/stats)", _ov_migrate, True),
    ("splits", "linear-map entries split (linear_map/splits)", _ov_splits, True),
    ("smallest", "linear map in its smallest entries", _ov_smallest, False),
    ("attr", "linear-map attribute changes", _ov_attr, False),
    ("alias", "alias hazards (pages mapped twice, different cacheability, not sanctioned)", _ov_alias, True),
]


def _tlb_kernel(doc):
    kernels = {k for v in doc["variants"] for k in v.get("kernel") or []}
    return kernels.pop() if len(kernels) == 1 else None


def _ov_tlb(s, tlb):
    """The TLB A/B given for this system's kernel, as compare's TLB cell says it."""
    from .compare import _tlb_cell, spread, tlb_result

    docs = [d for d in tlb if _tlb_kernel(d) == s["kernel"]]
    if not docs:
        return {"text": "not measured on this kernel (the TLB A/B given ran on another)",
                "value": None, "class": "unknown"}
    splits = _ov_splits(s)["value"]
    st = {"figures": {"splits": None if splits is None else spread([splits])}}
    cls, text, value = _tlb_cell(st, tlb_result(docs[0], ", ".join(docs[0]["results"])))
    if len(docs) > 1:
        text += f" (the first of {len(docs)} A/B results of this kernel)"
    return {"text": text, "value": value, "class": cls}


def overview(systems, tlb):
    """One column per system (its latest snapshot), one row per key fact.
    Where fewer is better and there are two systems or more, each cell is
    ranked as compare ranks one boot: best, worse, even (unknown: not
    available); other cells carry no class."""
    from .compare import rank, spread

    columns = [f"system {i}" for i in range(1, len(systems) + 1)]
    rows = []
    for rid, label, get, ranked in OVERVIEW_ROWS:
        cells = dict(zip(columns, (get(s) for s in systems)))
        classes = {c: ("unknown" if cell["value"] is None and cell["text"].startswith("not available")
                       else None) for c, cell in cells.items()}
        if ranked and len(columns) > 1:
            ranks = rank({c: None if cell["value"] is None else spread([cell["value"]])
                          for c, cell in cells.items()}, 1)
            classes = {c: cls for c, (cls, _) in ranks.items()}
        for c, cell in cells.items():
            cell["class"] = classes[c]
        rows.append({"id": rid, "label": label, "ranked": ranked and len(columns) > 1, "cells": cells})
    if tlb:
        rows.append({"id": "tlb", "label": "TLB cost of a split (--tlb, same kernel)", "ranked": False,
                     "cells": {c: _ov_tlb(s, tlb) for c, s in zip(columns, systems)}})
    return {"basis": "the latest snapshot of each system", "columns": columns, "rows": rows}


def summarise(snaps, tlb=None):
    """The whole report as one JSON-able dict."""
    systems = [summarise_system(g) for g in group_systems(snaps)]
    return {
        "schema": SUMMARY_SCHEMA,
        "version": SUMMARY_VERSION,
        "overview": overview(systems, tlb),
        "systems": systems,
        "tlb": tlb,
    }


def ordered_systems(snaps):
    """Per system, its snapshots in the order summarise() uses."""
    return [_order(g)[0] for g in group_systems(snaps)]
