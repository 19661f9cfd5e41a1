"""Paired whole-process timing for bench/run.

    python3 bench/paired.py PAIRS NAME 'A command' 'B command' [STDIN_FILE]

Runs A and B alternately PAIRS times (A first in even pairs, B first in odd ones, so
that a machine that speeds up or slows down over the run favours neither), each with
standard output to /dev/null and standard input from STDIN_FILE (or /dev/null), and
prints one Markdown table row: NAME, the median wall time of each, and the median of
the per-pair ratios B/A (above 1: A is faster). A command is split on spaces, not run
by a shell. A run that exits non-zero stops the measurement with its status.
"""

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
    pairs, name = int(sys.argv[1]), sys.argv[2]
    a, b = sys.argv[3].split(), sys.argv[4].split()
    stdin_path = sys.argv[5] if len(sys.argv) > 5 else "/dev/null"
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
    ratio = statistics.median(y / x for x, y in zip(ta, tb))
    print(
        f"| {name} | {statistics.median(ta) * 1e3:.1f} ms | "
        f"{statistics.median(tb) * 1e3:.1f} ms | **{ratio:.2f}×** |"
    )


if __name__ == "__main__":
    main()
