"""The Python package as a client of fleet-mode uuidkitd (docs/fleet.md, "Clients of the
service"; docs/daemon.md, "Fleet mode"), against a real etcd 3.4 and real daemons.

Two daemons of one fleet (B = 8, a 2 s lease) hold machine IDs 0 and 1. A fresh
interpreter per daemon (UUIDKIT_DAEMON) makes UUIDs with uuid7() (Method 1, counter),
uuid7(method="precision") (Method 3), uuid7(method="random") (Method 2) and
uuid8(layout="draft-v7-ms"): every one carries its daemon's ID in its last 8 bits, where
every client of a fleet-mode daemon puts it.
Then etcd is killed, so neither daemon can renew its lease: each fences itself (its
status shows no lease left), the clients' next leases are refused past their 2 s of asking
again, and every generator goes on in memory with a warning naming the fence
(take_store_warnings(), the package's documented way to report it). From then on the
UUIDs no longer carry the ID: its bits are random, equal to the ID by chance (1 in 2^8),
and each call's UUIDs stay strictly increasing across the change. Nothing panics, the
children exit 0 and the daemons keep running.

Like the Rust fleet tests (crates/uuidkit/tests/etcd_cluster.rs), this fails (does not
skip) when etcd is missing: scripts/setup installs it (Debian's etcd-server).
"""

import http.client
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import child_env, spawn_python

# The etcd server binary, from Debian's etcd-server (etcd 3.4), as the Rust harness has it;
# else an `etcd` on PATH.
ETCD = "/usr/bin/etcd"
FLEET = "pyfleet"
BITS = 8
MASK = (1 << BITS) - 1
TTL = 2  # seconds: the shortest lease uuidkitd takes, as crates/uuidkitd/tests/fleet.rs
N = 20_000  # UUIDs per call, before and after the fence
HEALTHY_TIMEOUT = 20.0
START_ATTEMPTS = 3


# Where a client of a fleet-mode uuidkitd puts the ID its daemon's leases bring
# (docs/fleet.md, "Where the ID goes"; docs/daemon.md, "What is stamped"): the last B bits
# of every UUID, whatever the v7 method or draft layout, so that clients of two daemons
# never meet even when they use different methods. (A generator given an ID of its own puts
# it where V7Method says; not tested here.) call -> (UUID version, its machine-ID bits).
def last_bits(v: int) -> int:
    return v & MASK


CALLS = {
    "uuid7()": (7, last_bits),  # Method 1, counter
    "uuid7(method='precision')": (7, last_bits),  # Method 3
    "uuid7(method='random')": (7, last_bits),  # Method 2, its random value narrowed above the ID
    "uuid8(layout='draft-v7-ms')": (8, last_bits),
}

# A client: with UUIDKIT_DAEMON set, make n UUIDs of each call, say so (the ready file),
# wait for the go file (the daemon fenced meanwhile), make n more of each, and write them
# and the store warnings (before; after each call) as JSON.
CHILD = r"""
import json, os, sys, time
import uuidkit
out, ready, go, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
calls = json.loads(sys.argv[5])
result = {"before": {}, "after": {}, "warnings_after": {}}
for call in calls:
    make = eval("lambda: uuidkit." + call)
    result["before"][call] = ["%032x" % make().int for _ in range(n)]
result["warnings_before"] = uuidkit.take_store_warnings()
open(ready, "w").close()
deadline = time.monotonic() + 120
while not os.path.exists(go):
    if time.monotonic() > deadline:
        sys.exit("no go file")
    time.sleep(0.01)
for call in calls:
    make = eval("lambda: uuidkit." + call)
    result["after"][call] = ["%032x" % make().int for _ in range(n)]
    result["warnings_after"][call] = uuidkit.take_store_warnings()
with open(out, "w") as f:
    json.dump(result, f)
"""


def etcd_binary() -> str:
    if os.path.exists(ETCD):
        return ETCD
    found = shutil.which("etcd")
    if found is None:
        pytest.fail(
            f"etcd is not installed ({ETCD} is missing, and no etcd on PATH); the fleet tests "
            "run a real etcd. Install the Debian package etcd-server: bash scripts/setup does"
        )
    return found


def free_ports(n: int) -> list:
    """n distinct free ports on loopback: all bound at once, then let go."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


class Etcd:
    """A 1-member etcd on free loopback ports, its data and log in a directory of its own
    (the flags of crates/uuidkit/tests/etcd_cluster.rs)."""

    def __init__(self, binary: str, root: Path, attempt: int):
        self.dir = root / f"m0-{attempt}"
        self.dir.mkdir()
        self.client_port, self.peer_port = free_ports(2)
        self.endpoint = f"http://127.0.0.1:{self.client_port}"
        peer = f"http://127.0.0.1:{self.peer_port}"
        env = {k: v for k, v in child_env().items() if not k.startswith("ETCD_")}
        if platform.machine() in ("aarch64", "arm64"):
            env["ETCD_UNSUPPORTED_ARCH"] = "arm64"
        self.log_path = self.dir / "etcd.log"
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [binary, "--name", "m0", "--data-dir", str(self.dir / "data"),
                 "--listen-client-urls", self.endpoint,
                 "--advertise-client-urls", self.endpoint,
                 "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                 "--initial-cluster", f"m0={peer}", "--initial-cluster-state", "new",
                 "--initial-cluster-token", f"uuidkit-py-test-{os.getpid()}-{time.time_ns()}",
                 "--heartbeat-interval", "100", "--election-timeout", "1000",
                 "--logger", "zap", "--log-outputs", "stderr"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
            )

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def healthy(self) -> bool:
        """Whether GET /health says it has a leader (straight to loopback: no proxy)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.client_port, timeout=1)
        try:
            conn.request("GET", "/health")
            r = conn.getresponse()
            return r.status == 200 and '"health":"true"' in r.read().decode()
        except (OSError, http.client.HTTPException):
            return False
        finally:
            conn.close()

    def wait_healthy(self) -> str:
        """'' once it has a leader; else why not."""
        deadline = time.monotonic() + HEALTHY_TIMEOUT
        while not self.healthy():
            if self.proc.poll() is not None:
                return f"etcd exited ({self.proc.returncode})"
            if time.monotonic() > deadline:
                return f"etcd not healthy within {HEALTHY_TIMEOUT} s ({self.endpoint})"
            time.sleep(0.05)
        return ""

    def kill(self):
        """SIGKILL (a crash, as EtcdCluster::stop_member), and wait for it."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


@pytest.fixture
def etcd():
    """A running 1-member etcd; killed, and its directory removed, after the test."""
    binary = etcd_binary()
    root = Path(tempfile.mkdtemp(prefix="uuidkit-etcd-"))
    member = None
    try:
        why = ""
        for attempt in range(START_ATTEMPTS):
            member = Etcd(binary, root, attempt)
            why = member.wait_healthy()
            if not why:
                break
            taken = "address already in use" in member.log_tail(1000)
            log = member.log_tail()
            member.kill()
            if not taken:
                pytest.fail(f"{why}\n--- etcd log ({member.log_path}):\n{log}")
        else:
            pytest.fail(f"etcd: ports taken {START_ATTEMPTS} times over; the last try: {why}")
        yield member
    finally:
        if member is not None:
            member.kill()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def fleet_daemon(uuidkitd_bin, short_tmp):
    """`fleet_daemon(name, endpoint)` -> (socket, Popen, log path) of a fleet-mode uuidkitd
    listening on a socket in short_tmp; every one is stopped after the test."""
    started = []

    def start(name: str, endpoint: str):
        sock = short_tmp / f"{name}.sock"
        log_path = short_tmp / f"{name}.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [str(uuidkitd_bin), "--socket", str(sock), "--state", str(short_tmp / f"{name}.state"),
                 "--machine-id", "etcd", "--etcd", endpoint, "--fleet", FLEET,
                 "--machine-id-bits", str(BITS), "--lease-ttl", str(TTL)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=child_env(),
            )
        started.append(proc)
        deadline = time.monotonic() + 20
        while True:
            with socket.socket(socket.AF_UNIX) as s:
                try:
                    s.connect(str(sock))
                    break
                except OSError:
                    pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"uuidkitd {name} is not listening on {sock}: {log_path.read_text()}")
            time.sleep(0.02)
        return sock, proc, log_path

    try:
        yield start
    finally:
        for proc in started:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def fleet_status(uuidkit_bin, sock) -> dict:
    out = subprocess.run([str(uuidkit_bin), "daemon", "status", "--daemon", str(sock)],
                         capture_output=True, text=True, timeout=30, env=child_env())
    assert out.returncode == 0, out.stderr
    fleet = json.loads(out.stdout)["fleet"]
    assert fleet is not None, f"{sock}: not in fleet mode: {out.stdout}"
    return fleet


def test_fenced_fleet_daemon_id_is_never_stamped(etcd, fleet_daemon, uuidkit_bin, short_tmp):
    # Two daemons claim in turn: the lowest free ID each, 0 then 1.
    daemons = []
    for name in ("d0", "d1"):
        sock, proc, log = fleet_daemon(name, etcd.endpoint)
        f = fleet_status(uuidkit_bin, sock)
        assert (f["fleet"], f["bits"]) == (FLEET, BITS), f
        assert f["lease_left_ms"] is not None, f"{name} is fenced from the start: {f}"
        daemons.append((name, sock, proc, log, f["id"]))
    assert [d[4] for d in daemons] == [0, 1], daemons
    for name, _, _, log, mid in daemons:
        text = log.read_text()
        assert f'holding machine ID {mid} of {1 << BITS} in fleet "{FLEET}"' in text, text

    go = short_tmp / "go"
    children = []
    for name, sock, _, _, _ in daemons:
        out, ready = short_tmp / f"{name}.json", short_tmp / f"{name}.ready"
        p = spawn_python(CHILD, env={"UUIDKIT_DAEMON": str(sock)},
                         args=(out, ready, go, N, json.dumps(list(CALLS))))
        children.append((p, out, ready))
    try:
        # Both clients made their first UUIDs, stamped.
        deadline = time.monotonic() + 120
        for p, _, ready in children:
            while not ready.exists():
                if p.poll() is not None:
                    pytest.fail(f"a client exited {p.returncode} before the fence: "
                                f"{p.communicate()[1]}")
                if time.monotonic() > deadline:
                    pytest.fail("a client made no UUIDs within 120 s")
                time.sleep(0.02)

        # etcd dies: neither daemon can renew, and each fences itself within the lease's
        # time-to-live (less a fifth): its status shows no lease left.
        etcd.kill()
        deadline = time.monotonic() + 30
        for name, sock, _, _, _ in daemons:
            while fleet_status(uuidkit_bin, sock)["lease_left_ms"] is not None:
                assert time.monotonic() < deadline, f"{name} not fenced 30 s after etcd died"
                time.sleep(0.1)
        # Past the time-to-live too, so that no client can be within a lease of its own.
        time.sleep(TTL)
        go.touch()

        results = []
        for p, out, _ in children:
            try:
                _, stderr = p.communicate(timeout=300)
            except subprocess.TimeoutExpired:
                pytest.fail("a client did not finish within 300 s of the fence")
            assert p.returncode == 0, stderr
            assert "panicked" not in stderr, stderr
            with open(out) as f:
                results.append(json.load(f))
    finally:
        for p, _, _ in children:
            if p.poll() is None:
                p.kill()
                p.wait()

    everyone = set()
    for (name, sock, _, _, mid), r in zip(daemons, results):
        # Before the fence: no warning, and every UUID carries the daemon's ID.
        assert r["warnings_before"] == [], (name, r["warnings_before"])
        for call, (version, id_of) in CALLS.items():
            before = [int(h, 16) for h in r["before"][call]]
            after = [int(h, 16) for h in r["after"][call]]
            assert len(before) == len(after) == N, (name, call)
            assert all((v >> 76) & 0xF == version for v in before + after), (name, call)
            stamped = [v for v in before if id_of(v) != mid]
            assert not stamped, (
                f"{name} (ID {mid}), {call}: {len(stamped)} of {N} made under the lease do "
                f"not carry the ID, e.g. {stamped[0]:032x}")

            # After: the generator warned, naming the daemon and the fence, and went on in
            # memory.
            w = r["warnings_after"][call]
            assert len(w) == 1, (name, call, w)
            assert str(sock) in w[0] and "machine ID is fenced" in w[0], (name, call, w)
            assert "generating in memory without it" in w[0], (name, call, w)

            # Strictly increasing across the change.
            both = before + after
            assert all(a < b for a, b in zip(both, both[1:])), (
                f"{name}, {call}: not strictly increasing across the fence")

            # The ID's bits are random now: equal to the ID 1 time in 2^8 by chance (about
            # 78 of 20,000), never all of them; and they take (nearly) every value.
            still = sum(1 for v in after if id_of(v) == mid)
            assert still < N * 5 // 100, (
                f"{name} (ID {mid}), {call}: {still} of {N} UUIDs made while fenced still "
                f"carry the ID")
            values = {id_of(v) for v in after}
            assert len(values) > (1 << BITS) // 2, (
                f"{name}, {call}: the ID's bits take only {len(values)} values while fenced")
            n = len(everyone)
            everyone.update(both)
            assert len(everyone) == n + 2 * N, f"{name}, {call}: a UUID repeated"

    # The daemons went on (fenced, not dead), and nothing panicked.
    for name, _, proc, log, _ in daemons:
        assert proc.poll() is None, f"uuidkitd {name} exited {proc.returncode}: {log.read_text()}"
        assert "panicked" not in log.read_text(), log.read_text()
