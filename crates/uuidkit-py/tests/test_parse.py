"""parse() and format(): the repository's malformed inputs with their byte positions, agreement
with uuid.UUID on well-formed text, strictness where uuid.UUID is lenient, and the 8 forms."""

import base64
import random
import uuid

import pytest

import uuidkit

H = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
U = uuid.UUID(H)

# Every malformed input of crates/uuidkit/src/text/tests.rs (rejects_malformed_with_position
# and error_messages_name_what_was_found), with the byte index the Rust tests expect.
MALFORMED = [
    ("", 0),
    (" " + H, 0),
    (H + " ", 36),
    (H + "\n", 36),
    ("f81d4fae-7dec-11d0-a765-00a0c91e6bf", 35),
    ("f81d4fae_7dec-11d0-a765-00a0c91e6bf6", 8),
    ("f81d4fae-7dec-11d0-a765-00a0c91e6bg6", 34),
    ("0xf81d4fae7dec11d0a76500a0c91e6bf6", 1),
    ("+f81d4fae7dec11d0a76500a0c91e6bf6", 0),
    ("-f81d4fae7dec11d0a76500a0c91e6bf", 0),
    ("f81d4fae7dec11d0a76500a0c91e6bf", 31),
    ("f81d4fae7dec11d0a76500a0c91e6bf6a", 32),
    ("{f81d4fae7dec11d0a76500a0c91e6bf6}", 9),
    ("{" + H, 37),
    ("{" + H + "}}", 38),
    ("{" + H + ")", 37),
    ("urn:uuid:{" + H + "}", 9),
    ("urn:uid:" + H, 5),
    ("urn:uuid:", 9),
    ("u", 1),
    ("f81d4fae-7dec-11d0-a765-00a0c91e6bf\u00e9", 35),
    ("f81d4fae-7dec-11d0-a765-00a0c91e6bf\uff16", 35),
    ("f81d4fae-7dec-11d0-a765-00a0c91e_bf6", 32),
    ("f81d4fae-7dec-11d0-a76500a0c91e6bf6", 23),
    ("f81d-4fae-7dec-11d0-a765-00a0c91e6bf6", 4),
    ("{}", 1),
    ("f81d4fae 7dec-11d0-a765-00a0c91e6bf6", 8),
]

# The exact messages the Rust tests pin; the Python message must carry them.
RUST_MESSAGES = {
    "f81d4fae-7dec-11d0-a765-00a0c91e6bf\u00e9":
        "at byte 35: expected a hex digit (0-9, a-f, A-F), found the non-ASCII byte 0xc3",
    "f81d4fae 7dec-11d0-a765-00a0c91e6bf6":
        "at byte 8: expected a hyphen '-', found a space",
}


def test_parse_error_is_value_error():
    assert issubclass(uuidkit.ParseError, ValueError)


@pytest.mark.parametrize("text,pos", MALFORMED, ids=[repr(t) for t, _ in MALFORMED])
def test_malformed_position_and_message(text, pos):
    with pytest.raises(uuidkit.ParseError) as e:
        uuidkit.parse(text)
    assert e.value.position == pos
    assert type(e.value.position) is int
    assert f"at byte {pos}" in str(e.value)
    assert e.value.text == text
    if text in RUST_MESSAGES:
        assert RUST_MESSAGES[text] in str(e.value)


@pytest.mark.parametrize("text,pos", MALFORMED, ids=[repr(t) for t, _ in MALFORMED])
def test_malformed_bytes_input_same_position(text, pos):
    raw = text.encode("utf-8")
    with pytest.raises(uuidkit.ParseError) as e:
        uuidkit.parse(raw)
    assert e.value.position == pos
    assert f"at byte {pos}" in str(e.value)
    assert e.value.text == raw


def test_parse_error_caught_as_value_error():
    with pytest.raises(ValueError):
        uuidkit.parse("nope")


def test_non_utf8_bytes():
    with pytest.raises(uuidkit.ParseError) as e:
        uuidkit.parse(b"\xff" * 36)
    assert e.value.position == 0
    bad = H[:10].encode() + b"\x80" + H[11:].encode()
    with pytest.raises(uuidkit.ParseError) as e:
        uuidkit.parse(bad)
    assert e.value.position == 10


def mixed_case(s, rng):
    return "".join(c.upper() if rng.random() < 0.5 else c for c in s)


def hex_texts(u, rng):
    """(texts uuid.UUID reads too, texts only the strict grammar reads) for u."""
    h = str(u)
    texts = [h, u.hex, "{" + h + "}", "urn:uuid:" + h]
    texts += [t.upper() for t in texts[:3]] + ["urn:uuid:" + h.upper()]
    texts += [mixed_case(t, rng) for t in texts[:3]]
    texts.append("urn:uuid:" + mixed_case(h, rng))
    # uuid.UUID strips only a lowercase "urn:uuid:"; the contract takes it in any case.
    only_strict = [p + h for p in ("URN:UUID:", "Urn:Uuid:", "uRn:uUiD:")]
    only_strict.append(mixed_case("urn:uuid:" + h, rng).replace("urn", "URN", 1))
    return texts, only_strict


def test_well_formed_agree_with_stdlib():
    rng = random.Random(1)
    ints = [0, (1 << 128) - 1, U.int] + [rng.getrandbits(128) for _ in range(3000)]
    for i in ints:
        u = uuid.UUID(int=i)
        texts, only_strict = hex_texts(u, rng)
        for t in texts:
            got = uuidkit.parse(t)
            assert type(got) is uuid.UUID
            assert got == uuid.UUID(t) == u, t
            assert uuidkit.parse(t.encode("ascii")) == u, t
        for t in only_strict:
            assert uuidkit.parse(t) == u, t
            assert uuidkit.parse(t.encode("ascii")) == u, t


def test_parse_result_is_plain_stdlib_uuid():
    u = uuidkit.parse(H)
    assert type(u) is uuid.UUID and u.is_safe is uuid.SafeUUID.unknown
    assert hash(u) == hash(U)


# Texts uuid.UUID accepts (it strips "urn:", "uuid:", braces and every hyphen, and int()
# takes '+', '_' and non-ASCII digits) but the strict grammar rejects.
LENIENT = [
    "{12345678123456781234567812345678}",
    "urn:uuid:12345678123456781234567812345678",
    "urn:uuid:" + U.hex,
    "uuid:" + H,
    "urn:" + H,
    "{" + H,
    H + "}",
    "{{" + H + "}}",
    "f81d-4fae-7dec-11d0-a765-00a0c91e6bf6",
    "f81d4fae7dec11d0a76500a0c91e6bf6----",
    "-f81d4fae7dec11d0a76500a0c91e6bf6",
    "f81d4fae-7dec-11d0-a765-00a0c91e6bf\uff16",
    "+f81d4fae7dec11d0a76500a0c91e6bf",
    "f81d_fae7dec11d0a76500a0c91e6bf6",
    "urn:uuid:{" + H + "}",
]


@pytest.mark.parametrize("text", LENIENT)
def test_stricter_than_stdlib(text):
    uuid.UUID(text)  # the standard library accepts it (else this case proves nothing)
    with pytest.raises(uuidkit.ParseError) as e:
        uuidkit.parse(text)
    assert f"at byte {e.value.position}" in str(e.value)


# ---------------------------------------------------------------- the 8 forms

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def encode_fixed(i, alphabet, width):
    out = []
    for _ in range(width):
        i, r = divmod(i, len(alphabet))
        out.append(alphabet[r])
    assert i == 0
    return "".join(reversed(out))


def ref_format(u, form, upper=False):
    h = str(u).upper() if upper else str(u)
    return {
        "hyphenated": h,
        "simple": h.replace("-", ""),
        "braced": "{" + h + "}",
        "urn": "urn:uuid:" + h,
        "base32": encode_fixed(u.int, CROCKFORD, 26),
        "base58": encode_fixed(u.int, BASE58, 22),
        "base62": encode_fixed(u.int, BASE62, 22),
        "base64url": base64.urlsafe_b64encode(u.bytes).decode().rstrip("="),
    }[form]


FORMS = ["hyphenated", "simple", "braced", "urn", "base32", "base58", "base62", "base64url"]
LENGTHS = dict(hyphenated=36, simple=32, braced=38, urn=45, base32=26, base58=22, base62=22,
               base64url=22)


def test_reference_encoders_match_cli_outputs():
    # Pinned from `uuidkit format --to FORM` so the references themselves are checked.
    a5 = uuid.UUID("017f22e2-79b0-7cc3-98c4-dc0c0c07398f")
    mx = uuid.UUID(int=(1 << 128) - 1)
    assert ref_format(a5, "base32") == "01FWHE4YDGFK1SHH6W1G60EECF"
    assert ref_format(a5, "base58") == "1BihbxwwQ4NZZpKRH9JDCz"
    assert ref_format(a5, "base62") == "02p5oQZoHTv0zeY5yG21K3"
    assert ref_format(a5, "base64url") == "AX8i4nmwfMOYxNwMDAc5jw"
    assert ref_format(mx, "base32") == "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
    assert ref_format(mx, "base58") == "YcVfxkQb6JRzqk5kF2tNLv"
    assert ref_format(mx, "base62") == "7n42DGM5Tflk9n8mt7Fhc7"
    assert ref_format(mx, "base64url") == "_____________________w"


@pytest.mark.parametrize("form", FORMS)
def test_format_parse_round_trip(form):
    rng = random.Random(form)
    ints = [0, 1, (1 << 128) - 1, U.int] + [rng.getrandbits(128) for _ in range(2000)]
    for i in ints:
        u = uuid.UUID(int=i)
        text = uuidkit.format(u, form)
        assert type(text) is str
        assert text == ref_format(u, form), (form, u)
        assert len(text) == LENGTHS[form]
        back = uuidkit.parse(text, form)
        assert type(back) is uuid.UUID and back == u
        assert uuidkit.parse(text.encode(), form) == u
        if form in ("hyphenated", "simple", "braced", "urn"):
            assert uuidkit.parse(text) == u


def test_format_default_is_hyphenated():
    for u in (U, uuidkit.uuid4(), uuidkit.uuid7()):
        assert uuidkit.format(u) == str(u)
        assert uuidkit.format(u, upper=True) == str(u).upper()


@pytest.mark.parametrize("form", ["hyphenated", "simple", "braced", "urn"])
def test_format_upper(form):
    rng = random.Random(7)
    for _ in range(200):
        u = uuid.UUID(int=rng.getrandbits(128))
        up = uuidkit.format(u, form, upper=True)
        assert up == ref_format(u, form, upper=True)
        if form == "urn":
            assert up.startswith("urn:uuid:")  # the prefix stays lowercase
        assert uuidkit.parse(up, form) == u
        assert uuidkit.format(u, form, upper=False) == ref_format(u, form)


@pytest.mark.parametrize("form", ["base32", "base58", "base62", "base64url"])
def test_format_upper_with_base_form_is_value_error(form):
    with pytest.raises(ValueError) as e:
        uuidkit.format(U, form, upper=True)
    assert "upper" in str(e.value)


def test_hex_form_mismatch_raises():
    texts = {f: ref_format(U, f) for f in FORMS}
    for form in ("hyphenated", "simple", "braced", "urn"):
        for other in FORMS:
            if other == form:
                continue
            with pytest.raises(uuidkit.ParseError) as e:
                uuidkit.parse(texts[other], form)
            assert f"at byte {e.value.position}" in str(e.value), (form, other)


@pytest.mark.parametrize("form", ["base32", "base58", "base62", "base64url"])
def test_base_form_rejects_hex_and_wrong_length(form):
    for other in ("hyphenated", "simple", "braced", "urn"):
        with pytest.raises(uuidkit.ParseError):
            uuidkit.parse(ref_format(U, other), form)
    text = ref_format(U, form)
    for bad in (text[:-1], text + text[-1], ""):
        with pytest.raises(uuidkit.ParseError):
            uuidkit.parse(bad, form)


def test_base_texts_are_not_hex_forms():
    # form=None reads only the four hex forms.
    for form in ("base32", "base58", "base62", "base64url"):
        with pytest.raises(uuidkit.ParseError):
            uuidkit.parse(ref_format(U, form))


def test_base_forms_reject_foreign_characters_and_overflow():
    cases = [
        ("base32", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ"),  # > 2**128
        ("base32", "0000000000000000000000000U"),  # U is not Crockford
        ("base58", "zzzzzzzzzzzzzzzzzzzzzz"),  # > 2**128
        ("base58", "0" * 22),  # 0 is not base58
        ("base58", "1111111111111111111O11"),  # nor O
        ("base62", "zzzzzzzzzzzzzzzzzzzzzz"),  # > 2**128
        ("base62", "000000000000000000000-"),
        ("base64url", "AAAAAAAAAAAAAAAAAAAAA+"),  # standard base64, not url-safe
        ("base64url", "AAAAAAAAAAAAAAAAAAAAA="),
    ]
    for form, text in cases:
        with pytest.raises(uuidkit.ParseError):
            uuidkit.parse(text, form)
