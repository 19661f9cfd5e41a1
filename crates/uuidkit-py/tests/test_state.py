"""State shared across processes: a state file (UUIDKIT_STATE or use_state_file) or the
uuidkitd service (UUIDKIT_DAEMON or use_daemon). Two processes at once must never repeat a
v7, and each process's own v7s must strictly increase."""

import glob
import json
import os
import subprocess
import time

import pytest

from conftest import child_env, run_at_once

# A child: optionally use_state_file/use_daemon, wait for the go file so both run at once,
# then make n v7 with uuid7() and uuid7_many() interleaved, and write them as hex lines.
GEN_CHILD = r"""
import os, sys, time
import uuidkit
out, n, go, how, path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
if how == "state":
    uuidkit.use_state_file(path)
elif how == "daemon":
    uuidkit.use_daemon(path)
deadline = time.monotonic() + 60
while not os.path.exists(go):
    if time.monotonic() > deadline:
        sys.exit("no go file")
    time.sleep(0.001)
vals = []
uuid7 = uuidkit.uuid7
while len(vals) < n:
    k = min(1000, n - len(vals))
    vals.extend(uuid7().hex for _ in range(k // 2))
    vals.extend(u.hex for u in uuidkit.uuid7_many(k - k // 2))
with open(out, "w") as f:
    f.write("\n".join(vals))
"""


def run_pair(tmp, n, children):
    """children: [(how, path, env)] -> the lists of ints each child wrote."""
    return run_at_once(GEN_CHILD, tmp, n, [((how, path), env) for how, path, env in children],
                       timeout=240)


def check_pair(results, n):
    total = set()
    for k, vals in enumerate(results):
        assert len(vals) == n
        assert all(a < b for a, b in zip(vals, vals[1:])), f"process {k} not strictly increasing"
        assert all((v >> 76) & 0xF == 7 for v in vals[:1000])
        total.update(vals)
    dups = sum(map(len, results)) - len(total)
    assert dups == 0, f"{dups} duplicate v7 across processes"


def test_state_file_env_two_processes(spawn_py, short_tmp):
    state = short_tmp / "state"
    env = {"UUIDKIT_STATE": str(state)}
    n = 500_000
    results = run_pair(short_tmp, n, [("env", "", env), ("env", "", env)])
    check_pair(results, n)
    assert state.exists(), "UUIDKIT_STATE names the file the processes share"


def test_use_state_file_two_processes(spawn_py, short_tmp):
    state = short_tmp / "state"
    n = 500_000
    results = run_pair(short_tmp, n, [("state", state, None), ("state", state, None)])
    check_pair(results, n)
    assert state.exists()


def test_state_file_env_and_explicit_together(spawn_py, short_tmp):
    # One process through the environment, the other through use_state_file: one store.
    state = short_tmp / "state"
    n = 100_000
    results = run_pair(short_tmp, n,
                       [("env", "", {"UUIDKIT_STATE": str(state)}), ("state", state, None)])
    check_pair(results, n)


def test_state_file_later_process_continues_above(py, short_tmp):
    # A process started later continues above everything an earlier one made.
    state = short_tmp / "state"
    code = "import uuidkit; print(uuidkit.uuid7().int, uuidkit.uuid7_many(1000)[-1].int)"
    env = {"UUIDKIT_STATE": str(state)}
    first = [int(x) for x in py(code, env=env).stdout.split()]
    second = [int(x) for x in py(code, env=env).stdout.split()]
    assert first[0] < first[1] < second[0] < second[1]


# Sharing is what keeps a process whose clock is behind above the UUIDs made before it:
# without the state file or the daemon, a process an hour behind makes v7/v6 UUIDs an hour
# lower. (Two processes running at once each lease blocks of timestamp space, so their
# UUIDs interleave; what is promised between processes is no repeats, and above
# everything made before a process starts.)
LIBFAKETIME = sorted(glob.glob("/usr/lib/*/faketime/libfaketime.so.1"))

LATER_CHILD = """
import uuidkit
us = [uuidkit.uuid7() for _ in range(1000)] + uuidkit.uuid7_many(1000)
us += [uuidkit.uuid6() for _ in range(1000)] + [uuidkit.uuid8(layout="b1") for _ in range(1000)]
print(" ".join(str(u.int) for u in us))
"""


def later_with_clock_back(py, env):
    if not LIBFAKETIME:
        pytest.skip("libfaketime (Debian's faketime, installed by scripts/setup) is missing")
    first = [int(x) for x in py(LATER_CHILD, env=env).stdout.split()]
    back = dict(env, LD_PRELOAD=LIBFAKETIME[0], FAKETIME="-1h", FAKETIME_DONT_RESET="1")
    second = [int(x) for x in py(LATER_CHILD, env=back).stdout.split()]
    assert len(first) == len(second) == 4000
    for kind, k in (("v7", slice(0, 2000)), ("v6", slice(2000, 3000)), ("b1", slice(3000, 4000))):
        assert min(second[k]) > max(first[k]), f"{kind}: the later process (clock 1 h back) went below"


def test_state_file_later_process_with_its_clock_back_continues_above(py, short_tmp):
    later_with_clock_back(py, {"UUIDKIT_STATE": str(short_tmp / "state")})


def test_daemon_later_process_with_its_clock_back_continues_above(py, daemon):
    later_with_clock_back(py, {"UUIDKIT_DAEMON": str(daemon)})


def test_without_sharing_a_clock_back_goes_below(py, short_tmp):
    # The control: the same two processes in memory only go backwards, so the two tests
    # above can fail.
    if not LIBFAKETIME:
        pytest.skip("libfaketime missing")
    first = [int(x) for x in py(LATER_CHILD, env={}).stdout.split()]
    back = {"LD_PRELOAD": LIBFAKETIME[0], "FAKETIME": "-1h"}
    second = [int(x) for x in py(LATER_CHILD, env=back).stdout.split()]
    assert max(second[:2000]) < min(first[:2000])


def test_state_file_records_what_was_made(spawn_py, short_tmp, uuidkit_bin):
    # The processes really kept their v7 state in the file: its v7 "high" position (Unix ms
    # * 2**42 + the 42-bit counter) is at or above every v7 they made.
    state = short_tmp / "state"
    env = {"UUIDKIT_STATE": str(state)}
    n = 20_000
    results = run_pair(short_tmp, n, [("env", "", env), ("state", state, None)])
    check_pair(results, n)
    out = subprocess.run([str(uuidkit_bin), "state", "show", str(state)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    entries = {e["kind"]: e for e in json.loads(out.stdout)["entries"]}
    high = int(entries["v7"]["high"])

    def position(v):
        return ((v >> 80) << 42) | (((v >> 64) & 0xFFF) << 30) | ((v >> 32) & 0x3FFF_FFFF)

    top = max(position(v) for vals in results for v in vals)
    assert top <= high


REPORT = r"""
import json, sys, uuidkit
def attempt(f, *a):
    try:
        f(*a)
        return None
    except Exception as e:
        return [type(e).__name__, str(e), isinstance(e, OSError)]
"""


def test_use_state_file_too_late(py, short_tmp):
    path = short_tmp / "late-state"
    code = REPORT + r"""
uuidkit.uuid7()
print(json.dumps(attempt(uuidkit.use_state_file, sys.argv[1])))
"""
    res = json.loads(py(code, args=(path,)).stdout)
    assert res is not None, "use_state_file after the first v7 must raise"
    assert res[0] == "RuntimeError", res
    assert str(path) in res[1], res


@pytest.mark.parametrize("first", ["uuid1()", "uuid6()", "uuid8(layout='b1')", "uuid7_many(1)",
                                   "uuid7(method='random')", "uuid8(layout='draft-v8-64')"])
def test_use_state_file_too_late_after_any_time_based(py, short_tmp, first):
    code = REPORT + f"""
uuidkit.{first}
print(json.dumps(attempt(uuidkit.use_state_file, sys.argv[1])))
"""
    res = json.loads(py(code, args=(short_tmp / "s",)).stdout)
    assert res is not None and res[0] == "RuntimeError", (first, res)


def test_use_state_file_after_random_only_is_fine(py, short_tmp):
    # Only time-based UUIDs use the state: v4 and name-based ones before it are fine.
    path = short_tmp / "state"
    code = REPORT + r"""
uuidkit.uuid4(); uuidkit.uuid4_many(3); uuidkit.uuid5(uuidkit.NAMESPACE_DNS, "x")
print(json.dumps([attempt(uuidkit.use_state_file, sys.argv[1]), uuidkit.uuid7().version]))
"""
    res = json.loads(py(code, args=(path,)).stdout)
    assert res == [None, 7]
    assert path.exists()


def test_use_state_file_unusable_path(py, short_tmp):
    blocker = short_tmp / "file"
    blocker.write_text("not a directory")
    path = blocker / "state"  # its parent is a regular file
    code = REPORT + r"""
r = attempt(uuidkit.use_state_file, sys.argv[1])
if r is None:
    r = attempt(uuidkit.uuid7)
print(json.dumps(r))
"""
    res = json.loads(py(code, args=(path,)).stdout)
    assert res is not None, "an unusable state file must raise"
    assert res[2] or res[0] == "RuntimeError", res
    assert str(path) in res[1] or str(blocker) in res[1], res


# ---------------------------------------------------------------- uuidkitd


def test_daemon_two_processes(spawn_py, short_tmp, daemon):
    env = {"UUIDKIT_DAEMON": str(daemon)}
    n = 200_000
    results = run_pair(short_tmp, n, [("env", "", env), ("env", "", env)])
    check_pair(results, n)


def test_daemon_env_wins_over_state(spawn_py, short_tmp, daemon):
    # UUIDKIT_DAEMON wins over UUIDKIT_STATE: one process with both, one with the daemon only.
    n = 50_000
    both = {"UUIDKIT_DAEMON": str(daemon), "UUIDKIT_STATE": str(short_tmp / "other-state")}
    results = run_pair(short_tmp, n,
                       [("env", "", both), ("daemon", daemon, None)])
    check_pair(results, n)


def test_daemon_missing_socket(py, short_tmp):
    sock = short_tmp / "missing.sock"
    code = REPORT + r"""
print(json.dumps([uuidkit.uuid4().version, attempt(uuidkit.uuid7)]))
"""
    res = json.loads(py(code, env={"UUIDKIT_DAEMON": str(sock)}).stdout)
    v4, err = res
    assert v4 == 4  # random UUIDs do not need the daemon
    assert err is not None, "uuid7() with an absent daemon must raise"
    assert err[2], f"not an OSError: {err}"
    assert str(sock) in err[1], err


def test_use_daemon_missing_socket(py, short_tmp):
    sock = short_tmp / "missing.sock"
    code = REPORT + r"""
r = attempt(uuidkit.use_daemon, sys.argv[1])
if r is None:
    r = attempt(uuidkit.uuid7)
print(json.dumps(r))
"""
    res = json.loads(py(code, args=(sock,)).stdout)
    assert res is not None
    assert res[2], f"not an OSError: {res}"
    assert str(sock) in res[1], res


def test_take_store_warnings_is_a_list_of_str(py, short_tmp):
    code = r"""
import json, uuidkit
uuidkit.uuid7_many(100)
w1 = uuidkit.take_store_warnings()
w2 = uuidkit.take_store_warnings()
print(json.dumps([type(w1).__name__, all(isinstance(x, str) for x in w1), w2]))
"""
    kind, all_str, second = json.loads(py(code, env={"UUIDKIT_STATE": str(short_tmp / "s")}).stdout)
    assert kind == "list" and all_str
    assert second == [], "warnings are taken: a second call right after has none new"


FORK_ON_DAEMON = r"""
import os, sys, uuidkit
us = [uuidkit.uuid7()]                      # the parent's connection is open now
r, w = os.pipe()
pid = os.fork()
made = []
for _ in range(300):                        # both at once, each lease a request
    made += uuidkit.uuid7_many(2000)
    made.append(uuidkit.uuid6())
warnings = uuidkit.take_store_warnings()
if pid == 0:
    os.write(w, (repr(warnings) + "\n" + " ".join(str(u.int) for u in made)).encode())
    os._exit(0)
os.close(w)
child = b""
while chunk := os.read(r, 1 << 20):
    child += chunk
os.waitpid(pid, 0)
child_warnings, child_made = child.decode().split("\n", 1)
print(repr(warnings))
print(child_warnings)
print(len(set(u.int for u in made) | set(map(int, child_made.split()))), len(made) * 2)
"""


def test_daemon_after_fork_parent_and_child_each_have_their_own_connection(py, daemon):
    # After fork, a client that kept talking on its parent's connection would mix its
    # requests and replies with the parent's: garbled replies, warnings, UUIDs made in
    # memory. Each must use its own.
    out = py(FORK_ON_DAEMON, env={"UUIDKIT_DAEMON": str(daemon)}, timeout=240).stdout.split("\n")
    assert out[0] == "[]", f"parent's store warnings: {out[0]}"
    assert out[1] == "[]", f"child's store warnings: {out[1]}"
    distinct, total = map(int, out[2].split())
    assert distinct == total


CHDIR_CHILD = """
import os, sys, time
import uuidkit
a, b = sys.argv[1], sys.argv[2]
os.chdir(a)
uuidkit.use_state_file("state")
uuidkit.uuid7()
os.chdir(b)
last = None
end = time.monotonic() + 1.5
while time.monotonic() < end:
    last = uuidkit.uuid7()
    time.sleep(0.01)
print(last.int)
"""


def test_a_relative_state_file_stays_where_it_was_named_after_chdir(py, short_tmp, uuidkit_bin):
    # The path is taken from the working directory when it is given: later leases, after
    # os.chdir, go to the same file, not to one of that name in the new directory.
    a, b = short_tmp / "a", short_tmp / "b"
    a.mkdir()
    b.mkdir()
    last = int(py(CHDIR_CHILD, args=(str(a), str(b))).stdout)
    assert (a / "state").is_file()
    assert not (b / "state").exists() and not (b / "state.lock").exists()
    out = subprocess.run([str(uuidkit_bin), "state", "show", str(a / "state")],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    entries = {e["kind"]: e for e in json.loads(out.stdout)["entries"]}
    # The file named first holds the last UUID's position (its millisecond at least).
    assert int(entries["v7"]["high"]) >> 42 >= last >> 80



# ---------------------------------------------------------------- store warnings of every call

# Every call that shares the state reports what went wrong with it through
# take_store_warnings(): not only the library's process-wide generators (uuid7(), uuid1(),
# uuid8(layout="b1")) but the package's own, the other uuid7 methods and the draft layouts.
WARNED_CALLS = ["uuid7()", "uuid7(method='random')", "uuid7(method='precision')", "uuid1()",
                "uuid8(layout='b1')"] + [
    f"uuid8(layout='draft-{name}')"
    for name in ("v7-ms", "v7-us", "v7-ns", "v8-32", "v8-48", "v8-60", "v8-64")]

GARBAGE_CHILD = r"""
import json, sys, uuidkit
uuidkit.use_state_file(sys.argv[1])
eval("uuidkit." + sys.argv[2])
print(json.dumps(uuidkit.take_store_warnings()))
"""


@pytest.mark.parametrize("call", WARNED_CALLS)
def test_a_garbage_state_file_is_reported_by_every_call(py, short_tmp, call):
    state = short_tmp / "state"
    state.write_text("garbage\n")
    warnings = json.loads(py(GARBAGE_CHILD, args=(state, call)).stdout)
    assert len(warnings) == 1 and "garbage" in warnings[0] and str(state) in warnings[0], warnings


GONE_CHILD = r"""
import json, os, signal, sys, time, uuidkit
uuidkit.use_daemon(sys.argv[1])
call = "uuidkit." + sys.argv[2]
eval(call)
before = uuidkit.take_store_warnings()
os.kill(int(sys.argv[3]), signal.SIGKILL)
# The next lease comes when the clock has passed the leased block: within a few ms for most
# layouts, within the second for draft-v8-32 (its timestamp counts seconds).
after, deadline = [], time.monotonic() + 10
while not after and time.monotonic() < deadline:
    time.sleep(0.05)
    eval(call)
    after = uuidkit.take_store_warnings()
print(json.dumps([before, after]))
"""


@pytest.mark.parametrize("call", WARNED_CALLS)
def test_a_daemon_gone_is_reported_by_every_call(py, daemon_proc, call):
    sock, proc = daemon_proc
    before, after = json.loads(py(GONE_CHILD, args=(sock, call, proc.pid)).stdout)
    assert before == []
    assert len(after) == 1 and str(sock) in after[0], after


# ---------------------------------------------------------------- choosing the state

def test_use_state_file_replaces_a_daemon_that_could_not_be_reached(py, short_tmp):
    state = short_tmp / "state"
    code = REPORT + r"""
uuidkit.use_state_file(sys.argv[1])
print(json.dumps([attempt(uuidkit.uuid7), attempt(uuidkit.uuid1), uuidkit.take_store_warnings()]))
"""
    res = json.loads(py(code, env={"UUIDKIT_DAEMON": str(short_tmp / "missing.sock")},
                        args=(state,)).stdout)
    assert res == [None, None, []]
    assert state.is_file()


@pytest.mark.parametrize("func", ["use_state_file", "use_daemon"])
def test_an_empty_path_is_refused_at_once(py, func):
    code = REPORT + f"""
print(json.dumps([attempt(uuidkit.{func}, ""), uuidkit.uuid7().version]))
"""
    err, version = json.loads(py(code).stdout)
    assert err is not None and err[0] == "ValueError" and "empty" in err[1], err
    assert version == 7, "nothing was chosen: the generators go on in memory"


def test_a_malformed_uuidkit_node_is_an_error_for_uuid1_and_uuid6(py):
    code = REPORT + r"""
print(json.dumps([attempt(uuidkit.uuid1), attempt(uuidkit.uuid6),
                  uuidkit.uuid1(node=1).node, uuidkit.uuid7().version]))
"""
    v1, v6, explicit, v7 = json.loads(py(code, env={"UUIDKIT_NODE": "bogus"}).stdout)
    for err in (v1, v6):
        assert err is not None and err[0] == "ValueError", err
        assert "UUIDKIT_NODE" in err[1] and "bogus" in err[1], err
    # A given node does not use the variable, nor do the other versions.
    assert (explicit, v7) == (1, 7)
    # A valid one is taken.
    out = py("import uuidkit; print(uuidkit.uuid1().node)", env={"UUIDKIT_NODE": "9f6bdeced846"})
    assert int(out.stdout) == 0x9F6BDECED846


def test_draft_v8_32_past_2106_increases_for_4096_then_wraps(py):
    # docs/python.md: past its timestamp's end a draft layout's timestamp stays at its last
    # unit, and once that unit's 12-bit sequence is full the sequences start again.
    if not LIBFAKETIME:
        pytest.skip("libfaketime missing")
    code = """
import uuidkit
us = [uuidkit.uuid8(layout="draft-v8-32").int for _ in range(5000)]
up = [a < b for a, b in zip(us, us[1:])]
print(all(up[:4095]), up.index(False), len(set(us)))
"""
    env = {"LD_PRELOAD": LIBFAKETIME[0], "FAKETIME": "@2107-01-01 00:00:00"}
    assert py(code, env=env).stdout.split() == ["True", "4095", "5000"]
