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

manifest.json may also name "walk_metric" ("walks", "L2 refills", "L1 refills":
what the TLB events count, perf-scripts/tlb-ab.sh writes it); else it follows
from the events: table walks, else L2 TLB refills, else L1 TLB refills.

What it computes, per variant (and per working-set size when the walker
reports one): the median of every event over all runs; the TLB metric
(<walks|l2_tlb_refills|l1_tlb_refills>_per_1k_instructions) and
ns_per_access; each boot's value (the trimmed mean of its runs); and for
each variant against the baseline the relative difference with a 95%
Student t interval over boots (cmadebug_report.tstats): Welch's when each
boot measured one variant, paired within boots when each boot measured
every variant (the same boot_id; a crossover when the split range was
swapped between boots).  Below the minimum number of boots the estimate
stands but no interval is drawn ("insufficient", exit 4).  Several
working-set sizes are one family: p-values are Holm-adjusted.  From the
observed spread it says how many boots resolve --resolve (0.5%).  Over
working-set sizes, the step is the largest rise between neighbouring sizes
whose interval excludes 0.

Refused (exit 2, one line): runs that count different events, boots of
different kernels, different walker parameters at one working set,
different walked ranges (two are allowed in the within-boot design).
Runs an event was multiplexed in (percentage < 100, or '<not counted>') are
rejected, with a message.  An event that is '<not supported>', or reads 0
in every run of every boot, is "not supported": no number, no ratio; a zero
anywhere else is a real zero.

Exit status: 0, 1 usage, 2 bad input, 4 some comparison had too few boots
for an interval, 5 (--until) an interval is still wider than asked.
"""
import json
import math
import os
import re
import statistics
import sys

from . import ArgumentParser, InputError, UNKNOWN, UsageError, read_json, run_main
from . import perfcsv, tstats

SCHEMA = "cmadebug-abstats"
VERSION = 2
DEFAULT_RESOLVE = 0.005
EXIT_INSUFFICIENT = 4   # some comparison had too few boots for an interval
EXIT_NOT_YET = 5        # --until: an interval is still wider than asked
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
    tm = cfg.tlb_metric
    for ev, r in run.readings.items():
        if r.status != "ok":
            vals[ev], why[ev] = None, ("not supported", "perf: <not supported>")
        elif ev in cfg.dead:
            vals[ev], why[ev] = None, ("not supported", "reads 0 in every run of every boot: "
                                       "this core does not count it")
        else:
            vals[ev] = r.value
    ins = cfg.instructions_event(run.readings)
    if cfg.label == "not supported":
        vals[tm] = None
        why[tm] = ("not supported", "the PMU lists no TLB walk or refill event")
    elif ins is None or not cfg.tlb_events:
        vals[tm] = None
        why[tm] = ("not measured", "no instructions event" if ins is None else
                   "no TLB walk or refill event (name one in manifest walk_events)")
    elif vals.get(ins) is None or any(vals.get(w) is None for w in cfg.tlb_events):
        vals[tm] = None
        why[tm] = ("not supported", ", ".join(
            e for e in [ins] + cfg.tlb_events if vals.get(e) is None) + " not supported")
    else:
        vals[tm] = 1000.0 * sum(vals[w] for w in cfg.tlb_events) / vals[ins]
    w = run.walker
    n = None if w is None else (w.get("accesses") or w.get("pages_touched"))
    if w is None or not n or w.get("elapsed_ns") is None:
        vals[NS_METRIC], why[NS_METRIC] = None, ("not measured",
                                                 "no walker report with accesses and elapsed_ns")
    else:
        vals[NS_METRIC] = w["elapsed_ns"] / n
    return vals, why


# What the TLB events count, by meaning (perf-scripts/README.md): table
# walks where the core counts them, else L2 TLB refills, else L1 refills.
# "not supported": the core's PMU lists none of them (cmadebug tlb events).
TLB_METRICS = {"walks": WALKS_METRIC,
               "L2 refills": "l2_tlb_refills_per_1k_instructions",
               "L1 refills": "l1_tlb_refills_per_1k_instructions",
               "misses": "tlb_misses_per_1k_instructions",
               "not supported": "tlb_events_per_1k_instructions"}


def metric_words(metric):
    """"l1_tlb_refills_per_1k_instructions" -> "L1 TLB refills"."""
    label = next((k for k, v in TLB_METRICS.items() if v == metric), None)
    return {"walks": "TLB walks", "L2 refills": "L2 TLB refills", "L1 refills": "L1 TLB refills",
            "misses": "TLB misses", "not supported": "TLB events"}.get(label, metric)


def tlb_meaning(event):
    """What a perf event name counts: "dtlb_walk:k", "armv8_pmuv3/l1d_tlb_refill/k"."""
    e = event.split("/")[1] if event.count("/") >= 2 else _base_event(event)
    e = e.lower()
    if "tlb_walk" in e:
        return "walks"
    if "tlb_refill" in e:
        return "L2 refills" if e.startswith("l2") else "L1 refills"
    if "tlb-load-misses" in e or "tlb-loads-misses" in e:
        return "misses"
    return None


class Config:
    def __init__(self, manifest, args):
        self.ins = args.instructions_event or manifest.get("instructions_event")
        self.walks = args.walk_event or manifest.get("walk_events")
        self.label = manifest.get("walk_metric")
        if self.label is not None and self.label not in TLB_METRICS:
            raise InputError(f"manifest.json: walk_metric {self.label!r} is not one of "
                             + ", ".join(TLB_METRICS))
        self.zero_ok = set(manifest.get("may_be_zero") or [])
        self.tlb_reach = args.tlb_reach if args.tlb_reach is not None else manifest.get("tlb_reach_bytes")
        self.dead = set()
        self.tlb_events, self.tlb_metric = [], WALKS_METRIC

    def settle(self, readings):
        """The TLB events and the metric's name, from a run's events (every
        run has the same: check_poolable)."""
        if self.walks:
            self.tlb_events = [w for w in self.walks if w in readings]
            missing = [w for w in self.walks if w not in readings]
            if missing:
                raise InputError(f"walk event {missing[0]} is not in the runs (they count "
                                 f"{', '.join(readings)})")
        else:
            meanings = {e: tlb_meaning(e) for e in readings}
            for want in ("walks", "L2 refills", "L1 refills", "misses"):
                self.tlb_events = [e for e, m in meanings.items() if m == want]
                if self.tlb_events:
                    break
        label = self.label
        if label is None and self.tlb_events:
            label = next((tlb_meaning(e) for e in self.tlb_events if tlb_meaning(e)), "walks")
        self.tlb_metric = TLB_METRICS.get(label, WALKS_METRIC)

    def may_be_zero(self, ev):
        return ev in self.zero_ok or _base_event(ev) in MAY_BE_ZERO

    def instructions_event(self, readings):
        if self.ins:
            return self.ins if self.ins in readings else None
        for cand in ("instructions:k", "instructions"):
            if cand in readings:
                return cand
        # the PMU's own name for it, as cmadebug tlb events picks it
        return next((e for e in readings if "/inst_retired/" in e), None)


# ---- pooling and zeros --------------------------------------------------

def _runs(loaded):
    for name, boots in loaded:
        for bname, meta, runs in boots:
            for run in runs:
                yield name, bname, meta, run


def check_poolable(loaded):
    """Refuses runs that must not be pooled: other events, another kernel,
    other walker parameters at one working set, or walked ranges that are
    neither one range nor the two ranges of a within-boot design."""
    first = {}

    def same(key, value, where, what):
        if value is None:
            return
        if key not in first:
            first[key] = (value, where)
        elif first[key][0] != value:
            raise InputError(f"refusing to pool runs with different {what}: {first[key][1]} has "
                             f"{first[key][0]}, {where} has {value}")

    starts = set()
    for name, bname, meta, run in _runs(loaded):
        where = run.label
        same("events", ",".join(sorted(run.readings)), where, "events")
        same("kernel", meta.get("kernel"), f"{name}/{bname}", "kernels")
        same("pages", meta.get("walk_pages"), f"{name}/{bname}", "walked ranges (walk_pages)")
        if meta.get("walk_start") is not None:
            starts.add(meta["walk_start"])
        w = run.walker
        if w is not None:
            n = w.get("accesses") if w.get("accesses") is not None else w.get("pages_touched")
            same(("accesses", w.get("working_set_bytes")), n, where,
                 f"walker parameters (accesses at working set {fmt_bytes(w.get('working_set_bytes'))})")
    if len(starts) > 2:
        raise InputError("refusing to pool runs over more than two walked ranges (walk_start "
                         + ", ".join(hex(x) if isinstance(x, int) else str(x) for x in sorted(starts, key=str))
                         + ")")
    return starts


def dead_events(loaded, cfg):
    """Events that read 0 in every run of every boot: the core does not
    count them.  A zero anywhere else is a real zero."""
    seen, nonzero = set(), set()
    for _, _, _, run in _runs(loaded):
        for ev, r in run.readings.items():
            if r.status == "ok":
                seen.add(ev)
                if r.value != 0:
                    nonzero.add(ev)
    return {ev for ev in seen - nonzero if not cfg.may_be_zero(ev)}


def design_of(loaded):
    """'within' when each boot measured every variant (the same boot_id in
    every variant), else 'across'; a mixture is refused."""
    ids = {}
    for name, boots in loaded:
        got = [meta.get("boot_id") for _, meta, _ in boots]
        if any(not i for i in got) or len(set(got)) != len(got):
            ids = None
            break
        ids[name] = set(got)
    if ids is None:
        return "across"
    sets = list(ids.values())
    if all(s == sets[0] for s in sets):
        return "within"
    shared = set.intersection(*sets)
    if shared:
        raise InputError(f"boot {sorted(shared)[0]} measured every variant but others did not: "
                         "within-boot and across-boot runs cannot be pooled")
    return "across"


# ---- analysis -------------------------------------------------------------

def _group(variant, boots, cfg):
    """Per working-set size: {metric: per-boot values or why not}."""
    by_ws = {}
    for bname, meta, runs in boots:
        for run in runs:
            ws = None if run.walker is None else run.walker.get("working_set_bytes")
            vals, why = _run_metrics(run, cfg)
            g = by_ws.setdefault(ws, {"boots": {}, "ids": {}, "arms": {}, "metric_order": []})
            g["boots"].setdefault(bname, []).append((run.label, vals, why))
            g["ids"][bname] = meta.get("boot_id") or bname
            g["arms"][bname] = meta.get("walk_start")
            for m in vals:
                if m not in g["metric_order"]:
                    g["metric_order"].append(m)
    groups = []
    for ws in sorted(by_ws, key=lambda w: (w is None, w or 0)):
        g = by_ws[ws]
        evs = [m for m in g["metric_order"] if m not in (cfg.tlb_metric, NS_METRIC)]
        order = evs + [cfg.tlb_metric, NS_METRIC]
        n_runs = sum(len(r) for r in g["boots"].values())
        metrics = {}
        for m in order:
            per_boot = [[v.get(m) for _, v, _ in runs] for runs in g["boots"].values()]
            flat = [x for b in per_boot for x in b]
            if all(x is not None for x in flat):
                svals = sorted(flat)
                metrics[m] = {"status": "ok", "median": statistics.median(flat),
                              "min": svals[0], "max": svals[-1], "values": flat,
                              "boots": per_boot,
                              "boot_ids": [g["ids"][b] for b in g["boots"]],
                              "boot_arms": [g["arms"][b] for b in g["boots"]],
                              "boot_values": [tstats.boot_value(b) for b in per_boot]}
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


def estimate(a, b, design):
    """tstats.Estimate of B against A (group metric entries), and the
    samples whose spread says how many boots resolve an effect."""
    if design == "across":
        est = tstats.welch(a["boot_values"], b["boot_values"])
        samples = [[math.log(v) for v in x["boot_values"]] for x in (a, b)] \
            if est is not None and est.scale == "log" else []
        return est, samples
    va = dict(zip(a["boot_ids"], a["boot_values"]))
    vb = dict(zip(b["boot_ids"], b["boot_values"]))
    arms = dict(zip(b["boot_ids"], b["boot_arms"]))
    ids = [i for i in b["boot_ids"] if i in va]
    labels = [arms[i] for i in ids]
    est = tstats.paired([(va[i], vb[i]) for i in ids], None if None in labels else labels)
    samples = []
    if est is not None and est.scale == "log":
        by_arm = {}
        for i in ids:
            by_arm.setdefault(arms[i], []).append(math.log(vb[i]) - math.log(va[i]))
        samples = list(by_arm.values())
    return est, samples


def _compare(ga, gb, design, resolve):
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
        est, samples = estimate(a, b, design)
        if est is None:
            res.update(status="no ratio", reason="the baseline's mean is 0")
            out["metrics"][m] = res
            continue
        rel, ci = est.relative()
        res.update(rel_diff=rel, ci95=None if ci is None else list(ci), design=est.design,
                   scale=est.scale, boots=est.n, p=est.p_value())
        if est.short:
            res["insufficient"] = est.short
        else:
            res["halfwidth"] = max(rel - ci[0], ci[1] - rel)
            if est.se == 0:
                res["note"] = "all boots equal: zero-width interval"
        sd = tstats.spread(samples)
        if sd is not None and resolve:
            kind = "across" if design == "across" else "within"
            res["boots_to_resolve"] = {"effect": resolve, "sd": sd,
                                       "boots": tstats.boots_to_resolve(sd, resolve, kind),
                                       "per": "variant" if kind == "across" else "in all"}
        out["metrics"][m] = res
    return out


def _holm(comparisons):
    """Several working-set sizes are a family: Holm-adjust each variant's
    and metric's p-values over them; 'significant' is the adjusted one."""
    fam = {}
    for c in comparisons:
        for m, r in c["metrics"].items():
            if r["status"] == "ok" and r.get("p") is not None:
                fam.setdefault((c["variant"], m), []).append(r)
    for rs in fam.values():
        for r, adj in zip(rs, tstats.holm([r["p"] for r in rs])):
            r["p_holm"], r["family"] = adj, len(rs)
            r["significant"] = adj < 1 - tstats.CONFIDENCE


def _sweep(groups, variant, cfg):
    """The working-set sweep of VARIANT's TLB metric, and the step: the
    largest rise between neighbouring sizes whose interval (paired over
    the boots that measured both, Holm over the neighbours) excludes 0."""
    metric = cfg.tlb_metric
    pts = [(g["working_set_bytes"], g["metrics"].get(metric)) for g in groups
           if g["variant"] == variant and g["working_set_bytes"] is not None]
    if len(pts) < 2:
        return None
    sw = {"variant": variant, "metric": metric, "tlb_reach_bytes": cfg.tlb_reach}
    if any(m is None or m["status"] != "ok" for _, m in pts):
        bad = next(m for _, m in pts if m is None or m["status"] != "ok")
        sw.update(status="not supported" if bad and bad["status"] == "not supported" else "not measured",
                  reason=bad["reason"] if bad else f"no {metric}", points=None, step=None)
        return sw
    points = [[ws, m["median"]] for ws, m in pts]
    rises = []
    for (ws0, m0), (ws1, m1) in zip(pts, pts[1:]):
        v0 = dict(zip(m0["boot_ids"], m0["boot_values"]))
        ids = [i for i in m1["boot_ids"] if i in v0]
        v1 = dict(zip(m1["boot_ids"], m1["boot_values"]))
        est = tstats.paired([(v0[i], v1[i]) for i in ids]) if ids else None
        rises.append((ws0, ws1, m0["median"], m1["median"], est))
    ps = [e.p_value() for *_, e in rises if e is not None and e.p_value() is not None]
    adjusted = iter(tstats.holm(ps))
    steps, short = [], None
    for ws0, ws1, med0, med1, est in rises:
        if est is None or est.p_value() is None:
            short = short or (est.short if est is not None else "no boot measured both sizes")
            continue
        p_holm = next(adjusted)
        rel, ci = est.relative()
        if p_holm < 1 - tstats.CONFIDENCE and est.d > 0:
            steps.append({"from_bytes": ws0, "to_bytes": ws1, "from": med0, "to": med1,
                          "rel_diff": rel, "ci95": list(ci), "p_holm": p_holm})
    step = max(steps, key=lambda s: s["to"] - s["from"]) if steps else None
    sw.update(status="ok", points=points, step=step, family=len(ps))
    if step is None:
        sw["no_step"] = f"insufficient: {short}" if short and not ps else \
            "no rise between neighbouring sizes whose interval excludes 0"
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
    starts = check_poolable(loaded)
    design = design_of(loaded)
    if design == "across" and len(starts) > 1:
        raise InputError("refusing to pool runs over different walked ranges (walk_start) "
                         "when each boot measured one variant")
    cfg.dead = dead_events(loaded, cfg)
    cfg.settle(next(iter(_runs(loaded)))[3].readings)
    resolve = getattr(args, "resolve", DEFAULT_RESOLVE)

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
        comparisons.append(_compare(ga, g, design, resolve))
    _holm(comparisons)
    if design == "within":
        arms = {a for g in groups if g["variant"] != baseline for m in g["metrics"].values()
                if m["status"] == "ok" for a in m["boot_arms"]}
        if len(arms) < 2:
            notes.append("every boot split the same range: a difference between the two physical "
                         "ranges is part of the estimate (swap the split range between boots)")
    families = {c["variant"]: r["family"] for c in comparisons for r in c["metrics"].values()
                if r.get("family", 1) > 1}
    for v, n in families.items():
        notes.append(f"{v}: {n} working-set sizes are one family: significance is Holm-adjusted "
                     "(p_holm); the 95% intervals are per size")
    sweeps = [s for s in (_sweep(groups, n, cfg) for n in names) if s]
    return {
        "schema": SCHEMA, "version": VERSION,
        "results": results or [p for _, p in variant_dirs],
        "design": design,
        "tlb_metric": cfg.tlb_metric,
        "method": {
            "measurement": "perf stat -x, per run; runs grouped by boot (boot-<N>/run-<M>.csv)",
            "statistic": "per boot: the 20% trimmed mean of its runs; medians shown are over all runs",
            "interval": (f"{int(tstats.CONFIDENCE * 100)}% Student t interval over boots on the log scale "
                         + ("(Welch: each boot measured one variant)" if design == "across" else
                            "(paired differences within each boot; a crossover averages its two arms)")),
            "minimum_boots": (f"{tstats.MIN_BOOTS_ACROSS} per variant" if design == "across" else
                              f"{tstats.MIN_BOOTS_PER_ARM} per arm of a crossover, "
                              f"{tstats.MIN_BOOTS_PAIRED} without one"),
            "resolve": resolve,
            "instructions_event": cfg.ins or "instructions:k, else instructions",
            "tlb_events": cfg.tlb_events or "none found",
            "not_counted": sorted(cfg.dead),
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


def ci_text(r):
    if r.get("insufficient"):
        return f"insufficient: {r['insufficient']}"
    if r["ci95"] is None:
        return "no interval"
    lo, hi = r["ci95"]
    sig = ""
    if r.get("family", 1) > 1:
        sig = f"; p {r['p']:.3g}, Holm over {r['family']} sizes {r['p_holm']:.3g}"
    elif r.get("p") is not None:
        sig = f"; p {r['p']:.3g}"
    return f"[{fmt_pct(lo)}, {fmt_pct(hi)}]{sig}"


def _resolve_text(r):
    b = r.get("boots_to_resolve")
    if not b:
        return ""
    n = "more than 10000" if b["boots"] is None else str(b["boots"])
    return (f"; {n} boots {b['per']} resolve {fmt_pct(b['effect'])[1:]} "
            f"(per-boot sd {100 * b['sd']:.3g}%)")


def format_text(doc):
    m = doc["method"]
    out = [f"results: {', '.join(doc['results'])}; baseline {doc['baseline']}; design {doc['design']}; "
           f"{m['interval']}; at least {m['minimum_boots']}"]
    for v in doc["variants"]:
        out.append(f"variant {v['name']}: {len(v['boots'])} boots, {v['n_runs']} runs; "
                   f"machine {' | '.join(v['machine'])}; kernel {' | '.join(v['kernel'])}; "
                   f"cmdline {' | '.join(v['cmdline'])}; layout {' | '.join(v['layout'])}")
    for g in doc["groups"]:
        ws = "" if g["working_set_bytes"] is None else f" at working set {fmt_bytes(g['working_set_bytes'])}"
        out.append(f"{g['variant']}{ws}: medians over {g['n_runs']} runs in {g['n_boots']} boots")
        for name, r in g["metrics"].items():
            if r["status"] == "ok":
                out.append(f"  {name:<36} {fmt_value(r['median'])}")
            else:
                out.append(f"  {name:<36} {r['status']} ({r['reason']})")
    for c in doc["comparisons"]:
        ws = "" if c["working_set_bytes"] is None else f" at working set {fmt_bytes(c['working_set_bytes'])}"
        out.append(f"{c['variant']} vs {c['baseline']}{ws}: relative difference, 95% interval")
        for name, r in c["metrics"].items():
            if r["status"] != "ok":
                out.append(f"  {name:<36} {r['status']} ({r['reason']})")
                continue
            out.append(f"  {name:<36} {fmt_pct(r['rel_diff'])} {ci_text(r)}  "
                       f"({fmt_value(r['median'])} vs {fmt_value(r['median_baseline'])}"
                       f"{_resolve_text(r)})")
    for s in doc["sweeps"]:
        if s["status"] != "ok":
            out.append(f"sweep {s['variant']}: {s['metric']} {s['status']} ({s['reason']})")
        elif s["step"] is None:
            out.append(f"sweep {s['variant']}: {s['metric']}: no step ({s['no_step']})")
        else:
            st = s["step"]
            out.append(f"sweep {s['variant']}: {s['metric']} jumps between {fmt_bytes(st['from_bytes'])} "
                       f"and {fmt_bytes(st['to_bytes'])} ({fmt_value(st['from'])} -> {fmt_value(st['to'])}, "
                       f"{fmt_pct(st['rel_diff'])} [{fmt_pct(st['ci95'][0])}, {fmt_pct(st['ci95'][1])}], "
                       f"Holm p {st['p_holm']:.3g})"
                       + (f"; TLB reach {fmt_bytes(s['tlb_reach_bytes'])}" if s["tlb_reach_bytes"] else ""))
    for n in doc["notes"]:
        out.append(f"note: {n}")
    return "\n".join(out) + "\n"


def insufficient(doc):
    """The comparisons that drew no interval for want of boots."""
    return [(c, name, r) for c in doc["comparisons"] for name, r in c["metrics"].items()
            if r["status"] == "ok" and r.get("insufficient")]


def until(doc, halfwidth, metric=None):
    """--until: (done, why) for the sequential mode: done when every
    comparison of METRIC (default: the TLB metric) has an interval no
    wider than +-HALFWIDTH."""
    metric = metric or doc["tlb_metric"]
    rs = [(c, c["metrics"].get(metric)) for c in doc["comparisons"]]
    if not rs or any(r is None or r["status"] != "ok" for _, r in rs):
        bad = next((r for _, r in rs if r is not None and r["status"] != "ok"), None)
        raise InputError(f"--until: {metric} is {bad['status'] + ' (' + bad['reason'] + ')' if bad else 'not measured'}"
                         "; name a measured metric with --until-metric")
    for c, r in rs:
        ws = "" if c["working_set_bytes"] is None else f" at {fmt_bytes(c['working_set_bytes'])}"
        if r.get("insufficient"):
            return False, f"{metric}{ws}: insufficient: {r['insufficient']}"
        if r["halfwidth"] > halfwidth:
            return False, (f"{metric}{ws}: +-{100 * r['halfwidth']:.3g}% over {r['boots']} boots, "
                           f"want +-{100 * halfwidth:.3g}%")
    return True, f"{metric}: every interval within +-{100 * halfwidth:.3g}%"


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


def _fraction(text):
    """"0.5%" or "0.005" -> 0.005."""
    try:
        v = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise UsageError(f"{text!r} is not a fraction (0.005) or a percentage (0.5%)") from None
    if not 0 < v < 1:
        raise UsageError(f"{text!r} must be between 0 and 100%")
    return v


def parser():
    p = ArgumentParser(prog="python3 -m cmadebug_report.abstats",
                       description="TLB A/B statistics over perf stat -x, runs (boots x runs per variant).")
    p.add_argument("results", nargs="+", metavar="RESULTS",
                   help="a results directory holding <variant>/boot-<N>/, or several variant directories")
    p.add_argument("--baseline", help="the A variant (default: manifest, else the first)")
    p.add_argument("--json", metavar="FILE", help="write the JSON document here ('-' for stdout)")
    p.add_argument("--resolve", default="0.5%", metavar="EFFECT",
                   help="say how many boots resolve this relative effect (default 0.5%%)")
    p.add_argument("--until", metavar="HALFWIDTH",
                   help="sequential mode: exit 0 once every interval of the metric is within "
                        "+-HALFWIDTH (e.g. 0.5%%), else 5: boot again")
    p.add_argument("--until-metric", metavar="NAME", help="the metric --until watches (default: the TLB metric)")
    p.add_argument("--instructions-event", help="default instructions:k, else instructions")
    p.add_argument("--walk-event", action="append",
                   help="a TLB event (repeat); default the walks, else L2, else L1 TLB refills")
    p.add_argument("--tlb-reach", type=int, metavar="BYTES", help="mark on the working-set sweep")
    return p


def analyse_paths(paths, args=None):
    """For the report: the document for RESULTS paths with default settings."""
    args = args or parser().parse_args(list(paths))
    if isinstance(getattr(args, "resolve", None), str):
        args.resolve = _fraction(args.resolve)
    dirs, manifest = _variant_dirs(args.results)
    return analyse(dirs, args, manifest, results=list(args.results))


def main(argv):
    args = parser().parse_args(argv)
    halfwidth = _fraction(args.until) if args.until is not None else None
    doc = analyse_paths(args.results, args)
    if args.json == "-":
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")
        sys.stdout.write(format_text(doc))
    if halfwidth is not None:
        done, why = until(doc, halfwidth, args.until_metric)
        print(f"abstats: {'done' if done else 'not yet'}: {why}", file=sys.stderr)
        return 0 if done else EXIT_NOT_YET
    short = insufficient(doc)
    if short:
        c, name, r = short[0]
        print(f"abstats: insufficient: {c['variant']} vs {c['baseline']}, {name}: {r['insufficient']} "
              f"(no interval drawn; {len(short)} comparisons short)", file=sys.stderr)
        return EXIT_INSUFFICIENT
    return 0


if __name__ == "__main__":
    sys.exit(run_main("abstats", main, sys.argv[1:]))
