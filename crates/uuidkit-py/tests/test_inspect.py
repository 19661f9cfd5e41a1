"""inspect(u) against the CLI: `uuidkit inspect --json` is the reference for the fields, their
order and their values (except "int", a decimal string in JSON and an int in Python)."""

import json
import random
import subprocess
import uuid

import pytest

import uuidkit


def with_version(i, version):
    """`i` with the RFC 9562 variant and the given version nibble."""
    i = (i & ~(0xF << 76) & ~(0x3 << 62)) | (version << 76) | (0x2 << 62)
    return uuid.UUID(int=i)


def sample_uuids():
    rng = random.Random(9562)
    us = [
        uuid.UUID(int=0),
        uuid.UUID(int=(1 << 128) - 1),
        uuid.UUID("C232AB00-9414-11EC-B3C8-9F6BDECED846"),  # RFC A.1 v1 (multicast node)
        uuid.UUID("000003e8-5ec3-21ee-8a00-0242ac110002"),  # v2, domain person
        uuid.UUID("000003e8-5ec3-21ee-8a01-0242ac110002"),  # v2, domain group
        uuid.UUID("000003e8-5ec3-21ee-8a07-0242ac110002"),  # v2, unnamed domain
        uuid.UUID("5df41881-3aed-3515-88a7-2f4a814cf09e"),  # v3
        uuid.UUID("919108f7-52d1-4320-9bac-f847db4148a8"),  # v4
        uuid.UUID("2ed6657d-e927-568b-95e1-2665a8aea6a2"),  # v5
        uuid.UUID("1EC9414C-232A-6B00-B3C8-9F6BDECED846"),  # v6
        uuid.UUID("017F22E2-79B0-7CC3-98C4-DC0C0C07398F"),  # v7
        uuid.UUID("ffffffff-ffff-7fff-bfff-ffffffffffff"),  # v7 at the end of its range
        uuid.UUID("2489E9AD-2EE2-8E00-8EC9-32D5F69181C0"),  # v8 B.1
        uuid.UUID("5c146b14-3c52-8afd-938a-375d0df1fbf6"),  # v8 B.2
        uuid.UUID("12345678-1234-1234-1234-123456789abc"),  # NCS variant
        uuid.UUID("12345678-1234-1234-c234-123456789abc"),  # Microsoft variant
        uuid.UUID("12345678-1234-9234-e234-123456789abc"),  # future variant
        uuid.UUID("00000000-0000-1000-8000-000000000000"),  # v1 at the Gregorian epoch
        uuid.UUID("00000000-0000-0000-8000-000000000000"),  # version 0, RFC variant
    ]
    # Every version nibble 0-15 in the RFC variant, from random bits.
    us += [with_version(rng.getrandbits(128), v) for v in range(16)]
    # What the generators make.
    us += [uuidkit.uuid1(), uuidkit.uuid1(node=0x0242AC110002, clock_seq=3),
           uuidkit.uuid3(uuidkit.NAMESPACE_URL, "x"), uuidkit.uuid4(),
           uuidkit.uuid5(uuidkit.NAMESPACE_OID, "y"), uuidkit.uuid6(),
           uuidkit.uuid6(node=1, clock_seq=2), uuidkit.uuid7(),
           uuidkit.uuid7(method="precision"), uuidkit.uuid8(1, 2, 3),
           uuidkit.uuid8(layout="b1")]
    # The other variants with random bits.
    for top in (0x0, 0x4, 0xC, 0xE):
        i = rng.getrandbits(128) & ~(0xF << 60) | (top << 60)
        us.append(uuid.UUID(int=i))
    return us


@pytest.fixture(scope="module")
def cli_json(uuidkit_bin):
    us = sample_uuids()
    out = subprocess.run([str(uuidkit_bin), "inspect", "--json", *map(str, us)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    assert len(lines) == len(us)
    return list(zip(us, (json.loads(line) for line in lines)))


def test_inspect_equals_cli_json(cli_json):
    for u, expected in cli_json:
        expected = dict(expected)
        expected["int"] = int(expected["int"])
        got = uuidkit.inspect(u)
        assert type(got) is dict
        assert got == expected, u
        assert list(got) == list(expected), f"key order for {u}"
        assert type(got["int"]) is int and got["int"] == u.int


def test_inspect_nested_fields_order(cli_json):
    for u, expected in cli_json:
        assert list(uuidkit.inspect(u)["fields"]) == list(expected["fields"])


def test_inspect_accepts_text_and_bytes(cli_json):
    for u, _ in cli_json:
        ref = uuidkit.inspect(u)
        assert uuidkit.inspect(str(u)) == ref
        assert uuidkit.inspect(str(u).upper().encode()) == ref
        assert uuidkit.inspect("urn:uuid:" + str(u)) == ref


def test_inspect_versions_agree_with_stdlib():
    # Independent of the CLI: the basic keys against uuid.UUID's own reading.
    variants = {uuid.RFC_4122: "rfc9562", uuid.RESERVED_NCS: "ncs",
                uuid.RESERVED_MICROSOFT: "microsoft", uuid.RESERVED_FUTURE: "future"}
    for u in sample_uuids():
        d = uuidkit.inspect(u)
        assert d["uuid"] == str(u)
        assert d["variant"] == variants[u.variant]
        assert d["version"] == u.version
        assert d["nil"] == (u.int == 0) and d["max"] == (u.int == (1 << 128) - 1)
        assert d["bytes_le"] == u.bytes_le.hex()
        if u.version in (1, 6):
            assert d["clock_seq"] == u.clock_seq and d["node"] == f"{u.node:012x}"


def test_inspect_bad_text_raises_parse_error():
    with pytest.raises(uuidkit.ParseError):
        uuidkit.inspect("{12345678123456781234567812345678}")
    with pytest.raises(TypeError):
        uuidkit.inspect(42)
