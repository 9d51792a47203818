"""make lava-tlb's pieces without LAVA: the boot order (scripts/lava_tlb.py
plan) and the collector (lava_tlb.py collect) on job logs that lava-run
wrote for our arm64 board's TLB A/B (tests/fixtures/lava/tlb-*.log.gz:
make lava-tlb BOARD=arm64 BOOTS=2 SEED=1, two nosplit boots and one split
boot of the same kernel), and on the other suites' logs (pass, fail)."""
import base64
import gzip
import io
import json
import subprocess
import sys
import tarfile

import pytest

from conftest import FIXTURES, TOP

yaml = pytest.importorskip("yaml")
LOGS = FIXTURES / "lava"
BEGIN = "=== CMADEBUG TLB RESULTS BEGIN ==="
END = "=== CMADEBUG TLB RESULTS END ==="


def lava_tlb(*args):
    return subprocess.run([sys.executable, str(TOP / "scripts" / "lava_tlb.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def log_text(name):
    return gzip.decompress((LOGS / f"{name}.log.gz").read_bytes()).decode()


def log(tmp_path, name, text=None):
    path = tmp_path / f"{name}.yaml"
    path.write_text(log_text(name) if text is None else text)
    return path


def collect(out, *logs):
    return lava_tlb("collect", "--name", "t", "--out", out, *logs)


def results_span(text):
    """(lines, records, indexes of the results' base64 lines)."""
    lines = text.splitlines(keepends=True)
    recs = [yaml.safe_load(line) for line in lines]
    console = [i for i, r in enumerate(recs) if r["lvl"] == "target"]
    begin = next(i for i in console if recs[i]["msg"] == BEGIN)
    end = next(i for i in console if i > begin and recs[i]["msg"] == END)
    return lines, recs, [i for i in console if begin < i < end]


def results_members(text):
    """{name: bytes} of the files in a log's results tar."""
    _, recs, body = results_span(text)
    data = base64.b64decode("".join(recs[i]["msg"] for i in body))
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def rewrite_results(text, change):
    """The log with its results tar passed through CHANGE(members) ->
    members.  Damage made by the test, for what the farm cannot be asked
    to produce (another kernel's boot)."""
    lines, recs, body = results_span(text)
    members = change(results_members(text))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
    encoded = base64.encodebytes(buf.getvalue()).decode().splitlines()
    dt = recs[body[0]]["dt"]
    new = [json.dumps({"dt": dt, "lvl": "target", "msg": chunk}) + "\n" for chunk in encoded]
    return "".join(lines[:body[0]] + new + lines[body[-1] + 1:])


def edit_meta(members, key, value):
    for name in members:
        if name.endswith("/meta.json"):
            meta = json.loads(members[name])
            meta[key] = value
            members[name] = json.dumps(meta, indent=2).encode()
    return members


# ---- plan -------------------------------------------------------------------

def test_plan_shuffles_with_the_seed_and_numbers_each_variant():
    res = lava_tlb("plan", "--boots", 3, "--seed", 7, "nosplit:tlb-icount", "split:tlb-icount-split")
    assert res.returncode == 0, res.stderr
    rows = [line.split() for line in res.stdout.splitlines()]
    assert [int(r[0]) for r in rows] == list(range(1, 7))
    for variant, suite in (("nosplit", "tlb-icount"), ("split", "tlb-icount-split")):
        mine = [r for r in rows if r[1] == variant]
        assert [r[2] for r in mine] == [suite] * 3 and [r[3] for r in mine] == ["1", "2", "3"]
    # the same seed, the same order; the recorded order is what ran
    assert lava_tlb("plan", "--boots", 3, "--seed", 7, "nosplit:tlb-icount",
                    "split:tlb-icount-split").stdout == res.stdout
    orders = {lava_tlb("plan", "--boots", 3, "--seed", s, "a:x", "b:y").stdout for s in range(20)}
    assert len(orders) > 5, "the seed does not change the order"


def test_plan_refuses_bad_input():
    for args in ((0, "a:x", "b:y"), (1001, "a:x", "b:y"), (2, "a:x", "a:y"), (2, "ax", "b:y")):
        res = lava_tlb("plan", "--boots", args[0], "--seed", 1, *args[1:])
        assert res.returncode == 2 and res.stdout == "" and len(res.stderr.splitlines()) == 1, args


# ---- collect ----------------------------------------------------------------

def test_collect_builds_the_tlb_ab_layout(tmp_path):
    logs = [log(tmp_path, n) for n in ("tlb-split-1", "tlb-nosplit-1", "tlb-nosplit-2")]
    out = tmp_path / "results"
    res = collect(out, *logs)
    assert res.returncode == 0, res.stderr
    assert res.stdout == f"t: 3 boots collected (nosplit 2, split 1) into {out}, workloads tmpfs-read, walk\n"
    for workload, runs in (("walk", 9), ("tmpfs-read", 3)):
        assert sorted(p.name for p in (out / workload).iterdir()) == ["manifest.json", "nosplit", "split"]
        for variant, boots in (("nosplit", 2), ("split", 1)):
            for k in range(1, boots + 1):
                d = out / workload / variant / f"boot-{k}"
                assert len(list(d.glob("run-*.csv"))) == runs
                assert json.loads((d / "meta.json").read_text())["cmdline"].endswith(
                    "rodata=on linear_map_split=16M@0x48000000" if variant == "split" else "rodata=on")
    # boot K is the K-th log of its variant: the nosplit boots in log order
    ids = [json.loads((out / "walk" / "nosplit" / f"boot-{k}" / "meta.json").read_text())["boot_id"]
           for k in (1, 2)]
    assert ids == [json.loads(results_members(log_text(n))["./walk/nosplit/boot-1/meta.json"])["boot_id"]
                   for n in ("tlb-nosplit-1", "tlb-nosplit-2")]
    rows = (out / "lava-jobs.tsv").read_text().splitlines()
    assert rows[1:] == [f"1\tsplit\tboot-1\t{logs[0]}", f"2\tnosplit\tboot-1\t{logs[1]}",
                        f"3\tnosplit\tboot-2\t{logs[2]}"]
    # what make tlb-report checks first
    chk = subprocess.run(["sh", str(TOP / "perf-scripts" / "tlb-ab.sh"), "check", str(out / "walk"),
                          "nosplit", "split"], capture_output=True, text=True, timeout=60)
    assert chk.returncode == 0, chk.stderr


def refused(tmp_path, *logs):
    out = tmp_path / "results"
    res = collect(out, *logs)
    assert res.returncode == 2, res.stdout + res.stderr
    assert res.stdout == "" and len(res.stderr.splitlines()) == 1, res.stderr
    assert not out.exists(), "a refused collection left results behind"
    assert not list(tmp_path.glob(".lava-tlb.*")), "a refused collection left its work directory"
    return res.stderr


def test_a_log_of_another_suite_is_refused(tmp_path):
    err = refused(tmp_path, log(tmp_path, "tlb-nosplit-1"), log(tmp_path, "pass"))
    assert "pass.yaml: no TLB results on the console" in err


def test_a_failed_job_is_refused(tmp_path):
    err = refused(tmp_path, log(tmp_path, "fail"))
    assert "the job did not pass: case failed: test_deliberate_failure" in err


def test_a_truncated_log_is_refused(tmp_path):
    text = log_text("tlb-split-1")
    cut = text.index(BEGIN) + 2000  # in the middle of the results
    err = refused(tmp_path, log(tmp_path, "tlb-split-1", text[:cut]))
    assert "cut short" in err


def test_results_garbled_by_a_kernel_message_are_refused(tmp_path):
    lines = log_text("tlb-split-1").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if BEGIN in line) + 3
    msg = json.loads(lines[at])
    msg["msg"] = msg["msg"][:30] + "[   12.345678] random: crng init done"
    lines[at] = json.dumps(msg) + "\n"
    err = refused(tmp_path, log(tmp_path, "tlb-split-1", "".join(lines)))
    assert "garbled" in err and "random: crng" in err


def test_the_same_boot_twice_is_refused(tmp_path):
    first = log(tmp_path, "tlb-nosplit-1")
    again = tmp_path / "again.yaml"
    again.write_text(first.read_text())
    err = refused(tmp_path, first, log(tmp_path, "tlb-split-1"), again)
    assert "again.yaml: the same boot" in err and "as job 1" in err


def test_boots_of_different_kernels_are_refused(tmp_path):
    other = rewrite_results(log_text("tlb-split-1"),
                            lambda m: edit_meta(m, "kernel", "Linux version 6.12.119+ (another build)"))
    err = refused(tmp_path, log(tmp_path, "tlb-nosplit-1"), log(tmp_path, "tlb-split-1", other))
    assert "another kernel (Linux version 6.12.119+ (another build))" in err


def test_boots_that_counted_other_events_are_refused(tmp_path):
    def other_events(members):
        for name in members:
            if name.endswith("walk/manifest.json"):
                members[name] = b'{"instructions_event": "instructions:k", "walk_events": ["l2d_tlb_refill:k"]}\n'
        return members
    other = rewrite_results(log_text("tlb-split-1"), other_events)
    err = refused(tmp_path, log(tmp_path, "tlb-nosplit-1"), log(tmp_path, "tlb-split-1", other))
    assert "walk counted other events" in err


def test_results_that_escape_the_directory_are_refused(tmp_path):
    def escape(members):
        members["../../escaped"] = b"x"
        return members
    other = rewrite_results(log_text("tlb-split-1"), escape)
    err = refused(tmp_path, log(tmp_path, "tlb-split-1", other))
    assert "not a plain file" in err
    assert not (tmp_path.parent / "escaped").exists()


def test_results_are_not_mixed_into_an_earlier_experiment(tmp_path):
    out = tmp_path / "results"
    (out / "walk").mkdir(parents=True)
    res = collect(out, log(tmp_path, "tlb-nosplit-1"))
    assert res.returncode == 2 and "is not empty" in res.stderr
    assert list(out.iterdir()) == [out / "walk"]


def test_the_walk_figures_are_lava_measurements(tmp_path):
    """tlb.sh's figures reach LAVA as cases with --measurement/--units
    (lava-suite.sh), one per working set: instructions where the PMU
    counted them (arm64 under -icount) and ns per access; lava_results.py
    shows them with their units, and they are the guest's own medians."""
    res = subprocess.run([sys.executable, str(TOP / "scripts" / "lava_results.py"), "--name", "a",
                          "--definition", "0_cmadebug-tlb-icount-split", str(log(tmp_path, "tlb-split-1"))],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    figures = {}
    for line in res.stdout.splitlines():
        if " = " in line:
            name, value = line.split(": ok ", 1)[1].split(" = ")
            figures[name] = value
    sizes = (262144, 4194304, 16777216)
    assert sorted(figures) == sorted([f"tlb_walk_split_{b}B_instructions" for b in sizes] +
                                     [f"tlb_walk_split_{b}B_ns_per_access" for b in sizes])
    members = results_members(log_text("tlb-split-1"))
    for b in sizes:
        counted = []
        for name, content in members.items():
            if name.startswith("./walk/split/boot-1/run-") and name.endswith(".walker.json") and \
                    json.loads(content)["working_set_bytes"] == b:
                csv = members[name.replace(".walker.json", ".csv")].decode()
                counted += [int(line.split(",")[0]) for line in csv.splitlines() if ",instructions:k," in line]
        assert len(counted) == 3
        value, units = figures[f"tlb_walk_split_{b}B_instructions"].split()
        assert units == "instructions" and float(value) == sorted(counted)[1]
        assert figures[f"tlb_walk_split_{b}B_ns_per_access"].endswith(" ns")
