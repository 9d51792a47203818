"""The strategy comparison as one self-contained HTML file (the same rules as
render.py: inline CSS, figures as data: PNGs, no scripts, nothing fetched).
Sections carry stable ids: summary, strategies, memory, linear-map, alias,
allocation, failures, tlb, costs, checks."""
from . import plots
from .compare import cost_table, kib
from .render import CSS, esc, figure, not_available, provenance, table
from .snapshot import STAGES

SECTIONS = ["summary", "strategies", "memory", "linear-map", "alias", "allocation", "failures",
            "tlb", "costs", "checks"]


def _per_strategy(summary, key):
    common = summary.get(key)
    if common is not None:
        return common
    return "; ".join(f"{st['name']}: {st[key]}" for st in summary["strategies"])


def prov(summary, source):
    """Machine, kernel, command line and method of a figure or table."""
    return [("machine", _per_strategy(summary, "machine")),
            ("kernel", _per_strategy(summary, "kernel")),
            ("command line", "; ".join(f"{st['name']}: {st['cmdline']}" for st in summary["strategies"])),
            ("method", f"{summary['method']}. Numbers from {source}")]


def section(sid, title, body):
    return f'<section class="compare" id="{sid}"><h2>{esc(title)}</h2>\n' + "\n".join(body) + "\n</section>"


def strategies_section(summary):
    rows = [[st["name"], st["description"], st["dts"], st["cmdline"], st["boot"]]
            for st in summary["strategies"]]
    return section("strategies", "Strategies", [
        "<p>The same kernel booted once per strategy; only the command line and the device "
        "tree change.</p>",
        table(["strategy", "what", "device tree", "command line", "boot"], rows),
        provenance(prov(summary, "facts.txt (strategy, cmdline, dts, boot)"))])


def memory_section(summary):
    sts = summary["strategies"]
    bars = []
    for st in sts:
        m = st["memory"]
        segs = []
        if m["any_allocation_kb"] is not None:
            segs.append(("any allocation (MemTotal - CmaTotal)", m["any_allocation_kb"] / 1024))
            segs.append(("CMA: movable allocations until a device needs it (CmaTotal)", m["cma_kb"] / 1024))
        else:
            segs.append(("MemTotal (CmaTotal unknown)", m["memtotal_kb"] / 1024))
        if m["nomap_kb"]:
            segs.append(("no-map carve-out: its device only, lost to the system", m["nomap_kb"] / 1024))
        bars.append((st["name"], segs))
    source = ("/proc/meminfo at boot (MemTotal, CmaTotal, LowTotal, HighTotal, MemAvailable) and "
              "the device tree's no-map reserved-memory regions, as the guest wrote them in facts.txt; "
              "CMA areas from the snapshot after.json")
    rows = [[st["name"], kib(st["memory"]["memtotal_kb"]), kib(st["memory"]["less_than_best_kb"]),
             kib(st["memory"]["cma_kb"]), kib(st["memory"]["cma_areas_kb"]),
             kib(st["memory"]["nomap_kb"]) + ("" if not st["memory"]["nomap_kb"] else
                                             f" ({st['memory']['nomap_regions']})"),
             kib(st["memory"]["lowtotal_kb"]), kib(st["memory"]["hightotal_kb"]),
             kib(st["memory"]["memavailable_kb"])] for st in sts]
    return section("memory", "Memory left to the rest of the system", [
        "<p>MemTotal is what the kernel manages. CMA memory is part of it and stays usable by "
        "movable allocations (page cache, anonymous memory) until a device allocates it; a no-map "
        "carve-out is not part of it at all: only its device can use it.</p>",
        figure(plots.stacked_per_row(bars, "MiB"),
               "Memory per strategy: usable by any allocation, CMA, and carved out", prov(summary, source)),
        table(["strategy", "MemTotal", "less than the best", "CmaTotal", "CMA areas (snapshot)",
               "no-map carve-out (DT)", "LowTotal", "HighTotal", "MemAvailable"], rows,
              numeric=range(1, 9)),
        provenance(prov(summary, source))])


def linear_map_section(summary):
    sts = summary["strategies"]
    bars, rows, na = [], [], []
    for st in sts:
        lm = st["linear_map"]
        if not lm["available"]:
            na.append(f"{st['name']}: {lm['reason']}")
            rows.append([st["name"], "not available", "-", "-", "-", "-"])
            continue
        bars.append((st["name"], [(f"{m['level']} entries", m["bytes"] / (1 << 20))
                                  for m in lm["mapped"] if m["bytes"]]))
        remap = next((a for a in lm["attr_changes"] or [] if a["cause"] == "dma-remap"), None)
        rows.append([st["name"], lm["source"], kib(lm["mapped_bytes"] // 1024),
                     "not available (ptdump)" if lm["splits"] is None else str(lm["splits"]),
                     ", ".join(f"{k} {v}" for k, v in (lm["splits_by_cause"] or {}).items()) or "-",
                     "-" if remap is None else f"{remap['changes']} changed, {remap['failures']} failed"])
    source = "the snapshot after.json (cmadebug splits: debugfs linear_map/layout, splits, attr_changes)"
    body = ["<p>How the linear map is mapped after the workload, by entry size: a split turns one "
            "section or block into page entries (more TLB entries for the same memory).</p>"]
    if bars:
        body.append(figure(plots.stacked_per_row(bars, "MiB of the linear map"),
                           "Linear-map layout per strategy, by mapping size", prov(summary, source)))
    body += [not_available(n) for n in na]
    body.append(table(["strategy", "source", "mapped", "splits", "splits by cause",
                       "dma-remap attribute changes"], rows, numeric=(2, 3)))
    body.append(provenance(prov(summary, source)))
    return section("linear-map", "Linear-map splits and layout", body)


def alias_section(summary):
    rows, detail = [], []
    for st in summary["strategies"]:
        al = st["alias"]
        if not al["available"]:
            rows.append([st["name"], "not available", "-", al["reason"]])
            continue
        rows.append([st["name"], str(al["count"]), str(al["pages"]),
                     "incomplete check" if al["incomplete"] else "complete"])
        for c in al["conflicts"]:
            detail.append([st["name"], f"{c['pfn']:#x}", str(c["pages"]), f"{c['linear']:#x}",
                           c["linear_type"], "none" if c["alias"] is None else f"{c['alias']:#x}",
                           c["alias_type"], c["region"], c["cma"] or "-", c["caller"] or "-"])
    source = "the snapshot after.json (cmadebug alias: debugfs linear_map/alias_check), one buffer still allocated"
    body = ["<p>Pages mapped twice with memory types of different cacheability, after the workload "
            "with one buffer still allocated.</p>",
            table(["strategy", "conflicts", "pages", "check"], rows, numeric=(1, 2))]
    if detail:
        body.append(table(["strategy", "pfn", "pages", "linear address", "linear type", "alias address",
                           "alias type", "region", "CMA area", "mapped by"], detail, numeric=(2,)))
    else:
        body.append("<p>No strategy has an alias conflict.</p>")
    body.append(provenance(prov(summary, source)))
    return section("alias", "Alias conflicts", body)


def allocation_section(summary):
    sts = summary["strategies"]
    ran = [st for st in sts if st["load"] is not None]
    notes = sorted({f"{st['timing']}: {st['timing_note']}" for st in sts})
    source = "the load line in facts.txt (bench/dma_alloc_load.c: each allocation timed with CLOCK_MONOTONIC)"
    body = ["<p>Coherent allocations and frees through the dma-cma-test device while page cache "
            "fills most of memory and a writer keeps replacing part of it. Times are "
            + esc("; ".join(notes)) + ".</p>"]
    if ran:
        bars = [(st["name"], [("p50", st["load"]["p50_ns"] / 1e6), ("p90", st["load"]["p90_ns"] / 1e6),
                              ("max", st["load"]["max_ns"] / 1e6)]) for st in ran]
        clock = "QEMU TCG virtual time" if all(st["timing"] == "qemu-tcg" for st in ran) else \
            "guest CLOCK_MONOTONIC"
        body.append(figure(plots.latency_per_row(bars, f"ms per allocation ({clock}, not a board's latency)"
                                                 if clock.startswith("QEMU") else f"ms per allocation ({clock})"),
                           f"Allocation latency under pressure ({clock})", prov(summary, source)))
    rows = []
    for st in sts:
        ld = st["load"]
        if ld is None:
            rows.append([st["name"], "did not run", "-", "-", "-", "-", "-", st["timing"]])
            continue
        rows.append([st["name"], f"{ld['rounds']} x {ld['size_bytes']} bytes", str(ld["ok"]), str(ld["failed"]),
                     f"{ld['p50_ns'] / 1e6:.2f}", f"{ld['p90_ns'] / 1e6:.2f}", f"{ld['max_ns'] / 1e6:.2f}",
                     st["timing"]])
    body.append(table(["strategy", "rounds", "ok", "failed", "p50 ms", "p90 ms", "max ms", "timing"], rows,
                      numeric=range(2, 7)))
    body.append(provenance(prov(summary, source)))
    return section("allocation", "Allocation success and latency under pressure", body)


def failures_section(summary):
    rows, bars, na = [], [], []
    for st in summary["strategies"]:
        for a in st["cma"]:
            if a["stats"] is None:
                na.append(f"{st['name']} {a['name']}: not available (kernel lacks the CMA failure patches)")
                continue
            s = a["stats"]
            rows.append([st["name"], a["name"]] + [str(s[k]) for k in ("requests", "successes", "failures",
                                                                        "retries", "pages_migrated")]
                        + [str(a["failed_by_stage"][k]) for k in STAGES])
            if any(a["failed_by_stage"].values()):
                bars.append((f"{st['name']} {a['name']}", [(k, a["failed_by_stage"][k]) for k in STAGES]))
    source = "cma/<area>/stats in the snapshots, after.json minus before.json (the workload's share)"
    body = ["<p>Per CMA area, what the workload changed in the kernel's counters: requests, "
            "failed requests, retries, pages migrated out of the area, and failed attempts by the "
            "stage that failed. A carve-out is not CMA and has no counters.</p>"]
    if bars:
        body.append(figure(plots.stacked_per_row(bars, "failed attempts"),
                           "Failed attempts by stage per strategy and area", prov(summary, source)))
    elif rows:
        body.append("<p>No failed attempt in any strategy.</p>")
    body += [not_available(n) for n in na]
    if rows:
        body.append(table(["strategy", "area", "requests", "ok", "failed", "retries", "pages migrated"]
                          + [f"failed: {k}" for k in STAGES], rows, numeric=range(2, 7 + len(STAGES))))
    body.append(provenance(prov(summary, source)))
    return section("failures", "Failures by stage", body)


def tlb_section(summary):
    rows = [[st["name"], st["tlb"]["status"], st["tlb"]["reason"]] for st in summary["strategies"]]
    return section("tlb", "TLB cost", [
        "<p>The cost of a split linear map is TLB misses, which only the hardware's PMU can count. "
        "This comparison has no such count, so it gives no number: run perf-scripts/ "
        "(cmadebug tlb) on a board and render the A/B results with <code>make report TLB=...</code>.</p>",
        table(["strategy", "TLB cost", "why"], rows),
        provenance(prov(summary, "facts.txt (tlb, tlb_reason)"))])


def costs_section(summary):
    headers, rows = cost_table(summary)
    return section("costs", "What each strategy costs on this board", [
        table(headers, rows, numeric=range(1, 8)),
        "<p>Latency is " + esc("; ".join(sorted({st["timing_note"] for st in summary["strategies"]})))
        + ". TLB cost is never estimated.</p>",
        provenance(prov(summary, "the sections above"))])


def checks_section(summary):
    rows = [["ok" if c["ok"] else "FAILED", c["strategy"], c["expect"],
             c.get("missing", "not available") if c["value"] is None else str(c["value"])]
            for c in summary["checks"]]
    return section("checks", "What must differ between the strategies", [
        "<p>What each strategy is expected to show (make compare's --check); a failure means the "
        "strategy did not do what its name says on this board.</p>",
        table(["result", "strategy", "expectation", "value"], rows),
        provenance(prov(summary, "the sections above"))])


def render(summary, text_summary):
    body = ["<h1>cmadebug strategy comparison</h1>",
            provenance(prov(summary, "each strategy's facts.txt, before.json and after.json")),
            '<section class="compare" id="summary"><h2>Summary</h2>'
            f"<pre>{esc(text_summary)}</pre></section>",
            strategies_section(summary), memory_section(summary), linear_map_section(summary),
            alias_section(summary), allocation_section(summary), failures_section(summary),
            tlb_section(summary), costs_section(summary), checks_section(summary)]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>cmadebug strategy comparison</title>"
            f"<style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
