"""Paired whole-process timing for bench/run.

    python3 bench/paired.py PAIRS 'A command' 'B command' [STDIN_FILE]

Runs A and B alternately PAIRS times (A first in even pairs, B first in odd ones, so
that a machine that speeds up or slows down over the run favours neither), each with
standard output to /dev/null and standard input from STDIN_FILE (or /dev/null), and
prints one line of JSON: the median wall time of each, in seconds, and the median of
the per-pair ratios B/A (above 1: A is faster). A command is split on spaces, not run
by a shell. A run that exits non-zero stops the measurement with its status.
"""

import json
import statistics
import subprocess
import sys
import time


def once(argv, stdin_path):
    with open(stdin_path, "rb") as stdin:
        start = time.perf_counter()
        done = subprocess.run(argv, stdin=stdin, stdout=subprocess.DEVNULL)
        took = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"paired.py: {' '.join(argv)} exited {done.returncode}")
    return took


def main():
    pairs = int(sys.argv[1])
    a, b = sys.argv[2].split(), sys.argv[3].split()
    stdin_path = sys.argv[4] if len(sys.argv) > 4 else "/dev/null"
    # One unmeasured run of each: the page cache and the CPU's clocks settle.
    once(a, stdin_path)
    once(b, stdin_path)
    ta, tb = [], []
    for i in range(pairs):
        if i % 2 == 0:
            ta.append(once(a, stdin_path))
            tb.append(once(b, stdin_path))
        else:
            tb.append(once(b, stdin_path))
            ta.append(once(a, stdin_path))
    print(json.dumps({
        "a": statistics.median(ta),
        "b": statistics.median(tb),
        "ratio": statistics.median(y / x for x, y in zip(ta, tb)),
        "pairs": pairs,
    }))


if __name__ == "__main__":
    main()
