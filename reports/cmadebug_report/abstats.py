"""TLB A/B statistics over 'perf stat -x,' runs, boots x runs per variant.

    python3 -m cmadebug_report.abstats RESULTS [--json OUT.json]
    python3 -m cmadebug_report.abstats VARIANT_DIR VARIANT_DIR ... [--baseline NAME]

Input layout (perf-scripts/README.md):

    RESULTS/manifest.json                 optional, see below
    RESULTS/<variant>/boot-<N>/meta.json  {"kernel", "cmdline", "layout", "machine"}
    RESULTS/<variant>/boot-<N>/run-<M>.csv          perf stat -x, -e ... output
    RESULTS/<variant>/boot-<N>/run-<M>.walker.json  optional: {"working_set_bytes",
                                                    "accesses" or "pages_touched", "elapsed_ns"}

manifest.json (all keys optional): "baseline" (variant name; default the
first variant given, or the first by name), "instructions_event" (default
instructions:k, else instructions), "walk_events" (default every event with
"tlb_walk" in its name), "may_be_zero" (events that may read 0; software
events such as page-faults always may), "tlb_reach_bytes" (marked on the
working-set sweep).

What it computes, per variant (and per working-set size when the walker
reports one): the median of every event over all runs; derived metrics
walks_per_1k_instructions and ns_per_access; the relative difference of each
variant against the baseline with a 95% interval from a hierarchical
bootstrap (resample boots with replacement, then runs within each chosen
boot; the statistic is the median of the pooled resample; seeded, so the
same input gives the same interval); and, over working-set sizes, the step
where walks per 1k instructions jump most.

Runs an event was multiplexed in (percentage < 100, or '<not counted>') are
rejected, with a message.  An event that is '<not supported>', or reads 0
where it cannot be 0, is "not supported": no number, no ratio.
"""
import json
import math
import os
import random
import re
import statistics
import sys

from . import ArgumentParser, InputError, UNKNOWN, UsageError, read_json, run_main
from . import perfcsv

SCHEMA = "cmadebug-abstats"
VERSION = 1
CONFIDENCE = 0.95
DEFAULT_ITERATIONS = 2000
DEFAULT_SEED = 1
WALKS_METRIC = "walks_per_1k_instructions"
NS_METRIC = "ns_per_access"
# Software events that may well count nothing in a run.
MAY_BE_ZERO = {"page-faults", "faults", "minor-faults", "major-faults", "context-switches", "cs",
               "cpu-migrations", "migrations", "alignment-faults", "emulation-faults"}
META_KEYS = ("machine", "kernel", "cmdline", "layout")

_BOOT = re.compile(r"^boot-(\d+)$")
_RUN = re.compile(r"^run-(\d+)\.csv$")


def _base_event(event):
    return event.split(":", 1)[0]


def _read_json(path, what):
    doc = read_json(path, what)
    if not isinstance(doc, dict):
        raise InputError(f"{path}: {what} must be a JSON object")
    return doc


def _numbered(names, pattern):
    out = []
    for n in names:
        m = pattern.match(n)
        if m:
            out.append((int(m.group(1)), n))
    return [n for _, n in sorted(out)]


class Run:
    def __init__(self, label, readings, walker):
        self.label = label
        self.readings = readings
        self.walker = walker


def load_variant(path, name, rejected, notes):
    """[(boot label, meta, [Run])] of one variant directory."""
    try:
        entries = os.listdir(path)
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    boots = []
    for bname in _numbered(entries, _BOOT):
        bdir = os.path.join(path, bname)
        meta_path = os.path.join(bdir, "meta.json")
        if not os.path.exists(meta_path):
            raise InputError(f"{meta_path}: missing (each boot needs its kernel, cmdline and layout)")
        meta = _read_json(meta_path, "a boot's meta.json")
        for k in META_KEYS:
            if k in meta and meta[k] is not None and not isinstance(meta[k], str):
                raise InputError(f"{meta_path}: {k} must be a string")
        runs = []
        for rname in _numbered(os.listdir(bdir), _RUN):
            label = f"{name}/{bname}/{rname}"
            rpath = os.path.join(bdir, rname)
            try:
                with open(rpath, encoding="utf-8", errors="replace") as f:
                    readings = perfcsv.parse(f.read(), rpath)
            except OSError as e:
                raise InputError(f"{rpath}: {e.strerror}") from None
            reason = _multiplexed(readings)
            if reason:
                rejected.append({"run": label, "reason": reason})
                continue
            wpath = rpath[:-len(".csv")] + ".walker.json"
            walker = _read_walker(wpath) if os.path.exists(wpath) else None
            runs.append(Run(label, readings, walker))
        if runs:
            boots.append((bname, meta, runs))
        elif not any(r["run"].startswith(f"{name}/{bname}/") for r in rejected):
            notes.append(f"{name}/{bname}: no run-<M>.csv files")
    return boots


def _multiplexed(readings):
    for r in readings.values():
        if r.status == "not counted":
            return f"{r.event} was not counted (no counter was free: multiplexing or a failed group)"
        if r.status == "ok" and r.percent is not None and r.percent < 100.0:
            return (f"multiplexed: {r.event} had a counter {r.percent:.2f}% of the time "
                    "(count fewer events per run)")
    return None


def _read_walker(path):
    doc = _read_json(path, "a walker report")
    out = {}
    for k in ("working_set_bytes", "accesses", "pages_touched", "elapsed_ns"):
        v = doc.get(k)
        if v is not None and (not isinstance(v, (int, float)) or isinstance(v, bool) or v < 0):
            raise InputError(f"{path}: {k} must be a non-negative number")
        out[k] = v
    return out


def _run_metrics(run, cfg):
    """{metric: value or None (not supported) }, plus why not."""
    vals, why = {}, {}
    for ev, r in run.readings.items():
        if r.status != "ok":
            vals[ev], why[ev] = None, ("not supported", "perf: <not supported>")
        elif r.value == 0 and not cfg.may_be_zero(ev):
            vals[ev], why[ev] = None, ("not supported", "reads 0 on a counter that cannot be 0")
        else:
            vals[ev] = r.value
    ins = cfg.instructions_event(run.readings)
    walks = cfg.walk_events(run.readings)
    if ins is None or not walks:
        vals[WALKS_METRIC] = None
        why[WALKS_METRIC] = ("not measured", "no instructions event" if ins is None else
                             "no TLB walk event (name one in manifest walk_events)")
    elif vals.get(ins) is None or any(vals.get(w) is None for w in walks):
        vals[WALKS_METRIC] = None
        why[WALKS_METRIC] = ("not supported", ", ".join(
            e for e in [ins] + walks if vals.get(e) is None) + " not supported")
    else:
        vals[WALKS_METRIC] = 1000.0 * sum(vals[w] for w in walks) / vals[ins]
    w = run.walker
    n = None if w is None else (w.get("accesses") or w.get("pages_touched"))
    if w is None or not n or w.get("elapsed_ns") is None:
        vals[NS_METRIC], why[NS_METRIC] = None, ("not measured",
                                                 "no walker report with accesses and elapsed_ns")
    else:
        vals[NS_METRIC] = w["elapsed_ns"] / n
    return vals, why


class Config:
    def __init__(self, manifest, args):
        self.ins = args.instructions_event or manifest.get("instructions_event")
        self.walks = args.walk_event or manifest.get("walk_events")
        self.zero_ok = set(manifest.get("may_be_zero") or [])
        self.tlb_reach = args.tlb_reach if args.tlb_reach is not None else manifest.get("tlb_reach_bytes")

    def may_be_zero(self, ev):
        return ev in self.zero_ok or _base_event(ev) in MAY_BE_ZERO

    def instructions_event(self, readings):
        if self.ins:
            return self.ins if self.ins in readings else None
        for cand in ("instructions:k", "instructions"):
            if cand in readings:
                return cand
        return None

    def walk_events(self, readings):
        if self.walks:
            return [w for w in self.walks if w in readings]
        return [e for e in readings if "tlb_walk" in e.lower()]


# ---- statistics -----------------------------------------------------------

def percentile(sorted_vals, q):
    """Linear interpolation between order statistics (numpy's default)."""
    if not sorted_vals:
        raise ValueError("no values")
    pos = (len(sorted_vals) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (pos - lo)


def hierarchical_resample(rng, boots):
    """boots: [[value, ...], ...] -> one pooled resample."""
    pooled = []
    for _ in range(len(boots)):
        runs = boots[rng.randrange(len(boots))]
        pooled.extend(runs[rng.randrange(len(runs))] for _ in range(len(runs)))
    return pooled


def bootstrap_ratio_ci(boots_a, boots_b, iterations, rng, confidence=CONFIDENCE):
    """Interval of median(B)/median(A) over hierarchical resamples of both."""
    ratios = []
    for _ in range(iterations):
        ma = statistics.median(hierarchical_resample(rng, boots_a))
        mb = statistics.median(hierarchical_resample(rng, boots_b))
        if ma == 0:
            continue
        ratios.append(mb / ma)
    if len(ratios) < iterations * 0.99:
        return None
    ratios.sort()
    alpha = (1 - confidence) / 2
    return percentile(ratios, alpha), percentile(ratios, 1 - alpha)


# ---- analysis -------------------------------------------------------------

def _group(variant, boots, cfg):
    """Per working-set size: {metric: per-boot value lists or why not}."""
    by_ws = {}
    for bname, meta, runs in boots:
        for run in runs:
            ws = None if run.walker is None else run.walker.get("working_set_bytes")
            vals, why = _run_metrics(run, cfg)
            g = by_ws.setdefault(ws, {"boots": {}, "metric_order": []})
            g["boots"].setdefault(bname, []).append((run.label, vals, why))
            for m in vals:
                if m not in g["metric_order"]:
                    g["metric_order"].append(m)
    groups = []
    for ws in sorted(by_ws, key=lambda w: (w is None, w or 0)):
        g = by_ws[ws]
        evs = [m for m in g["metric_order"] if m not in (WALKS_METRIC, NS_METRIC)]
        order = evs + [WALKS_METRIC, NS_METRIC]
        n_runs = sum(len(r) for r in g["boots"].values())
        metrics = {}
        for m in order:
            per_boot = [[v.get(m) for _, v, _ in runs] for runs in g["boots"].values()]
            flat = [x for b in per_boot for x in b]
            if all(x is not None for x in flat):
                svals = sorted(flat)
                metrics[m] = {"status": "ok", "median": statistics.median(flat),
                              "min": svals[0], "max": svals[-1], "values": flat,
                              "boots": per_boot}
            else:
                whys = {w.get(m, ("not measured", "not in every run")) for runs in g["boots"].values()
                        for _, v, w in runs if v.get(m) is None}
                n_bad = sum(1 for x in flat if x is None)
                status = "not supported" if any(st == "not supported" for st, _ in whys) else "not measured"
                reason = "; ".join(sorted(r for _, r in whys))
                if n_bad < len(flat):
                    reason += f" (in {n_bad} of {len(flat)} runs)"
                metrics[m] = {"status": status, "reason": reason}
        groups.append({"variant": variant, "working_set_bytes": ws, "n_boots": len(g["boots"]),
                       "n_runs": n_runs, "metrics": metrics})
    return groups


def _compare(ga, gb, iterations, seed, notes):
    out = {"variant": gb["variant"], "baseline": ga["variant"],
           "working_set_bytes": ga["working_set_bytes"], "metrics": {}}
    for m in ga["metrics"]:
        if m not in gb["metrics"]:
            continue
        a, b = ga["metrics"][m], gb["metrics"][m]
        if a["status"] != "ok" or b["status"] != "ok":
            bad = a if a["status"] != "ok" else b
            out["metrics"][m] = {"status": bad["status"], "reason": bad["reason"]}
            continue
        res = {"status": "ok", "median_baseline": a["median"], "median": b["median"]}
        if a["median"] == 0:
            res.update(status="no ratio", reason="the baseline median is 0")
            out["metrics"][m] = res
            continue
        ratio = b["median"] / a["median"]
        res.update(ratio=ratio, rel_diff=ratio - 1)
        note = []
        if ga["n_runs"] < 2 or gb["n_runs"] < 2:
            res["ci95"] = None
            note.append("one run: no interval")
        else:
            # One stream per comparison and metric: adding an event changes no other interval.
            rng = random.Random(f"{seed}:{ga['variant']}:{gb['variant']}:{ga['working_set_bytes']}:{m}")
            ci = bootstrap_ratio_ci(a["boots"], b["boots"], iterations, rng)
            if ci is None:
                res["ci95"] = None
                note.append("the baseline median is 0 in resamples: no interval")
            else:
                res["ci95"] = [ci[0] - 1, ci[1] - 1]
                if len(set(a["values"])) == 1 and len(set(b["values"])) == 1:
                    note.append("all runs equal: zero-width interval")
            if ga["n_boots"] < 2 or gb["n_boots"] < 2:
                note.append("one boot: the interval covers run-to-run variation only")
        if note:
            res["note"] = "; ".join(note)
        out["metrics"][m] = res
    return out


def _sweep(groups, variant, tlb_reach):
    pts = [(g["working_set_bytes"], g["metrics"].get(WALKS_METRIC)) for g in groups
           if g["variant"] == variant and g["working_set_bytes"] is not None]
    if len(pts) < 2:
        return None
    sw = {"variant": variant, "metric": WALKS_METRIC, "tlb_reach_bytes": tlb_reach}
    if any(m is None or m["status"] != "ok" for _, m in pts):
        bad = next(m for _, m in pts if m is None or m["status"] != "ok")
        sw.update(status="not supported" if bad and bad["status"] == "not supported" else "not measured",
                  reason=bad["reason"] if bad else "no walks metric", points=None, step=None)
        return sw
    points = [[ws, m["median"]] for ws, m in pts]
    jumps = [(points[i + 1][1] - points[i][1], i) for i in range(len(points) - 1)]
    jump, i = max(jumps)
    step = None
    if jump > 0:
        lo, hi = points[i], points[i + 1]
        step = {"from_bytes": lo[0], "to_bytes": hi[0], "from": lo[1], "to": hi[1],
                "ratio": hi[1] / lo[1] if lo[1] else None}
    sw.update(status="ok", points=points, step=step)
    return sw


def _distinct(boots, key):
    vals = []
    for _, meta, _ in boots:
        v = meta.get(key) or UNKNOWN
        if v not in vals:
            vals.append(v)
    return vals


def analyse(variant_dirs, args, manifest=None, results=None):
    """variant_dirs: [(name, path)] in order; returns the JSON document."""
    manifest = manifest or {}
    cfg = Config(manifest, args)
    rejected, notes = [], []
    loaded = []
    for name, path in variant_dirs:
        boots = load_variant(path, name, rejected, notes)
        loaded.append((name, boots))
    for r in rejected:
        notes.append(f"rejected {r['run']}: {r['reason']}")
    for name, boots in loaded:
        if not boots:
            why = "every run was rejected" if any(r["run"].startswith(name + "/") for r in rejected) \
                else "no boot-<N>/run-<M>.csv files"
            raise InputError(f"variant {name}: {why}")
    names = [n for n, _ in loaded]
    baseline = args.baseline or manifest.get("baseline") or names[0]
    if baseline not in names:
        raise InputError(f"baseline variant {baseline!r} not found (variants: {', '.join(names)})")
    if len(names) < 2:
        raise InputError(f"only one variant ({names[0]}): an A/B comparison needs two "
                         "(RESULTS/<variant>/boot-<N>/run-<M>.csv)")

    groups = []
    variants = []
    for name, boots in loaded:
        groups += _group(name, boots, cfg)
        variants.append({"name": name, "boots": [b for b, _, _ in boots],
                         "n_runs": sum(len(r) for _, _, r in boots),
                         **{k: _distinct(boots, k) for k in META_KEYS}})
    comparisons = []
    for g in groups:
        if g["variant"] == baseline:
            continue
        ga = next((x for x in groups if x["variant"] == baseline
                   and x["working_set_bytes"] == g["working_set_bytes"]), None)
        if ga is None:
            notes.append(f"variant {g['variant']} at working set {g['working_set_bytes']}: "
                         f"the baseline {baseline} has no runs there, no comparison")
            continue
        comparisons.append(_compare(ga, g, args.iterations, args.seed, notes))
    for c in comparisons:
        for m, r in c["metrics"].items():
            if r.get("note"):
                msg = f"{c['variant']} vs {c['baseline']}, {m}: {r['note']}"
                if msg not in notes:
                    notes.append(msg)
    sweeps = [s for s in (_sweep(groups, n, cfg.tlb_reach) for n in names) if s]
    return {
        "schema": SCHEMA, "version": VERSION,
        "results": results or [p for _, p in variant_dirs],
        "method": {
            "measurement": "perf stat -x, per run; runs grouped by boot (boot-<N>/run-<M>.csv)",
            "statistic": "median over all runs of a variant",
            "interval": f"{int(CONFIDENCE * 100)}% percentile interval of median(B)/median(A) - 1, "
                        "hierarchical bootstrap (boots with replacement, then runs within each boot)",
            "iterations": args.iterations, "seed": args.seed,
            "instructions_event": cfg.ins or "instructions:k, else instructions",
            "walk_events": cfg.walks or "every event whose name contains tlb_walk",
        },
        "baseline": baseline,
        "variants": variants,
        "groups": groups,
        "comparisons": comparisons,
        "sweeps": sweeps,
        "rejected": rejected,
        "notes": notes,
    }


# ---- output ---------------------------------------------------------------

def fmt_value(v):
    if v is None:
        return "-"
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    if abs(v) >= 1000:
        return f"{v:.1f}"
    return f"{v:.6g}"


def fmt_pct(x):
    return f"{100 * x:+.2f}%"


def fmt_bytes(n):
    if n is None:
        return "-"
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def format_text(doc):
    out = [f"results: {', '.join(doc['results'])}; baseline {doc['baseline']}; "
           f"{doc['method']['iterations']} bootstrap resamples, seed {doc['method']['seed']}"]
    for v in doc["variants"]:
        out.append(f"variant {v['name']}: {len(v['boots'])} boots, {v['n_runs']} runs; "
                   f"machine {' | '.join(v['machine'])}; kernel {' | '.join(v['kernel'])}; "
                   f"cmdline {' | '.join(v['cmdline'])}; layout {' | '.join(v['layout'])}")
    for g in doc["groups"]:
        ws = "" if g["working_set_bytes"] is None else f" at working set {fmt_bytes(g['working_set_bytes'])}"
        out.append(f"{g['variant']}{ws}: medians over {g['n_runs']} runs in {g['n_boots']} boots")
        for m, r in g["metrics"].items():
            if r["status"] == "ok":
                out.append(f"  {m:<32} {fmt_value(r['median'])}")
            else:
                out.append(f"  {m:<32} {r['status']} ({r['reason']})")
    for c in doc["comparisons"]:
        ws = "" if c["working_set_bytes"] is None else f" at working set {fmt_bytes(c['working_set_bytes'])}"
        out.append(f"{c['variant']} vs {c['baseline']}{ws}: relative difference, 95% CI")
        for m, r in c["metrics"].items():
            if r["status"] != "ok":
                out.append(f"  {m:<32} {r['status']} ({r['reason']})")
                continue
            ci = "no interval" if r["ci95"] is None else \
                f"[{fmt_pct(r['ci95'][0])}, {fmt_pct(r['ci95'][1])}]"
            out.append(f"  {m:<32} {fmt_pct(r['rel_diff'])} {ci}  "
                       f"({fmt_value(r['median'])} vs {fmt_value(r['median_baseline'])})")
    for s in doc["sweeps"]:
        if s["status"] != "ok":
            out.append(f"sweep {s['variant']}: {s['metric']} {s['status']} ({s['reason']})")
        elif s["step"] is None:
            out.append(f"sweep {s['variant']}: {s['metric']} does not rise with the working set")
        else:
            st = s["step"]
            out.append(f"sweep {s['variant']}: {s['metric']} jumps between {fmt_bytes(st['from_bytes'])} "
                       f"and {fmt_bytes(st['to_bytes'])} ({fmt_value(st['from'])} -> {fmt_value(st['to'])})"
                       + (f"; TLB reach {fmt_bytes(s['tlb_reach_bytes'])}" if s["tlb_reach_bytes"] else ""))
    for n in doc["notes"]:
        out.append(f"note: {n}")
    return "\n".join(out) + "\n"


def _variant_dirs(paths):
    """One RESULTS dir with variant subdirectories, or several variant dirs."""
    def is_variant(p):
        return os.path.isdir(p) and any(_BOOT.match(n) for n in os.listdir(p))

    for p in paths:
        if not os.path.isdir(p):
            raise InputError(f"{p}: not a directory (RESULTS/<variant>/boot-<N>/run-<M>.csv)")
    if len(paths) == 1 and not is_variant(paths[0]):
        root = paths[0]
        mpath = os.path.join(root, "manifest.json")
        manifest = _read_json(mpath, "manifest.json") if os.path.exists(mpath) else {}
        subs = sorted(n for n in os.listdir(root) if is_variant(os.path.join(root, n)))
        if not subs:
            raise InputError(f"{root}: no variant directories with boot-<N>/ inside "
                             "(RESULTS/<variant>/boot-<N>/run-<M>.csv)")
        return [(n, os.path.join(root, n)) for n in subs], manifest
    for p in paths:
        if not is_variant(p):
            raise InputError(f"{p}: no boot-<N>/ directories (a variant directory holds boot-<N>/run-<M>.csv)")
    names = [os.path.basename(os.path.normpath(p)) for p in paths]
    if len(set(names)) != len(names):
        raise UsageError("two variant directories have the same name")
    return list(zip(names, paths)), {}


def parser():
    p = ArgumentParser(prog="python3 -m cmadebug_report.abstats",
                       description="TLB A/B statistics over perf stat -x, runs (boots x runs per variant).")
    p.add_argument("results", nargs="+", metavar="RESULTS",
                   help="a results directory holding <variant>/boot-<N>/, or several variant directories")
    p.add_argument("--baseline", help="the A variant (default: manifest, else the first)")
    p.add_argument("--json", metavar="FILE", help="write the JSON document here ('-' for stdout)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    p.add_argument("--instructions-event", help="default instructions:k, else instructions")
    p.add_argument("--walk-event", action="append",
                   help="a TLB walk event (repeat); default every event with tlb_walk in its name")
    p.add_argument("--tlb-reach", type=int, metavar="BYTES", help="mark on the working-set sweep")
    return p


def analyse_paths(paths, args=None):
    """For the report: the document for RESULTS paths with default settings."""
    args = args or parser().parse_args(list(paths))
    dirs, manifest = _variant_dirs(args.results)
    return analyse(dirs, args, manifest, results=list(args.results))


def main(argv):
    args = parser().parse_args(argv)
    if args.iterations < 100:
        raise UsageError("--iterations must be at least 100")
    doc = analyse_paths(args.results, args)
    if args.json == "-":
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    sys.stdout.write(format_text(doc))
    return 0


if __name__ == "__main__":
    sys.exit(run_main("abstats", main, sys.argv[1:]))
