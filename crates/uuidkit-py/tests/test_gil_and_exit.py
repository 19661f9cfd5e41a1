"""The GIL and the interpreter's exit: a call that waits on the state file's lock or on
the service lets other threads run meanwhile; daemon threads inside uuidkit when the main
thread returns do not take the process down with them."""

import json

import pytest

# ---------------------------------------------------------------- exit with daemon threads

# Four daemon threads in uuidkit calls that release the GIL, then the main thread returns
# and the interpreter exits. A thread that took the GIL back after CPython 3.9-3.13 began
# finalizing was ended with pthread_exit, whose unwinding through Rust frames aborted the
# process (SIGABRT, "FATAL: exception not rethrown") in most runs.
EXIT_CHILD = r"""
import atexit, sys, threading, time
call, late = sys.argv[1], sys.argv[2] == "late"
if late:
    # Registered before uuidkit's own atexit callback, so it runs after it: the exiting
    # thread can still call uuidkit (its work runs with the GIL held then).
    atexit.register(lambda: print("late", len(uuidkit.uuid4_bytes(1000)), uuidkit.uuid7().version))
import uuidkit
def loop():
    while True:
        eval(call)
for _ in range(4):
    threading.Thread(target=loop, daemon=True).start()
time.sleep(0.1)
"""

EXIT_CALLS = ["uuidkit.uuid4_bytes(1_000_000)", "uuidkit.uuid7_bytes(1_000_000)",
              "uuidkit.uuid4_many(100_000)"]


@pytest.mark.parametrize("call", EXIT_CALLS)
def test_exit_with_daemon_threads_in_batches_is_clean(py, call):
    codes = [py(EXIT_CHILD, args=(call, "-"), timeout=120, check=False) for _ in range(6)]
    assert [p.returncode for p in codes] == [0] * 6, [p.stderr[-500:] for p in codes]


@pytest.mark.parametrize("call", ["uuidkit.uuid7()", "uuidkit.uuid1()",
                                  "uuidkit.uuid8(layout='draft-v7-ms')"])
def test_exit_with_daemon_threads_on_a_state_file_is_clean(py, short_tmp, call):
    # With a state file every time-based call releases the GIL.
    env = {"UUIDKIT_STATE": str(short_tmp / "state")}
    codes = [py(EXIT_CHILD, env=env, args=(call, "-"), timeout=120, check=False)
             for _ in range(6)]
    assert [p.returncode for p in codes] == [0] * 6, [p.stderr[-500:] for p in codes]


def test_an_atexit_callback_can_still_call_uuidkit(py, short_tmp):
    env = {"UUIDKIT_STATE": str(short_tmp / "state")}
    for _ in range(3):
        out = py(EXIT_CHILD, env=env, args=("uuidkit.uuid7_bytes(100_000)", "late"), timeout=120)
        assert out.stdout.split() == ["late", "16000", "7"], out.stdout


# ---------------------------------------------------------------- the GIL while a call waits

# The child: a first call (the state made, its first block of positions leased), then
# what blocks the next lease (another process holding the state file's lock, or the
# daemon stopped), then the call again, while a second thread appends the time every
# 10 ms. With the GIL held through the call that thread could not run until it returned.
# What both children below need: another process holding a file's flock, and a call
# made while a second thread appends the time every 10 ms (how long the call took, and
# how many ticks fell well inside it: none if the GIL was held through it).
WAITING = r"""
import subprocess, sys, threading, time
def hold_lock(path):
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, sys; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); "
         "print('held', flush=True); sys.stdin.read()", path],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder
def release(holder):
    holder.stdin.close()
    holder.wait()
def ticking(call):
    ticks, done = [], threading.Event()
    def tick():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)
    t = threading.Thread(target=tick)
    t.start()
    time.sleep(0.05)
    start = time.monotonic()
    call()
    end = time.monotonic()
    done.set()
    t.join()
    return end - start, sum(start + 0.2 < x < end - 0.2 for x in ticks)
"""

BLOCKED_CHILD = WAITING + r"""
import json, os, signal
import uuidkit
how, target, call = sys.argv[1], sys.argv[2], sys.argv[3]
if how == "state":
    uuidkit.use_state_file(target)
else:
    uuidkit.use_daemon(target)
eval(call)
if how == "state":
    # Another process holds the state file's lock (an exclusive flock on <file>.lock).
    holder = hold_lock(target + ".lock")
else:
    os.kill(int(sys.argv[4]), signal.SIGSTOP)
time.sleep(0.5)                 # the leased block is behind the clock: the next call leases
took, inside = ticking(lambda: eval(call))
if how == "state":
    release(holder)
else:
    os.kill(int(sys.argv[4]), signal.SIGCONT)
print(json.dumps([took, inside, uuidkit.take_store_warnings()]))
"""

BLOCKING_CALLS = ["uuidkit.uuid7()", "uuidkit.uuid1()", "uuidkit.uuid7(method='random')",
                  "uuidkit.uuid8(layout='draft-v8-64')"]


@pytest.mark.parametrize("call", BLOCKING_CALLS)
def test_other_threads_run_while_a_call_waits_for_the_state_files_lock(py, short_tmp, call):
    took, inside, warnings = json.loads(
        py(BLOCKED_CHILD, args=("state", short_tmp / "state", call)).stdout)
    # It did wait for the lock (2 s) and then went on in memory, saying so...
    assert any("lock" in w for w in warnings), warnings
    # ... and meanwhile the other thread ran (every 10 ms, some 160 times in 2 s; none
    # with the GIL held through the wait).
    assert inside >= 20, (took, inside)


def test_other_threads_run_while_a_call_waits_for_a_stopped_daemon(py, daemon_proc):
    sock, proc = daemon_proc
    took, inside, warnings = json.loads(
        py(BLOCKED_CHILD, args=("daemon", sock, "uuidkit.uuid7()", proc.pid)).stdout)
    assert warnings, "the daemon did not answer: the generator went on in memory, saying so"
    assert inside >= 20, (took, inside)


# The calls that choose or ask about the state wait as the generators do: with the GIL
# released. Each mode sets up what blocks the call, then makes it while a second thread
# appends the time every 10 ms.
CHOOSE_CHILD = WAITING + r"""
import json, os, signal
what, target = sys.argv[1], sys.argv[2]
holder = None
if what == "import":                 # UUIDKIT_DAEMON names a stopped daemon
    os.kill(int(sys.argv[3]), signal.SIGSTOP)
    call = lambda: __import__("uuidkit")
else:
    import uuidkit
if what == "use_daemon":
    os.kill(int(sys.argv[3]), signal.SIGSTOP)
    call = lambda: uuidkit.use_daemon(target)
elif what == "use_state_file":       # another process holds its lock: 2 s, then OSError
    holder = hold_lock(target + ".lock")
    call = lambda: uuidkit.use_state_file(target)
elif what == "take_store_warnings":
    # Another thread waits in a lease holding the v7 generator's lock, which
    # take_store_warnings() must take too.
    uuidkit.use_state_file(target)
    uuidkit.uuid7()
    holder = hold_lock(target + ".lock")
    time.sleep(0.5)
    threading.Thread(target=uuidkit.uuid7).start()
    time.sleep(0.2)
    call = uuidkit.take_store_warnings
def call_through_oserror():
    try:
        call()
    except OSError:
        pass
took, inside = ticking(call_through_oserror)
if holder:
    release(holder)
if len(sys.argv) > 3:
    os.kill(int(sys.argv[3]), signal.SIGCONT)
print(json.dumps([took, inside]))
"""


@pytest.mark.parametrize("what", ["use_daemon", "import"])
def test_other_threads_run_while_choosing_a_stopped_daemon(py, daemon_proc, what):
    sock, proc = daemon_proc
    env = {"UUIDKIT_DAEMON": str(sock)} if what == "import" else None
    took, inside = json.loads(py(CHOOSE_CHILD, env=env, args=(what, sock, proc.pid)).stdout)
    assert inside >= 20, (took, inside)


@pytest.mark.parametrize("what", ["use_state_file", "take_store_warnings"])
def test_other_threads_run_while_a_state_call_waits_for_the_lock(py, short_tmp, what):
    took, inside = json.loads(py(CHOOSE_CHILD, args=(what, short_tmp / "state")).stdout)
    assert inside >= 20, (took, inside)
