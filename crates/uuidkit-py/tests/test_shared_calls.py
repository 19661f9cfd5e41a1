"""Every call that docs/python.md says never repeats across processes sharing a state file
or a daemon, one at a time: two processes making it at once on one state file, and on one
uuidkitd; and across os.fork(), parent and child.

The calls are those that go through the process-wide generators and so through the shared
state (src/generate.rs, src/batch.rs): uuid1() and uuid6() without arguments, uuid7()
with each method (and without time=), uuid7_many, uuid7_bytes, uuid8(layout="b1") and
uuid8(layout=<each draft layout>).

What each pair of processes must show:
- no UUID made twice, and no store position used by both: the leases of the two
  processes never overlap (a position is what the store leases: v1/v6 the 60-bit timestamp, v7 and
  b1 the first 90 bits after the version, a draft layout its timestamp and sequence);
- each process's UUIDs strictly increase (v1: its timestamps);
- the store recorded them: after the run its entry for the call's kind is at or above the
  position of every UUID both made (in memory, nothing would be written there).
"""

import json
import os
import subprocess
import time

import pytest

import uuidkit

from conftest import run_at_once

# call -> (the store's kind, how many UUIDs each process makes)
CALLS = {
    "uuid1()": ("gregorian", 20_000),
    "uuid6()": ("gregorian", 20_000),
    "uuid7()": ("v7", 20_000),
    "uuid7(method='counter')": ("v7", 20_000),
    "uuid7(method='random')": ("v7", 20_000),
    "uuid7(method='precision')": ("v7", 20_000),
    "uuid7_many": ("v7", 20_000),
    "uuid7_bytes": ("v7", 20_000),
    "uuid8(layout='b1')": ("v8", 20_000),
}
# A draft layout: (sequence bits, random bits at the end). Each of its leases is at least
# one unit of its timestamp: draft-v8-32's unit is a second (4,096 UUIDs), so few UUIDs.
DRAFT = {
    "draft-v7-ms": (12, 62),
    "draft-v7-us": (14, 48),
    "draft-v7-ns": (8, 40),
    "draft-v8-32": (12, 62),
    "draft-v8-48": (12, 62),
    "draft-v8-60": (8, 54),
    "draft-v8-64": (8, 54),
}
for _layout in DRAFT:
    CALLS[f"uuid8(layout='{_layout}')"] = (_layout, 3_000)


def test_every_draft_layout_is_covered():
    assert set(DRAFT) == {name for name in uuidkit.LAYOUTS if name.startswith("draft-")}


# A child: use the state file or daemon, wait for the go file so both run at once, make n
# UUIDs with `call`, write them as hex lines.
CHILD = r"""
import os, sys, time
import uuidkit
out, n, go, how, path, call = sys.argv[1:7]
n = int(n)
if how == "state":
    uuidkit.use_state_file(path)
else:
    uuidkit.use_daemon(path)
if call == "uuid7_many":
    def batch(k):
        return uuidkit.uuid7_many(k)
elif call == "uuid7_bytes":
    def batch(k):
        b = uuidkit.uuid7_bytes(k)
        return [uuidkit.UUID(bytes=b[i:i + 16]) for i in range(0, len(b), 16)]
else:
    one = eval("lambda: uuidkit." + call)
    def batch(k):
        return [one() for _ in range(k)]
deadline = time.monotonic() + 60
while not os.path.exists(go):
    if time.monotonic() > deadline:
        sys.exit("no go file")
    time.sleep(0.001)
vals = []
while len(vals) < n:
    vals.extend(batch(min(500, n - len(vals))))
assert not uuidkit.take_store_warnings()
with open(out, "w") as f:
    f.write("\n".join(u.hex for u in vals))
"""


def gregorian_ticks(v, version):
    """The 60-bit timestamp (100 ns since 1582) of a v1 or v6 UUID's int."""
    a, b, c = v >> 96, (v >> 80) & 0xFFFF, (v >> 64) & 0xFFF
    if version == 1:
        return (c << 48) | (b << 32) | a
    return (a << 28) | (b << 12) | c


def draft_position(uuidkit_bin, layout, v):
    """A draft layout's store position (timestamp in its finest unit, then the sequence),
    as the command reads the layout."""
    text = str(uuidkit.UUID(int=v))
    out = subprocess.run([str(uuidkit_bin), "inspect", "--json", "--layout", layout, text],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    return (int(d["timestamp"]) << DRAFT[layout][0]) | int(d["sequence"])


def version_of(call):
    if call.startswith("uuid1"):
        return 1
    if call.startswith("uuid6"):
        return 6
    return 7 if call.startswith("uuid7") else 8


def store_entry(uuidkit_bin, state, kind, node=None):
    out = subprocess.run([str(uuidkit_bin), "state", "show", str(state)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    entries = json.loads(out.stdout)["entries"]
    found = [e for e in entries if e["kind"] == kind and (node is None or e["node"] == node)]
    assert found, f"the store has no {kind} entry: the calls did not go through it ({entries})"
    return found[0]


def run_two(tmp, call, how, path):
    n = CALLS[call][1]
    results = run_at_once(CHILD, tmp, n, [((how, path, call), None)] * 2, timeout=120)
    assert [len(r) for r in results] == [n, n]
    return results


def check_two(results, call, uuidkit_bin, state):
    kind = CALLS[call][0]
    version = version_of(call)
    every = [v for r in results for v in r]
    assert all((v >> 76) & 0xF == version for v in every), call
    assert len(set(every)) == len(every), f"{call}: a UUID made twice"
    if version in (1, 6):
        keys = [[gregorian_ticks(v, version) for v in r] for r in results]
    elif kind in DRAFT:
        keys = [[v >> DRAFT[kind][1] for v in r] for r in results]
    else:
        keys = [[v >> 32 for v in r] for r in results]  # the 90-bit position, and 6 fixed bits
    for k, r in enumerate(results):
        order = keys[k] if version == 1 else r
        assert all(a < b for a, b in zip(order, order[1:])), f"{call}: process {k} not strictly increasing"
    # (Method 2's UUIDs can share a position within a process: its random increments are
    # below the position's last bit. Never across processes.)
    shared = set(keys[0]) & set(keys[1])
    assert not shared, f"{call}: the two processes used {len(shared)} positions both"
    # The store's record is at or above everything both made.
    if version in (1, 6):
        node = "%012x" % (results[0][0] & 0xFFFF_FFFF_FFFF)
        entry = store_entry(uuidkit_bin, state, kind, node)
        top = max(max(ks) for ks in keys)
    elif kind in DRAFT:
        entry = store_entry(uuidkit_bin, state, kind)
        top = max(draft_position(uuidkit_bin, kind, r[-1]) for r in results)
    else:
        entry = store_entry(uuidkit_bin, state, kind)
        top = max(v for r in results for v in r)
        top = ((top >> 80) << 42) | (((top >> 64) & 0xFFF) << 30) | ((top >> 32) & 0x3FFF_FFFF)
    assert top <= int(entry["high"]), f"{call}: made above what the store handed out"


@pytest.mark.parametrize("call", list(CALLS))
def test_two_processes_one_state_file(spawn_py, short_tmp, uuidkit_bin, call):  # noqa: F811
    state = short_tmp / "state"
    results = run_two(short_tmp, call, "state", state)
    check_two(results, call, uuidkit_bin, state)


@pytest.mark.parametrize("call", list(CALLS))
def test_two_processes_one_daemon(spawn_py, short_tmp, daemon, uuidkit_bin, call):  # noqa: F811
    results = run_two(short_tmp, call, "daemon", daemon)
    # The fixture's daemon keeps its state in short_tmp/dstate.
    check_two(results, call, uuidkit_bin, short_tmp / "dstate")


# ---------------------------------------------------------------- fork

# A process makes some UUIDs with `call` (so its generator and store link exist), forks;
# parent and child each make n more; the child sends its own through a pipe.
FORK_CHILD = r"""
import os, sys
import uuidkit
call, n, how, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
if how == "state":
    uuidkit.use_state_file(path)
if call == "uuid7_many":
    make = lambda: uuidkit.uuid7_many(n)
elif call == "uuid7_bytes":
    def make():
        b = uuidkit.uuid7_bytes(n)
        return [uuidkit.UUID(bytes=b[i:i + 16]) for i in range(0, len(b), 16)]
else:
    one = eval("lambda: uuidkit." + call)
    make = lambda: [one() for _ in range(n)]
before = make()
r, w = os.pipe()
pid = os.fork()
mine = make()
if pid == 0:
    os.close(r)
    with os.fdopen(w, "w") as f:
        f.write(" ".join(u.hex for u in mine))
    os._exit(0)
os.close(w)
with os.fdopen(r) as f:
    child = f.read().split()
_, status = os.waitpid(pid, 0)
assert status == 0, status
print(" ".join(u.hex for u in before))
print(" ".join(u.hex for u in mine))
print(" ".join(child))
"""

@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.parametrize("how", ["memory", "state"])
@pytest.mark.parametrize("call", list(CALLS))
def test_fork_parent_and_child_share_nothing(py, short_tmp, call, how):  # noqa: F811
    n = min(CALLS[call][1], 5_000)
    out = py(FORK_CHILD, args=(call, n, how, short_tmp / "state"), timeout=120).stdout
    before, parent, child = ([int(x, 16) for x in line.split()] for line in out.splitlines())
    assert len(parent) == len(child) == n
    version = version_of(call)
    assert all((v >> 76) & 0xF == version for v in parent + child)
    assert not set(parent) & set(child), f"{call}: parent and child made the same UUID"
    assert not set(before) & set(child)
    kind = CALLS[call][0]
    if version in (7, 8):
        # What is random in each UUID (the bits after the position): a child that kept
        # its parent's random stream would repeat nearly all of them. Two independent
        # streams share a 32-bit part by chance once in ~170 runs of 5,000 against
        # 5,000 (expected 0.006), so a few are allowed; 50 by chance would take odds
        # far below 1e-100.
        mask = (1 << (DRAFT[kind][1] if kind in DRAFT else 32)) - 1
        shared = {v & mask for v in parent} & {v & mask for v in child}
        assert len(shared) < n // 100, f"{call}: {len(shared)} random parts repeated across the fork"
    # Each process's own UUIDs keep increasing after the fork (v1: its timestamps).
    for vals in (parent, child):
        keys = [gregorian_ticks(v, 1) for v in vals] if version == 1 else vals
        assert all(a < b for a, b in zip(keys, keys[1:])), call
    if call in ("uuid7()", "uuid7(method='counter')", "uuid7_many", "uuid7_bytes"):
        # The process-wide v7 continues in the child above its parent's last.
        assert child[0] > before[-1]
