"""The TLB A/B section of the HTML report, from abstats documents."""
from . import plots
from .abstats import ci_text, fmt_bytes, fmt_pct, fmt_value, metric_words
from .render import esc, figure_src, not_available, table


def tlb_prov(doc, kernels=()):
    """Where the A/B ran, said once per result; a kernel that is one of the
    snapshots' (KERNELS, in system order) is named by its system."""
    def value(key, v):
        if key == "kernel" and len(v[key]) == 1 and v[key][0] in kernels:
            return f"system {list(kernels).index(v[key][0]) + 1}'s (in the overview)"
        return " | ".join(v[key])

    m = doc["method"]
    parts = []
    for key in ("machine", "kernel", "cmdline", "layout"):
        vals = [value(key, v) for v in doc["variants"]]
        shown = vals[0] if len(set(vals)) == 1 else "; ".join(
            f"{v['name']}: {x}" for v, x in zip(doc["variants"], vals))
        parts.append(f"{key if key != 'cmdline' else 'command line'}: {shown}")
    parts.append(f"method: {m['measurement']}; {m['statistic']}; {m['interval']}; "
                 f"at least {m['minimum_boots']}")
    return ". ".join(parts)


def _ws(ws):
    return "" if ws is None else f" at working set {fmt_bytes(ws)}"


def render_one(i, doc, kernels=()):
    results = ", ".join(doc["results"])
    runs = f"the runs in {results}"
    out = [f'<section class="tlb-result" id="tlb-{i}"><h3>Results {esc(results)} '
           f'(baseline {esc(doc["baseline"])})</h3>',
           f'<p class="src">Measured on: {esc(tlb_prov(doc, kernels))}.</p>']
    wss = []
    for g in doc["groups"]:
        if g["working_set_bytes"] not in wss:
            wss.append(g["working_set_bytes"])
    for ws in wss:
        groups = [g for g in doc["groups"] if g["working_set_bytes"] == ws]
        names = list(groups[0]["metrics"])
        out.append(f'<div class="tlb-medians"><h4>Medians per variant{esc(_ws(ws))}</h4>')
        rows = []
        for m in names:
            row = [m]
            for g in groups:
                r = g["metrics"].get(m)
                row.append("-" if r is None else fmt_value(r["median"]) if r["status"] == "ok"
                           else f"{r['status']} ({r['reason']})")
            rows.append(row)
        out.append(table(["event or metric"] + [f"{g['variant']} ({g['n_boots']} boots, {g['n_runs']} runs)"
                                                for g in groups], rows))
        dist = [(m, [(g["variant"], g["metrics"][m]["values"]) for g in groups])
                for m in names if all(g["metrics"].get(m, {}).get("status") == "ok" for g in groups)]
        if dist:
            out.append(figure_src(plots.tlb_distributions(dist),
                              f"Per-run values per variant{_ws(ws)} (boxes: quartiles; dots: runs)", runs))
        out.append("</div>")
    for c in doc["comparisons"]:
        out.append(f'<div class="tlb-comparison"><h4>{esc(c["variant"])} vs {esc(c["baseline"])}'
                   f'{esc(_ws(c["working_set_bytes"]))}</h4>')
        rows, plot_rows = [], []
        for m, r in c["metrics"].items():
            if r["status"] != "ok":
                rows.append([m, r["status"], r["reason"], "", ""])
                continue
            rows.append([m, fmt_pct(r["rel_diff"]), ci_text(r), fmt_value(r["median"]),
                         fmt_value(r["median_baseline"])])
            if r["ci95"] is not None:
                plot_rows.append({"label": m, "rel": r["rel_diff"], "lo": r["ci95"][0], "hi": r["ci95"][1]})
        out.append(table(["event or metric", "relative difference", "95% interval", c["variant"],
                          c["baseline"]], rows))
        if plot_rows:
            out.append(figure_src(plots.tlb_relative(plot_rows),
                              f"{c['variant']} vs {c['baseline']}{_ws(c['working_set_bytes'])}: "
                              "relative difference with 95% CI", runs))
        out.append("</div>")
    if doc["sweeps"]:
        out.append('<div class="tlb-sweep"><h4>Working-set sweep</h4>')
        ok = [s for s in doc["sweeps"] if s["status"] == "ok"]
        for s in doc["sweeps"]:
            if s["status"] != "ok":
                out.append(not_available(f"{s['variant']}: {s['metric']} {s['status']} ({s['reason']})"))
            elif s["step"] is None:
                out.append(f"<p>{esc(s['variant'])}: {esc(s['metric'])}: no step ({esc(s['no_step'])}).</p>")
            else:
                st = s["step"]
                out.append(f"<p>{esc(s['variant'])}: {esc(s['metric'])} jumps between "
                           f"{esc(fmt_bytes(st['from_bytes']))} and {esc(fmt_bytes(st['to_bytes']))} "
                           f"({esc(fmt_value(st['from']))} &rarr; {esc(fmt_value(st['to']))}, "
                           f"{esc(fmt_pct(st['rel_diff']))}, Holm-adjusted p {st['p_holm']:.3g}).</p>")
        if ok:
            reach = next((s["tlb_reach_bytes"] for s in ok if s["tlb_reach_bytes"]), None)
            steps = {s["variant"]: (s["step"]["from_bytes"], s["step"]["to_bytes"]) for s in ok if s["step"]}
            png = plots.sweep({s["variant"]: s["points"] for s in ok}, ok[0]["metric"], reach, steps)
            out.append(figure_src(png, f"{metric_words(ok[0]['metric'])} per 1k instructions against the working set"
                              + ("" if reach else " (TLB reach not given)"), runs))
        out.append("</div>")
    if doc["notes"]:
        out.append('<div class="tlb-notes"><h4>Notes</h4><ul>'
                   + "".join(f"<li>{esc(n)}</li>" for n in doc["notes"]) + "</ul></div>")
    out.append("</section>")
    return "\n".join(out)


def render_tlb(docs, kernels=()):
    return "\n".join(render_one(i, d, kernels) for i, d in enumerate(docs, 1))
