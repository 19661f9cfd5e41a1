#!/usr/bin/env python3
"""The text of a new UUID: uuidkit's text calls (`uuid7_str()`, `uuid7_str_many(n)`, ...)
against `str()` of uuid-utils' own type and of uuidkit's `uuid.UUID`.

Each row is a statement timed with `timeit` (single calls: --number calls; bulk rows:
one call of --bulk-n UUIDs) and divided into nanoseconds per UUID. One repetition times
every row once, the rows in a new order each time (rotated by one), so that a slower
moment of a shared machine falls on all of them alike; --reps repetitions are made, and
each cell is the MEDIAN of its repetitions, with the lowest and highest beside it. The
ratio column is the median, over the repetitions, of the row's time over the time of the
first row of its group (the reference: `str()` of uuid-utils' own UUID, or a list of
them) in the same repetition, timed next to it: paired, so it holds up where the
machine's load moves the times themselves; under 1 is faster than the reference. The
garbage collector stays on, as in bench.py.

    python crates/uuidkit-py/bench/text_calls.py --reps 15

needs uuidkit and uuid-utils (`pip install uuid-utils`) in the interpreter's environment.
--markdown prints the table as docs/python.md has it.
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import subprocess
import timeit

import uuid_utils

import uuidkit

# (group, statement, is_bulk). A group's first row is its reference, what the issue
# measured: `str()` of uuid-utils' own type (a list of them for the bulk rows). The
# uuidkit rows of a form other than the hyphenated one are held against that reference
# too, beside what uuid-utils has for the form (`.hex`, `.urn`).
ROWS = [
    ("v7", "str(uuid_utils.uuid7())", False),
    ("v7", "uuidkit.uuid7_str()", False),
    ("v7", 'uuidkit.uuid7_str("simple")', False),
    ("v7", 'uuidkit.uuid7_str("urn", upper=True)', False),
    ("v7", 'uuidkit.uuid7_str("base58")', False),
    ("v7", "uuid_utils.uuid7().hex", False),
    ("v7", "uuid_utils.uuid7().urn", False),
    ("v7", "str(uuidkit.uuid7())", False),
    ("v4", "str(uuid_utils.uuid4())", False),
    ("v4", "uuidkit.uuid4_str()", False),
    ("v4", 'uuidkit.uuid4_str("base64url")', False),
    ("v4", "str(uuidkit.uuid4())", False),
    ("v1", "str(uuid_utils.uuid1())", False),
    ("v1", "uuidkit.uuid1_str()", False),
    ("v6", "str(uuid_utils.uuid6())", False),
    ("v6", "uuidkit.uuid6_str()", False),
    ("v8", "str(uuid_utils.uuid8())", False),
    ("v8", "uuidkit.uuid8_str()", False),
    ("bulk7", "[str(uuid_utils.uuid7()) for _ in range(n)]", True),
    ("bulk7", "uuidkit.uuid7_str_many(n)", True),
    ("bulk7", 'uuidkit.uuid7_str_many(n, "base32")', True),
    ("bulk7", "[str(u) for u in uuidkit.uuid7_many(n)]", True),
    ("bulk4", "[str(uuid_utils.uuid4()) for _ in range(n)]", True),
    ("bulk4", "uuidkit.uuid4_str_many(n)", True),
    ("bulk4", "[str(u) for u in uuidkit.uuid4_many(n)]", True),
]


def machine() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        model = next(line.split(":", 1)[1].strip() for line in out.splitlines()
                     if line.startswith("Model name"))
    except (OSError, StopIteration):
        model = platform.processor() or "?"
    return f"{model}, {platform.python_implementation()} {platform.python_version()}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--number", type=int, default=100_000)
    ap.add_argument("--bulk-n", type=int, default=1_000_000)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    gc.enable()
    env = {"uuidkit": uuidkit, "uuid_utils": uuid_utils, "n": args.bulk_n}
    timers = [timeit.Timer(stmt, globals=env) for _, stmt, _ in ROWS]
    for t in timers:  # warm up: the generators started, the pages touched
        t.timeit(10)
    times = [[] for _ in ROWS]
    for rep in range(args.reps):
        k = rep % len(ROWS)
        for i in list(range(k, len(ROWS))) + list(range(k)):
            bulk = ROWS[i][2]
            number = 1 if bulk else args.number
            per = args.bulk_n if bulk else number
            times[i].append(timers[i].timeit(number) / per * 1e9)
    print(f"# {machine()}; uuidkit {uuidkit.__version__}, uuid-utils "
          f"{uuid_utils.__version__}; median of {args.reps} interleaved repetitions "
          f"({args.number:,} calls; bulk rows one call of n = {args.bulk_n:,}); ns per UUID")
    ref = {}
    for (group, stmt, _), ts in zip(ROWS, times):
        med = statistics.median(ts)
        base = ref.setdefault(group, ts)
        ratio = "1" if base is ts else \
            f"{statistics.median(t / b for t, b in zip(ts, base)):.2f}"
        if args.markdown:
            stmt = stmt.replace("|", "\\|")
            print(f"| `{stmt}` | {med:,.0f} ({min(ts):,.0f}–{max(ts):,.0f}) | {ratio} |")
        else:
            print(f"{stmt:48} {med:8.1f}  ({min(ts):7.1f}–{max(ts):7.1f})  {ratio}")


if __name__ == "__main__":
    main()
