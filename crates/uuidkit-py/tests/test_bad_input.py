"""Bad arguments: the stdlib's functions fail as CPython 3.14's uuid does (checked against this
Python's uuid where it behaves the same), uuidkit's own functions as the contract says."""

import json
import re
import uuid
from datetime import datetime, timezone

import pytest

import uuidkit

H = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"


def raises_like_stdlib(exc, kit_call, std_call):
    """Both raise `exc` (the stdlib call proves which type CPython uses)."""
    with pytest.raises(exc):
        std_call()
    with pytest.raises(exc):
        kit_call()


# ---------------------------------------------------------------- uuid3 / uuid5


@pytest.mark.parametrize("fn", ["uuid3", "uuid5"])
@pytest.mark.parametrize("name", [42, None, 1.5, ["a"]])
def test_name_of_wrong_type_is_type_error(fn, name):
    raises_like_stdlib(TypeError,
                       lambda: getattr(uuidkit, fn)(uuidkit.NAMESPACE_DNS, name),
                       lambda: getattr(uuid, fn)(uuid.NAMESPACE_DNS, name))


@pytest.mark.parametrize("fn", ["uuid3", "uuid5"])
@pytest.mark.parametrize("ns", [42, None, "6ba7b810-9dad-11d1-80b4-00c04fd430c8"])
def test_namespace_without_bytes_is_attribute_error(fn, ns):
    raises_like_stdlib(AttributeError,
                       lambda: getattr(uuidkit, fn)(ns, "x"),
                       lambda: getattr(uuid, fn)(ns, "x"))


@pytest.mark.parametrize("fn", ["uuid3", "uuid5"])
def test_namespace_bytes_not_16_is_type_error(fn):
    class Short:
        bytes = b"\x00" * 15

    class NotBytes:
        bytes = 12

    for ns in (Short(), NotBytes()):
        with pytest.raises(TypeError) as e:
            getattr(uuidkit, fn)(ns, "x")
        assert "namespace" in str(e.value)


def cpython_314(fn, ns, name):
    """What CPython 3.14's uuid3/uuid5 compute: the hash of `ns.bytes + name`."""
    import hashlib
    h = (hashlib.md5 if fn == "uuid3" else hashlib.sha1)(ns.bytes + name).digest()
    return uuid.UUID(bytes=h[:16], version=3 if fn == "uuid3" else 5)


@pytest.mark.parametrize("fn", ["uuid3", "uuid5"])
def test_name_may_be_any_buffer(fn):
    # CPython 3.14 hashes `namespace.bytes + name`, which takes any C-contiguous buffer.
    import array
    ns = uuidkit.NAMESPACE_DNS
    for name in (array.array("B", b"x"), array.array("i", [1, 2, 3]), memoryview(b"abc"),
                 memoryview(array.array("H", [7, 8])), b"", bytearray(b"yz")):
        assert getattr(uuidkit, fn)(ns, name) == cpython_314(fn, ns, name), name
    # A buffer that is not C-contiguous is refused by that `+`, a TypeError.
    strided = memoryview(b"abcdef")[::2]
    with pytest.raises(TypeError):
        ns.bytes + strided
    with pytest.raises(TypeError) as e:
        getattr(uuidkit, fn)(ns, strided)
    assert "name" in str(e.value)


@pytest.mark.parametrize("fn", ["uuid3", "uuid5"])
def test_namespace_bytes_as_a_list_or_tuple_is_type_error(fn):
    # CPython: `[...] + b"x"` is a TypeError; a bytearray of 16 is taken as bytes.
    class Listed:
        bytes = list(uuidkit.NAMESPACE_DNS.bytes)

    class Tupled:
        bytes = tuple(uuidkit.NAMESPACE_DNS.bytes)

    class Mutable:
        bytes = bytearray(uuidkit.NAMESPACE_DNS.bytes)

    for ns in (Listed(), Tupled()):
        with pytest.raises(TypeError) as e:
            getattr(uuidkit, fn)(ns, "x")
        assert "namespace" in str(e.value)
    assert getattr(uuidkit, fn)(Mutable(), "x") == getattr(uuid, fn)(uuidkit.NAMESPACE_DNS, "x")


# ---------------------------------------------------------------- uuid1 / uuid6


@pytest.mark.parametrize("node", [2**48, -1, 2**64, -(2**48)])
def test_uuid1_node_out_of_range_is_value_error(node):
    raises_like_stdlib(ValueError, lambda: uuidkit.uuid1(node=node),
                       lambda: uuid.uuid1(node=node))


@pytest.mark.parametrize("kw", [dict(node=1.5), dict(node="1"), dict(clock_seq=1.5),
                                dict(clock_seq="1"), dict(node=1, clock_seq=b"1")])
def test_uuid1_non_integer_is_type_error(kw):
    raises_like_stdlib(TypeError, lambda: uuidkit.uuid1(**kw), lambda: uuid.uuid1(**kw))


@pytest.mark.parametrize("cs", [2**14, 2**20, 2**20 + 0x1234, 2**100 + 7, -1])
def test_uuid1_clock_seq_masked_like_stdlib(cs):
    u = uuidkit.uuid1(node=0x123, clock_seq=cs)
    s = uuid.uuid1(node=0x123, clock_seq=cs)
    assert u.clock_seq == s.clock_seq
    assert u.version == 1 and u.node == 0x123


def test_uuid1_takes_what_cpython_takes():
    # bool is an int (CPython takes it); an object with only __index__ is refused by
    # CPython's `&` and `<=`, so here too.
    assert uuidkit.uuid1(node=True, clock_seq=False).node == 1

    class Index:
        def __index__(self):
            return 0x42

    for kwargs in ({"node": Index()}, {"clock_seq": Index()}):
        with pytest.raises(TypeError):
            uuid.uuid1(**kwargs)
        with pytest.raises(TypeError):
            uuidkit.uuid1(**kwargs)


@pytest.mark.parametrize("node,expect", [(2**48, 0), (2**48 + 9, 9), (-1, 2**48 - 1)])
def test_uuid6_node_masked(node, expect):
    u = uuidkit.uuid6(node=node, clock_seq=1)
    assert u.node == expect and u.version == 6


@pytest.mark.parametrize("kw", [dict(node=1.5), dict(node="1"), dict(clock_seq=2.0),
                                dict(clock_seq="1")])
def test_uuid6_non_integer_is_type_error(kw):
    with pytest.raises(TypeError):
        uuidkit.uuid6(**kw)


# ---------------------------------------------------------------- uuid8


def test_uuid8_masks_out_of_range():
    u = uuidkit.uuid8(2**48 + 5, 2**12 + 6, 2**62 + 7)
    assert (u.int >> 80, (u.int >> 64) & 0xFFF, u.int & (2**62 - 1)) == (5, 6, 7)
    u = uuidkit.uuid8(-1, -1, -1)
    assert u == uuid.UUID("ffffffff-ffff-8fff-bfff-ffffffffffff")


@pytest.mark.parametrize("args", [(1.5, 0, 0), ("1", 0, 0), (0, 0, 2.0)])
def test_uuid8_non_integer_is_type_error(args):
    with pytest.raises(TypeError):
        uuidkit.uuid8(*args)


def test_uuid8_layout_errors():
    with pytest.raises(ValueError) as e:
        uuidkit.uuid8(layout="nope")
    assert "layout" in str(e.value)
    with pytest.raises(TypeError):
        uuidkit.uuid8(1, layout="b1")
    with pytest.raises(TypeError):
        uuidkit.uuid8(c=1, layout="draft-v8-32")
    with pytest.raises(TypeError):
        uuidkit.uuid8(namespace=uuidkit.NAMESPACE_DNS, name="x")
    with pytest.raises(TypeError):
        uuidkit.uuid8(layout="b1", namespace=uuidkit.NAMESPACE_DNS, name="x")
    with pytest.raises((TypeError, ValueError)):
        uuidkit.uuid8(layout="b2")  # needs namespace and name
    with pytest.raises(TypeError):
        uuidkit.uuid8(layout=1)


# ---------------------------------------------------------------- uuid7


def test_uuid7_method_errors():
    with pytest.raises(ValueError) as e:
        uuidkit.uuid7(method="nope")
    assert "method" in str(e.value)
    with pytest.raises(TypeError):
        uuidkit.uuid7(method=1)
    with pytest.raises(TypeError):
        uuidkit.uuid7("counter")  # keyword-only


@pytest.mark.parametrize("t", [
    datetime(2022, 2, 22, 19, 22, 22),  # naive
    datetime(1969, 12, 31, 23, 59, 59, tzinfo=timezone.utc),
    -1,
    -0.5,
    2**48 // 1000 + 1,  # past v7's 48-bit millisecond range
    float(2**48),
])
def test_uuid7_time_out_of_range_is_value_error(t):
    with pytest.raises(ValueError) as e:
        uuidkit.uuid7(time=t)
    assert "time" in str(e.value)


@pytest.mark.parametrize("t", ["2022-02-22", b"1", [1], datetime(2022, 1, 1).date()])
def test_uuid7_time_of_wrong_type_is_type_error(t):
    with pytest.raises(TypeError):
        uuidkit.uuid7(time=t)


# ---------------------------------------------------------------- batches


@pytest.mark.parametrize("fn", ["uuid7_many", "uuid4_many", "uuid7_bytes", "uuid4_bytes"])
def test_batch_negative_and_non_int(fn):
    f = getattr(uuidkit, fn)
    with pytest.raises(ValueError) as e:
        f(-1)
    assert re.search(r"\bn\b", str(e.value)), f"message does not name n: {e.value}"
    for bad in ("3", 3.0, None):
        with pytest.raises(TypeError):
            f(bad)


# Huge batches run in a child: an abort (a panic or a failed allocation in Rust) must show as
# a test failure, not kill the test session.
HUGE = r"""
import json, sys, uuidkit
out = []
for fn, n in json.loads(sys.argv[1]):
    try:
        getattr(uuidkit, fn)(n)
        out.append([fn, n, None])
    except BaseException as e:
        out.append([fn, n, type(e).__name__])
print(json.dumps(out))
"""


def run_huge(py, calls):
    proc = py(HUGE, args=(json.dumps(calls),), check=False, timeout=60)
    assert proc.returncode == 0, f"crashed (exit {proc.returncode}): {proc.stderr[-2000:]}"
    return json.loads(proc.stdout)


def test_batch_huge_n_fails_cleanly(py):
    calls = [["uuid7_many", 2**60], ["uuid4_bytes", 2**60], ["uuid4_many", 2**62],
             ["uuid7_bytes", 2**60], ["uuid4_many", 2**60]]
    wrong = [r for r in run_huge(py, calls) if r[2] not in ("MemoryError", "ValueError")]
    assert not wrong, f"[fn, n, exception raised]: {wrong}"


def test_batch_n_past_64_bits(py):
    # n does not fit a 64-bit size at all: Python's usual OverflowError (or ValueError).
    calls = [["uuid7_many", 2**64], ["uuid4_many", 2**64], ["uuid7_bytes", 2**64],
             ["uuid4_bytes", 2**100]]
    wrong = [r for r in run_huge(py, calls) if r[2] not in ("OverflowError", "ValueError")]
    assert not wrong, f"[fn, n, exception raised]: {wrong}"


# ---------------------------------------------------------------- parse / format / convert


def test_parse_bad_types_and_form():
    for bad in (42, None, 1.5, uuid.UUID(H)):
        with pytest.raises(TypeError) as e:
            uuidkit.parse(bad)
        assert "text" in str(e.value)
    with pytest.raises(ValueError) as e:
        uuidkit.parse("x", form="nope")
    assert "form" in str(e.value)
    with pytest.raises(ValueError) as e:
        uuidkit.parse(H, form="nope")  # valid text: the form alone is wrong
    assert "form" in str(e.value)
    with pytest.raises(TypeError):
        uuidkit.parse(H, form=1)


def test_format_bad_arguments():
    for bad in (42, H, None, uuid.UUID(H).bytes):
        with pytest.raises(TypeError):
            uuidkit.format(bad)
    with pytest.raises(ValueError) as e:
        uuidkit.format(uuid.UUID(H), "nope")
    assert "form" in str(e.value)
    with pytest.raises(TypeError):
        uuidkit.format(uuid.UUID(H), 1)


def test_convert_bad_arguments():
    with pytest.raises(ValueError):
        uuidkit.v1_to_v6(uuidkit.uuid4())
    with pytest.raises(ValueError):
        uuidkit.v6_to_v1(uuidkit.uuid7())
    with pytest.raises(TypeError):
        uuidkit.v1_to_v6(H)


def test_inspect_bad_type():
    for bad in (42, None, 1.5):
        with pytest.raises(TypeError):
            uuidkit.inspect(bad)
