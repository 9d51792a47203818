"""python3 -m cmadebug_report compare DIR... [-o REPORT.html] [--summary-json FILE] [--check]
                                  [--tlb FILE|DIR] [--weights ROW=W,...]

The strategy comparison of 'make compare': one directory per strategy (what
scripts/compare.sh leaves in build/compare/ARCH/STRATEGY/), read side by
side.  A strategy directory holds boot-N/ directories, one per boot (facts.txt
and the cmadebug snapshots before.json and after.json), or those files
directly (one boot).  DIR is a strategy directory or a directory of them.

facts.txt is KEY=VALUE, one a line, written by tests/qemu/compare.sh in the
guest (and on a board) with the host's facts appended by scripts/compare.sh;
reports/README.md lists the keys.  A value "unknown", or a key that is not
there, is shown as unknown, never as zero.

Every counted or timed figure is the median over a strategy's boots with
its spread (smallest and largest boot); strategies are ranked on a cost only
where their spreads do not overlap.  The decision table and the answer below
it come from those rankings, weighted (--weights).

--tlb takes the TLB A/B result of the same board and kernel (abstats JSON,
as 'make tlb-report' writes it, or a results directory); one measured
elsewhere is refused.

--check asserts what must differ between the article's strategies (see
EXPECTATIONS): each failed expectation is one line on stderr, exit 3.
"""
import os
import re
import statistics
import sys

from . import ArgumentParser, InputError, UNKNOWN, UsageError, run_main
from . import snapshot
from .snapshot import STAGES
from .text import cell_lines

SCHEMA = "cmadebug-compare-summary"
# 2: several boots per strategy (figures, per_boot), the decision and the answer
VERSION = 2
EXIT_CHECK = 3

FACTS_INT = ("memtotal_kb", "memavailable_kb", "cmatotal_kb", "lowtotal_kb", "hightotal_kb",
             "nomap_kb", "fill_mib", "alloc_size_bytes", "alloc_rounds", "alloc_kept", "splits",
             "conflicts", "dma_remap_failures")
FACTS_REQUIRED = ("strategy", "memtotal_kb", "load")
LOAD_KEYS = ("rounds", "ok", "failed", "p50_ns", "p90_ns", "max_ns")
# The order strategies are shown in when they are there; others follow by name.
KNOWN_ORDER = ["a-split", "b-highmem", "c-carveout", "d-sections", "rodata-on", "rodata-full",
               "carveout"]
# What scripts/compare.sh boots per board by default.
ARCH_STRATEGIES = {"arm": ["a-split", "b-highmem", "c-carveout", "d-sections"],
                   "arm64": ["rodata-on", "rodata-full", "carveout"]}
TIMING = {
    "qemu-tcg": "QEMU TCG virtual time (the guest's CLOCK_MONOTONIC under emulation, which "
                "follows the host's clock and load): a rough comparison of these boots, "
                "not a board's real latency",
    "qemu-kvm": "the guest's CLOCK_MONOTONIC under KVM: includes virtualisation, "
                "not a bare board's latency",
    "board": "the board's CLOCK_MONOTONIC",
}
# What facts.txt may say about TLB cost: a status, never a number (make
# compare counts no TLB events; perf-scripts/ does, on hardware).
TLB_STATUS = {"not-supported": "not supported", "not-measured": "not measured"}


# ---------------------------------------------------------------- reading

def read_facts(path):
    """facts.txt -> dict; integers where FACTS_INT says, None for 'unknown'."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not text") from None
    if not any(line.strip() for line in lines):
        raise InputError(f"{path}: empty file, no facts (did the guest workload run?)")
    facts = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        key, sep, value = line.partition("=")
        if not sep or not key or not key.replace("_", "").isalnum():
            raise InputError(f"{path}:{n}: expected KEY=VALUE, got {line[:60]!r}")
        if key in facts:
            raise InputError(f"{path}:{n}: {key} given twice")
        facts[key] = value.strip()
    for key in FACTS_REQUIRED:
        if key not in facts:
            raise InputError(f"{path}: {key}: missing")
    for key in FACTS_INT:
        v = facts.get(key)
        if v is None or v in ("", UNKNOWN):
            facts[key] = None
        elif v.isdigit():
            facts[key] = int(v)
        else:
            raise InputError(f"{path}: {key}: expected a number or 'unknown', got {v!r}")
    facts["load"] = parse_load(path, facts["load"])
    tlb = facts.get("tlb", "not-measured")
    if tlb not in TLB_STATUS:
        raise InputError(f"{path}: tlb: expected one of {', '.join(TLB_STATUS)}, got {tlb!r} "
                         "(TLB cost comes from perf-scripts/ A/B runs, not from facts)")
    facts["tlb"] = TLB_STATUS[tlb]
    return facts


def parse_load(path, value):
    """The load line (bench/dma_alloc_load.c): rounds= ok= failed= p50_ns= p90_ns= max_ns=.
    'none': the load program printed nothing."""
    if value in ("", "none"):
        return None
    load = {}
    for tok in value.split():
        k, sep, v = tok.partition("=")
        if not sep or not v.isdigit():
            raise InputError(f"{path}: load: expected KEY=NUMBER pairs, got {tok!r}")
        load[k] = int(v)
    for k in LOAD_KEYS:
        if k not in load:
            raise InputError(f"{path}: load: {k}: missing")
    if load["ok"] + load["failed"] != load["rounds"]:
        raise InputError(f"{path}: load: ok {load['ok']} + failed {load['failed']} "
                         f"is not rounds {load['rounds']}")
    return load


_BOOT_DIR = re.compile(r"^boot-(\d+)$")


def _boot_dirs(path):
    """The boots of a strategy directory: itself when it holds facts.txt (one
    boot), else its boot-N/ directories with facts.txt, in order; None when
    it is neither."""
    if os.path.isfile(os.path.join(path, "facts.txt")):
        return [path]
    boots = sorted((int(m.group(1)), os.path.join(path, d)) for d in os.listdir(path)
                   for m in [_BOOT_DIR.match(d)] if m)
    if not boots:
        return None
    for _, d in boots:
        if not os.path.isfile(os.path.join(d, "facts.txt")):
            raise InputError(f"{d}: no facts.txt (did this boot's workload run?)")
    return [d for _, d in boots]


def find_strategies(paths):
    """[(strategy directory, [boot directories])] under PATHS."""
    found = []
    for p in paths:
        if not os.path.isdir(p):
            raise InputError(f"{p}: " + ("not a directory" if os.path.exists(p) else
                                         "No such directory"))
        boots = _boot_dirs(p)
        if boots is not None:
            found.append((p, boots))
            continue
        subs = []
        for d in sorted(os.listdir(p)):
            sub = os.path.join(p, d)
            if os.path.isdir(sub):
                sub_boots = _boot_dirs(sub)
                if sub_boots is not None:
                    subs.append((sub, sub_boots))
        if not subs:
            raise InputError(f"{p}: no strategy results (no facts.txt in it, its boot-N/ or its "
                             "subdirectories: run 'make compare')")
        found += subs
    return found


class Boot:
    """One boot of one strategy: facts.txt, before.json, after.json."""

    def __init__(self, directory):
        self.dir = directory
        self.facts = read_facts(os.path.join(directory, "facts.txt"))
        self.before = snapshot.load(os.path.join(directory, "before.json"))
        self.after = snapshot.load(os.path.join(directory, "after.json"))


class Strategy:
    def __init__(self, directory, boot_dirs):
        self.dir = directory
        self.boots = [Boot(d) for d in boot_dirs]
        names = list(dict.fromkeys(b.facts["strategy"] for b in self.boots))
        if len(names) > 1:
            raise InputError(f"{directory}: its boots are of different strategies ({', '.join(names)})")
        self.name = names[0]


def load(paths):
    strategies = [Strategy(d, boots) for d, boots in find_strategies(paths)]
    seen = {}
    for s in strategies:
        if s.name in seen:
            raise InputError(f"{s.dir}: strategy {s.name} also in {seen[s.name]}")
        seen[s.name] = s.dir
    rank = {n: i for i, n in enumerate(KNOWN_ORDER)}
    return sorted(strategies, key=lambda s: (rank.get(s.name, len(rank)), s.name))


# ---------------------------------------------------------------- one boot

def _memory(b, best_kb):
    f = b.facts
    snap_cma = sum(a.count_pages for a in b.after.areas) * b.after.page_size // 1024 \
        if b.after.page_size else None
    mem = {
        "memtotal_kb": f["memtotal_kb"],
        "cma_kb": f["cmatotal_kb"] if f["cmatotal_kb"] is not None else snap_cma,
        "cma_areas_kb": snap_cma,
        "nomap_kb": f["nomap_kb"],
        "nomap_regions": f.get("nomap_regions") or UNKNOWN,
        "lowtotal_kb": f["lowtotal_kb"],
        "hightotal_kb": f["hightotal_kb"],
        "memavailable_kb": f["memavailable_kb"],
        "less_than_best_kb": best_kb - f["memtotal_kb"],
    }
    mem["any_allocation_kb"] = None if mem["cma_kb"] is None else f["memtotal_kb"] - mem["cma_kb"]
    return mem


def _linear_map(b):
    lm = b.after.linear_map
    out = {"available": lm.mapped is not None}
    if lm.mapped is None:
        out["reason"] = lm.reason_layout
        return out
    out["source"] = lm.source
    out["mapped"] = [{"level": lvl, "size_bytes": size, "bytes": n} for lvl, size, n in lm.mapped]
    out["mapped_bytes"] = sum(n for _, _, n in lm.mapped)
    sized = [(size, n) for _, size, n in lm.mapped if size is not None]
    out["smallest_entry_bytes"] = sum(n for size, n in sized if size == min(z for z, _ in sized)) \
        if sized else None
    if lm.splits is None:
        out["splits"] = None
        out["splits_by_cause"] = None
    else:
        out["splits"] = sum(n for *_, n in lm.splits)
        by = {}
        for frm, to, cause, n in lm.splits:
            by[f"{cause} {frm}->{to}"] = by.get(f"{cause} {frm}->{to}", 0) + n
        out["splits_by_cause"] = by
    out["attr_changes"] = None if lm.attr_changes is None else \
        [{"cause": c, "changes": n, "failures": fl, "bytes": nb} for c, n, fl, nb in lm.attr_changes]
    return out


def _alias(b):
    lm = b.after.linear_map
    if lm.conflicts is None:
        return {"available": False, "reason": lm.reason_alias}
    hazards = [c for c in lm.conflicts if c["class"] != "sanctioned"]
    return {"available": True, "count": len(hazards), "pages": lm.alias_pages,
            "unlisted_pages": lm.unlisted_pages, "incomplete": lm.incomplete,
            "conflicts": lm.conflicts}


def _cma(b):
    """Per area: the stats counters' change over the workload (after - before)."""
    out = []
    for a in b.after.areas:
        before_area = b.before.area(a.name)
        row = {"name": a.name, "base_pfn": a.base_pfn, "count_pages": a.count_pages,
               "size_bytes": None if b.after.page_size is None else a.count_pages * b.after.page_size,
               "used_pages_after": a.used_pages}
        if a.stats is None:
            row["stats"] = None
        else:
            before = (before_area.stats if before_area is not None else None) or {}
            delta = {k: v - before.get(k, 0) for k, v in a.stats.items() if k != "last_failure_ns"}
            row["stats"] = {k: delta.get(k) for k in ("requests", "successes", "failures", "retries",
                                                      "pages_migrated")}
            row["failed_by_stage"] = {st: delta.get("failed_" + st.replace("-", "_"), 0)
                                      for st in STAGES}
        out.append(row)
    return out


def _sum_stat(cma, key):
    """KEY summed over the CMA areas of one boot; None when an area has no stats."""
    if not cma or any(a["stats"] is None for a in cma):
        return None
    return sum(a["stats"][key] for a in cma)


def _boot_figures(b, best_kb):
    """Every counted or timed figure of one boot (None: not known in it)."""
    f = b.facts
    lm, al, cma, load = _linear_map(b), _alias(b), _cma(b), f["load"]
    lost = best_kb - f["memtotal_kb"]
    return {
        "memtotal_kb": f["memtotal_kb"],
        "memory_lost_kb": lost,
        "nomap_kb": f["nomap_kb"],
        # What MemTotal lost beyond the carved-out memory: on arm the page
        # tables that map split sections (allocated at boot, so out of MemTotal).
        "page_table_kb": None if f["nomap_kb"] is None else lost - f["nomap_kb"],
        "splits": lm["splits"] if lm["available"] else None,
        "alias_conflicts": al["count"] if al["available"] else None,
        "alias_pages": al["pages"] if al["available"] else None,
        "dma_remap_failures": f["dma_remap_failures"],
        "pages_migrated": _sum_stat(cma, "pages_migrated"),
        "cma_requests": _sum_stat(cma, "requests"),
        "cma_failures": _sum_stat(cma, "failures"),
        "alloc_rounds": None if load is None else load["rounds"],
        "alloc_ok": None if load is None else load["ok"],
        "alloc_failed": None if load is None else load["failed"],
        "p50_ns": None if load is None else load["p50_ns"],
        "p90_ns": None if load is None else load["p90_ns"],
        "max_ns": None if load is None else load["max_ns"],
    }


# ---------------------------------------------------------------- over boots

def spread(values):
    """Median and range of one figure over a strategy's boots; None when a
    boot does not know it (a figure is never made up from fewer boots
    than the strategy has without saying so: it is unknown)."""
    if not values or any(v is None for v in values):
        return None
    return {"values": list(values), "median": statistics.median(values),
            "min": min(values), "max": max(values), "boots": len(values)}


def separated(better, worse, min_boots):
    """True when BETTER's spread lies wholly below WORSE's (lower is better)
    and each has at least MIN_BOOTS boots."""
    if better is None or worse is None:
        return False
    if better["boots"] < min_boots or worse["boots"] < min_boots:
        return False
    return better["max"] < worse["min"]


def rank(figures, min_boots):
    """{name: (class, beaten_by)} for FIGURES ({name: spread or None}, lower
    is better): "worse" when another's spread lies wholly below it, "best"
    when it lies wholly below another's and none below it, "even" when no
    spread separates it from the others, "unknown" without a figure."""
    out = {}
    for name, sp in figures.items():
        beaten_by = [o for o, other in figures.items() if o != name and separated(other, sp, min_boots)]
        beats = any(o != name and separated(sp, other, min_boots) for o, other in figures.items())
        cls = "unknown" if sp is None else "worse" if beaten_by else "best" if beats else "even"
        out[name] = (cls, beaten_by)
    return out


def kib(kb):
    if kb is None:
        return UNKNOWN
    if kb < 0:
        return "-" + kib(-kb)
    if isinstance(kb, float) and kb.is_integer():
        kb = int(kb)
    if kb >= 1024 and kb % 1024 == 0:
        return f"{kb // 1024} MiB"
    if kb >= 1024:
        return f"{kb / 1024:.1f} MiB"
    return f"{kb:g} KiB"


def _ms(ns):
    return f"{ns / 1e6:.2f} ms"


def _count(v):
    return f"{v:g}"


def format_spread(sp, fmt, one_boot_note=True):
    """'MEDIAN (MIN-MAX, N boots)', 'V (same in N boots)' or 'V (one boot, no spread)'."""
    if sp is None:
        return UNKNOWN
    if sp["boots"] == 1:
        return f"{fmt(sp['median'])}" + (" (one boot, no spread)" if one_boot_note else "")
    if sp["min"] == sp["max"]:
        return f"{fmt(sp['median'])} (same in {sp['boots']} boots)"
    return f"{fmt(sp['median'])} ({fmt(sp['min'])} to {fmt(sp['max'])}, {sp['boots']} boots)"


def _common(values):
    vals = list(dict.fromkeys(values))
    return vals[0] if len(vals) == 1 else None


# ---------------------------------------------------------------- conditions

def _device_area(st):
    """The CMA area the workload's allocations went to (most requests), or None."""
    areas = [a for a in st["cma"] if a["stats"] is not None and a["stats"]["requests"]]
    return max(areas, key=lambda a: a["stats"]["requests"]) if areas else None


def _condition(st, arm64):
    """When the strategy applies at all: {requirement, applies (True, False,
    or None when these boots cannot tell), unsafe, here: what this board showed}."""
    name, mem = st["name"], st["memory"]
    high = mem["hightotal_kb"]
    if name == "d-sections":
        conflicts = format_spread(st["figures"]["alias_conflicts"], _count, one_boot_note=False)
        return {"requirement": "unsafe: never ship (undefined behaviour: buffers mapped "
                               "uncached while the linear map keeps them cacheable)",
                "applies": False, "unsafe": True,
                "here": f"{conflicts} alias conflicts with one buffer allocated"}
    if name == "b-highmem":
        area = _device_area(st)
        where = "" if area is None or area["size_bytes"] is None or st["page_size"] is None else \
            (f"; its pool here is {area['name']} at PA {area['base_pfn'] * st['page_size']:#x}-"
             f"{area['base_pfn'] * st['page_size'] + area['size_bytes'] - 1:#x}")
        applies = None if high is None else high > 0
        return {"requirement": "HIGHMEM present (32-bit, more RAM than lowmem) and a device that "
                               "can address highmem (its DMA mask reaches the pool)",
                "applies": applies, "unsafe": False,
                "here": ("HighTotal unknown" if high is None else f"HighTotal {kib(high)}") + where}
    if name in ("c-carveout", "carveout"):
        return {"requirement": "a dedicated pool: the carve-out is lost to the system for good, "
                               "worth it only for a device that needs its memory at any moment",
                "applies": True, "unsafe": False,
                "here": f"{kib(mem['nomap_kb'])} carved out ({mem['nomap_regions']})"}
    if name == "a-split":
        return {"requirement": "any 32-bit ARM board with CMA in lowmem (mainline's behaviour)",
                "applies": True, "unsafe": False,
                "here": f"LowTotal {kib(mem['lowtotal_kb'])}"}
    if name == "rodata-on":
        return {"requirement": "any arm64 board: CMA, the linear map in blocks",
                "applies": True, "unsafe": False, "here": "arm64" if arm64 else st["machine"]}
    if name == "rodata-full":
        return {"requirement": "any arm64 board (rodata=full: every linear-map page "
                               "individually protected)",
                "applies": True, "unsafe": False, "here": "arm64" if arm64 else st["machine"]}
    return {"requirement": "unknown strategy: no condition known", "applies": None, "unsafe": False,
            "here": st["description"]}


# ---------------------------------------------------------------- expectations

def _per_boot(st, key):
    """KEY in every boot of the strategy, or None when a boot does not know it."""
    vals = st["per_boot"][key]
    return None if any(v is None for v in vals) else vals


def _splits(st):
    return _per_boot(st, "splits")


def _conflicts(st):
    return _per_boot(st, "alias_conflicts")


def _ok(st):
    return _per_boot(st, "alloc_ok")


def _cma_memtotal(summary):
    """The most MemTotal any boot of a CMA strategy left (those that carve nothing out)."""
    vals = [v for s in summary["strategies"] if not s["memory"]["nomap_kb"]
            for v in s["per_boot"]["memtotal_kb"]]
    return max(vals) if vals else None


def _less_than_cma(st, summary):
    best = _cma_memtotal(summary)
    return None if best is None else [best - v for v in st["per_boot"]["memtotal_kb"]]


# name -> [(what must hold in every boot, getter, predicate[, why None])]:
# the article's four arm strategies, and arm64's.  getter(strategy, summary)
# -> the per-boot values, or None: not available (or the optional reason).
NO_CMA_STRATEGY = "no CMA strategy in this comparison to compare with"
EXPECTATIONS = {
    "a-split": [("linear-map splits > 0", lambda s, _: _splits(s), lambda v: v > 0),
                ("alias conflicts == 0", lambda s, _: _conflicts(s), lambda v: v == 0)],
    "b-highmem": [("linear-map splits == 0", lambda s, _: _splits(s), lambda v: v == 0),
                  ("alias conflicts == 0", lambda s, _: _conflicts(s), lambda v: v == 0)],
    "c-carveout": [("KiB of MemTotal less than any CMA strategy left > 0", _less_than_cma,
                    lambda v: v > 0, NO_CMA_STRATEGY),
                   ("linear-map splits == 0", lambda s, _: _splits(s), lambda v: v == 0)],
    "d-sections": [("linear-map splits == 0", lambda s, _: _splits(s), lambda v: v == 0),
                   ("allocations succeeded > 0", lambda s, _: _ok(s), lambda v: v > 0),
                   ("alias conflicts > 0 after an allocation", lambda s, _: _conflicts(s),
                    lambda v: v > 0)],
    # arm64 keeps a cacheable linear alias of every CMA buffer in both (no
    # expectation on conflicts); what differs is the linear map's entry size.
    "rodata-on": [("linear-map splits == 0", lambda s, _: _splits(s), lambda v: v == 0)],
    "rodata-full": [("linear-map splits > 0 (mapped in pages)", lambda s, _: _splits(s),
                     lambda v: v > 0)],
    "carveout": [("KiB of MemTotal less than any CMA strategy left > 0", _less_than_cma,
                  lambda v: v > 0, NO_CMA_STRATEGY),
                 ("linear-map splits == 0", lambda s, _: _splits(s), lambda v: v == 0)],
}
# Every strategy: the workload ran and no allocation failed.
COMMON = [("failed allocations == 0 (the workload ran)",
           lambda s, _: _per_boot(s, "alloc_failed"), lambda v: v == 0)]


def _shown(values):
    """One value when every boot agrees, else each boot's."""
    if values is None:
        return None
    return values[0] if len(set(values)) == 1 else ", ".join(map(str, values)) + " (per boot)"


def check(summary):
    results = []
    kernels = {k for s in summary["strategies"] for k in s["kernels"]}
    results.append({"strategy": "all", "expect": "one kernel (/proc/version) in every boot",
                    "value": len(kernels), "ok": len(kernels) == 1})
    for st in summary["strategies"]:
        for what, get, pred, *why in EXPECTATIONS.get(st["name"], []) + COMMON:
            vals = get(st, summary)
            results.append({"strategy": st["name"], "expect": what, "value": _shown(vals),
                            "ok": vals is not None and all(pred(v) for v in vals),
                            "missing": (why or ["not available"])[0]})
    return results


def check_messages(summary):
    msgs = []
    for c in summary["checks"]:
        if c["ok"]:
            continue
        got = c.get("missing", "not available") if c["value"] is None else c["value"]
        if c["strategy"] == "all":
            msgs.append(f"expected {c['expect']}, got {got} different ones")
        else:
            msgs.append(f"{c['strategy']}: expected {c['expect']}, got {got}")
    return msgs


# ---------------------------------------------------------------- TLB

HOW_TO_MEASURE_TLB = ("measure it on the board: boot the same kernel without and with the split "
                      "(linear_map_split=64M@PHYS), run perf-scripts/tlb-ab.sh run nosplit|split in "
                      "each, then make tlb-report RESULTS=DIR/walk and make compare TLB=DIR/walk "
                      "(README: Measuring the TLB cost on your board)")


def load_tlb(path, strategies):
    """The TLB A/B result (abstats document) of PATH, refused unless every
    variant was measured on this comparison's kernel and machine."""
    from .__main__ import load_tlb as read_abstats

    doc = read_abstats(path)
    kernels = sorted({k for st in strategies for k in st["kernels"]})
    machines = sorted({st["machine"] for st in strategies})
    for v in doc["variants"]:
        for key, ours in (("kernel", kernels), ("machine", machines)):
            theirs = v.get(key) or [UNKNOWN]
            if len(ours) != 1 or theirs != ours:
                raise InputError(
                    f"{path}: TLB result of another {'kernel' if key == 'kernel' else 'board'}: "
                    f"variant {v['name']} ran on {key} {' | '.join(theirs)!r}, this comparison on "
                    f"{' | '.join(ours)!r} (a TLB cost holds for the kernel and board it was "
                    "measured on)")
    return doc


def tlb_result(doc, path):
    """What the split costs in TLB walks or refills: the comparison against
    the baseline at the largest working set, or why there is no number."""
    metric = doc["tlb_metric"]
    comps = [c for c in doc["comparisons"] if c["baseline"] == doc["baseline"]
             and metric in c["metrics"]]
    out = {"source": path, "baseline": doc["baseline"], "metric": metric,
           "boots": {v["name"]: len(v["boots"]) for v in doc["variants"]}}
    if not comps:
        out.update(status="not measured", reason=f"the A/B result has no {metric}")
        return out
    ok = [c for c in comps if c["metrics"][metric]["status"] == "ok"]
    if not ok:
        last = comps[-1]["metrics"]
        # The TLB events themselves may be what failed (QEMU counts none):
        # say that rather than the derived metric's reason.
        events = [e for e, m in last.items() if "tlb" in e.lower() and e != metric
                  and m["status"] == "not supported"]
        if events:
            out.update(status="not supported", reason=", ".join(events) + ": " + last[events[0]]["reason"])
        else:
            m = last[metric]
            out.update(status=m["status"], reason=m.get("reason", ""))
        out["variant"] = comps[-1]["variant"]
        return out
    c = max(ok, key=lambda c: c["working_set_bytes"] or 0)
    m = c["metrics"][metric]
    out.update(status="measured", variant=c["variant"], working_set_bytes=c["working_set_bytes"],
               rel_diff=m["rel_diff"], ci95=m["ci95"], median=m["median"],
               median_baseline=m["median_baseline"], note=m.get("insufficient") and
               f"insufficient: {m['insufficient']}")
    return out


def _tlb_cell(st, tlb):
    """TLB cost of one strategy: (class, text, value for scoring or None)."""
    sp = st["figures"]["splits"]
    if sp is not None and sp["max"] == 0:
        return "none", "no linear-map entry split: no TLB cost from splitting", 0.0
    if tlb is None:
        return "unknown", f"{st['tlb']['status']} ({st['tlb']['reason']}); {HOW_TO_MEASURE_TLB}", None
    if tlb["status"] != "measured":
        return "unknown", (f"{tlb['status']} in the TLB A/B ({tlb['reason']}); "
                           f"{tlb['source']}"), None
    from .abstats import fmt_bytes, fmt_pct, metric_words

    ws = "" if tlb["working_set_bytes"] is None else f" walking {fmt_bytes(tlb['working_set_bytes'])}"
    boots = ", ".join(f"{k} {n}" for k, n in tlb["boots"].items())
    what = metric_words(tlb["metric"])
    if tlb["ci95"] is None:
        return "unknown", (f"{fmt_pct(tlb['rel_diff'])} {what} per 1k instructions{ws} "
                           f"({tlb['variant']} vs {tlb['baseline']}; no interval: "
                           f"{tlb.get('note') or 'one run'})"), None
    lo, hi = tlb["ci95"]
    text = (f"{fmt_pct(tlb['rel_diff'])} {what} per 1k instructions [{fmt_pct(lo)}, {fmt_pct(hi)}] "
            f"(95% interval){ws}, {tlb['variant']} vs {tlb['baseline']}, boots: {boots}")
    if lo > 0:
        return "worse", text, tlb["rel_diff"] * 100
    if hi < 0:
        return "even", text + f"; fewer {what.split()[-1]} with the split: no cost", 0.0
    return "even", text + "; the interval includes no cost apart from noise", 0.0


# ---------------------------------------------------------------- the decision

# id: (label, figure, unit and scale for the weights, formatter, needs boots to rank)
# Rows ranked on a figure that varies from boot to boot need two boots per
# strategy; those the configuration fixes (memory, splits, aliases) rank on one.
ROWS = [
    ("memory", "memory lost to the system (MemTotal below the best)", "memory_lost_kb",
     ("MiB", 1 / 1024), kib, 1),
    ("page-tables", "page-table memory (MemTotal lost beyond any carve-out)", "page_table_kb",
     ("MiB", 1 / 1024), kib, 1),
    ("splits", "linear-map entries split", "splits", ("entry", 1), _count, 1),
    ("alias", "alias hazards (conflicts with one buffer allocated)", "alias_conflicts",
     ("conflict", 1), _count, 1),
    ("migrated", "pages migrated out of CMA", "pages_migrated", ("page", 1), _count, 2),
    ("failures", "allocation failures", "alloc_failed", ("failed allocation", 1), _count, 2),
    ("latency", "allocation latency, p50", "p50_ns", ("ms of p50", 1e-6), _ms, 2),
    ("tlb", "TLB cost of the split", None, ("% more TLB walks", 1), None, None),
]
ROW_IDS = [r[0] for r in ROWS]
DEFAULT_WEIGHTS = {"memory": 1.0, "page-tables": 1.0, "splits": 0.01, "alias": 10.0,
                   "migrated": 0.001, "failures": 10.0, "latency": 1.0, "tlb": 0.1}


def parse_weights(text):
    """'ROW=W,...' over the defaults; an unknown row or a bad number is a usage error."""
    weights = dict(DEFAULT_WEIGHTS)
    if not text:
        return weights
    for item in text.split(","):
        key, sep, value = item.strip().partition("=")
        if not sep or key not in weights:
            raise UsageError(f"--weights: expected ROW=NUMBER with ROW one of {', '.join(ROW_IDS)}, "
                             f"got {item!r}")
        try:
            w = float(value)
        except ValueError:
            raise UsageError(f"--weights: {key}: not a number: {value!r}") from None
        if not w >= 0 or w == float("inf"):
            raise UsageError(f"--weights: {key}: expected a finite number >= 0, got {value!r}")
        weights[key] = w
    return weights


def _decision_row(row, sts, tlb, weights):
    rid, label, key, (unit, scale), fmt, min_boots = row
    cells = {}
    if rid == "tlb":
        for st in sts:
            cls, text, value = _tlb_cell(st, tlb)
            points = 0.0 if not value else weights[rid] * value
            cells[st["name"]] = {"class": cls, "text": text, "points": points, "beaten_by": [],
                                 "ranked": value is not None}
        return {"id": rid, "label": label, "unit": unit, "weight": weights[rid], "cells": cells}
    ranks = rank({st["name"]: st["figures"][key] for st in sts}, min_boots)
    for st in sts:
        sp = st["figures"][key]
        cls, beaten_by = ranks[st["name"]]
        points = 0.0
        if cls == "worse":
            best = min(o["figures"][key]["median"] for o in sts if o["name"] in beaten_by)
            points = weights[rid] * (sp["median"] - best) * scale
        text = format_spread(sp, fmt)
        ranked = sp is not None and sp["boots"] >= min_boots
        if sp is not None and not ranked:
            text += "; not ranked"
        cells[st["name"]] = {"class": cls, "text": text, "points": points, "beaten_by": beaten_by,
                             "ranked": ranked}
    return {"id": rid, "label": label, "unit": unit, "weight": weights[rid], "cells": cells}


def _points(p):
    return f"{p:.3g}"


def decide(summary, tlb, weights):
    """The decision table (one row per cost) and the answer, from the rankings."""
    sts = summary["strategies"]
    rows = [_decision_row(r, sts, tlb, weights) for r in ROWS]
    scores, why, excluded, unknown, unranked = {}, {}, [], {}, {}
    for st in sts:
        cond = st["condition"]
        if cond["unsafe"]:
            excluded.append(f"{st['name']} is left out: {cond['requirement']}")
            continue
        if cond["applies"] is False:
            excluded.append(f"{st['name']} is left out: it needs {cond['requirement']}; "
                            f"here {cond['here']}")
            continue
        scores[st["name"]] = sum(r["cells"][st["name"]]["points"] for r in rows)
        why[st["name"]] = [f"{_points(r['cells'][st['name']]['points'])} for {r['id']}"
                           for r in rows if r["cells"][st["name"]]["points"]]
        unknown[st["name"]] = [r["id"] for r in rows if r["cells"][st["name"]]["class"] == "unknown"]
        unranked[st["name"]] = [r["id"] for r in rows if r["cells"][st["name"]]["class"] != "unknown"
                                and not r["cells"][st["name"]]["ranked"]]
    answer = {"scores": scores, "excluded": excluded, "weights": weights, "choice": [],
              "text": ""}
    if not scores:
        answer["text"] = ("No strategy in this comparison applies safely here: "
                          + "; ".join(excluded) + ".")
        return rows, answer
    low = min(scores.values())
    choice = [n for n, v in scores.items() if v == low]
    answer["choice"] = choice
    machine = summary["machine"] or "these boots"
    if len(choice) == 1:
        lead = f"On this board ({machine}), {choice[0]} costs least with these weights"
    else:
        lead = f"On this board ({machine}), {' and '.join(choice)} cost the same with these weights"
    parts = [f"{lead} ({_points(low)} points)."]
    for name in sorted(scores, key=lambda n: (scores[n], n)):
        detail = ", ".join(why[name]) or "beaten on no cost"
        parts.append(f"{name}: {_points(scores[name])} ({detail}).")
    parts += [e + "." for e in excluded]
    for name in [n for n in scores if unknown[n]]:
        parts.append(f"Not known for {name}: {', '.join(unknown[name])}; it may change the answer.")
    for name in [n for n in scores if unranked[n]]:
        parts.append(f"Not ranked for {name} (one boot, no spread): {', '.join(unranked[name])}; "
                     "more boots may change the answer.")
    cond_notes = [st for st in sts if st["name"] in choice and st["condition"]["applies"] is None]
    for st in cond_notes:
        parts.append(f"{st['name']} holds only if {st['condition']['requirement']}.")
    for st in sts:
        if st["name"] in choice and st["name"] == "b-highmem":
            parts.append(f"{st['name']} holds only if the device can address its pool "
                         f"({st['condition']['here']}).")
    parts.append("A cost counts only where the strategy's spread lies wholly above another's "
                 "(points = weight x distance from the best that beats it); weights: "
                 + ", ".join(f"{k} {_points(w)} per {dict((r[0], r[3][0]) for r in ROWS)[k]}"
                             for k, w in weights.items()) + " (--weights ROW=W,...).")
    answer["text"] = " ".join(parts)
    return rows, answer


# ---------------------------------------------------------------- summary

def summarise(strategies, tlb_path=None, weights=None):
    weights = weights or dict(DEFAULT_WEIGHTS)
    best = max(b.facts["memtotal_kb"] for s in strategies for b in s.boots)
    out = []
    for s in strategies:
        first = s.boots[0]
        f = first.facts
        timing = f.get("timing") or UNKNOWN
        per_boot_figs = [_boot_figures(b, best) for b in s.boots]
        per_boot = {k: [fig[k] for fig in per_boot_figs] for k in per_boot_figs[0]}
        figures = {k: spread(v) for k, v in per_boot.items()}
        st = {
            "name": s.name,
            "directory": os.path.basename(os.path.normpath(s.dir)),
            "boots": [os.path.relpath(b.dir, s.dir) for b in s.boots],
            "description": f.get("description") or UNKNOWN,
            "machine": f.get("machine") or first.after.machine or UNKNOWN,
            "kernel": first.after.kernel or f.get("kernel") or UNKNOWN,
            "kernels": sorted({b.after.kernel or b.facts.get("kernel") or UNKNOWN for b in s.boots}),
            "cmdline": f.get("cmdline") or first.after.cmdline or UNKNOWN,
            "dts": f.get("dts") or UNKNOWN,
            "boot": f.get("boot") or UNKNOWN,
            "page_size": first.after.page_size,
            # Details (layout, conflict list, per-area counters) of the first
            # boot; the figures over every boot are in figures and per_boot.
            "memory": _memory(first, best),
            "linear_map": _linear_map(first),
            "alias": _alias(first),
            "cma": _cma(first),
            "cma_per_boot": [_cma(b) for b in s.boots],
            "load": None if f["load"] is None else dict(
                f["load"], size_bytes=f["alloc_size_bytes"], kept=f["alloc_kept"],
                fill_mib=f["fill_mib"]),
            "timing": timing,
            "timing_note": TIMING.get(timing, "the guest's CLOCK_MONOTONIC (how it ran: unknown)"),
            "tlb": {"status": f["tlb"],
                    "reason": f.get("tlb_reason") or "make compare counts no TLB events"},
            "per_boot": per_boot,
            "figures": figures,
        }
        out.append(st)
    arm64 = all(st["machine"].startswith("aarch64") for st in out)
    for st in out:
        st["condition"] = _condition(st, arm64)
    known = [n for n in KNOWN_ORDER if n in ARCH_STRATEGIES["arm64" if arm64 else "arm"]]
    summary = {
        "schema": SCHEMA,
        "version": VERSION,
        "machine": _common(st["machine"] for st in out),
        "kernel": _common(k for st in out for k in st["kernels"]),
        "timing": _common(st["timing"] for st in out),
        "method": "make compare (scripts/compare.sh): each strategy booted several times, changing "
                  "only the command line and device tree; tests/qemu/compare.sh in each boot: "
                  "page-cache pressure, coherent alloc/free rounds through the dma-cma-test device, "
                  "one buffer kept; cmadebug snapshots before and after (snapshot-v1), facts.txt. "
                  "Figures are medians over a strategy's boots with their range",
        "strategies": out,
        "not_compared": [n for n in known if n not in {st["name"] for st in out}],
    }
    summary["checks"] = check(summary)
    tlb = None
    if tlb_path is not None:
        tlb = tlb_result(load_tlb(tlb_path, out), tlb_path)
    summary["tlb"] = tlb
    rows, answer = decide(summary, tlb, weights)
    summary["decision"] = rows
    summary["answer"] = answer
    return summary


# ---------------------------------------------------------------- text

def format_text(summary):
    sts = summary["strategies"]
    out = [f"cmadebug compare: {len(sts)} strategies, "
           + ", ".join(f"{st['name']} {len(st['boots'])} boot{'s' if len(st['boots']) > 1 else ''}"
                       for st in sts)]
    out.append(f"   machine: {summary['machine'] or 'differs per strategy'}")
    out.append(f"   kernel:  {summary['kernel'] or 'differs per boot'}")
    out.append(f"   timing:  {summary['timing'] or 'differs per strategy'}")
    if summary["not_compared"]:
        out.append(f"   not compared (no results): {', '.join(summary['not_compared'])}")
    out.append("== decision (medians over boots, with the range of the boots)")
    for st in sts:
        c = st["condition"]
        out.append(f"   {st['name']}: {'' if c['unsafe'] else 'applies when '}{c['requirement']}; "
                   f"here: {c['here']}")
    out += cell_lines(summary["decision"], [st["name"] for st in sts])
    out.append("== answer")
    out.append("   " + summary["answer"]["text"])
    out.append("== expectations")
    for c in summary["checks"]:
        got = c.get("missing", "not available") if c["value"] is None else c["value"]
        out.append(f"   {'ok  ' if c['ok'] else 'FAIL'} {c['strategy']}: {c['expect']} (got {got})")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- command line

def parser():
    p = ArgumentParser(prog="python3 -m cmadebug_report compare",
                       description="Compare make compare's strategies side by side: one "
                                   "self-contained HTML file and a text summary.")
    p.add_argument("dirs", nargs="+", metavar="DIR",
                   help="a strategy directory (facts.txt, before.json, after.json) or a directory of them")
    p.add_argument("-o", "--output", metavar="REPORT.html", help="write the HTML report here")
    p.add_argument("--summary-json", metavar="FILE", help="write the summary as JSON ('-': stdout)")
    p.add_argument("--check", action="store_true",
                   help="fail (exit 3) when a strategy does not show what must differ")
    p.add_argument("--tlb", metavar="FILE|DIR",
                   help="the TLB A/B result of this board and kernel: abstats JSON (make tlb-report) "
                        "or a results directory")
    p.add_argument("--weights", metavar="ROW=W,...",
                   help="points per unit of each cost for the answer (rows: " + ", ".join(ROW_IDS)
                        + "; defaults " + ",".join(f"{k}={v:g}" for k, v in DEFAULT_WEIGHTS.items()) + ")")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print the text summary")
    return p


def main(argv):
    from .__main__ import emit_summary, write_atomically

    args = parser().parse_args(argv)
    weights = parse_weights(args.weights)
    summary = summarise(load(args.dirs), args.tlb, weights)
    summary_text = format_text(summary)
    if args.output:
        from .comparehtml import render

        write_atomically(args.output, render(summary, summary_text))
    emit_summary(summary, summary_text, args.summary_json, args.quiet)
    if args.check:
        msgs = check_messages(summary)
        for m in msgs:
            print(f"cmadebug-report: compare check failed: {m}", file=sys.stderr)
        if msgs:
            return EXIT_CHECK
    return 0


if __name__ == "__main__":
    sys.exit(run_main("cmadebug-report", main, sys.argv[1:]))
