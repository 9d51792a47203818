"""One self-contained HTML file: inline CSS, figures as data: PNGs, no scripts,
nothing fetched from anywhere.  Sections carry stable ids and classes (the
tests find them with html.parser and in headless Chromium)."""
import base64
import html

from . import plots
from .snapshot import STAGES
from .text import PTDUMP_NO_SPLITS, mib, page_state, pct

CSS = """
body { font-family: sans-serif; max-width: 72em; margin: 1em auto; padding: 0 1em; color: #222; }
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
.prov { font-size: 0.8em; color: #555; margin: 0.3em 0 1em; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }
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
}
"""


def esc(s):
    return html.escape(str(s), quote=True)


def img(png, alt):
    b64 = base64.b64encode(png).decode("ascii")
    return f'<img src="data:image/png;base64,{b64}" alt="{esc(alt)}">'


def provenance(prov):
    """prov: list of (label, value)."""
    items = "; ".join(f"{esc(k)}: <code>{esc(v)}</code>" for k, v in prov)
    return f'<p class="prov">{items}</p>'


def figure(png, caption, prov):
    return (f'<figure>{img(png, caption)}<figcaption>{esc(caption)}'
            f'{provenance(prov)}</figcaption></figure>')


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


def system_prov(s):
    return [("machine", s["machine"]), ("kernel", s["kernel"]),
            ("command line", s["cmdline"]), ("method", s["method"])]


def snapshot_labels(s):
    import os
    return [f"#{i} {os.path.basename(p['path'])}" for i, p in enumerate(s["snapshots"], 1)]


def area_section(sid, s, a, snaps_by_area):
    prov = system_prov(s)
    labels = snapshot_labels(s)
    aid = f"{sid}-area-{a['name']}"
    out = [f'<section class="area" id="{esc(aid)}" data-area="{esc(a["name"])}">',
           f"<h3>CMA area {esc(a['name'])}</h3>"]
    last_pfn = a["base_pfn"] + a["count_pages"] - 1
    out.append(table(["pfns", "size", "used", "free", "largest free chunk", "alloc ok (pages)",
                      "alloc fail (pages)"],
                     [[f"{a['base_pfn']:#x}-{last_pfn:#x}", mib(a["size_bytes"]),
                       f"{a['used_pages']} pages ({pct(a['used_pages'], a['count_pages'])})",
                       f"{a['free_pages']} pages", f"{a['maxchunk_pages']} pages",
                       "unknown" if a["alloc_pages_success"] is None else a["alloc_pages_success"],
                       "unknown" if a["alloc_pages_fail"] is None else a["alloc_pages_fail"]]]))

    out.append('<div class="allocation-map"><h4>Allocation map</h4>')
    rows = snaps_by_area
    if a["allocated_runs"] is None or not rows:
        out.append(not_available("allocation map: not available in this snapshot (no bitmap)"))
    else:
        png = plots.heat_strip(a, [r for r, _ in rows], [lbl for _, lbl in rows],
                               sorted(set(a["failed_pfns"])))
        out.append(figure(png, f"Allocation map of {a['name']} from the kernel's "
                          f"'{a['map_source']}' file (one row per snapshot, oldest on top)",
                          prov))
    out.append("</div>")

    out.append('<div class="used-over-time"><h4>Used and free over time</h4>')
    if len(a["used_pages_series"]) > 1:
        out.append(figure(plots.used_free_series(a, labels),
                          f"Used and free pages of {a['name']} per snapshot ({s['order']})", prov))
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
        out.append(figure(plots.failures_by_stage(a, labels),
                          f"Failed attempts of {a['name']} by stage, from cma/{a['name']}/stats",
                          prov))
    log = a["failure_log"]
    if log is None:
        out.append(not_available("failure log: not available in this snapshot "
                                 "(kernel lacks the CMA failure patches)"))
    elif not log["records"]:
        out.append("<p>The failure log has no records for this area.</p>")
    else:
        dropped = f", {log['dropped']} dropped by the kernel" if log["dropped"] else ""
        out.append(figure(plots.failures_over_time(a),
                          f"Failure log of {a['name']} over time ({log['records']} records{dropped})",
                          prov))
    out.append("</div>")

    out.append('<div class="blamed-pages"><h4>Pages most often blamed</h4>')
    if a["most_blamed_pages"] is None:
        out.append(not_available("not available in this snapshot (no failure log)"))
    elif not a["most_blamed_pages"]:
        out.append("<p>No failure blamed a page in this area.</p>")
    else:
        out.append(table(["pfn", "times blamed", "stages", "kind", "migratetype", "refcount",
                          "mapcount", "flags", "owner"],
                         [[f"{p['pfn']:#x}", p["times_blamed"], ", ".join(p["stages"]),
                           p["kind"] or "-", p["migratetype"] or "-",
                           "-" if p["refcount"] is None else p["refcount"],
                           "-" if p["mapcount"] is None else p["mapcount"],
                           "-" if p["flags"] is None else f"{p['flags']:#x}",
                           "-" if p["owner"] is None else f"{p['owner']:#x}"]
                          for p in a["most_blamed_pages"]], numeric=(1,)))
        states = "; ".join(f"{p['pfn']:#x}: {page_state(p)}" for p in a["most_blamed_pages"])
        out.append(f"<p>Most recent state of each page, as the kernel recorded it: {esc(states)}</p>")
        out.append(provenance(prov))
    out.append("</div></section>")
    return "\n".join(out)


def linear_map_section(sid, s):
    prov = system_prov(s)
    lm = s["linear_map"]
    out = [f'<section class="linear-map" id="{sid}-linear-map"><h3>Linear map</h3>']
    lay = lm["layout"]
    out.append('<div class="linear-map-layout"><h4>Layout by mapping size</h4>')
    if not lay["available"]:
        out.append(not_available(lay["reason"]))
        out.append(provenance(prov))
    else:
        source = ("debugfs linear_map/layout" if lay["source"] == "linear_map" else
                  "derived from ptdump's kernel_page_tables: the kernel lacks the linear_map patches")
        mapped = [(m["level"], m["bytes"]) for m in lay["mapped"] if m["bytes"]]
        if mapped:
            out.append(figure(plots.linear_map_layout(mapped),
                              f"The linear map by mapping size ({source})", prov))
        else:
            out.append("<p>The snapshot lists no linear-map mappings.</p>")
        out.append('</div><div class="linear-map-splits"><h4>Splits by cause</h4>')
        if lay["splits"] is None:
            out.append(not_available(PTDUMP_NO_SPLITS))
            out.append(provenance(prov))
        elif lay["splits"]:
            out.append(figure(plots.linear_map_splits(lay["splits"]),
                              "Linear-map splits by cause and entry size (debugfs linear_map/splits)", prov))
        else:
            out.append("<p>No splits recorded.</p>")
            out.append(provenance(prov))
        if lay["attr_changes"] is not None:
            out.append('</div><div class="linear-map-attr-changes"><h4>Attribute changes by cause</h4>')
            out.append(table(["cause", "changes", "failed", "bytes changed"],
                             [[a["cause"], str(a["changes"]), str(a["failures"]), mib(a["bytes"])]
                              for a in lay["attr_changes"]]))
            out.append(provenance(prov))
    out.append("</div>")
    al = lm["alias"]
    out.append('<div class="alias"><h4>Alias conflicts</h4>')
    if not al["available"]:
        out.append(not_available(al["reason"]))
    elif not al["conflicts"] and not al["pages"]:
        out.append("<p>No page is mapped twice with memory types of different cacheability.</p>")
    else:
        out.append(f"<p>{len(al['conflicts'])} conflicts, {al['pages']} pages"
                   + (f" ({al['unlisted_pages']} not listed)" if al["unlisted_pages"] else "")
                   + ("; the kernel could not check everything" if al["incomplete"] else "")
                   + " (debugfs linear_map/alias_check).</p>")
        out.append(table(["pfn", "pages", "linear address", "linear type", "alias address", "alias type",
                          "region", "CMA area", "mapped by"],
                         [[f"{c['pfn']:#x}", str(c["pages"]), f"{c['linear']:#x}", c["linear_type"],
                           "none" if c["alias"] is None else f"{c['alias']:#x}", c["alias_type"],
                           c["region"], c["cma"] or "-", c["caller"] or "-"]
                          for c in al["conflicts"]]))
    if al["available"] and al["incomplete"] and not al["conflicts"]:
        out.append("<p>The kernel could not check everything.</p>")
    out.append(provenance(prov))
    out.append("</div></section>")
    return "\n".join(out)


def system_section(i, s, snaps):
    sid = f"system-{i}"
    out = [f'<section class="system" id="{sid}"><h2>System {i}: {esc(s["machine"])}</h2>',
           provenance(system_prov(s)),
           "<p>Snapshots (" + esc(s["order"]) + "):</p><ol>"]
    for p in s["snapshots"]:
        miss = f" — missing: {'; '.join(p['missing'])}" if p["missing"] else ""
        out.append(f"<li><code>{esc(p['path'])}</code> (source {esc(p['source'])}){esc(miss)}</li>")
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


def tlb_section(tlb):
    out = ['<section class="tlb" id="tlb"><h2>TLB A/B</h2>']
    if not tlb:
        out.append(not_available("No TLB A/B results given (--tlb RESULTS)."))
    else:
        from .tlbhtml import render_tlb
        out.append(render_tlb(tlb))
    out.append("</section>")
    return "\n".join(out)


def render(summary, ordered_snaps, text_summary):
    """ordered_snaps: per system, its snapshots in the summary's order."""
    body = ["<h1>cmadebug report</h1>",
            '<section class="summary" id="summary"><h2>Summary</h2>'
            f"<pre>{esc(text_summary)}</pre></section>"]
    for i, (s, snaps) in enumerate(zip(summary["systems"], ordered_snaps), 1):
        body.append(system_section(i, s, snaps))
    body.append(tlb_section(summary["tlb"]))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>cmadebug report</title>"
            f"<style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
