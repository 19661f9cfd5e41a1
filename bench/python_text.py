"""The Python row of bench/run: a new v7 UUID's text from uuidkit against uuid-utils.

    python bench/python_text.py PAIRS

Times `uuidkit.uuid7_str()` and `str(uuid_utils.uuid7())` with timeit, alternately,
PAIRS repeats of 200,000 calls each, and prints one Markdown table row: the median time
a call of each, and the median of the per-repeat ratios.
"""

import statistics
import sys
import timeit

import uuid_utils

import uuidkit

CALLS = 200_000


def per_call(stmt):
    return timeit.timeit(stmt, number=CALLS) / CALLS


def main():
    pairs = int(sys.argv[1])
    ours = uuidkit.uuid7_str
    theirs = lambda: str(uuid_utils.uuid7())  # noqa: E731
    per_call(ours)
    per_call(theirs)
    a, b = [], []
    for i in range(pairs):
        if i % 2 == 0:
            a.append(per_call(ours))
            b.append(per_call(theirs))
        else:
            b.append(per_call(theirs))
            a.append(per_call(ours))
    ratio = statistics.median(y / x for x, y in zip(a, b))
    print(
        f"| `uuidkit.uuid7_str()` vs `str(uuid_utils.uuid7())`, Python "
        f"{sys.version_info.major}.{sys.version_info.minor} | "
        f"{statistics.median(a) * 1e9:.0f} ns | {statistics.median(b) * 1e9:.0f} ns | "
        f"**{ratio:.2f}×** |"
    )


if __name__ == "__main__":
    main()
