"""Shared fixtures: where the CLI and daemon binaries are, and a way to run Python code in a
fresh interpreter (for what must happen before a process's first UUID, or in two processes
at once)."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

# tests/ -> uuidkit-py/ -> crates/ -> the repository root
REPO = Path(__file__).resolve().parents[3]

# Variables that change which state the generators share: a child must only see the ones a
# test gives it, never ones leaking from the developer's shell.
_STATE_VARS = ("UUIDKIT_STATE", "UUIDKIT_DAEMON")


def bin_dir() -> Path:
    return Path(os.environ.get("UUIDKIT_BIN_DIR", str(REPO / "target" / "debug")))


def _binary(name: str) -> Path:
    path = bin_dir() / name
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.skip(
            f"{name} binary not found at {path}: build it with "
            f"`cargo build -p uuidkit-cli -p uuidkitd` or set UUIDKIT_BIN_DIR"
        )
    return path


@pytest.fixture(scope="session")
def uuidkit_bin() -> Path:
    """The `uuidkit` CLI (skips the test when it is not built)."""
    return _binary("uuidkit")


@pytest.fixture(scope="session")
def uuidkitd_bin() -> Path:
    """The `uuidkitd` daemon (skips the test when it is not built)."""
    return _binary("uuidkitd")


def child_env(extra=None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in _STATE_VARS}
    env.update(extra or {})
    return env


def spawn_python(code: str, env=None, args=(), **kw) -> subprocess.Popen:
    """Start `python -c code args...` with the test interpreter and `env` added to a clean
    environment."""
    return subprocess.Popen(
        [sys.executable, "-c", code, *map(str, args)],
        env=child_env(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def run_at_once(code: str, tmp: Path, n: int, jobs, timeout: float) -> list:
    """Runs a fresh python per job `(extra_args, env)` as `python -c code out n go
    *extra_args`, all started before the file `go` (in `tmp`) is made, so that they
    generate at once; each must exit 0 within `timeout`. Returns the ints (a hex number a
    line) that each wrote to its `out`."""
    go = tmp / "go"
    procs, outs = [], []
    for k, (extra, env) in enumerate(jobs):
        out = tmp / f"out{k}.txt"
        outs.append(out)
        procs.append(spawn_python(code, env=env, args=(out, n, go, *extra)))
    time.sleep(0.3)  # let all import before the go
    go.touch()
    for p in procs:
        try:
            _, stderr = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            pytest.fail("a generating child did not finish")
        assert p.returncode == 0, stderr
    return [[int(line, 16) for line in out.read_text().split()] for out in outs]


def run_python(code: str, env=None, args=(), timeout: float = 120, check: bool = True):
    """Run `python -c code args...`; with check, fail the test showing stderr if it exits
    non-zero."""
    proc = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        env=child_env(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check and proc.returncode != 0:
        pytest.fail(
            f"child python exited {proc.returncode}\n--- stdout\n{proc.stdout}\n"
            f"--- stderr\n{proc.stderr}"
        )
    return proc


@pytest.fixture
def py():
    """`py(code, env=None, args=(), timeout=120, check=True)` -> CompletedProcess of a fresh python."""
    return run_python


@pytest.fixture
def spawn_py():
    """`spawn_py(code, env=None, args=())` -> Popen of a fresh python (stdout/stderr piped, text)."""
    return spawn_python


@pytest.fixture
def short_tmp():
    # Unix socket paths are limited to ~107 bytes: keep them short.
    d = tempfile.mkdtemp(prefix="ukt", dir="/tmp")
    yield Path(d)
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def daemon_proc(uuidkitd_bin, short_tmp):
    """A uuidkitd of the test's own: (its socket, its Popen), stopped after the test."""
    sock = short_tmp / "d.sock"
    log = open(short_tmp / "d.log", "w+")
    # Unprivileged: an explicit socket and state file instead of /run and /var/lib.
    proc = subprocess.Popen(
        [str(uuidkitd_bin), "--socket", str(sock), "--state", str(short_tmp / "dstate")],
        stdout=log, stderr=subprocess.STDOUT, env=child_env(),
    )
    try:
        deadline = time.monotonic() + 20
        while not sock.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                pytest.fail(f"uuidkitd did not start: {log.read()}")
            time.sleep(0.02)
        yield sock, proc
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)  # a test may have stopped it
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture
def daemon(daemon_proc):
    """The socket of a uuidkitd of the test's own."""
    return daemon_proc[0]
