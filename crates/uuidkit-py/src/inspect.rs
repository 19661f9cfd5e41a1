//! `inspect(u)`: the fields of a UUID as a dict, the same keys, order and values as
//! `uuidkit inspect --json` prints (see the command's `inspect.rs`), but for `int`,
//! which is a Python `int` here (JSON has it as a decimal string: its numbers stop at
//! 2**53).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use uuidkit::inspect::Timestamp;
use uuidkit::layout::{v2, v8};
use uuidkit::{Case, Format, Uuid, Variant, Version};

use crate::bridge;
use crate::text;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The `time` and `timestamp` fields.
fn time_fields(d: &Bound<'_, PyDict>, t: Timestamp) -> PyResult<()> {
    d.set_item("time", t.to_rfc3339())?;
    d.set_item("timestamp", t.raw())
}

/// `clock_seq`, `node` and `multicast` of v1, v2 and v6.
fn clock_and_node(d: &Bound<'_, PyDict>, u: &Uuid) -> PyResult<()> {
    if let Some(cs) = u.clock_seq() {
        d.set_item("clock_seq", cs)?;
    }
    if let Some(node) = u.node() {
        d.set_item("node", node.to_string())?;
        d.set_item("multicast", node.is_multicast())?;
    }
    Ok(())
}

/// The fields of `u`, in the command's order.
fn fields<'py>(py: Python<'py>, u: &Uuid) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("uuid", u.format(Format::Hyphenated, Case::Lower).as_str())?;
    let variant = u.variant();
    d.set_item("variant", variant.name())?;
    let rfc = variant == Variant::Rfc9562;
    let version = u.version();
    if rfc {
        d.set_item("version", version.number())?;
    } else {
        d.set_item("version", py.None())?;
    }
    d.set_item("nil", u.is_nil())?;
    d.set_item("max", u.is_max())?;
    d.set_item("int", u.as_u128())?;
    d.set_item("bytes_le", hex(&u.to_bytes_le()))?;
    let b = u.as_bytes();
    let parts = PyDict::new(py);
    for (name, range) in [
        ("time_low", 0..4),
        ("time_mid", 4..6),
        ("time_hi_and_version", 6..8),
        ("clock_seq_hi_and_reserved", 8..9),
        ("clock_seq_low", 9..10),
        ("node", 10..16),
    ] {
        parts.set_item(name, hex(&b[range]))?;
    }
    d.set_item("fields", parts)?;
    if !rfc {
        return Ok(d);
    }
    match version {
        Version::V1 | Version::V6 => {
            if let Some(t) = u.timestamp() {
                time_fields(&d, t)?;
            }
            clock_and_node(&d, u)?;
        }
        Version::V7 => {
            if let Some(t) = u.timestamp() {
                time_fields(&d, t)?;
            }
        }
        Version::V2 => {
            if let Ok(v) = v2::decode(u) {
                d.set_item("domain", v.domain.to_string())?;
                d.set_item("local_id", v.local_id)?;
            }
            if let Some(t) = u.timestamp() {
                time_fields(&d, t)?;
            }
            clock_and_node(&d, u)?;
        }
        Version::V3 | Version::V5 => {
            if let Some(h) = u.hash_algorithm() {
                d.set_item("hash", h.name())?;
            }
        }
        Version::V8 => {
            if let Ok(c) = v8::decode(u) {
                d.set_item("custom_a", c.custom_a)?;
                d.set_item("custom_b", c.custom_b)?;
                d.set_item("custom_c", c.custom_c)?;
            }
        }
        Version::V4 | Version::Other(_) => {}
    }
    Ok(d)
}

/// `inspect(u)`: the fields of `u` (a `uuid.UUID`, or text that `parse` reads) as a
/// dict: `uuid`, `variant`, `version`, `nil`, `max`, `int`, `bytes_le`, `fields`, and
/// per version `time` (RFC 3339) and `timestamp` (the raw count), `clock_seq`, `node`,
/// `multicast`, `domain`, `local_id`, `hash`, `custom_a`/`_b`/`_c`.
///
/// >>> d = uuidkit.inspect("017f22e2-79b0-7cc3-98c4-dc0c0c07398f")
/// >>> d["version"], d["time"]
/// (7, '2022-02-22T19:22:22.000Z')
#[pyfunction]
pub fn inspect<'py>(py: Python<'py>, u: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let uuid = if u.is_instance_of::<PyString>() || u.is_instance_of::<PyBytes>() {
        bridge::from_py(&text::parse(py, u, None)?, "inspect", "u")?
    } else {
        bridge::from_py(u, "inspect", "u")?
    };
    fields(py, &uuid)
}
