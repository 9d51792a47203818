"""python3 -m cmadebug_report compare: make compare's side-by-side report.

tests/fixtures/compare-arm/ is one real 'make compare COMPARE_BOOTS=3' run on
the arm board (scripts/compare.sh arm: each of the four strategies booted
three times with one kernel; build/compare/arm/ copied without
kernel_page_tables and the empty .err files).  tests/fixtures/compare-arm-tlb/
abstats.json is 'make tlb-report' over the TLB A/B boots of the same kernel
(qemu-run.sh arm test main and forced-split): QEMU's arm guest has no PMU, so
its TLB events are "not supported".  Golden files:
tests/python/golden/compare-arm.{txt,json}; after an intended change,
CMADEBUG_UPDATE_GOLDEN=1 and review the diff.  Where a test needs what the
runs did not give (a failed expectation, bad input, a TLB cost with a
number, one boot), it edits a copy and says so.
"""
import json
import shutil

import pytest

from conftest import FIXTURES
from test_report import assert_one_line, check_page, golden, Page, report

RUN = FIXTURES / "compare-arm"
TLB = FIXTURES / "compare-arm-tlb" / "abstats.json"
STRATEGIES = ["a-split", "b-highmem", "c-carveout", "d-sections"]
BOOTS = ["boot-1", "boot-2", "boot-3"]
SECTIONS = ["decision", "strategies", "memory", "linear-map", "alias", "allocation", "failures",
            "tlb", "checks"]
ROWS = ["memory", "page-tables", "splits", "alias", "migrated", "failures", "latency", "tlb"]


def compare(*args):
    return report("compare", *args)


def summary_of(*args):
    res = compare(*args, "--summary-json", "-")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def cells(summary, row):
    return next(r for r in summary["decision"] if r["id"] == row)["cells"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(text, summary, html) of the recorded run, --check on."""
    out = tmp_path_factory.mktemp("compare")
    res = compare(RUN, "--check", "-o", out / "r.html", "--summary-json", out / "s.json")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    return res.stdout, json.loads((out / "s.json").read_text()), (out / "r.html").read_text()


def test_golden_text(run):
    golden("compare-arm.txt", run[0])


def test_golden_json(run):
    golden("compare-arm.json", json.dumps(run[1], indent=1) + "\n")


def facts(strategy, boot="boot-1"):
    return dict(line.split("=", 1) for line in (RUN / strategy / boot / "facts.txt").read_text().splitlines())


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_numbers_agree_with_the_guest(run, strategy):
    """Per boot, the snapshot's splits and alias (after.json) say what the
    guest read from debugfs itself (facts.txt); memory is facts' /proc/meminfo."""
    st = next(s for s in run[1]["strategies"] if s["name"] == strategy)
    assert st["boots"] == BOOTS
    for i, boot in enumerate(BOOTS):
        f = facts(strategy, boot)
        assert st["per_boot"]["splits"][i] == int(f["splits"])
        assert st["per_boot"]["alias_conflicts"][i] == int(f["conflicts"])
        assert st["per_boot"]["memtotal_kb"][i] == int(f["memtotal_kb"])
        assert f"p50_ns={st['per_boot']['p50_ns'][i]} " in f["load"]
        assert f"cmadebug.strategy={strategy}" in f["cmdline"]
    p50 = st["figures"]["p50_ns"]
    assert p50["median"] == sorted(st["per_boot"]["p50_ns"])[1] and p50["boots"] == 3
    assert st["tlb"]["status"] == "not supported"


def test_what_must_differ(run):
    _, summary, _ = run
    by = {s["name"]: s["figures"] for s in summary["strategies"]}
    assert [s["name"] for s in summary["strategies"]] == STRATEGIES
    assert by["a-split"]["splits"]["min"] > 0 and by["a-split"]["alias_conflicts"]["max"] == 0
    assert by["b-highmem"]["splits"]["max"] == 0 and by["b-highmem"]["alias_conflicts"]["max"] == 0
    assert by["c-carveout"]["memtotal_kb"]["max"] < min(
        by[n]["memtotal_kb"]["min"] for n in ("a-split", "b-highmem", "d-sections"))
    assert by["c-carveout"]["splits"]["max"] == 0
    assert by["d-sections"]["splits"]["max"] == 0 and by["d-sections"]["alias_conflicts"]["min"] > 0
    assert all(c["ok"] for c in summary["checks"]), summary["checks"]
    assert summary["kernel"] is not None  # one kernel for all twelve boots
    assert summary["not_compared"] == []


def test_decision_table_cells(run):
    """The costs the recorded boots show, each cell ranked against the others."""
    _, summary, _ = run
    assert [r["id"] for r in summary["decision"]] == ROWS
    cls = {r["id"]: {n: c["class"] for n, c in r["cells"].items()} for r in summary["decision"]}
    # 16 MiB carved out and the split's page tables are memory lost; the others lose none.
    assert cls["memory"] == {"a-split": "worse", "b-highmem": "best", "c-carveout": "worse",
                             "d-sections": "best"}
    assert cls["page-tables"]["a-split"] == "worse" and cls["page-tables"]["c-carveout"] == "best"
    assert cls["splits"]["a-split"] == "worse"
    assert cls["alias"]["d-sections"] == "worse"
    # The highmem pool is where page cache lands first: only b-highmem migrates.
    assert cls["migrated"]["b-highmem"] == "worse"
    migrated = cells(summary, "migrated")["b-highmem"]["text"]
    st = next(s for s in summary["strategies"] if s["name"] == "b-highmem")
    assert st["figures"]["pages_migrated"]["min"] > 0
    assert migrated.startswith(f"{st['figures']['pages_migrated']['median']:g} (")
    assert "3 boots" in migrated
    assert set(cls["failures"].values()) == {"even"}
    assert cls["tlb"] == {"a-split": "unknown", "b-highmem": "none", "c-carveout": "none",
                          "d-sections": "none"}
    mem = cells(summary, "memory")
    assert mem["b-highmem"]["text"] == "0 KiB (same in 3 boots)"
    assert mem["c-carveout"]["text"] == "16 MiB (same in 3 boots)"


def test_no_negative_zero_and_no_none_seen(run):
    text, summary, html = run
    for where in (text, html, json.dumps(summary)):
        assert "-0 KiB" not in where and "none seen" not in where


def test_answer(run):
    _, summary, _ = run
    ans = summary["answer"]
    assert "d-sections is left out: unsafe: never ship" in ans["text"]
    assert set(ans["scores"]) == {"a-split", "b-highmem", "c-carveout"}
    assert ans["choice"] == [min(ans["scores"], key=ans["scores"].get)]
    # The split's TLB cost is not known here, and the answer says so.
    assert "Not known for a-split: tlb" in ans["text"]
    assert "weights: memory 1 per MiB" in ans["text"]


def test_weights_change_the_answer():
    """Latency weighted heavily and memory not at all: the carve-out (fastest
    here, and only its memory against it) wins."""
    default = summary_of(RUN)
    heavy = summary_of(RUN, "--weights", "memory=0,page-tables=0,latency=100")
    assert heavy["answer"]["weights"]["latency"] == 100
    assert heavy["answer"]["choice"] == ["c-carveout"] != default["answer"]["choice"]
    assert "latency 100 per ms of p50" in heavy["answer"]["text"]


@pytest.mark.parametrize("weights, words", [
    ("speed=1", ["--weights", "speed=1", "memory"]),
    ("latency=fast", ["--weights", "latency", "not a number"]),
    ("latency=-1", ["--weights", "latency", ">= 0"]),
    ("latency=nan", ["--weights", "latency", ">= 0"]),
])
def test_bad_weights_exit_1(weights, words):
    assert_one_line(compare(RUN, "--weights", weights, "-q"), 1, *words)


def test_conditions_per_strategy(run):
    _, summary, _ = run
    cond = {s["name"]: s["condition"] for s in summary["strategies"]}
    assert cond["a-split"]["applies"] is True and "lowmem" in cond["a-split"]["requirement"]
    assert cond["b-highmem"]["applies"] is True and "HIGHMEM" in cond["b-highmem"]["requirement"]
    assert "HighTotal 256 MiB" in cond["b-highmem"]["here"] and "fimc-pool at PA 0x" in cond["b-highmem"]["here"]
    assert "dedicated pool" in cond["c-carveout"]["requirement"] and "16 MiB carved out" in cond["c-carveout"]["here"]
    assert cond["d-sections"]["unsafe"] and cond["d-sections"]["requirement"].startswith("unsafe: never ship")


def test_highmem_condition_fails_without_highmem(tmp_path):
    """Synthetic: HighTotal 0 in b-highmem's facts; it no longer applies and is left out."""
    d = _copy(tmp_path)
    for boot in BOOTS:
        _facts(d, f"b-highmem/{boot}", "hightotal_kb", "0")
    summary = summary_of(d)
    b = next(s for s in summary["strategies"] if s["name"] == "b-highmem")
    assert b["condition"]["applies"] is False
    assert "b-highmem" not in summary["answer"]["scores"]
    assert "b-highmem is left out: it needs HIGHMEM" in summary["answer"]["text"]


def test_html(run):
    text, summary, html = run
    page = check_page(html)
    assert [sid for sid, _ in page.sections] == SECTIONS
    # Memory difference, the linear-map layout and the latency per boot; no failure, so no failure figure.
    assert len(page.imgs) == 3
    assert "<pre" not in html
    assert "No failed attempt in any strategy." in page.section_text["failures"]
    alloc = page.section_text["allocation"]
    assert "QEMU TCG virtual time" in alloc and "max" not in alloc.lower().replace("maximum", "")
    decision = page.section_text["decision"]
    assert summary["answer"]["text"] in decision
    for r in summary["decision"]:
        assert r["label"] in decision
    assert "unsafe: never ship" in decision
    # Provenance once: the kernel's /proc/version is on the page exactly once.
    assert html.count(summary["kernel"].replace("(", "(")) == 1
    assert "make tlb-report" in page.section_text["tlb"]
    assert "0x57000" in page.section_text["alias"] and "failed-change" in page.section_text["alias"]
    for c in ("best", "worse", "even", "none", "unknown", "unsafe"):
        assert f'class="{c}"' in html, c


def test_tlb_result_of_this_board(tmp_path):
    """The recorded TLB A/B of the same kernel (QEMU: events not supported)."""
    summary = summary_of(RUN, "--tlb", TLB)
    cell = cells(summary, "tlb")["a-split"]
    assert cell["class"] == "unknown"
    # QEMU's arm guest has no PMU: perf lists no TLB event to count.
    assert cell["text"].startswith("not supported in the TLB A/B (the PMU lists no TLB walk or refill event)")
    assert summary["tlb"]["source"] == str(TLB)
    assert cells(summary, "tlb")["b-highmem"]["class"] == "none"


def _tlb_with_number(tmp_path, rel, lo, hi):
    """Synthetic: the recorded TLB result with the walks metric measured."""
    doc = json.loads(TLB.read_text())
    for c in doc["comparisons"]:
        c["metrics"][doc["tlb_metric"]] = {
            "status": "ok", "median_baseline": 2.0, "median": 2.0 * (1 + rel),
            "rel_diff": rel, "ci95": [lo, hi]}
    path = tmp_path / "tlb.json"
    path.write_text(json.dumps(doc))
    return path


def test_tlb_cost_with_its_interval(tmp_path):
    summary = summary_of(RUN, "--tlb", _tlb_with_number(tmp_path, 0.25, 0.1, 0.4))
    cell = cells(summary, "tlb")["a-split"]
    assert cell["class"] == "worse"
    assert cell["text"].startswith("+25.00% TLB events per 1k instructions [+10.00%, +40.00%] (95% interval) "
                                   "walking 16 MiB, split vs nosplit")
    assert cell["points"] == pytest.approx(0.1 * 25)
    assert "2.5 for tlb" in summary["answer"]["text"]
    assert "Not known for a-split" not in summary["answer"]["text"]


def test_tlb_interval_across_zero_is_no_cost(tmp_path):
    summary = summary_of(RUN, "--tlb", _tlb_with_number(tmp_path, 0.02, -0.05, 0.09))
    cell = cells(summary, "tlb")["a-split"]
    assert cell["class"] == "even" and cell["points"] == 0
    assert "no cost apart from noise" in cell["text"]


def test_tlb_fewer_walks_is_no_cost(tmp_path):
    summary = summary_of(RUN, "--tlb", _tlb_with_number(tmp_path, -0.1, -0.2, -0.05))
    cell = cells(summary, "tlb")["a-split"]
    assert cell["class"] == "even" and cell["points"] == 0
    assert cell["text"].startswith("-10.00% TLB events") and "fewer events with the split" in cell["text"]


@pytest.mark.parametrize("key, value, words", [
    ("kernel", "Linux version 6.1.0-57-armmp #1 SMP Debian", ["TLB result of another kernel", "6.1.0-57"]),
    ("machine", "armv7l Raspberry Pi 2 Model B", ["TLB result of another board", "Raspberry Pi"]),
])
def test_tlb_of_another_kernel_or_board_is_refused(tmp_path, key, value, words):
    """Synthetic: the recorded TLB result with its split variant's kernel or machine changed."""
    doc = json.loads(TLB.read_text())
    doc["variants"][1][key] = [value]
    path = tmp_path / "other.json"
    path.write_text(json.dumps(doc))
    assert_one_line(compare(RUN, "--tlb", path, "-o", tmp_path / "r.html"), 2, *words)
    assert not (tmp_path / "r.html").exists()


def test_tlb_not_an_abstats_document(tmp_path):
    assert_one_line(compare(RUN, "--tlb", RUN / "a-split" / "boot-1" / "after.json", "-q"), 2,
                    "not TLB A/B results")


def test_one_boot_strategy_says_so(tmp_path):
    """Synthetic: b-highmem with its first boot only; no spread, and no
    ranking on what varies from boot to boot."""
    d = _copy(tmp_path)
    for boot in BOOTS[1:]:
        shutil.rmtree(d / "b-highmem" / boot)
    summary = summary_of(d)
    for row in ("migrated", "latency"):
        cell = cells(summary, row)["b-highmem"]
        assert "one boot, no spread" in cell["text"] and "not ranked" in cell["text"], cell
        assert cell["class"] == "even" and cell["points"] == 0
        assert "b-highmem" not in str([c["beaten_by"] for c in cells(summary, row).values()])
    assert "Not ranked for b-highmem (one boot, no spread): migrated, failures, latency" \
        in summary["answer"]["text"]
    # What the configuration fixes still ranks on one boot.
    assert cells(summary, "memory")["b-highmem"]["text"] == "0 KiB (one boot, no spread)"
    assert cells(summary, "memory")["b-highmem"]["class"] == "best"


def test_one_boot_without_boot_directories(tmp_path):
    """A strategy directory holding facts.txt itself (COMPARE_BOOT scripts of
    earlier releases, and one boot) is one boot."""
    d = tmp_path / "a-split"
    shutil.copytree(RUN / "a-split" / "boot-1", d)
    summary = summary_of(d)
    assert summary["strategies"][0]["boots"] == ["."]
    assert "one boot, no spread" in cells(summary, "latency")["a-split"]["text"]


def test_ranking_only_where_spreads_separate(tmp_path):
    """Synthetic: one boot of a strategy beaten on latency made as fast as
    the slowest boot of the one beating it: their spreads now touch, so
    neither is ranked above the other."""
    d = _copy(tmp_path)
    before = cells(summary_of(d), "latency")
    loser, winner = next((s, c["beaten_by"][0]) for s, c in sorted(before.items()) if c.get("beaten_by"))
    w_p50 = [int(facts(winner, b)["load"].split("p50_ns=")[1].split()[0]) for b in BOOTS]
    boot = min(BOOTS, key=lambda b: int(facts(loser, b)["load"].split("p50_ns=")[1].split()[0]))
    load = facts(loser, boot)["load"]
    p50 = load.split("p50_ns=")[1].split()[0]
    _facts(d, f"{loser}/{boot}", "load", load.replace(f"p50_ns={p50}", f"p50_ns={max(w_p50)}"))
    after = cells(summary_of(d), "latency")
    assert winner not in after[loser]["beaten_by"]
    assert loser not in after[winner]["beaten_by"]


def test_missing_strategy_is_named(tmp_path):
    d = _copy(tmp_path)
    shutil.rmtree(d / "b-highmem")
    res = compare(d, "-q", "-o", tmp_path / "r.html", "--summary-json", tmp_path / "s.json")
    assert res.returncode == 0, res.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["not_compared"] == ["b-highmem"]
    assert "Not in this comparison (no results): b-highmem" in Page(
        (tmp_path / "r.html").read_text()).section_text["decision"]


def _copy(tmp_path):
    d = tmp_path / "run"
    shutil.copytree(RUN, d)
    return d


def _edit_json(path, edit):
    doc = json.loads(path.read_text())
    edit(doc)
    path.write_text(json.dumps(doc))


def _no_alias(doc):
    doc["alias"].update(conflicts=[], count=0, pages=0)


def _no_splits(doc):
    doc["splits"]["splits"] = []


def _facts(d, strategy, key, value):
    """Set KEY in STRATEGY's facts.txt (STRATEGY/boot-N: that boot's)."""
    p = d / strategy / "facts.txt"
    lines = [f"{key}={value}" if line.startswith(key + "=") else line for line in p.read_text().splitlines()]
    p.write_text("\n".join(lines) + "\n")


def _every_boot(edit):
    """EDIT(d, boot) applied to each boot: an expectation must fail in every one."""
    return lambda d: [edit(d, b) for b in BOOTS]


@pytest.mark.parametrize("strategy, edit, message", [
    ("d-sections", _every_boot(lambda d, b: _edit_json(d / "d-sections" / b / "after.json", _no_alias)),
     "d-sections: expected alias conflicts > 0 after an allocation, got 0"),
    ("a-split", _every_boot(lambda d, b: _edit_json(d / "a-split" / b / "after.json", _no_splits)),
     "a-split: expected linear-map splits > 0, got 0"),
    ("a-split", lambda d: _edit_json(d / "a-split/boot-2/after.json", _no_splits),
     "a-split: expected linear-map splits > 0, got 48, 0, 48 (per boot)"),
    ("b-highmem", lambda d: _edit_json(d / "b-highmem/boot-3/after.json", lambda doc: doc.update(alias=None)),
     "b-highmem: expected alias conflicts == 0, got not available"),
    ("c-carveout", _every_boot(lambda d, b: _facts(d, f"c-carveout/{b}", "memtotal_kb", "2000000")),
     "c-carveout: expected KiB of MemTotal less than any CMA strategy left > 0, got -"),
    ("d-sections", lambda d: _facts(d, "d-sections/boot-1", "load", "none"),
     "d-sections: expected failed allocations == 0 (the workload ran), got not available"),
])
def test_failed_expectation_is_named(tmp_path, strategy, edit, message):
    """Synthetic: one recorded result edited so that a strategy no longer
    shows what it must; --check names it, one line per failure, exit 3."""
    d = _copy(tmp_path)
    edit(d)
    res = compare(d, "--check", "-q", "-o", tmp_path / "r.html")
    assert res.returncode == 3, res.stderr
    lines = res.stderr.splitlines()
    assert lines and all(l.startswith("cmadebug-report: compare check failed: ") for l in lines)
    assert any(message in l for l in lines), lines
    assert "Traceback" not in res.stderr
    # The report is still written, and says which expectation failed.
    assert "FAILED" in Page((tmp_path / "r.html").read_text()).section_text["checks"]
    # Without --check the same input is no error.
    assert compare(d, "-q").returncode == 0


def test_one_strategy_dir(tmp_path):
    summary = summary_of(RUN / "a-split")
    assert [s["name"] for s in summary["strategies"]] == ["a-split"]
    assert summary["strategies"][0]["boots"] == BOOTS
    assert summary["not_compared"] == ["b-highmem", "c-carveout", "d-sections"]


@pytest.mark.parametrize("edit, words", [
    (lambda d: (d / "a-split/boot-1/facts.txt").write_text(""), ["a-split/boot-1/facts.txt", "empty file"]),
    (lambda d: (d / "a-split/boot-2/facts.txt").write_text("strategy a-split\n"), ["facts.txt:1", "KEY=VALUE"]),
    (lambda d: (d / "a-split/boot-3/facts.txt").unlink(), ["a-split/boot-3", "no facts.txt"]),
    (lambda d: _facts(d, "a-split/boot-1", "memtotal_kb", "lots"), ["memtotal_kb", "expected a number"]),
    (lambda d: _facts(d, "a-split/boot-1", "load", "rounds=48 ok=x"), ["load", "KEY=NUMBER"]),
    (lambda d: _facts(d, "a-split/boot-1", "load", "rounds=48 ok=48 failed=0"), ["load: p50_ns: missing"]),
    (lambda d: _facts(d, "a-split/boot-1", "tlb", "0.3"), ["tlb", "not from facts"]),
    (lambda d: (d / "b-highmem/boot-2/after.json").unlink(), ["b-highmem/boot-2/after.json", "No such file"]),
    (lambda d: (d / "b-highmem/boot-1/after.json").write_text(""), ["b-highmem/boot-1/after.json", "empty file"]),
    (lambda d: (d / "b-highmem/boot-1/after.json").write_text("{nope"), ["after.json", "not JSON"]),
    (lambda d: _edit_json(d / "c-carveout/boot-1/before.json", lambda doc: doc.update(version=2)),
     ["c-carveout/boot-1/before.json", "version 2 is not supported"]),
    (lambda d: _edit_json(d / "c-carveout/boot-1/after.json", lambda doc: doc["splits"].update(layout=7)),
     ["c-carveout/boot-1/after.json", "splits.layout", "expected a list"]),
    (lambda d: [_facts(d, f"b-highmem/{b}", "strategy", "a-split") for b in BOOTS],
     ["strategy a-split also in"]),
    (lambda d: _facts(d, "b-highmem/boot-2", "strategy", "a-split"),
     ["b-highmem: its boots are of different strategies (b-highmem, a-split)"]),
])
def test_bad_input_is_one_line_exit_2(tmp_path, edit, words):
    d = _copy(tmp_path)
    edit(d)
    assert_one_line(compare(d, "-o", tmp_path / "r.html"), 2, *words)
    assert not (tmp_path / "r.html").exists()


def test_no_results(tmp_path):
    assert_one_line(compare(tmp_path), 2, "no strategy results", "make compare")
    assert_one_line(compare(tmp_path / "nowhere"), 2, "No such directory")


@pytest.mark.parametrize("args", [[], ["--bogus", str(RUN)]])
def test_usage_exit_1(args):
    assert_one_line(compare(*args), 1)


def test_carveout_alone_says_why(tmp_path):
    """One strategy alone: nothing to compare its memory with, and --check says so."""
    res = compare(RUN / "c-carveout", "--check", "-q")
    assert res.returncode == 3
    assert res.stderr.strip() == ("cmadebug-report: compare check failed: c-carveout: expected KiB of "
                                  "MemTotal less than any CMA strategy left > 0, got no CMA strategy "
                                  "in this comparison to compare with")
