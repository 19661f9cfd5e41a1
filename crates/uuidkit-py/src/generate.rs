//! The generators: the standard module's `uuid1` … `uuid8` and `getnode`, with CPython
//! 3.14's names, signatures and semantics, over uuidkit's generators; and what only
//! uuidkit has, reached through keyword arguments (`uuid7(method=, time=)`,
//! `uuid8(layout=)`).
//!
//! Called without arguments, the time-based ones are uuidkit's process-wide generators:
//! one strict order across threads, a child after `fork` rekeyed, and the state file or
//! daemon (see `state.rs`) shared with other processes. Given explicit fields (`node`,
//! `clock_seq`, `a`, `b`, `c`), they do what CPython does with them.

use std::borrow::Cow;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};
use uuidkit::generator::GenError;
use uuidkit::generator::v7::{V7Generator, V7Method};
use uuidkit::layout::{self, ClockSequence, GregorianFields, Layout};
use uuidkit::random::{Csprng, RngCore};
use uuidkit::time::{FnClock, GregorianTimestamp};
use uuidkit::{NodeId, Uuid};

use crate::args::{self, masked, node48};
use crate::bridge::{self, to_py};
use crate::platform;
use crate::release;
use crate::state;

/// `next()`, a call of a process-wide time-based generator: with the GIL released when
/// they keep their state in a file or the daemon, where a call may wait for the file's
/// lock (up to 2 s when another process holds it), read and write the file, or ask the
/// daemon (up to its timeouts when it does not answer), and other threads must run
/// meanwhile; in memory (a few dozen nanoseconds, no I/O) with the GIL held, because
/// releasing and taking it back would cost more than the call.
#[inline]
fn generating<T: Send>(py: Python<'_>, next: impl Send + FnOnce() -> T) -> T {
    if state::stored() {
        release::detach(py, next)
    } else {
        next()
    }
}

/// `getnode()`: the host's MAC address as a 48-bit integer: of the Ethernet interfaces
/// (not loopback, address not zero; by name), the first that is up and backed by a
/// device, else the first that is up, even a virtual one (never one that is down); when
/// none is up, a random 48-bit number with the multicast bit set, as CPython's `getnode`
/// falls back to. The same for the life of the process.
///
/// >>> uuidkit.getnode() == uuidkit.getnode() < 2**48
/// True
#[pyfunction]
pub fn getnode() -> u64 {
    uuidkit::generator::host_node().as_u64()
}

/// The fields of a v1/v6 UUID given a `node` or `clock_seq`, as CPython makes them.
fn explicit_fields(
    node: Option<u64>,
    clock_seq: Option<&Bound<'_, PyAny>>,
    timestamp: fn() -> Result<GregorianTimestamp, GenError>,
) -> PyResult<GregorianFields> {
    let clock_seq = match clock_seq {
        Some(c) => masked(c, 0x3fff)? as u16,
        None => Csprng.next_u32() as u16,
    };
    let node = node.unwrap_or_else(getnode);
    Ok(GregorianFields {
        timestamp: timestamp().map_err(gen_error)?,
        clock_seq: ClockSequence::from_masked(clock_seq),
        node: NodeId::from_u64(node & 0xffff_ffff_ffff).unwrap_or(NodeId::from_bytes([0; 6])),
    })
}

fn gen_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// What `uuid1()` without arguments makes (and `uuid1_str()` writes): the next UUID of
/// the process-wide v1 generator; a `UUIDKIT_DAEMON` that failed is `OSError`, a
/// malformed `UUIDKIT_NODE` `ValueError`.
pub fn new_v1(py: Python<'_>) -> PyResult<Uuid> {
    state::check_source()?;
    state::check_node_env()?;
    generating(py, uuidkit::try_v1).map_err(gen_error)
}

/// What `uuid6()` without arguments makes: as [`new_v1`], of the v6 generator.
pub fn new_v6(py: Python<'_>) -> PyResult<Uuid> {
    state::check_source()?;
    state::check_node_env()?;
    generating(py, uuidkit::try_v6).map_err(gen_error)
}

/// What `uuid7()` and `uuid7(method=...)` without `time=` make: the next UUID of the
/// process-wide generator of `method`; a `UUIDKIT_DAEMON` that failed is `OSError`.
pub fn new_v7(py: Python<'_>, method: V7Method) -> PyResult<Uuid> {
    state::check_source()?;
    Ok(generating(py, || uuidkit::generator::v7_of(method)))
}

/// `uuid1(node=None, clock_seq=None)`: a version 1 UUID (RFC 9562 §5.1).
///
/// Without arguments: uuidkit's process-wide v1 generator (strictly increasing in the
/// process; node from `UUIDKIT_NODE`'s strategy, a random multicast node by default;
/// the state file or daemon when chosen). With `node` or `clock_seq`: as CPython's
/// `uuid1`, a `node` outside `0 <= node < 2**48` raises `ValueError`, `clock_seq` is
/// masked to 14 bits, a missing `node` is `getnode()`.
///
/// >>> uuidkit.uuid1(node=0x0123456789ab, clock_seq=5).node == 0x0123456789ab
/// True
#[pyfunction]
#[pyo3(signature = (node=None, clock_seq=None))]
pub fn uuid1<'py>(
    py: Python<'py>,
    node: Option<&Bound<'py, PyAny>>,
    clock_seq: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    if node.is_none() && clock_seq.is_none() {
        return to_py(py, new_v1(py)?);
    }
    // CPython masks the clock sequence before it checks the node.
    let cs = clock_seq.map(|c| masked(c, 0x3fff)).transpose()?;
    let node = node.map(node48).transpose()?;
    let mut f = explicit_fields(node, None, uuidkit::generator::next_v1_timestamp)?;
    if let Some(cs) = cs {
        f.clock_seq = ClockSequence::from_masked(cs as u16);
    }
    to_py(py, layout::v1::encode(&f))
}

/// `uuid6(node=None, clock_seq=None)`: a version 6 UUID (RFC 9562 §5.6), v1's fields
/// reordered to sort by time.
///
/// Without arguments: uuidkit's process-wide v6 generator. With `node` or `clock_seq`:
/// as CPython 3.14's `uuid6`, both masked (`node & 0xffff_ffff_ffff`, `clock_seq &
/// 0x3fff`), a missing `node` is `getnode()`.
///
/// >>> uuidkit.uuid6().version
/// 6
#[pyfunction]
#[pyo3(signature = (node=None, clock_seq=None))]
pub fn uuid6<'py>(
    py: Python<'py>,
    node: Option<&Bound<'py, PyAny>>,
    clock_seq: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    if node.is_none() && clock_seq.is_none() {
        return to_py(py, new_v6(py)?);
    }
    let node = node.map(|n| masked(n, 0xffff_ffff_ffff)).transpose()?;
    let f = explicit_fields(node, clock_seq, uuidkit::generator::next_v6_timestamp)?;
    to_py(py, layout::v6::encode(&f))
}

/// The bytes of a name, as CPython's `uuid3`/`uuid5` take it: `str` (as UTF-8) or any
/// object with the buffer protocol (`bytes`, `bytearray`, `memoryview`, `array.array`,
/// ...), read as CPython's `namespace.bytes + name` reads it (`ns`: the namespace's 16
/// bytes); anything else is a `TypeError` naming the argument.
fn name_bytes<'a>(ns: &Uuid, name: &'a Bound<'_, PyAny>, func: &str) -> PyResult<Cow<'a, [u8]>> {
    if let Ok(s) = name.cast::<PyString>() {
        return Ok(Cow::Borrowed(platform::utf8(s)?));
    }
    if let Ok(b) = name.cast::<PyBytes>() {
        return Ok(Cow::Borrowed(b.as_bytes()));
    }
    if let Ok(b) = name.cast::<PyByteArray>() {
        return Ok(Cow::Owned(b.to_vec()));
    }
    // Any other object: the concatenation CPython does (the stable ABI of 3.9 has no
    // buffer calls), which takes exactly what it takes: a C-contiguous buffer (a
    // non-contiguous one, or no buffer at all, is its `TypeError`, here naming `name`).
    let py = name.py();
    match PyBytes::new(py, ns.as_bytes()).add(name) {
        Ok(joined) => Ok(Cow::Owned(
            joined.cast::<PyBytes>()?.as_bytes()[16..].to_vec(),
        )),
        Err(e) if e.is_instance_of::<PyTypeError>(py) => Err(PyTypeError::new_err(format!(
            "{func}() argument 'name' must be str or a bytes-like object, not {}",
            bridge::type_name(name)
        ))),
        Err(e) => Err(e),
    }
}

/// `uuid3(namespace, name)`: the MD5 name-based UUID (RFC 9562 §5.3), equal to
/// CPython's.
///
/// >>> str(uuidkit.uuid3(uuidkit.NAMESPACE_DNS, "www.example.com"))
/// '5df41881-3aed-3515-88a7-2f4a814cf09e'
#[pyfunction]
pub fn uuid3<'py>(
    namespace: &Bound<'py, PyAny>,
    name: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    name_based(namespace, name, "uuid3", uuidkit::v3)
}

/// `uuid5(namespace, name)`: the SHA-1 name-based UUID (RFC 9562 §5.5), equal to
/// CPython's.
///
/// >>> str(uuidkit.uuid5(uuidkit.NAMESPACE_DNS, "www.example.com"))
/// '2ed6657d-e927-568b-95e1-2665a8aea6a2'
#[pyfunction]
pub fn uuid5<'py>(
    namespace: &Bound<'py, PyAny>,
    name: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    name_based(namespace, name, "uuid5", uuidkit::v5)
}

/// A name-based UUID of `namespace` and `name`, read as CPython's `uuid3`/`uuid5` read
/// them, hashed by `hash`.
fn name_based<'py>(
    namespace: &Bound<'py, PyAny>,
    name: &Bound<'py, PyAny>,
    func: &str,
    hash: fn(&Uuid, &[u8]) -> Uuid,
) -> PyResult<Bound<'py, PyAny>> {
    let ns = bridge::namespace(namespace, func)?;
    to_py(namespace.py(), hash(&ns, &name_bytes(&ns, name, func)?))
}

/// `uuid4()`: a random UUID (RFC 9562 §5.4), 122 bits from uuidkit's CSPRNG (seeded
/// by the OS, rekeyed in a child after `fork`).
///
/// >>> uuidkit.uuid4().version
/// 4
#[pyfunction]
pub fn uuid4(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    to_py(py, uuidkit::v4())
}

fn method_of(method: &Bound<'_, PyAny>) -> PyResult<V7Method> {
    let text = args::name(method, "uuid7", "method")?.extract::<String>()?;
    text.parse::<V7Method>()
        .map_err(|_| args::unknown("uuid7", "method", &text, &V7Method::NAMES))
}

/// `uuid7(*, method="counter", time=None)`: a version 7 UUID (RFC 9562 §5.7): Unix
/// milliseconds, then a counter or random bits.
///
/// Without arguments (as CPython 3.14's `uuid7()`): uuidkit's process-wide v7, Method 1
/// with a 42-bit counter, one strict order across every thread of the process (and across
/// processes with a state file or the daemon). `method="random"` (Method 2, a monotonic
/// random value) and `"precision"` (Method 3, 12 bits of sub-millisecond time) come from
/// process-wide generators of their own, strictly increasing too. `time=` (an aware
/// `datetime`, or seconds since 1970 as `int` or `float`) makes one UUID of that time,
/// outside the process's order.
///
/// >>> u = uuidkit.uuid7(method="precision")
/// >>> uuidkit.uuid7(time=0).hex[:12]
/// '000000000000'
#[pyfunction]
#[pyo3(signature = (*, method=None, time=None))]
pub fn uuid7<'py>(
    py: Python<'py>,
    method: Option<&Bound<'py, PyAny>>,
    time: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let method = method
        .map(method_of)
        .transpose()?
        .unwrap_or(V7Method::Counter);
    if let Some(t) = time {
        let t = args::unix_time(t, "uuid7")?;
        uuidkit::time::unix_millis_48(t)
            .map_err(|e| PyValueError::new_err(format!("uuid7() argument 'time': {e}")))?;
        let mut g = V7Generator::new(method).with_clock(FnClock(move || t));
        return to_py(py, g.next());
    }
    to_py(py, new_v7(py, method)?)
}

/// What `uuid8(a, b, c)` makes, as CPython 3.14's `uuid8`: `a` (48 bits), `b` (12) and
/// `c` (62), each masked to its width, random when not given (`v8_of(None, None, None)`
/// is `uuid8()`'s UUID).
pub fn v8_of(
    a: Option<&Bound<'_, PyAny>>,
    b: Option<&Bound<'_, PyAny>>,
    c: Option<&Bound<'_, PyAny>>,
) -> PyResult<Uuid> {
    let mut rng = Csprng;
    let f = layout::v8::Fields {
        custom_a: a.map_or_else(|| Ok(rng.next_u64() >> 16), |a| masked(a, (1 << 48) - 1))?,
        custom_b: b.map_or_else(
            || Ok(u64::from(rng.next_u32()) & 0xfff),
            |b| masked(b, 0xfff),
        )? as u16,
        custom_c: c.map_or_else(|| Ok(rng.next_u64() >> 2), |c| masked(c, (1 << 62) - 1))?,
    };
    layout::v8::encode(&f).map_err(gen_error)
}

/// `uuid8(a=None, b=None, c=None, *, layout=None, namespace=None, name=None)`: a
/// version 8 UUID (RFC 9562 §5.8).
///
/// Without `layout`, CPython 3.14's `uuid8`: `a` (48 bits), `b` (12) and `c` (62), each
/// masked to its width, random when not given. `layout="b1"` is the time-based layout of
/// Appendix B.1 (process-wide, strictly increasing); `"b2"` the SHA-256 name-based one of
/// Appendix B.2 (with `namespace` and `name`); `"draft-v7-ms"` … `"draft-v8-64"` the 2021
/// draft's layouts (strictly increasing per layout, up to the layout's end).
///
/// >>> str(uuidkit.uuid8(layout="b2", namespace=uuidkit.NAMESPACE_DNS, name="www.example.com"))
/// '5c146b14-3c52-8afd-938a-375d0df1fbf6'
#[pyfunction]
#[pyo3(signature = (a=None, b=None, c=None, *, layout=None, namespace=None, name=None))]
#[allow(clippy::too_many_arguments)]
pub fn uuid8<'py>(
    py: Python<'py>,
    a: Option<&Bound<'py, PyAny>>,
    b: Option<&Bound<'py, PyAny>>,
    c: Option<&Bound<'py, PyAny>>,
    layout: Option<&Bound<'py, PyAny>>,
    namespace: Option<&Bound<'py, PyAny>>,
    name: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let layout = match layout {
        None => None,
        Some(l) => {
            let text = args::name(l, "uuid8", "layout")?.extract::<String>()?;
            Some(
                text.parse::<Layout>()
                    .map_err(|_| args::unknown("uuid8", "layout", &text, &Layout::NAMES))?,
            )
        }
    };
    if layout != Some(Layout::B2) && (namespace.is_some() || name.is_some()) {
        return Err(PyTypeError::new_err(
            "uuid8() arguments 'namespace' and 'name' apply only with layout=\"b2\"",
        ));
    }
    let Some(layout) = layout else {
        return to_py(py, v8_of(a, b, c)?);
    };
    if a.is_some() || b.is_some() || c.is_some() {
        return Err(PyTypeError::new_err(
            "uuid8() arguments 'a', 'b' and 'c' do not apply with a layout",
        ));
    }
    if layout == Layout::B2 {
        let (Some(ns), Some(name)) = (namespace, name) else {
            return Err(PyTypeError::new_err(
                "uuid8(layout=\"b2\") needs the arguments 'namespace' and 'name'",
            ));
        };
        return name_based(ns, name, "uuid8", uuidkit::v8_sha256);
    }
    state::check_source()?;
    let u = generating(py, || match layout {
        Layout::B1 => Ok(uuidkit::v8()),
        other => uuidkit::generator::draft(other),
    })
    .map_err(gen_error)?;
    to_py(py, u)
}
