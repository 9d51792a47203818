"""The strategy comparison as one self-contained HTML file (the same rules as
render.py: inline CSS, figures as data: PNGs, no scripts, nothing fetched).
Sections carry stable ids: decision, strategies, memory, linear-map, alias,
allocation, failures, tlb, checks.

The decision comes first.  Machine, kernel, timing and method are said
once, at the top; a figure or table says only where its numbers come from.
Tables turn into one block per row on a narrow screen (a phone), so the
page never scrolls sideways."""
from . import plots
from .compare import _count, _ms, format_spread, kib, spread
from .render import cell_table, esc, figure_src, legend, not_available, page, provenance_list, src, table
from .snapshot import STAGES

SECTIONS = ["decision", "strategies", "memory", "linear-map", "alias", "allocation", "failures",
            "tlb", "checks"]

COMPARE_CSS = """
.unsafe { background: #f6c6c6; } td.unsafe { font-weight: bold; }
td.apply-no { background: #f6c6c6; } td.apply-yes { background: #eef6ee; }
td.apply-unknown { background: #fff6d8; }
.answer { border-left: 4px solid #1f77b4; padding: 0.2em 0.8em; background: #f4f8fc; }
"""


def section(sid, title, body):
    return f'<section class="compare" id="{sid}"><h2>{esc(title)}</h2>\n' + "\n".join(body) + "\n</section>"


def provenance_once(summary):
    sts = summary["strategies"]
    items = [("machine", summary["machine"] or "; ".join(f"{s['name']}: {s['machine']}" for s in sts)),
             ("kernel", summary["kernel"] or "; ".join(f"{s['name']}: {', '.join(s['kernels'])}" for s in sts)),
             ("timing", "; ".join(sorted({f"{s['timing']}: {s['timing_note']}" for s in sts}))),
             ("boots", ", ".join(f"{s['name']} {len(s['boots'])}" for s in sts)),
             ("method", summary["method"])]
    return provenance_list(items)


APPLIES = {True: ("yes", "apply-yes"), False: ("no", "apply-no"), None: ("cannot tell here", "apply-unknown")}


def decision_section(summary):
    sts = summary["strategies"]
    names = [st["name"] for st in sts]
    cond_row, cond_cls = ["when it applies"], [None]
    for st in sts:
        c = st["condition"]
        if c["unsafe"]:
            cond_row.append(f"{c['requirement']}. Here: {c['here']}")
            cond_cls.append("unsafe")
        else:
            word, cls = APPLIES[c["applies"]]
            cond_row.append(f"{c['requirement']}. Here: {c['here']} (applies: {word})")
            cond_cls.append(cls)
    body = ["<p>One column per strategy, one row per cost: the median over the strategy's boots, "
            "with the range of its boots. A cell is <b>best</b> when its range lies wholly below "
            "another strategy's and none lies wholly below it, <b>worse</b> when another's lies "
            "wholly below it, <b>even</b> when no range separates it from the others. Costs that "
            "vary from boot to boot (pages migrated, failures, latency) are ranked only between "
            "strategies with two boots or more.</p>",
            legend([("best", "best"), ("even", "even"), ("worse", "worse"), ("none", "no cost"),
                    ("unknown", "not known"), ("unsafe", "unsafe")]),
            cell_table("cost", names, summary["decision"], "decision", lead=[(cond_row, cond_cls)])]
    if summary["not_compared"]:
        body.append(not_available("Not in this comparison (no results): "
                                  + ", ".join(summary["not_compared"])))
    body.append(f'<p class="answer" id="answer">{esc(summary["answer"]["text"])}</p>')
    body.append(src("each strategy's facts.txt, before.json and after.json per boot"
                    + ("" if summary["tlb"] is None else f"; TLB A/B {summary['tlb']['source']}")))
    return section("decision", "Which strategy for this board, and why", body)


def strategies_section(summary):
    rows = [[st["name"], st["description"], str(len(st["boots"])), st["dts"], st["cmdline"], st["boot"]]
            for st in summary["strategies"]]
    return section("strategies", "Strategies", [
        "<p>The same kernel booted several times per strategy; only the command line and the device "
        "tree change.</p>",
        table(["strategy", "what", "boots", "device tree", "command line", "boot"], rows, numeric=(2,)),
        src("facts.txt (strategy, description, cmdline, dts, boot) of the first boot")])


def memory_section(summary):
    sts = summary["strategies"]
    bars = []
    for st in sts:
        lost, nomap, pt = (st["figures"][k] for k in ("memory_lost_kb", "nomap_kb", "page_table_kb"))
        if lost is None:
            continue
        carved = nomap["median"] if nomap else 0
        other = pt["median"] if pt else 0
        if not lost["median"]:
            text = "0 KiB (the best)"
        elif carved and other:
            text = f"{kib(lost['median'])}: carve-out {kib(carved)} + page-table memory {kib(other)}"
        elif carved:
            text = f"{kib(lost['median'])}: the carve-out"
        else:
            text = f"{kib(lost['median'])}: page-table memory, nothing carved out"
        bars.append((st["name"], lost["median"], lost["min"], lost["max"], text))
    source = ("/proc/meminfo at boot (MemTotal, CmaTotal, LowTotal, HighTotal, MemAvailable) and the "
              "device tree's no-map reserved-memory regions, as the guest wrote them in facts.txt")
    body = ["<p>MemTotal is what the kernel manages. CMA memory is part of it and stays usable by "
            "movable allocations (page cache, anonymous memory) until a device allocates it; a no-map "
            "carve-out is not part of it at all: only its device can use it. Split sections need page "
            "tables, allocated at boot, which MemTotal also loses.</p>"]
    if bars:
        body.append(figure_src(plots.difference_bars(bars, "KiB of MemTotal below the best strategy "
                                                           "(log scale; median over boots)"),
                               "Memory lost to the system per strategy, as a difference from the best",
                               f"{source}; each strategy's boots: bar the median, whisker the range"))

    def f(st, key):
        return format_spread(st["figures"][key], kib)

    rows = [[st["name"], f(st, "memtotal_kb"), f(st, "memory_lost_kb"), kib(st["memory"]["cma_kb"]),
             f(st, "nomap_kb") + ("" if not st["memory"]["nomap_kb"] else f" ({st['memory']['nomap_regions']})"),
             kib(st["memory"]["lowtotal_kb"]), kib(st["memory"]["hightotal_kb"])] for st in sts]
    body.append(table(["strategy", "MemTotal", "below the best", "CmaTotal (first boot)",
                       "no-map carve-out (DT)", "LowTotal (first boot)", "HighTotal (first boot)"], rows))
    body.append(src(source))
    return section("memory", "Memory left to the rest of the system", body)


def linear_map_section(summary):
    sts = summary["strategies"]
    bars, rows, na = [], [], []
    for st in sts:
        lm = st["linear_map"]
        if not lm["available"]:
            na.append(f"{st['name']}: {lm['reason']}")
            rows.append([st["name"], "not available", "-", "-", "-"])
            continue
        bars.append((st["name"], [(f"{m['level']} entries", m["bytes"] / (1 << 20))
                                  for m in lm["mapped"] if m["bytes"]]))
        remap = next((a for a in lm["attr_changes"] or [] if a["cause"] == "dma-remap"), None)
        rows.append([st["name"], format_spread(st["figures"]["splits"], _count),
                     ", ".join(f"{k} {v}" for k, v in (lm["splits_by_cause"] or {}).items()) or "-",
                     "-" if remap is None else f"{remap['changes']} changed, {remap['failures']} failed",
                     lm["source"]])
    source = "the snapshot after.json (cmadebug splits: debugfs linear_map/layout, splits, attr_changes)"
    body = ["<p>How the linear map is mapped after the workload, by entry size: a split turns one "
            "section or block into page entries (more TLB entries for the same memory).</p>"]
    if bars:
        body.append(figure_src(plots.stacked_per_row(bars, "MiB of the linear map"),
                               "Linear-map layout per strategy, by mapping size (first boot)",
                               f"{source}, first boot"))
    body += [not_available(n) for n in na]
    body.append(table(["strategy", "splits (all boots)", "splits by cause (first boot)",
                       "dma-remap attribute changes (first boot)", "source"], rows))
    body.append(src(source))
    return section("linear-map", "Linear-map splits and layout", body)


def alias_section(summary):
    rows, detail = [], []
    for st in summary["strategies"]:
        al = st["alias"]
        if not al["available"]:
            rows.append([st["name"], "not available", "-", al["reason"]])
            continue
        rows.append([st["name"], format_spread(st["figures"]["alias_conflicts"], _count),
                     format_spread(st["figures"]["alias_pages"], _count),
                     "incomplete check" if al["incomplete"] else "complete"])
        for c in al["conflicts"]:
            detail.append([st["name"], f"{c['pfn']:#x}", str(c["pages"]), f"{c['linear']:#x}",
                           c["linear_type"], "none" if c["alias"] is None else f"{c['alias']:#x}",
                           c["alias_type"], c["region"], c["cma"] or "-", c["caller"] or "-"])
    source = "the snapshot after.json (cmadebug alias: debugfs linear_map/alias_check), one buffer still allocated"
    body = ["<p>Pages mapped twice with memory types of different cacheability, after the workload "
            "with one buffer still allocated. On 32-bit ARM (v6 and later) such an alias is "
            "undefined behaviour; arm64 accepts it with cache maintenance.</p>",
            table(["strategy", "conflicts", "pages", "check (first boot)"], rows)]
    if detail:
        body.append("<p>The conflicts of the first boot:</p>")
        body.append(table(["strategy", "pfn", "pages", "linear address", "linear type", "alias address",
                           "alias type", "region", "CMA area", "mapped by"], detail))
    else:
        body.append("<p>No strategy has an alias conflict.</p>")
    body.append(src(source))
    return section("alias", "Alias conflicts", body)


def allocation_section(summary):
    sts = summary["strategies"]
    ran = [st for st in sts if st["figures"]["p50_ns"] is not None]
    notes = sorted({f"{st['timing']}: {st['timing_note']}" for st in sts})
    source = ("the load line in facts.txt of every boot (bench/dma_alloc_load.c: each allocation "
              "timed with CLOCK_MONOTONIC)")
    body = ["<p>Coherent allocations and frees through the dma-cma-test device while page cache "
            "fills most of memory and a writer keeps replacing part of it. Times are "
            + esc("; ".join(notes)) + ". Each boot gives one p50 and one p90 over its allocations; "
            "the figure shows their median over boots, the range of the boots and each boot.</p>"]
    if ran:
        clock = "QEMU TCG virtual time" if all(st["timing"] == "qemu-tcg" for st in ran) else \
            "guest CLOCK_MONOTONIC"
        rows = [(st["name"], [(stat, [v / 1e6 for v in st["per_boot"][key]])
                              for stat, key in (("p50", "p50_ns"), ("p90", "p90_ns"))]) for st in ran]
        body.append(figure_src(plots.spread_per_row(rows, f"ms per allocation ({clock})"),
                               f"Allocation latency under pressure, per boot ({clock})", source))
    rows = []
    for st in sts:
        fg = st["figures"]
        if fg["p50_ns"] is None:
            rows.append([st["name"], "did not run in every boot", "-", "-", "-", "-"])
            continue
        rows.append([st["name"], f"{st['load']['rounds']} x {st['load']['size_bytes']} bytes",
                     format_spread(fg["alloc_ok"], _count), format_spread(fg["alloc_failed"], _count),
                     format_spread(fg["p50_ns"], _ms), format_spread(fg["p90_ns"], _ms)])
    body.append(table(["strategy", "rounds per boot", "ok", "failed", "p50", "p90"], rows))
    body.append(src(source))
    return section("allocation", "Allocation success and latency under pressure", body)


def failures_section(summary):
    rows, bars, na = [], [], []
    for st in summary["strategies"]:
        names = [a["name"] for a in st["cma"]]
        for name in names:
            per_boot = [next((a for a in cma if a["name"] == name), None) for cma in st["cma_per_boot"]]
            if any(a is None or a["stats"] is None for a in per_boot):
                na.append(f"{st['name']} {name}: not available in every boot "
                          "(kernel lacks the CMA failure patches)")
                continue
            fig = {k: [a["stats"][k] for a in per_boot]
                   for k in ("requests", "successes", "failures", "retries", "pages_migrated")}
            stages = {k: sum(a["failed_by_stage"][k] for a in per_boot) for k in STAGES}
            rows.append([st["name"], name] + [format_spread(spread(fig[k]), _count, False) for k in fig]
                        + [str(stages[k]) for k in STAGES])
            if any(stages.values()):
                bars.append((f"{st['name']} {name}", [(k, stages[k]) for k in STAGES]))
    source = "cma/<area>/stats in the snapshots, after.json minus before.json (the workload's share), every boot"
    body = ["<p>Per CMA area, what the workload changed in the kernel's counters: requests, "
            "failed requests, retries, pages migrated out of the area (median over boots, range), and "
            "failed attempts by the stage that failed (all boots together). A carve-out is not CMA and "
            "has no counters.</p>"]
    if bars:
        body.append(figure_src(plots.stacked_per_row(bars, "failed attempts, all boots together"),
                               "Failed attempts by stage per strategy and area", source))
    elif rows:
        body.append("<p>No failed attempt in any strategy.</p>")
    body += [not_available(n) for n in na]
    if rows:
        body.append(table(["strategy", "area", "requests", "ok", "failed", "retries", "pages migrated"]
                          + [f"failed: {k}" for k in STAGES], rows))
    body.append(src(source))
    return section("failures", "Failures by stage", body)


def tlb_section(summary):
    tlb = summary["tlb"]
    rows = []
    for st in summary["strategies"]:
        cell = next(r for r in summary["decision"] if r["id"] == "tlb")["cells"][st["name"]]
        rows.append([st["name"], cell["text"]])
    body = ["<p>The cost of a split linear map is TLB misses, which only the hardware's PMU can "
            "count: a TLB A/B of the same kernel on the same board, walking the same memory mapped "
            "in sections and in pages (perf-scripts/, make tlb-report). A strategy that splits no "
            "entry has no such cost.</p>",
            table(["strategy", "TLB cost"], rows, classes=[
                [None, next(r for r in summary["decision"] if r["id"] == "tlb")["cells"][st["name"]]["class"]]
                for st in summary["strategies"]])]
    if tlb is None:
        body.append(src("facts.txt (tlb, tlb_reason): no TLB A/B result was given (--tlb, make compare TLB=DIR)"))
    else:
        body.append(src(f"the TLB A/B result {tlb['source']} (abstats: {tlb['metric']}, "
                        "95% Student t interval over boots); its kernel and machine are this comparison's"))
    return section("tlb", "TLB cost", body)


def checks_section(summary):
    rows = [["ok" if c["ok"] else "FAILED", c["strategy"], c["expect"],
             c.get("missing", "not available") if c["value"] is None else str(c["value"])]
            for c in summary["checks"]]
    return section("checks", "What must differ between the strategies", [
        "<p>What each strategy is expected to show in every boot (make compare's --check); a failure "
        "means the strategy did not do what its name says on this board.</p>",
        table(["result", "strategy", "expectation", "value"], rows,
              classes=[["best" if c["ok"] else "unsafe", None, None, None] for c in summary["checks"]]),
        src("the sections above")])


def render(summary, text_summary):
    # The text summary is for terminals and logs; the page says the same in its sections.
    del text_summary
    body = ["<h1>cmadebug strategy comparison</h1>", provenance_once(summary),
            decision_section(summary), strategies_section(summary), memory_section(summary),
            linear_map_section(summary), alias_section(summary), allocation_section(summary),
            failures_section(summary), tlb_section(summary), checks_section(summary)]
    return page("cmadebug strategy comparison", body, COMPARE_CSS)
