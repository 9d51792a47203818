"""Figures as PNG bytes (matplotlib, Agg backend: no display, no network)."""
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after use())

from .snapshot import STAGES  # noqa: E402

DPI = 80
MAX_BINS = 512
STAGE_COLOURS = {"isolate": "#1f77b4", "migrate": "#d62728", "test": "#9467bd",
                 "no-space": "#ff7f0e", "signal": "#2ca02c", "other": "#7f7f7f"}
matplotlib.rcParams.update({"font.size": 9, "svg.hashsalt": "cmadebug",
                            "figure.max_open_warning": 0})


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def _bins(count_pages):
    return min(count_pages, MAX_BINS)


def occupancy(base_pfn, count_pages, runs):
    """Fraction of each bin's pages that are allocated, from pfn runs."""
    nbins = _bins(count_pages)
    row = [0.0] * nbins
    per_bin = count_pages / nbins
    for first, last in runs:
        lo, hi = first - base_pfn, last - base_pfn + 1  # [lo, hi) in pages
        b = int(lo / per_bin)
        while b < nbins and b * per_bin < hi:
            start, end = b * per_bin, (b + 1) * per_bin
            row[b] += (min(end, hi) - max(start, lo)) / per_bin
            b += 1
    return [min(v, 1.0) for v in row]


def heat_strip(area, rows, labels, failed_pfns):
    """One row per snapshot (oldest on top); failed pfns marked in red."""
    base, count = area["base_pfn"], area["count_pages"]
    height = 0.5 + 0.28 * len(rows)
    fig, ax = plt.subplots(figsize=(9, height + 0.6))
    im = ax.imshow(rows, aspect="auto", cmap="Blues", vmin=0, vmax=1, interpolation="nearest",
                   extent=(base, base + count, len(rows) - 0.5, -0.5))
    for pfn in failed_pfns:
        ax.axvline(pfn + 0.5, color="#d62728", linewidth=1.2)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(labels)
    ax.set_xlabel(f"pfn (area {area['name']}, {count} pages; red: pages blamed for failures)")
    ax.ticklabel_format(axis="x", style="plain", useOffset=False)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{int(v):#x}"))
    fig.colorbar(im, ax=ax, label="allocated", fraction=0.03, pad=0.01)
    return _png(fig)


def used_free_series(area, labels):
    used = area["used_pages_series"]
    xs = [i for i, u in enumerate(used) if u is not None]
    fig, ax = plt.subplots(figsize=(7, 2.8))
    ax.plot(xs, [used[i] for i in xs], marker="o", label="used pages")
    ax.plot(xs, [area["count_pages"] - used[i] for i in xs], marker="s", label="free pages")
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=20, ha="right")
    ax.set_ylim(0, area["count_pages"] * 1.05)
    ax.set_ylabel("pages")
    ax.set_title(f"{area['name']}: used and free pages per snapshot")
    ax.legend(loc="best")
    return _png(fig)


def failures_by_stage(area, labels):
    """Bars for the latest counts; lines per stage when there are several snapshots."""
    series = area["failures_by_stage_series"]
    fig, ax = plt.subplots(figsize=(7, 2.8))
    if len(series) == 1:
        counts = series[0]
        ax.bar(STAGES, [counts[s] for s in STAGES], color=[STAGE_COLOURS[s] for s in STAGES])
        ax.set_ylabel("failed attempts")
        ax.set_title(f"{area['name']}: failed attempts by stage (stats)")
    else:
        xs = [i for i, c in enumerate(series) if c is not None]
        for st in STAGES:
            ax.plot(xs, [series[i][st] for i in xs], marker="o", label=st, color=STAGE_COLOURS[st])
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=20, ha="right")
        ax.set_ylabel("failed attempts (cumulative)")
        ax.set_title(f"{area['name']}: failed attempts by stage per snapshot (stats)")
        ax.legend(loc="upper left", ncol=3)
    ax.yaxis.get_major_locator().set_params(integer=True)
    return _png(fig)


def failures_over_time(area):
    """Cumulative failure-log records per stage against time since boot."""
    log = area["failure_log"]
    fig, ax = plt.subplots(figsize=(7, 2.8))
    ts = [t / 1e9 for t in log["times_ns"]]
    ax.step(ts, range(1, len(ts) + 1), where="post", color="#444444", linewidth=1, label="all stages")
    for st in STAGES:
        pts = [(t, k) for k, (t, s) in enumerate(zip(ts, log["stages"]), 1) if s == st]
        if pts:
            ax.plot([t for t, _ in pts], [k for _, k in pts], "o", label=st, color=STAGE_COLOURS[st])
    ax.set_xlabel("CLOCK_MONOTONIC (s since boot)")
    ax.set_ylabel("failed attempts (cumulative)")
    ax.set_title(f"{area['name']}: failure log over time")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.legend(loc="upper left")
    return _png(fig)


def linear_map_layout(mapped):
    """One horizontal stacked bar: how much of the linear map each mapping size
    covers; MAPPED is [(level name, bytes)], largest entries first."""
    fig, ax = plt.subplots(figsize=(8, 1.6))
    left = 0.0
    for (level, nbytes), colour in zip(mapped, plt.cm.tab10.colors):
        ax.barh([0], [nbytes / (1 << 20)], left=left, color=colour,
                label=f"{level} mappings")
        left += nbytes / (1 << 20)
    ax.set_yticks([])
    ax.set_xlabel("MiB of the linear map")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.45), ncol=6, frameon=False)
    return _png(fig)


def linear_map_splits(splits):
    causes = sorted({s["cause"] for s in splits})
    kinds = sorted({(s["from"], s["to"]) for s in splits})
    fig, ax = plt.subplots(figsize=(7, 2.6))
    bottom = [0] * len(causes)
    for (f, t), colour in zip(kinds, plt.cm.tab10.colors):
        vals = [sum(s["count"] for s in splits if s["cause"] == c and
                    (s["from"], s["to"]) == (f, t)) for c in causes]
        ax.bar(causes, vals, bottom=bottom, color=colour, label=f"{f} -> {t}")
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_ylabel("entries split")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.legend(loc="best")
    return _png(fig)


def tlb_distributions(metrics):
    """metrics: [(name, [(variant, per-run values)])]: one panel per metric,
    boxes per variant with every run drawn over them."""
    n = len(metrics)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(3.3 * cols, 2.6 * rows), squeeze=False)
    for ax, (name, variants) in zip([a for r in axes for a in r], metrics):
        data = [vals for _, vals in variants]
        ax.boxplot(data, showfliers=False)
        ax.set_xticks(range(1, len(variants) + 1))
        ax.set_xticklabels([v for v, _ in variants])
        for i, vals in enumerate(data, 1):
            k = len(vals)
            xs = [i - 0.15 + 0.3 * (j + 0.5) / k for j in range(k)]
            ax.plot(xs, vals, "o", markersize=3, alpha=0.6, color="#1f77b4")
        ax.set_title(name, fontsize=9)
        ax.ticklabel_format(axis="y", useOffset=False)
    for ax in [a for r in axes for a in r][n:]:
        ax.axis("off")
    fig.tight_layout()
    return _png(fig)


def tlb_relative(rows):
    """Relative difference of each metric vs the baseline with its 95%
    interval, one panel per metric with its own scale: a +28 % change in
    cycles stays readable next to a +50,000 % change in a count."""
    fig, axes = plt.subplots(len(rows), 1, figsize=(7, 0.3 + 0.75 * len(rows)), squeeze=False)
    for ax, r in zip([a for (a,) in axes], rows):
        ax.errorbar([100 * r["rel"]], [0], xerr=[[100 * (r["rel"] - r["lo"])], [100 * (r["hi"] - r["rel"])]],
                    fmt="o", capsize=3)
        ax.axvline(0, color="grey", linewidth=0.8)
        ax.set_yticks([0])
        ax.set_yticklabels([r["label"]])
        lo, hi = min(0.0, 100 * r["lo"]), max(0.0, 100 * r["hi"])
        pad = 0.1 * (hi - lo) or 1.0
        ax.set_xlim(lo - pad, hi + pad)
        ax.tick_params(axis="x", labelsize=8)
    axes[-1][0].set_xlabel("relative difference vs baseline, % (95% t interval over boots; "
                           "each metric on its own scale)")
    fig.tight_layout()
    return _png(fig)


def sweep(points, metric, tlb_reach_bytes, steps):
    """The TLB metric against working-set size, per variant; STEPS:
    {variant: (from, to)} for the variants whose step was resolved, shaded
    in that variant's colour."""
    fig, ax = plt.subplots(figsize=(7, 3))
    for name, pts in points.items():
        line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
        if name in steps:
            ax.axvspan(steps[name][0], steps[name][1], color=line.get_color(), alpha=0.15,
                       label=f"{name}: step (interval excludes 0)")
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _: f"{v / (1 << 20):g} MiB" if v >= 1 << 20 else f"{v / 1024:g} KiB"))
    if tlb_reach_bytes:
        ax.axvline(tlb_reach_bytes, color="#d62728", linestyle="--", label="TLB reach")
    ax.set_xlabel("working set (bytes)")
    ax.set_ylabel(metric)
    ax.legend(loc="best")
    return _png(fig)


def stacked_per_row(rows, xlabel):
    """Horizontal stacked bars, one per row (strategy), top to bottom.
    ROWS is [(label, [(segment, value)])]; a segment keeps its colour in every row."""
    segments = list(dict.fromkeys(seg for _, segs in rows for seg, _ in segs))
    colours = dict(zip(segments, plt.cm.tab10.colors))
    fig, ax = plt.subplots(figsize=(8, 0.9 + 0.45 * len(rows)))
    ys = list(range(len(rows)))
    drawn = set()
    for y, (_, segs) in zip(ys, rows):
        left = 0.0
        for seg, value in segs:
            ax.barh([y], [value], left=left, color=colours[seg],
                    label=None if seg in drawn else seg)
            drawn.add(seg)
            left += value
    ax.set_yticks(ys)
    ax.set_yticklabels([label for label, _ in rows])
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25 - 0.6 / len(rows)), ncol=3, frameon=False)
    return _png(fig)


def difference_bars(rows, xlabel):
    """How far each row lies from the best, on a log scale so that KiB and
    MiB differences both show.  ROWS is [(label, median, low, high, text)] in
    KiB; a row at 0 (the best) gets its text only, at the axis' left edge."""
    fig, ax = plt.subplots(figsize=(8, 0.9 + 0.45 * len(rows)))
    ys = list(range(len(rows)))
    top = max([hi for _, _, _, hi, _ in rows] + [1])
    for y, (_, med, lo, hi, text) in zip(ys, rows):
        if med > 0:
            ax.barh([y], [med], left=0.5, color="#ff7f0e")
            if hi > lo:
                ax.plot([max(lo, 0.5), hi], [y, y], color="#333333", linewidth=1.5)
        ax.text(max(med, 0.5) * 1.15, y, text, va="center", fontsize=8)
    ax.set_xscale("log", base=2)
    ax.set_xlim(0.5, top * 40)
    ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(base=16))
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _: f"{v / 1024:g} MiB" if v >= 1024 else f"{v:g} KiB"))
    ax.set_yticks(ys)
    ax.set_yticklabels([label for label, *_ in rows])
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    return _png(fig)


def spread_per_row(rows, xlabel):
    """Per row (strategy), per statistic: a dot for each boot and a bar from
    the smallest to the largest with a tick at the median.  ROWS is
    [(label, [(statistic, [per-boot values])])]; no single-event maxima."""
    import statistics

    stats = list(dict.fromkeys(s for _, vals in rows for s, _ in vals))
    fig, ax = plt.subplots(figsize=(8, 0.9 + 0.6 * len(rows)))
    h = 0.8 / max(len(stats), 1)
    for k, (stat, colour) in enumerate(zip(stats, plt.cm.tab10.colors)):
        for i, (_, vals) in enumerate(rows):
            values = dict(vals).get(stat)
            if not values:
                continue
            y = i + (k - (len(stats) - 1) / 2) * h
            ax.plot([min(values), max(values)], [y, y], color=colour, linewidth=2, alpha=0.5)
            ax.plot(values, [y] * len(values), "o", color=colour, markersize=4,
                    label=stat if i == 0 else None)
            ax.plot([statistics.median(values)], [y], "|", color="black", markersize=12)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([label for label, _ in rows])
    ax.invert_yaxis()
    ax.set_xlim(left=0)
    ax.set_xlabel(xlabel + "; dots: boots, bar: range, tick: median")
    ax.legend(loc="lower right")
    return _png(fig)
