"""The text of a new UUID (src/fresh.rs): uuid1_str … uuid8_str, uuid4_str_many and
uuid7_str_many. Each writes the UUID that the call it is named after makes without
arguments (the same process-wide generators, state file or daemon, and errors), in every
form `format` writes, with `upper` taken and refused as `format` takes and refuses it."""

import json
import re
import threading
import uuid

import pytest

import uuidkit

from conftest import run_at_once

SINGLE = {1: uuidkit.uuid1_str, 4: uuidkit.uuid4_str, 6: uuidkit.uuid6_str,
          7: uuidkit.uuid7_str, 8: uuidkit.uuid8_str}
MANY = {4: uuidkit.uuid4_str_many, 7: uuidkit.uuid7_str_many}
HEX = ("hyphenated", "simple", "braced", "urn")
COMPACT = ("base32", "base58", "base62", "base64url")
LENGTH = {"hyphenated": 36, "simple": 32, "braced": 38, "urn": 45,
          "base32": 26, "base58": 22, "base62": 22, "base64url": 22}
ALL_FUNCS = [*SINGLE.values(), *MANY.values()]


def call(f, *args, **kw):
    """One text from a single call, or the first of a batch of 3."""
    if f in MANY.values():
        return f(3, *args, **kw)[0]
    return f(*args, **kw)


def check_text(text, version, form, upper=False):
    assert type(text) is str and len(text) == LENGTH[form], (form, text)
    u = uuidkit.parse(text, form=form)
    assert u.version == version and u.variant == uuid.RFC_4122, (form, text)
    # The text is exactly what format writes of that UUID.
    assert uuidkit.format(u, form, upper=upper) == text
    if form in HEX:
        assert uuid.UUID(text) == u
        digits = text[9:] if form == "urn" else text
        assert digits == (digits.upper() if upper else digits.lower())
        if form == "urn":
            assert text.startswith("urn:uuid:")  # the prefix stays lowercase
    return u


def test_every_form_is_tested():
    assert set(uuidkit.FORMS) == set(HEX) | set(COMPACT)


@pytest.mark.parametrize("form", HEX + COMPACT)
@pytest.mark.parametrize("version", sorted(SINGLE))
def test_single_every_form_round_trips(version, form):
    for _ in range(20):
        check_text(SINGLE[version](form), version, form)
        check_text(SINGLE[version](form=form), version, form)


@pytest.mark.parametrize("form", HEX + COMPACT)
@pytest.mark.parametrize("version", sorted(MANY))
def test_many_every_form_round_trips(version, form):
    texts = MANY[version](50, form)
    assert type(texts) is list and len(texts) == 50
    for t in texts:
        check_text(t, version, form)
    assert len(set(texts)) == 50


@pytest.mark.parametrize("f", ALL_FUNCS, ids=lambda f: f.__name__)
def test_default_form_is_hyphenated_as_str_of_the_uuid(f):
    for text in (call(f), call(f, None), call(f, form=None)):
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", text)
        assert str(uuid.UUID(text)) == text


@pytest.mark.parametrize("form", HEX)
@pytest.mark.parametrize("f", ALL_FUNCS, ids=lambda f: f.__name__)
def test_upper_for_the_hex_forms(f, form):
    version = int(f.__name__[4])
    check_text(call(f, form, upper=True), version, form, upper=True)
    check_text(call(f, form, upper=False), version, form, upper=False)


@pytest.mark.parametrize("form", COMPACT)
@pytest.mark.parametrize("f", ALL_FUNCS, ids=lambda f: f.__name__)
def test_upper_refused_for_the_compact_forms_as_format_refuses_it(f, form):
    with pytest.raises(ValueError) as ours:
        call(f, form, upper=True)
    with pytest.raises(ValueError) as theirs:
        uuidkit.format(uuidkit.NIL, form, upper=True)
    assert str(ours.value) == str(theirs.value).replace("format()", f"{f.__name__}()")
    assert "'upper'" in str(ours.value) and form in str(ours.value)
    # upper=False is the one spelling there is.
    check_text(call(f, form, upper=False), int(f.__name__[4]), form)


@pytest.mark.parametrize("f", ALL_FUNCS, ids=lambda f: f.__name__)
def test_upper_must_be_a_bool_as_for_format(f):
    for bad in (1, "yes", None):
        with pytest.raises(TypeError):
            uuidkit.format(uuidkit.NIL, upper=bad)
        with pytest.raises(TypeError):
            call(f, upper=bad)


@pytest.mark.parametrize("f", ALL_FUNCS, ids=lambda f: f.__name__)
def test_bad_form(f):
    for bad in ("base16", "HYPHENATED", "", "hyphenated "):
        with pytest.raises(ValueError) as e:
            call(f, bad)
        msg = str(e.value)
        assert f"{f.__name__}() argument 'form'" in msg and repr(bad).strip("'") in msg, msg
        assert "hyphenated, simple" in msg  # the accepted forms are listed
    for bad in (1, b"simple", uuid.UUID):
        with pytest.raises(TypeError) as e:
            call(f, bad)
        assert "'form'" in str(e.value)


@pytest.mark.parametrize("f", ALL_FUNCS, ids=lambda f: f.__name__)
def test_unknown_and_extra_arguments(f):
    with pytest.raises(TypeError):
        call(f, case="upper")
    with pytest.raises(TypeError):
        call(f, "simple", True)  # upper is keyword-only


def test_uuid7_str_in_the_one_order_of_uuid7():
    # uuid7_str, uuid7, uuid7_many, uuid7_str_many, uuid7_bytes: one strictly increasing
    # sequence, whatever the form of the text.
    seq = []
    for i in range(2000):
        form = uuidkit.FORMS[i % len(uuidkit.FORMS)]
        seq.append(uuidkit.parse(uuidkit.uuid7_str(form), form=form).int)
        seq.append(uuidkit.uuid7().int)
        if i % 100 == 0:
            seq.extend(uuidkit.parse(t, form=form).int for t in uuidkit.uuid7_str_many(5, form))
            seq.extend(u.int for u in uuidkit.uuid7_many(5))
            b = uuidkit.uuid7_bytes(2)
            seq.extend(int.from_bytes(b[k:k + 16], "big") for k in (0, 16))
    assert all(a < b for a, b in zip(seq, seq[1:]))


def test_uuid7_str_hex_texts_sort_as_their_values():
    texts = [uuidkit.uuid7_str() for _ in range(1000)] + uuidkit.uuid7_str_many(1000)
    assert texts == sorted(texts) and len(set(texts)) == 2000


def test_uuid7_str_across_threads():
    # As uuid7(): from any number of threads, distinct and each thread's increasing.
    out = {}

    def work(k):
        out[k] = [int(uuidkit.uuid7_str("simple"), 16) if i % 2 else uuidkit.uuid7().int
                  for i in range(20_000)]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for vals in out.values():
        assert all(a < b for a, b in zip(vals, vals[1:]))
    assert len({v for vals in out.values() for v in vals}) == 80_000


@pytest.mark.parametrize("version", [1, 6])
def test_uuid1_and_uuid6_str_share_their_generator(version):
    # The process-wide v1/v6 generator: timestamps strictly increase across both calls
    # (v6 sorts by its timestamp; uuid.UUID.time reads v1's layout before CPython 3.14).
    obj = getattr(uuidkit, f"uuid{version}")
    times = []
    for i in range(2000):
        u = obj() if i % 2 else uuidkit.parse(SINGLE[version]())
        times.append(u.time if version == 1 else u.int)
    assert all(a < b for a, b in zip(times, times[1:]))
    # The same node and clock sequence as uuid1()/uuid6() without arguments.
    a, b = obj(), uuidkit.parse(SINGLE[version]())
    assert (a.node, a.clock_seq) == (b.node, b.clock_seq)


def test_uuid8_str_is_cpythons_layout_random():
    texts = [uuidkit.uuid8_str("simple") for _ in range(2000)]
    assert len(set(texts)) == 2000
    # a, b and c random: every field varies.
    for sl in (slice(0, 12), slice(13, 16), slice(17, 32)):
        assert len({t[sl] for t in texts}) > 1000


@pytest.mark.parametrize("version", sorted(MANY))
def test_many_length_and_order(version):
    f = MANY[version]
    assert f(0) == [] and f(0, "base58") == []
    for n in (1, 2, 1023, 1024, 1025, 3000):
        texts = f(n, "simple")
        assert len(texts) == n and len(set(texts)) == n
    if version == 7:
        before = uuidkit.uuid7()
        vals = [int(t, 16) for t in f(5000, "simple")]
        after = uuidkit.uuid7()
        assert before.int < vals[0] and vals[-1] < after.int
        assert all(a < b for a, b in zip(vals, vals[1:]))


@pytest.mark.parametrize("f", MANY.values(), ids=lambda f: f.__name__)
def test_many_n_errors_as_for_uuid7_many(f):
    with pytest.raises(ValueError) as e:
        f(-1)
    assert re.search(r"\bn\b", str(e.value)) and f.__name__ in str(e.value), str(e.value)
    for bad in ("3", 3.0, None, True):
        with pytest.raises(TypeError) as e:
            f(bad)
        with pytest.raises(TypeError):
            uuidkit.uuid7_many(bad)
        assert "'n'" in str(e.value)
    # n is read before form.
    with pytest.raises(ValueError) as e:
        f(-1, "bogus")
    assert "'n'" in str(e.value)
    with pytest.raises(TypeError):
        f()


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


def test_many_huge_n_fails_cleanly(py):
    # As for uuid7_many: MemoryError (or ValueError) before anything is made; past 64 bits
    # OverflowError or ValueError; never a crash.
    calls = [[fn, n] for fn in ("uuid7_str_many", "uuid4_str_many", "uuid7_many")
             for n in (2**60, 2**62, 2**63 - 1)]
    wrong = [r for r in run_huge(py, calls) if r[2] not in ("MemoryError", "ValueError")]
    assert not wrong, f"[fn, n, exception raised]: {wrong}"
    calls = [[fn, n] for fn in ("uuid7_str_many", "uuid4_str_many") for n in (2**64, 2**100)]
    wrong = [r for r in run_huge(py, calls) if r[2] not in ("OverflowError", "ValueError")]
    assert not wrong, f"[fn, n, exception raised]: {wrong}"


# ---------------------------------------------------------------- the state, as the calls named

REPORT = r"""
import json, sys, uuidkit
def attempt(f, *a):
    try:
        f(*a)
        return None
    except Exception as e:
        return [type(e).__name__, str(e)]
"""


def test_a_daemon_that_failed_refuses_the_time_based_texts(py, short_tmp):
    sock = short_tmp / "missing.sock"
    code = REPORT + r"""
print(json.dumps({f: attempt(getattr(uuidkit, f), *a) for f, a in [
    ("uuid7", ()), ("uuid7_str", ()), ("uuid1_str", ()), ("uuid6_str", ()),
    ("uuid7_str_many", (3,)), ("uuid4_str", ()), ("uuid8_str", ()), ("uuid4_str_many", (3,))]}))
"""
    res = json.loads(py(code, env={"UUIDKIT_DAEMON": str(sock)}).stdout)
    for f in ("uuid7", "uuid7_str", "uuid1_str", "uuid6_str", "uuid7_str_many"):
        assert res[f] is not None and res[f][0] in ("OSError", "FileNotFoundError",
                                                    "ConnectionRefusedError"), (f, res[f])
        assert str(sock) in res[f][1], (f, res[f])
    # The random ones do not need it.
    for f in ("uuid4_str", "uuid8_str", "uuid4_str_many"):
        assert res[f] is None, (f, res[f])


def test_arguments_are_read_before_the_daemon_is_asked(py, short_tmp):
    code = REPORT + r"""
print(json.dumps([attempt(uuidkit.uuid7_str, "bogus"), attempt(uuidkit.uuid7_str_many, -1),
                  attempt(uuidkit.uuid7_str_many, 2, "base58x")]))
"""
    res = json.loads(py(code, env={"UUIDKIT_DAEMON": str(short_tmp / "none.sock")}).stdout)
    assert [r[0] for r in res] == ["ValueError"] * 3, res


def test_a_malformed_uuidkit_node_refuses_uuid1_str_and_uuid6_str(py):
    code = REPORT + r"""
print(json.dumps([attempt(uuidkit.uuid1), attempt(uuidkit.uuid1_str), attempt(uuidkit.uuid6_str),
                  uuidkit.uuid7_str()[14]]))
"""
    v1, v1s, v6s, v7 = json.loads(py(code, env={"UUIDKIT_NODE": "bogus"}).stdout)
    assert v1s == v1 and v6s is not None and v6s[0] == "ValueError", (v1, v1s, v6s)
    assert "UUIDKIT_NODE" in v6s[1]
    assert v7 == "7"


@pytest.mark.parametrize("first", ["uuid7_str()", "uuid1_str()", "uuid6_str()",
                                   "uuid7_str_many(2)"])
def test_time_based_texts_start_the_process_wide_state(py, short_tmp, first):
    # Like uuid7(): the first of them fixes where the state is, so use_state_file after
    # it is too late.
    code = REPORT + f"""
uuidkit.{first}
print(json.dumps(attempt(uuidkit.use_state_file, sys.argv[1])))
"""
    late = json.loads(py(code, args=(short_tmp / "s",)).stdout)
    assert late is not None and late[0] == "RuntimeError", (first, late)


def test_random_texts_leave_the_state_alone(py, short_tmp):
    code = REPORT + r"""
uuidkit.uuid4_str(); uuidkit.uuid8_str(); uuidkit.uuid4_str_many(3)
print(json.dumps([attempt(uuidkit.use_state_file, sys.argv[1]), uuidkit.uuid7_str()[14]]))
"""
    assert json.loads(py(code, args=(short_tmp / "s",)).stdout) == [None, "7"]
    assert (short_tmp / "s").exists()


CHILD = r"""
import os, sys, time
import uuidkit
out, n, go, how, path, call = sys.argv[1:7]
n = int(n)
if how == "state":
    uuidkit.use_state_file(path)
else:
    uuidkit.use_daemon(path)
if call == "uuid7_str_many":
    def batch(k):
        return uuidkit.uuid7_str_many(k, "simple")
else:
    one = getattr(uuidkit, call)
    def batch(k):
        return [one("simple") for _ in range(k)]
while not os.path.exists(go):
    time.sleep(0.001)
vals = []
while len(vals) < n:
    vals.extend(batch(min(500, n - len(vals))))
with open(out, "w") as f:
    f.write("\n".join(vals))
print(uuidkit.take_store_warnings(), file=sys.stderr)
"""


@pytest.mark.parametrize("how", ["state", "daemon"])
@pytest.mark.parametrize("call", ["uuid7_str", "uuid7_str_many", "uuid1_str", "uuid6_str"])
def test_two_processes_one_store(request, short_tmp, call, how):
    # As test_shared_calls.py holds uuid7(), uuid7_many, uuid1() and uuid6(): two processes
    # at once on one state file, or one uuidkitd, never make the same UUID.
    n = 5_000
    path = short_tmp / "state" if how == "state" else request.getfixturevalue("daemon")
    job = ((how, path, call), None)
    results = run_at_once(CHILD, short_tmp, n, [job, job], timeout=120)
    for vals in results:
        assert len(vals) == n
        if call == "uuid1_str":
            times = [uuid.UUID(int=v).time for v in vals]
            assert all(a < b for a, b in zip(times, times[1:]))
        else:
            assert all(a < b for a, b in zip(vals, vals[1:]))
    assert len(set(results[0]) | set(results[1])) == 2 * n
    if call == "uuid1_str":
        # Shared state: neither process's timestamps overlap the other's, node and all.
        ta = {uuid.UUID(int=v).time for v in results[0]}
        tb = {uuid.UUID(int=v).time for v in results[1]}
        assert not ta & tb
