#!/usr/bin/env python3
"""Host side of the QEMU TLB A/B (tests/qemu/tlb.sh): compares the two boots
whose results scripts/qemu-run.sh unpacked into build/<arch>/tlb-results/.

    tlb_ab_host.py RESULTS ARCH

Checks, printing one line each and exiting 1 on any failure:
- 'tlb-ab.sh check': the walked range is block/section-mapped in the nosplit
  boot and 4k-mapped in the split boot, same kernel, same range;
- linear_map/layout agrees: the split boot has exactly the walked 16 MiB
  more in 4k pages than the nosplit boot;
- abstats reads the results; QEMU's PMU lists no TLB event, so cmadebug
  tlb events chose none and the TLB metric is "not supported";
- arm (no PMU): every event is "not supported"; arm64 under -icount:
  instruction counts (the PMU's inst_retired, as the manifest names it)
  are reported, and the medians of the same walk agree
  between the boots within INSN_TOLERANCE (the walker's code path does not
  depend on the mapping; measured: 0.0 to 0.4 %, runs within a boot 0.6 %,
  the rest being timer interrupts during the walk).
- arm64, the within-boot design (tests/qemu/tlb.sh test_tlb_paired_within_boot,
  build/arm64/tlb-paired): the two boots form a crossover, and the
  instructions of the two ranges agree within PAIRED_TOLERANCE.
Exit 0 with a "skipped" line when a variant was not booted (SUITES=...).
"""
import json
import os
import pathlib
import re
import subprocess
import sys

TOP = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TOP / "reports"))
from cmadebug_report import abstats  # noqa: E402

INSN_TOLERANCE = 0.01
PAIRED_TOLERANCE = 0.005  # the same boot: no boot-to-boot variation in it
WALKED_KB = 16384
TLB_EVENT = re.compile(r"tlb_refill|tlb_walk|TLB-load-misses")


def layout_kb(meta, key):
    m = re.search(rf"^{key}:\s+(\d+) kB$", meta.get("linear_map_layout") or "", re.M)
    return int(m.group(1)) if m else 0


def checker(label, failures):
    """check(ok, what): one line under LABEL; a failure is kept in FAILURES."""
    def check(ok, what):
        print(f"{label}: {'ok' if ok else 'FAILED'}: {what}")
        if not ok:
            failures.append(what)
    return check


def tlb_ab_check(walk, check):
    """'tlb-ab.sh check': nosplit block-mapped, split 4k-mapped."""
    res = subprocess.run(["sh", str(TOP / "perf-scripts" / "tlb-ab.sh"), "check", str(walk), "nosplit", "split"],
                         capture_output=True, text=True, timeout=60)
    check(res.returncode == 0, f"tlb-ab.sh check nosplit split: {(res.stdout + res.stderr).strip()}")


def analyse(walk):
    return abstats.analyse_paths(["--baseline", "nosplit", str(walk)])


def paired_checks(walk, arch):
    """The within-boot design of the two -icount boots (tlb-ab.sh paired):
    each boot's two ranges paired by boot_id, the split range swapped
    between the boots (a crossover of one boot per arm: an estimate, no
    interval), the instructions of the two ranges within 0.5 %."""
    failures = []
    check = checker(f"tlb-ab {arch} paired", failures)
    tlb_ab_check(walk, check)
    doc = analyse(walk)
    check(doc["design"] == "within", f"design {doc['design']} (boots measured both ranges)")
    ins_event = json.loads((walk / "manifest.json").read_text())["instructions_event"]
    for c in doc["comparisons"]:
        r = c["metrics"].get(ins_event, {})
        check(r.get("design") == "crossover" and r.get("boots") == 2
              and r.get("insufficient") == "1 boot in an arm of the crossover, need 2 per arm",
              f"{ins_event} at {c['working_set_bytes']} bytes: a crossover of 2 boots, no interval "
              f"({r.get('design')}, {r.get('boots')} boots, {r.get('insufficient')})")
        check(r.get("status") == "ok" and abs(r["rel_diff"]) <= PAIRED_TOLERANCE,
              f"{ins_event} at {c['working_set_bytes']} bytes: split vs nosplit range "
              f"{100 * r.get('rel_diff', float('nan')):+.3f}% (tolerance {100 * PAIRED_TOLERANCE:.1f}%)")
    (walk.parent / "abstats.txt").write_text(abstats.format_text(doc))
    return failures


def main(argv):
    results, arch = pathlib.Path(argv[1]), argv[2]
    walk = results / "walk"
    failures = []
    check = checker(f"tlb-ab {arch}", failures)
    missing = [v for v in ("nosplit", "split") if not (walk / v / "boot-1" / "meta.json").is_file()]
    if missing:
        print(f"tlb-ab {arch}: skipped: no results of the {', '.join(missing)} boot in {walk}")
        return 0

    tlb_ab_check(walk, check)

    metas = {v: json.loads((walk / v / "boot-1" / "meta.json").read_text()) for v in ("nosplit", "split")}
    pages = {v: layout_kb(m, "DirectMap4k") + layout_kb(m, "DirectMap64k") for v, m in metas.items()}
    # arm64's nosplit boot splits the within-boot design's other range
    # (16 MiB beside the walked one) instead: the same total in pages
    more = WALKED_KB - (WALKED_KB if arch == "arm64" else 0)
    check(pages["split"] - pages["nosplit"] == more,
          f"linear_map/layout: {pages['split']} kB in pages split, {pages['nosplit']} kB not split "
          f"({more} kB more: the walked range{', less the paired one' if arch == 'arm64' else ''})")

    doc = analyse(walk)
    manifest = json.loads((walk / "manifest.json").read_text())
    # QEMU's PMU lists no TLB event (and the arm guest has no PMU at all):
    # cmadebug tlb events chose none, and the metric says so.
    check(manifest.get("walk_metric") == "not supported" and manifest.get("walk_events") == []
          and not any(TLB_EVENT.search(e) for e in manifest.get("events", [])),
          f"no TLB event chosen: walk_metric {manifest.get('walk_metric')!r}, "
          f"events {', '.join(manifest.get('events', []))}")
    check(all(g["metrics"][doc["tlb_metric"]]["status"] == "not supported" for g in doc["groups"]),
          f"{doc['tlb_metric']} not supported")
    ins_event = manifest.get("instructions_event") or "instructions:k"
    ins = [(g["variant"], g["working_set_bytes"], g["metrics"].get(ins_event, {}))
           for g in doc["groups"]]
    if arch == "arm":
        check(all(m["status"] == "not supported" for g in doc["groups"] for k, m in g["metrics"].items()
                  if k not in (doc["tlb_metric"], abstats.NS_METRIC)),
              "no PMU on the cortex-a15 guest: every event not supported")
    else:
        check(all(m.get("status") == "ok" for _, _, m in ins), f"{ins_event} reported in every group")
        # The same walk in both: instructions equal up to noise.  Medians of
        # the runs, not abstats' estimate: a timer tick in one run (kernel
        # instructions counted) moved the mean of a one-boot variant by 1.1%
        # while the medians were 0.17% apart.
        for c in doc["comparisons"]:
            r = c["metrics"].get(ins_event, {})
            ok = r.get("status") == "ok" and r.get("median_baseline")
            rel = r["median"] / r["median_baseline"] - 1 if ok else float("nan")
            check(ok and abs(rel) <= INSN_TOLERANCE,
                  f"{ins_event} at {c['working_set_bytes']} bytes: split vs nosplit median "
                  f"{r.get('median')} vs {r.get('median_baseline')} "
                  f"({100 * rel:+.3f}%, tolerance {100 * INSN_TOLERANCE:.1f}%)"
                  if ok else f"{ins_event} compared: {r}")
    paired = results.parent / "tlb-paired" / "walk"
    if arch == "arm64" and paired.is_dir():
        failures += paired_checks(paired, arch)
    elif arch == "arm64":
        # make lava-tlb collects the across-boot design only
        print(f"tlb-ab {arch} paired: skipped: no {paired} (the within-boot results of qemu-test)")
    out = results / "abstats.txt"
    out.write_text(abstats.format_text(doc))
    print(f"tlb-ab {arch}: abstats in {os.path.relpath(out, TOP)}; "
          f"{len(failures)} failed" if failures else f"tlb-ab {arch}: all passed (abstats: {out})")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: tlb_ab_host.py RESULTS ARCH")
    sys.exit(main(sys.argv))
