"""The series' trace events as tracing maintainers review them (issue 12):
fixed-table values are ints named by __print_symbolic()/__print_flags(),
never strings copied per event, and no event records a kernel virtual
address (perf with CAP_PERFMON reads them).  Checked on the event headers
as kernel-patches/ adds them, and on the format files the guests printed."""
import re
import subprocess

import pytest

from conftest import FIXTURES, PATCHED, TOP

OUR_EVENTS = {"cma": ["cma_alloc_fail"],
              "linear_map": ["linear_map_split", "linear_map_attr_change"]}
# Fields whose values come from a fixed table.
ENUM_FIELDS = {"stage", "migratetype", "kind", "cause", "memtype", "from", "to",
               "from_shift", "to_shift", "set", "clear", "old_type", "new_type"}
# Field names that held, or would hold, a kernel virtual address.
VA_FIELDS = {"addr", "start", "va", "vaddr", "virt", "page"}


def added_event_headers():
    """{header: text of the lines the patches add to it}."""
    out = {}
    for patch in sorted((TOP / "kernel-patches").glob("[0-9]*.patch")):
        current = None
        for line in patch.read_text().splitlines():
            if line.startswith("+++ "):
                path = line[6:] if line.startswith("+++ b/") else None
                current = path if path and path.startswith("include/trace/events/") else None
            elif current and line.startswith("+") and not line.startswith("+++"):
                out.setdefault(current, []).append(line[1:])
    return {k: "\n".join(v) for k, v in out.items()}


def event_blocks(text):
    """{event name: its TRACE_EVENT(...) text} of the added lines."""
    blocks = {}
    for m in re.finditer(r"TRACE_EVENT\((\w+),(.*?)\n\);", text, re.S):
        blocks[m.group(1)] = m.group(2)
    return blocks


def test_the_patches_add_the_events():
    headers = added_event_headers()
    names = set()
    for text in headers.values():
        names |= set(event_blocks(text))
    assert names == {e for evs in OUR_EVENTS.values() for e in evs}


@pytest.mark.parametrize("header", ["include/trace/events/cma.h", "include/trace/events/linear_map.h"])
def test_no_string_for_a_fixed_table_value(header):
    text = added_event_headers()[header]
    strings = set(re.findall(r"__string\((\w+),", text))
    assert not strings & ENUM_FIELDS, strings
    # The only string left is the CMA area's name, which is not a fixed table.
    assert strings <= {"name"}


@pytest.mark.parametrize("header", ["include/trace/events/cma.h", "include/trace/events/linear_map.h"])
def test_no_kernel_virtual_address_in_an_event(header):
    text = added_event_headers()[header]
    assert "%px" not in text and "%pK" not in text
    for name, block in event_blocks(text).items():
        fields = set(re.findall(r"__field\([^,]+,\s*(\w+)\)", block))
        assert not fields & VA_FIELDS, (name, fields & VA_FIELDS)
        assert not re.search(r"__field\([^,]*\*", block), f"{name} records a pointer"


@pytest.mark.parametrize("fixture", PATCHED)
@pytest.mark.parametrize("system,event", [(s, e) for s, evs in OUR_EVENTS.items() for e in evs])
def test_guest_format_names_every_enum(fixture, system, event):
    """The format file the kernel printed: every enum field is an int the
    print format names, with the numbers TRACE_DEFINE_ENUM() filled in (a
    name left in the format, like PG_locked, is a 0 to user space)."""
    fmt = FIXTURES / fixture / "root/sys/kernel/tracing/events" / system / event / "format"
    if not fmt.exists():
        pytest.skip(f"{fixture} has no {system}:{event}")
    text = fmt.read_text()
    fields = {name: ctype for ctype, name in re.findall(r"field:(.*?) (\w+);", text)}
    print_fmt = text[text.index("print fmt:"):]
    for field in ENUM_FIELDS & set(fields):
        assert "__data_loc" not in fields[field], field
        assert re.search(rf"__print_(symbolic|flags)\(\(?REC->{field}\b", print_fmt), field
    # Every symbol and flag value is a number: no enum name user space cannot evaluate.
    for value in re.findall(r"\{ ?([^,{}]+), \"", print_fmt):
        assert re.fullmatch(r"\(?[0-9]+[0-9 <()UL]*\)?|0x[0-9a-fA-F]+", value.strip()), value


def series_new_file(path, tmp_path):
    """The final text of a file the series creates, rebuilt by applying
    each patch's part of it in order (git apply needs no kernel tree)."""
    for patch in sorted((TOP / "kernel-patches").glob("[0-9]*.patch")):
        if f"+++ b/{path}\n" in patch.read_text():
            subprocess.run(["git", "apply", f"--include={path}", str(patch)],
                           cwd=tmp_path, check=True, capture_output=True)
    return (tmp_path / path).read_text()


def seq_printf_calls(text):
    """Each seq_printf(...) statement of @text, as one string."""
    return [m.group(0) for m in re.finditer(r"seq_printf\(.*?\);", text, re.S)]


def test_debugfs_kernel_addresses_honour_kptr_restrict(tmp_path):
    """Root-only debugfs may show kernel virtual addresses, as ptdump does,
    but only to readers kptr_restrict allows (kallsyms_show_value(), as
    /proc/kallsyms decides): every addr=/linear=/alias= printed as a number
    goes through show_addr, and nothing uses %px."""
    text = series_new_file("mm/linear_map_debug.c", tmp_path)
    assert "%px" not in text
    calls = [c for c in seq_printf_calls(text)
             if re.search(r"\b(addr|linear|alias)=0x%l?lx", c)]
    assert len(calls) >= 4, "the splits, alias_check and aliases lines"
    for call in calls:
        assert "show_addr" in call, call
    # show_addr comes from the reader's credentials, per read.
    assert text.count("kallsyms_show_value(m->file->f_cred)") >= 3
