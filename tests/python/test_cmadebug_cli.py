"""cmadebug on the trees captured from the QEMU guests (make fixtures).

The guest ran cmadebug on its live kernel and saved the output next to the
captured tree; on the host, 'cmadebug --root' over the copy must say the
same thing, in text and in JSON, with the same exit status (expected/<cmd>.rc:
3 where alias found conflicts, 2 where the kernel lacks a file: the plain 6.12
kernel of qemu-arm64-unpatched).  Bad trees give one error line and exit 2.
"""
import json
import os
import re
import shutil
import subprocess

import pytest

from schema_check import errors
from conftest import CAPTURED, FIXTURES, PATCHED, STOCK, TOP, UNPATCHED, expected_rc

COMMANDS = ["areas", "events", "stats", "failures", "bitmap", "splits", "alias"]

# The documented JSON shape of 'cmadebug --json areas' (cmadebug.1).
AREA_KEYS = {
    "name": str,
    "base_pfn": int,
    "phys_start": int,
    "phys_end": int,
    "count_pages": int,
    "size_bytes": int,
    "used_pages": int,
    "used_bytes": int,
    "maxchunk_pages": int,
    "maxchunk_bytes": int,
    "order_per_bit": int,
    "alloc_pages_success": (int, type(None)),
    "alloc_pages_fail": (int, type(None)),
}


def run(binary, *args):
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=30)


def test_fixtures_were_captured():
    assert {"qemu-arm", "qemu-arm64"} <= set(CAPTURED), f"captured fixtures: {CAPTURED}"


@pytest.mark.parametrize("fixture", CAPTURED)
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("json_mode", [False, True], ids=["text", "json"])
def test_root_output_matches_live_guest(cmadebug_bin, fixture, command, json_mode):
    expected = (FIXTURES / fixture / "expected" / f"{command}.{'json' if json_mode else 'txt'}").read_text()
    rc = expected_rc(fixture, command)
    args = ["--json"] if json_mode else []
    root = FIXTURES / fixture / "root"
    res = run(cmadebug_bin, *args, "--root", str(root), command)
    assert res.returncode == rc, res.stderr
    if rc in (0, 3):
        assert res.stderr == ""
        assert res.stdout == expected
    elif json_mode:  # the error line, then the same as {"error": ...} (2>&1 on the guest)
        error = json.loads(res.stdout)["error"]
        assert error["exit_status"] == rc
        assert "cmadebug: " + error["message"] == res.stderr.rstrip("\n")
        assert (res.stderr + res.stdout).replace(str(root), "") == expected
    else:  # the guest's error line named the live path (its stderr went to the file)
        assert res.stdout == ""
        assert res.stderr.replace(str(root), "") == expected


@pytest.mark.parametrize("fixture", PATCHED + UNPATCHED)
def test_areas_json_schema_and_sums(cmadebug_bin, fixture):
    res = run(cmadebug_bin, "--json", "--root", str(FIXTURES / fixture / "root"), "areas")
    doc = json.loads(res.stdout)
    # the 64 KiB-page board: its pageblocks are 512 MiB, so cma=512M and
    # no 16 MiB private pool (CMA refuses its alignment)
    want = {"reserved": 512 << 20} if fixture == "qemu-arm64-64k" else \
        {"reserved": 32 << 20, "fimc-pool": 16 << 20}
    assert doc["page_size"] == (65536 if fixture == "qemu-arm64-64k" else 4096)
    assert doc["nr_areas"] == len(doc["areas"]) == len(want)
    for area in doc["areas"]:
        # the series' devices file: every patched guest has it
        extra = {"devices"} if fixture in PATCHED else set()
        assert set(area) == set(AREA_KEYS) | extra, f"keys of {area['name']}"
        assert all(isinstance(d["name"], str) for d in area.get("devices", []))
        for key, typ in AREA_KEYS.items():
            assert isinstance(area[key], typ), f"{area['name']}.{key} = {area[key]!r}"
        assert area["size_bytes"] == area["count_pages"] * doc["page_size"]
        assert area["phys_start"] == area["base_pfn"] * doc["page_size"]
        assert area["phys_end"] == area["phys_start"] + area["size_bytes"] - 1
    assert doc["total_bytes"] == doc["meminfo_cma_total_bytes"]
    sizes = {a["name"]: a["size_bytes"] for a in doc["areas"]}
    assert sizes == want


def test_arm_private_pool_is_in_lowmem(cmadebug_bin):
    """arm.dtsi puts the pool in lowmem (PA < 0x70000000 on the 1 GiB board)."""
    res = run(cmadebug_bin, "--json", "--root", str(FIXTURES / "qemu-arm" / "root"), "areas")
    pool = next(a for a in json.loads(res.stdout)["areas"] if a["name"] == "fimc-pool")
    assert 0x48000000 <= pool["phys_start"] and pool["phys_end"] < 0x58000000


def copy_tree(tmp_path, fixture="qemu-arm64"):
    dst = tmp_path / "root"
    shutil.copytree(FIXTURES / fixture / "root", dst)
    return dst


def assert_env_error(res, *words):
    assert res.returncode == 2, f"exit {res.returncode}, stderr {res.stderr!r}"
    assert res.stdout == ""
    lines = res.stderr.splitlines()
    assert len(lines) == 1, f"expected one error line, got {lines}"
    assert lines[0].startswith("cmadebug: ")
    for w in words:
        assert w in lines[0], f"{w!r} not in {lines[0]!r}"


def test_root_that_does_not_exist(cmadebug_bin, tmp_path):
    assert_env_error(run(cmadebug_bin, "--root", str(tmp_path / "nope"), "areas"), "not a directory")


def test_root_that_is_not_a_captured_tree(cmadebug_bin, tmp_path):
    assert_env_error(run(cmadebug_bin, "--root", str(tmp_path), "areas"), "not a captured tree", "proc/mounts")


def test_debugfs_not_mounted(cmadebug_bin, tmp_path):
    root = copy_tree(tmp_path)
    mounts = root / "proc" / "mounts"
    mounts.write_text("".join(l for l in mounts.read_text().splitlines(True) if " debugfs " not in l))
    assert_env_error(run(cmadebug_bin, "--root", str(root), "areas"), "debugfs is not mounted")


def test_kernel_without_cma_debugfs(cmadebug_bin, tmp_path):
    """No CMA debugfs, no device tree or log in the tree: the stock view has
    CmaTotal and nothing it would have to guess."""
    root = copy_tree(tmp_path)
    shutil.rmtree(root / "sys" / "kernel" / "debug" / "cma")
    # the capture keeps both since stock kernels are read: take them away
    shutil.rmtree(root / "sys" / "firmware", ignore_errors=True)
    (root / "var" / "log" / "dmesg").unlink(missing_ok=True)
    res = run(cmadebug_bin, "--json", "--root", str(root), "areas")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["view"] == "stock" and doc["areas"] == [] and doc["total_bytes"] == 0
    assert doc["meminfo_cma_total_bytes"] == 48 << 20
    assert doc["sources"] == "meminfo, sysfs, zoneinfo, pagetypeinfo"
    assert "device tree: no reserved-memory node" in doc["not_read"]
    assert "kernel log: the tree has no var/log/dmesg" in doc["not_read"]


def test_kernel_without_cma_debugfs_or_any_other_source(cmadebug_bin, tmp_path):
    root = copy_tree(tmp_path)
    shutil.rmtree(root / "sys" / "kernel" / "debug" / "cma")
    shutil.rmtree(root / "sys" / "firmware", ignore_errors=True)
    for f in ("var/log/dmesg", "proc/zoneinfo", "proc/pagetypeinfo"):
        (root / f).unlink(missing_ok=True)
    mi = root / "proc" / "meminfo"
    mi.write_text("".join(l for l in mi.read_text().splitlines(True) if not l.startswith("Cma")))
    assert_env_error(run(cmadebug_bin, "--root", str(root), "areas"), "CONFIG_CMA_DEBUGFS", "/cma")


def test_corrupt_number_is_named(cmadebug_bin, tmp_path):
    root = copy_tree(tmp_path)
    (root / "sys/kernel/debug/cma/reserved/count").write_text("lots\n")
    assert_env_error(run(cmadebug_bin, "--root", str(root), "areas"), "reserved/count", "not a number")


def test_missing_sysfs_counters_are_null_not_zero(cmadebug_bin, tmp_path):
    root = copy_tree(tmp_path)
    shutil.rmtree(root / "sys/kernel/mm")
    res = run(cmadebug_bin, "--json", "--root", str(root), "areas")
    assert res.returncode == 0, res.stderr
    for area in json.loads(res.stdout)["areas"]:
        assert area["alloc_pages_success"] is None and area["alloc_pages_fail"] is None
    text = run(cmadebug_bin, "--root", str(root), "areas").stdout.splitlines()
    assert text[1].split()[-2:] == ["-", "-"], text[1]


def test_page_size_unknown_without_cmatotal(cmadebug_bin, tmp_path):
    """No CmaTotal on a captured tree: sizes stay in pages, nothing is guessed."""
    root = copy_tree(tmp_path)
    mi = root / "proc" / "meminfo"
    mi.write_text("".join(l for l in mi.read_text().splitlines(True) if not l.startswith("Cma")))
    doc = json.loads(run(cmadebug_bin, "--json", "--root", str(root), "areas").stdout)
    assert doc["page_size"] is None
    assert all(a["size_bytes"] is None and a["phys_start"] is None for a in doc["areas"])
    assert [a["count_pages"] for a in doc["areas"]] == [8192, 4096]


def test_tracefs_missing_for_events(cmadebug_bin, tmp_path):
    root = copy_tree(tmp_path)
    mounts = root / "proc" / "mounts"
    mounts.write_text("".join(l for l in mounts.read_text().splitlines(True) if " tracefs " not in l))
    assert_env_error(run(cmadebug_bin, "--root", str(root), "events"), "tracefs is not mounted")


@pytest.mark.parametrize(
    "args, code",
    [
        ([], 1),
        (["bogus"], 1),
        (["--no-such-option", "areas"], 1),
        (["areas", "extra"], 1),
        (["--help"], 0),
        (["areas", "--help"], 0),
        (["--version"], 0),
    ],
)
def test_usage_exit_codes(cmadebug_bin, args, code):
    res = run(cmadebug_bin, *args)
    assert res.returncode == code, res.stderr
    if code:
        assert len(res.stderr.splitlines()) >= 1


@pytest.mark.parametrize("fixture", PATCHED)
def test_snapshot_holds_every_command(cmadebug_bin, fixture, tmp_path):
    root = str(FIXTURES / fixture / "root")
    out = tmp_path / "snap.json"
    res = run(cmadebug_bin, "--root", root, "snapshot", "-o", str(out))
    assert res.returncode == 0 and res.stderr == "" and res.stdout == "", res.stderr
    doc = json.loads(out.read_text())
    assert doc["schema"] == "cmadebug-snapshot" and doc["version"] == 1
    assert doc["source"] == root
    assert doc["kernel"].startswith("Linux version 6.12")
    assert doc["missing"] == []
    for command in ("areas", "bitmap", "stats", "failures", "events", "splits", "alias"):
        alone = json.loads(run(cmadebug_bin, "--json", "--root", root, command).stdout)
        assert doc[command] == alone, f"snapshot's {command} differs from 'cmadebug --json {command}'"
    assert [p.name for p in tmp_path.iterdir()] == ["snap.json"], "a temporary file was left behind"


def test_snapshot_of_an_unpatched_kernel_names_what_is_missing(cmadebug_bin, tmp_path):
    root = copy_tree(tmp_path)
    for area in (root / "sys/kernel/debug/cma").iterdir():
        for f in ("stats", "failures", "allocated", "devices"):
            (area / f).unlink(missing_ok=True)
    out = tmp_path / "snap.json"
    res = run(cmadebug_bin, "--root", str(root), "snapshot", "-o", str(out))
    assert res.returncode == 0, res.stderr
    doc = json.loads(out.read_text())
    assert doc["stats"] is None and doc["failures"] is None
    assert [m.split(":")[0] for m in doc["missing"]] == ["stats", "failures"]
    assert {a["source"] for a in doc["bitmap"]["areas"]} == {"bitmap"}


def test_snapshot_failure_leaves_target_alone(cmadebug_bin, tmp_path):
    out = tmp_path / "snap.json"
    out.write_text("previous\n")
    res = run(cmadebug_bin, "--root", str(tmp_path / "none"), "snapshot", "-o", str(out))
    assert res.returncode == 2 and len(res.stderr.splitlines()) == 1
    assert out.read_text() == "previous\n"
    res = run(cmadebug_bin, "--root", str(FIXTURES / CAPTURED[0] / "root"), "snapshot",
              "-o", str(tmp_path / "no" / "such" / "dir" / "snap.json"))
    assert res.returncode == 2 and len(res.stderr.splitlines()) == 1, res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["snap.json"]


def test_snapshot_needs_an_output(cmadebug_bin):
    res = run(cmadebug_bin, "--root", str(FIXTURES / CAPTURED[0] / "root"), "snapshot")
    assert res.returncode == 1 and "-o FILE" in res.stderr


@pytest.mark.parametrize("fixture", UNPATCHED)
def test_snapshot_of_the_unpatched_kernel(cmadebug_bin, fixture, tmp_path):
    """The plain 6.12 kernel: stats, failures and alias null and named; the
    linear-map layout from ptdump."""
    out = tmp_path / "snap.json"
    res = run(cmadebug_bin, "--root", str(FIXTURES / fixture / "root"), "snapshot", "-o", str(out))
    assert res.returncode == 0 and res.stderr == "", res.stderr
    doc = json.loads(out.read_text())
    assert doc["stats"] is None and doc["failures"] is None and doc["alias"] is None
    assert [m.split(":")[0] for m in doc["missing"]] == ["stats", "failures", "alias"]
    assert doc["splits"]["source"] == "ptdump" and doc["splits"]["splits"] is None
    assert {a["source"] for a in doc["bitmap"]["areas"]} == {"bitmap"}


@pytest.mark.parametrize("fixture", UNPATCHED)
@pytest.mark.parametrize("command, words", [
    ("stats", ["cma/reserved/stats", "not found", "CMA failure patches"]),
    ("failures", ["cma/reserved/failures", "not found", "CMA failure patches"]),
    ("alias", ["linear_map/alias_check", "not found", "CONFIG_LINEAR_MAP_DEBUGFS"]),
])
def test_unpatched_kernel_names_the_missing_file(cmadebug_bin, fixture, command, words):
    assert_env_error(run(cmadebug_bin, "--root", str(FIXTURES / fixture / "root"), command), *words)


def layout_of(binary, root):
    doc = json.loads(run(binary, "--json", "--root", str(root), "splits").stdout)
    return doc["source"], {l["level"]: l["bytes"] for l in doc["layout"]}, doc["mapped_bytes"]


def strip_direct_map(root):
    """A kernel without the DirectMap counters: meminfo without those lines."""
    meminfo = root / "proc/meminfo"
    meminfo.write_text("".join(l for l in meminfo.read_text().splitlines(True)
                               if not l.startswith("DirectMap")))


@pytest.mark.parametrize("fixture", ["qemu-arm", "qemu-arm64"])
def test_splits_from_meminfo_alone(cmadebug_bin, fixture, tmp_path):
    """A kernel with the DirectMap counters and nothing in debugfs (x86, or a
    kernel with only 0024/0025): the layout from meminfo, the records null,
    never zeros, and the text says so."""
    root = copy_tree(tmp_path, fixture)
    shutil.rmtree(root / "sys/kernel/debug/linear_map")
    (root / "sys/kernel/debug/kernel_page_tables").unlink()
    p = run(cmadebug_bin, "--json", "--root", str(root), "splits")
    doc = json.loads(p.stdout)
    assert doc["source"] == "meminfo"
    assert doc["mapped_bytes"] > 0 and doc["layout"][0]["bytes"] >= 0
    for key in ("splits", "totals", "attr_changes", "not_present_bytes", "boot_mapped_bytes"):
        assert doc[key] is None, key
    assert "meminfo" in run(cmadebug_bin, "--root", str(root), "splits").stdout


@pytest.mark.parametrize("fixture", PATCHED)
def test_ptdump_and_linear_map_agree(cmadebug_bin, fixture, tmp_path):
    """A real invariant (the guest tests check it on the live kernel too): the
    layout the kernel walks for linear_map/layout is what ptdump shows, and
    what meminfo's DirectMap counters say where the capture has them (these
    guests have no KFENCE or debug_pagealloc: nothing is not present)."""
    root = copy_tree(tmp_path, fixture)
    strip_direct_map(root)
    src, lm, lm_total = layout_of(cmadebug_bin, root)
    shutil.rmtree(root / "sys/kernel/debug/linear_map")
    src2, pt, pt_total = layout_of(cmadebug_bin, root)
    assert (src, src2) == ("linear_map", "ptdump")
    assert lm_total == pt_total > 0
    for level, nbytes in lm.items():  # ptdump cannot tell arm's 16M supersections
        assert pt.get(level, 0) == nbytes, f"{level}: linear_map {nbytes}, ptdump {pt.get(level)}"
    src3, counted, counted_total = layout_of(cmadebug_bin, FIXTURES / fixture / "root")
    if src3 == "meminfo":
        assert counted_total == lm_total
        assert {l: b for l, b in counted.items() if b} == {l: b for l, b in lm.items() if b}
    else:
        assert src3 == "linear_map"


def test_unpatched_ptdump_layout_is_the_patched_one(cmadebug_bin):
    """Same config, same board: the series does not change how arm64 maps it."""
    assert layout_of(cmadebug_bin, FIXTURES / "qemu-arm64-unpatched" / "root")[1:] == \
        layout_of(cmadebug_bin, FIXTURES / "qemu-arm64" / "root")[1:]


def test_splits_without_linear_map_or_ptdump(cmadebug_bin, tmp_path):
    root = copy_tree(tmp_path)
    strip_direct_map(root)
    shutil.rmtree(root / "sys/kernel/debug/linear_map")
    (root / "sys/kernel/debug/kernel_page_tables").unlink()
    assert_env_error(run(cmadebug_bin, "--root", str(root), "splits"),
                     "linear_map/layout", "CONFIG_LINEAR_MAP_DEBUGFS", "CONFIG_PTDUMP_DEBUGFS")


@pytest.mark.parametrize("name, cut, words", [
    ("alias_check", lambda t: t[: t.rindex("count=")], ["alias_check", "cut short"]),
    ("alias_check", lambda t: re.sub(r"^count=(\d+)", lambda m: f"count={int(m[1]) + 1}", t, flags=re.M),
     ["alias_check", "cut short"]),
    # a sanctioned alias the count line does not account for
    ("alias_check", lambda t: re.sub(r" sanctioned=(\d+)", lambda m: f" sanctioned={int(m[1]) - 1}", t),
     ["alias_check", "cut short"]),
    ("splits", lambda t: t[: t.rindex("records=")], ["linear_map/splits", "cut short"]),
    ("layout", lambda t: t[: t.rindex("BootMapped")], ["linear_map/layout", "cut short"]),
    ("attr_changes", lambda t: t[: t.rindex("bytes=")], ["linear_map/attr_changes", "malformed"]),
])
def test_truncated_linear_map_files(cmadebug_bin, tmp_path, name, cut, words):
    root = copy_tree(tmp_path)
    f = root / "sys/kernel/debug/linear_map" / name
    f.write_text(cut(f.read_text()))
    assert_env_error(run(cmadebug_bin, "--root", str(root), "alias" if name == "alias_check" else "splits"),
                     *words)


def test_alias_exit_status(cmadebug_bin, tmp_path):
    """3 with conflicts (the captured trees have an injected one), 0 without."""
    root = copy_tree(tmp_path)
    f = root / "sys/kernel/debug/linear_map/alias_check"
    assert run(cmadebug_bin, "--root", str(root), "alias").returncode == 3
    lines = f.read_text().splitlines(True)
    f.write_text(lines[-2] + "count=0 pages=0 unlisted_pages=0\n")
    res = run(cmadebug_bin, "--json", "--root", str(root), "alias")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    doc = json.loads(res.stdout)
    assert doc["conflicts"] == [] and doc["count"] == 0 and "fixmap" in doc["not_checked"]


def test_alias_sanctioned_only_exits_0(cmadebug_bin, tmp_path):
    """arm64's captured tree: the injected write-combined vmap is a hazard
    (exit 3); the atomic pool's and the test driver's non-cacheable DMA
    remaps are sanctioned, listed with their class, and alone exit 0."""
    root = copy_tree(tmp_path)
    f = root / "sys/kernel/debug/linear_map/alias_check"
    res = run(cmadebug_bin, "--json", "--root", str(root), "alias")
    doc = json.loads(res.stdout)
    assert res.returncode == 3
    classes = [c["class"] for c in doc["conflicts"]]
    assert classes.count("hazard") == doc["count"] == 1 and classes.count("sanctioned") == doc["sanctioned"] >= 1
    assert all(c["caller"].startswith("dma_common_contiguous_remap") for c in doc["conflicts"]
               if c["class"] == "sanctioned")
    kept = [line for line in f.read_text().splitlines(True) if " class=hazard " not in line]
    kept[-1] = re.sub(r"^count=\d+ pages=\d+", "count=0 pages=0", kept[-1])
    f.write_text("".join(kept))
    res = run(cmadebug_bin, "--root", str(root), "alias")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Hazards: 0" in res.stdout and f"Sanctioned: {doc['sanctioned']}" in res.stdout
    assert re.search(r"^\s*sanctioned\s+0x", res.stdout, re.M)   # each alias's class column


def zero_area_tree(tmp_path):
    """The captured arm guest as a cma=0 kernel with no DT pool shows it:
    debugfs cma/ and sysfs mm/cma/ exist but hold no area."""
    root = copy_tree(tmp_path, "qemu-arm")
    for d in ("sys/kernel/debug/cma", "sys/kernel/mm/cma"):
        for area in (root / d).iterdir():
            shutil.rmtree(area)
    return root


@pytest.mark.parametrize("command, key", [("bitmap", "areas"), ("stats", "areas"), ("failures", "failures")])
def test_no_cma_area_is_an_empty_answer(cmadebug_bin, tmp_path, command, key):
    """Before: exit 2 with nothing on stderr; the empty list is the answer."""
    root = str(zero_area_tree(tmp_path))
    res = run(cmadebug_bin, "--root", root, command)
    assert res.returncode == 0 and res.stderr == "", (res.returncode, res.stderr)
    res = run(cmadebug_bin, "--json", "--root", root, command)
    assert res.returncode == 0 and res.stderr == "", (res.returncode, res.stderr)
    assert json.loads(res.stdout)[key] == []
    res = run(cmadebug_bin, "--root", root, command, "reserved")
    assert res.returncode == 1 and res.stderr.splitlines() == [
        "cmadebug: no CMA area 'reserved' (this kernel has: none)"], res.stderr


def test_snapshot_with_no_cma_area(cmadebug_bin, tmp_path):
    root = zero_area_tree(tmp_path)
    out = tmp_path / "snap.json"
    res = run(cmadebug_bin, "--root", str(root), "snapshot", "-o", str(out))
    assert res.returncode == 0 and res.stderr == "", res.stderr
    doc = json.loads(out.read_text())
    assert doc["missing"] == []
    assert doc["areas"]["nr_areas"] == 0 and doc["stats"] == {"areas": []}
    assert doc["bitmap"]["areas"] == [] and doc["failures"]["failures"] == []
    schema = json.loads((TOP / "cmadebug" / "schema" / "snapshot-v1.schema.json").read_text())
    assert errors(doc, schema) == []


# A captured tree can hold what no kernel file is.  Before: a FIFO blocked
# the tool for ever, a link to /dev/zero read until memory ran out.
def test_fifo_in_a_captured_tree(cmadebug_bin, tmp_path):
    root = copy_tree(tmp_path)
    count = root / "sys/kernel/debug/cma/reserved/count"
    count.unlink()
    os.mkfifo(count)
    res = run(cmadebug_bin, "--root", str(root), "areas")
    assert_env_error(res, "count", "not a regular file")
    (root / "proc/mounts").unlink()
    os.mkfifo(root / "proc/mounts")
    res = run(cmadebug_bin, "--root", str(root), "areas")
    assert_env_error(res, "not a captured tree")


# Under valgrind, which does not know openat2(), the tool resolves paths in a
# captured tree by hand (path.c open_in_root_by_hand): both ways are tested.
RESOLVERS = ["openat2", "by-hand"]


def run_resolver(resolver, binary, *args):
    if resolver == "openat2":
        return run(binary, *args)
    return subprocess.run(["valgrind", "-q", "--error-exitcode=9", str(binary), *args],
                          capture_output=True, text=True, timeout=120)


def bitmap_source(res):
    assert res.returncode == 0, res.stderr
    return next(a for a in json.loads(res.stdout)["areas"] if a["name"] == "reserved")["source"]


@pytest.mark.parametrize("resolver", RESOLVERS)
@pytest.mark.parametrize("target", ["/dev/zero", "HOST", "../../../../../../../../../../HOST"],
                         ids=["device", "absolute", "dotdot"])
def test_links_in_a_captured_tree_stay_inside_it(cmadebug_bin, tmp_path, target, resolver):
    """A captured tree is read as if its directory were "/" (RESOLVE_IN_ROOT):
    a link to the host's /dev/zero (which read until OOM), to a host file by
    its absolute path, or out of the tree with "..", finds nothing inside the
    tree, so 'allocated' counts as absent and the bitmap file is used.  Before,
    the host's file was read: a crafted tree could make the tool read any file."""
    root = copy_tree(tmp_path)
    host = tmp_path / "host-file"
    host.write_text("read from outside the tree\n")
    link = root / "sys/kernel/debug/cma/reserved/allocated"
    link.unlink()
    link.symlink_to(target.replace("HOST", str(host).lstrip("/") if target.startswith("..") else str(host)))
    res = run_resolver(resolver, cmadebug_bin, "--json", "--root", str(root), "bitmap")
    assert bitmap_source(res) == "bitmap"


@pytest.mark.parametrize("resolver", RESOLVERS)
def test_links_inside_a_captured_tree_are_followed(cmadebug_bin, tmp_path, resolver):
    """An absolute link resolves against the tree's own root, a relative one
    with ".." against its directory."""
    root = copy_tree(tmp_path)
    link = root / "sys/kernel/debug/cma/reserved/allocated"
    moved = root / "allocated-elsewhere"
    link.rename(moved)
    link.symlink_to("/allocated-elsewhere")
    res = run_resolver(resolver, cmadebug_bin, "--json", "--root", str(root), "bitmap")
    assert bitmap_source(res) == "allocated"
    link.unlink()
    link.symlink_to("../../../../../../allocated-elsewhere")
    res = run_resolver(resolver, cmadebug_bin, "--json", "--root", str(root), "bitmap")
    assert bitmap_source(res) == "allocated"


@pytest.mark.parametrize("resolver", RESOLVERS)
def test_mount_point_out_of_a_captured_tree(cmadebug_bin, tmp_path, resolver):
    """proc/mounts naming "/../x" stays inside the tree too: the copy of
    debugfs put beside the tree, with a used count of its own, is not read."""
    root = copy_tree(tmp_path)
    outside = tmp_path / "outside-debug"
    shutil.copytree(root / "sys/kernel/debug", outside)
    (outside / "cma/reserved/used").write_text("12345\n")
    mounts = root / "proc/mounts"
    mounts.write_text(mounts.read_text().replace(" /sys/kernel/debug ", " /../outside-debug "))
    res = run_resolver(resolver, cmadebug_bin, "--json", "--root", str(root), "areas")
    assert "12345" not in res.stdout


def test_huge_file_in_a_captured_tree(cmadebug_bin, tmp_path):
    root = copy_tree(tmp_path)
    failures = root / "sys/kernel/debug/cma/reserved/failures"
    with open(failures, "r+b") as f:
        f.truncate(300 << 20)   # sparse: no disk used
    res = run(cmadebug_bin, "--root", str(root), "failures")
    assert_env_error(res, "failures", "larger than 256 MiB")


def test_tracefs_reached_through_debugfs(cmadebug_bin, tmp_path):
    """Only debugfs mounted: the kernel's tracefs is at <debugfs>/tracing.

    Before, 'events' said tracefs was not mounted and a snapshot recorded it.
    """
    root = copy_tree(tmp_path)
    mounts = root / "proc" / "mounts"
    mounts.write_text("".join(l for l in mounts.read_text().splitlines(True) if " tracefs " not in l))
    shutil.move(root / "sys/kernel/tracing", root / "sys/kernel/debug/tracing")
    res = run(cmadebug_bin, "--json", "--root", str(root), "events")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    want = json.loads(run(cmadebug_bin, "--json", "--root", str(FIXTURES / "qemu-arm64" / "root"), "events").stdout)
    assert json.loads(res.stdout) == want


def test_wrong_tracefs_option_is_an_error(cmadebug_bin, tmp_path):
    """Before, every event was called absent and the exit status was 0."""
    root = str(FIXTURES / "qemu-arm64" / "root")
    res = run(cmadebug_bin, "--root", root, "--tracefs", "/sys/kernel/nothing", "events")
    assert_env_error(res, "--tracefs /sys/kernel/nothing", "not a tracefs")
    res = run(cmadebug_bin, "--root", root, "--tracefs", "/sys/kernel/tracing", "events")
    assert res.returncode == 0, res.stderr


# Where a snapshot goes.  Before: -o PATH replaced whatever PATH was (a
# symlink such as /dev/stdout became a 0600 regular file), a full disk gave
# exit 2 with no message, and files were 0600 whatever the umask.
SNAP_ROOT = str(FIXTURES / "qemu-arm64" / "root")


def test_snapshot_to_standard_output(cmadebug_bin, tmp_path):
    res = run(cmadebug_bin, "--root", SNAP_ROOT, "snapshot", "-o", "-")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    out = tmp_path / "snap.json"
    run(cmadebug_bin, "--root", SNAP_ROOT, "snapshot", "-o", str(out))
    assert json.loads(res.stdout) == json.loads(out.read_text())


def test_snapshot_writes_through_a_symlink_and_keeps_it(cmadebug_bin, tmp_path):
    real, link = tmp_path / "real.json", tmp_path / "link.json"
    real.write_text("old\n")
    link.symlink_to(real)
    res = run(cmadebug_bin, "--root", SNAP_ROOT, "snapshot", "-o", str(link))
    assert res.returncode == 0, res.stderr
    assert link.is_symlink() and json.loads(real.read_text())["schema"] == "cmadebug-snapshot"


def test_snapshot_into_a_fifo(cmadebug_bin, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    res = run(cmadebug_bin, "--root", SNAP_ROOT, "snapshot", "-o", str(fifo))
    data = reader.communicate(timeout=30)[0]
    assert res.returncode == 0, res.stderr
    assert fifo.exists() and not fifo.is_file(), "the FIFO was replaced"
    assert json.loads(data)["schema"] == "cmadebug-snapshot"


def test_snapshot_on_a_full_device_says_so(cmadebug_bin):
    res = run(cmadebug_bin, "--root", SNAP_ROOT, "snapshot", "-o", "/dev/full")
    assert res.returncode == 2
    assert res.stderr.splitlines() == ["cmadebug: snapshot: writing /dev/full: No space left on device"]


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_snapshot_honours_the_umask(cmadebug_bin, tmp_path, mask, mode):
    out = tmp_path / "snap.json"
    res = subprocess.run(["sh", "-c", f'umask {mask:03o} && exec "$0" "$@"', str(cmadebug_bin),
                          "--root", SNAP_ROOT, "snapshot", "-o", str(out)],
                         capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr
    assert out.stat().st_mode & 0o777 == mode
    assert [p.name for p in tmp_path.iterdir()] == ["snap.json"], "a temporary file was left"


NO_TMPFILE_SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
/* open() as on a file system without O_TMPFILE (ramfs, vfat, NFS, FUSE). */
static int shim(const char *sym, const char *path, int flags, va_list ap)
{
    int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, sym);
    if ((flags & O_TMPFILE) == O_TMPFILE) { errno = EOPNOTSUPP; return -1; }
    return real(path, flags, va_arg(ap, int));
}
int open(const char *p, int f, ...) { va_list ap; va_start(ap, f); int r = shim("open", p, f, ap); va_end(ap); return r; }
int open64(const char *p, int f, ...) { va_list ap; va_start(ap, f); int r = shim("open64", p, f, ap); va_end(ap); return r; }
"""


def test_snapshot_without_o_tmpfile(cmadebug_bin, tmp_path):
    """The named temporary file fallback: same result, mode, nothing left."""
    src, shim = tmp_path / "shim.c", tmp_path / "shim.so"
    src.write_text(NO_TMPFILE_SHIM)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(shim), str(src), "-ldl"], check=True, timeout=60)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "snap.json"
    out.write_text("old\n")
    res = subprocess.run(["sh", "-c", 'umask 027 && exec "$0" "$@"', str(cmadebug_bin),
                          "--root", SNAP_ROOT, "snapshot", "-o", str(out)],
                         capture_output=True, text=True, timeout=30,
                         env={**os.environ, "LD_PRELOAD": str(shim)})
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert json.loads(out.read_text())["schema"] == "cmadebug-snapshot"
    assert out.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in out_dir.iterdir()] == ["snap.json"]


@pytest.mark.parametrize("args, status", [
    (["--root", "/nonexistent", "areas"], 2),
    (["areas", "--bogus"], 1),
    (["areas", "-o", "name,nosuch"], 1),
])
def test_json_errors_are_json(cmadebug_bin, args, status):
    """Under --json a failure is a JSON document too (and still one stderr line)."""
    res = run(cmadebug_bin, "--json", *args)
    assert res.returncode == status
    assert len(res.stderr.splitlines()) == 1 and res.stderr.startswith("cmadebug: ")
    assert json.loads(res.stdout) == {"error": {"message": res.stderr[len("cmadebug: "):].rstrip("\n"),
                                                "exit_status": status}}


def test_compact_and_pretty_json_agree(cmadebug_bin):
    root = str(FIXTURES / "qemu-arm" / "root")
    compact = run(cmadebug_bin, "--root", root, "--json", "areas")
    pretty = run(cmadebug_bin, "--root", root, "areas", "-p")
    assert compact.stdout.count("\n") == 1 and pretty.stdout.count("\n") > 20
    assert json.loads(compact.stdout) == json.loads(pretty.stdout)


def test_bytes_prints_exact_sizes(cmadebug_bin):
    root = str(FIXTURES / "qemu-arm" / "root")
    res = run(cmadebug_bin, "--root", root, "areas", "--bytes", "-o", "name,size,maxchunk")
    doc = json.loads(run(cmadebug_bin, "--root", root, "--json", "areas").stdout)
    rows = [l.split() for l in res.stdout.splitlines()[1:1 + doc["nr_areas"]]]
    assert rows == [[a["name"], str(a["size_bytes"]), str(a["maxchunk_bytes"])] for a in doc["areas"]]


def test_areas_columns_and_devices(cmadebug_bin):
    """-o picks and orders the text columns; DEVICES shows the series' devices file."""
    root = FIXTURES / "qemu-arm" / "root"
    res = run(cmadebug_bin, "--root", str(root), "areas", "-o", "devices,NAME")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].split() == ["DEVICES", "NAME"]
    devices = (root / "sys/kernel/debug/cma/fimc-pool/devices").read_text().splitlines()
    dev, driver = (kv.split("=", 1)[1] for kv in devices[0].split())   # device=NAME driver=DRV
    assert any(l.startswith(f"{dev} ({driver})") and l.endswith("fimc-pool") for l in lines[1:])
    doc = json.loads(run(cmadebug_bin, "--root", str(root), "--json", "areas").stdout)
    by_name = {a["name"]: a for a in doc["areas"]}
    assert by_name["fimc-pool"]["devices"] == [{"name": dev, "driver": driver}]
    assert by_name["reserved"]["devices"] == []


def test_stats_columns_follow_their_labels(cmadebug_bin, tmp_path):
    """Areas whose stats differ (a kernel without one counter in one area):
    each value stays under its own header, a missing one shows '-'.
    Before, the cells were placed by position and shifted left."""
    root = copy_tree(tmp_path)
    stats = root / "sys/kernel/debug/cma/reserved/stats"
    stats.write_text("".join(l for l in stats.read_text().splitlines(True) if not l.startswith("retries=")))
    res = run(cmadebug_bin, "--root", str(root), "stats")
    assert res.returncode == 0, res.stderr
    # cells are apart by two blanks at least; "1.012 s" has one inside
    rows = [re.split(r"\s{2,}", l.strip()) for l in res.stdout.splitlines()]
    by_area = {r[0]: dict(zip(rows[0], r)) for r in rows[1:]}
    assert by_area["reserved"]["RETRIES"] == "-"
    last_ns = int(next(l.split("=")[1] for l in stats.read_text().splitlines()
                       if l.startswith("last_failure_ns=")))
    # emit's rule: the unit that fits, three decimals
    human = f"{last_ns / 1e6:.3f} ms" if last_ns < 1e9 else f"{last_ns / 1e9:.3f} s"
    assert last_ns >= 1e6 and by_area["reserved"]["LAST_FAILURE"] == human
    assert by_area["fimc-pool"]["LAST_FAILURE"] == "never"
    assert by_area["reserved"]["FAIL_NO_SPACE"] == "1" and by_area["fimc-pool"]["RETRIES"] == "0"


@pytest.mark.parametrize("size", ["0", "5X", "-1", "M", "1025G", "99999999999999999999"])
def test_trace_record_refuses_a_bad_max_size(cmadebug_bin, size):
    """-m is parsed before anything is recorded: one line, the usage status."""
    res = run(cmadebug_bin, "trace", "record", "-m", size, "-d", "1")
    assert res.returncode == 1, res.stderr
    assert res.stderr.splitlines() == [
        "cmadebug: trace record: -m needs a size from 1M to 1024G (MiB unless G; below 4G on 32-bit)"]


def test_trace_record_max_size_needs_a_value(cmadebug_bin):
    res = run(cmadebug_bin, "trace", "record", "--max-size")
    assert res.returncode == 1 and len(res.stderr.splitlines()) == 1, res.stderr


@pytest.mark.parametrize("resolver", RESOLVERS)
def test_tracefs_mount_point_out_of_a_captured_tree(cmadebug_bin, tmp_path, resolver):
    """The events of a tracefs copy beside the tree are not listed: the
    listing goes through the tree's root like the format files (it went
    through libtracefs and the host path before)."""
    root = copy_tree(tmp_path)
    shutil.copytree(root / "sys/kernel/tracing", tmp_path / "outside-tracing")
    mounts = root / "proc/mounts"
    mounts.write_text(mounts.read_text().replace(" /sys/kernel/tracing ", " /../outside-tracing "))
    res = run_resolver(resolver, cmadebug_bin, "--json", "--root", str(root), "events")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["nr_present"] == 0


def test_allocated_run_outside_the_area(cmadebug_bin, tmp_path):
    """A run of 'allocated' outside [base_pfn, base_pfn + count) is a bad
    file, not a run to report (it was reported as the area's)."""
    root = copy_tree(tmp_path)
    area = root / "sys/kernel/debug/cma/reserved"
    end = int((area / "base_pfn").read_text()) + int((area / "count").read_text())
    opb = int((area / "order_per_bit").read_text())
    (area / "allocated").write_text(f"start_pfn={end:#x} end_pfn={end + 1:#x} pages=2\n"
                                    f"records=1 pages=2 order_per_bit={opb}\n")
    res = run(cmadebug_bin, "--root", str(root), "bitmap", "reserved")
    assert_env_error(res, "allocated", "a run lies outside the area")


def allocated_tree(tmp_path, order_per_bit):
    """The captured arm64 tree with the reserved area's order_per_bit set
    (the bitmap file made to match: nothing allocated) and its allocated
    file empty; no failure log (no marks to read)."""
    root = copy_tree(tmp_path)
    area = root / "sys/kernel/debug/cma/reserved"
    (area / "failures").unlink()
    count = int((area / "count").read_text())
    (area / "order_per_bit").write_text(f"{order_per_bit}\n")
    (area / "bitmap").write_text(" ".join(["0"] * -(-(count >> order_per_bit) // 32)) + "\n")
    (area / "allocated").write_text(f"records=0 pages=0 order_per_bit={order_per_bit}\n")
    return root, area


def test_allocated_order_per_bit_in_json(cmadebug_bin, tmp_path):
    """The runs' granule: the allocated file's order_per_bit, per area."""
    root, area = allocated_tree(tmp_path, 1)
    base = int((area / "base_pfn").read_text())
    (area / "allocated").write_text(f"start_pfn={base + 2:#x} end_pfn={base + 5:#x} pages=4\n"
                                    "records=1 pages=4 order_per_bit=1\n")
    res = run(cmadebug_bin, "--json", "--root", str(root), "bitmap", "reserved")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["runs"] == [{"area": "reserved", "first_pfn": base + 2, "last_pfn": base + 5, "pages": 4}]
    assert doc["areas"][0]["order_per_bit"] == 1 and doc["areas"][0]["source"] == "allocated"


@pytest.mark.parametrize("run_line, trailer", [
    (None, "records=0 pages=0 order_per_bit=0"),   # not the area's order_per_bit
    ("start_pfn={b1:#x} end_pfn={b2:#x} pages=2", "records=1 pages=2 order_per_bit=1"),  # off its bits
], ids=["order", "alignment"])
def test_allocated_that_disagrees_with_the_area(cmadebug_bin, tmp_path, run_line, trailer):
    root, area = allocated_tree(tmp_path, 1)
    base = int((area / "base_pfn").read_text())
    lines = [run_line.format(b1=base + 1, b2=base + 2)] if run_line else []
    (area / "allocated").write_text("".join(l + "\n" for l in lines + [trailer]))
    assert_env_error(run(cmadebug_bin, "--root", str(root), "bitmap", "reserved"),
                     "allocated", "order_per_bit or a run disagrees with the area's bitmap bits")


@pytest.mark.parametrize("args", [
    ["areas", "--json", "--root", "ROOT"],
    ["areas", "-j", "-r", "ROOT"],
    ["areas", "--root=ROOT", "--json"],
    ["--json", "areas", "--root", "ROOT"],
], ids=["long", "short", "equals", "mixed"])
def test_global_options_after_the_command(cmadebug_bin, args):
    root = str(FIXTURES / "qemu-arm" / "root")
    want = run(cmadebug_bin, "--json", "--root", root, "areas")
    res = run(cmadebug_bin, *[root if a == "ROOT" else a.replace("ROOT", root) for a in args])
    assert res.returncode == 0, res.stderr
    assert res.stdout == want.stdout


def test_global_option_after_the_command_needs_its_value(cmadebug_bin):
    res = run(cmadebug_bin, "areas", "--root")
    assert res.returncode == 1
    assert res.stderr.splitlines() == ["cmadebug: a value is missing after '--root' (see 'cmadebug --help')"]


@pytest.mark.parametrize("args,line", [
    (["--foo", "areas"], "unknown option '--foo'"),
    (["-x", "areas"], "unknown option '-x'"),
    (["-xj", "areas"], "unknown option '-x'"),
    (["-jx", "areas"], "unknown option '-x'"),
    (["-r"], "a value is missing after '-r'"),
    (["--root"], "a value is missing after '--root'"),
])
def test_option_errors_are_one_line(cmadebug_bin, args, line):
    """getopt's own message and ours made two lines before."""
    res = run(cmadebug_bin, *args)
    assert res.returncode == 1 and res.stdout == ""
    assert res.stderr.splitlines() == [f"cmadebug: {line} (see 'cmadebug --help')"]


def test_words_after_dashdash_stay_the_commands(cmadebug_bin):
    """After --, --json is the command's word, not cmadebug's option."""
    res = run(cmadebug_bin, "areas", "--root", str(FIXTURES / "qemu-arm" / "root"), "--", "--json")
    assert res.returncode == 1 and res.stdout == ""
    assert res.stderr.splitlines() == [
        "cmadebug: areas: unexpected argument '--' (see 'cmadebug areas --help')"]


@pytest.mark.parametrize("command", ["areas", "bitmap", "snapshot", "trace", "tlb"])
def test_help_command(cmadebug_bin, command):
    """'cmadebug help CMD' says what 'cmadebug CMD --help' says."""
    res = run(cmadebug_bin, "help", command)
    assert res.returncode == 0, res.stderr
    assert res.stdout == run(cmadebug_bin, command, "--help").stdout and "Usage:" in res.stdout


def test_help_of_nothing_and_of_a_stranger(cmadebug_bin):
    assert run(cmadebug_bin, "help").stdout == run(cmadebug_bin, "--help").stdout
    res = run(cmadebug_bin, "help", "nope")
    assert res.returncode == 1
    assert res.stderr.splitlines() == ["cmadebug: help: 'nope' is not one command (see 'cmadebug --help')"]


@pytest.mark.parametrize("command", [["events"], ["snapshot", "-o", "-"]])
def test_a_format_that_crashes_libtraceevent_is_one_line(cmadebug_bin, tmp_path, command):
    """tests/fuzz/known-libtraceevent/field-array-bracket makes libtraceevent
    1.7.1 dereference NULL; in a captured tree it reached it through events
    and snapshot (the tool died of SIGSEGV).  The parse runs in a child now."""
    root = copy_tree(tmp_path)
    fmt = root / "sys/kernel/tracing/events/cma/cma_alloc_fail/format"
    assert fmt.is_file()
    shutil.copy(TOP / "tests/fuzz/known-libtraceevent/field-array-bracket", fmt)
    res = run(cmadebug_bin, "--root", str(root), *command)
    assert_env_error(res, str(fmt), "libtraceevent crashed on this format file")


@pytest.mark.parametrize("fixture", [f for f in CAPTURED if (FIXTURES / f / "expected" / "doctor.txt").exists()])
@pytest.mark.parametrize("json_mode", [False, True], ids=["text", "json"])
def test_doctor_output_matches_live_guest(cmadebug_bin, fixture, json_mode):
    expected = (FIXTURES / fixture / "expected" / f"doctor.{'json' if json_mode else 'txt'}").read_text()
    res = run(cmadebug_bin, *(["--json"] if json_mode else []), "--root", str(FIXTURES / fixture / "root"), "doctor")
    assert res.returncode == expected_rc(fixture, "doctor")
    assert res.stdout + res.stderr == expected


@pytest.mark.parametrize("fixture, rc", [("qemu-arm64", 0), ("qemu-arm", 0), ("qemu-arm64-unpatched", 2),
                                         ("qemu-arm64-debian", 2)])
def test_doctor_exit_status(cmadebug_bin, fixture, rc):
    """0 when every view is there (our patched guests), 2 otherwise."""
    res = run(cmadebug_bin, "--json", "--root", str(FIXTURES / fixture / "root"), "doctor")
    assert res.returncode == rc, res.stdout
    doc = json.loads(res.stdout)
    assert doc["missing"] == sum(not c["available"] for c in doc["checks"]) == (rc and doc["missing"])
    assert doc["series_applies"] == (fixture != "qemu-arm64-debian")


def test_doctor_names_what_the_stock_kernel_lacks(cmadebug_bin):
    doc = json.loads(run(cmadebug_bin, "--json", "--root", str(FIXTURES / "qemu-arm64-debian" / "root"),
                         "doctor").stdout)
    missing = {c["view"]: c["needs"] for c in doc["checks"] if not c["available"]}
    assert missing["areas: per-area usage (debugfs cma/)"] == "CONFIG_CMA_DEBUGFS"
    assert missing["areas: allocation counters (sysfs mm/cma/)"] == "CONFIG_CMA_SYSFS"
    assert "CONFIG_PTDUMP_DEBUGFS" in missing["splits: linear-map layout"]
    assert "CONFIG_LINEAR_MAP_DEBUGFS" in missing["alias"]
    assert doc["kernel_version"] == "6.1" and doc["series_applies"] is False


@pytest.mark.parametrize("fixture", STOCK)
def test_stock_areas_agree_with_log_device_tree_and_meminfo(cmadebug_bin, fixture):
    """The issue's invariant: the areas and sizes the log and the device tree
    give, totalling CmaTotal; the private pool from both."""
    root = FIXTURES / fixture / "root"
    doc = json.loads(run(cmadebug_bin, "--json", "--root", str(root), "areas").stdout)
    log = (root / "var/log/dmesg").read_text()
    pool = int(re.search(r"created CMA memory pool at (0x[0-9a-f]+), size 16 MiB", log).group(1), 16)
    default = int(re.search(r"cma: Reserved 32 MiB at (0x[0-9a-f]+)", log).group(1), 16)
    areas = {a["name"]: a for a in doc["areas"]}
    assert {n: (a["phys_start"], a["size_bytes"]) for n, a in areas.items()} == \
        {"fimc-pool": (pool, 16 << 20), "reserved": (default, 32 << 20)}
    assert areas["fimc-pool"]["size_bytes_source"] == "device tree, kernel log"
    assert areas["fimc-pool"]["reusable"] is True and areas["fimc-pool"]["default"] is False
    assert areas["reserved"]["reusable"] is None
    assert areas["reserved"]["reusable_source"] == "not available on this kernel"
    assert doc["total_bytes"] == doc["meminfo_cma_total_bytes"] == 48 << 20


@pytest.mark.parametrize("fixture", STOCK)
def test_stock_tree_without_log_says_so(cmadebug_bin, fixture, tmp_path):
    """Without the log: the device tree's pool, its base unknown (no reg), the
    cma= area not listed; nothing guessed."""
    root = copy_tree(tmp_path, fixture)
    (root / "var/log/dmesg").unlink()
    doc = json.loads(run(cmadebug_bin, "--json", "--root", str(root), "areas").stdout)
    assert [a["name"] for a in doc["areas"]] == ["fimc-pool"]
    pool = doc["areas"][0]
    assert pool["phys_start"] is None and pool["phys_start_source"] == "not available on this kernel"
    assert pool["size_bytes"] == 16 << 20 and pool["size_bytes_source"] == "device tree"
    assert pool["active"] is None
    assert "kernel log: the tree has no var/log/dmesg" in doc["not_read"]
    text = run(cmadebug_bin, "--root", str(root), "areas").stdout
    assert "Not read: kernel log: the tree has no var/log/dmesg" in text


@pytest.mark.parametrize("fixture", STOCK)
def test_stock_tree_without_device_tree_says_so(cmadebug_bin, fixture, tmp_path):
    root = copy_tree(tmp_path, fixture)
    shutil.rmtree(root / "sys/firmware")
    doc = json.loads(run(cmadebug_bin, "--json", "--root", str(root), "areas").stdout)
    pool = next(a for a in doc["areas"] if a["name"] == "fimc-pool")
    assert pool["name_source"] == "kernel log" and pool["reusable"] is None
    assert "device tree: no reserved-memory node" in doc["not_read"]


def test_stock_log_line_cut_short_is_named(cmadebug_bin, tmp_path):
    root = copy_tree(tmp_path, "qemu-arm64-debian")
    log = root / "var/log/dmesg"
    log.write_text(log.read_text() + "[    9.000000] cma: Reserved 32 MiB at 0x7bc0\n"[:-12] + "\n")
    assert_env_error(run(cmadebug_bin, "--root", str(root), "areas"), "var/log/dmesg", "does not parse")


@pytest.mark.parametrize("fixture", STOCK)
def test_stock_zones_hold_the_areas(cmadebug_bin, fixture):
    """zoneinfo and pagetypeinfo, read back: the zones' CMA pages are
    CmaTotal, their free pages CmaFree, whole pageblocks, and the free CMA
    blocks by order add up to the free pages; the largest is at most that."""
    root = FIXTURES / fixture / "root"
    doc = json.loads(run(cmadebug_bin, "--json", "--root", str(root), "areas").stdout)
    assert doc["zones"], "no zone with CMA"
    ps = doc["page_size_bytes"]
    assert ps == 4096 and doc["page_size_source"] == "meminfo"
    assert sum(z["cma_bytes"] for z in doc["zones"]) == doc["meminfo_cma_total_bytes"]
    assert sum(z["cma_free_bytes"] for z in doc["zones"]) == doc["meminfo_cma_free_bytes"]
    for z in doc["zones"]:
        assert z["cma_pageblocks"] * doc["pages_per_pageblock"] == z["cma_pages"]
        by_order = z["free_cma_blocks_by_order"]
        assert sum(n << order for order, n in enumerate(by_order)) == z["cma_free_pages"]
        top = max(order for order, n in enumerate(by_order) if n)
        assert z["largest_free_cma_block_pages"] == 1 << top
        assert z["largest_free_cma_block_bytes"] == ps << top <= z["cma_free_bytes"]
    assert "zoneinfo, pagetypeinfo" in doc["sources"]


def test_stock_tree_without_zone_files_says_so(cmadebug_bin, tmp_path):
    """Without pagetypeinfo (root only on a board): zoneinfo's pages, no
    blocks, and why; without both: no zones, and why for each."""
    root = copy_tree(tmp_path, "qemu-arm64-debian")
    (root / "proc/pagetypeinfo").unlink()
    doc = json.loads(run(cmadebug_bin, "--json", "--root", str(root), "areas").stdout)
    zone = doc["zones"][0]
    assert zone["cma_pages"] == 12288 and zone["cma_pageblocks"] is None
    assert zone["free_cma_blocks_by_order"] == [] and zone["largest_free_cma_block_pages"] is None
    assert doc["pages_per_pageblock"] is None
    assert "pagetypeinfo: not in the tree" in doc["not_read"]
    (root / "proc/zoneinfo").unlink()
    doc = json.loads(run(cmadebug_bin, "--json", "--root", str(root), "areas").stdout)
    assert doc["zones"] == [] and doc["page_size_bytes"] is None
    assert "zoneinfo: not in the tree" in doc["not_read"]
    text = run(cmadebug_bin, "--root", str(root), "areas").stdout
    assert "ZONE" not in text and "Not read: zoneinfo: not in the tree; pagetypeinfo: not in the tree" in text


@pytest.mark.parametrize("line", ["        cma      12x", "      nr_free_cma  1 2"])
def test_stock_zoneinfo_line_garbled_is_named(cmadebug_bin, tmp_path, line):
    root = copy_tree(tmp_path, "qemu-arm64-debian")
    f = root / "proc/zoneinfo"
    f.write_text(f.read_text().replace("        cma      12288", line).replace("      nr_free_cma  12190", line))
    assert_env_error(run(cmadebug_bin, "--root", str(root), "areas"), "proc/zoneinfo", "does not parse")


@pytest.mark.parametrize("fixture", [f for f in STOCK if (FIXTURES / f / "expected" / "doctor-kcore.txt").exists()])
def test_stock_doctor_live_is_the_tree_plus_kcore(fixture):
    """The guest's live doctor had one row more than its tree gives: the
    page tables through /proc/kcore (live only), available on Debian's
    arm64 kernel; every other line is the same."""
    d = FIXTURES / fixture / "expected"
    live = (d / "doctor-kcore.txt").read_text().splitlines()
    kcore = [line for line in live if "through /proc/kcore" in line]
    assert len(kcore) == 1 and re.search(r"\byes\s+-$", kcore[0]), kcore
    tree = (d / "doctor.txt").read_text().splitlines()

    def cells(line):  # the table's columns are as wide as its widest row
        return re.split(r"\s{2,}", line.strip())
    assert [cells(line) for line in live if line not in kcore] == [cells(line) for line in tree]
    assert (d / "doctor-kcore.rc").read_text() == (d / "doctor.rc").read_text()


@pytest.mark.parametrize("fixture", [f for f in STOCK if (FIXTURES / f / "expected" / "splits-kcore.json").exists()])
def test_stock_kcore_layout_is_the_linear_map(fixture):
    """On Debian's arm64 kernel (no linear_map/, no ptdump) the guest's
    'cmadebug splits' walked the tables through /proc/kcore: the levels add
    up, the page runs add up to what is mapped with pages (Debian's
    rodata=full maps most of it with pages), and the whole lies between
    MemTotal and the board's 1 GiB of RAM.  Held to the byte against ptdump
    on our own arm64 kernel by tests/qemu/linear-map.sh."""
    d = FIXTURES / fixture
    doc = json.loads((d / "expected" / "splits-kcore.json").read_text())
    assert doc["source"] == "kcore" and doc["splits"] is None and doc["boot_mapped_bytes"] is None
    assert sum(level["bytes"] for level in doc["layout"]) == doc["mapped_bytes"]
    assert [level["level"] for level in doc["layout"]] == ["1G", "32M", "2M", "64k", "4k"]
    assert sum(r["size_bytes"] for r in doc["page_ranges"]) == doc["page_mapped_bytes"]
    pages = sum(level["bytes"] for level in doc["layout"] if level["level"] in ("64k", "4k"))
    assert doc["page_mapped_bytes"] == pages > doc["mapped_bytes"] // 2, "rodata=full: mostly pages"
    meminfo = (d / "root" / "proc" / "meminfo").read_text()
    mem_total = int(re.search(r"^MemTotal:\s+(\d+) kB", meminfo, re.M).group(1)) * 1024
    assert mem_total <= doc["mapped_bytes"] <= 1 << 30
    schema = json.loads((TOP / "cmadebug" / "schema" / "snapshot-v1.schema.json").read_text())
    assert errors(doc, {"$ref": "#/$defs/splits"}, schema) == []
    alias = json.loads((d / "expected" / "alias-kcore.json").read_text())
    assert alias["source"] == "kcore" and alias["count"] == len(alias["conflicts"])
    assert (d / "expected" / "alias-kcore.rc").read_text().strip() == ("3" if alias["count"] else "0")
    assert errors(alias, {"$ref": "#/$defs/alias"}, schema) == []


@pytest.mark.parametrize("command", ["splits", "alias"])
def test_kcore_is_live_only(cmadebug_bin, command):
    """A captured tree has no /proc/kcore: --kcore with --root is a usage
    error, one line naming the command, nothing on standard output."""
    res = run(cmadebug_bin, "--root", str(FIXTURES / "qemu-arm64" / "root"), command, "--kcore")
    assert res.returncode == 1 and res.stdout == ""
    assert res.stderr == f"cmadebug: {command}: --kcore reads the live kernel's /proc/kcore, not a captured tree\n"


# alias --pid on the live system: a debugfs of regular files given with
# --debugfs stands for the kernel's (its alias_check answers as if PID had
# been written; alias_check_pid holds what was written last).
ALIAS_USER = (
    "type=alias pfn=0x10 pages=2 class=hazard linear=0x0 linear_type=MEM/NORMAL alias=0xffffa0001000 "
    "alias_type=MEM/NORMAL-NC region=user caller=none cma=reserved pid={pid}\n"
    "type=alias pfn=0x20 pages=1 class=sanctioned linear=0x0 linear_type=MEM/NORMAL alias=0x0 "
    "alias_type=MEM/NORMAL-NC region=vmalloc caller=none cma=none\n"
    "type=coverage checked=linear,modules,vmalloc,failed-changes,user pid={pid} not_checked=other-users,fixmap\n"
    "count=1 pages=2 sanctioned=1 sanctioned_pages=1 unlisted_pages=0\n")


def fake_debugfs(tmp_path, before="pid=none\n", walked=1234):
    debugfs = tmp_path / "debug"
    (debugfs / "linear_map").mkdir(parents=True)
    (debugfs / "linear_map/alias_check").write_text(ALIAS_USER.format(pid=walked))
    (debugfs / "linear_map/alias_check_pid").write_text(before)
    return debugfs


@pytest.mark.parametrize("before, after", [("pid=none\n", "none"), ("pid=77\n", "77")])
def test_alias_pid_reports_and_restores(cmadebug_bin, tmp_path, before, after):
    """alias --pid: the user lines with their pid, the checked pid; then
    alias_check_pid holds what it held before (its value written back)."""
    debugfs = fake_debugfs(tmp_path, before)
    res = run(cmadebug_bin, "--json", "--debugfs", str(debugfs), "alias", "--pid", "1234")
    assert res.returncode == 3 and res.stderr == "", res.stderr   # a hazard, as always
    doc = json.loads(res.stdout)
    assert [(c["region"], c["pid"]) for c in doc["conflicts"]] == [("user", 1234), ("vmalloc", None)]
    assert doc["conflicts"][0]["alias"] == 0xffffa0001000 and doc["conflicts"][1]["linear"] == 0
    assert doc["pid"] == 1234 and "user" in doc["checked"] and doc["count"] == 1
    assert (debugfs / "linear_map/alias_check_pid").read_text() == after
    schema = json.loads((TOP / "cmadebug" / "schema" / "snapshot-v1.schema.json").read_text())
    assert errors(doc, {"$ref": "#/$defs/alias"}, schema) == []


def test_alias_pid_text(cmadebug_bin, tmp_path):
    """Text: a PID column for the user lines, '-' for the others, and the checked pid."""
    res = run(cmadebug_bin, "--debugfs", str(fake_debugfs(tmp_path)), "alias", "--pid", "1234")
    assert res.returncode == 3, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].split()[-1] == "PID"
    assert lines[1].split()[-1] == "1234" and lines[2].split()[-1] == "-"
    assert "Checked pid: 1234" in lines


def test_alias_without_pid_has_null_pids(cmadebug_bin, tmp_path):
    """Without --pid nothing is written; a pid someone else set is reported."""
    debugfs = fake_debugfs(tmp_path, "pid=55\n", walked=55)
    res = run(cmadebug_bin, "--json", "--debugfs", str(debugfs), "alias")
    assert res.returncode == 3, res.stderr
    assert json.loads(res.stdout)["pid"] == 55
    assert (debugfs / "linear_map/alias_check_pid").read_text() == "pid=55\n"


@pytest.mark.parametrize("args, words", [
    (["--root", "ROOT", "alias", "--pid", "1"], ["--pid", "captured tree"]),
    (["alias", "--pid", "1", "--kcore"], ["--pid", "--kcore"]),
    (["alias", "--pid", "0"], ["--pid needs a process id"]),
    (["alias", "--pid", "x"], ["--pid needs a process id"]),
    (["alias", "--pid", "2147483648"], ["--pid needs a process id"]),
    (["alias", "--pid"], ["--pid needs a process id"]),
    (["splits", "--pid", "1"], ["unexpected argument '--pid'"]),
], ids=["root", "kcore", "zero", "word", "too-big", "no-value", "splits"])
def test_alias_pid_usage_errors(cmadebug_bin, tmp_path, args, words):
    debugfs = fake_debugfs(tmp_path)
    root = tmp_path / "tree"
    (root / "proc").mkdir(parents=True)
    (root / "proc/mounts").write_text("debugfs /sys/kernel/debug debugfs rw 0 0\n")
    args = [str(root) if a == "ROOT" else a for a in args]
    res = run(cmadebug_bin, "--debugfs", str(debugfs), *args)
    assert res.returncode == 1 and res.stdout == "", res.stdout
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), lines
    assert (debugfs / "linear_map/alias_check_pid").read_text() == "pid=none\n"   # untouched


def test_alias_pid_kernel_without_the_file(cmadebug_bin, tmp_path):
    debugfs = fake_debugfs(tmp_path)
    (debugfs / "linear_map/alias_check_pid").unlink()
    assert_env_error(run(cmadebug_bin, "--debugfs", str(debugfs), "alias", "--pid", "1234"),
                     "linear_map/alias_check_pid", "not found", "CONFIG_LINEAR_MAP_DEBUGFS")
    assert not (debugfs / "linear_map/alias_check_pid").exists()   # not created


@pytest.mark.parametrize("content", ["1234\n", "pid=\n", "pid=abc\n", "pid=0\n", "pid=none\npid=none\n"])
def test_alias_pid_file_garbled(cmadebug_bin, tmp_path, content):
    """alias_check_pid that says neither: nothing written, exit 2."""
    debugfs = fake_debugfs(tmp_path, content)
    assert_env_error(run(cmadebug_bin, "--debugfs", str(debugfs), "alias", "--pid", "1234"),
                     "alias_check_pid", "neither pid=N nor pid=none")
    assert (debugfs / "linear_map/alias_check_pid").read_text() == content   # untouched


@pytest.mark.parametrize("mutate, words", [
    (lambda t: t.replace("pid=1234 not_checked", "pid=999 not_checked").replace("cma=reserved pid=1234",
                                                                                 "cma=reserved pid=999"),
     ["alias_check", "another process"]),
    (lambda t: t[: t.rindex("count=")], ["alias_check", "cut short"]),
], ids=["other-pid", "cut-short"])
def test_alias_pid_restores_after_a_failure(cmadebug_bin, tmp_path, mutate, words):
    """A bad alias_check still puts the previous pid back: exit 2, one line."""
    debugfs = fake_debugfs(tmp_path, "pid=77\n")
    f = debugfs / "linear_map/alias_check"
    f.write_text(mutate(f.read_text()))
    assert_env_error(run(cmadebug_bin, "--debugfs", str(debugfs), "alias", "--pid", "1234"), *words)
    assert (debugfs / "linear_map/alias_check_pid").read_text() == "77"
