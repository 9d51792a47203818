"""cmadebug on the layout of newer kernels (6.14+), built from captured trees.

No guest of ours runs such a kernel, so the layout comes from upstream
source: mm/cma_debug.c makes debugfs cma/<area>/ranges/<N>/{base_pfn,bitmap}
(cma/<area>/{base_pfn,bitmap} become links to range 0; there is no
"allocated", which is our series'), mm/cma_sysfs.c adds sysfs
mm/cma/<area>/{total_pages,available_pages}.  The contents are the captured
files, copied, renamed or split (available_pages is count - used of the
same capture).
"""
import json
import shutil
import subprocess

import pytest

from conftest import CAPTURED, FIXTURES, STOCK

HOLE = 0x1000


def run(binary, *args):
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=30)


def newer_tree(tmp_path, fixture, split=False):
    root = tmp_path / "root"
    shutil.copytree(FIXTURES / fixture / "root", root)
    cma = root / "sys/kernel/debug/cma"
    for area in cma.iterdir():
        for f in ("allocated", "stats", "failures", "devices"):
            (area / f).unlink(missing_ok=True)
        sysfs = root / "sys/kernel/mm/cma" / area.name
        shutil.copy(area / "count", sysfs / "total_pages")
        avail = int((area / "count").read_text()) - int((area / "used").read_text())
        (sysfs / "available_pages").write_text(f"{avail}\n")
        r0 = area / "ranges" / "0"
        r0.mkdir(parents=True)
        shutil.copy(area / "base_pfn", r0 / "base_pfn")
        shutil.copy(area / "bitmap", r0 / "bitmap")
    if split:
        area = cma / "reserved"
        words = (area / "bitmap").read_text().split()
        base = int((area / "base_pfn").read_text())
        half = len(words) // 2
        (area / "ranges/0/bitmap").write_text(" ".join(words[half:]) + "\n")
        r1 = area / "ranges" / "1"
        r1.mkdir()
        (r1 / "bitmap").write_text(" ".join(words[:half]) + "\n")
        (r1 / "base_pfn").write_text(f"{base + half * 32 + HOLE}\n")
    return root


@pytest.mark.parametrize("fixture", [f for f in CAPTURED if f not in STOCK])  # debugfs cma/ needed
def test_one_range_per_area(cmadebug_bin, tmp_path, fixture):
    root = newer_tree(tmp_path, fixture)
    orig = str(FIXTURES / fixture / "root")
    doc = json.loads(run(cmadebug_bin, "--json", "--root", str(root), "areas").stdout)
    old = json.loads(run(cmadebug_bin, "--json", "--root", orig, "areas").stdout)
    for area, o in zip(doc["areas"], old["areas"]):
        assert area["ranges"] == [{"base_pfn": o["base_pfn"], "pages": o["count_pages"],
                                   "bitmap_pages": o["count_pages"]}]
        assert area["total_pages"] == o["count_pages"]
        assert area["available_pages"] == o["count_pages"] - o["used_pages"]
        assert area["available_bytes"] == area["available_pages"] * doc["page_size"]
        assert area["phys_end"] == o["phys_end"]
    text = run(cmadebug_bin, "--root", str(root), "areas").stdout.splitlines()
    assert text[0].split()[-2:] == ["AVAILABLE", "RANGES"], text[0]
    bitmap = json.loads(run(cmadebug_bin, "--json", "--root", str(root), "bitmap").stdout)
    old_bitmap = json.loads(run(cmadebug_bin, "--json", "--root", orig, "bitmap").stdout)
    assert bitmap["runs"] == old_bitmap["runs"]
    assert {a["source"] for a in bitmap["areas"]} == {"ranges"}


def test_two_ranges_with_a_hole(cmadebug_bin, tmp_path):
    root = newer_tree(tmp_path, "qemu-arm64", split=True)
    doc = json.loads(run(cmadebug_bin, "--json", "--root", str(root), "areas").stdout)
    area = next(a for a in doc["areas"] if a["name"] == "reserved")
    assert [r["pages"] for r in area["ranges"]] == [None, None], "debugfs does not give a range's size"
    assert sum(r["bitmap_pages"] for r in area["ranges"]) == area["count_pages"]
    assert area["phys_end"] is None
    assert area["ranges"][1]["base_pfn"] == area["base_pfn"] + area["ranges"][0]["bitmap_pages"] + HOLE
    runs = json.loads(run(cmadebug_bin, "--json", "--root", str(root), "bitmap", "reserved").stdout)["runs"]
    orig = json.loads(run(cmadebug_bin, "--json", "--root", str(FIXTURES / "qemu-arm64" / "root"),
                          "bitmap", "reserved").stdout)["runs"]
    shift = area["ranges"][0]["bitmap_pages"] + HOLE
    assert [(r["first_pfn"], r["last_pfn"]) for r in runs] == \
        [(r["first_pfn"] + shift, r["last_pfn"] + shift) for r in orig]
    text = run(cmadebug_bin, "--root", str(root), "areas").stdout
    assert "-? (2 ranges)" in text


def assert_env_error(res, *words):
    assert res.returncode == 2, f"exit {res.returncode}, stderr {res.stderr!r}"
    assert res.stdout == ""
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("cmadebug: "), lines
    for w in words:
        assert w in lines[0], f"{w!r} not in {lines[0]!r}"


def test_cut_short_range_bitmap(cmadebug_bin, tmp_path):
    root = newer_tree(tmp_path, "qemu-arm64", split=True)
    b = root / "sys/kernel/debug/cma/reserved/ranges/1/bitmap"
    b.write_text(" ".join(b.read_text().split()[:10]) + "\n")
    assert_env_error(run(cmadebug_bin, "--root", str(root), "areas"), "reserved/ranges", "count")


@pytest.mark.parametrize("bad", ["2", "01", "x"])
def test_ranges_not_numbered(cmadebug_bin, tmp_path, bad):
    root = newer_tree(tmp_path, "qemu-arm64", split=True)
    r = root / "sys/kernel/debug/cma/reserved/ranges"
    (r / "1").rename(r / bad)
    assert_env_error(run(cmadebug_bin, "--root", str(root), "areas"), "reserved/ranges", "0..N-1")


def test_garbage_range_bitmap_and_base(cmadebug_bin, tmp_path):
    root = newer_tree(tmp_path, "qemu-arm64")
    r0 = root / "sys/kernel/debug/cma/reserved/ranges/0"
    (r0 / "bitmap").write_text("0 1 lots\n")
    assert_env_error(run(cmadebug_bin, "--root", str(root), "areas"), "ranges/0/bitmap", "u32")
    shutil.copy(root / "sys/kernel/debug/cma/reserved/bitmap", r0 / "bitmap")
    (r0 / "base_pfn").write_text("\n")
    assert_env_error(run(cmadebug_bin, "--root", str(root), "areas"), "ranges/0/base_pfn", "not a number")
