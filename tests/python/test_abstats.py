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
    assert doc["baseline"] == "a-split"
    ga = next(g for g in doc["groups"] if g["variant"] == "a-split")
    assert ga["n_boots"] == 4 and ga["n_runs"] == 24
    assert ga["metrics"]["instructions:k"]["median"] == 1_000_000
    vals = sorted(ga["metrics"]["dtlb_walk:k"]["values"])
    assert ga["metrics"]["dtlb_walk:k"]["median"] == (vals[11] + vals[12]) / 2
    walks = ga["metrics"]["walks_per_1k_instructions"]
    assert walks["median"] == pytest.approx(ga["metrics"]["dtlb_walk:k"]["median"] / 1000)
    c = doc["comparisons"][0]["metrics"]["dtlb_walk:k"]
    lo, hi = c["ci95"]
    assert lo < -0.2 < hi and hi < 0, c
    assert lo < c["rel_diff"] < hi
    ins = doc["comparisons"][0]["metrics"]["instructions:k"]
    assert ins["rel_diff"] == 0 and ins["ci95"] == [0, 0]  # all equal: zero width
    # Seeded: the same input gives the same document, another seed another interval.
    assert analyse(root) == doc
    assert analyse(root, seed=2)["comparisons"][0]["metrics"]["dtlb_walk:k"]["ci95"] != [lo, hi]


def test_bootstrap_resamples_boots_then_runs():
    """Boots of different sizes keep their sizes: each resample has as many
    values as the original, drawn from whole boots."""
    rng = random.Random(1)
    boots = [[1.0, 1.0, 1.0], [5.0]]
    for _ in range(50):
        s = abstats.hierarchical_resample(rng, boots)
        assert set(s) <= {1.0, 5.0}
        assert len(s) in (2, 4, 6)  # 1+1, 3+1 or 3+3 (boots drawn with replacement)
    assert abstats.percentile([1, 2, 3, 4], 0.5) == 2.5


def test_all_equal_zero_width(tmp_path):
    root = make_results(tmp_path / "r", {"a": [[run_of(1000, 10)] * 3] * 2, "b": [[run_of(1000, 20)] * 3] * 2})
    doc = analyse(root)
    w = doc["comparisons"][0]["metrics"]["dtlb_walk:k"]
    assert w["ratio"] == 2 and w["ci95"] == [1, 1]
    assert "all runs equal: zero-width interval" in w["note"]


def test_one_run_no_interval(tmp_path):
    root = make_results(tmp_path / "r", {"a": [[run_of(1000, 10)]], "b": [[run_of(1000, 12)]]})
    doc = analyse(root)
    w = doc["comparisons"][0]["metrics"]["dtlb_walk:k"]
    assert w["ci95"] is None and "one run: no interval" in w["note"]
    assert w["rel_diff"] == pytest.approx(0.2)
    assert "no interval" in abstats.format_text(doc)


def test_one_boot_is_said(tmp_path):
    root = make_results(tmp_path / "r", {"a": [[run_of(1000, 10), run_of(1000, 11)]],
                                         "b": [[run_of(1000, 12), run_of(1000, 13)]]})
    doc = analyse(root)
    assert "one boot: the interval covers run-to-run variation only" in \
        doc["comparisons"][0]["metrics"]["dtlb_walk:k"]["note"]


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
    """<not supported>, and 0 on a counter that cannot be 0, are 'not supported';
    0 page-faults is a count."""
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
    assert cm["cycles:k"]["reason"] == "reads 0 on a counter that cannot be 0"
    assert cm["page-faults"]["status"] == "no ratio"
    text = abstats.format_text(doc)
    assert "l2d_tlb_refill:k                 not supported (perf: <not supported>)" in text


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
    for ev in ("instructions:k", "cycles:k", "dTLB-load-misses", "walks_per_1k_instructions"):
        assert g[ev]["status"] == "not supported", (ev, g[ev])
    assert g["task-clock"]["status"] == "ok"
    assert doc["variants"][0]["machine"] == ["unknown"]


def test_walker_ns_per_access_and_sweep(tmp_path):
    """Walks per 1k instructions step up between 4 MiB and 8 MiB (known data)."""
    sizes = [1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20]
    walks_at = {1 << 20: 10, 2 << 20: 12, 4 << 20: 15, 8 << 20: 400, 16 << 20: 420}

    def boots(name):
        return [[run_of(100_000, walks_at[s]) for s in sizes for _ in range(2)] for _ in range(2)]

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
    assert g["metrics"]["walks_per_1k_instructions"]["median"] == 4
    sw = next(s for s in doc["sweeps"] if s["variant"] == "a")
    assert sw["step"]["from_bytes"] == 4 << 20 and sw["step"]["to_bytes"] == 8 << 20
    assert sw["tlb_reach_bytes"] == 6 << 20
    assert "jumps between 4 MiB and 8 MiB (0.15 -> 4); TLB reach 6 MiB" in abstats.format_text(doc)


# ---- the command line ------------------------------------------------------

def test_cli_text_and_json(tmp_path):
    root = make_results(tmp_path / "r", {"a": [[run_of(1000, 10), run_of(1000, 11)]] * 2,
                                         "b": [[run_of(1000, 20), run_of(1000, 21)]] * 2})
    res = cli(root, "--json", tmp_path / "o.json")
    assert res.returncode == 0, res.stderr
    assert "b vs a: relative difference, 95% CI" in res.stdout
    doc = json.loads((tmp_path / "o.json").read_text())
    assert doc["schema"] == "cmadebug-abstats" and doc["version"] == 1
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
    assert cli(tmp_path / "r", "--iterations", "5").returncode == 1
