"""python3 -m cmadebug_report compare DIR... [-o REPORT.html] [--summary-json FILE] [--check]

The strategy comparison of 'make compare': one directory per strategy (what
scripts/compare.sh leaves in build/compare/ARCH/STRATEGY/: facts.txt and the
cmadebug snapshots before.json and after.json), read side by side.  DIR is a
strategy directory or a directory of them.

facts.txt is KEY=VALUE, one a line, written by tests/qemu/compare.sh in the
guest (and on a board) with the host's facts appended by scripts/compare.sh;
reports/README.md lists the keys.  A value "unknown", or a key that is not
there, is shown as unknown, never as zero.

--check asserts what must differ between the article's strategies (see
EXPECTATIONS): each failed expectation is one line on stderr, exit 3.
"""
import os
import sys

from . import ArgumentParser, InputError, UNKNOWN, run_main
from . import snapshot
from .snapshot import STAGES

SCHEMA = "cmadebug-compare-summary"
VERSION = 1
EXIT_CHECK = 3

FACTS_INT = ("memtotal_kb", "memavailable_kb", "cmatotal_kb", "lowtotal_kb", "hightotal_kb",
             "nomap_kb", "fill_mib", "alloc_size_bytes", "alloc_rounds", "alloc_kept", "splits",
             "conflicts", "dma_remap_failures")
FACTS_REQUIRED = ("strategy", "memtotal_kb", "load")
LOAD_KEYS = ("rounds", "ok", "failed", "p50_ns", "p90_ns", "max_ns")
# The order strategies are shown in when they are there; others follow by name.
KNOWN_ORDER = ["a-split", "b-highmem", "c-carveout", "d-sections", "rodata-on", "rodata-full",
               "carveout"]
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


def find_strategies(paths):
    """Strategy directories (those holding facts.txt) under PATHS."""
    found = []
    for p in paths:
        if not os.path.isdir(p):
            raise InputError(f"{p}: " + ("not a directory" if os.path.exists(p) else
                                         "No such directory"))
        if os.path.isfile(os.path.join(p, "facts.txt")):
            found.append(p)
            continue
        subs = sorted(os.path.join(p, d) for d in os.listdir(p)
                      if os.path.isfile(os.path.join(p, d, "facts.txt")))
        if not subs:
            raise InputError(f"{p}: no strategy results (no facts.txt in it or its "
                             "subdirectories: run 'make compare')")
        found += subs
    return found


class Strategy:
    def __init__(self, directory):
        self.dir = directory
        self.facts = read_facts(os.path.join(directory, "facts.txt"))
        self.before = snapshot.load(os.path.join(directory, "before.json"))
        self.after = snapshot.load(os.path.join(directory, "after.json"))
        self.name = self.facts["strategy"]


def load(paths):
    strategies = [Strategy(d) for d in find_strategies(paths)]
    seen = {}
    for s in strategies:
        if s.name in seen:
            raise InputError(f"{s.dir}: strategy {s.name} also in {seen[s.name]}")
        seen[s.name] = s.dir
    rank = {n: i for i, n in enumerate(KNOWN_ORDER)}
    return sorted(strategies, key=lambda s: (rank.get(s.name, len(rank)), s.name))


# ---------------------------------------------------------------- summary

def _memory(s, best_kb):
    f = s.facts
    snap_cma = sum(a.count_pages for a in s.after.areas) * s.after.page_size // 1024 \
        if s.after.page_size else None
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


def _linear_map(s):
    lm = s.after.linear_map
    out = {"available": lm.mapped is not None}
    if lm.mapped is None:
        out["reason"] = lm.reason_layout
        return out
    out["source"] = lm.source
    out["mapped"] = [{"level": lvl, "size_bytes": size, "bytes": b} for lvl, size, b in lm.mapped]
    out["mapped_bytes"] = sum(b for _, _, b in lm.mapped)
    sized = [(size, b) for _, size, b in lm.mapped if size is not None]
    out["smallest_entry_bytes"] = sum(b for size, b in sized if size == min(z for z, _ in sized)) \
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
        [{"cause": c, "changes": n, "failures": fl, "bytes": b} for c, n, fl, b in lm.attr_changes]
    return out


def _alias(s):
    lm = s.after.linear_map
    if lm.conflicts is None:
        return {"available": False, "reason": lm.reason_alias}
    return {"available": True, "count": len(lm.conflicts), "pages": lm.alias_pages,
            "unlisted_pages": lm.unlisted_pages, "incomplete": lm.incomplete,
            "conflicts": lm.conflicts}


def _cma(s):
    """Per area: the stats counters' change over the workload (after - before)."""
    out = []
    for a in s.after.areas:
        b = s.before.area(a.name)
        row = {"name": a.name, "base_pfn": a.base_pfn, "count_pages": a.count_pages,
               "size_bytes": None if s.after.page_size is None else a.count_pages * s.after.page_size,
               "used_pages_after": a.used_pages}
        if a.stats is None:
            row["stats"] = None
        else:
            before = (b.stats if b is not None else None) or {}
            delta = {k: v - before.get(k, 0) for k, v in a.stats.items() if k != "last_failure_ns"}
            row["stats"] = {k: delta.get(k) for k in ("requests", "successes", "failures", "retries",
                                                      "pages_migrated")}
            row["failed_by_stage"] = {st: delta.get("failed_" + st.replace("-", "_"), 0)
                                      for st in STAGES}
        out.append(row)
    return out


def _costs(st):
    """What the strategy cost in this run, in words, from the numbers alone."""
    costs = []
    mem, lm, al, load = st["memory"], st["linear_map"], st["alias"], st["load"]
    if mem["less_than_best_kb"] > 0:
        costs.append(f"{kib(mem['less_than_best_kb'])} less memory (MemTotal) than the best strategy here"
                     + (f"; {kib(mem['nomap_kb'])} carved out ({mem['nomap_regions']}), "
                        "usable by its device only" if mem["nomap_kb"] else ""))
    if lm["available"] and lm["splits"]:
        costs.append(f"{lm['splits']} linear-map splits: {kib(lm['smallest_entry_bytes'] // 1024)} "
                     "mapped with the smallest entries (TLB cost not counted here)")
    if al["available"] and al["count"]:
        # arm64 maps CMA buffers non-cacheable in vmalloc over a cacheable
        # linear map by design (ARMv8 constrains mismatched attributes); on
        # 32-bit ARM (v6 and later) such an alias is the article's undefined behaviour.
        why = ("mismatched attributes, which arm64 accepts with cache maintenance"
               if st["machine"].startswith("aarch64") else "undefined behaviour")
        costs.append(f"{al['count']} alias conflicts over {al['pages']} pages: memory mapped "
                     f"cacheable and non-cacheable at once ({why})")
    if load is None:
        costs.append("the allocation workload did not run")
    elif load["failed"]:
        costs.append(f"{load['failed']} of {load['rounds']} allocations failed")
    if not lm["available"] or not al["available"]:
        costs.append("linear map or alias check not available: cost unknown")
    return costs or ["none seen in this run"]


def kib(kb):
    if kb is None:
        return UNKNOWN
    if kb >= 1024 and kb % 1024 == 0:
        return f"{kb // 1024} MiB"
    if kb >= 1024:
        return f"{kb / 1024:.1f} MiB"
    return f"{kb} KiB"


def _common(values):
    vals = list(dict.fromkeys(values))
    return vals[0] if len(vals) == 1 else None


def summarise(strategies):
    best = max(s.facts["memtotal_kb"] for s in strategies)
    out = []
    for s in strategies:
        f = s.facts
        timing = f.get("timing") or UNKNOWN
        st = {
            "name": s.name,
            "directory": os.path.basename(os.path.normpath(s.dir)),
            "description": f.get("description") or UNKNOWN,
            "machine": f.get("machine") or s.after.machine or UNKNOWN,
            "kernel": s.after.kernel or f.get("kernel") or UNKNOWN,
            "cmdline": f.get("cmdline") or s.after.cmdline or UNKNOWN,
            "dts": f.get("dts") or UNKNOWN,
            "boot": f.get("boot") or UNKNOWN,
            "memory": _memory(s, best),
            "linear_map": _linear_map(s),
            "alias": _alias(s),
            "load": None if f["load"] is None else dict(
                f["load"], size_bytes=f["alloc_size_bytes"], kept=f["alloc_kept"],
                fill_mib=f["fill_mib"]),
            "timing": timing,
            "timing_note": TIMING.get(timing, "the guest's CLOCK_MONOTONIC (how it ran: unknown)"),
            "cma": _cma(s),
            "tlb": {"status": f["tlb"],
                    "reason": f.get("tlb_reason") or "make compare counts no TLB events"},
        }
        st["costs"] = _costs(st)
        out.append(st)
    summary = {
        "schema": SCHEMA,
        "version": VERSION,
        "machine": _common(st["machine"] for st in out),
        "kernel": _common(st["kernel"] for st in out),
        "method": "make compare (scripts/compare.sh): one boot per strategy, changing only the "
                  "command line and device tree; tests/qemu/compare.sh in each: page-cache "
                  "pressure, coherent alloc/free rounds through the dma-cma-test device, one "
                  "buffer kept; cmadebug snapshots before and after (snapshot-v1), facts.txt",
        "strategies": out,
    }
    summary["checks"] = check(summary)
    return summary


# ---------------------------------------------------------------- expectations

def _splits(st):
    return st["linear_map"]["splits"] if st["linear_map"]["available"] else None


def _conflicts(st):
    return st["alias"]["count"] if st["alias"]["available"] else None


def _ok(st):
    return None if st["load"] is None else st["load"]["ok"]


def _memtotal(st):
    return st["memory"]["memtotal_kb"]


def _cma_memtotal(summary):
    """The most MemTotal any CMA strategy left (the ones that carve nothing out)."""
    vals = [_memtotal(s) for s in summary["strategies"] if not s["memory"]["nomap_kb"]]
    return max(vals) if vals else None


# name -> [(what must hold, getter, predicate[, why None])]: the article's
# four arm strategies, and arm64's.  getter(strategy, summary) -> number, or
# None: not available (or the optional reason).
NO_CMA_STRATEGY = "no CMA strategy in this comparison to compare with"
EXPECTATIONS = {
    "a-split": [("linear-map splits > 0", lambda s, _: _splits(s), lambda v: v > 0),
                ("alias conflicts == 0", lambda s, _: _conflicts(s), lambda v: v == 0)],
    "b-highmem": [("linear-map splits == 0", lambda s, _: _splits(s), lambda v: v == 0),
                  ("alias conflicts == 0", lambda s, _: _conflicts(s), lambda v: v == 0)],
    "c-carveout": [("KiB of MemTotal less than any CMA strategy left > 0",
                    lambda s, m: None if _cma_memtotal(m) is None else _cma_memtotal(m) - _memtotal(s),
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
    "carveout": [("KiB of MemTotal less than any CMA strategy left > 0",
                  lambda s, m: None if _cma_memtotal(m) is None else _cma_memtotal(m) - _memtotal(s),
                  lambda v: v > 0, NO_CMA_STRATEGY),
                 ("linear-map splits == 0", lambda s, _: _splits(s), lambda v: v == 0)],
}
# Every strategy: the workload ran and no allocation failed.
COMMON = [("failed allocations == 0 (the workload ran)",
           lambda s, _: None if s["load"] is None else s["load"]["failed"], lambda v: v == 0)]


def check(summary):
    results = []
    kernels = {s["kernel"] for s in summary["strategies"]}
    results.append({"strategy": "all", "expect": "one kernel (/proc/version) in every boot",
                    "value": len(kernels), "ok": len(kernels) == 1})
    for st in summary["strategies"]:
        for what, get, pred, *why in EXPECTATIONS.get(st["name"], []) + COMMON:
            v = get(st, summary)
            results.append({"strategy": st["name"], "expect": what, "value": v,
                            "ok": v is not None and bool(pred(v)),
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


# ---------------------------------------------------------------- text

def _ms(ns):
    return f"{ns / 1e6:.2f} ms"


def cost_table(summary):
    """(headers, rows) of the closing table; shared by the text and the HTML."""
    headers = ["strategy", "MemTotal (less than best)", "CMA (movable only)", "carve-out",
               "splits", "alias conflicts", "allocations ok", "p50 (virtual)", "TLB cost",
               "what it costs"]
    rows = []
    for st in summary["strategies"]:
        mem, load = st["memory"], st["load"]
        splits = _splits(st)
        conflicts = _conflicts(st)
        rows.append([
            st["name"],
            f"{kib(mem['memtotal_kb'])} (-{kib(mem['less_than_best_kb'])})",
            kib(mem["cma_kb"]),
            kib(mem["nomap_kb"]),
            "not available" if splits is None else str(splits),
            "not available" if conflicts is None else str(conflicts),
            "did not run" if load is None else f"{load['ok']}/{load['rounds']}",
            "-" if load is None else _ms(load["p50_ns"]),
            st["tlb"]["status"],
            "; ".join(st["costs"]),
        ])
    return headers, rows


def format_text(summary):
    out = [f"cmadebug compare: {len(summary['strategies'])} strategies"]
    out.append(f"   machine: {summary['machine'] or 'differs per strategy'}")
    out.append(f"   kernel:  {summary['kernel'] or 'differs per strategy'}")
    out.append(f"   method:  {summary['method']}")
    for st in summary["strategies"]:
        mem, lm, al, load = st["memory"], st["linear_map"], st["alias"], st["load"]
        out.append(f"== {st['name']}: {st['description']}")
        out.append(f"   cmdline: {st['cmdline']}")
        out.append(f"   device tree: {st['dts']}")
        out.append(f"   memory (/proc/meminfo at boot): MemTotal {kib(mem['memtotal_kb'])} "
                   f"({kib(mem['less_than_best_kb'])} less than the best), CmaTotal {kib(mem['cma_kb'])} "
                   f"(movable allocations only), no-map carve-out {kib(mem['nomap_kb'])} "
                   f"({mem['nomap_regions']}; device tree)")
        if lm["available"]:
            parts = [f"{m['level']} {kib(m['bytes'] // 1024)}" for m in lm["mapped"] if m["bytes"]]
            out.append(f"   linear map after (from {lm['source']}): " + (", ".join(parts) or "empty"))
            out.append("   linear-map splits: " + ("not available (ptdump)" if lm["splits"] is None else
                                                   f"{lm['splits']}" + (" (" + ", ".join(
                                                       f"{k} {v}" for k, v in lm["splits_by_cause"].items())
                                                       + ")" if lm["splits"] else "")))
        else:
            out.append(f"   linear map: {lm['reason']}")
        if al["available"]:
            out.append(f"   alias conflicts after: {al['count']} ({al['pages']} pages)")
        else:
            out.append(f"   alias conflicts: {al['reason']}")
        if load is None:
            out.append("   allocations: the workload printed no load line")
        else:
            out.append(f"   allocations ({load['rounds']} x {load['size_bytes']} bytes under "
                       f"{load['fill_mib']} MiB of page cache): {load['ok']} ok, {load['failed']} failed; "
                       f"p50 {_ms(load['p50_ns'])}, p90 {_ms(load['p90_ns'])}, max {_ms(load['max_ns'])} "
                       f"[{st['timing']}: {st['timing_note']}]")
        for a in st["cma"]:
            if a["stats"] is None:
                out.append(f"   CMA {a['name']}: stats not available (kernel lacks the CMA failure patches)")
            else:
                fails = ", ".join(f"{k} {v}" for k, v in a["failed_by_stage"].items() if v) or "none"
                out.append(f"   CMA {a['name']} over the workload: {a['stats']['requests']} requests, "
                           f"{a['stats']['failures']} failed, {a['stats']['pages_migrated']} pages migrated; "
                           f"failed attempts by stage: {fails}")
        out.append(f"   TLB cost: {st['tlb']['status']} ({st['tlb']['reason']})")
    out.append("== what each strategy costs on this board")
    headers, rows = cost_table(summary)
    for r in rows:
        out.append(f"   {r[0]}: {r[-1]}")
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
    p.add_argument("-q", "--quiet", action="store_true", help="do not print the text summary")
    return p


def main(argv):
    from .__main__ import emit_summary, write_atomically

    args = parser().parse_args(argv)
    summary = summarise(load(args.dirs))
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
