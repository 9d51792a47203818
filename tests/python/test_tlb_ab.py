"""perf-scripts/tlb-ab.sh on the host: the walked range's mapping from the
captured ptdumps, 'check' over meta.json files, and 'run' end to end with a
stand-in perf binary over a copy of a captured tree, with the PMU of a core
from tests/fixtures/pmu added where a test needs one (no walker here: the
guests run it for real, tests/qemu/tlb.sh).  The events come from the built
cmadebug ('cmadebug tlb events'), as on a board."""
import json
import os
import pathlib
import shutil
import stat
import subprocess

import pytest

from conftest import FIXTURES, TOP
from cmadebug_report import abstats, perfcsv

SCRIPT = TOP / "perf-scripts" / "tlb-ab.sh"
WALK_LINE = "start=0x60000000 pages=64 accesses=1000 seed=1 cpu=0 elapsed_ns=5000 faults=0 checksum=7\n"


def sh(*args, env=None, cwd=None):
    return subprocess.run(["sh", str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=60, env=dict(os.environ, **(env or {})), cwd=cwd)


@pytest.mark.parametrize("arch,start,pages,want", [
    ("arm", "0x60000000", 4096, "block"),       # 1 MiB sections
    ("arm", "0x57000000", 4096, "4k"),          # fimc-pool, split at boot
    ("arm", "0x56ff0000", 4096, "mixed"),
    ("arm", "0x57000000", 8192, "mixed"),
    ("arm64", "0x48000000", 4096, "block"),     # contiguous 2 MiB blocks
    ("arm64", "0x40400000", 256, "4k"),         # the kernel image's alias: pages
    ("arm64", "0x40000000", 4096, "mixed"),
    ("arm64", "0x7ff00000", 4096, "unknown"),   # past the end of RAM
])
def test_mapping_from_captured_ptdump(arch, start, pages, want):
    res = sh("mapping", "--start", start, "--pages", pages,
             env={"TLB_AB_ROOT": str(FIXTURES / f"qemu-{arch}" / "root"), "TLB_AB_RAM_START": "0x40000000"})
    assert res.returncode == 0, res.stderr
    assert res.stdout.split()[0] == want, res.stdout


def write_meta(root, variant, boot, mapping, kernel="Linux 6.12", start=1207959552, pages=4096):
    d = root / variant / f"boot-{boot}"
    d.mkdir(parents=True)
    (d / "meta.json").write_text(json.dumps({
        "machine": "board", "kernel": kernel, "cmdline": "x", "layout": "y",
        "walk_mapping": mapping, "walk_mapping_detail": "detail", "walk_start": start,
        "walk_pages": pages}, indent=1).replace("\n ", "\n  "))


def test_check_accepts_an_intended_ab(tmp_path):
    for b in (1, 2):
        write_meta(tmp_path, "nosplit", b, "block")
        write_meta(tmp_path, "split", b, "4k")
    res = sh("check", tmp_path, "nosplit", "split")
    assert res.returncode == 0 and "ok" in res.stdout, res.stderr


@pytest.mark.parametrize("change,needle", [
    ({"mapping": "mixed"}, "mapped 'mixed'"),
    ({"kernel": "Linux 6.13"}, "another kernel"),
    ({"pages": 1024}, "walked range"),
])
def test_check_refuses_layouts_that_do_not_differ_as_intended(tmp_path, change, needle):
    write_meta(tmp_path, "nosplit", 1, "block")
    kw = {"mapping": "4k", **change}
    write_meta(tmp_path, "split", 1, **kw)
    res = sh("check", tmp_path, "nosplit", "split")
    assert res.returncode == 3, res
    assert needle in res.stderr


def test_check_refuses_swapped_variants(tmp_path):
    write_meta(tmp_path, "nosplit", 1, "block")
    write_meta(tmp_path, "split", 1, "4k")
    res = sh("check", tmp_path, "split", "nosplit")
    assert res.returncode == 3 and res.stderr.count("needs") == 2


def test_check_missing_variant_is_environment_error(tmp_path):
    write_meta(tmp_path, "nosplit", 1, "block")
    assert sh("check", tmp_path, "nosplit", "split").returncode == 2


FAKE_PERF = """#!/bin/sh
# stand-in for 'perf stat -x, -o FILE -e {EVENTS} -- CMD' on a captured
# tree (an x86 host cannot count an Arm PMU): the lines and the refusal are
# shaped as Debian's perf 6.1 writes them in the arm64 guest, where the real
# one runs (tests/qemu/tlb.sh test_tlb_runner_real_perf prints its CSV,
# perf-record.sh its "event syntax error" for dtlb_walk).  Percentages from
# FAKE_PERCENT; FAKE_PERF_FAIL=1: perf cannot open the events (as under
# perf_event_paranoid).  Like the real one, it refuses a PMU/EVENT the
# tree's sysfs does not list: a test cannot pass on a name no core has.
out="" ev=""
while [ $# -gt 0 ]; do
	case $1 in -o) out=$2; shift ;; -e) ev=$2; shift ;; --) break ;; esac
	shift
done
[ -z "${FAKE_PERF_FAIL:-}" ] || { echo "Error: No permission to enable $ev event." >&2; exit 255; }
ev=${ev#\\{}; ev=${ev%\\}}
for e in $(echo "$ev" | tr , ' '); do
	case $e in */*/k)
		pmu=${e%%/*} name=${e#*/} name=${name%/k}
		[ -e "$TLB_AB_ROOT/sys/bus/event_source/devices/$pmu/events/$name" ] ||
			{ echo "event syntax error: '$e'" >&2; exit 129; } ;;
	esac
done
{
	echo "# started on today"; echo
	for e in $(echo "$ev" | tr , ' '); do
		case $e in instructions:k | */instructions/k | */inst_retired/k)
			echo "123456,,$e,1000,${FAKE_PERCENT:-100.00},," ;;
		*) echo "<not supported>,,$e,0,100.00,," ;; esac
	done
} >"$out"
"""


def add_pmus(root, board):
    """The sysfs PMU directories of tests/fixtures/pmu/BOARD, into the tree ROOT."""
    src = FIXTURES / "pmu" / board / "root" / "sys"
    for link in (src / "bus/event_source/devices").iterdir():
        dst = root / "sys/devices" / link.name
        if not dst.exists():
            shutil.copytree(src / "devices" / link.name, dst)
        (root / "sys/bus/event_source/devices").mkdir(parents=True, exist_ok=True)
        (root / "sys/bus/event_source/devices" / link.name).symlink_to(f"../../../devices/{link.name}")


@pytest.fixture
def board(tmp_path):
    """A copy of the arm capture with a walker report, and a stand-in perf."""
    root = tmp_path / "root"
    shutil.copytree(FIXTURES / "qemu-arm" / "root", root, symlinks=True)
    (root / "sys/kernel/debug/linear_map_walk").write_text(WALK_LINE)
    (root / "proc/sys/kernel/random").mkdir(parents=True)
    (root / "proc/sys/kernel/random/boot_id").write_text("1234-abcd\n")
    perf = tmp_path / "perf"
    perf.write_text(FAKE_PERF)
    perf.chmod(perf.stat().st_mode | stat.S_IXUSR)
    return {"TLB_AB_ROOT": str(root), "PERF": str(perf), "CMADEBUG": str(TOP / "cmadebug" / "cmadebug")}


def run_args(out, *more):
    return ["run", "nosplit", "-o", out, "--start", "0x60000000", "--pages", "64", "--runs", "1", *more]


def test_run_with_perf_writes_the_abstats_layout(board, tmp_path):
    add_pmus(pathlib.Path(board["TLB_AB_ROOT"]), "cortex-a76")
    out = tmp_path / "res"
    for _ in range(2):  # a second call in the same boot adds runs
        res = sh("run", "nosplit", "-o", out, "--start", "0x60000000", "--sweep", "64 256", "--runs", "2",
                 "--events", "inst_retired,cpu_cycles,dtlb_walk,itlb_walk", "--expect", "block", env=board)
        assert res.returncode == 0, res.stderr
    d = out / "walk" / "nosplit" / "boot-1"
    assert sorted(p.name for p in d.glob("run-*.csv")) == [f"run-{i}.csv" for i in range(1, 9)]
    meta = json.loads((d / "meta.json").read_text())
    assert meta["walk_mapping"] == "block" and meta["boot_id"] == "1234-abcd"
    assert meta["kernel"].startswith("Linux version") and "\n" in meta["linear_map_layout"]
    assert meta["walk_start"] == 0x60000000 and meta["walk_pages"] == 256
    w = json.loads((d / "run-3.walker.json").read_text())
    assert w == {"working_set_bytes": 1048576, "pages": 256, "accesses": 1000, "elapsed_ns": 5000,
                 "cpu": 0, "faults": 0, "seed": 1}
    manifest = json.loads((out / "walk" / "manifest.json").read_text())
    assert manifest["walk_events"] == ["armv8_cortex_a76/dtlb_walk/k", "armv8_cortex_a76/itlb_walk/k"]
    assert manifest["walk_metric"] == "walks"
    assert manifest["instructions_event"] == "armv8_cortex_a76/inst_retired/k"
    assert meta["events"] == ",".join(manifest["events"]) and meta["walk_metric"] == "walks"
    r = perfcsv.parse((d / "run-1.csv").read_text())
    assert r["armv8_cortex_a76/inst_retired/k"].value == 123456
    assert r["armv8_cortex_a76/dtlb_walk/k"].status == "not supported"
    # a second variant, and abstats reads both
    res = sh("run", "split", "-o", out, "--start", "0x60000000", "--sweep", "64 256", "--runs", "2",
             "--events", "inst_retired,cpu_cycles,dtlb_walk,itlb_walk", env=board)
    assert res.returncode == 0, res.stderr

    class Args:
        results, baseline, seed, iterations = [str(out / "walk")], "nosplit", 1, 200
        instructions_event = walk_event = tlb_reach = json = None

    doc = abstats.analyse_paths([str(out / "walk")], Args())
    assert [g["working_set_bytes"] for g in doc["groups"] if g["variant"] == "split"] == [262144, 1048576]
    assert all(g["metrics"]["armv8_cortex_a76/dtlb_walk/k"]["status"] == "not supported"
               for g in doc["groups"])


def test_run_rejects_multiplexed_runs(board, tmp_path):
    out = tmp_path / "res"
    res = sh("run", "nosplit", "-o", out, "--start", "0x60000000", "--pages", "64", "--runs", "2",
             env={**board, "FAKE_PERCENT": "61.50"})
    assert res.returncode == 3
    assert "multiplexed: instructions:k had a counter 61.50% of the time" in res.stderr
    d = out / "walk" / "nosplit" / "boot-1"
    assert not list(d.glob("run-*[0-9].csv")) and len(list(d.glob("run-*.rejected.csv"))) == 2
    assert not (out / "walk" / "manifest.json").exists(), "no run kept, no manifest"


def test_run_refuses_an_unexpected_mapping(board, tmp_path):
    res = sh("run", "split", "-o", tmp_path, "--start", "0x60000000", "--expect", "4k", env=board)
    assert res.returncode == 3 and "not mapped as expected (4k)" in res.stderr


@pytest.mark.parametrize("args", [
    [], ["run"], ["run", "a/b", "--start", "0x60000000"], ["run", "v"],
    ["run", "v", "--start", "0x60000000", "--pages", "x"],
    ["run", "v", "--start", "0x60000000", "--events", "a,b,c,d,e,f,g"],
    ["mapping"], ["check", "x"],
])
def test_usage_errors(board, args):
    assert sh(*args, env=board).returncode == 1


def make_ab(root, a_mapping="block", b_mapping="4k"):
    """Two variants, two boots of three runs each, a sweep of two sizes."""
    for v, mapping, walks in (("nosplit", a_mapping, 100), ("split", b_mapping, 180)):
        for b in (1, 2):
            write_meta(root, v, b, mapping)
            d = root / v / f"boot-{b}"
            for r in range(1, 7):
                pages = 64 if r <= 3 else 4096
                (d / f"run-{r}.csv").write_text(perfcsv.write([
                    ("instructions:k", 1000000 + r, "", 100.0), ("dtlb_walk:k", walks * pages // 64 + r, "", 100.0)]))
                (d / f"run-{r}.walker.json").write_text(json.dumps(
                    {"working_set_bytes": pages * 4096, "accesses": 1000, "elapsed_ns": 50000}))


def make_tlb_report(results, out, *extra):
    return subprocess.run(["make", "-s", "tlb-report", f"RESULTS={results}", f"OUT={out}",
                           f"PYTHON={os.environ.get('PYTHON', '/usr/bin/python3')}", *extra],
                          cwd=TOP, capture_output=True, text=True, timeout=300)


def test_make_tlb_report(tmp_path):
    """Two boots of each variant are too few for an interval: the report is
    written all the same (medians, no interval) and make fails, unless
    ALLOW_INSUFFICIENT=1 (make lava-check's QEMU A/B)."""
    make_ab(tmp_path / "walk")
    res = make_tlb_report(tmp_path / "walk", tmp_path / "r.html")
    assert res.returncode != 0 and "abstats: insufficient: split vs nosplit" in res.stderr, res.stderr
    assert "check: ok" in res.stdout and "too few boots: no interval drawn" in res.stdout
    assert "<html" in (tmp_path / "r.html").read_text()[:200].lower()
    res = make_tlb_report(tmp_path / "walk", tmp_path / "r.html", "ALLOW_INSUFFICIENT=1")
    assert res.returncode == 0, res.stderr
    assert "sweep" in (tmp_path / "r.json").read_text()


def test_make_tlb_report_refuses_a_wrong_ab(tmp_path):
    make_ab(tmp_path / "walk", b_mapping="block")
    res = make_tlb_report(tmp_path / "walk", tmp_path / "r.html")
    assert res.returncode != 0 and "do not compare a split" in res.stderr
    assert not (tmp_path / "r.html").exists()


def test_run_with_a_named_pmu(board, tmp_path):
    """big.LITTLE: the events of the A72 cluster's PMU, counted on its first
    CPU; 'instructions' is that PMU's inst_retired (perf refuses
    armv8_cortex_a72/instructions/k: the PMU has no such term)."""
    add_pmus(pathlib.Path(board["TLB_AB_ROOT"]), "big-little-a53-a72")
    res = sh(*run_args(tmp_path, "--events", "instructions,l1d_tlb_refill", "--pmu", "armv8_cortex_a72"),
             env=board)
    assert res.returncode == 0, res.stderr
    assert "on CPU 4" in res.stderr
    r = perfcsv.parse((tmp_path / "walk/nosplit/boot-1/run-1.csv").read_text())
    assert list(r) == ["armv8_cortex_a72/inst_retired/k", "armv8_cortex_a72/l1d_tlb_refill/k"]
    m = json.loads((tmp_path / "walk/manifest.json").read_text())
    assert m == {"instructions_event": "armv8_cortex_a72/inst_retired/k", "walk_metric": "L1 refills",
                 "walk_events": ["armv8_cortex_a72/l1d_tlb_refill/k"],
                 "events": ["armv8_cortex_a72/inst_retired/k", "armv8_cortex_a72/l1d_tlb_refill/k"],
                 "pmu": "armv8_cortex_a72"}
    meta = json.loads((tmp_path / "walk/nosplit/boot-1/meta.json").read_text())
    assert meta["pmu"] == "armv8_cortex_a72" and meta["cpu"] == 4


def test_a53_board_runs_with_the_events_its_pmu_lists(board, tmp_path):
    """Cortex-A53 (Raspberry Pi 3, i.MX8M): no dtlb_walk, no l2d_tlb_refill in
    sysfs, so perf would reject them; the default is what it has."""
    add_pmus(pathlib.Path(board["TLB_AB_ROOT"]), "cortex-a53")
    res = sh(*run_args(tmp_path), env=board)
    assert res.returncode == 0, res.stderr
    group = ["armv8_cortex_a53/inst_retired/k", "armv8_cortex_a53/cpu_cycles/k",
             "armv8_cortex_a53/l1d_tlb_refill/k", "armv8_cortex_a53/l1i_tlb_refill/k"]
    r = perfcsv.parse((tmp_path / "walk/nosplit/boot-1/run-1.csv").read_text())
    assert list(r) == group
    m = json.loads((tmp_path / "walk/manifest.json").read_text())
    assert m == {"instructions_event": group[0], "walk_metric": "L1 refills", "walk_events": group[2:],
                 "events": group, "pmu": "armv8_cortex_a53"}
    meta = json.loads((tmp_path / "walk/nosplit/boot-1/meta.json").read_text())
    assert meta["events"] == ",".join(group) and meta["walk_metric"] == "L1 refills"
    assert meta["walk_events"] == ",".join(group[2:])


def test_an_event_the_pmu_does_not_list_is_refused_before_any_run(board, tmp_path):
    add_pmus(pathlib.Path(board["TLB_AB_ROOT"]), "cortex-a53")
    res = sh(*run_args(tmp_path, "--events", "inst_retired,dtlb_walk"), env=board)
    assert res.returncode == 2
    assert res.stderr.splitlines() == [
        "tlb-ab.sh: tlb: armv8_cortex_a53 does not list 'dtlb_walk' (the core does not count it; "
        "'cmadebug tlb events' shows what it has)"]
    assert not (tmp_path / "walk").exists()


def test_other_events_in_the_same_results_are_refused(board, tmp_path):
    add_pmus(pathlib.Path(board["TLB_AB_ROOT"]), "cortex-a53")
    assert sh(*run_args(tmp_path), env=board).returncode == 0
    manifest = (tmp_path / "walk/manifest.json").read_text()
    res = sh(*run_args(tmp_path, "--events", "inst_retired,l1d_tlb_refill"), env=board)
    assert res.returncode == 3 and "manifest.json is of other events" in res.stderr
    assert len(res.stderr.splitlines()) == 2  # the choice, then the refusal
    assert (tmp_path / "walk/manifest.json").read_text() == manifest
    assert len(list((tmp_path / "walk/nosplit/boot-1").glob("run-*.csv"))) == 1


def test_a_failed_first_run_leaves_no_manifest(board, tmp_path):
    """The retry with other events then counts, and says so, alone."""
    add_pmus(pathlib.Path(board["TLB_AB_ROOT"]), "cortex-a53")
    res = sh(*run_args(tmp_path, "--events", "inst_retired,cpu_cycles"), env={**board, "FAKE_PERF_FAIL": "1"})
    assert res.returncode == 2 and "perf stat failed" in res.stderr
    assert not (tmp_path / "walk/manifest.json").exists()
    assert sh(*run_args(tmp_path), env=board).returncode == 0
    m = json.loads((tmp_path / "walk/manifest.json").read_text())
    assert m["walk_metric"] == "L1 refills" and len(m["events"]) == 4
    meta = json.loads((tmp_path / "walk/nosplit/boot-1/meta.json").read_text())
    assert meta["events"] == ",".join(m["events"])


def test_paired_walks_both_ranges_abba_in_one_boot(board, tmp_path):
    """The within-boot design over the arm capture: 0x57000000 (fimc-pool,
    split at boot) and 0x60000000 (sections) in ABBA order; both variants'
    boot directories carry this boot's id and the boot's conditions, and
    abstats pairs them (one boot, one arm: too few for an interval)."""
    root = pathlib.Path(board["TLB_AB_ROOT"])
    add_pmus(root, "cortex-a76")
    (root / "sys/devices/system/cpu/cpu0/cpufreq").mkdir(parents=True)
    (root / "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor").write_text("performance\n")
    (root / "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq").write_text("1500000\n")
    (root / "sys/class/thermal/thermal_zone0").mkdir(parents=True)
    (root / "sys/class/thermal/thermal_zone0/type").write_text("cpu-thermal\n")
    (root / "sys/class/thermal/thermal_zone0/temp").write_text("48312\n")
    out = tmp_path / "res"
    res = sh("paired", "--ranges", "0x60000000,0x57000000", "--pages", "64", "--blocks", "2", "-o", out,
             env=board)
    assert res.returncode == 0, res.stderr
    assert "2 ABBA blocks: nosplit 0x60000000 (blocks), split 0x57000000 (pages)" in res.stderr
    for variant, start, mapping in (("nosplit", 0x60000000, "block"), ("split", 0x57000000, "4k")):
        d = out / "walk" / variant / "boot-1"
        assert len(list(d.glob("run-*.csv"))) == 4, variant  # two per ABBA block
        meta = json.loads((d / "meta.json").read_text())
        assert (meta["walk_start"], meta["walk_mapping"], meta["design"]) == (start, mapping, "within")
        assert meta["boot_id"] == "1234-abcd" and meta["warmup_runs"] == 0  # no warm-up in a captured tree
        assert meta["cpufreq_governor"] == "performance" and meta["cpufreq_khz"] == "1500000"
        assert meta["thermal"] == "cpu-thermal=48312"
    assert sh("check", out / "walk", "nosplit", "split").returncode == 0
    doc = abstats.analyse_paths([str(out / "walk")])
    assert doc["design"] == "within"
    r = doc["comparisons"][0]["metrics"]["armv8_cortex_a76/inst_retired/k"]
    assert r["design"] == "within" and r["insufficient"] == "1 boot, need 3"


@pytest.mark.parametrize("ranges, words", [
    ("0x60000000", "--ranges PHYS,PHYS"),
    ("0x60000000,0x60000000", "neither range is split"),
    ("0x57000000,0x57000000", "both ranges are split"),
    ("0x56ff0000,0x60000000", "neither all pages nor all blocks"),
])
def test_paired_refuses_ranges_that_do_not_pair(board, tmp_path, ranges, words):
    res = sh("paired", "--ranges", ranges, "--pages", "4096", "-o", tmp_path / "res", env=board)
    assert res.returncode in (1, 3) and words in res.stderr, res.stderr
    assert not (tmp_path / "res").exists()


def test_make_report_checks_a_results_directory_as_tlb_report_does(tmp_path):
    """make report TLB=DIR runs tlb-ab.sh check first: a split variant that
    is not split is refused before anything is written."""
    make_ab(tmp_path / "walk", b_mapping="block")
    res = subprocess.run(["make", "-s", "report", f"TLB={tmp_path / 'walk'}", f"OUT={tmp_path / 'r.html'}",
                          f"PYTHON={os.environ.get('PYTHON', '/usr/bin/python3')}"],
                         cwd=TOP, capture_output=True, text=True, timeout=300)
    assert res.returncode != 0 and "do not compare a split" in res.stderr, res.stderr
    assert not (tmp_path / "r.html").exists()


def test_meta_says_what_perf_stat_counts(board, tmp_path):
    """Under perf stat the count covers the whole command, and meta.json says
    so (a captured tree's walk file is no walker that counts itself)."""
    add_pmus(pathlib.Path(board["TLB_AB_ROOT"]), "cortex-a76")
    res = sh(*run_args(tmp_path), env=board)
    assert res.returncode == 0, res.stderr
    meta = json.loads((tmp_path / "walk/nosplit/boot-1/meta.json").read_text())
    assert meta["tool"] == "perf stat: the whole command (sh -c, its start and exit too), not only the walk"
    assert "walk: " in res.stderr and "(perf stat)" in res.stderr
