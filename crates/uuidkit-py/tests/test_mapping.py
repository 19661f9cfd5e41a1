"""docs/python.md's table "Coming from `uuid`, uuid-utils or fastuuid", row by row, held
against uuid-utils 1.2.0 and fastuuid 0.14.0 themselves (tests/requirements.txt): each
peer's call in a row exists and does what uuidkit's call in that row does (same version,
same value where both are deterministic, the type the row names).

uuid-utils 1.2 has no wheel for CPython 3.9 (its oldest is cp310-abi3), so there its
column is skipped; everywhere else a missing package fails the test."""

import os
import sys
import uuid
from datetime import datetime, timezone

import pytest

import uuidkit

import fastuuid

if sys.version_info >= (3, 10):
    import uuid_utils
    import uuid_utils.compat as compat
else:
    uuid_utils = compat = None

needs_uuid_utils = pytest.mark.skipif(
    uuid_utils is None, reason="uuid-utils 1.2 has no wheel for CPython 3.9"
)

TEXT = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
NAME = "www.example.com"


def test_the_peers_are_the_versions_the_table_describes():
    from importlib.metadata import version

    assert version("fastuuid") == "0.14.0"
    if uuid_utils is not None:
        assert version("uuid-utils") == "1.2.0"


# Row: uuid.uuid4(), uuid1(), uuid3(), uuid5() | uuid_utils.compat.uuid4() … |
#      fastuuid.uuid4() … (own type) | uuidkit.uuid4() … (same arguments)


@needs_uuid_utils
def test_row_classic_generators_uuid_utils_compat():
    for v, args in ((1, ()), (4, ()), (3, (uuid.NAMESPACE_DNS, NAME)), (5, (uuid.NAMESPACE_DNS, NAME))):
        theirs = getattr(compat, f"uuid{v}")(*args)
        ours = getattr(uuidkit, f"uuid{v}")(*args)
        assert type(theirs) is uuid.UUID and type(ours) is uuid.UUID
        assert theirs.version == ours.version == v
        if v in (3, 5):
            assert theirs == ours == getattr(uuid, f"uuid{v}")(*args)
    # The same arguments: uuid1's node and clock_seq land in the same fields.
    theirs = compat.uuid1(node=0x0123456789AB, clock_seq=0x1234)
    ours = uuidkit.uuid1(node=0x0123456789AB, clock_seq=0x1234)
    assert (theirs.node, theirs.clock_seq) == (ours.node, ours.clock_seq) == (0x0123456789AB, 0x1234)


def test_row_classic_generators_fastuuid():
    for v in (1, 4):
        theirs = getattr(fastuuid, f"uuid{v}")()
        assert type(theirs) is fastuuid.UUID and not isinstance(theirs, uuid.UUID)
        assert theirs.version == getattr(uuidkit, f"uuid{v}")().version == v
    # fastuuid's uuid3/uuid5 take its own UUID and bytes, and agree with ours.
    ns = fastuuid.UUID(str(uuid.NAMESPACE_DNS))
    for v in (3, 5):
        theirs = getattr(fastuuid, f"uuid{v}")(ns, NAME.encode())
        assert type(theirs) is fastuuid.UUID
        assert str(theirs) == str(getattr(uuidkit, f"uuid{v}")(uuid.NAMESPACE_DNS, NAME))


# Row: uuid.uuid6(), uuid7(), uuid8(a, b, c) (3.14) | uuid_utils.compat.uuid7() … |
#      fastuuid.uuid7() | uuidkit.uuid7() …


@needs_uuid_utils
def test_row_new_generators_uuid_utils_compat():
    for v in (6, 7, 8):
        theirs = getattr(compat, f"uuid{v}")()
        assert type(theirs) is uuid.UUID
        assert theirs.version == getattr(uuidkit, f"uuid{v}")().version == v
    a, b, c = 0x123456789ABC, 0xDEF, 0x0123456789ABCDEF & ((1 << 62) - 1)
    assert compat.uuid8(a, b, c) == uuidkit.uuid8(a, b, c)
    theirs = compat.uuid6(node=0x0123456789AB, clock_seq=0x1234)
    ours = uuidkit.uuid6(node=0x0123456789AB, clock_seq=0x1234)
    assert theirs.int & ((1 << 64) - 1) == ours.int & ((1 << 64) - 1)


def test_row_new_generators_fastuuid_has_uuid7_only():
    theirs = fastuuid.uuid7()
    assert type(theirs) is fastuuid.UUID and theirs.version == uuidkit.uuid7().version == 7
    assert not hasattr(fastuuid, "uuid6") and not hasattr(fastuuid, "uuid8")


# Row: — | uuid_utils.uuid7(nanoseconds=ns) | — | uuidkit.uuid7(time=...), method=...


@needs_uuid_utils
def test_row_uuid7_at_a_time():
    ns = 1_700_000_000_123_456_789
    theirs = uuid_utils.uuid7(nanoseconds=ns)
    assert type(theirs) is uuid_utils.UUID
    for ours in (uuidkit.uuid7(time=ns / 1e9),
                 uuidkit.uuid7(time=datetime.fromtimestamp(ns // 10**9, timezone.utc)
                               .replace(microsecond=ns % 10**9 // 1000))):
        assert ours.version == theirs.version == 7
        assert ours.int >> 80 == theirs.int >> 80 == ns // 10**6  # the same millisecond
    # The keyword is keyword-only and named `nanoseconds` (not `timestamp`, 0.x's).
    with pytest.raises(TypeError):
        uuid_utils.uuid7(ns)
    with pytest.raises(TypeError):
        uuid_utils.uuid7(timestamp=ns)
    for method in ("random", "precision"):
        assert uuidkit.uuid7(method=method).version == 7


# Row: [uuid.uuid4() for _ in range(n)] | — | fastuuid.uuid4_bulk(n) (own type) |
#      uuidkit.uuid4_many(n), uuid4_bytes(n); the same for v7


@pytest.mark.parametrize("v", [4, 7])
def test_row_batches(v):
    theirs = getattr(fastuuid, f"uuid{v}_bulk")(50)
    assert isinstance(theirs, list) and len(theirs) == 50
    assert all(type(u) is fastuuid.UUID and u.version == v for u in theirs)
    ours = getattr(uuidkit, f"uuid{v}_many")(50)
    assert isinstance(ours, list) and len(ours) == 50
    assert all(type(u) is uuid.UUID and u.version == v for u in ours)
    packed = getattr(uuidkit, f"uuid{v}_bytes")(50)
    assert len(packed) == 800 and uuid.UUID(bytes=packed[:16]).version == v
    if uuid_utils is not None:
        assert not hasattr(uuid_utils, f"uuid{v}_bulk") and not hasattr(uuid_utils, f"uuid{v}_many")


# Row: uuid.UUID(text) | uuid_utils.UUID(text) | fastuuid.UUID(text) | uuidkit.parse(text)


def test_row_parse():
    ours = uuidkit.parse(TEXT)
    assert type(ours) is uuid.UUID and ours == uuid.UUID(TEXT)
    assert str(fastuuid.UUID(TEXT)) == str(ours)
    if uuid_utils is not None:
        theirs = uuid_utils.UUID(TEXT)
        assert type(theirs) is uuid_utils.UUID and str(theirs) == str(ours)
    # Ours takes only the four forms; uuid.UUID is lenient.
    assert uuid.UUID("{" + TEXT) == ours
    with pytest.raises(uuidkit.ParseError):
        uuidkit.parse("{" + TEXT)
    assert uuidkit.parse(uuidkit.format(ours, "base58"), form="base58") == ours


# Row: str(u), u.hex, u.urn | — | — | uuidkit.format(u, ...)


def test_row_format():
    u = uuid.UUID(TEXT)
    assert uuidkit.format(u, "hyphenated") == str(u)
    assert uuidkit.format(u, "simple") == u.hex
    assert uuidkit.format(u, "urn") == u.urn
    assert uuidkit.parse(uuidkit.format(u, "base32"), form="base32") == u
    for peer in (fastuuid, uuid_utils):
        if peer is not None:
            assert not hasattr(peer, "format")


# Row: str(uuid.uuid7()), uuid.uuid7().hex | str(uuid_utils.uuid7()), .hex (own type) |
#      str(fastuuid.uuid7()) (own type) | uuidkit.uuid7_str(), uuid7_str("simple") …


def test_row_text_of_a_new_uuid():
    cases = ((7, "hyphenated", str), (4, "hyphenated", str),
             (7, "simple", lambda u: u.hex), (7, "urn", lambda u: u.urn))
    for v, form, attr in cases:
        ours = getattr(uuidkit, f"uuid{v}_str")(form)
        peers = [attr(getattr(uuid, f"uuid{v}")())] if hasattr(uuid, f"uuid{v}") else []
        peers += [attr(getattr(p, f"uuid{v}")()) for p in (uuid_utils, fastuuid) if p is not None]
        for text in [ours, *peers]:
            assert type(text) is str and len(text) == len(ours)
            assert uuidkit.parse(text, form=form).version == v
    # The same value and order as uuidkit.uuid7(): it is that UUID, written as text.
    a, b, c = uuidkit.uuid7(), uuidkit.parse(uuidkit.uuid7_str()), uuidkit.uuid7()
    assert a < b < c


# Row: uuid.getnode() | uuid_utils.getnode() | — | uuidkit.getnode()


def test_row_getnode():
    ours = uuidkit.getnode()
    assert isinstance(ours, int) and 0 <= ours < 2**48 and ours == uuidkit.getnode()
    assert not hasattr(fastuuid, "getnode")
    if uuid_utils is not None:
        theirs = uuid_utils.getnode()
        # A 48-bit number too, but not necessarily the same interface's (see the row).
        assert isinstance(theirs, int) and 0 <= theirs < 2**48 and theirs == uuid_utils.getnode()
        assert compat.getnode is uuid.getnode


# Row: (after os.fork()) | nothing (1.2 reseeds itself) | — | nothing


@needs_uuid_utils
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_row_after_fork_nothing_to_call(py):
    code = r"""
import os, uuid_utils, uuidkit
uuid_utils.uuid4(); uuidkit.uuid4()
r, w = os.pipe()
pid = os.fork()
mine = [uuid_utils.uuid4().hex for _ in range(100)] + [uuidkit.uuid4().hex for _ in range(100)]
if pid == 0:
    os.write(w, " ".join(mine).encode()); os._exit(0)
os.close(w)
child = b""
while chunk := os.read(r, 1 << 16):
    child += chunk
os.waitpid(pid, 0)
child = child.decode().split()
print(len(set(mine[:100]) & set(child[:100])), len(set(mine[100:]) & set(child[100:])))
"""
    assert py(code).stdout.split() == ["0", "0"]


# Row: — | — | fastuuid.uuid_v1mc() | uuidkit.uuid1() (random multicast node)


def test_row_v1_multicast():
    theirs = fastuuid.uuid_v1mc()
    ours = uuidkit.uuid1()
    assert theirs.version == ours.version == 1
    assert (theirs.node >> 40) & 1 == (ours.node >> 40) & 1 == 1


def test_uuidkit_default_v1_node_is_random_per_process(py):
    code = "import uuidkit; print(uuidkit.uuid1().node)"
    assert py(code).stdout != py(code).stdout


def interface_getnode_takes():
    """What src/generate.rs's getnode reads (uuidkit's host.rs): among the Ethernet
    interfaces, not loopback, with a MAC other than zero, by name, the first that is up
    and backed by a device, else the first that is up; None when there is none."""
    base = "/sys/class/net"
    found = []
    for name in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        def read(f):
            try:
                with open(os.path.join(base, name, f)) as fh:
                    return fh.read().strip()
            except OSError:
                return ""
        try:
            flags = int(read("flags"), 16)
        except ValueError:
            flags = 0
        if flags & 0x8 or read("type") != "1":
            continue
        try:
            mac = int(read("address").replace(":", ""), 16)
        except ValueError:
            continue
        if mac == 0:
            continue
        up = bool(flags & 0x1) and read("operstate") != "down"
        found.append((mac, up, os.path.exists(os.path.join(base, name, "device"))))
    first = [m for m, up, phys in found if up and phys] or [m for m, up, _ in found if up]
    return first[0] if first else None


def test_getnode_is_the_first_up_interface_else_random_multicast():
    node = uuidkit.getnode()
    mac = interface_getnode_takes()
    if mac is None:
        assert (node >> 40) & 1, "no interface up: a random node has the multicast bit"
    else:
        assert node == mac
