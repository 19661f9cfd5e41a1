"""After fork(), parent and child must not share random state (a copied CSPRNG or v7 counter
repeats values), and a fork while another thread generates must not leave the child stuck on
a lock."""

import os
import select
import signal
import threading
import time
import traceback

import pytest

import uuidkit

pytestmark = [
    pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork"),
    # Python >= 3.12 warns about fork() in a process with threads; that is the point here.
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]

N = 10_000
TIMEOUT = 60  # seconds for a child to answer; only reached if it hangs


def v4_random_bits(i):
    """The 122 random bits of a v4 (version and variant removed)."""
    return ((i >> 80) << 74) | (((i >> 64) & 0xFFF) << 62) | (i & ((1 << 62) - 1))


def v7_non_time_bits(i):
    """rand_a (12 bits) and rand_b (62 bits) of a v7."""
    return (((i >> 64) & 0xFFF) << 62) | (i & ((1 << 62) - 1))


def make_values():
    """(v4 ints, v7 ints, v4 ints from uuid4_bytes) as one bytes blob of 16-byte UUIDs."""
    parts = [u.bytes for u in (uuidkit.uuid4() for _ in range(N))]
    parts += [u.bytes for u in (uuidkit.uuid7() for _ in range(N))]
    parts.append(uuidkit.uuid4_bytes(N))
    return b"".join(parts)


def split(blob):
    ints = [int.from_bytes(blob[i:i + 16], "big") for i in range(0, len(blob), 16)]
    assert len(ints) == 3 * N
    return ints[:N], ints[N:2 * N], ints[2 * N:]


def child_main(w):
    """Run in the child: generate, send, and always _exit (never return into pytest)."""
    code = 1
    try:
        data = make_values()
        with os.fdopen(w, "wb") as f:
            f.write(data)
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)


def collect(pid, r):
    """Read the child's bytes and reap it; kill it and fail if it does not finish in time."""
    deadline = time.monotonic() + TIMEOUT
    chunks = []
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"child {pid} did not answer within {TIMEOUT}s (hung after fork?)")
            ready, _, _ = select.select([r], [], [], left)
            if not ready:
                continue
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                pytest.fail(f"child {pid} did not exit")
            time.sleep(0.01)
        assert os.waitstatus_to_exitcode(status) == 0, "child failed (see captured stderr)"
        pid = None
    finally:
        os.close(r)
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
    return b"".join(chunks)


def assert_nothing_shared(parent, child):
    p4, p7, p4b = parent
    c4, c7, c4b = child
    for vs in (p4, c4, p4b, c4b):
        assert all((v >> 76) & 0xF == 4 for v in vs)
    for vs in (p7, c7):
        assert all((v >> 76) & 0xF == 7 for v in vs)
    pv4 = {v4_random_bits(v) for v in p4 + p4b}
    cv4 = {v4_random_bits(v) for v in c4 + c4b}
    assert len(pv4) == 2 * N and len(cv4) == 2 * N
    assert not pv4 & cv4, f"{len(pv4 & cv4)} v4 random values repeated across the fork"
    pv7 = {v7_non_time_bits(v) for v in p7}
    cv7 = {v7_non_time_bits(v) for v in c7}
    assert not pv7 & cv7, f"{len(pv7 & cv7)} v7 rand_a/rand_b values repeated across the fork"
    assert not set(p7) & set(c7)


def prime():
    # State that exists before the fork is what a child could inherit.
    uuidkit.uuid4()
    uuidkit.uuid7()
    uuidkit.uuid4_bytes(10)
    uuidkit.uuid7_many(10)


def test_fork_no_shared_random_bits():
    prime()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        child_main(w)
    os.close(w)
    parent = split(make_values())
    child = split(collect(pid, r))
    assert_nothing_shared(parent, child)


def test_fork_from_second_thread_while_generating():
    prime()
    r, w = os.pipe()
    forked = {}
    stop = threading.Event()

    def busy():
        # Keep the generators' locks busy (GIL released) while the other thread forks.
        while not stop.is_set():
            uuidkit.uuid7_many(2000)
            uuidkit.uuid4_bytes(2000)
            uuidkit.uuid7()

    def forker():
        time.sleep(0.05)
        pid = os.fork()
        if pid == 0:
            os.close(r)
            child_main(w)
        forked["pid"] = pid

    busy_threads = [threading.Thread(target=busy) for _ in range(2)]
    for t in busy_threads:
        t.start()
    try:
        ft = threading.Thread(target=forker)
        ft.start()
        ft.join()
    finally:
        stop.set()
        for t in busy_threads:
            t.join()
    os.close(w)
    assert "pid" in forked
    parent = split(make_values())
    child = split(collect(forked["pid"], r))
    assert_nothing_shared(parent, child)
