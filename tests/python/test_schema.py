"""The JSON schema of the snapshot and of every command's --json output
(cmadebug/schema/snapshot-v1.schema.json) describes what cmadebug writes:
the guests' own output, fresh output of each captured tree, and the shapes
of kernels without the patches or with the newer (6.14+) files.
"""
import copy
import json
import shutil
import subprocess

import pytest

from conftest import CAPTURED, FIXTURES, TOP, expected_rc
from schema_check import SchemaError, check_schema, errors
from test_newer_kernels import newer_tree

SCHEMA_PATH = TOP / "cmadebug" / "schema" / "snapshot-v1.schema.json"
COMMANDS = ["areas", "bitmap", "stats", "failures", "events", "splits", "alias"]


@pytest.fixture(scope="module")
def schema():
    s = json.loads(SCHEMA_PATH.read_text())
    check_schema(s)
    return s


def part(schema, command):
    """The schema of one command's output, with the $defs it refers to."""
    if command == "areas":  # from debugfs, or a stock kernel's view
        return {"anyOf": [{"$ref": "#/$defs/areas"}, {"$ref": "#/$defs/stock_areas"}],
                "$defs": schema["$defs"]}
    return {"$ref": f"#/$defs/{command}", "$defs": schema["$defs"]}


def assert_valid(doc, schema):
    problems = errors(doc, schema)
    assert problems == [], "\n".join(problems[:20])


def run(binary, *args):
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=30)


def test_schema_uses_only_the_checked_subset(schema):
    assert schema["properties"]["schema"]["const"] == "cmadebug-snapshot"
    assert schema["properties"]["version"]["const"] == 1
    assert set(COMMANDS) <= set(schema["$defs"])


@pytest.mark.parametrize("fixture, command", [(f, c) for f in CAPTURED for c in COMMANDS
                                             if expected_rc(f, c) in (0, 3)])
def test_golden_json_matches_schema(schema, fixture, command):
    """What the guest's cmadebug printed on its live kernel (where it printed JSON)."""
    doc = json.loads((FIXTURES / fixture / "expected" / f"{command}.json").read_text())
    assert_valid(doc, part(schema, command))


@pytest.mark.parametrize("fixture", CAPTURED)
def test_fresh_snapshot_matches_schema(cmadebug_bin, schema, fixture, tmp_path):
    out = tmp_path / "snap.json"
    res = run(cmadebug_bin, "--root", str(FIXTURES / fixture / "root"), "snapshot", "-o", str(out))
    assert res.returncode == 0, res.stderr
    assert_valid(json.loads(out.read_text()), schema)


def test_snapshot_of_unpatched_newer_kernel_matches_schema(cmadebug_bin, schema, tmp_path):
    """No stats/failures (null), multi-range areas, sysfs available_pages."""
    root = newer_tree(tmp_path, "qemu-arm64", split=True)
    out = tmp_path / "snap.json"
    res = run(cmadebug_bin, "--root", str(root), "snapshot", "-o", str(out))
    assert res.returncode == 0, res.stderr
    doc = json.loads(out.read_text())
    assert doc["stats"] is None and doc["failures"] is None and len(doc["missing"]) == 2
    assert any(a.get("ranges") for a in doc["areas"]["areas"])
    assert_valid(doc, schema)


def test_page_size_unknown_matches_schema(cmadebug_bin, schema, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(FIXTURES / "qemu-arm" / "root", root)
    mi = root / "proc" / "meminfo"
    mi.write_text("".join(l for l in mi.read_text().splitlines(True) if not l.startswith("Cma")))
    doc = json.loads(run(cmadebug_bin, "--json", "--root", str(root), "areas").stdout)
    assert doc["page_size"] is None
    assert_valid(doc, part(schema, "areas"))


def test_schema_rejects_what_cmadebug_must_not_write(schema):
    """The validator is not vacuous: broken documents fail, with a path."""
    good = json.loads((FIXTURES / CAPTURED[0] / "expected" / "areas.json").read_text())
    assert errors(good, part(schema, "areas")) == []
    cases = {
        "missing key": lambda d: d["areas"][0].pop("used_pages"),
        "unknown key": lambda d: d["areas"][0].update(usde_pages=1),
        "string for a number": lambda d: d["areas"][0].update(count_pages="8192"),
        "negative pfn": lambda d: d["areas"][0].update(base_pfn=-1),
        "bool for a number": lambda d: d.update(nr_areas=True),
        "null for a list": lambda d: d.update(areas=None),
    }
    for what, mutate in cases.items():
        bad = copy.deepcopy(good)
        mutate(bad)
        assert errors(bad, part(schema, "areas")), what
    snap = {"schema": "cmadebug-snapshot", "version": 2}
    assert any("version" in e for e in errors(snap, schema))
    with pytest.raises(SchemaError):
        errors(1, {"type": "integer", "maximum": 3})


@pytest.mark.parametrize("fixture", CAPTURED)
def test_doctor_matches_schema(cmadebug_bin, schema, fixture):
    res = run(cmadebug_bin, "--json", "--root", str(FIXTURES / fixture / "root"), "doctor")
    assert res.returncode in (0, 2), res.stderr
    assert_valid(json.loads(res.stdout), part(schema, "doctor"))
