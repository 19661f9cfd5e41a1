//! `inspect(u)`: the fields of a UUID as a dict, the same keys, order and values as
//! `uuidkit inspect --json` prints (see the command's `inspect.rs`), but for `int`,
//! which is a Python `int` here (JSON has it as a decimal string: its numbers stop at
//! 2**53).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use uuidkit::inspect::Field;
use uuidkit::{Case, Format, Uuid};

use crate::bridge;
use crate::text;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The fields of `u`: the library's list ([`uuidkit::inspect::fields`]), with the
/// command's keys and values.
fn fields<'py>(py: Python<'py>, u: &Uuid) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let mut result = Ok(());
    uuidkit::inspect::fields(u, |field| {
        if result.is_ok() {
            result = field_into(py, &d, field);
        }
    });
    result.map(|()| d)
}

/// One field's keys and values into `d`.
fn field_into(py: Python<'_>, d: &Bound<'_, PyDict>, field: Field) -> PyResult<()> {
    match field {
        Field::Uuid(u) => d.set_item("uuid", u.format(Format::Hyphenated, Case::Lower).as_str()),
        Field::Variant(v) => d.set_item("variant", v.name()),
        Field::Version(Some(v)) => d.set_item("version", v.number()),
        Field::Version(None) => d.set_item("version", py.None()),
        Field::Nil(nil) => d.set_item("nil", nil),
        Field::Max(max) => d.set_item("max", max),
        Field::Value(u) => {
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
            d.set_item("fields", parts)
        }
        Field::Time { timestamp, .. } => {
            d.set_item("time", timestamp.to_rfc3339())?;
            d.set_item("timestamp", timestamp.raw())
        }
        Field::ClockSeq(cs) => d.set_item("clock_seq", cs),
        Field::Node(node) => {
            d.set_item("node", node.to_string())?;
            d.set_item("multicast", node.is_multicast())
        }
        Field::Dce(domain, id) => {
            d.set_item("domain", domain.to_string())?;
            d.set_item("local_id", id)
        }
        Field::Hash(h) => d.set_item("hash", h.name()),
        Field::Custom(c) => {
            d.set_item("custom_a", c.custom_a)?;
            d.set_item("custom_b", c.custom_b)?;
            d.set_item("custom_c", c.custom_c)
        }
        // A field this package does not know yet: not returned.
        _ => Ok(()),
    }
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
