"""cmadebug tlb on the host: the CSV it writes is what reports' perfcsv.py and
abstats read, its errors are one line with the documented exit code, and
a count the PMU did not make is "not supported", never a number.

The development machine may or may not have a PMU (ours has none, so every
hardware event is "not supported"); the assertions hold either way.
"""
import json
import os
import subprocess

import pytest

from conftest import TOP
from cmadebug_report import abstats, perfcsv

UNIT_CSV = TOP / "build" / "unit" / "tlb-csv" / "sample.csv"
TEST_TLB = TOP / "build" / "unit" / "test_tlb"


def run(binary, *args, **kw):
    return subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True,
                          timeout=60, **kw)


@pytest.fixture(scope="module")
def unit_csv(tmp_path_factory):
    """The sample run test_tlb.c writes with tlb_csv_run()."""
    if not os.access(TEST_TLB, os.X_OK):
        pytest.fail(f"{TEST_TLB} is not built: run 'make unit' first")
    d = tmp_path_factory.mktemp("tlb-csv")
    res = subprocess.run([str(TEST_TLB), str(TOP / "tests" / "fixtures"), str(d)],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout
    return (d / "sample.csv").read_text()


def test_csv_writer_round_trips_through_perfcsv(unit_csv):
    r = perfcsv.parse(unit_csv, "sample.csv")
    assert list(r) == ["instructions:k", "cycles:k", "dtlb_walk:k",
                       "armv8_cortex_a53/l1d_tlb_refill/k", "itlb_walk:k"]
    assert r["instructions:k"].status == "ok" and r["instructions:k"].value == 123456789
    assert r["instructions:k"].percent == 100.0
    assert r["armv8_cortex_a53/l1d_tlb_refill/k"].value == 4242
    # zero readings and events that did not open: not supported, no number
    for ev in ("cycles:k", "dtlb_walk:k", "itlb_walk:k"):
        assert r[ev].status == "not supported" and r[ev].value is None


def test_csv_writer_matches_perfcsv_write(unit_csv):
    """The same readings through reports' own writer (perf's format) parse the same."""
    mine = perfcsv.parse(unit_csv)
    theirs = perfcsv.parse(perfcsv.write([
        ("instructions:k", 123456789, "", 100.0), ("cycles:k", perfcsv.NOT_SUPPORTED, "", 100.0),
        ("dtlb_walk:k", perfcsv.NOT_SUPPORTED, "", 100.0),
        ("armv8_cortex_a53/l1d_tlb_refill/k", 4242, "", 100.0),
        ("itlb_walk:k", perfcsv.NOT_SUPPORTED, "", 100.0)]))
    assert [(x.event, x.value, x.status) for x in mine.values()] == \
        [(x.event, x.value, x.status) for x in theirs.values()]


@pytest.mark.parametrize("args", [
    ["tlb"],
    ["tlb", "walk", "--start", "0x1000"],
    ["tlb", "walk", "--start", "0x1001", "--pages", "1", "--accesses", "1"],
    ["tlb", "--events", "armv8_pmuv3_0/dtlb_walk/", "--", "true"],
    ["tlb", "events", "--runs", "2"],
    ["tlb", "--events", "instructions,cycles,dtlb_walk,itlb_walk,l1d_tlb_refill,l2d_tlb_refill,r8", "--",
     "true"],
    ["tlb", "--results", "x", "--", "true"],
    ["--root", "tests/fixtures/qemu-arm64/root", "tlb", "--", "true"],
])
def test_usage_errors(cmadebug_bin, args):
    res = run(cmadebug_bin, *args, cwd=TOP)
    assert res.returncode == 1, res
    assert res.stdout == ""
    assert len(res.stderr.splitlines()) == 1 and res.stderr.startswith("cmadebug: ")


def test_an_event_no_pmu_lists_is_environment_error(cmadebug_bin):
    """Refused before counting: not a run of zeros.  (This host has no CPU PMU
    in sysfs, or one that lists no 'bogus'.)"""
    res = run(cmadebug_bin, "tlb", "--events", "instructions,bogus", "--", "true")
    assert res.returncode == 2 and res.stdout == ""
    assert len(res.stderr.splitlines()) == 1 and "'bogus'" in res.stderr


def test_results_of_other_events_in_one_boot_are_refused(cmadebug_bin, tmp_path):
    """meta.json describes the runs beside it: another set of events there
    would be mixed in (tlb-ab.sh's own meta.json is left to tlb-ab.sh)."""
    args = ["tlb", "--results", tmp_path, "--variant", "v"]
    assert run(cmadebug_bin, *args, "--events", "instructions", "--", "true").returncode == 0
    res = run(cmadebug_bin, *args, "--events", "instructions,cycles", "--", "true")
    assert res.returncode == 3 and "counted other events" in res.stderr
    assert len(res.stderr.splitlines()) == 1
    assert sorted(p.name for p in (tmp_path / "v" / "boot-1").iterdir()) == ["meta.json", "run-1.csv"]
    meta = json.loads((tmp_path / "v" / "boot-1" / "meta.json").read_text())
    assert len(meta["events"]) == 1 and meta["events"][0].endswith(("instructions:k", "/instructions/k"))
    assert meta["walk_metric"] == "not supported" and meta["walk_events"] == []


def test_walk_without_the_walker_is_environment_error(cmadebug_bin, tmp_path):
    # A debugfs without linear_map_walk (this host's, or an empty directory).
    res = run(cmadebug_bin, "--debugfs", tmp_path, "tlb", "walk", "--start", "0x40000000",
              "--pages", "64", "--accesses", "100")
    assert res.returncode == 2, res
    assert len(res.stderr.splitlines()) == 1 and "CONFIG_TEST_LINEAR_MAP_WALK" in res.stderr


def test_help(cmadebug_bin):
    res = run(cmadebug_bin, "tlb", "--help")
    assert res.returncode == 0 and res.stdout.startswith("Usage: cmadebug [--json] tlb walk")


def test_command_counts_are_numbers_or_not_supported(cmadebug_bin):
    res = run(cmadebug_bin, "--json", "tlb", "--runs", "2", "--", "true")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["command"] == "true" and len(doc["runs"]) == 2
    assert doc["counting"].startswith("kernel only")
    assert len(doc["counts"]) == 2 * len(doc["events"])
    for c in doc["counts"]:
        if c["status"] == "ok":
            assert isinstance(c["value"], int) and c["value"] > 0
        else:
            assert c["status"] == "not supported" and c["value"] is None and c["reason"]


def test_text_and_json_say_the_same(cmadebug_bin):
    text = run(cmadebug_bin, "tlb", "--", "true")
    js = json.loads(run(cmadebug_bin, "--json", "tlb", "--", "true").stdout)
    assert text.returncode == 0
    for c in js["counts"]:
        line = next(x for x in text.stdout.splitlines() if f" {c['event']} " in x)
        if c["status"] == "ok":
            assert " ok" in line
        else:
            assert f"not supported: {c['reason']}" in line


def test_results_layout_is_what_abstats_reads(cmadebug_bin, tmp_path):
    for variant, runs in (("nosplit", 3), ("split", 2)):
        res = run(cmadebug_bin, "tlb", "--runs", runs, "--results", tmp_path, "--variant", variant,
                  "--", "true")
        assert res.returncode == 0, res.stderr
    # a second call in the same boot adds runs to the same boot directory
    assert run(cmadebug_bin, "tlb", "--results", tmp_path, "--variant", "split", "--",
               "true").returncode == 0
    assert sorted(p.name for p in (tmp_path / "split").iterdir()) == ["boot-1"]
    assert sorted(p.name for p in (tmp_path / "split" / "boot-1").iterdir()) == \
        ["meta.json", "run-1.csv", "run-2.csv", "run-3.csv"]
    meta = json.loads((tmp_path / "nosplit" / "boot-1" / "meta.json").read_text())
    for k in ("machine", "kernel", "cmdline", "layout"):
        assert isinstance(meta[k], str)
    assert meta["tool"].startswith("cmadebug tlb") and meta["boot_id"]

    class Args:
        results, baseline, seed, iterations = [str(tmp_path)], None, 1, 200
        instructions_event = walk_event = tlb_reach = json = None

    doc = abstats.analyse_paths([str(tmp_path)], Args())
    assert doc["baseline"] == "nosplit"
    for g in doc["groups"]:
        for m, r in g["metrics"].items():
            assert r["status"] in ("ok", "not supported", "not measured")
            if r["status"] == "ok":
                assert r["median"] > 0
    text = abstats.format_text(doc)
    assert "not supported" in text or "instructions:k" in text
