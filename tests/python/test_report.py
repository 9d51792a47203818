"""reports/cmadebug_report: snapshots to a text summary, a JSON summary and
one self-contained HTML file.

The snapshots are made in the test by the built cmadebug from the trees
captured from the QEMU guests (the linear map included: cmadebug splits and
alias).  Where a test needs what no captured tree has yet (a time stamp), it
adds it to a generated snapshot in the documented expected shape and says
so: synthetic, in the real shape.  Checks are on text and structure, never on pixels.

Golden files: tests/python/golden/; after an intended change, regenerate
with CMADEBUG_UPDATE_GOLDEN=1 and review the diff.
"""
import base64
import json
import os
import pathlib
import shutil
import struct
import subprocess
import zlib
from html import escape
from html.parser import HTMLParser

import pytest

from conftest import FIXTURES, TOP, make_snapshot

GOLDEN = pathlib.Path(__file__).parent / "golden"
PYTHON = os.environ.get("PYTHON", "/usr/bin/python3")
NA_LINEAR = "not available in this snapshot (kernel lacks the linear_map patches)"


def report(*args, cwd=TOP):
    env = dict(os.environ, PYTHONPATH=str(TOP / "reports"))
    env.pop("CMADEBUG_REPORT_DEBUG", None)
    return subprocess.run([PYTHON, "-m", "cmadebug_report", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def golden(name, actual):
    path = GOLDEN / name
    if os.environ.get("CMADEBUG_UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(actual)
    assert path.exists(), f"{path} missing: run with CMADEBUG_UPDATE_GOLDEN=1 and review it"
    assert actual == path.read_text(), f"differs from {path} (CMADEBUG_UPDATE_GOLDEN=1 to regenerate)"


class Page(HTMLParser):
    """Sections (id, class), images, figure captions, scripts, links, and
    tables (in document order: the innermost section's id, the table's
    class, rows of cells as (class, text))."""

    def __init__(self, text):
        super().__init__()
        self.sections, self.imgs, self.captions, self.external = [], [], [], []
        self.tables = []
        self.scripts = 0
        self.text = []
        self.section_text = {}  # section id -> its text, nested sections included
        self._open = []
        self._cap = None
        self._cell = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables.append({"section": self._open[-1] if self._open else None,
                                "class": a.get("class"), "rows": []})
        elif tag == "tr":
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th"):
            self._cell = [a.get("class"), ""]
            self.tables[-1]["rows"][-1].append(self._cell)
        if tag == "section":
            self.sections.append((a.get("id"), a.get("class")))
            self._open.append(a.get("id"))
            self.section_text[a.get("id")] = ""
        elif tag == "img":
            self.imgs.append(a)
        elif tag == "figcaption":
            self._cap = []
        elif tag == "script":
            self.scripts += 1
        for key in ("src", "href"):
            if key in a and not a[key].startswith("data:"):
                self.external.append((tag, a[key]))
        if tag == "link":
            self.external.append((tag, a.get("href")))

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self._cell = None
        if tag == "section":
            self._open.pop()
        if tag == "figcaption":
            self.captions.append("".join(self._cap))
            self._cap = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell[1] += data
        for sid in self._open:
            self.section_text[sid] += data
        if self._cap is not None:
            self._cap.append(data)

    @property
    def all_text(self):
        return "".join(self.text)


def png_size(data_uri):
    """Decode a data: PNG and check its signature and IHDR chunk."""
    prefix = "data:image/png;base64,"
    assert data_uri.startswith(prefix), data_uri[:40]
    png = base64.b64decode(data_uri[len(prefix):], validate=True)
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "no PNG signature"
    length, ctype = struct.unpack(">I4s", png[8:16])
    assert ctype == b"IHDR" and length == 13, "first chunk is not IHDR"
    width, height = struct.unpack(">II", png[16:24])
    crc = struct.unpack(">I", png[29:33])[0]
    assert crc == zlib.crc32(png[12:29]), "IHDR CRC"
    assert width > 0 and height > 0
    return width, height


def check_page(html):
    """Self-contained, every image a PNG with alt text, provenance once at the
    top (one <dl class="prov">), each figure's caption saying only where its
    numbers come from ("From ..."), and no <pre> (nothing wider than the page)."""
    page = Page(html)
    assert page.scripts == 0 and page.external == [], page.external
    assert page.imgs, "no figures"
    for img in page.imgs:
        png_size(img["src"])
        assert img.get("alt")
    for cap in page.captions:
        assert "From " in cap, f"caption without its source: {cap[:80]!r}"
        for word in ("machine:", "kernel:", "command line:"):
            assert word not in cap, f"{word} repeated in caption {cap[:80]!r}"
    assert html.count('<dl class="prov">') == 1 and html.count('class="prov"') == 1
    assert "<pre" not in html
    return page


def normalise(text, *dirs):
    for d in dirs:
        text = text.replace(str(d), "<tmp>")
    return text


@pytest.fixture(scope="module")
def both(fixture_snapshots, tmp_path_factory):
    """The report over the arm and arm64 snapshots: (text, summary, html, snapshot dir)."""
    out = tmp_path_factory.mktemp("report")
    snaps = [fixture_snapshots["qemu-arm"], fixture_snapshots["qemu-arm64"]]
    res = report(*snaps, "-o", out / "r.html", "--summary-json", out / "s.json")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    return (res.stdout, json.loads((out / "s.json").read_text()), (out / "r.html").read_text(),
            snaps[0].parent)


def test_golden_text_summary(both):
    text, _, _, d = both
    golden("report-arm-arm64.txt", normalise(text, d))


def test_golden_json_summary(both):
    _, summary, _, d = both
    golden("report-arm-arm64.json", normalise(json.dumps(summary, indent=1) + "\n", d))


@pytest.mark.parametrize("fixture", ["qemu-arm", "qemu-arm64"])
def test_summary_agrees_with_cmadebug(both, fixture):
    """Every number in the summary is the one cmadebug's own JSON gives."""
    _, summary, _, _ = both
    expected = {c: json.loads((FIXTURES / fixture / "expected" / f"{c}.json").read_text())
                for c in ("areas", "stats", "failures", "bitmap")}
    system = next(s for s in summary["systems"] if f"{fixture}/root" in s["method"])
    assert system["machine"] == "unknown"  # the snapshot does not record it
    assert system["cmdline"] == (FIXTURES / fixture / "root/proc/cmdline").read_text().strip()
    for area in expected["areas"]["areas"]:
        got = next(a for a in system["areas"] if a["name"] == area["name"])
        assert (got["base_pfn"], got["count_pages"], got["used_pages"]) == \
            (area["base_pfn"], area["count_pages"], area["used_pages"])
        st = next(s for s in expected["stats"]["areas"] if s["name"] == area["name"])
        assert got["failures_by_stage"] == {k: st["failed_" + k.replace("-", "_")] for k in
                                            ("isolate", "migrate", "test", "no-space", "signal", "other")}
        fails = [f for f in expected["failures"]["failures"] if f["area"] == area["name"]]
        assert got["failure_log"]["records"] == len(fails)
        assert sorted(p["pfn"] for p in got["most_blamed_pages"]) == \
            sorted({f["pfn"] for f in fails if f["pfn"] is not None})
        runs = [[r["first_pfn"], r["last_pfn"]] for r in expected["bitmap"]["runs"] if r["area"] == area["name"]]
        assert got["allocated_runs"] == runs
        assert sum(b - a + 1 for a, b in runs) == area["used_pages"]


def test_html_structure(both):
    _, summary, html, _ = both
    page = check_page(html)
    ids = [i for i, _ in page.sections]
    assert ids[0] == "overview"
    assert {"system-1", "system-2", "tlb", "system-1-linear-map", "system-2-linear-map"} <= set(ids)
    for n, s in enumerate(summary["systems"], 1):
        for a in s["areas"]:
            assert f"system-{n}-area-{a['name']}" in ids
    text = page.all_text
    for n in (1, 2):  # the real linear_map files of both guests
        lm = page.section_text[f"system-{n}-linear-map"]
        assert NA_LINEAR not in lm
        assert "The linear map by mapping size (/proc/meminfo's DirectMap counters)" in lm
        assert "MEM/NORMAL-NC" in lm or "MEM/BUFFERABLE/WC" in lm
    assert "No TLB A/B results given" in text
    assert "Pages most often blamed" in text and "0x7e041" in text
    # Heat strip, failures by stage and failure log for 'reserved' (failures);
    # heat strip and by-stage bars for fimc-pool, in both systems; the
    # linear-map layout of both, arm's boot split (arm64 recorded none).
    assert len(page.imgs) == 2 * (3 + 2) + 2 + 1


TLB_ARM = FIXTURES / "compare-arm-tlb" / "abstats.json"  # make tlb-report of the qemu-arm kernel
THREE = ("qemu-arm", "qemu-arm64", "qemu-arm64-unpatched")


# The kernel the edited copy of the A/B names: a build none of the captures ran.
OTHER_BUILD = "#1 Sat Dec  5 13:16:45 UTC 2026"


@pytest.fixture(scope="module")
def three(fixture_snapshots, tmp_path_factory):
    """The arm and arm64 guests and the unpatched arm64 kernel, with the
    recorded TLB A/B of the arm guest's kernel edited to name another build
    of it (an edited copy: the captures and the A/B are of one build, and
    test_tlb_of_the_same_kernel_is_attributed pairs those): (text, summary,
    html)."""
    out = tmp_path_factory.mktemp("three")
    tlb = json.loads(TLB_ARM.read_text())
    for v in tlb["variants"]:
        v["kernel"] = [k[:k.rindex(" #")] + " " + OTHER_BUILD for k in v["kernel"]]
    (out / "abstats.json").write_text(json.dumps(tlb))
    res = report(*(fixture_snapshots[f] for f in THREE), "--tlb", out / "abstats.json", "-o", out / "r.html",
                 "--summary-json", out / "s.json")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    return res.stdout, json.loads((out / "s.json").read_text()), (out / "r.html").read_text()


def overview_table(page):
    """The overview as {row label: [(class, text) per system]}, and its header."""
    table = page.tables[0]
    head = [t for _, t in table["rows"][0]]
    return {r[0][1]: [(c, t) for c, t in r[1:]] for r in table["rows"][1:]}, head


def test_overview_table_first(three):
    """The page opens with the overview (after the provenance list), the
    text summary too."""
    text, summary, html = three
    page = check_page(html)
    assert page.sections[0] == ("overview", "overview")
    assert html.index('<dl class="prov">') < html.index('id="overview"') < html.index("<table")
    first = page.tables[0]
    assert first["section"] == "overview" and first["class"] == "cmp rowheads overview"
    rows, head = overview_table(page)
    assert head == ["", "system 1", "system 2", "system 3"]
    assert list(rows) == [r["label"] for r in summary["overview"]["rows"]]
    lines = text.splitlines()
    assert lines[0] == "cmadebug report: 3 systems, 3 snapshots"
    assert lines[1].startswith("== overview (the latest snapshot of each system")
    assert lines[2:4] == ["   machine:", "      system 1: not available (the snapshot does not record the machine) "
                                         "[unknown]"]
    assert text.index("== overview") < text.index("== system 1")


def test_overview_cells_of_the_fixture_snapshots(three):
    """Every cell of the overview over the three captured guests: what the
    snapshots say, ranked where fewer is better, "not available" where the
    kernel lacks the patches (never a number)."""
    _, summary, html = three
    rows, _ = overview_table(Page(html))
    na_stats = ("unknown", "not available (kernel lacks the CMA failure patches)")
    na_ptdump = ("unknown", "not available (layout from ptdump: the kernel lacks the linear_map patches)")
    expected = {
        "machine": [("unknown", "not available (the snapshot does not record the machine)")] * 3,
        "kernel (/proc/version)": [(None, (FIXTURES / f / "root/proc/version").read_text().strip())
                                   for f in THREE],
        "command line": [(None, (FIXTURES / f / "root/proc/cmdline").read_text().strip()) for f in THREE],
        "CMA areas": [(None, "2 areas, 48 MiB: fimc-pool 16 MiB, reserved 32 MiB"),
                      (None, "2 areas, 48 MiB: reserved 32 MiB, fimc-pool 16 MiB"),
                      (None, "2 areas, 48 MiB: reserved 32 MiB, fimc-pool 16 MiB")],
        "CMA used": [(None, "320 of 12288 pages, 1.25 MiB (2.6%)"), (None, "288 of 12288 pages, 1.12 MiB (2.3%)"),
                     (None, "32 of 12288 pages, 0.12 MiB (0.3%)")],
        "allocation failures (failed requests, cma/<area>/stats)":
            [("even", "4 of 8 requests (reserved 4 of 6)")] * 2 + [na_stats],
        "pages that failed to allocate (sysfs alloc_pages_fail)":
            [("worse", "24384 pages"), ("worse", "24480 pages"), ("best", "0 pages")],
        "migration failures (attempts failed in migration, cma/<area>/stats)":
            [("even", "2 attempts")] * 2 + [na_stats],
        "linear-map entries split (linear_map/splits)":
            [("worse", "16 entries, 1M->4k (cma-remap)"), ("best", "0 entries"), na_ptdump],
        "linear map in its smallest entries":
            [(None, "16 MiB of 768 MiB in 4k entries (2.1%; from meminfo)"),
             (None, "1.25 MiB of 1024 MiB in 4k entries (0.1%; from meminfo)"),
             (None, "1.25 MiB of 1024 MiB in 4k entries (0.1%; from ptdump)")],
        "linear-map attribute changes": [(None, "dma-remap 3 (1.02 MiB), 0 failed"), (None, "none"), na_ptdump],
        "alias hazards (pages mapped twice, different cacheability, not sanctioned)":
            [("even", "1 (1 page)"), ("even", "1 (1 page); 2 sanctioned (288 pages)"),
             ("unknown", "not available (alias: the linear_map patches (debugfs linear_map/alias_check), "
                         "or on arm64 a readable /proc/kcore (CONFIG_PROC_KCORE, live only))")],
    }
    tlb = rows.pop("TLB cost of a split (--tlb, same kernel)")
    assert rows == expected
    # The A/B names another build of the arm kernel than the arm capture's
    # (test_tlb_of_the_same_kernel_is_attributed pairs them): no system's.
    assert tlb == [("unknown", "not measured on this kernel (the TLB A/B given ran on another)")] * 3
    # The numbers are cmadebug's own (expected/*.json of each capture).
    by_id = {r["id"]: r["cells"] for r in summary["overview"]["rows"]}
    for col, f in zip(("system 1", "system 2"), THREE):
        stats = json.loads((FIXTURES / f / "expected" / "stats.json").read_text())["areas"]
        areas = json.loads((FIXTURES / f / "expected" / "areas.json").read_text())["areas"]
        assert by_id["failed-requests"][col]["value"] == sum(a["failures"] for a in stats)
        assert by_id["migrate"][col]["value"] == sum(a["failed_migrate"] for a in stats)
        assert by_id["failed-pages"][col]["value"] == sum(a["alloc_pages_fail"] for a in areas)
        assert by_id["used"][col]["value"] == sum(a["used_pages"] for a in areas)
    assert by_id["failed-requests"]["system 3"]["value"] is None


def test_provenance_once(three):
    """Machine, kernel and command line once (the overview's rows, one
    column per system), the method once at the top; sections and figures say
    only where their numbers come from; no <pre>."""
    text, summary, html = three
    page = check_page(html)  # one provenance list, captions "From ...", no <pre>
    for s in summary["systems"]:
        assert html.count(escape(s["kernel"])) == 1, s["kernel"]
        # (the TLB A/B's text, abstats' own, names the kernel of each variant)
        assert text[:text.index("== TLB A/B")].count(s["kernel"]) == 1
    cmdline = summary["systems"][0]["cmdline"]
    assert all(s["cmdline"] == cmdline for s in summary["systems"])
    assert html.count(escape(cmdline)) == 3  # one overview cell per system, nowhere else
    assert page.all_text.count("cmadebug snapshot (cmadebug-snapshot v1)") == 1
    for n in (1, 2, 3):
        sec = page.section_text[f"system-{n}"]
        assert "Linux version" not in sec and cmdline not in sec and "machine" not in sec
    # The TLB A/B says where it ran: a kernel none of the systems ran.
    tlb = page.section_text["tlb"]
    assert tlb.count("Measured on:") == 1 and "system 1's" not in tlb and OTHER_BUILD in tlb


def test_tlb_of_the_same_kernel_is_attributed(tmp_path):
    """A boot of make compare's arm guest (tests/fixtures/compare-arm) and
    the TLB A/B of that very kernel: the overview's TLB row is the A/B's
    (QEMU counts no TLB events) and the A/B names the kernel as system 1's."""
    snap = FIXTURES / "compare-arm" / "a-split" / "boot-1" / "after.json"
    res = report(snap, "--tlb", TLB_ARM, "-o", tmp_path / "r.html", "--summary-json", tmp_path / "s.json")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    page = check_page((tmp_path / "r.html").read_text())
    rows, _ = overview_table(page)
    tlb = rows["TLB cost of a split (--tlb, same kernel)"]
    assert tlb[0][0] == "unknown" and tlb[0][1].startswith(
        "not supported in the TLB A/B (the PMU lists no TLB walk or refill event)"), tlb
    assert "kernel: system 1's (in the overview)" in page.section_text["tlb"]


def test_one_system_is_not_ranked(fixture_snapshots, tmp_path):
    """One column: nothing to compare with, so no cell is best or worse."""
    res = report(fixture_snapshots["qemu-arm"], "-o", tmp_path / "r.html")
    assert res.returncode == 0, res.stderr
    page = check_page((tmp_path / "r.html").read_text())
    rows, head = overview_table(page)
    assert head == ["", "system 1"]
    assert rows["linear-map entries split (linear_map/splits)"] == [(None, "16 entries, 1M->4k (cma-remap)")]
    assert {c for cells in rows.values() for c, _ in cells} == {None, "unknown"}
    assert 'class="legend"' not in (tmp_path / "r.html").read_text()


def test_unpatched_kernel_says_not_available(fixture_snapshots, tmp_path):
    """Stats and failures null (mainline kernel): said so, never zeros."""
    root = tmp_path / "root"
    shutil.copytree(FIXTURES / "qemu-arm" / "root", root)
    for area in (root / "sys/kernel/debug/cma").iterdir():
        for f in ("stats", "failures", "allocated", "devices"):
            (area / f).unlink(missing_ok=True)
    snap = make_snapshot(TOP / "cmadebug" / "cmadebug", root, tmp_path / "s.json")
    res = report(snap, "-o", tmp_path / "r.html", "--summary-json", tmp_path / "s2.json")
    assert res.returncode == 0, res.stderr
    assert "failures by stage: not available in this snapshot (kernel lacks the CMA failure patches)" \
        in res.stdout
    summary = json.loads((tmp_path / "s2.json").read_text())
    for a in summary["systems"][0]["areas"]:
        assert a["failures_by_stage"] is None and a["failure_log"] is None and a["most_blamed_pages"] is None
        assert a["map_source"] == "bitmap"
    page = check_page((tmp_path / "r.html").read_text())
    assert "failure log: not available in this snapshot" in page.all_text
    assert len(page.imgs) == 2 + 2  # the heat strips, the linear-map layout and splits


def _edit(src, dst, **keys):
    doc = json.loads(pathlib.Path(src).read_text())
    doc.update(keys)
    pathlib.Path(dst).write_text(json.dumps(doc))
    return dst


def test_series_ordered_by_time(fixture_snapshots, tmp_path):
    """Synthetic: the expected "time" key added to two snapshots of one tree,
    given newest first; the report puts them in time order as one system."""
    arm = fixture_snapshots["qemu-arm"]
    new = _edit(arm, tmp_path / "b-new.json", time={"realtime_ns": 2_000_000_000, "monotonic_ns": 9})
    old = _edit(arm, tmp_path / "a-old.json", time={"realtime_ns": 1_000_000_000, "monotonic_ns": 5})
    res = report(new, old, "-o", tmp_path / "r.html", "--summary-json", tmp_path / "s.json")
    assert res.returncode == 0, res.stderr
    s = json.loads((tmp_path / "s.json").read_text())
    assert len(s["systems"]) == 1
    system = s["systems"][0]
    assert [pathlib.Path(p["path"]).name for p in system["snapshots"]] == ["a-old.json", "b-new.json"]
    assert system["order"] == "by time (snapshot time.realtime_ns)"
    reserved = next(a for a in system["areas"] if a["name"] == "reserved")
    assert reserved["used_pages_series"] == [64, 64]
    # the same records twice count once
    assert reserved["failure_log"]["records"] == len(json.loads(pathlib.Path(arm).read_text())["failures"]["failures"])
    page = check_page((tmp_path / "r.html").read_text())
    assert "Used and free pages of reserved per snapshot" in page.all_text
    # Without time stamps the order is the command line's, and the report says so.
    res = report(arm, arm, "--summary-json", "-")
    assert json.loads(res.stdout)["systems"][0]["order"] == \
        "as given on the command line (the snapshots record no time)"


def test_linear_map_from_real_snapshots(fixture_snapshots, tmp_path):
    """arm: the CMA remap's boot split of fimc-pool, three dma-remap changes
    (the 1 MiB buffer kept, an 8 KiB one traced, made and freed) and the
    injected write-combined alias, as cmadebug read them."""
    res = report(fixture_snapshots["qemu-arm"], "-o", tmp_path / "r.html")
    assert res.returncode == 0, res.stderr
    assert "linear map by mapping size (from meminfo): 1M 752 MiB (97.9%), 4k 16 MiB (2.1%)" \
        in res.stdout
    assert "linear-map splits: 16 1M->4k (cma-remap)" in res.stdout
    assert "linear-map attribute changes: dma-remap 3 (1.02 MiB), 0 failed" in res.stdout
    assert "alias hazards: 1 (1 pages)" in res.stdout
    assert "MEM/CACHED/WBRA / 0xf089e000 MEM/BUFFERABLE/WC (vmalloc, CMA -, linear_map_alias_add_write" \
        in res.stdout
    page = check_page((tmp_path / "r.html").read_text())
    assert NA_LINEAR not in page.all_text
    assert "Linear-map splits by cause and entry size" in page.all_text
    assert "Attribute changes by cause" in page.all_text
    assert "linear_map_alias_add_write" in page.all_text


def test_linear_map_of_the_unpatched_kernel(fixture_snapshots, tmp_path):
    """The plain 6.12 kernel: the layout from ptdump, splits and aliases not available."""
    res = report(fixture_snapshots["qemu-arm64-unpatched"], "-o", tmp_path / "r.html")
    assert res.returncode == 0, res.stderr
    assert "linear map by mapping size (from ptdump): 32M 992 MiB (96.9%)" in res.stdout
    assert "linear-map splits: not available (layout derived from ptdump" in res.stdout
    assert "alias hazards: not available in this snapshot (alias: the linear_map patches" in res.stdout
    page = check_page((tmp_path / "r.html").read_text())
    assert "derived from ptdump's kernel_page_tables" in page.all_text


def test_linear_map_null_names_the_reason(fixture_snapshots, tmp_path):
    snap = _edit(fixture_snapshots["qemu-arm"], tmp_path / "lm.json", splits=None, alias=None,
                 missing=["splits: the linear_map patches (debugfs linear_map/)"])
    res = report(snap)
    assert res.returncode == 0, res.stderr
    assert "linear map: not available in this snapshot (splits: the linear_map patches" in res.stdout
    assert f"alias hazards: {NA_LINEAR}" in res.stdout


def assert_one_line(res, code, *words):
    assert res.returncode == code, (res.returncode, res.stderr)
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert lines[0].startswith("cmadebug-report: "), lines[0]
    for w in words:
        assert w in lines[0], (w, lines[0])


@pytest.mark.parametrize("content, words", [
    ("", ["empty file"]),
    ("{not json", ["not JSON"]),
    ("[1, 2]", ["expected an object"]),
    ('{"schema": "something-else", "version": 1}', ["unknown schema 'something-else'"]),
    ('{"schema": "cmadebug-snapshot", "version": 2}', ["version 2 is not supported"]),
])
def test_bad_input_is_one_line_exit_2(tmp_path, content, words):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    assert_one_line(report(bad), 2, str(bad), *words)


@pytest.mark.parametrize("edit, words", [
    (lambda d: d["areas"].update(areas=[], nr_areas=0), ["no CMA areas"]),
    (lambda d: d.update(areas=None), ["no CMA areas"]),
    (lambda d: d["areas"].update(areas="many"), ["areas.areas", "expected a list"]),
    (lambda d: d["areas"]["areas"][0].update(used_pages="x"), ["areas.areas[0].used_pages", "integer"]),
    (lambda d: d["bitmap"]["runs"][0].update(area="nowhere"), ["bitmap.runs[0]", "unknown area"]),
    (lambda d: d["failures"]["failures"][0].pop("stage"), ["failures.failures[0].stage", "missing"]),
    (lambda d: d["alias"].update(count=3), ["alias.count", "1 hazards listed"]),
    (lambda d: d["alias"]["conflicts"][0].update({"class": "sanctioned"}), ["alias.count", "0 hazards listed"]),
    (lambda d: d["splits"]["layout"][0].pop("bytes"), ["splits.layout[0].bytes", "missing"]),
])
def test_malformed_snapshot_is_one_line_exit_2(fixture_snapshots, tmp_path, edit, words):
    doc = json.loads(fixture_snapshots["qemu-arm"].read_text())
    edit(doc)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert_one_line(report(bad, "-o", tmp_path / "r.html"), 2, *words)
    assert not (tmp_path / "r.html").exists()


def test_missing_file_exit_2(tmp_path):
    assert_one_line(report(tmp_path / "nope.json"), 2, "No such file")


@pytest.mark.parametrize("args", [[], ["--bogus"], ["--tlb"]])
def test_usage_exit_1(args):
    assert_one_line(report(*args), 1)


def test_help_exit_0():
    res = report("--help")
    assert res.returncode == 0 and "SNAPSHOT" in res.stdout


def test_tlb_section(fixture_snapshots, tmp_path):
    """Synthetic A/B results (perf's format, test_abstats.make_results), one
    event not supported: the section has distributions, the interval, and the
    words "not supported" where the event would be."""
    from test_abstats import NS, make_results, run_of

    runs_a = [[run_of(1000, 10 + i + b, [("l2d_tlb_refill:k", NS, "", 100.0)]) for i in range(3)] for b in range(3)]
    runs_b = [[run_of(1000, 20 + i + b, [("l2d_tlb_refill:k", NS, "", 100.0)]) for i in range(3)] for b in range(3)]
    root = make_results(tmp_path / "res", {"split": runs_a, "nosplit": runs_b})
    (root / "manifest.json").write_text('{"baseline": "split"}')
    res = report(fixture_snapshots["qemu-arm64"], "--tlb", root, "-o", tmp_path / "r.html",
                 "--summary-json", tmp_path / "s.json")
    assert res.returncode == 0, res.stderr
    assert "nosplit vs split: relative difference, 95% interval" in res.stdout
    page = check_page((tmp_path / "r.html").read_text())
    tlb = page.section_text["tlb"]
    assert "Medians per variant" in tlb and "nosplit vs split" in tlb
    assert "not supported (perf: <not supported>)" in tlb
    assert "test board" in tlb and "Student t interval over boots" in tlb
    summary = json.loads((tmp_path / "s.json").read_text())
    cmp = summary["tlb"][0]["comparisons"][0]["metrics"]
    assert cmp["l2d_tlb_refill:k"]["status"] == "not supported" and "ratio" not in cmp["l2d_tlb_refill:k"]
    # The same results from an abstats --json file.
    (tmp_path / "ab.json").write_text(json.dumps(summary["tlb"][0]))
    res2 = report("--tlb", tmp_path / "ab.json", "--summary-json", "-")
    assert res2.returncode == 0, res2.stderr
    assert json.loads(res2.stdout)["tlb"] == summary["tlb"]


@pytest.mark.parametrize("content, words", [
    ("", "empty file"),
    ('{"schema": "cmadebug-snapshot", "version": 1}', "not TLB A/B results"),
    ('{"schema": "cmadebug-abstats", "version": 9}', "version 9 is not supported"),
])
def test_bad_tlb_input(tmp_path, content, words):
    bad = tmp_path / "ab.json"
    bad.write_text(content)
    assert_one_line(report("--tlb", bad), 2, words)


def test_tlb_sweep_section(tmp_path):
    """Synthetic sweep (walker reports at five working-set sizes, a step
    between 4 and 8 MiB) with the TLB reach from the manifest."""
    from test_abstats import make_results, run_of

    sizes = [1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20]
    walks = dict(zip(sizes, [10, 12, 15, 400, 420]))
    runs = [[run_of(100_000, walks[s] + r) for s in sizes for r in range(2)]] * 3
    root = make_results(tmp_path / "sw", {"a": runs, "b": runs},
                        walker=lambda v, b, r: {"working_set_bytes": sizes[(r - 1) // 2],
                                                "pages_touched": 256, "elapsed_ns": 25600})
    (root / "manifest.json").write_text('{"tlb_reach_bytes": 6291456}')
    res = report("--tlb", root, "-o", tmp_path / "r.html")
    assert res.returncode == 0, res.stderr
    assert "sweep a: walks_per_1k_instructions jumps between 4 MiB and 8 MiB" in res.stdout
    page = check_page((tmp_path / "r.html").read_text())
    assert "No snapshots given" in page.section_text["overview"]
    tlb = page.section_text["tlb"]
    assert "Working-set sweep" in tlb and "TLB walks per 1k instructions against the working set" in tlb
    assert "(TLB reach not given)" not in tlb
    assert "ns_per_access" in tlb and "100" in tlb  # 25600 ns / 256 pages
