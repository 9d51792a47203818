"""One self-contained HTML file: inline CSS, figures as data: PNGs, no scripts,
nothing fetched from anywhere.  Sections carry stable ids and classes (the
tests find them with html.parser and in headless Chromium).

The helpers up to page() serve both pages (the snapshot report here, the
compare page in comparehtml.py): tables that turn into one block per row on
a narrow screen, provenance said once at the top, figures that say only
where their numbers come from.  The snapshot report opens with the overview
(one column per system), then one section per system and the TLB A/B."""
import base64
import html

from . import UNKNOWN, plots
from .snapshot import SCHEMA, STAGES, VERSION
from .text import layout_source, mib, no_split_records, page_state, pct

CSS = """
body { font-family: sans-serif; max-width: 72em; margin: 1em auto; padding: 0 1em; color: #222;
       overflow-wrap: break-word; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { margin-top: 1.5em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; }
td.num { text-align: right; font-family: monospace; }
code { overflow-wrap: anywhere; }
.na { font-style: italic; color: #8a4b00; }
figure { margin: 0.8em 0; } figcaption { font-size: 0.9em; }
img { max-width: 100%; }
.src { font-size: 0.8em; color: #555; }
dl.prov { display: grid; grid-template-columns: max-content 1fr; gap: 0.1em 0.8em; }
dl.prov dt { font-weight: bold; } dl.prov dd { margin: 0; min-width: 0; }
dl.prov code { white-space: pre-wrap; overflow-wrap: anywhere; }
table.cmp td, table.cmp th { overflow-wrap: anywhere; vertical-align: top; }
table.rowheads td:first-child { min-width: 9em; font-weight: bold; }
.best { background: #d8f0d8; } .even { background: #f3f3f3; } .worse { background: #fbe0c8; }
.unknown { background: #ffffff; color: #8a4b00; font-style: italic; } .none { background: #eef6ee; }
.legend span { padding: 0 0.4em; margin-right: 0.3em; border: 1px solid #ccc; }
@media (max-width: 45em) {
  table.cmp, table.cmp tbody, table.cmp tr, table.cmp td, table.cmp th { display: block; }
  table.cmp tr.head { display: none; }
  table.cmp tr { border-top: 2px solid #999; margin-top: 0.4em; }
  table.cmp td::before { content: attr(data-label) ": "; font-weight: bold; }
  table.rowheads td:first-child::before { content: none; } table.cmp td.num { text-align: left; }
  dl.prov { display: block; } dl.prov dd { margin: 0 0 0.3em 1em; }
}
"""


def esc(s):
    return html.escape(str(s), quote=True)


def img(png, alt):
    b64 = base64.b64encode(png).decode("ascii")
    return f'<img src="data:image/png;base64,{b64}" alt="{esc(alt)}">'


def figure_src(png, caption, source):
    """A figure that says only where its numbers come from."""
    return f'<figure>{img(png, caption)}<figcaption>{esc(caption)}{src(source)}</figcaption></figure>'


def not_available(text):
    return f'<p class="na">{esc(text)}</p>'


def table(headers, rows, numeric=(), classes=None, kind=None):
    """A table that becomes one labelled block per row on a narrow screen (a
    phone), so the page never scrolls sideways; CLASSES, when given, is one
    list of cell classes per row (None: no class); KIND is one more class
    for the table."""
    out = [f'<table class="cmp{" " + kind if kind else ""}"><tr class="head">'
           + "".join(f"<th>{esc(h)}</th>" for h in headers) + "</tr>"]
    for k, r in enumerate(rows):
        cells = []
        for i, v in enumerate(r):
            cls = [c for c in ("num" if i in numeric else None,
                               classes[k][i] if classes else None) if c]
            attr = f' class="{" ".join(cls)}"' if cls else ""
            cells.append(f'<td{attr} data-label="{esc(headers[i])}">{esc(v)}</td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "".join(out)


def cell_table(head, names, rows, kind, lead=()):
    """One column per NAME, one row per item of ROWS ({"label", "cells": {name:
    {"text", "class"}}}), after the LEAD rows ((cells, classes) each): the
    compare page's decision table and the snapshot report's overview."""
    body, classes = [r for r, _ in lead], [c for _, c in lead]
    for r in rows:
        body.append([r["label"]] + [r["cells"][n]["text"] for n in names])
        classes.append([None] + [r["cells"][n]["class"] for n in names])
    return table([head] + names, body, classes=classes, kind=f"rowheads {kind}")


def legend(items):
    """The cell classes a table uses, as coloured words: [(class, word)]."""
    return '<p class="legend">' + "".join(f'<span class="{c}">{esc(w)}</span>' for c, w in items) + "</p>"


def src(text):
    """Where the numbers of a figure or table come from (the page says
    machine, kernel and method once, at the top)."""
    return f'<p class="src">From {esc(text)}</p>'


def provenance_list(items):
    """Provenance said once, at the top of a page: [(label, value)]."""
    return ('<dl class="prov">' + "".join(f"<dt>{esc(k)}</dt><dd><code>{esc(v)}</code></dd>"
                                          for k, v in items) + "</dl>")


def page(title, body, css=""):
    """The whole self-contained document around BODY (a list of HTML parts)."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title>"
            f"<style>{CSS}{css}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def snapshot_labels(s):
    import os
    return [f"#{i} {os.path.basename(p['path'])}" for i, p in enumerate(s["snapshots"], 1)]


def area_section(sid, s, a, snaps_by_area):
    labels = snapshot_labels(s)
    name = a["name"]
    aid = f"{sid}-area-{name}"
    out = [f'<section class="area" id="{esc(aid)}" data-area="{esc(name)}">',
           f"<h3>CMA area {esc(name)}</h3>"]
    last_pfn = a["base_pfn"] + a["count_pages"] - 1
    out.append(table(["pfns", "size", "used", "free", "largest free chunk", "alloc ok (pages)",
                      "alloc fail (pages)"],
                     [[f"{a['base_pfn']:#x}-{last_pfn:#x}", mib(a["size_bytes"]),
                       f"{a['used_pages']} pages ({pct(a['used_pages'], a['count_pages'])})",
                       f"{a['free_pages']} pages", f"{a['maxchunk_pages']} pages",
                       "unknown" if a["alloc_pages_success"] is None else a["alloc_pages_success"],
                       "unknown" if a["alloc_pages_fail"] is None else a["alloc_pages_fail"]]]))
    out.append(src(f"debugfs cma/{name}/ and sysfs /sys/kernel/mm/cma/{name}/ (alloc_pages_*), "
                   "latest snapshot"))

    out.append('<div class="allocation-map"><h4>Allocation map</h4>')
    rows = snaps_by_area
    if a["allocated_runs"] is None or not rows:
        out.append(not_available("allocation map: not available in this snapshot (no bitmap)"))
    else:
        png = plots.heat_strip(a, [r for r, _ in rows], [lbl for _, lbl in rows],
                               sorted(set(a["failed_pfns"])))
        out.append(figure_src(png, f"Allocation map of {name} (one row per snapshot, oldest on top; "
                                   "red: pages the kernel blamed for failures)",
                              f"debugfs cma/{name}/{a['map_source']}"))
    out.append("</div>")

    out.append('<div class="used-over-time"><h4>Used and free over time</h4>')
    if len(a["used_pages_series"]) > 1:
        out.append(figure_src(plots.used_free_series(a, labels),
                              f"Used and free pages of {name} per snapshot ({s['order']})",
                              f"debugfs cma/{name}/used and count"))
    else:
        out.append(f"<p>One snapshot: {a['used_pages']} of {a['count_pages']} pages used. "
                   "Give several snapshots of this system to see a series.</p>")
    out.append("</div>")

    out.append('<div class="failures"><h4>Failures</h4>')
    if a["failures_by_stage"] is None:
        out.append(not_available("failures by stage: not available in this snapshot "
                                 "(kernel lacks the CMA failure patches)"))
    else:
        out.append(table(["requests", "failed requests"] + STAGES,
                         [[a["requests"], a["failures"]] + [a["failures_by_stage"][st] for st in STAGES]],
                         numeric=range(2 + len(STAGES))))
        out.append(figure_src(plots.failures_by_stage(a, labels),
                              f"Failed attempts of {name} by stage", f"debugfs cma/{name}/stats"))
    log = a["failure_log"]
    if log is None:
        out.append(not_available("failure log: not available in this snapshot "
                                 "(kernel lacks the CMA failure patches)"))
    elif not log["records"]:
        out.append("<p>The failure log has no records for this area.</p>")
    else:
        dropped = f", {log['dropped']} dropped by the kernel" if log["dropped"] else ""
        out.append(figure_src(plots.failures_over_time(a),
                              f"Failure log of {name} over time ({log['records']} records{dropped})",
                              f"debugfs cma/{name}/failures (CLOCK_MONOTONIC)"))
    out.append("</div>")

    out.append('<div class="blamed-pages"><h4>Pages most often blamed</h4>')
    if a["most_blamed_pages"] is None:
        out.append(not_available("not available in this snapshot (no failure log)"))
    elif not a["most_blamed_pages"]:
        out.append("<p>No failure blamed a page in this area.</p>")
    else:
        out.append(table(["pfn", "times blamed", "stages", "kind", "migratetype", "refcount",
                          "mapcount", "flags"],
                         [[f"{p['pfn']:#x}", p["times_blamed"], ", ".join(p["stages"]),
                           p["kind"] or "-", p["migratetype"] or "-",
                           "-" if p["refcount"] is None else p["refcount"],
                           "-" if p["mapcount"] is None else p["mapcount"],
                           "-" if p["flags"] is None else f"{p['flags']:#x}"]
                          for p in a["most_blamed_pages"]], numeric=(1,)))
        states = "; ".join(f"{p['pfn']:#x}: {page_state(p)}" for p in a["most_blamed_pages"])
        out.append(f"<p>Most recent state of each page, as the kernel recorded it: {esc(states)}</p>")
        out.append(src(f"debugfs cma/{name}/failures, every snapshot"))
    out.append("</div></section>")
    return "\n".join(out)


def linear_map_section(sid, s):
    lm = s["linear_map"]
    out = [f'<section class="linear-map" id="{sid}-linear-map"><h3>Linear map</h3>']
    lay = lm["layout"]
    out.append('<div class="linear-map-layout"><h4>Layout by mapping size</h4>')
    if not lay["available"]:
        out.append(not_available(lay["reason"]))
    else:
        source = layout_source(lay["source"])
        mapped = [(m["level"], m["bytes"]) for m in lay["mapped"] if m["bytes"]]
        if mapped:
            out.append(figure_src(plots.linear_map_layout(mapped),
                                  f"The linear map by mapping size ({source})", f"{source}, latest snapshot"))
        else:
            out.append("<p>The snapshot lists no linear-map mappings.</p>")
        out.append('</div><div class="linear-map-splits"><h4>Splits by cause</h4>')
        if lay["splits"] is None:
            out.append(not_available(no_split_records(lay["source"])))
        elif lay["splits"]:
            out.append(figure_src(plots.linear_map_splits(lay["splits"]),
                                  "Linear-map splits by cause and entry size",
                                  "debugfs linear_map/splits, latest snapshot"))
        else:
            out.append("<p>No splits recorded.</p>")
            out.append(src("debugfs linear_map/splits, latest snapshot"))
        if lay["attr_changes"] is not None:
            out.append('</div><div class="linear-map-attr-changes"><h4>Attribute changes by cause</h4>')
            out.append(table(["cause", "changes", "failed", "bytes changed"],
                             [[a["cause"], str(a["changes"]), str(a["failures"]), mib(a["bytes"])]
                              for a in lay["attr_changes"]]))
            out.append(src("debugfs linear_map/attr_changes, latest snapshot"))
    out.append("</div>")
    al = lm["alias"]
    out.append('<div class="alias"><h4>Alias conflicts</h4>')
    if not al["available"]:
        out.append(not_available(al["reason"]))
    elif not al["conflicts"] and not al["pages"]:
        out.append("<p>No page is mapped twice with memory types of different cacheability.</p>")
    else:
        out.append(f"<p>{al['hazards']} hazards, {al['pages']} pages"
                   + (f" ({al['unlisted_pages']} not listed)" if al["unlisted_pages"] else "")
                   + (f"; {al['sanctioned']} sanctioned aliases, {al['sanctioned_pages']} pages "
                      "(non-cacheable DMA remaps the architecture makes safe)" if al["sanctioned"] else "")
                   + ("; the kernel could not check everything" if al["incomplete"] else "") + ".</p>")
        out.append(table(["class", "pfn", "pages", "linear address", "linear type", "alias address",
                          "alias type", "region", "CMA area", "mapped by"],
                         [[c["class"] or "hazard", f"{c['pfn']:#x}", str(c["pages"]), f"{c['linear']:#x}",
                           c["linear_type"],
                           "none" if c["alias"] is None else f"{c['alias']:#x}", c["alias_type"],
                           c["region"], c["cma"] or "-", c["caller"] or "-"]
                          for c in al["conflicts"]]))
    if al["available"] and al["incomplete"] and not al["conflicts"]:
        out.append("<p>The kernel could not check everything.</p>")
    if al["available"]:
        out.append(src("debugfs linear_map/alias_check, latest snapshot"))
    out.append("</div></section>")
    return "\n".join(out)


def _utc(ns):
    import datetime
    return datetime.datetime.fromtimestamp(ns / 1e9, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _taken(p):
    if p["realtime_ns"] is not None:
        return f"taken {_utc(p['realtime_ns'])}"
    if p["monotonic_ns"] is not None:
        return f"taken {p['monotonic_ns'] / 1e9:.3f} s after boot"
    return None


def system_section(i, s, snaps):
    sid = f"system-{i}"
    head = f"System {i}" + ("" if s["machine"] == UNKNOWN else f": {s['machine']}")
    n = len(s["snapshots"])
    out = [f'<section class="system" id="{sid}"><h2>{esc(head)}</h2>',
           f"<p>{'One snapshot' if n == 1 else f'{n} snapshots, ordered ' + s['order']}:</p><ol>"]
    for p in s["snapshots"]:
        src_ = "the live system" if p["source"] == "live" else f"the captured tree {p['source']}"
        facts = [f"of {src_}", _taken(p)] + [f"missing {m}" for m in p["missing"]]
        out.append(f"<li><code>{esc(p['path'])}</code> ({esc('; '.join(f for f in facts if f))})</li>")
    out.append("</ol>")
    for a in s["areas"]:
        rows = []
        for snap, lbl in zip(snaps, snapshot_labels(s)):
            sa = snap.area(a["name"])
            if sa is not None and sa.runs is not None:
                rows.append((plots.occupancy(sa.base_pfn, sa.count_pages, sa.runs), lbl))
        out.append(area_section(sid, s, a, rows))
    out.append(linear_map_section(sid, s))
    out.append("</section>")
    return "\n".join(out)


def provenance_once(summary):
    """What every snapshot shares, said once at the top; machine, kernel and
    command line are the overview's first rows (they tell the systems apart)."""
    systems = summary["systems"]
    snaps = [p for s in systems for p in s["snapshots"]]
    real = [p["realtime_ns"] for p in snaps if p["realtime_ns"] is not None]
    if real:
        captured = (f"{_utc(min(real))} to {_utc(max(real))}" if len(real) > 1 else _utc(real[0])) \
            + ("" if len(real) == len(snaps) else f" ({len(snaps) - len(real)} snapshots record no time)") \
            + "; each snapshot's in its system's section"
    elif any(p["monotonic_ns"] is not None for p in snaps):
        captured = "time since boot only (CLOCK_MONOTONIC), in each system's section"
    else:
        captured = "not recorded in the snapshots"
    items = [("method", f"cmadebug snapshot ({SCHEMA} v{VERSION}), read as cmadebug wrote it; snapshots "
                        "of one machine, kernel and command line form one system"),
             ("systems", f"{len(systems)}, {len(snaps)} snapshot{'s' if len(snaps) != 1 else ''}"
                         + ("; machine, kernel and command line of each in the overview" if systems else
                            " (TLB A/B results only)")),
             ("captured", captured),
             ("cmadebug version", "not recorded in the snapshots")]
    if summary["tlb"]:
        items.append(("TLB A/B", f"{len(summary['tlb'])} result{'s' if len(summary['tlb']) != 1 else ''} "
                                 "(--tlb); where each was measured is in the TLB A/B section"))
    return provenance_list(items)


def overview_section(summary):
    ov = summary["overview"]
    body = ['<section class="overview" id="overview"><h2>Overview</h2>']
    if not ov["columns"]:
        body.append("<p>No snapshots given: the TLB A/B results are below.</p></section>")
        return "\n".join(body)
    ranked = any(r["ranked"] for r in ov["rows"])
    used = {c["class"] for r in ov["rows"] for c in r["cells"].values()}
    body.append(f"<p>One column per system, from {esc(ov['basis'])}; the sections below have the "
                "details."
                + (" Where fewer is better, a cell is <b>best</b> when its figure is below another "
                   "system's and none is below it, <b>worse</b> when another's is below it, <b>even</b> "
                   "when they are equal." if ranked else "") + "</p>")
    if ranked:
        body.append(legend([(c, w) for c, w in (("best", "best"), ("even", "even"), ("worse", "worse"),
                                                 ("none", "no cost"), ("unknown", "not available"))
                            if c in used]))
    body.append(cell_table("", ov["columns"], ov["rows"], "overview"))
    body.append(src("each system's latest snapshot (cmadebug areas, bitmap, stats, splits and alias)"
                    + ("; the TLB A/B results given with --tlb" if summary["tlb"] else "")))
    body.append("</section>")
    return "\n".join(body)


def tlb_section(summary):
    tlb = summary["tlb"]
    out = ['<section class="tlb" id="tlb"><h2>TLB A/B</h2>']
    if not tlb:
        out.append(not_available("No TLB A/B results given (--tlb RESULTS)."))
    else:
        from .tlbhtml import render_tlb
        out.append(render_tlb(tlb, [s["kernel"] for s in summary["systems"]]))
    out.append("</section>")
    return "\n".join(out)


def render(summary, ordered_snaps):
    """ordered_snaps: per system, its snapshots in the summary's order."""
    body = ["<h1>cmadebug report</h1>", provenance_once(summary), overview_section(summary)]
    for i, (s, snaps) in enumerate(zip(summary["systems"], ordered_snaps), 1):
        body.append(system_section(i, s, snaps))
    body.append(tlb_section(summary))
    return page("cmadebug report", body)
