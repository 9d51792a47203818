"""perf-scripts/cmadebug-events.py, called the way 'perf script -s' calls a
Python handler: positionally, the common fields first (event_name, context,
common_cpu, common_secs, common_nsecs, common_pid, common_comm,
common_callchain), then the event's fields in the order of its format
file, then perf_sample_dict.  The field lists are checked against the
format files captured from both guests."""
import importlib.util
import inspect
import io
import json
import re

import pytest

from conftest import FIXTURES, TOP

COMMON = ["event_name", "context", "common_cpu", "common_secs", "common_nsecs", "common_pid",
          "common_comm", "common_callchain"]
EVENTS = ["cma/cma_alloc_start", "cma/cma_alloc_finish", "cma/cma_alloc_busy_retry", "cma/cma_release",
          "cma/cma_alloc_fail", "linear_map/linear_map_split", "linear_map/linear_map_attr_change"]


@pytest.fixture
def handler():
    spec = importlib.util.spec_from_file_location("cmadebug_events", TOP / "perf-scripts" / "cmadebug-events.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod._out = io.StringIO()
    mod.trace_begin()
    return mod


def format_fields(arch, event):
    text = (FIXTURES / f"qemu-{arch}" / "root/sys/kernel/tracing/events" / event / "format").read_text()
    names = re.findall(r"field:[^;]*?([A-Za-z_][A-Za-z0-9_]*)(?:\[\d*\])?;", text)
    return [n for n in names if not n.startswith("common_")], text


@pytest.mark.parametrize("arch", ["arm", "arm64"])
@pytest.mark.parametrize("event", EVENTS)
def test_handler_fields_match_the_format_files(handler, arch, event):
    fields, _ = format_fields(arch, event)
    fn = getattr(handler, event.replace("/", "__"))
    params = list(inspect.signature(fn).parameters)
    assert params[:8] == COMMON
    assert params[-1] == "perf_sample_dict"
    # 'from' is a Python keyword: the handler calls it from_ (perf passes it by position)
    assert [p.rstrip("_") for p in params[8:-1]] == fields


@pytest.mark.parametrize("arch", ["arm", "arm64"])
def test_symbolic_tables_match_print_fmt(handler, arch):
    for event, table in (("linear_map/linear_map_split", handler.SPLIT_CAUSES),
                         ("linear_map/linear_map_attr_change", handler.ATTR_CAUSES)):
        _, text = format_fields(arch, event)
        pairs = {int(n): s for n, s in re.findall(r'\{ (\d+), "([^"]+)" \}', text)}
        assert pairs == table, event


def call(fn, *fields, secs=12, nsecs=345, cpu=1, comm="sh"):
    """As perf does: positional common fields, event fields, perf_sample_dict."""
    return fn(fn.__name__, None, cpu, secs, nsecs, 77, comm, [], *fields, {"sample": {}})


def test_events_print_and_summarise(handler, tmp_path, monkeypatch):
    json_out = tmp_path / "summary.json"
    monkeypatch.setenv("CMADEBUG_EVENTS_JSON", str(json_out))
    call(handler.cma__cma_alloc_start, "reserved", 8, 0)
    call(handler.cma__cma_alloc_fail, "reserved", 0x7e040, 8128, 0, 1, -16, "migrate", 0x7e041,
         0x40010000, 2, 0, "Isolate", "movable_ops", 0)
    call(handler.cma__cma_alloc_fail, "reserved", 0x7e040, 8128, 0, 2, -16, "migrate", 0x7e041,
         0x40010000, 2, 0, "Isolate", "movable_ops", 0)
    call(handler.cma__cma_alloc_busy_retry, "reserved", 0x7e040, 0, 8, 0)
    call(handler.cma__cma_alloc_finish, "reserved", 0x7e000, 0xffff0000, 8, 0, 0)
    call(handler.cma__cma_release, "reserved", 0x7e000, 0xffff0000, 8)
    call(handler.linear_map__linear_map_split, 0xffff000008000000, 16777216, "2M", "4k", 8, 2)
    call(handler.linear_map__linear_map_attr_change, 0xd7000000, 0x57000, 8192, "MEM/CACHED/WBRA",
         "MEM/BUFFERABLE/WC", 0, 0)
    call(handler.linear_map__linear_map_attr_change, 0xd7002000, 0x57002, 4096, "MEM/CACHED/WBRA",
         "MEM/BUFFERABLE/WC", -22, 0)
    handler.trace_unhandled("migrate__mm_migrate_pages", None, {})
    handler.trace_end()

    out = handler._out.getvalue()
    assert "   12.000000345 [001] sh               cma:cma_alloc_fail name=reserved start_pfn=0x7e040 " \
           "count=8128 align=0 attempt=1 errorno=-16 stage=migrate pfn=0x7e041 flags=0x40010000 " \
           "refcount=2 mapcount=0 migratetype=Isolate kind=movable_ops owner=0\n" in out
    assert "linear_map:linear_map_split addr=0xffff000008000000 size=16777216 from=2M to=4k count=8 " \
           "cause=forced" in out
    assert "cause=dma-remap" in out
    assert "failures by stage: migrate 2" in out
    assert "blamed reserved pfn 0x7e041 x2: movable_ops Isolate ref 2" in out
    assert "splits forced: 2M->4k x8" in out
    assert "attribute changes dma-remap: bytes 12288, changes 1, failures 1" in out

    d = json.loads(json_out.read_text())
    assert d["areas"]["reserved"] == {"requests": 1, "attempts_failed": 2, "busy_retries": 1,
                                      "finished_ok": 1, "pages_allocated": 8, "releases": 1,
                                      "pages_released": 8}
    assert d["failures_by_errno"] == {"-16": 2}
    assert d["events"]["unhandled migrate__mm_migrate_pages"] == 1
    assert d["splits"] == {"forced": {"2M->4k": 8}}


def test_quiet_prints_the_summary_only(handler, monkeypatch):
    monkeypatch.setenv("CMADEBUG_EVENTS_QUIET", "1")
    call(handler.cma__cma_alloc_start, "fimc-pool", 4, 0)
    handler.trace_end()
    out = handler._out.getvalue()
    assert "cma:cma_alloc_start name=" not in out
    assert "area fimc-pool: requests 1" in out


def test_int_fields_come_zero_extended_from_perf(handler, tmp_path, monkeypatch):
    """perf hands a 4-byte signed field to Python zero-extended (Debian's
    perf 6.1 over the arm64 guest's perf.data: tests/fixtures/perf-record):
    -16 arrives as 4294967280 and must count as -16, not as success."""
    json_out = tmp_path / "summary.json"
    monkeypatch.setenv("CMADEBUG_EVENTS_JSON", str(json_out))
    minus16 = (1 << 32) - 16
    call(handler.cma__cma_alloc_fail, "reserved", 0x7e040, 8128, 0, 1, minus16, "migrate", 0x7e041,
         0x40010000, 2, 0, "Isolate", "movable_ops", 0)
    call(handler.cma__cma_alloc_finish, "reserved", 0x7e040, 0, 8128, 0, minus16)
    call(handler.linear_map__linear_map_attr_change, 0xd7002000, 0x57002, 4096, "MEM/CACHED/WBRA",
         "MEM/BUFFERABLE/WC", (1 << 32) - 22, 0)
    handler.trace_end()
    d = json.loads(json_out.read_text())
    assert d["failures_by_errno"] == {"-16": 1}
    assert d["areas"]["reserved"] == {"attempts_failed": 1, "finished_failed": 1}
    assert d["attr_changes"] == {"dma-remap": {"failures": 1, "bytes": 4096}}
    assert "errorno=-16" in handler._out.getvalue()
