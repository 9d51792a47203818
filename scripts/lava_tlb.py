#!/usr/bin/env python3
"""The TLB A/B on a board farm (make lava-tlb): the order of the boots, and
the results of the jobs in perf-scripts/tlb-ab.sh's layout.

    lava_tlb.py plan --boots N --seed S VARIANT:SUITE...
        N boots of each variant in an order shuffled with seed S (Python's
        random.Random, so one seed gives one order everywhere), one line a
        job: 'POSITION VARIANT SUITE BOOT'.  Boot-to-boot drift (a board
        warming up, a lab's load) then falls on both variants alike.

    lava_tlb.py collect --out RESULTS --name LABEL LOG...
        LOGs are lava-run job logs (or a lab's, 'lavacli jobs logs --raw'),
        in the order the jobs ran.  Each must be a complete job whose cases
        all passed (scripts/lava_results.py's judgement) and carry the
        guest's results (tests/qemu/tlb.sh's tlb_export: a base64 tar on the
        console between '=== CMADEBUG TLB RESULTS BEGIN/END ==='); each
        boot's WORKLOAD/VARIANT/boot-1 becomes RESULTS/WORKLOAD/VARIANT/boot-K,
        K counting that variant's boots in log order, and RESULTS/lava-jobs.tsv
        says which log each boot came from.  Every boot must run the same
        kernel, and every boot of a workload must have counted the same
        events (one manifest.json): results are never pooled silently.
        'make tlb-report RESULTS=RESULTS/walk' reads the result.

Exit 0, or 2 with one line on stderr and nothing written to RESULTS: a log
that is not a job log, cut short, of another job (no TLB results), a job
that failed, results that do not unpack, mixed kernels or events, RESULTS
not empty.
"""
import argparse
import io
import json
import os
import random
import re
import shutil
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lava_results  # noqa: E402

BEGIN = "=== CMADEBUG TLB RESULTS BEGIN ==="
END = "=== CMADEBUG TLB RESULTS END ==="
BOOT_DIR = re.compile(r"^([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/boot-1$")


class CollectError(Exception):
    """Nothing is collected (exit 2)."""


def plan(variants, boots, seed):
    """[(position, variant, suite, boot)]: BOOTS of each VARIANT:SUITE,
    shuffled with SEED; boot K is the K-th of its variant in that order."""
    jobs = [v for v in variants for _ in range(boots)]
    random.Random(seed).shuffle(jobs)
    seen, out = {}, []
    for pos, vs in enumerate(jobs, 1):
        variant, suite = vs.split(":", 1)
        seen[variant] = seen.get(variant, 0) + 1
        out.append((pos, variant, suite, seen[variant]))
    return out


def console_results(records):
    """The guest's results tar (bytes) from a job log's console lines."""
    console = lava_results.console_lines(records)
    if BEGIN not in console:
        raise CollectError("no TLB results on the console (not a TLB suite's job?)")
    try:
        return lava_results.console_section(console, "TLB results", BEGIN, END)
    except lava_results.LogError as e:
        raise CollectError(str(e))


def unpack(data, dest):
    """Unpacks the results tar into DEST; [(workload, variant)] of its boots."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for m in tar.getmembers():
                name = os.path.normpath(m.name)
                if not (m.isdir() or m.isfile()) or name.startswith(("/", "..")):
                    raise CollectError(f"the TLB results hold {m.name!r}: not a plain file")
            tar.extractall(dest)
    except (tarfile.TarError, OSError, EOFError) as e:
        raise CollectError(f"the TLB results do not unpack: {e}")
    boots = []
    for root, dirs, _ in os.walk(dest):
        rel = os.path.relpath(root, dest)
        m = BOOT_DIR.match(rel)
        if m:
            boots.append((m.group(1), m.group(2)))
    if not boots:
        raise CollectError("the TLB results hold no WORKLOAD/VARIANT/boot-1")
    return sorted(boots)


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise CollectError(f"{path}: {e}")


def collect(logs, out, name):
    """Moves every log's boots into OUT (see the module's docstring)."""
    if os.path.exists(out) and os.listdir(out):
        raise CollectError(f"{out} is not empty: results of another experiment would be mixed in")
    if not logs:
        raise CollectError("no job logs")
    parent = os.path.dirname(os.path.abspath(out))
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".lava-tlb.", dir=parent)
    try:
        staged = os.path.join(work, "results")
        os.mkdir(staged)
        count, kernel, manifests, rows, boot_ids = {}, None, {}, [], {}
        for log in logs:
            try:
                with open(log, encoding="utf-8", errors="replace") as f:
                    records = lava_results.read_log(f)
                definitions = {str(m.get("definition")) for lvl, m in records
                               if lvl == "results" and isinstance(m, dict) and m.get("definition") != "lava"}
                # the suite's own definition, whatever the suite (one per job)
                definition = next(iter(definitions), "0_cmadebug")
                _, problems = lava_results.judge(records, definition)
                if problems:
                    raise CollectError(f"the job did not pass: {problems[0]}")
                data = console_results(records)
            except (OSError, lava_results.LogError) as e:
                raise CollectError(f"{log}: {e}")
            except CollectError as e:
                raise CollectError(f"{log}: {e}")
            tmp = os.path.join(work, f"job-{len(rows) + 1}")
            os.mkdir(tmp)
            try:
                boots = unpack(data, tmp)
            except CollectError as e:
                raise CollectError(f"{log}: {e}")
            variants = {v for _, v in boots}
            if len(variants) != 1:
                raise CollectError(f"{log}: one boot holds variants {', '.join(sorted(variants))}")
            variant = variants.pop()
            count[variant] = count.get(variant, 0) + 1
            k = count[variant]
            for workload, _ in boots:
                src = os.path.join(tmp, workload, variant, "boot-1")
                meta = read_json(os.path.join(src, "meta.json"))
                boot_id = meta.get("boot_id")
                first = boot_ids.setdefault((workload, boot_id), (len(rows), log))
                if boot_id and first[0] != len(rows):
                    raise CollectError(f"{log}: the same boot ({boot_id}) as job {first[0] + 1} ({first[1]})")
                if kernel is None:
                    kernel = (meta.get("kernel"), log)
                elif meta.get("kernel") != kernel[0]:
                    raise CollectError(f"{log}: another kernel ({meta.get('kernel')}) than {kernel[1]}'s "
                                       f"({kernel[0]}): boots of different kernels do not compare")
                mpath = os.path.join(tmp, workload, "manifest.json")
                manifest = read_json(mpath) if os.path.exists(mpath) else None
                if workload in manifests and manifests[workload][0] != manifest:
                    raise CollectError(f"{log}: {workload} counted other events ({manifest}) than "
                                       f"{manifests[workload][1]} ({manifests[workload][0]})")
                manifests.setdefault(workload, (manifest, log))
                dst = os.path.join(staged, workload, variant, f"boot-{k}")
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.move(src, dst)
            rows.append((variant, k, log))
        for workload, (manifest, _) in manifests.items():
            if manifest is not None:
                with open(os.path.join(staged, workload, "manifest.json"), "w", encoding="utf-8") as f:
                    json.dump(manifest, f)
                    f.write("\n")
        with open(os.path.join(staged, "lava-jobs.tsv"), "w", encoding="utf-8") as f:
            f.write("# position\tvariant\tboot\tjob log\n")
            for pos, (variant, k, log) in enumerate(rows, 1):
                f.write(f"{pos}\t{variant}\tboot-{k}\t{os.path.abspath(log)}\n")
        if os.path.isdir(out):
            os.rmdir(out)
        os.rename(staged, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    per_variant = ", ".join(f"{v} {n}" for v, n in sorted(count.items()))
    print(f"{name}: {len(rows)} boots collected ({per_variant}) into {out}, workloads "
          f"{', '.join(sorted(manifests))}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plan", help="the shuffled order of the boots")
    p.add_argument("--boots", type=int, required=True, help="boots per variant (1-1000)")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("variants", nargs="+", metavar="VARIANT:SUITE")
    c = sub.add_parser("collect", help="job logs into the tlb-ab results layout")
    c.add_argument("--out", required=True)
    c.add_argument("--name", default="lava-tlb")
    c.add_argument("logs", nargs="+", metavar="LOG")
    a = ap.parse_args(argv)
    if a.cmd == "plan":
        if not 1 <= a.boots <= 1000:
            print(f"lava_tlb.py: --boots {a.boots}: 1 to 1000 boots per variant", file=sys.stderr)
            return 2
        bad = [v for v in a.variants if not re.match(r"^[A-Za-z0-9_.-]+:[A-Za-z0-9_.-]+$", v)]
        if bad or len({v.split(":")[0] for v in a.variants}) != len(a.variants):
            print(f"lava_tlb.py: variants must be distinct VARIANT:SUITE pairs: {' '.join(a.variants)}",
                  file=sys.stderr)
            return 2
        for row in plan(a.variants, a.boots, a.seed):
            print(*row)
        return 0
    try:
        collect(a.logs, a.out, a.name)
    except CollectError as e:
        print(f"lava_tlb.py: {a.name}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
