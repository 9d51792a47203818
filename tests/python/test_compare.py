"""python3 -m cmadebug_report compare: make compare's side-by-side report.

tests/fixtures/compare-arm/ is one real 'make compare' run on the arm board
(scripts/compare.sh arm: four boots of one kernel, build/compare/arm/ copied
without kernel_page_tables and the empty .err files).  Golden files:
tests/python/golden/compare-arm.{txt,json}; after an intended change,
CMADEBUG_UPDATE_GOLDEN=1 and review the diff.  Where a test needs what the
run did not give (a failed expectation, bad input), it edits a copy and says so.
"""
import json
import shutil

import pytest

from conftest import FIXTURES
from test_report import assert_one_line, check_page, golden, Page, report

RUN = FIXTURES / "compare-arm"
STRATEGIES = ["a-split", "b-highmem", "c-carveout", "d-sections"]
SECTIONS = ["summary", "strategies", "memory", "linear-map", "alias", "allocation", "failures",
            "tlb", "costs", "checks"]


def compare(*args):
    return report("compare", *args)


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


def facts(strategy):
    return dict(line.split("=", 1) for line in (RUN / strategy / "facts.txt").read_text().splitlines())


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_numbers_agree_with_the_guest(run, strategy):
    """The snapshot's splits and alias (after.json) say what the guest read
    from debugfs itself (facts.txt); memory is facts' /proc/meminfo."""
    st = next(s for s in run[1]["strategies"] if s["name"] == strategy)
    f = facts(strategy)
    assert st["linear_map"]["splits"] == int(f["splits"])
    assert st["alias"]["count"] == int(f["conflicts"])
    assert st["memory"]["memtotal_kb"] == int(f["memtotal_kb"])
    assert st["memory"]["cma_kb"] == int(f["cmatotal_kb"])
    assert st["cmdline"] == f["cmdline"] and f"cmadebug.strategy={strategy}" in st["cmdline"]
    assert f"rounds={st['load']['rounds']} ok={st['load']['ok']}" in f["load"]
    assert st["tlb"]["status"] == "not supported"


def test_what_must_differ(run):
    _, summary, _ = run
    by = {s["name"]: s for s in summary["strategies"]}
    assert [s["name"] for s in summary["strategies"]] == STRATEGIES
    assert by["a-split"]["linear_map"]["splits"] > 0 and by["a-split"]["alias"]["count"] == 0
    assert by["b-highmem"]["linear_map"]["splits"] == 0 and by["b-highmem"]["alias"]["count"] == 0
    assert by["c-carveout"]["memory"]["memtotal_kb"] < min(
        by[n]["memory"]["memtotal_kb"] for n in ("a-split", "b-highmem", "d-sections"))
    assert by["c-carveout"]["linear_map"]["splits"] == 0
    assert by["d-sections"]["linear_map"]["splits"] == 0 and by["d-sections"]["alias"]["count"] > 0
    assert all(c["ok"] for c in summary["checks"]), summary["checks"]
    assert summary["kernel"] is not None  # one kernel for all four boots


def test_html(run):
    text, summary, html = run
    page = check_page(html)
    assert [sid for sid, _ in page.sections] == SECTIONS
    # Memory, the linear-map layout and the latency; no failure, so no failure figure.
    assert len(page.imgs) == 3
    assert "No failed attempt in any strategy." in page.section_text["failures"]
    alloc = page.section_text["allocation"]
    assert "QEMU TCG virtual time" in alloc and "not a board's real latency" in alloc
    tlb = page.section_text["tlb"]
    assert tlb.count("not supported") == len(STRATEGIES) and "gives no number" in tlb
    assert "0x57000" in page.section_text["alias"] and "failed-change" in page.section_text["alias"]
    costs = page.section_text["costs"]
    for st in summary["strategies"]:
        assert "; ".join(st["costs"]) in costs
    assert "16 MiB carved out (fimc-pool)" in costs and "undefined behaviour" in costs
    for sid in SECTIONS[1:]:
        sec = page.section_text[sid]
        for word in ("machine:", "kernel:", "command line:", "method:"):
            assert word in sec, (sid, word)


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
    p = d / strategy / "facts.txt"
    lines = [f"{key}={value}" if line.startswith(key + "=") else line for line in p.read_text().splitlines()]
    p.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("strategy, edit, message", [
    ("d-sections", lambda d: _edit_json(d / "d-sections/after.json", _no_alias),
     "d-sections: expected alias conflicts > 0 after an allocation, got 0"),
    ("a-split", lambda d: _edit_json(d / "a-split/after.json", _no_splits),
     "a-split: expected linear-map splits > 0, got 0"),
    ("b-highmem", lambda d: _edit_json(d / "b-highmem/after.json", lambda doc: doc.update(alias=None)),
     "b-highmem: expected alias conflicts == 0, got not available"),
    ("c-carveout", lambda d: _facts(d, "c-carveout", "memtotal_kb", "2000000"),
     "c-carveout: expected KiB of MemTotal less than any CMA strategy left > 0, got -"),
    ("d-sections", lambda d: _facts(d, "d-sections", "load", "none"),
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
    res = compare(RUN / "a-split", "--summary-json", "-")
    assert res.returncode == 0, res.stderr
    assert [s["name"] for s in json.loads(res.stdout)["strategies"]] == ["a-split"]


@pytest.mark.parametrize("edit, words", [
    (lambda d: (d / "a-split/facts.txt").write_text(""), ["a-split/facts.txt", "empty file"]),
    (lambda d: (d / "a-split/facts.txt").write_text("strategy a-split\n"), ["facts.txt:1", "KEY=VALUE"]),
    (lambda d: _facts(d, "a-split", "memtotal_kb", "lots"), ["memtotal_kb", "expected a number"]),
    (lambda d: _facts(d, "a-split", "load", "rounds=48 ok=x"), ["load", "KEY=NUMBER"]),
    (lambda d: _facts(d, "a-split", "load", "rounds=48 ok=48 failed=0"), ["load: p50_ns: missing"]),
    (lambda d: _facts(d, "a-split", "tlb", "0.3"), ["tlb", "not from facts"]),
    (lambda d: (d / "b-highmem/after.json").unlink(), ["b-highmem/after.json", "No such file"]),
    (lambda d: (d / "b-highmem/after.json").write_text(""), ["b-highmem/after.json", "empty file"]),
    (lambda d: (d / "b-highmem/after.json").write_text("{nope"), ["after.json", "not JSON"]),
    (lambda d: _edit_json(d / "c-carveout/before.json", lambda doc: doc.update(version=2)),
     ["c-carveout/before.json", "version 2 is not supported"]),
    (lambda d: _edit_json(d / "c-carveout/after.json", lambda doc: doc["splits"].update(layout=7)),
     ["c-carveout/after.json", "splits.layout", "expected a list"]),
    (lambda d: _facts(d, "b-highmem", "strategy", "a-split"), ["strategy a-split also in"]),
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
