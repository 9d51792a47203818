"""The HTML report in a real browser: Debian's chromium, headless.

How: the report has no scripts of its own, so the test writes a copy of it
with two small inline scripts added — one at the top of <head> that records
every error event (uncaught exceptions, images or other resources that fail
to load, CSP violations) from the first moment, one at the end of <body>
that, on 'load', writes what it found as JSON into a <pre> element.
'chromium --headless --dump-dom' prints the DOM after loading (with
--virtual-time-budget so pending tasks run first); the test reads the <pre>
back.  Console messages come out on stderr with --enable-logging=stderr, one
"CONSOLE" line each; the page and the added scripts log nothing, so any such
line is a failure.  Only Debian's chromium and the standard library: no
DevTools client, no webdriver.
"""
import base64
import html
import json
import os
import re
import shutil
import subprocess

import pytest

from test_report import Page, report

HEAD_HOOK = """<script>
window.__cmadebugErrors = [];
window.addEventListener("error", function (e) {
  var t = e.target;
  __cmadebugErrors.push(e.message || (t && (t.src || t.href)) || e.type);
}, true);
window.addEventListener("unhandledrejection", function (e) { __cmadebugErrors.push("rejection: " + e.reason); });
document.addEventListener("securitypolicyviolation", function (e) { __cmadebugErrors.push("csp: " + e.blockedURI); });
</script>"""

CHECKS = """<script>
window.addEventListener("load", function () {
  var out = {
    errors: __cmadebugErrors,
    title: document.title,
    sections: Array.prototype.map.call(document.querySelectorAll("section"), function (s) { return s.id; }),
    images: Array.prototype.map.call(document.images, function (i) {
      return {alt: i.alt, complete: i.complete, w: i.naturalWidth, h: i.naturalHeight,
              data: i.src.indexOf("data:image/png;base64,") === 0};
    }),
    resources: performance.getEntriesByType("resource").map(function (r) { return r.name; }),
    viewport: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    tooWide: Array.prototype.filter.call(document.body.querySelectorAll("*"), function (e) {
      // past the window's right edge, or wider inside than its box (content
      // that overflows it or that it scrolls sideways)
      return e.getBoundingClientRect().right > window.innerWidth + 0.5 ||
             (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1);
    }).slice(0, 10).map(function (e) {
      return e.tagName + (e.id ? "#" + e.id : "") + " " + (e.textContent || "").slice(0, 40);
    })
  };
  // Inside the narrow test frame (see in_browser) the results go to the
  // outer page, the one chromium dumps.
  var host = window.frameElement ? parent.document : document;
  var pre = host.createElement("pre");
  pre.id = "cmadebug-checks";
  pre.textContent = JSON.stringify(out);
  host.body.appendChild(pre);
});
</script>"""


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("chromium not installed")


# Chromium makes no window narrower than this; a narrower page is shown in
# an iframe of that width inside one (srcdoc: same origin, so the checks can
# report to the outer page).
NARROWEST_WINDOW = 500


def in_browser(tmp_path, page_html, width=1400):
    assert page_html.count("<head>") == 1 and page_html.count("</body>") == 1
    test_copy = page_html.replace("<head>", "<head>" + HEAD_HOOK).replace("</body>", CHECKS + "</body>")
    if width < NARROWEST_WINDOW:
        test_copy = ('<!DOCTYPE html><html><head><title>frame</title></head>'
                     '<body style="margin:0">'
                     f'<iframe style="border:0;width:{width}px;height:900px" '
                     f'srcdoc="{html.escape(test_copy, quote=True)}"></iframe></body></html>')
        width = NARROWEST_WINDOW
    page = tmp_path / "test-copy.html"
    page.write_text(test_copy)
    res = subprocess.run(
        [chromium(), "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
         f"--window-size={width},900", "--hide-scrollbars",
         "--virtual-time-budget=10000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=180,
        env=dict(os.environ, HOME=str(tmp_path)))
    m = re.search(r'<pre id="cmadebug-checks">(.*?)</pre>', res.stdout, re.S)
    assert m, f"no checks in the dumped DOM (exit {res.returncode}); stderr tail: {res.stderr[-2000:]}"
    console = [l for l in res.stderr.splitlines() if ":CONSOLE" in l]
    return json.loads(html.unescape(m.group(1))), console


@pytest.fixture(scope="module")
def snapshot_report(fixture_snapshots, tmp_path_factory):
    """The report every width looks at, made once (matplotlib draws a dozen
    figures): two systems and the unpatched kernel, the linear map, a
    synthetic TLB A/B with a not-supported event and the arm kernel's
    recorded one."""
    from test_abstats import NS, make_results, run_of
    from test_report import TLB_ARM

    d = tmp_path_factory.mktemp("browser-report")
    runs = {v: [[run_of(1000, k + i, [("l2d_tlb_refill:k", NS, "", 100.0)]) for i in range(3)]] * 2
            for v, k in (("split", 10), ("nosplit", 20))}
    results = make_results(d / "res", runs)
    out = d / "report.html"
    res = report(fixture_snapshots["qemu-arm"], fixture_snapshots["qemu-arm64"],
                 fixture_snapshots["qemu-arm64-unpatched"],
                 "--tlb", results, "--tlb", TLB_ARM, "-o", out, "-q")
    assert res.returncode == 0, res.stderr
    return out


@pytest.mark.parametrize("width", [1400, 760, 400])
def test_report_in_headless_chromium(snapshot_report, tmp_path, width):
    """The snapshot report on a desktop, a narrow window and a phone: every
    kind of figure, nothing wider than the window."""
    from test_report import png_size

    out = snapshot_report
    page_html = out.read_text()
    parsed = Page(page_html)

    checks, console = in_browser(tmp_path, page_html, width)
    assert checks["errors"] == []
    assert console == [], console
    assert checks["title"] == "cmadebug report"
    assert checks["resources"] == [], "the page fetched something"
    assert checks["sections"] == [sid for sid, _ in parsed.sections]
    assert checks["sections"][0] == "overview"
    assert {"system-1", "system-1-area-reserved", "system-1-linear-map", "system-2",
            "system-2-area-fimc-pool", "system-3", "tlb", "tlb-1", "tlb-2"} <= set(checks["sections"])
    assert len(checks["images"]) == len(parsed.imgs) >= 12
    for img in checks["images"]:
        assert img["data"] and img["complete"] and img["w"] > 0 and img["h"] > 0, img
    assert checks["viewport"] == width
    assert checks["tooWide"] == [], checks["tooWide"]
    assert checks["scrollWidth"] <= width, f"the page scrolls sideways: {checks['scrollWidth']} px"
    shot = screenshot(tmp_path, out, width)
    assert png_size("data:image/png;base64," + base64.b64encode(shot.read_bytes()).decode()) \
        == (max(width, NARROWEST_WINDOW), 2000)


def test_broken_image_is_caught(tmp_path):
    """The harness itself: a bad data: PNG is reported, not passed."""
    bad = ('<!DOCTYPE html><html><head><title>t</title></head><body><section id="s">'
           '<img src="data:image/png;base64,AAAA" alt="x"></section></body></html>')
    checks, _ = in_browser(tmp_path, bad)
    assert checks["errors"] and checks["images"][0]["w"] == 0


def screenshot(tmp_path, page_path, width, height=2000):
    """A PNG of the page as a WIDTH px wide window (or frame) shows it, kept
    in tmp_path to look at."""
    shot = tmp_path / f"screenshot-{width}.png"
    window = max(width, NARROWEST_WINDOW)
    if width < NARROWEST_WINDOW:
        frame = tmp_path / f"frame-{width}.html"
        frame.write_text(f'<!DOCTYPE html><html><body style="margin:0"><iframe style="border:0;'
                         f'width:{width}px;height:{height}px" src="{page_path.as_uri()}"></iframe></body></html>')
        page_path = frame
    subprocess.run(
        [chromium(), "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile-shot'}", f"--window-size={window},{height}",
         "--hide-scrollbars", f"--screenshot={shot}", page_path.as_uri()],
        capture_output=True, text=True, timeout=180, env=dict(os.environ, HOME=str(tmp_path)))
    assert shot.exists(), "chromium wrote no screenshot"
    return shot


@pytest.mark.parametrize("width", [1400, 400])
def test_compare_report_in_headless_chromium(tmp_path, width):
    """make compare's report over the recorded arm run (tests/fixtures/compare-arm),
    on a desktop and on a phone's width: nothing wider than the window."""
    from test_compare import RUN, SECTIONS, TLB, compare
    from test_report import png_size

    out = tmp_path / "compare.html"
    res = compare(RUN, "--tlb", TLB, "-o", out, "-q")
    assert res.returncode == 0, res.stderr
    page_html = out.read_text()
    checks, console = in_browser(tmp_path, page_html, width)
    assert checks["errors"] == []
    assert console == [], console
    assert checks["title"] == "cmadebug strategy comparison"
    assert checks["resources"] == [], "the page fetched something"
    assert checks["sections"] == SECTIONS
    assert len(checks["images"]) == len(Page(page_html).imgs) == 3
    for img in checks["images"]:
        assert img["data"] and img["complete"] and img["w"] > 0 and img["h"] > 0, img
    assert checks["viewport"] == width
    assert checks["scrollWidth"] <= width, f"the page scrolls sideways: {checks['scrollWidth']} px"
    assert checks["tooWide"] == [], checks["tooWide"]
    shot = screenshot(tmp_path, out, width)
    assert png_size("data:image/png;base64," + base64.b64encode(shot.read_bytes()).decode()) \
        == (max(width, NARROWEST_WINDOW), 2000)


@pytest.mark.parametrize("width", [1400, 400])
def test_too_wide_is_caught(tmp_path, width):
    """The harness itself: an element wider than the window is reported, at both widths."""
    wide = ('<!DOCTYPE html><html><head><title>t</title></head><body>'
            f'<pre id="wide">{"x" * 400}</pre></body></html>')
    checks, _ = in_browser(tmp_path, wide, width)
    assert checks["viewport"] == width
    assert checks["scrollWidth"] > width and any(e.startswith("PRE#wide") for e in checks["tooWide"])
