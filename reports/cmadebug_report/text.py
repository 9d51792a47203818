"""The plain-text summary (terminals, CI logs), from analysis.summarise()."""
from .snapshot import STAGES

NOT_SUPPORTED = "not supported"


def mib(nbytes):
    if nbytes is None:
        return "size unknown"
    v = nbytes / (1 << 20)
    return f"{v:.0f} MiB" if v == int(v) else f"{v:.2f} MiB"


def pct(part, whole):
    return f"{100.0 * part / whole:.1f}%" if whole else "-"


def stages_line(counts):
    if counts is None:
        return None
    nz = [f"{st} {counts[st]}" for st in STAGES if counts[st]]
    return ", ".join(nz) if nz else "none"


def page_state(p):
    parts = [", ".join(p["stages"])]
    for k in ("kind", "migratetype"):
        if p[k] is not None:
            parts.append(p[k])
    for k in ("refcount", "mapcount"):
        if p[k] is not None:
            parts.append(f"{k} {p[k]}")
    if p["flags"] is not None:
        parts.append(f"flags {p['flags']:#x}")
    return ", ".join(parts)


def cell_lines(rows, names, indent="   "):
    """A table of cells as text: per row ({"label", "cells": {name: {"text",
    "class"}}}) its label, then one line per NAME with the cell's class (if
    any) in brackets: compare's decision and the report's overview."""
    out = []
    for r in rows:
        out.append(f"{indent}{r['label']}:")
        for n in names:
            cell = r["cells"][n]
            out.append(f"{indent}   {n}: {cell['text']}" + (f" [{cell['class']}]" if cell["class"] else ""))
    return out


def format_area(a, page_size):
    out = []
    last_pfn = a["base_pfn"] + a["count_pages"] - 1
    out.append(f"  area {a['name']}: pfn {a['base_pfn']:#x}-{last_pfn:#x}, {mib(a['size_bytes'])}, "
               f"used {a['used_pages']} pages ({mib(None if page_size is None else a['used_pages'] * page_size)}, "
               f"{pct(a['used_pages'], a['count_pages'])}), largest free chunk "
               f"{a['maxchunk_pages']} pages")
    if a["map"] is not None:
        out.append(f"    map ({a['map_source']}): {a['map']}")
    else:
        out.append("    map: not available in this snapshot (no bitmap)")
    series = a["used_pages_series"]
    if len(series) > 1:
        out.append("    used pages over the snapshots: "
                   + " -> ".join("absent" if u is None else str(u) for u in series))
    line = stages_line(a["failures_by_stage"])
    if line is None:
        out.append("    failures by stage: not available in this snapshot "
                   "(kernel lacks the CMA failure patches)")
    else:
        out.append(f"    failures by stage (stats): {line}"
                   + (f"; {a['failures']} of {a['requests']} requests failed"
                      if a["requests"] is not None and a["failures"] is not None else ""))
    log = a["failure_log"]
    if log is not None and log["records"]:
        out.append(f"    failure log: {log['records']} records"
                   + (f", {log['dropped']} dropped by the kernel" if log["dropped"] else ""))
    if a["most_blamed_pages"]:
        out.append("    pages most often blamed:")
        for p in a["most_blamed_pages"]:
            out.append(f"      pfn {p['pfn']:#x} x{p['times_blamed']}: {page_state(p)}")
    return out


PTDUMP_NO_SPLITS = ("not available (layout derived from ptdump: the kernel lacks the linear_map "
                    "patches, so nothing recorded what split it, nor attribute changes)")

# Where cmadebug splits took the layout from (its "source").
LAYOUT_SOURCES = {
    "meminfo": "/proc/meminfo's DirectMap counters",
    "linear_map": "debugfs linear_map/layout",
    "ptdump": "derived from ptdump's kernel_page_tables: the kernel lacks the linear_map patches",
    "kcore": "the page tables read through /proc/kcore: the kernel lacks the linear_map patches",
}


def layout_source(source):
    return LAYOUT_SOURCES.get(source, source)


def no_split_records(source):
    """Why a layout from SOURCE comes without split records."""
    if source == "ptdump":
        return PTDUMP_NO_SPLITS
    return (f"not available (layout from {layout_source(source)}; no linear_map/ in debugfs, "
            "so nothing recorded what split it, nor attribute changes)")


def format_linear_map(lm):
    out = []
    lay = lm["layout"]
    if not lay["available"]:
        out.append(f"  linear map: {lay['reason']}")
    else:
        total = sum(m["bytes"] for m in lay["mapped"])
        parts = [f"{m['level']} {mib(m['bytes'])} ({pct(m['bytes'], total)})"
                 for m in lay["mapped"] if m["bytes"]]
        out.append(f"  linear map by mapping size (from {lay['source']}): " + (", ".join(parts) or "empty"))
        if lay["splits"] is None:
            out.append(f"  linear-map splits: {no_split_records(lay['source'])}")
        elif lay["splits"]:
            out.append("  linear-map splits: " + ", ".join(
                f"{s['count']} {s['from']}->{s['to']} ({s['cause']})" for s in lay["splits"]))
        else:
            out.append("  linear-map splits: none")
        changes = [a for a in lay["attr_changes"] or [] if a["changes"] or a["failures"]]
        if lay["attr_changes"] is not None:
            out.append("  linear-map attribute changes: " + (", ".join(
                f"{a['cause']} {a['changes']} ({mib(a['bytes'])}), {a['failures']} failed"
                for a in changes) or "none"))
    al = lm["alias"]
    if not al["available"]:
        out.append(f"  alias hazards: {al['reason']}")
    else:
        out.append(f"  alias hazards: {al['hazards']} ({al['pages']} pages"
                   + (f", {al['unlisted_pages']} not listed" if al["unlisted_pages"] else "")
                   + (", incomplete check" if al["incomplete"] else "") + ")"
                   + (f"; sanctioned: {al['sanctioned']} ({al['sanctioned_pages']} pages)"
                      if al["sanctioned"] else ""))
        for c in al["conflicts"]:
            alias = f"{c['alias']:#x}" if c["alias"] is not None else "none"
            out.append(f"    {c['class'] or 'hazard'} pfn {c['pfn']:#x} x{c['pages']}: "
                       f"{c['linear']:#x} {c['linear_type']} / "
                       f"{alias} {c['alias_type']} ({c['region']}, CMA {c['cma'] or '-'}, "
                       f"{c['caller'] or '-'})")
    return out


def format_summary(summary):
    systems = summary["systems"]
    n_snap = sum(len(s["snapshots"]) for s in systems)
    out = [f"cmadebug report: {len(systems)} system{'s' if len(systems) != 1 else ''}, "
           f"{n_snap} snapshot{'s' if n_snap != 1 else ''}"]
    if systems:
        ov = summary["overview"]
        out.append(f"== overview ({ov['basis']}"
                   + ("; [best] [worse] [even]: fewer is better, across the systems" if len(systems) > 1
                      else "") + ")")
        out += cell_lines(ov["rows"], ov["columns"])
    for i, s in enumerate(systems, 1):
        out.append(f"== system {i}: {s['method']}")
        for a in s["areas"]:
            out += format_area(a, s["page_size"])
        out += format_linear_map(s["linear_map"])
    if not summary["tlb"]:
        out.append("== TLB A/B: no results given")
    else:
        from .abstats import format_text
        for doc in summary["tlb"]:
            out.append("== TLB A/B")
            out += ["  " + line for line in format_text(doc).splitlines()]
    return "\n".join(out) + "\n"
