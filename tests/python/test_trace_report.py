"""'cmadebug trace report' on the trace.dat files the guests recorded.

make fixtures runs 'cmadebug --json trace record -o trace.dat -- sh -c ...'
in each guest around an injected migrate-stage failure (tests/qemu/capture.sh)
and keeps the file and what the guest printed in tests/fixtures/qemu-*/trace/.
On the host, libtracecmd reads the file back (the guests' static cmadebug has
no libtracecmd): the summary must be the guest's, and show the failure.
"""
import json
import os
import re
import struct
import subprocess

import pytest

from conftest import FIXTURES

TRACED = sorted(p.parent.parent.name for p in FIXTURES.glob("qemu-*/trace/trace.dat"))


def recorded(fixture):
    return json.loads((FIXTURES / fixture / "trace" / "record.json").read_text())


# Our kernels (an injected failure) and the distribution kernels (no
# cma_alloc_fail: the driver allocations of capture.sh's stock branch).
INJECTED = [f for f in TRACED if "cma:cma_alloc_fail" not in recorded(f)["missing_events"]]
STOCK = [f for f in TRACED if f not in INJECTED]


def run(binary, *args):
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=30)


def test_both_guests_recorded_a_trace():
    assert {"qemu-arm", "qemu-arm64"} <= set(INJECTED), f"recorded traces: {TRACED}"
    assert "qemu-arm64-debian" in STOCK, f"recorded traces: {TRACED}"


@pytest.mark.parametrize("fixture", TRACED)
def test_report_matches_what_the_guest_recorded(cmadebug_bin, fixture):
    d = FIXTURES / fixture / "trace"
    assert (d / "record.rc").read_text().strip() == "0", (d / "record.err").read_text()
    live = json.loads((d / "record.json").read_text())
    p = run(cmadebug_bin, "--json", "trace", "report", str(d / "trace.dat"))
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    report = json.loads(p.stdout)
    # Where the records came from differs, and only record knows which
    # events the kernel lacked and what it kept at most; everything else is
    # computed from the records.
    for k in ("source", "missing_events", "max_bytes", "capped"):
        live.pop(k, None)
        report.pop(k, None)
    assert report == live


@pytest.mark.parametrize("fixture", INJECTED)
def test_report_shows_the_injected_failure(cmadebug_bin, fixture):
    p = run(cmadebug_bin, "--json", "trace", "report", str(FIXTURES / fixture / "trace" / "trace.dat"))
    s = json.loads(p.stdout)
    assert s["failures"]["by_stage"] == [{"stage": "migrate", "count": 1}]
    top = s["failures"]["top_pfns"]
    assert len(top) == 1 and top[0]["area"] == "reserved" and top[0]["kind"] == "file"
    # capture.sh allocates the area's largest free run over 2 pinned pages
    # (fails), then 8 pages (succeeds) and frees them, then the test
    # driver's 8 KiB coherent buffer (fimc-pool) and frees it.
    assert s["allocations"]["requests"] == 3
    assert s["allocations"]["failed"] == 1 and s["allocations"]["succeeded"] == 2
    assert s["latency"]["count"] == 3
    assert s["migration"]["calls"] >= 1
    assert s["lost_events"] == 0


@pytest.mark.parametrize("fixture", INJECTED)
def test_report_text_form(cmadebug_bin, fixture):
    p = run(cmadebug_bin, "trace", "report", str(FIXTURES / fixture / "trace" / "trace.dat"))
    assert p.returncode == 0, p.stderr
    assert "Allocations: 3" in p.stdout.splitlines()
    assert any(line.split()[:1] == ["migrate"] for line in p.stdout.splitlines())


@pytest.mark.parametrize("fixture", STOCK)
def test_stock_kernel_failures_have_no_stage_and_say_why(cmadebug_bin, fixture):
    """A distribution kernel has cma_alloc_start/finish but not the series'
    cma_alloc_fail: the driver's three ring allocations are pairs with a
    latency, their releases are counted, and the failure section says
    that stages and pages were not recorded, and why."""
    p = run(cmadebug_bin, "--json", "trace", "report", str(FIXTURES / fixture / "trace" / "trace.dat"))
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    a = s["allocations"]
    assert (a["requests"], a["succeeded"], a["failed"], a["unmatched"]) == (3, 3, 0, 0)
    assert a["failed_by_errno"] == []
    assert s["latency"]["count"] == 3 and s["latency"]["min_ns"] > 0
    area, = s["areas"]
    assert area["pages_released"] == area["pages"] == a["pages"] >= 6
    f = s["failures"]
    assert f["stages_recorded"] is False and "no cma:cma_alloc_fail in this kernel" in f["why_not"]
    assert f["by_stage"] == [] and f["top_pfns"] == []
    text = run(cmadebug_bin, "trace", "report", str(FIXTURES / fixture / "trace" / "trace.dat")).stdout
    assert "Stages and pages recorded: no" in text.splitlines()


def test_report_refuses_what_is_not_a_trace_dat(cmadebug_bin, tmp_path):
    bad = tmp_path / "not.dat"
    bad.write_bytes(b"\x17\x08Dtracing6\0garbage")
    for args in (["trace", "report", str(bad)], ["trace", "report", str(tmp_path / "missing.dat")]):
        p = run(cmadebug_bin, *args)
        assert p.returncode == 2 and len(p.stderr.splitlines()) == 1, p.stderr
    for args in (["trace"], ["trace", "report"], ["trace", "report", "a", "b"], ["trace", "record", "-d", "x"]):
        p = run(cmadebug_bin, *args)
        assert p.returncode == 1 and len(p.stderr.splitlines()) == 1, (args, p.stderr)


def _data_pages(buf, long_size=None):
    """(offset, long size, commit) of the ring-buffer pages of a trace.dat.

    The header gives the page size (bytes 14-17) and the recorder's long
    size (byte 13: the kernel's in cmadebug's files, not in trace-cmd
    convert's, which pass LONG_SIZE); CPU data is page aligned at the end of
    the file, each page a u64 time stamp and a commit word.
    """
    long_size, page_size = long_size or buf[13], struct.unpack_from("<I", buf, 14)[0]
    fmt = "<Q" if long_size == 8 else "<I"
    for off in range(page_size, len(buf), page_size):
        ts = struct.unpack_from("<Q", buf, off)[0]
        commit = struct.unpack_from(fmt, buf, off + 8)[0] & ((1 << 27) - 1)
        if 0 < ts < 1 << 48 and 0 < commit <= page_size - 8 - long_size:
            yield off, long_size, commit


def _second_data_record(buf, page, long_size, commit):
    """Offset of the header of the page's second data record (None if none)."""
    at, end, seen = page + 8 + long_size, page + 8 + long_size + commit, 0
    while at < end:
        word = struct.unpack_from("<I", buf, at)[0]
        type_len = word & 31
        if type_len in (30, 31):    # time extend, time stamp: 8 bytes
            at += 8
            continue
        if type_len == 29:          # padding
            return None
        seen += 1
        if seen == 2:
            return at
        at += 4 + (type_len * 4 if type_len else struct.unpack_from("<I", buf, at + 4)[0])
    return None


def _kernel_long(fixture):
    """The guest kernel's long: 4 on the 32-bit arm boards (ours, armmp)."""
    return 8 if fixture.startswith("qemu-arm64") else 4


def _damage(buf, fixture, kind, what="trace.dat"):
    """Writes DAMAGE[kind] over the second data record of the first page
    that has two; returns (page offset, record offset)."""
    for page, long_size, commit in _data_pages(buf, _kernel_long(fixture)):
        at = _second_data_record(buf, page, long_size, commit)
        if at is not None:
            struct.pack_into("<II", buf, at, *DAMAGE[kind])
            return page, at
    pytest.fail(f"{fixture}: no page with two data records in the {what}")


DAMAGE = {
    # type_len 0, array[0] -4: length -8, so kbuffer hands back the same
    # record for ever (libtracecmd's iteration never ended)
    "same-record": (0, 0xFFFFFFFC),
    # a discarded event (padding with a time delta) of length -4: kbuffer's
    # own loop over padding never ends, before any callback
    "self-padding": (29 | 1 << 5, 0xFFFFFFFC),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
@pytest.mark.parametrize("fixture", TRACED)
def test_report_reads_a_damaged_page_up_to_the_damage(cmadebug_bin, fixture, damage, tmp_path):
    """Each damage hung 'trace report'; now the file's pages are walked first.

    The page is read up to the damaged record (what came before is kept),
    one line on stderr says which CPU, page and byte, and the run ends.
    """
    buf = bytearray((FIXTURES / fixture / "trace" / "trace.dat").read_bytes())
    page, at = _damage(buf, fixture, damage)
    damaged = tmp_path / "damaged.dat"
    damaged.write_bytes(bytes(buf))
    p = run(cmadebug_bin, "--json", "trace", "report", str(damaged))
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert f"page at file offset {page}:" in lines[0] and f"(at byte {at - page})" in lines[0], lines[0]
    assert json.loads(p.stdout)["records"] >= 1


@pytest.mark.parametrize("fixture", TRACED)
def test_report_stops_in_a_version_7_file_at_a_record_that_does_not_advance(cmadebug_bin, fixture, tmp_path):
    """Version 7 files are not walked first: the record guard ends the read.

    trace-cmd (a test dependency, scripts/deps.sh) converts the guest's file
    to version 7 without compression; its pages stay page aligned.  Before
    the guard (and while libtracecmd's callback stopped only on < 0) this
    never returned.
    """
    v7 = _v7(fixture, tmp_path)
    buf = bytearray(v7.read_bytes())
    assert buf[10:12] == b"7\0"
    _damage(buf, fixture, "same-record", "version 7 file")
    v7.write_bytes(bytes(buf))
    p = run(cmadebug_bin, "--json", "trace", "report", str(v7))
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and "does not follow the one before" in lines[0], p.stderr
    assert json.loads(p.stdout)["records"] >= 1


def _v7(fixture, tmp_path):
    v7 = tmp_path / "v7.dat"
    subprocess.run(["trace-cmd", "convert", "-i", str(FIXTURES / fixture / "trace" / "trace.dat"),
                    "--file-version", "7", "--compression", "none", "-o", str(v7)],
                   check=True, capture_output=True, timeout=60)
    return v7


@pytest.mark.parametrize("fixture", TRACED)
def test_report_names_a_cut_short_file(cmadebug_bin, fixture, tmp_path):
    """libtracecmd maps the CPU data the header promises: it crashed."""
    whole = (FIXTURES / fixture / "trace" / "trace.dat").read_bytes()
    cut = tmp_path / "cut.dat"
    for size in (len(whole) - 1, len(whole) - 4096 + 100):
        cut.write_bytes(whole[:size])
        p = run(cmadebug_bin, "trace", "report", str(cut))
        assert p.returncode == 2 and p.stdout == "", p.stderr
        lines = p.stderr.splitlines()
        assert len(lines) == 1 and "cut short" in lines[0] and f"the file has {size}" in lines[0], p.stderr


@pytest.mark.parametrize("fixture", TRACED)
def test_report_survives_libtracecmd_crashing(cmadebug_bin, fixture, tmp_path):
    """A version 7 file is not walked first: with its CPU data said to run
    past the file's end, libtracecmd crashes (before: so did cmadebug); it
    now crashes in the child, and the parent says so in one line."""
    v7 = _v7(fixture, tmp_path)
    buf = bytearray(v7.read_bytes())
    page = next(_data_pages(buf, _kernel_long(fixture)))[0]
    # The BUFFER option (after the data in version 7) holds cpu0's (offset, size).
    table = buf.find(struct.pack("<Q", page), page + 1)
    assert table > page, "cpu0's (offset, size) not found in the version 7 options"
    struct.pack_into("<Q", buf, table + 8, 1 << 20)
    v7.write_bytes(bytes(buf))
    p = run(cmadebug_bin, "trace", "report", str(v7))
    assert p.returncode == 2 and p.stdout == "", p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and "libtracecmd crashed" in lines[0], p.stderr


@pytest.mark.parametrize("fixture", TRACED)
def test_report_gives_up_on_a_library_loop(cmadebug_bin, fixture, tmp_path):
    """A padding record pointing at itself in a version 7 file loops inside
    libtraceevent's kbuffer, before any callback: the child is stopped after
    CMADEBUG_STALL_SECONDS without progress (before: no end)."""
    v7 = _v7(fixture, tmp_path)
    buf = bytearray(v7.read_bytes())
    _damage(buf, fixture, "self-padding", "version 7 file")
    v7.write_bytes(bytes(buf))
    p = subprocess.run([str(cmadebug_bin), "trace", "report", str(v7)], capture_output=True, text=True,
                       timeout=30, env={**os.environ, "CMADEBUG_STALL_SECONDS": "2"})
    assert p.returncode in (0, 2), p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and "made no progress for 2 s" in lines[0], p.stderr


def test_arm_trace_has_the_coherent_buffers_attribute_changes(cmadebug_bin):
    """On arm the test driver's 8 KiB buffer is remapped non-cacheable and
    back (__dma_remap()): two changes of 2 pages, named by the format."""
    p = run(cmadebug_bin, "--json", "trace", "report", str(FIXTURES / "qemu-arm" / "trace" / "trace.dat"))
    a = json.loads(p.stdout)["attr_changes"]
    assert (a["count"], a["failures"], a["pages"]) == (2, 0, 4)
    assert a["by_cause"] == [{"cause": "dma-remap", "count": 2, "failures": 0, "pages": 4}]


def trace_cmd_report(fixture, env=None):
    p = subprocess.run(["trace-cmd", "report", str(FIXTURES / fixture / "trace" / "trace.dat")],
                       capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 0, p.stderr
    return [line for line in p.stdout.splitlines() if ": " in line]


# What the kernel's print formats make of the guests' records, word for word
# (Debian's trace-cmd, no plugin): every enum and flag field named.
READABLE = {
    "cma_alloc_fail": r"name=reserved start_pfn=0x[0-9a-f]+ count=\d+ attempt=1 errorno=-16 stage=migrate "
                      r"pfn=0x[0-9a-f]+ flags=[a-z][a-z_0-9|]* refcount=\d+ mapcount=0 migratetype=CMA kind=file$",
    "linear_map_attr_change": r"pfn=0x[0-9a-f]+ nr_pages=2 set=memtype clear=none memtype=(noncached|cached) "
                              r"ret=0 cause=dma-remap$",
}


@pytest.mark.parametrize("fixture", INJECTED)
def test_trace_cmd_prints_every_event_readably(fixture):
    """trace-cmd report (Debian's) on the guest's trace.dat: no record it
    cannot parse, and the series' events in words, not numbers."""
    lines = trace_cmd_report(fixture)
    assert not [line for line in lines if "FAILED TO PARSE" in line or "[UNKNOWN" in line]
    seen = set()
    for line in lines:
        for event, pattern in READABLE.items():
            if f" {event}: " in line:
                assert re.search(pattern, line.split(f" {event}: ", 1)[1].strip()), line
                seen.add(event)
    want = set(READABLE) if fixture == "qemu-arm" else {"cma_alloc_fail"}
    assert seen >= want


@pytest.fixture(scope="module")
def plugin_dir(tmp_path_factory):
    """tracepoints/plugin_cmadebug.so, built once for the module."""
    out = tmp_path_factory.mktemp("plugin")
    subprocess.run(["make", "-s", "-C", str(FIXTURES.parent.parent / "tracepoints"), f"O={out}"],
                   check=True, capture_output=True, timeout=120)
    return out


@pytest.mark.parametrize("fixture", INJECTED)
def test_trace_cmd_with_the_plugin_prints_sentences(fixture, plugin_dir):
    """The same file through tracepoints/plugin_cmadebug.so: the plugin's
    sentences, with the names it took from the format."""
    lines = trace_cmd_report(fixture, env=dict(os.environ, TRACEEVENT_PLUGIN_DIR=str(plugin_dir)))
    fails = [line for line in lines if " cma_alloc_fail: " in line]
    assert fails and all("failed in migrate" in line and " file CMA " in line for line in fails), fails
    assert not [line for line in lines if "FAILED TO PARSE" in line]
    if fixture == "qemu-arm":
        attrs = [line for line in lines if " linear_map_attr_change: " in line]
        assert len(attrs) == 2 and all(line.rstrip().endswith(("noncached", "cached")) for line in attrs), attrs
