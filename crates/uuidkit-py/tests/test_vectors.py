"""RFC 9562's test vectors (Appendix A and B), v1 <-> v6 conversion, v7 at a given time, and
the v8 / draft layouts."""

import json
import random
import subprocess
import time
import uuid
from datetime import datetime, timedelta, timezone

import pytest

import uuidkit

A1_V1 = uuid.UUID("C232AB00-9414-11EC-B3C8-9F6BDECED846")
A3_V6 = uuid.UUID("1EC9414C-232A-6B00-B3C8-9F6BDECED846")
A5_V7 = uuid.UUID("017F22E2-79B0-7CC3-98C4-DC0C0C07398F")
A2_V3 = uuid.UUID("5df41881-3aed-3515-88a7-2f4a814cf09e")
A4_V5 = uuid.UUID("2ed6657d-e927-568b-95e1-2665a8aea6a2")
B1_V8 = uuid.UUID("2489E9AD-2EE2-8E00-8EC9-32D5F69181C0")
B2_V8 = uuid.UUID("5c146b14-3c52-8afd-938a-375d0df1fbf6")

RFC_TIME = datetime(2022, 2, 22, 19, 22, 22, tzinfo=timezone.utc)
RFC_MS = 0x017F22E279B0  # 1645557742000
RFC_TICKS = 0x1EC9414C232AB00  # 100 ns since 1582-10-15
METHODS = ("counter", "random", "precision")


def unix_ms(u):
    return u.int >> 80


# ---------------------------------------------------------------- v1 <-> v6


def test_v1_to_v6_rfc_vector():
    assert A1_V1.time == RFC_TICKS  # the vector itself, as the stdlib reads it
    assert uuidkit.v1_to_v6(A1_V1) == A3_V6
    assert uuidkit.v6_to_v1(A3_V6) == A1_V1


def test_conversion_idempotent_on_target_version():
    assert uuidkit.v1_to_v6(A3_V6) == A3_V6
    assert uuidkit.v6_to_v1(A1_V1) == A1_V1
    for _ in range(100):
        v6 = uuidkit.uuid6()
        assert uuidkit.v1_to_v6(v6) == v6
        v1 = uuidkit.uuid1()
        assert uuidkit.v6_to_v1(v1) == v1


def test_conversion_returns_stdlib_uuid():
    for u in (uuidkit.v1_to_v6(A1_V1), uuidkit.v6_to_v1(A3_V6), uuidkit.v1_to_v6(A3_V6)):
        assert type(u) is uuid.UUID


def test_conversion_round_trips_and_keeps_fields():
    rng = random.Random(16)
    sources = [uuid.uuid1() for _ in range(50)] + [uuidkit.uuid1() for _ in range(50)]
    # Arbitrary v1 bit patterns too: the conversion must be lossless for any of them.
    for _ in range(500):
        i = rng.getrandbits(128)
        i = (i & ~(0xF << 76) & ~(0x3 << 62)) | (1 << 76) | (0x2 << 62)
        sources.append(uuid.UUID(int=i))
    for v1 in sources:
        v6 = uuidkit.v1_to_v6(v1)
        assert v6.version == 6 and v6.variant == uuid.RFC_4122
        ts6 = ((v6.int >> 80) << 12) | ((v6.int >> 64) & 0xFFF)
        assert ts6 == v1.time
        assert v6.clock_seq == v1.clock_seq and v6.node == v1.node
        assert uuidkit.v6_to_v1(v6) == v1


def test_v6_conversion_sorts_by_time():
    v1s = [uuidkit.uuid1(node=5, clock_seq=9) for _ in range(300)]
    v6s = [uuidkit.v1_to_v6(u) for u in v1s]
    assert v6s == sorted(v6s) and len(set(v6s)) == len(v6s)


@pytest.mark.parametrize("other", [A2_V3, A4_V5, A5_V7, B1_V8, B2_V8,
                                   uuid.UUID("919108f7-52d1-4320-9bac-f847db4148a8"),
                                   uuid.UUID("000003e8-5ec3-21ee-8a00-0242ac110002")],
                         ids=["v3", "v5", "v7", "v8b1", "v8b2", "v4", "v2"])
@pytest.mark.parametrize("fn", ["v1_to_v6", "v6_to_v1"])
def test_conversion_rejects_other_versions(fn, other):
    with pytest.raises(ValueError) as e:
        getattr(uuidkit, fn)(other)
    assert str(other.version) in str(e.value), "the message names the version"


@pytest.mark.parametrize("fn", ["v1_to_v6", "v6_to_v1"])
def test_conversion_rejects_nil_max_and_non_uuid(fn):
    f = getattr(uuidkit, fn)
    for u in (uuidkit.NIL, uuidkit.MAX):
        with pytest.raises(ValueError):
            f(u)
    for bad in (str(A1_V1), A1_V1.bytes, A1_V1.int, None):
        with pytest.raises(TypeError):
            f(bad)


# ---------------------------------------------------------------- v7 at a given time


@pytest.mark.parametrize("method", METHODS)
def test_uuid7_at_rfc_time(method):
    u = uuidkit.uuid7(method=method, time=RFC_TIME)
    assert type(u) is uuid.UUID and u.version == 7 and u.variant == uuid.RFC_4122
    assert unix_ms(u) == RFC_MS == unix_ms(A5_V7)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("t,ms", [
    (1645557742, RFC_MS),
    (1645557742.0, RFC_MS),
    (1645557742.25, RFC_MS + 250),
    (0, 0),
    (0.0009, 0),  # sub-millisecond truncated, not rounded
    (datetime(2022, 2, 22, 14, 22, 22, tzinfo=timezone(timedelta(hours=-5))), RFC_MS),
    (datetime(2022, 2, 22, 19, 22, 22, 999_999, tzinfo=timezone.utc), RFC_MS + 999),
    (datetime(1970, 1, 1, tzinfo=timezone.utc), 0),
    (2**48 // 1000 - 1, (2**48 // 1000 - 1) * 1000),
])
def test_uuid7_time_int_float_datetime(method, t, ms):
    u = uuidkit.uuid7(method=method, time=t)
    assert u.version == 7 and u.variant == uuid.RFC_4122
    assert unix_ms(u) == ms


def test_uuid7_time_default_method():
    assert unix_ms(uuidkit.uuid7(time=RFC_TIME)) == RFC_MS
    assert unix_ms(uuidkit.uuid7(time=1645557742)) == RFC_MS


@pytest.mark.parametrize("method", METHODS)
def test_uuid7_at_time_has_random_bits(method):
    # The same time many times: the non-time bits must still differ.
    us = [uuidkit.uuid7(method=method, time=RFC_TIME) for _ in range(500)]
    assert len(set(us)) == len(us)
    assert {unix_ms(u) for u in us} == {RFC_MS}


def test_uuid7_precision_at_time_stores_sub_millisecond():
    # Method 3 (RFC 9562 6.2): rand_a holds the fraction of the millisecond in 12 bits.
    for micro, rand_a in ((0, 0), (250, 1024), (500, 2048), (750, 3072)):
        t = RFC_TIME + timedelta(microseconds=micro)
        u = uuidkit.uuid7(method="precision", time=t)
        assert unix_ms(u) == RFC_MS
        assert (u.int >> 64) & 0xFFF == rand_a, micro


@pytest.mark.parametrize("method", METHODS)
def test_uuid7_now_is_now(method):
    before = time.time_ns() // 10**6
    us = [uuidkit.uuid7(method=method) for _ in range(1000)]
    after = time.time_ns() // 10**6
    assert before - 5000 <= unix_ms(us[0]) and unix_ms(us[-1]) <= after + 5000
    assert all(a < b for a, b in zip(us, us[1:]))


# ---------------------------------------------------------------- v8 layouts


def b1_ticks(u):
    """Appendix B.1's 60-bit timestamp (10 ns since the Unix epoch)."""
    return ((u.int >> 80) << 12) | ((u.int >> 64) & 0xFFF)


def test_b1_vector_layout_decodes():
    # Check the decoder against the RFC's own example before using it.
    assert b1_ticks(B1_V8) == 0x2489E9AD2EE2E00 == 164555774200000000
    assert b1_ticks(B1_V8) // 10**8 == RFC_MS // 1000


def test_uuid8_b1_time_based():
    before = time.time_ns() // 10
    us = [uuidkit.uuid8(layout="b1") for _ in range(2000)]
    after = time.time_ns() // 10
    for u in us:
        assert type(u) is uuid.UUID and u.version == 8 and u.variant == uuid.RFC_4122
    assert all(a < b for a, b in zip(us, us[1:])), "b1 strictly increasing"
    ticks = [b1_ticks(u) for u in us]
    assert before - 5 * 10**8 <= ticks[0] and ticks[-1] <= after + 5 * 10**8 + len(us)


def test_uuid8_b2_equals_rfc_vector():
    assert uuidkit.uuid8(layout="b2", namespace=uuidkit.NAMESPACE_DNS,
                         name="www.example.com") == B2_V8
    assert uuidkit.uuid8(layout="b2", namespace=uuid.NAMESPACE_DNS,
                         name=b"www.example.com") == B2_V8


def test_uuid8_b2_is_sha256_of_namespace_and_name():
    import hashlib

    rng = random.Random(82)
    for _ in range(300):
        ns = uuid.UUID(int=rng.getrandbits(128))
        name = "".join(chr(rng.randrange(32, 0x3000)) for _ in range(rng.randrange(0, 30)))
        h = int.from_bytes(hashlib.sha256(ns.bytes + name.encode()).digest()[:16], "big")
        h = (h & ~(0xF << 76) & ~(0x3 << 62)) | (8 << 76) | (0x2 << 62)
        assert uuidkit.uuid8(layout="b2", namespace=ns, name=name) == uuid.UUID(int=h)


DRAFT_LAYOUTS = ["draft-v7-ms", "draft-v7-us", "draft-v7-ns",
                 "draft-v8-32", "draft-v8-48", "draft-v8-60", "draft-v8-64"]


@pytest.mark.parametrize("layout", DRAFT_LAYOUTS)
def test_draft_layouts_version_and_order(layout):
    # Every draft layout is stamped version 8, as the command does: a draft-v7 layout is
    # not RFC 9562's v7, and a v7 reader would misread its time.
    version = 8
    us = [uuidkit.uuid8(layout=layout) for _ in range(3000)]
    for u in us:
        assert type(u) is uuid.UUID
        assert u.version == version and u.variant == uuid.RFC_4122, (layout, u)
    assert all(a < b for a, b in zip(us, us[1:])), f"{layout} must strictly increase"


@pytest.mark.parametrize("layout", DRAFT_LAYOUTS + ["b1"])
def test_layout_time_read_back_by_cli(layout, uuidkit_bin):
    # The CLI decodes each layout's time: what Python made must be "now" in that layout.
    before = datetime.now(timezone.utc)
    u = uuidkit.uuid8(layout=layout)
    after = datetime.now(timezone.utc)
    out = subprocess.run([str(uuidkit_bin), "inspect", "--json", "--layout", layout, str(u)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    t = datetime.strptime(d["time"][:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    assert before - timedelta(seconds=5) <= t <= after + timedelta(seconds=5), d["time"]
