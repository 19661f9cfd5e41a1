#!/usr/bin/env python3
"""Side-by-side benchmark of uuidkit against the standard library and its peers.

What it measures, in one process, one run: the time per UUID (ns) of

    uuid4(), uuid7(), uuid1(), uuid5(NAMESPACE_DNS, "www.example.com"),
    parsing a hyphenated string, str() of a UUID, and bulk generation of
    1,000,000 v4 and v7 UUIDs (as a list of objects and as packed bytes)

for the standard library ``uuid``, ``uuid_utils.compat`` (uuid-utils' functions
returning ``uuid.UUID``), ``uuid_utils`` (its own UUID type, for information),
``fastuuid``, the ``uuid6`` package and ``uuidkit``. A package without such a
function gets "—". In one run, every cell is the best (minimum) of several
repeats, the repeats of one row interleaved across the packages; with --runs N
the run is made N times and each cell is the median of its N runs. The garbage
collector is left ON while timing (as in real programs; --no-gc turns it off).

Then it prints the machine, a Markdown table with ratio columns (uuidkit vs
uuid_utils.compat, uuidkit vs stdlib, bulk uuidkit vs fastuuid's bulk) and the
goals: uuidkit faster than uuid_utils.compat on every row, uuidkit's bulk faster
than fastuuid's bulk, and uuidkit.uuid7() at least 10x faster than the standard
library's uuid4().

Install and run (from the repository's root):

    python3 -m venv /tmp/bench-venv
    /tmp/bench-venv/bin/pip install -r crates/uuidkit-py/bench/requirements.txt ./crates/uuidkit-py
    /tmp/bench-venv/bin/python crates/uuidkit-py/bench/bench.py

(a release build of the extension: pip builds it with maturin in release mode.)

Options:
    --quick          few repeats, short timings and bulk n = 100,000: a smoke run
    --json FILE      also write the results as JSON
    --rows A,B       only these rows (keys: uuid4 uuid7 uuid1 uuid5 parse str
                     bulk4 bulk4b bulk7 bulk7b)
    --bulk-n N       the bulk size (default 1,000,000; --quick: 100,000)
    --repeat R       repeats per cell (default 7 per call, 5 bulk; --quick: 2)
    --runs N         the whole measurement N times in this process (every row, the
                     packages interleaved in each); each cell is then the MEDIAN of
                     its N per-run values (each the best of its repeats), and the
                     table gives the lowest and highest run beside it (default 1)
    --no-gc          time with the garbage collector off

Without uuidkit installed (or if its import fails) its cells are "—" and the
peers are still measured.

As a module: ``import bench; bench.smoke()`` runs every row once with a tiny n,
checks every result (type, version, value) and returns the results; it raises
AssertionError on a wrong result. ``bench.main(["--quick"])`` is the smoke run of
the command line.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import platform
import sys
import time
import timeit
import uuid

PKGS = ["stdlib", "uuid_utils.compat", "uuid_utils", "fastuuid", "uuid6", "uuidkit"]
DIST = {  # distribution names for the versions
    "uuid_utils.compat": "uuid-utils",
    "uuid_utils": "uuid-utils",
    "fastuuid": "fastuuid",
    "uuid6": "uuid6",
    "uuidkit": "uuidkit",
}
NAME = "www.example.com"
TEXT = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"  # RFC 9562's example, hyphenated
ROW_KEYS = ["uuid4", "uuid7", "uuid1", "uuid5", "parse", "str",
            "bulk4", "bulk4b", "bulk7", "bulk7b"]
DASH = "—"
REF = "ref:stdlib.uuid4"  # a hidden cell of the uuid7 row


def _import(name):
    try:
        return importlib.import_module(name)
    except Exception as exc:  # noqa: BLE001 - a missing/broken peer is a "—"
        return exc


def load_modules():
    """The modules by package key; a failed import gives the exception."""
    mods = {"stdlib": uuid}
    mods["uuid_utils.compat"] = _import("uuid_utils.compat")
    mods["uuid_utils"] = _import("uuid_utils")
    mods["fastuuid"] = _import("fastuuid")
    mods["uuid6"] = _import("uuid6")
    mods["uuidkit"] = _import("uuidkit")
    return mods


def _ok(m):
    return m is not None and not isinstance(m, BaseException)


class Cell:
    """One measurement: `expr` evaluated with `env` as globals, making `per` UUIDs."""

    def __init__(self, expr, env, per=1, note=""):
        self.expr, self.env, self.per, self.note = expr, dict(env), per, note
        self.env.setdefault("gc", gc)


class Row:
    def __init__(self, key, label, cells, check, bulk=False):
        self.key, self.label, self.cells, self.check, self.bulk = key, label, cells, check, bulk


def _version_of(v):
    """The version nibble of any UUID-like object (via its string)."""
    return uuid.UUID(str(v)).version


def build_rows(mods, bulk_n):
    """The rows: {pkg: Cell} (absent = "—") and a checker of one result."""
    std = mods["stdlib"]
    cm = mods["uuid_utils.compat"] if _ok(mods["uuid_utils.compat"]) else None
    uu = mods["uuid_utils"] if _ok(mods["uuid_utils"]) else None
    fu = mods["fastuuid"] if _ok(mods["fastuuid"]) else None
    u6 = mods["uuid6"] if _ok(mods["uuid6"]) else None
    uk = mods["uuidkit"] if _ok(mods["uuidkit"]) else None
    n = bulk_n
    rows = []

    def gen_row(key, label, fns, version):
        cells = {p: Cell("f()", {"f": f}) for p, f in fns.items() if f is not None}

        def check(pkg, v):
            if pkg == REF:
                return
            assert _version_of(v) == version, (pkg, key, v)
            if pkg in ("stdlib", "uuid_utils.compat", "uuidkit"):
                assert type(v) is uuid.UUID, (pkg, key, type(v))
        rows.append(Row(key, label, cells, check))

    gen_row("uuid4", "uuid4()", {
        "stdlib": std.uuid4,
        "uuid_utils.compat": cm and cm.uuid4,
        "uuid_utils": uu and uu.uuid4,
        "fastuuid": fu and fu.uuid4,
        "uuidkit": uk and uk.uuid4,
    }, 4)
    gen_row("uuid7", "uuid7()", {
        "stdlib": getattr(std, "uuid7", None),  # Python >= 3.14 only
        "uuid_utils.compat": cm and cm.uuid7,
        "uuid_utils": uu and uu.uuid7,
        "fastuuid": fu and getattr(fu, "uuid7", None),
        "uuid6": u6 and u6.uuid7,
        "uuidkit": uk and uk.uuid7,
    }, 7)
    # The goal's reference, stdlib uuid4(), timed again inside the uuid7 row (interleaved
    # with uuidkit.uuid7()), so that the goal's ratio does not straddle two rows' noise.
    rows[-1].cells[REF] = Cell("f()", {"f": std.uuid4}, note="reference for the goal")
    gen_row("uuid1", "uuid1()", {
        "stdlib": std.uuid1,
        "uuid_utils.compat": cm and cm.uuid1,
        "uuid_utils": uu and uu.uuid1,
        "fastuuid": fu and fu.uuid1,
        "uuidkit": uk and uk.uuid1,
    }, 1)

    # uuid5(NAMESPACE_DNS, "www.example.com"): each with its own namespace object;
    # fastuuid wants a fastuuid.UUID and bytes.
    expected5 = std.uuid5(std.NAMESPACE_DNS, NAME)
    cells = {"stdlib": Cell("f(ns, name)", {"f": std.uuid5, "ns": std.NAMESPACE_DNS, "name": NAME})}
    if cm:
        cells["uuid_utils.compat"] = Cell("f(ns, name)", {"f": cm.uuid5, "ns": cm.NAMESPACE_DNS, "name": NAME})
    if uu:
        cells["uuid_utils"] = Cell("f(ns, name)", {"f": uu.uuid5, "ns": uu.NAMESPACE_DNS, "name": NAME})
    if fu:
        cells["fastuuid"] = Cell("f(ns, name)", {"f": fu.uuid5, "ns": fu.UUID(str(std.NAMESPACE_DNS)),
                                                  "name": NAME.encode()}, note="name as bytes")
    if uk:
        cells["uuidkit"] = Cell("f(ns, name)", {"f": uk.uuid5, "ns": std.NAMESPACE_DNS, "name": NAME})

    def check5(pkg, v):
        assert str(v) == str(expected5), (pkg, v)
        if pkg in ("stdlib", "uuid_utils.compat", "uuidkit"):
            assert type(v) is uuid.UUID, (pkg, type(v))
    rows.append(Row("uuid5", 'uuid5(NAMESPACE_DNS, "www.example.com")', cells, check5))

    # Parsing a hyphenated string.
    cells = {"stdlib": Cell("f(s)", {"f": std.UUID, "s": TEXT})}
    if cm:
        cells["uuid_utils.compat"] = Cell("f(s)", {"f": cm.UUID, "s": TEXT},
                                          note="compat.UUID is uuid.UUID")
    if uu:
        cells["uuid_utils"] = Cell("f(s)", {"f": uu.UUID, "s": TEXT})
    if fu:
        cells["fastuuid"] = Cell("f(s)", {"f": fu.UUID, "s": TEXT})
    if uk:
        cells["uuidkit"] = Cell("f(s)", {"f": uk.parse, "s": TEXT})

    def check_parse(pkg, v):
        assert str(v) == TEXT, (pkg, v)
        if pkg in ("stdlib", "uuid_utils.compat", "uuidkit"):
            assert type(v) is uuid.UUID, (pkg, type(v))
    rows.append(Row("parse", "parse a hyphenated str", cells, check_parse))

    # str(u): uuidkit.format(u) on a uuid.UUID, str() of the others' objects.
    cells = {"stdlib": Cell("f(u)", {"f": str, "u": std.UUID(TEXT)})}
    if cm:
        cells["uuid_utils.compat"] = Cell("f(u)", {"f": str, "u": cm.UUID(TEXT)},
                                          note="a uuid.UUID: the stdlib's str")
    if uu:
        cells["uuid_utils"] = Cell("f(u)", {"f": str, "u": uu.UUID(TEXT)})
    if fu:
        cells["fastuuid"] = Cell("f(u)", {"f": str, "u": fu.UUID(TEXT)})
    if uk:
        cells["uuidkit"] = Cell("f(u)", {"f": uk.format, "u": std.UUID(TEXT)})

    def check_str(pkg, v):
        assert v == TEXT, (pkg, v)
    rows.append(Row("str", "str(u) / uuidkit.format(u)", cells, check_str))

    # Bulk: n UUIDs in a list (uuidkit: uuid*_many, list of uuid.UUID; fastuuid:
    # uuid*_bulk, list of fastuuid.UUID; the others: a list comprehension), and
    # uuidkit's packed bytes (uuid*_bytes).
    def bulk_rows(v):
        lc = "[f() for _ in range(n)]"
        g = {"stdlib": getattr(std, "uuid%d" % v, None),
             "uuid_utils.compat": cm and getattr(cm, "uuid%d" % v),
             "uuid_utils": uu and getattr(uu, "uuid%d" % v),
             "uuid6": u6 and v == 7 and u6.uuid7}
        cells = {p: Cell(lc, {"f": f, "n": n}, per=n, note="list comprehension")
                 for p, f in g.items() if f}
        fbulk = fu and getattr(fu, "uuid%d_bulk" % v, None)
        if fbulk:
            cells["fastuuid"] = Cell("f(n)", {"f": fbulk, "n": n}, per=n,
                                     note="fastuuid.uuid%d_bulk (list of fastuuid.UUID)" % v)
        if uk:
            cells["uuidkit"] = Cell("f(n)", {"f": getattr(uk, "uuid%d_many" % v), "n": n}, per=n,
                                    note="uuidkit.uuid%d_many" % v)

        def check_list(pkg, val):
            assert isinstance(val, list) and len(val) == n, (pkg, type(val))
            assert _version_of(val[0]) == v and _version_of(val[-1]) == v, (pkg, val[0])
            if pkg in ("stdlib", "uuid_utils.compat", "uuidkit"):
                assert type(val[0]) is uuid.UUID, (pkg, type(val[0]))
            if v == 7 and n > 1 and pkg == "uuidkit":
                assert val[0] < val[-1], (pkg, val[0], val[-1])
        rows.append(Row("bulk%d" % v, "bulk v%d, list of %s" % (v, "{:,}".format(n)),
                        cells, check_list, bulk=True))

        cells = {}
        if fbulk:  # the closest peer: fastuuid has no bytes form
            cells["fastuuid"] = Cell("f(n)", {"f": fbulk, "n": n}, per=n,
                                     note="fastuuid.uuid%d_bulk (a list: no bytes form)" % v)
        if uk:
            cells["uuidkit"] = Cell("f(n)", {"f": getattr(uk, "uuid%d_bytes" % v), "n": n}, per=n,
                                    note="uuidkit.uuid%d_bytes" % v)

        def check_bytes(pkg, val):
            if pkg == "fastuuid":
                return check_list(pkg, val)
            assert isinstance(val, bytes) and len(val) == 16 * n, (pkg, type(val))
            assert uuid.UUID(bytes=val[:16]).version == v, (pkg, val[:16])
            assert uuid.UUID(bytes=val[-16:]).version == v, (pkg, val[-16:])
        rows.append(Row("bulk%db" % v, "bulk v%d, bytes of %s" % (v, "{:,}".format(n)),
                        cells, check_bytes, bulk=True))

    bulk_rows(4)
    bulk_rows(7)
    return rows


# ---------------------------------------------------------------- timing

def _timer(cell, number, use_gc):
    # timeit turns the GC off; the setup turns it back on (the documented idiom).
    stmt = ("_r = " + cell.expr) if cell.per > 1 else cell.expr  # bulk: free after timing
    return timeit.Timer(stmt, setup="gc.enable()" if use_gc else "pass",
                        timer=time.perf_counter, globals=cell.env)


def _calibrate(t, target):
    number = 1
    while True:
        dt = t.timeit(number)
        if dt >= target or number >= 10 ** 8:
            return number
        number = max(number * 2, int(number * target / max(dt, 1e-9) * 1.1))


def measure_row(row, repeat, target, use_gc):
    """ns per UUID for each package of the row: min over `repeat` interleaved repeats."""
    timers, numbers, best = {}, {}, {}
    for pkg, cell in row.cells.items():
        timers[pkg] = _timer(cell, 1, use_gc)
        numbers[pkg] = 1 if row.bulk else _calibrate(timers[pkg], target)
        best[pkg] = float("inf")
    for _ in range(repeat):
        for pkg, cell in row.cells.items():
            dt = timers[pkg].timeit(numbers[pkg])
            best[pkg] = min(best[pkg], dt * 1e9 / (numbers[pkg] * cell.per))
            if row.bulk:
                gc.collect()
    return best


def check_row(row):
    for pkg, cell in row.cells.items():
        row.check(pkg, eval(cell.expr, cell.env))  # noqa: S307 - our own expressions


# ---------------------------------------------------------------- report

def machine_info(mods):
    cpu = platform.processor() or platform.machine()
    mhz, seen = None, False
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name") and not seen:
                    cpu, seen = line.split(":", 1)[1].strip(), True
                elif line.startswith("cpu MHz") and mhz is None:
                    mhz = line.split(":", 1)[1].strip()
    except OSError:
        pass
    versions = {}
    for pkg in PKGS[1:]:
        dist = DIST[pkg]
        if not _ok(mods[pkg]):
            versions[dist] = "not importable (%s)" % type(mods[pkg]).__name__
            continue
        try:
            from importlib.metadata import version
            versions[dist] = version(dist)
        except Exception:  # noqa: BLE001
            versions[dist] = getattr(mods[pkg], "__version__", "?")
    try:
        affinity = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        affinity = None
    try:
        load = list(os.getloadavg())
    except (AttributeError, OSError):
        load = None
    return {
        "loadavg": load,
        "cpu": cpu,
        "cpu_mhz": mhz,
        "logical_cpus": os.cpu_count(),
        "usable_cpus": affinity,
        "os": "%s %s" % (platform.system(), platform.release()),
        "python": "%s %s" % (platform.python_implementation(), platform.python_version()),
        "versions": versions,
    }


def machine_line(m):
    vers = ", ".join("%s %s" % kv for kv in m["versions"].items())
    mhz = " @ %s MHz" % m["cpu_mhz"] if m["cpu_mhz"] else ""
    return "Machine: %s%s, %s logical CPUs (%s usable), %s, %s; %s" % (
        m["cpu"], mhz, m["logical_cpus"], m["usable_cpus"], m["os"], m["python"], vers)


def _ns(v):
    if v is None:
        return DASH
    if v >= 100:
        return "{:,.0f}".format(v)
    return "{:.1f}".format(v)


def _ratio(other, mine):
    if other is None or mine is None:
        return None
    return other / mine


def _rx(r):
    return DASH if r is None else "{:.2f}×".format(r)


def compute(rows, results):
    out = []
    for row in rows:
        ns = {p: results[row.key].get(p) for p in PKGS}
        uk = ns["uuidkit"]
        out.append({
            "key": row.key,
            "label": row.label,
            "per_call": next(iter(row.cells.values())).per if row.cells else 1,
            "ns_per_uuid": ns,
            "notes": {p: c.note for p, c in row.cells.items() if c.note and p in PKGS},
            "uuidkit_vs_compat": _ratio(ns["uuid_utils.compat"], uk),
            "uuidkit_vs_stdlib": _ratio(ns["stdlib"], uk),
            "bulk_uuidkit_vs_fastuuid": _ratio(ns["fastuuid"], uk) if row.bulk else None,
        })
        if REF in results[row.key]:
            out[-1]["reference_stdlib_uuid4_ns"] = results[row.key][REF]
    return out


def median_results(per_run):
    """Each cell's median over the runs (a list of `run` results)."""
    out = {}
    for key in per_run[0]:
        out[key] = {}
        for pkg in per_run[0][key]:
            vals = sorted(r[key][pkg] for r in per_run)
            mid = len(vals) // 2
            out[key][pkg] = vals[mid] if len(vals) % 2 else (vals[mid - 1] + vals[mid]) / 2
    return out


def spread(per_run):
    """Each cell's (lowest, highest) over the runs."""
    return {key: {pkg: (min(r[key][pkg] for r in per_run), max(r[key][pkg] for r in per_run))
                  for pkg in per_run[0][key]} for key in per_run[0]}


def table(computed, ranges=None):
    head = ["row (ns per UUID)"] + PKGS + ["uuidkit vs compat", "uuidkit vs stdlib",
                                          "bulk uuidkit vs fastuuid"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]

    def cell(r, p):
        v = _ns(r["ns_per_uuid"][p])
        lo_hi = (ranges or {}).get(r["key"], {}).get(p)
        if lo_hi and v != DASH:
            v += " (%s–%s)" % (_ns(lo_hi[0]), _ns(lo_hi[1]))
        return v
    for r in computed:
        cells = [r["label"]] + [cell(r, p) for p in PKGS]
        cells += [_rx(r["uuidkit_vs_compat"]), _rx(r["uuidkit_vs_stdlib"]),
                  _rx(r["bulk_uuidkit_vs_fastuuid"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def goals(computed):
    by = {r["key"]: r for r in computed}
    res = []
    for r in computed:
        x = r["uuidkit_vs_compat"]
        if x is not None:
            res.append(("faster than uuid_utils.compat: " + r["label"], x, x > 1.0))
    for r in computed:
        x = r["bulk_uuidkit_vs_fastuuid"]
        if x is not None:
            res.append(("bulk faster than fastuuid's bulk: " + r["label"], x, x > 1.0))
    g = None
    if "uuid7" in by:
        b = by["uuid7"]["ns_per_uuid"]["uuidkit"]
        a = by["uuid7"].get("reference_stdlib_uuid4_ns")
        if a is None and "uuid4" in by:
            a = by["uuid4"]["ns_per_uuid"]["stdlib"]
        g = _ratio(a, b)
        res.append(("uuidkit.uuid7() vs stdlib uuid4() (goal >= 10x)", g,
                    g is not None and g >= 10.0))
    return res


# ---------------------------------------------------------------- entry points

def run(rows, repeat_call, repeat_bulk, target, use_gc, log=None):
    results = {}
    for row in rows:
        check_row(row)
        t0 = time.perf_counter()
        results[row.key] = measure_row(row, repeat_bulk if row.bulk else repeat_call,
                                       target, use_gc)
        if log:
            log("  %-40s %5.1f s  %s" % (row.label, time.perf_counter() - t0,
                                         "  ".join("%s=%s" % (p, _ns(v)) for p, v in results[row.key].items())))
    return results


def smoke(n=10):
    """Every row once (tiny n, one repeat, one call per cell), every result checked.

    Returns the computed rows (as in the JSON). Raises AssertionError on a wrong result."""
    mods = load_modules()
    rows = build_rows(mods, n)
    results = {}
    for row in rows:
        check_row(row)
        results[row.key] = {}
        for pkg, cell in row.cells.items():
            dt = _timer(cell, 1, True).timeit(1)
            results[row.key][pkg] = dt * 1e9 / cell.per
    return compute(rows, results)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="few repeats: a smoke run")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--rows", help="comma-separated row keys: " + " ".join(ROW_KEYS))
    ap.add_argument("--bulk-n", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=None)
    ap.add_argument("--no-gc", action="store_true", help="time with the GC off")
    ap.add_argument("--runs", type=int, default=1,
                    help="make the whole measurement N times; each cell the median")
    args = ap.parse_args(argv)

    bulk_n = args.bulk_n or (100_000 if args.quick else 1_000_000)
    repeat_call = args.repeat or (2 if args.quick else 7)
    repeat_bulk = args.repeat or (2 if args.quick else 5)
    target = 0.02 if args.quick else 0.2
    use_gc = not args.no_gc

    mods = load_modules()
    m = machine_info(mods)
    print(machine_line(m))
    if m.get("loadavg") is not None:
        print("Load average before the run: %.2f %.2f %.2f (other processes on the machine "
              "skew the numbers; each cell is a minimum to resist that)." % tuple(m["loadavg"]))
    if not _ok(mods["uuidkit"]):
        print("uuidkit: not importable (%r): its cells are %s" % (mods["uuidkit"], DASH))
    rows = build_rows(mods, bulk_n)
    if args.rows:
        want = [k.strip() for k in args.rows.split(",") if k.strip()]
        bad = [k for k in want if k not in ROW_KEYS]
        if bad:
            ap.error("unknown rows: %s (known: %s)" % (", ".join(bad), " ".join(ROW_KEYS)))
        rows = [r for r in rows if r.key in want]
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    print("Timing: best of %d (per call, each repeat >= %.2f s) / %d (bulk, n = %s) repeats, "
          "repeats interleaved across packages, GC %s; %d run%s%s." % (
              repeat_call, target, repeat_bulk, "{:,}".format(bulk_n), "on" if use_gc else "off",
              args.runs, "s" if args.runs > 1 else "",
              ", each cell the median of the runs (lowest–highest run beside it)"
              if args.runs > 1 else ""),
          flush=True)

    t0 = time.perf_counter()
    per_run = []
    for k in range(args.runs):
        if args.runs > 1:
            print("run %d of %d" % (k + 1, args.runs), file=sys.stderr, flush=True)
        per_run.append(run(rows, repeat_call, repeat_bulk, target, use_gc,
                           log=lambda s: print(s, file=sys.stderr, flush=True)))
    results = median_results(per_run)
    ranges = spread(per_run) if args.runs > 1 else None
    computed = compute(rows, results)

    print()
    print(table(computed, ranges))
    print()
    print("Ratios are speed-ups (the other's ns / uuidkit's ns; > 1 = uuidkit faster). "
          "uuid_utils.compat's parse/str cells are uuid.UUID's own (compat.UUID is uuid.UUID). "
          "fastuuid's uuid5 takes the name as bytes. Bulk list rows: uuidkit.uuid*_many, "
          "fastuuid.uuid*_bulk, a list comprehension for the others; bulk bytes rows: "
          "uuidkit.uuid*_bytes vs fastuuid.uuid*_bulk (fastuuid has no bytes form).")
    print()
    ref = next((r.get("reference_stdlib_uuid4_ns") for r in computed if r["key"] == "uuid7"), None)
    if ref is not None:
        print("Goal reference: stdlib uuid4() timed again inside the uuid7 row: %s ns." % _ns(ref))
    gl = goals(computed)
    for name, x, ok in gl:
        print("%s %-70s %s" % ("PASS" if ok else "MISS", name, _rx(x)))
    print("(total %.1f s)" % (time.perf_counter() - t0))

    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": m, "machine_line": machine_line(m),
                       "params": {"bulk_n": bulk_n, "repeat_call": repeat_call,
                                  "repeat_bulk": repeat_bulk, "min_time_per_repeat": target,
                                  "gc": use_gc, "quick": args.quick, "runs": args.runs},
                       "rows": computed,
                       "per_run": [compute(rows, r) for r in per_run],
                       "goals": [{"goal": n_, "ratio": x, "met": ok} for n_, x, ok in gl]},
                      fh, indent=2, ensure_ascii=False)
            fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
