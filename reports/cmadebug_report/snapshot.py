"""Read cmadebug snapshots (schema "cmadebug-snapshot", version 1).

A snapshot is what 'cmadebug snapshot -o FILE' writes: every command's JSON
under the command's name (areas, bitmap, stats, failures, events), null where
the kernel lacks the part, plus "missing" saying why (cmadebug.1).  This
module checks the shape of everything the report uses and turns it into plain
objects; any deviation is an InputError naming the file and the key.

"splits" and "alias" are 'cmadebug --json splits' and 'cmadebug --json
alias' (added within version 1: older snapshots lack them, and then the
report says "not available").  Keys the report reads when a snapshot has
them, although cmadebug does not write them yet (reports/README.md,
"Expected snapshot keys"):
  machine   string: what the board is (uname -m, device-tree model)
  time      {"realtime_ns": int, "monotonic_ns": int}: when it was taken
"""
import os
from dataclasses import dataclass, field

from . import InputError, read_json

SCHEMA = "cmadebug-snapshot"
VERSION = 1

# The stages of a failed attempt, in the order alloc_contig_range() meets them
# (stats counters are failed_<stage> with '-' as '_').
STAGES = ["isolate", "migrate", "test", "no-space", "signal", "other"]

LINEAR_MAP_MISSING = "not available in this snapshot (kernel lacks the linear_map patches)"


class Checker:
    """Typed access to a JSON document; errors name the file and the key."""

    def __init__(self, path):
        self.path = path

    def fail(self, where, what):
        raise InputError(f"{self.path}: {where}: {what}")

    def get(self, obj, key, types, where, optional=False):
        name = f"{where}.{key}" if where else key
        if not isinstance(obj, dict):
            self.fail(where or "top level", "expected an object")
        if key not in obj:
            if optional:
                return None
            self.fail(name, "missing")
        val = obj[key]
        if val is None and optional:
            return None
        if isinstance(val, bool) and bool not in _tuple(types):
            self.fail(name, f"expected {_names(types)}, got a boolean")
        if not isinstance(val, types):
            self.fail(name, f"expected {_names(types)}, got {type(val).__name__}")
        return val

    def items(self, obj, key, where, optional=False):
        """A list of objects."""
        lst = self.get(obj, key, list, where, optional)
        if lst is None:
            return None
        for i, item in enumerate(lst):
            if not isinstance(item, dict):
                self.fail(f"{where}.{key}[{i}]", "expected an object")
        return lst


def _tuple(types):
    return types if isinstance(types, tuple) else (types,)


def _names(types):
    names = {int: "an integer", str: "a string", list: "a list", dict: "an object",
             float: "a number", bool: "a boolean", type(None): "null"}
    return " or ".join(names.get(t, t.__name__) for t in _tuple(types))


@dataclass
class Area:
    name: str
    base_pfn: int
    count_pages: int
    used_pages: int
    maxchunk_pages: int
    order_per_bit: int
    alloc_pages_success: object  # int or None
    alloc_pages_fail: object
    # From bitmap (None when the snapshot has no bitmap):
    runs: object = None  # list of (first_pfn, last_pfn)
    map_source: object = None
    map_strip: object = None
    failed_pfns: list = field(default_factory=list)
    # From stats (None when the snapshot has none): counter name -> int
    stats: object = None
    # From failures: (kept, dropped) or None
    kept: object = None


@dataclass
class LinearMap:
    """What 'cmadebug splits' and 'cmadebug alias' said (cmadebug.1).

    source:    "meminfo" (/proc/meminfo's DirectMap counters), "linear_map"
               (debugfs linear_map/), "ptdump" (derived from
               kernel_page_tables on a kernel without the patches) or "kcore"
    mapped:    [(level, size_bytes or None, bytes)]  how much of the linear map
               each entry size covers now, largest first
    splits:    [(from, to, cause, entries split)], or None without linear_map/
    attr_changes: [(cause, changes, failures, bytes)], or None without linear_map/
    conflicts: [dict] with class ("hazard", "sanctioned", or None where the
               kernel does not classify: a hazard), pfn, pages, linear,
               linear_type, alias (None for a failed change), alias_type,
               region, cma, caller
    alias_pages, sanctioned_pages, unlisted_pages, incomplete: the
               alias_check count line (alias_pages: the hazards')
    Each is None when the snapshot lacks it; reason says why.
    """
    source: object = None
    mapped: object = None
    splits: object = None
    attr_changes: object = None
    conflicts: object = None
    alias_pages: object = None
    sanctioned_pages: object = None
    unlisted_pages: object = None
    incomplete: object = None
    reason_layout: str = LINEAR_MAP_MISSING
    reason_alias: str = LINEAR_MAP_MISSING


@dataclass
class Snapshot:
    path: str
    source: str
    kernel: object
    cmdline: object
    machine: object
    realtime_ns: object
    monotonic_ns: object
    page_size: int
    areas: list
    failures: object  # list of dicts, or None
    missing: list
    linear_map: LinearMap

    def area(self, name):
        return next((a for a in self.areas if a.name == name), None)

    @property
    def system_key(self):
        return (self.machine, self.kernel, self.cmdline)


def load(path):
    """Read and check one snapshot file."""
    doc = read_json(path, "a cmadebug snapshot")
    return parse(doc, path)


def parse(doc, path="<snapshot>"):
    c = Checker(path)
    if not isinstance(doc, dict):
        c.fail("top level", "expected an object (is this a cmadebug snapshot?)")
    schema = doc.get("schema")
    if schema != SCHEMA:
        raise InputError(f"{path}: unknown schema {schema!r}, expected {SCHEMA!r} "
                         "(written by 'cmadebug snapshot -o FILE')")
    version = doc.get("version")
    if version != VERSION:
        raise InputError(f"{path}: {SCHEMA} version {version!r} is not supported "
                         f"(this report reads version {VERSION})")
    source = c.get(doc, "source", str, "")
    kernel = c.get(doc, "kernel", str, "", optional=True)
    cmdline = c.get(doc, "cmdline", str, "", optional=True)
    machine = c.get(doc, "machine", str, "", optional=True)
    realtime_ns = monotonic_ns = None
    t = c.get(doc, "time", dict, "", optional=True)
    if t is not None:
        realtime_ns = c.get(t, "realtime_ns", int, "time", optional=True)
        monotonic_ns = c.get(t, "monotonic_ns", int, "time", optional=True)
    missing = c.get(doc, "missing", list, "", optional=True) or []
    missing = [m for m in missing if isinstance(m, str)]

    areas_doc = c.get(doc, "areas", dict, "", optional=True)
    if areas_doc is None:
        raise InputError(f"{path}: no CMA areas in this snapshot (areas is null)")
    # null when the kernel gives no CmaTotal to derive it from: sizes stay in pages.
    page_size = c.get(areas_doc, "page_size", int, "areas", optional=True)
    if page_size is not None and page_size <= 0:
        c.fail("areas.page_size", f"{page_size} is not a page size")
    areas = []
    for i, a in enumerate(c.items(areas_doc, "areas", "areas")):
        w = f"areas.areas[{i}]"
        area = Area(
            name=c.get(a, "name", str, w),
            base_pfn=c.get(a, "base_pfn", int, w),
            count_pages=c.get(a, "count_pages", int, w),
            used_pages=c.get(a, "used_pages", int, w),
            maxchunk_pages=c.get(a, "maxchunk_pages", int, w),
            order_per_bit=c.get(a, "order_per_bit", int, w),
            alloc_pages_success=c.get(a, "alloc_pages_success", int, w, optional=True),
            alloc_pages_fail=c.get(a, "alloc_pages_fail", int, w, optional=True),
        )
        if area.count_pages <= 0 or not 0 <= area.used_pages <= area.count_pages:
            c.fail(w, f"area {area.name}: used {area.used_pages} of {area.count_pages} pages")
        areas.append(area)
    if not areas:
        raise InputError(f"{path}: no CMA areas in this snapshot (the kernel has none)")
    by_name = {a.name: a for a in areas}

    bitmap = c.get(doc, "bitmap", dict, "", optional=True)
    if bitmap is not None:
        for a in areas:
            a.runs = []
        for i, r in enumerate(c.items(bitmap, "runs", "bitmap")):
            w = f"bitmap.runs[{i}]"
            area = by_name.get(c.get(r, "area", str, w))
            if area is None:
                c.fail(w, f"unknown area {r['area']!r}")
            first, last = c.get(r, "first_pfn", int, w), c.get(r, "last_pfn", int, w)
            if not area.base_pfn <= first <= last < area.base_pfn + area.count_pages:
                c.fail(w, f"pfns {first:#x}-{last:#x} outside area {area.name}")
            area.runs.append((first, last))
        for i, m in enumerate(c.items(bitmap, "areas", "bitmap")):
            w = f"bitmap.areas[{i}]"
            area = by_name.get(c.get(m, "name", str, w))
            if area is None:
                c.fail(w, f"unknown area {m['name']!r}")
            area.map_source = c.get(m, "source", str, w)
            area.map_strip = c.get(m, "map", str, w)
            pfns = c.get(m, "failed_pfns", list, w)
            if not all(isinstance(p, int) and not isinstance(p, bool) for p in pfns):
                c.fail(f"{w}.failed_pfns", "expected a list of integers")
            area.failed_pfns = pfns

    stats = c.get(doc, "stats", dict, "", optional=True)
    if stats is not None:
        for i, s in enumerate(c.items(stats, "areas", "stats")):
            w = f"stats.areas[{i}]"
            area = by_name.get(c.get(s, "name", str, w))
            if area is None:
                c.fail(w, f"unknown area {s['name']!r}")
            counters = {}
            for k, v in s.items():
                if k == "name":
                    continue
                if not isinstance(v, int) or isinstance(v, bool):
                    c.fail(f"{w}.{k}", "expected an integer counter")
                counters[k] = v
            area.stats = counters

    failures = None
    fdoc = c.get(doc, "failures", dict, "", optional=True)
    if fdoc is not None:
        failures = []
        for i, f in enumerate(c.items(fdoc, "failures", "failures")):
            w = f"failures.failures[{i}]"
            rec = {"area": c.get(f, "area", str, w),
                   "time_ns": c.get(f, "time_ns", int, w),
                   "stage": c.get(f, "stage", str, w)}
            if rec["area"] not in by_name:
                c.fail(w, f"unknown area {rec['area']!r}")
            for k in ("attempt", "start_pfn", "count", "align", "err", "pfn",
                      "refcount", "mapcount", "flags"):
                rec[k] = c.get(f, k, int, w, optional=True)
            for k in ("kind", "migratetype"):
                rec[k] = c.get(f, k, str, w, optional=True)
            failures.append(rec)
        for i, k in enumerate(c.items(fdoc, "areas", "failures")):
            w = f"failures.areas[{i}]"
            area = by_name.get(c.get(k, "name", str, w))
            if area is None:
                c.fail(w, f"unknown area {k['name']!r}")
            area.kept = (c.get(k, "kept", int, w), c.get(k, "dropped", int, w))

    return Snapshot(path=str(path), source=source, kernel=kernel, cmdline=cmdline,
                    machine=machine, realtime_ns=realtime_ns, monotonic_ns=monotonic_ns,
                    page_size=page_size, areas=areas, failures=failures, missing=missing,
                    linear_map=parse_linear_map(c, doc, missing))


def _missing_reason(missing, keys):
    for m in missing:
        head = m.split(":", 1)[0].strip()
        if head in keys:
            return f"not available in this snapshot ({m})"
    return LINEAR_MAP_MISSING


def parse_linear_map(c, doc, missing):
    """The 'splits' and 'alias' keys: cmadebug's own JSON (its schema's $defs).

    Absent or null: not available, never zeros.
    """
    lm = LinearMap()
    sp = c.get(doc, "splits", dict, "", optional=True)
    if sp is None:
        lm.reason_layout = _missing_reason(missing, ("splits", "linear_map"))
    else:
        lm.source = c.get(sp, "source", str, "splits")
        lm.mapped = []
        for i, m in enumerate(c.items(sp, "layout", "splits")):
            w = f"splits.layout[{i}]"
            level = c.get(m, "level", str, w)
            size = c.get(m, "size_bytes", int, w, optional=True)
            nbytes = c.get(m, "bytes", int, w)
            if (size is not None and size <= 0) or nbytes < 0:
                c.fail(w, f"size_bytes {size}, bytes {nbytes}")
            lm.mapped.append((level, size, nbytes))
        recs = c.items(sp, "splits", "splits", optional=True)
        if recs is not None:
            lm.splits = [(c.get(s, "from", str, f"splits.splits[{i}]"),
                          c.get(s, "to", str, f"splits.splits[{i}]"),
                          c.get(s, "cause", str, f"splits.splits[{i}]"),
                          c.get(s, "entries", int, f"splits.splits[{i}]"))
                         for i, s in enumerate(recs)]
        changes = c.items(sp, "attr_changes", "splits", optional=True)
        if changes is not None:
            lm.attr_changes = [tuple([c.get(a, "cause", str, f"splits.attr_changes[{i}]")] +
                                     [c.get(a, k, int, f"splits.attr_changes[{i}]")
                                      for k in ("changes", "failures", "bytes")])
                               for i, a in enumerate(changes)]
    al = c.get(doc, "alias", dict, "", optional=True)
    if al is None:
        lm.reason_alias = _missing_reason(missing, ("alias", "alias_check", "linear_map"))
    else:
        lm.conflicts = []
        for i, a in enumerate(c.items(al, "conflicts", "alias")):
            w = f"alias.conflicts[{i}]"
            rec = {"class": c.get(a, "class", str, w, optional=True)}
            rec.update({k: c.get(a, k, int, w) for k in ("pfn", "pages", "linear")})
            rec["alias"] = c.get(a, "alias", int, w, optional=True)
            for k in ("linear_type", "alias_type", "region"):
                rec[k] = c.get(a, k, str, w)
            for k in ("cma", "caller"):
                rec[k] = c.get(a, k, str, w, optional=True)
            lm.conflicts.append(rec)
        sanctioned = [r for r in lm.conflicts if r["class"] == "sanctioned"]
        nr = c.get(al, "count", int, "alias")
        if nr != len(lm.conflicts) - len(sanctioned):
            c.fail("alias.count", f"{nr}, but {len(lm.conflicts) - len(sanctioned)} hazards listed")
        nr = c.get(al, "sanctioned", int, "alias", optional=True) or 0
        if nr != len(sanctioned):
            c.fail("alias.sanctioned", f"{nr}, but {len(sanctioned)} sanctioned aliases listed")
        lm.sanctioned_pages = c.get(al, "sanctioned_pages", int, "alias", optional=True) or 0
        lm.alias_pages = c.get(al, "pages", int, "alias")
        lm.unlisted_pages = c.get(al, "unlisted_pages", int, "alias")
        lm.incomplete = c.get(al, "incomplete", bool, "alias")
    return lm


def describe_method(snap):
    src = "the live system" if snap.source == "live" else f"the captured tree {snap.source}"
    return f"cmadebug snapshot ({SCHEMA} v{VERSION}) of {src}, file {os.path.basename(snap.path)}"
