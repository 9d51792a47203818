"""'cmadebug tlb events': the events chosen from what each core's PMU
publishes in sysfs, over the trees tests/fixtures/pmu/generate.py derives
from the 6.12 kernel source and the cores' PMCEID values (SOURCES.md there).

The choice by meaning: table walks where the core counts them, else L2 TLB
refills, else L1 TLB refills, else "not supported"; never an event the PMU
does not list (perf would refuse it, cmadebug would count zeros)."""
import filecmp
import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import FIXTURES, TOP
from schema_check import errors

PMU_TREES = FIXTURES / "pmu"
KERNEL = pathlib.Path(os.environ.get("CMADEBUG_CACHE", pathlib.Path.home() / ".cache" / "cmadebug")) / "linux"

# What each core counts of its TLBs, from its PMCEID (Armv8) or the Armv7 list.
EXPECTED = {
    "cortex-a5": ("armv7_cortex_a5", "L1 refills", ["l1d_tlb_refill", "l1i_tlb_refill"]),
    "cortex-a7": ("armv7_cortex_a7", "L1 refills", ["l1d_tlb_refill", "l1i_tlb_refill"]),
    "cortex-a8": ("armv7_cortex_a8", "L1 refills", ["l1d_tlb_refill", "l1i_tlb_refill"]),
    "cortex-a9": ("armv7_cortex_a9", "L1 refills", ["l1d_tlb_refill", "l1i_tlb_refill"]),
    "cortex-a15": ("armv7_cortex_a15", "L1 refills", ["l1d_tlb_refill", "l1i_tlb_refill"]),
    "cortex-a17": ("armv7_cortex_a17", "L1 refills", ["l1d_tlb_refill", "l1i_tlb_refill"]),
    "cortex-a35": ("armv8_cortex_a35", "L1 refills", ["l1d_tlb_refill", "l1i_tlb_refill"]),
    "cortex-a53": ("armv8_cortex_a53", "L1 refills", ["l1d_tlb_refill", "l1i_tlb_refill"]),
    "cortex-a55": ("armv8_cortex_a55", "walks", ["dtlb_walk", "itlb_walk"]),
    "cortex-a57": ("armv8_cortex_a57", "L1 refills", ["l1d_tlb_refill", "l1i_tlb_refill"]),
    "cortex-a72": ("armv8_cortex_a72", "L1 refills", ["l1d_tlb_refill", "l1i_tlb_refill"]),
    "cortex-a73": ("armv8_cortex_a73", "L1 refills", ["l1d_tlb_refill", "l1i_tlb_refill"]),
    "cortex-a76": ("armv8_cortex_a76", "walks", ["dtlb_walk", "itlb_walk"]),
    "neoverse-n1": ("armv8_neoverse_n1", "walks", ["dtlb_walk", "itlb_walk"]),
}


def tlb_events(binary, tree, *args, json_out=True):
    cmd = [str(binary), "--root", str(tree), *(["--json"] if json_out else []), "tlb", "events", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=30)


def choice(binary, board, *args):
    res = tlb_events(binary, PMU_TREES / board / "root", *args)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def sysfs_events(board, pmu):
    d = PMU_TREES / board / "root" / "sys/bus/event_source/devices" / pmu / "events"
    return {f.name: int(f.read_text().strip().split("=")[1], 16) for f in d.iterdir()}


def test_every_core_has_a_tree():
    assert sorted(EXPECTED) == sorted(p.name for p in PMU_TREES.iterdir() if p.is_dir() and
                                      not p.name.startswith(("big-little", "qemu-")))


@pytest.mark.parametrize("board, instructions", [("qemu-cortex-a57", None),
                                                 ("qemu-cortex-a57-icount", "armv8_pmuv3/inst_retired/k")])
def test_our_qemu_arm64_board_has_no_tlb_event(cmadebug_bin, board, instructions):
    """What the guests' A/B counts (tests/qemu/tlb.sh): no TLB event, so "not
    supported"; instructions only under -icount."""
    doc = choice(cmadebug_bin, board)
    assert doc["pmu"] == "armv8_pmuv3" and doc["walk_metric"] == "not supported"
    assert doc["walk_events"] == [] and doc["instructions_event"] == instructions
    assert doc["cycles_event"] == "armv8_pmuv3/cpu_cycles/k"
    assert doc["events"] == ([instructions] if instructions else []) + ["armv8_pmuv3/cpu_cycles/k"]


@pytest.mark.parametrize("board", sorted(EXPECTED))
def test_the_choice_is_what_the_core_counts(cmadebug_bin, board):
    pmu, metric, walks = EXPECTED[board]
    doc = choice(cmadebug_bin, board)
    listed = sysfs_events(board, pmu)
    assert doc["pmu"] == pmu and doc["walk_metric"] == metric
    assert doc["walk_events"] == [f"{pmu}/{w}/k" for w in walks]
    assert doc["instructions_event"] == f"{pmu}/inst_retired/k"
    assert doc["cycles_event"] == f"{pmu}/cpu_cycles/k"
    assert len(doc["events"]) <= 6
    # every counter is a file of the PMU's events/, opened as that file says
    for c in doc["counters"]:
        assert c["name"] == f"{pmu}/{c['sysfs']}/k" and listed[c["sysfs"]] == c["config"]
        assert c["type"] == int((PMU_TREES / board / "root/sys/devices" / pmu / "type").read_text())


@pytest.mark.parametrize("board", sorted(EXPECTED))
def test_the_metric_follows_the_preference_order(cmadebug_bin, board):
    """The rule written out once more, over the tree's own files."""
    pmu = EXPECTED[board][0]
    listed = sysfs_events(board, pmu)
    want = ("walks" if listed.get("dtlb_walk") == 0x34 else
            "L2 refills" if listed.get("l2d_tlb_refill") == 0x2D else
            "L1 refills" if listed.get("l1d_tlb_refill") == 0x05 else "not supported")
    assert choice(cmadebug_bin, board)["walk_metric"] == want


def test_a53_lists_no_walk_and_no_l2_refill():
    """The case that made perf refuse the old default on a Raspberry Pi 3."""
    listed = sysfs_events("cortex-a53", "armv8_cortex_a53")
    assert "dtlb_walk" not in listed and "itlb_walk" not in listed and "l2d_tlb_refill" not in listed
    assert listed["l1d_tlb_refill"] == 0x05 and listed["l1i_tlb_refill"] == 0x02


def test_text_and_json_say_the_same(cmadebug_bin):
    tree = PMU_TREES / "cortex-a55" / "root"
    doc = json.loads(tlb_events(cmadebug_bin, tree).stdout)
    text = tlb_events(cmadebug_bin, tree, json_out=False).stdout
    lines = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
    assert lines["PMU"] == doc["pmu"] and lines["Walk metric"] == doc["walk_metric"]
    assert lines["Events"] == ",".join(doc["events"]) and lines["Walk events"] == ",".join(doc["walk_events"])
    assert lines["Instructions"] == doc["instructions_event"] and lines["Why"] == doc["why"]


@pytest.mark.parametrize("board", ["cortex-a53", "big-little-a53-a72"])
def test_json_matches_the_schema(cmadebug_bin, board):
    schema = json.loads((TOP / "cmadebug/schema/snapshot-v1.schema.json").read_text())
    doc = choice(cmadebug_bin, board)
    assert errors(doc, {"$ref": "#/$defs/tlb_events", "$defs": schema["$defs"]}) == []


def test_no_cpu_pmu_is_not_supported(cmadebug_bin):
    """A QEMU arm guest (cortex-a15: no PMU) or a tree without event_source."""
    res = tlb_events(cmadebug_bin, FIXTURES / "qemu-arm" / "root")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["pmu"] is None and doc["walk_metric"] == "not supported" and doc["walk_events"] == []
    assert doc["events"] == ["instructions:k", "cycles:k"]


def test_explicit_events(cmadebug_bin):
    doc = choice(cmadebug_bin, "cortex-a53", "--events", "inst_retired,l1d_tlb_refill,r66")
    assert doc["events"] == ["armv8_cortex_a53/inst_retired/k", "armv8_cortex_a53/l1d_tlb_refill/k",
                             "armv8_cortex_a53/r66/k"]
    assert doc["walk_metric"] == "L1 refills" and doc["walk_events"] == ["armv8_cortex_a53/l1d_tlb_refill/k"]


def test_generic_names_with_a_pmu_are_its_own_events(cmadebug_bin):
    """perf's instructions and cycles, asked of a PMU, are its inst_retired
    and cpu_cycles: perf 6.1 refuses armv8_cortex_a72/instructions/k (no
    such term), and the generic event would count on any cluster."""
    doc = choice(cmadebug_bin, "big-little-a53-a72", "--pmu", "armv8_cortex_a72",
                 "--events", "instructions,cycles,l1d_tlb_refill")
    assert doc["events"] == ["armv8_cortex_a72/inst_retired/k", "armv8_cortex_a72/cpu_cycles/k",
                             "armv8_cortex_a72/l1d_tlb_refill/k"]
    assert doc["instructions_event"] == "armv8_cortex_a72/inst_retired/k"
    res = tlb_events(cmadebug_bin, PMU_TREES / "cortex-a53" / "root", "--events", "instructions,inst_retired",
                     json_out=False)
    assert res.returncode == 1 and res.stdout == ""
    assert res.stderr == "cmadebug: tlb: 'instructions' and 'inst_retired' are one event here (inst_retired)\n"


@pytest.mark.parametrize("board, events, message", [
    ("cortex-a53", "inst_retired,dtlb_walk",
     "cmadebug: tlb: armv8_cortex_a53 does not list 'dtlb_walk' (the core does not count it; "
     "'cmadebug tlb events' shows what it has)"),
    ("cortex-a72", "l2d_tlb_refill", "cmadebug: tlb: armv8_cortex_a72 does not list 'l2d_tlb_refill'"),
    ("cortex-a15", "bogus", "cmadebug: tlb: armv7_cortex_a15 does not list 'bogus'"),
])
def test_a_name_the_pmu_does_not_list_is_refused(cmadebug_bin, board, events, message):
    res = tlb_events(cmadebug_bin, PMU_TREES / board / "root", "--events", events, json_out=False)
    assert res.returncode == 2 and res.stdout == ""
    assert len(res.stderr.splitlines()) == 1 and res.stderr.startswith(message)


def test_without_a_pmu_names_are_refused_too(cmadebug_bin):
    res = tlb_events(cmadebug_bin, FIXTURES / "qemu-arm" / "root", "--events", "dtlb_walk", json_out=False)
    assert res.returncode == 2 and "no CPU PMU here lists 'dtlb_walk'" in res.stderr


@pytest.mark.parametrize("args, pmu, cpu", [
    ([], "armv8_cortex_a53", 0),
    (["--cpu", "3"], "armv8_cortex_a53", 3),
    (["--cpu", "4"], "armv8_cortex_a72", 4),
    (["--cpu", "5"], "armv8_cortex_a72", 5),
    (["--pmu", "armv8_cortex_a72"], "armv8_cortex_a72", 4),
    (["--pmu", "armv8_cortex_a72", "--cpu", "5"], "armv8_cortex_a72", 5),
])
def test_big_little_counts_on_the_pmu_of_the_cpu(cmadebug_bin, args, pmu, cpu):
    doc = choice(cmadebug_bin, "big-little-a53-a72", *args)
    assert doc["pmu"] == pmu and doc["cpu"] == cpu
    assert all(e.startswith(pmu + "/") for e in doc["events"])
    assert doc["pmu_type"] == {"armv8_cortex_a53": 8, "armv8_cortex_a72": 9}[pmu]


@pytest.mark.parametrize("args, rc, message", [
    (["--pmu", "armv8_cortex_a72", "--cpu", "0"], 1, "CPU 0 is not one of armv8_cortex_a72's (CPUs 4-5)"),
    (["--pmu", "software"], 2, "--pmu software: no CPU PMU of that name"),
    (["--cpu", "6"], 0, None),   # nobody's CPU: no PMU, perf's generic events
])
def test_big_little_mismatches(cmadebug_bin, args, rc, message):
    res = tlb_events(cmadebug_bin, PMU_TREES / "big-little-a53-a72" / "root", *args)
    assert res.returncode == rc, res.stderr
    if message:
        assert len(res.stderr.splitlines()) == 1 and message in res.stderr
    else:
        assert json.loads(res.stdout)["walk_metric"] == "not supported"


def load_generator():
    """generate.py as a module, leaving no __pycache__ among the fixtures."""
    spec = importlib.util.spec_from_file_location("pmu_generate", PMU_TREES / "generate.py")
    mod = importlib.util.module_from_spec(spec)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.dont_write_bytecode = saved
    return mod


def have_kernel():
    return subprocess.run(["git", "-C", str(KERNEL), "rev-parse", "-q", "--verify", "base"],
                          capture_output=True).returncode == 0


def same_tree(a, b):
    """Differences between two directory trees: files, contents, symlinks."""
    diff = []
    for pa in sorted(a.rglob("*")):
        rel = pa.relative_to(a)
        pb = b / rel
        if pa.is_symlink():
            if not pb.is_symlink() or os.readlink(pa) != os.readlink(pb):
                diff.append(f"symlink {rel}")
        elif pa.is_file() and (not pb.is_file() or not filecmp.cmp(pa, pb, shallow=False)):
            diff.append(f"file {rel}")
    diff += [f"extra {p.relative_to(b)}" for p in b.rglob("*") if not (a / p.relative_to(b)).exists()
             and not (a / p.relative_to(b)).is_symlink()]
    return diff


@pytest.mark.skipif(not have_kernel(), reason=f"no 6.12 tree at {KERNEL} (make kernel-tree)")
def test_regenerating_gives_the_committed_trees(tmp_path):
    res = subprocess.run(["/usr/bin/python3", str(PMU_TREES / "generate.py"), "--kernel", str(KERNEL),
                          "--out", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    committed = [p for p in PMU_TREES.iterdir() if p.name != "generate.py"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in committed)
    for p in committed:
        if p.is_dir():
            assert same_tree(tmp_path / p.name, p) == [], p.name
        else:
            assert filecmp.cmp(tmp_path / p.name, p, shallow=False), p.name


@pytest.mark.skipif(not have_kernel(), reason=f"no 6.12 tree at {KERNEL} (make kernel-tree)")
def test_trm_values_agree_with_arms_event_lists():
    """Where a TRM value was found, perf's pmu-events list for the core leads
    to the same sysfs files (CHAIN, which has none, aside); where none was,
    that list stands in (SOURCES.md says which)."""
    gen = load_generator()
    k = gen.Kernel(KERNEL)
    attrs, _, _, max_common, ext_base = gen.armv8_source(k)
    for core, json_dir in (("cortex-a76", "cortex-a76"),):
        p0, p1 = gen.ARMV8[core]["pmceid"]
        j0, j1 = gen.pmceid_from_json(k, json_dir)
        trm = {n for n, i in attrs if gen.is_visible(i, p0, p1, max_common, ext_base)}
        arm = {n for n, i in attrs if gen.is_visible(i, j0, j1, max_common, ext_base)}
        assert trm == arm, core
