//! Between uuidkit's [`Uuid`] and the standard library's `uuid.UUID`: every UUID this
//! package returns is a real `uuid.UUID` (so `isinstance`, `==`, hashing, pickling, ORMs
//! and JSON encoders treat it as any other), made the way CPython 3.14's
//! `UUID._from_int` makes one: its two slots set directly, no text parsed, no
//! `__init__` run.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyInt, PyModule, PyString, PyType};
use uuidkit::Uuid;

use crate::platform;

/// What the standard library's `uuid` module lends us, looked up once.
struct Stdlib {
    /// `uuid.UUID`.
    class: Py<PyType>,
    /// `uuid.SafeUUID.unknown`: what `is_safe` says of a UUID not made by the platform's
    /// own generator (as the standard library says of its own).
    unknown: Py<PyAny>,
    /// The slot names, interned once.
    int: Py<PyString>,
    is_safe: Py<PyString>,
    bytes: Py<PyString>,
    /// `uuid.NAMESPACE_DNS` … `NAMESPACE_X500` and their values: the namespaces nearly
    /// every `uuid3`/`uuid5` call names, known by identity without reading their `int`.
    namespaces: [(Py<PyAny>, Uuid); 4],
}

static STDLIB: PyOnceLock<Stdlib> = PyOnceLock::new();

fn stdlib(py: Python<'_>) -> PyResult<&Stdlib> {
    STDLIB.get_or_try_init(py, || {
        let uuid = py.import("uuid")?;
        Ok(Stdlib {
            class: uuid.getattr("UUID")?.cast_into::<PyType>()?.unbind(),
            unknown: uuid.getattr("SafeUUID")?.getattr("unknown")?.unbind(),
            int: PyString::intern(py, "int").unbind(),
            is_safe: PyString::intern(py, "is_safe").unbind(),
            bytes: PyString::intern(py, "bytes").unbind(),
            namespaces: [
                known(&uuid, "NAMESPACE_DNS")?,
                known(&uuid, "NAMESPACE_URL")?,
                known(&uuid, "NAMESPACE_OID")?,
                known(&uuid, "NAMESPACE_X500")?,
            ],
        })
    })
}

/// The standard module's constant `name` and its value, read from it (not assumed).
fn known(uuid: &Bound<'_, PyModule>, name: &str) -> PyResult<(Py<PyAny>, Uuid)> {
    let obj = uuid.getattr(name)?;
    let value: u128 = obj.getattr("int")?.extract()?;
    Ok((obj.unbind(), Uuid::from_u128(value)))
}

/// `u` as a `uuid.UUID`.
pub fn to_py(py: Python<'_>, u: Uuid) -> PyResult<Bound<'_, PyAny>> {
    let s = stdlib(py)?;
    let int = platform::int_u128(py, u.as_u128())?;
    platform::new_with_slots(
        s.class.bind(py),
        [
            (s.int.bind(py), &int),
            (s.is_safe.bind(py), s.unknown.bind(py)),
        ],
    )
}

/// `obj` as a [`Uuid`] when it is a `uuid.UUID` (or an instance of a subclass), else a
/// `TypeError` naming the argument `arg` of `func`.
pub fn from_py(obj: &Bound<'_, PyAny>, func: &str, arg: &str) -> PyResult<Uuid> {
    let py = obj.py();
    let s = stdlib(py)?;
    if !obj.is_instance(s.class.bind(py))? {
        return Err(PyTypeError::new_err(format!(
            "{func}() argument '{arg}' must be a uuid.UUID, not {}",
            type_name(obj)
        )));
    }
    let int = obj.getattr(s.int.bind(py))?;
    let int = int.cast::<PyInt>().map_err(|_| {
        PyTypeError::new_err(format!("{func}() argument '{arg}': its .int is not an int"))
    })?;
    Ok(Uuid::from_u128(platform::u128_of(int)?))
}

/// The namespace of `uuid3`/`uuid5` as the standard library takes it: whatever has a
/// `.bytes` attribute (an object without one raises `AttributeError`, as there). A
/// `uuid.UUID` is read through its `int`; any other object's `bytes` must be a `bytes` or
/// `bytearray` (what `namespace.bytes + name` takes there: a list or tuple is CPython's
/// `TypeError` too) of 16 bytes (the standard library would hash any length; we
/// refuse, naming the argument).
pub fn namespace(obj: &Bound<'_, PyAny>, func: &str) -> PyResult<Uuid> {
    let py = obj.py();
    let s = stdlib(py)?;
    if let Some((_, u)) = s.namespaces.iter().find(|(ns, _)| obj.is(ns.bind(py))) {
        return Ok(*u);
    }
    if obj.get_type().is(s.class.bind(py)) {
        return from_py(obj, func, "namespace");
    }
    let bytes = obj.getattr(s.bytes.bind(py))?;
    let value = if let Ok(b) = bytes.cast::<PyBytes>() {
        <[u8; 16]>::try_from(b.as_bytes()).ok()
    } else if let Ok(b) = bytes.cast::<PyByteArray>() {
        <[u8; 16]>::try_from(b.to_vec().as_slice()).ok()
    } else {
        None
    };
    value.map(Uuid::from_bytes).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{func}() argument 'namespace' must be a uuid.UUID (its .bytes is not 16 bytes)"
        ))
    })
}

/// The name of `obj`'s type, for messages (`int`, `str`, ...).
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}
