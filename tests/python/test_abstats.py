"""cmadebug_report.abstats and perfcsv: TLB A/B statistics over perf stat -x, runs.

Two kinds of input:
- real 'perf stat -x,' files captured on the development machine
  (tests/fixtures/perf-host/, see its README: no PMU there, so hardware
  events are <not supported>);
- synthetic runs written by this test through perfcsv.write(), which emits
  perf's exact CSV format (VALUE,UNIT,EVENT,RUN_TIME,PERCENT,METRIC,UNIT),
  with values chosen so that medians and ratios are known.
"""
import json
import os
import random
import shutil
import subprocess

import pytest

from conftest import FIXTURES, TOP
from cmadebug_report import InputError, perfcsv
from cmadebug_report import abstats

PYTHON = os.environ.get("PYTHON", "/usr/bin/python3")
REAL = FIXTURES / "perf-host"
NS, NC = perfcsv.NOT_SUPPORTED, perfcsv.NOT_COUNTED


def cli(*args):
    env = dict(os.environ, PYTHONPATH=str(TOP / "reports"))
    return subprocess.run([PYTHON, "-m", "cmadebug_report.abstats", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=120)


def make_results(root, variants, meta=None, walker=None):
    """variants: {name: [[run readings, ...] per boot]} with readings as
    perfcsv.write() takes them; walker(name, boot, run) -> dict or None."""
    for name, boots in variants.items():
        for b, runs in enumerate(boots, 1):
            d = root / name / f"boot-{b}"
            d.mkdir(parents=True)
            m = {"machine": "test board", "kernel": "6.12.0-test", "cmdline": "cma=32M",
                 "layout": f"layout-{name}"}
            (d / "meta.json").write_text(json.dumps(meta or m))
            for r, readings in enumerate(runs, 1):
                (d / f"run-{r}.csv").write_text(perfcsv.write(readings))
                w = walker and walker(name, b, r)
                if w:
                    (d / f"run-{r}.walker.json").write_text(json.dumps(w))
    return root


def run_of(ins, walks, extra=()):
    return [("instructions:k", ins, "", 100.0), ("dtlb_walk:k", walks, "", 100.0), *extra]


class Args:
    def __init__(self, **kw):
        self.results, self.baseline, self.seed, self.iterations = [], None, 1, 2000
        self.instructions_event = self.walk_event = self.tlb_reach = None
        self.json = None
        self.__dict__.update(kw)


def analyse(root, **kw):
    return abstats.analyse_paths([str(root)], Args(results=[str(root)], **kw))


# ---- the perf stat -x, parser ---------------------------------------------

def test_real_capture_not_supported():
    r = perfcsv.parse((REAL / "instructions-cycles.csv").read_text())
    assert list(r) == ["instructions", "cycles"]
    assert all(x.status == "not supported" and x.value is None and x.percent == 100.0 for x in r.values())


def test_real_capture_software_events():
    r = perfcsv.parse((REAL / "kernel-events.csv").read_text())
    assert list(r) == ["instructions:k", "cycles:k", "dTLB-load-misses", "task-clock", "page-faults",
                       "context-switches"]
    assert r["task-clock"].unit == "msec" and r["task-clock"].value > 0
    assert r["page-faults"].value > 0 and r["context-switches"].value == 0


def test_parser_formats():
    text = ("# started on Thu Dec  3 12:06:47 2026\n\n"
            "0.68,msec,task-clock,0.84%,681428,100.00,0.416,CPUs utilized\n"  # perf stat -r
            "1234,,cpu/event=0x3c,umask=0x0/k,1000,100.00,,\n"                # comma in the name
            "<not counted>,,cycles,0,0.00,,\n"
            "77,,r34,500,48.50,,\n")
    r = perfcsv.parse(text)
    assert r["task-clock"].value == 0.68
    assert r["cpu/event=0x3c,umask=0x0/k"].value == 1234
    assert r["cycles"].status == "not counted"
    assert r["r34"].percent == 48.5


@pytest.mark.parametrize("text, words", [
    ("", "no counts"),
    ("CPU0,12.86,msec,task-clock,12863531,100.00,1.000,CPUs utilized\n", "per-CPU"),
    ("hello world\n", "not 'perf stat -x,' output"),
    ("1,,a,1,100.00,,\n2,,a,1,100.00,,\n", "counted twice"),
])
def test_parser_rejects(text, words):
    with pytest.raises(InputError, match=words):
        perfcsv.parse(text, "x.csv")


def test_writer_is_perfs_format():
    """perfcsv.write() (used for the synthetic data) gives the real layout."""
    real = [l for l in (REAL / "instructions-cycles.csv").read_text().splitlines() if l and l[0] != "#"]
    assert perfcsv.write([("instructions", NS, "", 100.0), ("cycles", NS, "", 100.0)]).splitlines() == real


# ---- statistics ------------------------------------------------------------

def test_known_medians_and_ratio_ci(tmp_path):
    """B's walks are 0.8 x A's with noise per boot and per run: the interval
    must hold the true ratio (-20%) and exclude no difference (0%)."""
    rng = random.Random(7)

    def boots(factor):
        out = []
        for _ in range(4):
            be = rng.gauss(0, 0.02)
            out.append([run_of(1_000_000, int(10_000 * factor * (1 + be + rng.gauss(0, 0.01))))
                        for _ in range(6)])
        return out

    root = make_results(tmp_path / "res", {"a-split": boots(1.0), "b-nosplit": boots(0.8)})
    doc = analyse(root)
    assert doc["baseline"] == "a-split" and doc["design"] == "across"
    ga = next(g for g in doc["groups"] if g["variant"] == "a-split")
    assert ga["n_boots"] == 4 and ga["n_runs"] == 24
    assert ga["metrics"]["instructions:k"]["median"] == 1_000_000
    vals = sorted(ga["metrics"]["dtlb_walk:k"]["values"])
    assert ga["metrics"]["dtlb_walk:k"]["median"] == (vals[11] + vals[12]) / 2
    # a boot's value: the 20% trimmed mean of its 6 runs (one dropped at each end)
    first = sorted(ga["metrics"]["dtlb_walk:k"]["boots"][0])
    assert ga["metrics"]["dtlb_walk:k"]["boot_values"][0] == pytest.approx(sum(first[1:5]) / 4)
    walks = ga["metrics"]["walks_per_1k_instructions"]
    assert walks["median"] == pytest.approx(ga["metrics"]["dtlb_walk:k"]["median"] / 1000)
    c = doc["comparisons"][0]["metrics"]["dtlb_walk:k"]
    lo, hi = c["ci95"]
    assert lo < -0.2 < hi and hi < 0, c
    assert lo < c["rel_diff"] < hi and c["p"] < 0.001 and c["design"] == "across"
    assert c["boots_to_resolve"]["boots"] >= 3 and c["boots_to_resolve"]["effect"] == 0.005
    ins = doc["comparisons"][0]["metrics"]["instructions:k"]
    assert ins["rel_diff"] == 0 and ins["ci95"] == [0, 0]  # all equal: zero width
    assert analyse(root) == doc  # nothing random


def test_t_interval_by_hand(tmp_path):
    """Welch's interval over per-boot values, checked against the formula
    with t(0.975, 4) = 2.7764 (equal log variances, 3 boots each: df = 4)."""
    import math
    a_vals, b_vals = [1000, 2000, 4000], [3000, 6000, 12000]
    root = make_results(tmp_path / "r", {"a": [[run_of(v, 10)] for v in a_vals],
                                         "b": [[run_of(v, 10)] for v in b_vals]})
    r = analyse(root)["comparisons"][0]["metrics"]["instructions:k"]
    la, lb = [math.log(v) for v in a_vals], [math.log(v) for v in b_vals]
    d = sum(lb) / 3 - sum(la) / 3

    def var(x):
        m = sum(x) / len(x)
        return sum((v - m) ** 2 for v in x) / (len(x) - 1)

    se = math.sqrt(var(la) / 3 + var(lb) / 3)
    assert r["rel_diff"] == pytest.approx(math.expm1(d))
    assert r["ci95"] == pytest.approx([math.expm1(d - 2.7764 * se), math.expm1(d + 2.7764 * se)], rel=1e-4)


def test_all_equal_zero_width(tmp_path):
    root = make_results(tmp_path / "r", {"a": [[run_of(1000, 10)] * 3] * 3, "b": [[run_of(1000, 20)] * 3] * 3})
    doc = analyse(root)
    w = doc["comparisons"][0]["metrics"]["dtlb_walk:k"]
    assert w["rel_diff"] == pytest.approx(1) and w["ci95"] == pytest.approx([1, 1])
    assert "all boots equal: zero-width interval" in w["note"]


@pytest.mark.parametrize("boots", [1, 2])
def test_too_few_boots_insufficient(tmp_path, boots):
    """Below 3 boots per variant: the estimate, no interval, exit 4."""
    root = make_results(tmp_path / "r", {"a": [[run_of(1000, 10), run_of(1000, 11)]] * boots,
                                         "b": [[run_of(1000, 12), run_of(1000, 13)]] * boots})
    doc = analyse(root)
    w = doc["comparisons"][0]["metrics"]["dtlb_walk:k"]
    assert w["ci95"] is None and w["insufficient"] == f"{boots} boot{'s' if boots > 1 else ''} of a variant, need 3 of each"
    assert w["rel_diff"] == pytest.approx(12.5 / 10.5 - 1)
    assert f"insufficient: {boots} boot" in abstats.format_text(doc)
    res = cli(root)
    assert res.returncode == 4, res
    assert res.stderr.startswith("abstats: insufficient: b vs a, ") and len(res.stderr.splitlines()) == 1


def within_results(root, effect, arms=True, boots=4, runs=8, seed=3, placement=0.01):
    """Within-boot results: each boot measured both ranges (same boot_id),
    the split range swapped between boots when ARMS; range X is slower by
    PLACEMENT whether split or not."""
    rng = random.Random(seed)
    ranges = {"X": 0x48000000, "Y": 0x50000000}
    for b in range(1, boots + 1):
        split_range = "X" if not arms or b % 2 else "Y"
        for variant in ("nosplit", "split"):
            rng_name = split_range if variant == "split" else ("Y" if split_range == "X" else "X")
            d = root / variant / f"boot-{b}"
            d.mkdir(parents=True)
            (d / "meta.json").write_text(json.dumps({
                "machine": "test board", "kernel": "6.12.0-test", "cmdline": "linear_map_split=16M@0x48000000",
                "layout": "l", "boot_id": f"id-{b}", "walk_start": ranges[rng_name], "walk_pages": 4096}))
            level = (1 + effect if variant == "split" else 1) * (1 + placement if rng_name == "X" else 1)
            for r in range(1, runs + 1):
                (d / f"run-{r}.csv").write_text(perfcsv.write(
                    run_of(1_000_000, int(20_000 * level * (1 + rng.gauss(0, 0.002))))))
    return root


def test_within_boot_crossover_cancels_placement(tmp_path):
    """Range X is 1% slower whichever is split; the split costs +0.5%.  The
    crossover's estimate holds +0.5%; without the swap X's 1% is in it."""
    doc = analyse(within_results(tmp_path / "c", 0.005))
    assert doc["design"] == "within"
    r = doc["comparisons"][0]["metrics"]["dtlb_walk:k"]
    assert r["design"] == "crossover" and r["boots"] == 4
    assert r["ci95"][0] < 0.005 < r["ci95"][1] and r["ci95"][0] > 0, r
    one = analyse(within_results(tmp_path / "o", 0.005, arms=False))
    r1 = one["comparisons"][0]["metrics"]["dtlb_walk:k"]
    assert r1["design"] == "within" and r1["rel_diff"] == pytest.approx(1.005 * 1.01 - 1, abs=0.002)
    assert any("every boot split the same range" in n for n in one["notes"])
    short = analyse(within_results(tmp_path / "s", 0.005, boots=3))
    rs = short["comparisons"][0]["metrics"]["dtlb_walk:k"]
    assert rs["insufficient"] == "1 boot in an arm of the crossover, need 2 per arm"


def test_zero_is_a_zero_unless_every_run_reads_zero(tmp_path):
    """Walks that read 0 in some runs are real zeros (a small working set);
    an event that reads 0 in every run of every boot is not counted."""
    def run(walks):
        return run_of(1000, walks, [("l2d_tlb_refill:k", 0, "", 100.0)])

    root = make_results(tmp_path / "r", {"a": [[run(0)] * 3, [run(0)] * 3, [run(0), run(0), run(2)]],
                                         "b": [[run(4), run(0), run(6)]] * 3})
    doc = analyse(root)
    ga = doc["groups"][0]["metrics"]
    assert ga["dtlb_walk:k"]["median"] == 0 and ga["walks_per_1k_instructions"]["status"] == "ok"
    assert ga["l2d_tlb_refill:k"]["status"] == "not supported"
    assert "reads 0 in every run of every boot" in ga["l2d_tlb_refill:k"]["reason"]
    assert doc["method"]["not_counted"] == ["l2d_tlb_refill:k"]
    c = doc["comparisons"][0]["metrics"]["dtlb_walk:k"]
    assert c["scale"] == "linear" and c["rel_diff"] == pytest.approx((10 / 3) / (2 / 9) - 1)


@pytest.mark.parametrize("change, words", [
    (lambda r: (r / "b/boot-2/run-1.csv").write_text(perfcsv.write(
        run_of(1000, 10, [("cycles:k", 5, "", 100.0)]))), "refusing to pool runs with different events"),
    (lambda r: (r / "b/boot-2/meta.json").write_text(json.dumps({"kernel": "6.12.1-other"})),
     "refusing to pool runs with different kernels: a/boot-1 has 6.12.0-test, b/boot-2 has 6.12.1-other"),
    (lambda r: (r / "b/boot-2/run-1.walker.json").write_text(json.dumps(
        {"working_set_bytes": 1 << 20, "accesses": 500_000, "elapsed_ns": 1})),
     "refusing to pool runs with different walker parameters (accesses at working set 1 MiB)"),
])
def test_mixed_runs_refused(tmp_path, change, words):
    def walker(name, b, r):
        return {"working_set_bytes": 1 << 20, "accesses": 1_000_000, "elapsed_ns": 1}

    root = make_results(tmp_path / "r", {"a": [[run_of(1000, 10)]] * 3, "b": [[run_of(1000, 10)]] * 3},
                        walker=walker)
    change(root)
    with pytest.raises(InputError, match=words.replace("(", r"\(").replace(")", r"\)")):
        analyse(root)


def test_metric_named_for_what_it_counts(tmp_path):
    """L1 refills are not walks: the metric says l1_tlb_refills."""
    def run(v):
        return [("instructions:k", 1000, "", 100.0), ("l1d_tlb_refill:k", v, "", 100.0),
                ("l1i_tlb_refill:k", 1, "", 100.0)]

    root = make_results(tmp_path / "r", {"a": [[run(10)]] * 3, "b": [[run(12)]] * 3})
    doc = analyse(root)
    assert doc["tlb_metric"] == "l1_tlb_refills_per_1k_instructions"
    assert doc["groups"][0]["metrics"]["l1_tlb_refills_per_1k_instructions"]["median"] == 11
    assert "walks_per_1k_instructions" not in doc["groups"][0]["metrics"]
    (root / "manifest.json").write_text(json.dumps({"walk_metric": "L2 refills",
                                                    "walk_events": ["l1d_tlb_refill:k"]}))
    assert analyse(root)["tlb_metric"] == "l2_tlb_refills_per_1k_instructions"


def test_a_core_without_tlb_events(tmp_path):
    """cmadebug tlb events found none (QEMU's PMU): the manifest says so and
    the metric is "not supported", with the PMU's inst_retired counted."""
    def run(v):
        return [("armv8_pmuv3/inst_retired/k", v, "", 100.0), ("armv8_pmuv3/cpu_cycles/k", 3 * v, "", 100.0)]

    root = make_results(tmp_path / "r", {"a": [[run(1000)]] * 3, "b": [[run(1010)]] * 3})
    (root / "manifest.json").write_text(json.dumps({"instructions_event": "armv8_pmuv3/inst_retired/k",
                                                    "walk_metric": "not supported", "walk_events": []}))
    doc = analyse(root)
    m = doc["groups"][0]["metrics"]["tlb_events_per_1k_instructions"]
    assert m == {"status": "not supported", "reason": "the PMU lists no TLB walk or refill event"}
    assert doc["comparisons"][0]["metrics"]["armv8_pmuv3/inst_retired/k"]["rel_diff"] == pytest.approx(0.01)
    (root / "manifest.json").unlink()
    assert abstats.Config({}, Args()).instructions_event(perfcsv.parse(perfcsv.write(run(1)))) == \
        "armv8_pmuv3/inst_retired/k"


def test_multiplexed_and_not_counted_runs_rejected(tmp_path):
    good = run_of(1000, 10)
    mux = [("instructions:k", 1000, "", 100.0), ("dtlb_walk:k", 99999, "", 62.5)]
    nc = [("instructions:k", 1000, "", 100.0), ("dtlb_walk:k", NC, "", 0.0)]
    root = make_results(tmp_path / "r", {"a": [[good, mux, good]], "b": [[good, nc, good]]})
    doc = analyse(root)
    assert [r["run"] for r in doc["rejected"]] == ["a/boot-1/run-2.csv", "b/boot-1/run-2.csv"]
    assert "62.50%" in doc["rejected"][0]["reason"] and "not counted" in doc["rejected"][1]["reason"]
    assert all(g["n_runs"] == 2 for g in doc["groups"])
    assert "rejected a/boot-1/run-2.csv: multiplexed" in abstats.format_text(doc)


def test_not_supported_is_never_a_number(tmp_path):
    """<not supported>, and 0 in every run of a counter that cannot be 0, are
    'not supported'; 0 page-faults is a count."""
    run = run_of(1000, 10, [("l2d_tlb_refill:k", NS, "", 100.0), ("cycles:k", 0, "", 100.0),
                            ("page-faults", 0, "", 100.0)])
    root = make_results(tmp_path / "r", {"a": [[run] * 2] * 2, "b": [[run] * 2] * 2})
    doc = analyse(root)
    for g in doc["groups"]:
        for ev in ("l2d_tlb_refill:k", "cycles:k"):
            m = g["metrics"][ev]
            assert m["status"] == "not supported" and "median" not in m, m
        assert g["metrics"]["page-faults"]["median"] == 0
    cm = doc["comparisons"][0]["metrics"]
    assert cm["l2d_tlb_refill:k"] == {"status": "not supported", "reason": "perf: <not supported>"}
    assert cm["cycles:k"]["reason"] == "reads 0 in every run of every boot: this core does not count it"
    assert cm["page-faults"]["status"] == "no ratio"
    text = abstats.format_text(doc)
    assert "l2d_tlb_refill:k                     not supported (perf: <not supported>)" in text


def test_real_capture_as_a_run_reports_not_supported(tmp_path):
    """The real captures from this machine as both variants: every hardware
    event and the walks metric are 'not supported', the software ones count."""
    for v in ("a", "b"):
        for b in (1, 2):
            d = tmp_path / "r" / v / f"boot-{b}"
            d.mkdir(parents=True)
            (d / "meta.json").write_text("{}")
            for r in (1, 2):
                shutil.copy(REAL / "kernel-events.csv", d / f"run-{r}.csv")
    doc = analyse(tmp_path / "r", walk_event=["dTLB-load-misses"])
    g = doc["groups"][0]["metrics"]
    assert doc["tlb_metric"] == "tlb_misses_per_1k_instructions"
    for ev in ("instructions:k", "cycles:k", "dTLB-load-misses", doc["tlb_metric"]):
        assert g[ev]["status"] == "not supported", (ev, g[ev])
    assert g["task-clock"]["status"] == "ok"
    assert doc["variants"][0]["machine"] == ["unknown"]


def test_walker_ns_per_access_and_sweep(tmp_path):
    """Walks per 1k instructions step up between 4 MiB and 8 MiB (known data)."""
    sizes = [1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20]
    walks_at = {1 << 20: 10, 2 << 20: 12, 4 << 20: 15, 8 << 20: 400, 16 << 20: 420}

    rng = random.Random(5)

    def boots(name):
        return [[run_of(100_000, round(walks_at[s] * (1 + rng.gauss(0, 0.02)))) for s in sizes for _ in range(2)]
                for _ in range(3)]

    def walker(name, b, r):
        s = sizes[(r - 1) // 2]
        return {"working_set_bytes": s, "accesses": s // 4096, "elapsed_ns": (s // 4096) * 50}

    root = make_results(tmp_path / "r", {"a": boots("a"), "b": boots("b")}, walker=walker)
    (root / "manifest.json").write_text(json.dumps({"baseline": "b", "tlb_reach_bytes": 6 << 20}))
    doc = analyse(root)
    assert doc["baseline"] == "b"
    assert len(doc["groups"]) == 10 and len(doc["comparisons"]) == 5
    g = next(g for g in doc["groups"] if g["variant"] == "a" and g["working_set_bytes"] == 8 << 20)
    assert g["metrics"]["ns_per_access"]["median"] == 50
    assert g["metrics"]["walks_per_1k_instructions"]["median"] == pytest.approx(4, abs=0.2)
    sw = next(s for s in doc["sweeps"] if s["variant"] == "a")
    assert sw["step"]["from_bytes"] == 4 << 20 and sw["step"]["to_bytes"] == 8 << 20
    assert sw["tlb_reach_bytes"] == 6 << 20
    assert sw["step"]["p_holm"] < 0.05 and sw["step"]["ci95"][0] > 0 and sw["family"] == 4
    text = abstats.format_text(doc)
    assert "sweep a: walks_per_1k_instructions jumps between 4 MiB and 8 MiB (0.15" in text
    assert "; TLB reach 6 MiB" in text


def test_sweep_step_needs_an_interval_that_excludes_zero(tmp_path):
    """Noise alone (no rise between sizes): no step is claimed."""
    rng = random.Random(9)
    sizes = [1 << 20, 2 << 20, 4 << 20]

    def boots():
        return [[run_of(100_000, round(100 * (1 + rng.gauss(0, 0.05)))) for s in sizes for _ in range(2)]
                for _ in range(3)]

    def walker(name, b, r):
        s = sizes[(r - 1) // 2]
        return {"working_set_bytes": s, "accesses": s // 4096, "elapsed_ns": 1}

    doc = analyse(make_results(tmp_path / "r", {"a": boots(), "b": boots()}, walker=walker))
    for sw in doc["sweeps"]:
        assert sw["step"] is None and "no rise" in sw["no_step"], sw


# ---- the command line ------------------------------------------------------

def test_cli_text_and_json(tmp_path):
    root = make_results(tmp_path / "r", {"a": [[run_of(1000, 10), run_of(1000, 11)]] * 3,
                                         "b": [[run_of(1000, 20), run_of(1000, 21)]] * 3})
    res = cli(root, "--json", tmp_path / "o.json")
    assert res.returncode == 0, res.stderr
    assert "b vs a: relative difference, 95% interval" in res.stdout
    doc = json.loads((tmp_path / "o.json").read_text())
    assert doc["schema"] == "cmadebug-abstats" and doc["version"] == 2
    # Variant directories given one by one: the first is the baseline.
    res = cli(root / "b", root / "a")
    assert res.returncode == 0 and "a vs b:" in res.stdout


@pytest.mark.parametrize("setup, words", [
    (lambda r: make_results(r, {"a": [[run_of(1000, 10)]]}), "only one variant (a)"),
    (lambda r: r.mkdir(), "no variant directories"),
    (lambda r: make_results(r, {"a": [[[("instructions:k", 1, "", 50.0)]]], "b": [[run_of(1, 1)]]}),
     "variant a: every run was rejected"),
    (lambda r: (make_results(r, {"a": [[run_of(1, 1)]], "b": [[run_of(1, 1)]]}),
                (r / "a/boot-1/meta.json").unlink()), "meta.json: missing"),
    (lambda r: (make_results(r, {"a": [[run_of(1, 1)]], "b": [[run_of(1, 1)]]}),
                (r / "a/boot-1/run-1.csv").write_text("garbage\n")), "run-1.csv:1: not 'perf stat -x,'"),
])
def test_cli_degenerate_input_exit_2(tmp_path, setup, words):
    setup(tmp_path / "r")
    res = cli(tmp_path / "r")
    assert res.returncode == 2, res
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and words in lines[0] and lines[0].startswith("abstats: "), lines


def test_cli_missing_baseline_and_usage(tmp_path):
    make_results(tmp_path / "r", {"a": [[run_of(1, 1)]], "b": [[run_of(1, 1)]]})
    res = cli(tmp_path / "r", "--baseline", "c")
    assert res.returncode == 2 and "baseline variant 'c' not found (variants: a, b)" in res.stderr
    assert cli().returncode == 1
    assert cli(tmp_path / "r", "--resolve", "150%").returncode == 1


def test_cli_until_sequential_mode(tmp_path):
    """--until: exit 0 once every interval of the metric is that narrow, 5
    while it is not or there are too few boots; a metric that is not
    measured is an error (exit 2)."""
    rng = random.Random(3)

    def boots(n, walks):
        return [[run_of(1_000_000, round(walks * (1 + rng.gauss(0, 0.01)))) for _ in range(3)]
                for _ in range(n)]

    root = make_results(tmp_path / "r", {"a": boots(4, 10_000), "b": boots(4, 12_000)})
    res = cli(root, "--until", "50%")
    assert res.returncode == 0 and "abstats: done: walks_per_1k_instructions" in res.stderr, res.stderr
    res = cli(root, "--until", "0.01%")
    assert res.returncode == 5 and "abstats: not yet: walks_per_1k_instructions: +-" in res.stderr, res.stderr
    assert "want +-0.01%" in res.stderr
    res = cli(root, "--until", "50%", "--until-metric", "instructions:k")
    assert res.returncode == 0, res.stderr
    short = make_results(tmp_path / "s", {"a": boots(2, 10_000), "b": boots(2, 12_000)})
    res = cli(short, "--until", "50%")
    assert res.returncode == 5 and "insufficient: 2 boots of a variant, need 3 of each" in res.stderr
    res = cli(root, "--until", "50%", "--until-metric", "ns_per_access")
    assert res.returncode == 2 and "--until: ns_per_access is not measured" in res.stderr, res.stderr
    assert cli(root, "--until", "zz").returncode == 1
    # the advice follows --resolve
    doc = json.loads(cli(root, "--resolve", "2%", "--json", "-").stdout)
    assert doc["method"]["resolve"] == 0.02
    r = doc["comparisons"][0]["metrics"]["dtlb_walk:k"]
    assert r["boots_to_resolve"]["effect"] == 0.02
