"""perf-scripts/cmadebug-events.py, called the way 'perf script -s' calls a
Python handler: positionally, the common fields first (event_name, context,
common_cpu, common_secs, common_nsecs, common_pid, common_comm,
common_callchain), then the event's fields in the order of its format
file, then perf_sample_dict.  The field lists are checked against the
format files captured from the guests.  Enum and flag fields come as ints;
before an event's first record perf hands the script the
__print_symbolic()/__print_flags() tables of the recording's format files
through define_symbolic_field/define_symbolic_value and
define_flag_field/define_flag_value: the tests feed them the tables parsed
from the captured format files (print_tables below), so no number of
theirs is hard-coded either."""
import importlib.util
import inspect
import io
import json
import re

import pytest

from conftest import FIXTURES, TOP

COMMON = ["event_name", "context", "common_cpu", "common_secs", "common_nsecs", "common_pid",
          "common_comm", "common_callchain"]
ARCHES = ["arm", "arm-lpae", "arm64", "arm64-64k"]
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


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("event", EVENTS)
def test_handler_fields_match_the_format_files(handler, arch, event):
    fields, _ = format_fields(arch, event)
    fn = getattr(handler, event.replace("/", "__"))
    params = list(inspect.signature(fn).parameters)
    assert params[:8] == COMMON
    assert params[-1] == "perf_sample_dict"
    assert params[8:-1] == fields


def call(fn, *fields, secs=12, nsecs=345, cpu=1, comm="sh"):
    """As perf does: positional common fields, event fields, perf_sample_dict."""
    return fn(fn.__name__, None, cpu, secs, nsecs, 77, comm, [], *fields, {"sample": {}})


def c_value(expr):
    """A table entry's value as libtraceevent evaluates it for perf: 4, 0x10,
    1UL << 5, (1UL << 5); each atom by strtoll(), so an enum name the format
    file left unresolved (1UL << PG_locked) counts as 0."""
    def atom(s):
        m = re.match(r"\s*\(*\s*(0[xX][0-9a-fA-F]+|[0-9]+)", s)
        return int(m.group(1), 0) if m else 0
    if "<<" in expr:
        a, b = expr.split("<<")
        return atom(a) << atom(b)
    return atom(expr)


def closing_paren(text, i):
    """The index of the ')' that closes the '(' before text[i]."""
    depth = 1
    while depth:
        c = text[i]
        if c == '"':
            i = text.index('"', i + 1)
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        i += 1
    return i - 1


def print_tables(text):
    """{field: (kind, delim, [(value, name)], zero)} of a format file's
    print fmt, kind "symbolic" or "flags": the { N, "name" } entries of each
    __print_symbolic()/__print_flags() argument, the flags' delimiter and
    the string a '? __print_flags(...) : "none"' prints for 0."""
    fmt = text.split("print fmt:", 1)[1]
    tables = {}
    for m in re.finditer(r"__print_(symbolic|flags)\(", fmt):
        end = closing_paren(fmt, m.end())
        args = fmt[m.end():end]
        field = re.match(r"[\s(]*REC->(\w+)", args).group(1)
        delim = re.match(r'[^"]*"([^"]*)"', args).group(1) if m.group(1) == "flags" else None
        entries = [(c_value(v), name) for v, name in re.findall(r'\{\s*([^{}",]+?)\s*,\s*"([^"]*)"\s*\}', args)]
        zero = re.match(r'\s*:\s*"([^"]*)"', fmt[end + 1:])
        assert field not in tables, field
        tables[field] = (m.group(1), delim, entries, zero.group(1) if zero else None)
    return tables


def define_tables(handler, arch, events=("cma/cma_alloc_fail", "linear_map/linear_map_split",
                                         "linear_map/linear_map_attr_change")):
    """Calls the handler's define_* functions with the tables of ARCH's
    format files, as perf does: the event named as its handler, the value
    an int, a flag field's atoms (the zero string) as value 0.  Returns
    {event: {field: {name: value}}}."""
    names = {}
    for event in events:
        ev = event.replace("/", "__")
        _, text = format_fields(arch, event)
        names[event] = {}
        for field, (kind, delim, entries, zero) in print_tables(text).items():
            if kind == "symbolic":
                handler.define_symbolic_field(ev, field)
            else:
                handler.define_flag_field(ev, field, delim)
            for value, name in entries:
                define = handler.define_symbolic_value if kind == "symbolic" else handler.define_flag_value
                define(ev, field, value, name)
            if zero is not None:
                handler.define_flag_value(ev, field, 0, zero)
            names[event][field] = {name: value for value, name in entries}
    return names


@pytest.mark.parametrize("arch", ARCHES)
def test_the_format_files_name_the_enum_and_flag_fields(arch):
    """What the handler gets names for: every enum and flag field of the
    three events, tables of the spec's names (the numbers are the kernel's)."""
    got = {}
    for event in ("cma/cma_alloc_fail", "linear_map/linear_map_split", "linear_map/linear_map_attr_change"):
        _, text = format_fields(arch, event)
        got[event] = {f: (kind, [n for _, n in entries], zero)
                      for f, (kind, _, entries, zero) in print_tables(text).items()}
    sizes = ["4K", "16K", "64K", "1M", "2M", "16M", "32M", "512M", "1G", "16G", "64G", "4T"]
    prot = ["valid", "rdonly", "write", "pxn", "memtype", "other"]
    assert got["cma/cma_alloc_fail"]["stage"] == (
        "symbolic", ["isolate", "migrate", "test", "no-space", "signal", "other"], None)
    assert got["cma/cma_alloc_fail"]["migratetype"] == (
        "symbolic", ["Unmovable", "Movable", "Reclaimable", "HighAtomic", "CMA", "Isolate", "none"], None)
    assert got["cma/cma_alloc_fail"]["kind"] == ("symbolic", ["none", "anon", "file", "movable_ops", "other"], None)
    kind, page_flags, zero = got["cma/cma_alloc_fail"]["flags"]
    assert kind == "flags" and zero == "none" and {"locked", "lru", "reserved"} <= set(page_flags)
    assert got["linear_map/linear_map_split"] == {
        "from_shift": ("symbolic", sizes, None), "to_shift": ("symbolic", sizes, None),
        "cause": ("symbolic", ["cma-remap", "page-granular", "forced"], None)}
    assert got["linear_map/linear_map_attr_change"] == {
        "set": ("flags", prot, "none"), "clear": ("flags", prot, "none"),
        "memtype": ("symbolic", ["kept", "cached", "noncached", "device"], None),
        "cause": ("symbolic", ["dma-remap", "set_memory", "set_direct_map"], None)}


@pytest.mark.parametrize("arch", ARCHES)
def test_handler_names_the_values_by_the_format_files_tables(handler, arch):
    t = define_tables(handler, arch)
    fail, split, attr = (t["cma/cma_alloc_fail"], t["linear_map/linear_map_split"],
                         t["linear_map/linear_map_attr_change"])
    for event, fields in t.items():
        ev = event.replace("/", "__")
        for field, table in fields.items():
            flags = (ev, field) in handler.flag_delim
            unambiguous = len(set(table.values())) == len(table)
            for name, value in table.items():
                want = name if unambiguous else f"{value:#x}" if flags else str(value)
                got = handler.flags_str(ev, field, value) if flags else handler.sym(ev, field, value)
                assert got == want, (event, field, name)

    page = fail["flags"]
    # a bit above the page flags (PAGEFLAGS_MASK): the zone's, node's ...
    flags = page["locked"] | page["lru"] | 1 << 30
    call(handler.cma__cma_alloc_fail, "reserved", 0x7e040, 8128, 1, -16, fail["stage"]["migrate"], 0x7e041,
         flags, 2, 0, fail["migratetype"]["Isolate"], fail["kind"]["movable_ops"])
    call(handler.linear_map__linear_map_split, 0x48000, 16777216, split["from_shift"]["2M"],
         split["to_shift"]["4K"], 8, split["cause"]["forced"])
    call(handler.linear_map__linear_map_attr_change, 0x57000, 2, attr["set"]["valid"] | attr["set"]["write"], 0,
         attr["memtype"]["noncached"], 0, attr["cause"]["dma-remap"])
    call(handler.linear_map__linear_map_attr_change, 0x57000, 2, 0, attr["clear"]["rdonly"] | 0x40,
         attr["memtype"]["kept"], 0, attr["cause"]["set_direct_map"])
    out = handler._out.getvalue()
    names = "|".join(n for n in page if n in ("locked", "lru"))
    assert f"errorno=-16 stage=migrate pfn=0x7e041 flags={names}|0x40000000 refcount=2 mapcount=0 " \
           "migratetype=Isolate kind=movable_ops\n" in out
    assert "linear_map:linear_map_split pfn=0x48000 size=16777216 from=2M to=4K count=8 cause=forced\n" in out
    assert "linear_map:linear_map_attr_change pfn=0x57000 nr_pages=2 set=valid|write clear=none " \
           "memtype=noncached ret=0 cause=dma-remap\n" in out
    assert "set=none clear=rdonly|0x40 memtype=kept ret=0 cause=set_direct_map\n" in out


def test_events_print_and_summarise(handler, tmp_path, monkeypatch):
    t = define_tables(handler, "arm64")
    fail, split, attr = (t["cma/cma_alloc_fail"], t["linear_map/linear_map_split"],
                         t["linear_map/linear_map_attr_change"])
    migrate, isolate = fail["stage"]["migrate"], fail["migratetype"]["Isolate"]
    movable_ops = fail["kind"]["movable_ops"]
    lru = fail["flags"]["lru"]
    json_out = tmp_path / "summary.json"
    monkeypatch.setenv("CMADEBUG_EVENTS_JSON", str(json_out))
    call(handler.cma__cma_alloc_start, "reserved", 8, 0)
    call(handler.cma__cma_alloc_fail, "reserved", 0x7e040, 8128, 1, -16, migrate, 0x7e041, lru, 2, 0,
         isolate, movable_ops)
    call(handler.cma__cma_alloc_fail, "reserved", 0x7e040, 8128, 2, -16, migrate, 0x7e041, lru, 2, 0,
         isolate, movable_ops)
    # no range tried, no page to blame: all ones
    call(handler.cma__cma_alloc_fail, "reserved", (1 << 64) - 1, 8128, 3, -12, fail["stage"]["no-space"],
         (1 << 64) - 1, 0, 0, 0, fail["migratetype"]["none"], fail["kind"]["none"])
    call(handler.cma__cma_alloc_busy_retry, "reserved", 0x7e040, 0, 8, 0)
    call(handler.cma__cma_alloc_finish, "reserved", 0x7e000, 0xffff0000, 8, 0, 0)
    call(handler.cma__cma_release, "reserved", 0x7e000, 0xffff0000, 8)
    call(handler.linear_map__linear_map_split, 0x48000, 16777216, split["from_shift"]["2M"],
         split["to_shift"]["4K"], 8, split["cause"]["forced"])
    memtype = attr["set"]["memtype"]
    call(handler.linear_map__linear_map_attr_change, 0x57000, 2, memtype, 0, attr["memtype"]["noncached"], 0,
         attr["cause"]["dma-remap"])
    call(handler.linear_map__linear_map_attr_change, 0x57002, 1, memtype, 0, attr["memtype"]["noncached"], -22,
         attr["cause"]["dma-remap"])
    handler.trace_unhandled("migrate__mm_migrate_pages", None, {})
    handler.trace_end()

    out = handler._out.getvalue()
    assert "   12.000000345 [001] sh               cma:cma_alloc_fail name=reserved start_pfn=0x7e040 " \
           "count=8128 attempt=1 errorno=-16 stage=migrate pfn=0x7e041 flags=lru " \
           "refcount=2 mapcount=0 migratetype=Isolate kind=movable_ops\n" in out
    assert "cma:cma_alloc_fail name=reserved start_pfn=none count=8128 attempt=3 errorno=-12 stage=no-space " \
           "pfn=none flags=none refcount=0 mapcount=0 migratetype=none kind=none\n" in out
    assert "linear_map:linear_map_split pfn=0x48000 size=16777216 from=2M to=4K count=8 cause=forced\n" in out
    assert "set=memtype clear=none memtype=noncached ret=-22 cause=dma-remap\n" in out
    assert "failures by stage: migrate 2, no-space 1" in out
    assert "failures by errno: -12 1, -16 2" in out
    assert "blamed reserved pfn 0x7e041 x2: movable_ops Isolate ref 2 map 0 flags lru\n" in out
    assert "splits forced: 2M->4K x8" in out
    assert "attribute changes dma-remap: changes 1, failures 1, pages 3" in out

    d = json.loads(json_out.read_text())
    assert d["areas"]["reserved"] == {"requests": 1, "attempts_failed": 3, "busy_retries": 1,
                                      "finished_ok": 1, "pages_allocated": 8, "releases": 1,
                                      "pages_released": 8}
    assert d["failures_by_stage"] == {"migrate": 2, "no-space": 1}
    assert d["failures_by_errno"] == {"-16": 2, "-12": 1}
    assert d["pages_blamed"] == [{"pfn": 0x7e041, "count": 2, "flags": "lru", "refcount": 2, "mapcount": 0,
                                  "migratetype": "Isolate", "kind": "movable_ops", "area": "reserved"}]
    assert d["events"]["unhandled migrate__mm_migrate_pages"] == 1
    assert d["splits"] == {"forced": {"2M->4K": 8}}
    assert d["attr_changes"] == {"dma-remap": {"changes": 1, "failures": 1, "pages": 3}}


def test_without_tables_the_values_print_as_numbers(handler):
    """A recording whose print fmt perf could not parse gives the handler no
    table: enums print as their numbers, flags in hex."""
    call(handler.cma__cma_alloc_fail, "reserved", 0x7e040, 8128, 1, -16, 1, 0x7e041, 0x40010000, 2, 0, 5, 3)
    call(handler.linear_map__linear_map_split, 0x48000, 16777216, 21, 12, 8, 2)
    call(handler.linear_map__linear_map_attr_change, 0x57000, 2, 16, 0, 2, 0, 0)
    handler.trace_end()
    out = handler._out.getvalue()
    assert "stage=1 pfn=0x7e041 flags=0x40010000 refcount=2 mapcount=0 migratetype=5 kind=3\n" in out
    assert "from=21 to=12 count=8 cause=2\n" in out
    assert "set=0x10 clear=0x0 memtype=2 ret=0 cause=0\n" in out
    assert "splits 2: 21->12 x8" in out


def test_flag_fields_as_perf_defines_them(handler):
    """perf walks 'REC->f & MASK ? __print_flags(REC->f & MASK, "|", ...) :
    "none"' and also hands every atom over as define_flag_value(..., 0,
    ATOM): the mask's numbers must not name 0.  Bits without a name print
    in hex, after the names, in the table's order."""
    ev = "cma__cma_alloc_fail"
    for atom in ("1UL", "23", "1"):
        handler.define_flag_value(ev, "flags", 0, atom)
    for atom in ("1UL", "23", "1"):
        handler.define_flag_value(ev, "flags", 0, atom)
    handler.define_flag_field(ev, "flags", "|")
    for value, name in ((1, "locked"), (4, "referenced"), (32, "lru"), (0x1800, "two-bits")):
        handler.define_flag_value(ev, "flags", value, name)
    handler.define_flag_value(ev, "flags", 0, "none")
    assert handler.flags_str(ev, "flags", 0) == "none"
    assert handler.flags_str(ev, "flags", 0x21) == "locked|lru"
    assert handler.flags_str(ev, "flags", 0x1000) == "0x1000"
    assert handler.flags_str(ev, "flags", 0x40001825) == "locked|referenced|lru|two-bits|0x40000000"
    handler.define_flag_field("linear_map__linear_map_attr_change", "set", ",")
    handler.define_flag_value("linear_map__linear_map_attr_change", "set", 1, "valid")
    handler.define_flag_value("linear_map__linear_map_attr_change", "set", 4, "write")
    assert handler.flags_str("linear_map__linear_map_attr_change", "set", 5) == "valid,write"
    assert handler.flags_str("linear_map__linear_map_attr_change", "set", 0) == "none"


def test_a_table_naming_a_value_twice_names_nothing(handler):
    """A format file that leaves an enum constant unresolved
    ('{ 1UL << PG_locked, "locked" }': a kernel without
    TRACE_DEFINE_ENUM(PG_locked)) reaches perf as strtoll()'s 0, so every
    page flag as 1: such a field prints as its number, not with one name."""
    ev = "cma__cma_alloc_fail"
    handler.define_flag_field(ev, "flags", "|")
    for name in ("locked", "waiters", "referenced"):
        handler.define_flag_value(ev, "flags", c_value(f"1UL << PG_{name}"), name)
    handler.define_flag_value(ev, "flags", 0, "none")
    handler.define_symbolic_field(ev, "stage")
    for name in ("isolate", "migrate"):
        handler.define_symbolic_value(ev, "stage", c_value(f"CMA_FAIL_{name.upper()}"), name)
    assert handler.flags_str(ev, "flags", 0x21) == "0x21"
    assert handler.flags_str(ev, "flags", 0) == "none"
    assert handler.sym(ev, "stage", 0) == "0"


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
    t = define_tables(handler, "arm64")
    fail, attr = t["cma/cma_alloc_fail"], t["linear_map/linear_map_attr_change"]
    json_out = tmp_path / "summary.json"
    monkeypatch.setenv("CMADEBUG_EVENTS_JSON", str(json_out))
    minus16 = (1 << 32) - 16
    call(handler.cma__cma_alloc_fail, "reserved", 0x7e040, 8128, 1, minus16, fail["stage"]["migrate"], 0x7e041,
         fail["flags"]["lru"], 2, 0, fail["migratetype"]["Isolate"], fail["kind"]["movable_ops"])
    call(handler.cma__cma_alloc_finish, "reserved", 0x7e040, 0, 8128, 0, minus16)
    call(handler.linear_map__linear_map_attr_change, 0x57002, 1, attr["set"]["memtype"], 0,
         attr["memtype"]["noncached"], (1 << 32) - 22, attr["cause"]["dma-remap"])
    handler.trace_end()
    d = json.loads(json_out.read_text())
    assert d["failures_by_errno"] == {"-16": 1}
    assert d["areas"]["reserved"] == {"attempts_failed": 1, "finished_failed": 1}
    assert d["attr_changes"] == {"dma-remap": {"failures": 1, "pages": 1}}
    assert "errorno=-16" in handler._out.getvalue()
    assert "ret=-22" in handler._out.getvalue()
