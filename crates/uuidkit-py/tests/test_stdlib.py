"""Every generator against the standard library's `uuid` (CPython 3.14 semantics).

The machine's Python may predate 3.14, so uuid6/uuid8 are checked against reference
implementations of CPython 3.14's code written below."""

import copy
import os
import pickle
import random
import time
import uuid
from pathlib import Path

import pytest

import uuidkit

GREGORIAN_OFFSET = 0x01B21DD213814000  # 100 ns ticks from 1582-10-15 to 1970-01-01
RFC_VARIANT_FLAGS = 0x8000 << 48
MASK48 = 0xFFFF_FFFF_FFFF


def ref_uuid8(a, b, c):
    """CPython 3.14's uuid.uuid8 integer construction (all three given)."""
    i = (a & 0xFFFF_FFFF_FFFF) << 80
    i |= (b & 0xFFF) << 64
    i |= c & 0x3FFF_FFFF_FFFF_FFFF
    i |= (8 << 76) | RFC_VARIANT_FLAGS
    return uuid.UUID(int=i)


def ref_uuid6(timestamp, node, clock_seq):
    """CPython 3.14's uuid.uuid6 integer construction from a given 60-bit timestamp."""
    time_hi_and_mid = (timestamp >> 12) & 0xFFFF_FFFF_FFFF
    time_lo = timestamp & 0x0FFF
    clock_s = clock_seq & 0x3FFF
    i = time_hi_and_mid << 80
    i |= time_lo << 64
    i |= clock_s << 48
    i |= node & 0xFFFF_FFFF_FFFF
    i |= (6 << 76) | RFC_VARIANT_FLAGS
    return uuid.UUID(int=i)


def v6_timestamp(u):
    return ((u.int >> 80) << 12) | ((u.int >> 64) & 0xFFF)


# The bits of a v6 that are not its timestamp (version, variant, clock_seq, node).
V6_NON_TIME_MASK = ((1 << 128) - 1) & ~((MASK48 << 80) | (0xFFF << 64))


def now_ticks():
    return time.time_ns() // 100 + GREGORIAN_OFFSET


# Slack for "close to now": generous, since this is about correctness (the right epoch and
# unit), not speed.
SLACK_TICKS = 5 * 10**7  # 5 s


def assert_rfc(u, version):
    assert type(u) is uuid.UUID
    assert u.variant == uuid.RFC_4122, u
    assert u.version == version, u


# ---------------------------------------------------------------- name-based: v3 and v5

# RFC 9562's examples, CPython's own test_uuid names, and names that exercise UTF-8 encoding.
NAMES = [
    "www.example.com",
    "python.org",
    "http://python.org/",
    "1.3.6.1",
    "c=ca",
    "",
    "a",
    "\x00",
    "caf\u00e9",
    "\u65e5\u672c\u8a9e",
    "\U0001f600 emoji",
    "\ufeffbom",
    "x" * 1000,
    "line\nbreak\ttab",
]
NAMESPACES = [uuid.NAMESPACE_DNS, uuid.NAMESPACE_URL, uuid.NAMESPACE_OID, uuid.NAMESPACE_X500]

# CPython's test_uuid known answers (bytes names), pinned so both sides cannot agree on a bug.
CPYTHON_V3 = [
    (uuid.NAMESPACE_DNS, b"python.org", "6fa459ea-ee8a-3ca4-894e-db77e160355e"),
    (uuid.NAMESPACE_URL, b"http://python.org/", "9fe8e8c4-aaa8-32a9-a55c-4535a88b748d"),
    (uuid.NAMESPACE_OID, b"1.3.6.1", "dd1a1cef-13d5-368a-ad82-eca71acd4cd1"),
    (uuid.NAMESPACE_X500, b"c=ca", "658d3002-db6b-3040-a1d1-8ddd7d189a4d"),
]
CPYTHON_V5 = [
    (uuid.NAMESPACE_DNS, b"python.org", "886313e1-3b8a-5372-9b90-0c9aee199e5d"),
    (uuid.NAMESPACE_URL, b"http://python.org/", "4c565f0d-3f5a-5890-b41b-20cf47701c5e"),
    (uuid.NAMESPACE_OID, b"1.3.6.1", "1447fa61-5277-5fef-a9b3-fbc6e44f4af3"),
    (uuid.NAMESPACE_X500, b"c=ca", "cc957dd1-a972-5349-98cd-874190002798"),
]


def test_rfc_name_based_vectors():
    # RFC 9562 A.2 and A.4.
    assert uuidkit.uuid3(uuidkit.NAMESPACE_DNS, "www.example.com") == uuid.UUID(
        "5df41881-3aed-3515-88a7-2f4a814cf09e"
    )
    assert uuidkit.uuid5(uuidkit.NAMESPACE_DNS, "www.example.com") == uuid.UUID(
        "2ed6657d-e927-568b-95e1-2665a8aea6a2"
    )


@pytest.mark.parametrize("ns,name,expected", CPYTHON_V3)
def test_cpython_v3_known_answers(ns, name, expected):
    for n in (name, name.decode(), bytearray(name)):
        u = uuidkit.uuid3(ns, n)
        assert u == uuid.UUID(expected)
        assert_rfc(u, 3)


@pytest.mark.parametrize("ns,name,expected", CPYTHON_V5)
def test_cpython_v5_known_answers(ns, name, expected):
    for n in (name, name.decode(), bytearray(name)):
        u = uuidkit.uuid5(ns, n)
        assert u == uuid.UUID(expected)
        assert_rfc(u, 5)


def ref_name_based(hash_name, version, namespace, name):
    """CPython 3.14's uuid3/uuid5 (3.12+ take bytes names; this machine's 3.11 does not)."""
    import hashlib

    if isinstance(name, str):
        name = bytes(name, "utf-8")
    digest = hashlib.new(hash_name, namespace.bytes + name).digest()[:16]
    i = int.from_bytes(digest, "big") & ~(0xF << 76) & ~(0x3 << 62)
    return uuid.UUID(int=i | (version << 76) | RFC_VARIANT_FLAGS)


def ref_uuid3(ns, name):
    return ref_name_based("md5", 3, ns, name)


def ref_uuid5(ns, name):
    return ref_name_based("sha1", 5, ns, name)


@pytest.mark.parametrize("ns", NAMESPACES, ids=["dns", "url", "oid", "x500"])
@pytest.mark.parametrize("name", NAMES, ids=range(len(NAMES)))
def test_uuid3_uuid5_equal_stdlib(ns, name):
    # str names: the stdlib itself (and it validates the reference used for bytes).
    assert uuidkit.uuid3(ns, name) == uuid.uuid3(ns, name) == ref_uuid3(ns, name)
    assert uuidkit.uuid5(ns, name) == uuid.uuid5(ns, name) == ref_uuid5(ns, name)
    raw = name.encode("utf-8")
    for n in (raw, bytearray(raw)):
        assert uuidkit.uuid3(ns, n) == uuid.uuid3(ns, name)
        assert uuidkit.uuid5(ns, n) == uuid.uuid5(ns, name)
    assert_rfc(uuidkit.uuid3(ns, name), 3)
    assert_rfc(uuidkit.uuid5(ns, raw), 5)


def test_uuid3_uuid5_random_namespaces_and_names():
    rng = random.Random(3)
    for _ in range(2000):
        ns = uuid.UUID(int=rng.getrandbits(128))
        name = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 80)))
        assert uuidkit.uuid3(ns, name) == ref_uuid3(ns, name)
        assert uuidkit.uuid5(ns, name) == ref_uuid5(ns, name)
        text = "".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(0xA0, 0xD7FF)]))
                       for _ in range(rng.randrange(0, 20)))
        assert uuidkit.uuid3(ns, text) == uuid.uuid3(ns, text)
        assert uuidkit.uuid5(ns, text) == uuid.uuid5(ns, text)


def test_namespace_may_be_any_object_with_16_bytes():
    # CPython only reads `namespace.bytes`.
    class NS:
        bytes = uuid.NAMESPACE_URL.bytes

    assert uuidkit.uuid5(NS(), "x") == uuid.uuid5(uuid.NAMESPACE_URL, "x")
    assert uuidkit.uuid3(NS(), b"x") == uuid.uuid3(uuid.NAMESPACE_URL, "x")


# ---------------------------------------------------------------- v1 and v6 with node/clock_seq


def v1_timestamp(u):
    return u.time


@pytest.mark.parametrize("node,clock_seq", [
    (0, 0),
    (0x9F6BDECED846, 0x33C8),
    (MASK48, 0x3FFF),
    (0x010000000000, 1),
    (0x123456789ABC, 0x2AAA),
])
def test_uuid1_fields_round_trip(node, clock_seq):
    before = now_ticks()
    us = [uuidkit.uuid1(node=node, clock_seq=clock_seq) for _ in range(200)]
    after = now_ticks()
    for u in us:
        assert_rfc(u, 1)
        assert u.node == node
        assert u.clock_seq == clock_seq
        # The same fields as the stdlib writes for these arguments.
        s = uuid.uuid1(node=node, clock_seq=clock_seq)
        assert (u.node, u.clock_seq, u.version, u.variant) == (
            s.node, s.clock_seq, s.version, s.variant)
    ts = [v1_timestamp(u) for u in us]
    assert all(a < b for a, b in zip(ts, ts[1:])), "v1 timestamps must strictly increase"
    assert before - SLACK_TICKS <= ts[0] and ts[-1] <= after + len(us) + SLACK_TICKS


def test_uuid1_clock_seq_masked_like_stdlib():
    for cs in (0x4000, 2**20 + 5, 2**64 - 1, -1, -12345):
        u = uuidkit.uuid1(node=7, clock_seq=cs)
        s = uuid.uuid1(node=7, clock_seq=cs)
        assert u.clock_seq == s.clock_seq == cs & 0x3FFF


def test_uuid1_only_node_or_only_clock_seq():
    u = uuidkit.uuid1(node=0xABCDEF)
    assert_rfc(u, 1)
    assert u.node == 0xABCDEF
    u = uuidkit.uuid1(clock_seq=0x1234)
    assert_rfc(u, 1)
    assert u.clock_seq == 0x1234
    assert u.node == uuidkit.getnode()  # node None -> getnode(), as CPython


def test_uuid1_default_generator_increasing():
    before = now_ticks()
    us = [uuidkit.uuid1() for _ in range(5000)]
    after = now_ticks()
    for u in us:
        assert_rfc(u, 1)
    ts = [u.time for u in us]
    # The process-wide generator is strictly increasing as a whole (timestamp, clock_seq).
    keys = [(u.time, u.clock_seq) for u in us]
    assert all(a < b for a, b in zip(keys, keys[1:]))
    assert before - SLACK_TICKS <= min(ts) and max(ts) <= after + SLACK_TICKS + len(us)
    assert len({u.int for u in us}) == len(us)


def test_uuid6_reference_gives_rfc_vector():
    # The reference itself against RFC 9562 A.3 (timestamp, clock_seq and node of A.1).
    assert ref_uuid6(0x1EC9414C232AB00, 0x9F6BDECED846, 0x33C8) == uuid.UUID(
        "1EC9414C-232A-6B00-B3C8-9F6BDECED846")


@pytest.mark.parametrize("node,clock_seq", [
    (0, 0),
    (0x9F6BDECED846, 0x33C8),
    (MASK48, 0x3FFF),
    (2**48, 0),            # masked to 0 (CPython 3.14: no error)
    (2**48 + 5, 2**14 + 3),
    (-1, -1),
    (2**100 + 0xABC, 2**40 + 0x1FF),
])
def test_uuid6_matches_cpython_314_reference(node, clock_seq):
    before = now_ticks()
    us = [uuidkit.uuid6(node=node, clock_seq=clock_seq) for _ in range(200)]
    after = now_ticks()
    for u in us:
        assert_rfc(u, 6)
        ref = ref_uuid6(v6_timestamp(u), node, clock_seq)
        assert u.int & V6_NON_TIME_MASK == ref.int & V6_NON_TIME_MASK
        assert u == ref  # the timestamp round-trips through the reference construction
        assert u.node == node & MASK48
        assert u.clock_seq == clock_seq & 0x3FFF
    ts = [v6_timestamp(u) for u in us]
    assert all(a < b for a, b in zip(ts, ts[1:])), "v6 timestamps must strictly increase"
    assert before - SLACK_TICKS <= ts[0] and ts[-1] <= after + len(us) + SLACK_TICKS


def test_uuid6_node_none_uses_getnode():
    u = uuidkit.uuid6(clock_seq=5)
    assert u.node == uuidkit.getnode()
    assert u.clock_seq == 5


def test_uuid6_default_generator_increasing():
    us = [uuidkit.uuid6() for _ in range(5000)]
    for u in us:
        assert_rfc(u, 6)
    ints = [u.int for u in us]
    assert all(a < b for a, b in zip(ints, ints[1:]))


# ---------------------------------------------------------------- v8 (CPython 3.14's uuid8)

UUID8_EDGE = [0, 1, 0xFFF, 0x1000, MASK48, 2**48, 2**62 - 1, 2**62, 2**64 - 1, 2**64,
              2**128 + 12345, -1, -2, -(2**48), -(2**62) - 7, -(2**200) + 3]


def test_uuid8_matches_cpython_314_reference_edges():
    for a in UUID8_EDGE:
        for b in UUID8_EDGE:
            for c in UUID8_EDGE:
                u = uuidkit.uuid8(a, b, c)
                assert u == ref_uuid8(a, b, c), (a, b, c)
                assert_rfc(u, 8)


def test_uuid8_matches_cpython_314_reference_random():
    rng = random.Random(8)
    for _ in range(20000):
        bits = rng.choice([12, 48, 62, 64, 130])
        a, b, c = (rng.getrandbits(bits) * rng.choice([1, -1]) for _ in range(3))
        assert uuidkit.uuid8(a, b, c) == ref_uuid8(a, b, c), (a, b, c)
        # keywords too
        assert uuidkit.uuid8(a=a, b=b, c=c) == ref_uuid8(a, b, c)


def test_uuid8_none_parts_are_random():
    us = [uuidkit.uuid8(a=0x123456789ABC) for _ in range(200)]
    for u in us:
        assert_rfc(u, 8)
        assert u.int >> 80 == 0x123456789ABC
    assert len({u.int for u in us}) == len(us)
    us = [uuidkit.uuid8() for _ in range(200)]
    assert len({u.int for u in us}) == len(us)
    for u in us:
        assert_rfc(u, 8)
    u = uuidkit.uuid8(b=0xABC, c=5)
    assert (u.int >> 64) & 0xFFF == 0xABC and u.int & (2**62 - 1) == 5


# ---------------------------------------------------------------- every generator: type, version


def all_generated():
    """(label, version, uuid) for one UUID of every generator and option."""
    out = [
        ("uuid1", 1, uuidkit.uuid1()),
        ("uuid1 node", 1, uuidkit.uuid1(node=1, clock_seq=2)),
        ("uuid3", 3, uuidkit.uuid3(uuidkit.NAMESPACE_DNS, "a")),
        ("uuid4", 4, uuidkit.uuid4()),
        ("uuid5", 5, uuidkit.uuid5(uuidkit.NAMESPACE_DNS, "a")),
        ("uuid6", 6, uuidkit.uuid6()),
        ("uuid6 node", 6, uuidkit.uuid6(node=1, clock_seq=2)),
        ("uuid7", 7, uuidkit.uuid7()),
        ("uuid8", 8, uuidkit.uuid8()),
        ("uuid8 abc", 8, uuidkit.uuid8(1, 2, 3)),
        ("uuid8 b2", 8, uuidkit.uuid8(layout="b2", namespace=uuidkit.NAMESPACE_DNS, name="a")),
        ("v1_to_v6", 6, uuidkit.v1_to_v6(uuidkit.uuid1())),
        ("v6_to_v1", 1, uuidkit.v6_to_v1(uuidkit.uuid6())),
        ("parse", 4, uuidkit.parse(str(uuid.uuid4()))),
    ]
    for m in ("counter", "random", "precision"):
        out.append((f"uuid7 {m}", 7, uuidkit.uuid7(method=m)))
        out.append((f"uuid7 time {m}", 7, uuidkit.uuid7(method=m, time=1645557742)))
    for layout in ("b1", "draft-v7-ms", "draft-v7-us", "draft-v7-ns",
                   "draft-v8-32", "draft-v8-48", "draft-v8-60", "draft-v8-64"):
        out.append((f"uuid8 {layout}", 8,
                    uuidkit.uuid8(layout=layout)))
    out += [("uuid4_many", 4, u) for u in uuidkit.uuid4_many(3)]
    out += [("uuid7_many", 7, u) for u in uuidkit.uuid7_many(3)]
    return out


def test_every_generator_version_variant_and_type():
    wrong = []
    for label, version, u in all_generated():
        got = (type(u).__name__, u.version, u.variant, u.is_safe)
        want = ("UUID", version, uuid.RFC_4122, uuid.SafeUUID.unknown)
        if type(u) is not uuid.UUID or got != want:
            wrong.append((label, str(u), got, want))
    assert not wrong, "\n".join(map(str, wrong))


def test_bytes_generators_versions():
    for fn, version in ((uuidkit.uuid4_bytes, 4), (uuidkit.uuid7_bytes, 7)):
        raw = fn(50)
        assert type(raw) is bytes and len(raw) == 50 * 16
        us = [uuid.UUID(bytes=raw[i:i + 16]) for i in range(0, len(raw), 16)]
        for u in us:
            assert u.version == version and u.variant == uuid.RFC_4122
        assert len(set(us)) == 50
    assert uuidkit.uuid4_bytes(0) == b"" and uuidkit.uuid7_bytes(0) == b""
    assert uuidkit.uuid4_many(0) == [] and uuidkit.uuid7_many(0) == []


def test_uuid4_bits_look_random():
    # Each of the 122 random bits should be set about half the time (a stuck bit fails).
    us = uuidkit.uuid4_many(4000)
    fixed = (0xF << 76) | (0x3 << 62)
    for bit in range(128):
        if fixed >> bit & 1:
            continue
        ones = sum(u.int >> bit & 1 for u in us)
        assert 1600 < ones < 2400, f"bit {bit} set {ones}/4000 times"


def test_pickle_copy_hash_eq():
    for label, _, u in all_generated():
        check_like_stdlib(label, u)


def check_like_stdlib(label, u):
    back = pickle.loads(pickle.dumps(u))
    assert type(back) is uuid.UUID and back == u, label
    assert back.is_safe is uuid.SafeUUID.unknown
    assert copy.copy(u) == u and copy.deepcopy(u) == u
    std = uuid.UUID(str(u))
    assert u == std and hash(u) == hash(std), label
    assert {u: 1}[std] == 1
    assert u.bytes == std.bytes and u.int == std.int and u.fields == std.fields
    assert str(u) == str(std) and repr(u) == repr(std)
    assert not (u < std) and not (u > std)


# ---------------------------------------------------------------- constants and getnode


def test_constants_equal_stdlib():
    assert uuidkit.UUID is uuid.UUID
    assert uuidkit.SafeUUID is uuid.SafeUUID
    assert uuidkit.RESERVED_NCS == uuid.RESERVED_NCS
    assert uuidkit.RFC_4122 == uuid.RFC_4122
    assert uuidkit.RESERVED_MICROSOFT == uuid.RESERVED_MICROSOFT
    assert uuidkit.RESERVED_FUTURE == uuid.RESERVED_FUTURE
    for name in ("NAMESPACE_DNS", "NAMESPACE_URL", "NAMESPACE_OID", "NAMESPACE_X500"):
        c = getattr(uuidkit, name)
        assert type(c) is uuid.UUID and c == getattr(uuid, name), name
    # uuid.NIL/MAX only exist from 3.14: compare with their definition.
    assert type(uuidkit.NIL) is uuid.UUID and uuidkit.NIL == uuid.UUID(int=0)
    assert type(uuidkit.MAX) is uuid.UUID and uuidkit.MAX == uuid.UUID(int=(1 << 128) - 1)
    if hasattr(uuid, "NIL"):
        assert uuidkit.NIL == uuid.NIL and uuidkit.MAX == uuid.MAX


def test_name_tuples():
    assert tuple(uuidkit.FORMS) == ("hyphenated", "simple", "braced", "urn",
                                    "base32", "base58", "base62", "base64url")
    assert tuple(uuidkit.METHODS) == ("counter", "random", "precision")
    assert tuple(uuidkit.LAYOUTS) == ("b1", "b2", "draft-v7-ms", "draft-v7-us", "draft-v7-ns",
                                      "draft-v8-32", "draft-v8-48", "draft-v8-60", "draft-v8-64")


def test_getnode_stable_48_bit():
    n = uuidkit.getnode()
    assert type(n) is int
    assert 0 <= n < 2**48
    assert all(uuidkit.getnode() == n for _ in range(100))
    net = Path("/sys/class/net")
    if not (n >> 40) & 1 and net.is_dir():
        # Not a random node: it must be one of the host's MAC addresses.
        macs = set()
        for dev in net.iterdir():
            try:
                macs.add(int((dev / "address").read_text().strip().replace(":", ""), 16))
            except (OSError, ValueError):
                pass
        assert n in macs, f"{n:012x} is neither multicast-marked nor a MAC of {sorted(map(hex, macs))}"


def test_getnode_same_in_a_child_process_or_multicast(py):
    # A host MAC is the same in every process; a random node must carry the multicast bit.
    n = uuidkit.getnode()
    out = int(py("import uuidkit; print(uuidkit.getnode())").stdout)
    if n != out:
        assert (n >> 40) & 1 and (out >> 40) & 1


def test_our_uuids_are_untracked_by_the_cyclic_gc():
    # docs/python.md: a uuid.UUID can be in no reference cycle, so ours are untracked
    # (the standard library's are tracked); they still behave as any UUID and are freed.
    import gc
    import weakref

    made = [uuidkit.uuid4(), uuidkit.uuid7(), uuidkit.parse(str(uuid.uuid4()))]
    made += uuidkit.uuid7_many(3)
    assert not any(gc.is_tracked(u) for u in made)
    assert gc.is_tracked(uuid.uuid4())
    u = uuidkit.uuid4()
    ref = weakref.ref(u)
    del u
    assert ref() is None
