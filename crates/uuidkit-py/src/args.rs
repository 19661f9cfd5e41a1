//! Arguments read the way CPython's `uuid` module reads them, so that the same call
//! raises the same exception there and here, and masks where it masks; and the
//! arguments only uuidkit has (`n`, `time`, names of forms, methods and layouts), each
//! refused with a message naming it.

use pyo3::exceptions::{PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyString, PyType};
use uuidkit::time::UnixTime;

use crate::bridge::type_name;

/// `value & mask`, computed by Python's own `&` as CPython's `uuid` does (`clock_seq &
/// 0x3fff`, `a & 0xffff_ffff_ffff`): any integer, negative ones included, is masked, and
/// whatever `&` refuses (a float, a string) raises the `TypeError` it raises there.
pub fn masked(value: &Bound<'_, PyAny>, mask: u64) -> PyResult<u64> {
    value.bitand(mask)?.extract()
}

/// A `node` as CPython's `uuid1` takes it, with the operators it uses: `0 <= node <
/// 2**48` (else the `ValueError` its `UUID(fields=...)` raises; a type that does not
/// compare with `int` raises the comparison's `TypeError`), then `|` with the other
/// fields (a `float` in range raises its `TypeError` there).
pub fn node48(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    if !(value.ge(0)? && value.lt(1u64 << 48)?) {
        return Err(PyValueError::new_err(
            "field 6 out of range (need a 48-bit value)",
        ));
    }
    value.bitor(0)?.extract()
}

/// A count `n` of `*_many`/`*_bytes`: an integer from 0, with `size` bytes kept per
/// item; more than the address space can hold is a `MemoryError` now, before anything is
/// allocated.
pub fn count(value: &Bound<'_, PyAny>, func: &str, size: usize) -> PyResult<usize> {
    if !plain_int(value) {
        return Err(PyTypeError::new_err(format!(
            "{func}() argument 'n' must be an int, not {}",
            type_name(value)
        )));
    }
    let n: i128 = value.extract().map_err(|_| too_large(func, value))?;
    if n < 0 {
        return Err(PyValueError::new_err(format!(
            "{func}() argument 'n' must not be negative, got {n}"
        )));
    }
    let n = usize::try_from(n).map_err(|_| too_large(func, value))?;
    match n.checked_mul(size) {
        Some(b) if b <= isize::MAX as usize => Ok(n),
        _ => Err(PyMemoryError::new_err(format!(
            "{func}() argument 'n' is {n}: {size} bytes each is more than memory can hold"
        ))),
    }
}

/// An `int` that is not a `bool`: a count or a time is a number, and `True` is not one
/// (as an argument it is almost surely a mistake).
fn plain_int(value: &Bound<'_, PyAny>) -> bool {
    value.is_instance_of::<pyo3::types::PyInt>() && !value.is_instance_of::<pyo3::types::PyBool>()
}

/// A count past the machine's word: no memory could hold it, and no index reach it.
fn too_large(func: &str, value: &Bound<'_, PyAny>) -> PyErr {
    PyValueError::new_err(format!(
        "{func}() argument 'n' is {value}: more than a {}-bit count",
        usize::BITS
    ))
}

/// A name (of a form, method or layout) given as argument `arg` of `func`: a `str`,
/// else a `TypeError`.
pub fn name<'a>(
    value: &'a Bound<'_, PyAny>,
    func: &str,
    arg: &str,
) -> PyResult<&'a Bound<'a, PyAny>> {
    if value.is_instance_of::<PyString>() {
        Ok(value)
    } else {
        Err(PyTypeError::new_err(format!(
            "{func}() argument '{arg}' must be a str, not {}",
            type_name(value)
        )))
    }
}

/// An unknown name: `ValueError` naming the argument, the value and every accepted one.
pub fn unknown(func: &str, arg: &str, value: &str, accepted: &[&str]) -> PyErr {
    PyValueError::new_err(format!(
        "{func}() argument '{arg}': unknown {arg} {value:?}: expected one of {}",
        accepted.join(", ")
    ))
}

struct Datetime {
    class: Py<PyType>,
    epoch: Py<PyAny>,
}

static DATETIME: PyOnceLock<Datetime> = PyOnceLock::new();

fn datetime(py: Python<'_>) -> PyResult<&Datetime> {
    DATETIME.get_or_try_init(py, || {
        let m = py.import("datetime")?;
        let class = m.getattr("datetime")?;
        let utc = m.getattr("timezone")?.getattr("utc")?;
        let epoch = class.call((1970, 1, 1, 0, 0, 0, 0, utc), None)?;
        Ok(Datetime {
            class: class.cast_into::<PyType>()?.unbind(),
            epoch: epoch.unbind(),
        })
    })
}

/// `time=`: a timezone-aware `datetime.datetime` (exact to its microsecond), or
/// seconds since the Unix epoch as an `int` (exact) or `float` (to the nanosecond it
/// rounds to). A naive datetime is refused rather than guessed (local time or UTC?).
pub fn unix_time(value: &Bound<'_, PyAny>, func: &str) -> PyResult<UnixTime> {
    let py = value.py();
    let bad = |why: String| PyValueError::new_err(format!("{func}() argument 'time': {why}"));
    let nanos: i128 = if value.is_instance(datetime(py)?.class.bind(py))? {
        if value.call_method0("utcoffset")?.is_none() {
            return Err(bad(format!(
                "{} has no time zone: give tzinfo (datetime.timezone.utc, say)",
                value.str()?
            )));
        }
        let delta = value.sub(datetime(py)?.epoch.bind(py))?;
        let days: i128 = delta.getattr("days")?.extract()?;
        let secs: i128 = delta.getattr("seconds")?.extract()?;
        let micros: i128 = delta.getattr("microseconds")?.extract()?;
        ((days * 86_400 + secs) * 1_000_000 + micros) * 1_000
    } else if plain_int(value) {
        let secs: i64 = value
            .extract()
            .map_err(|_| bad(format!("{value} seconds is outside every UUID's range")))?;
        i128::from(secs) * 1_000_000_000
    } else if value.is_instance_of::<pyo3::types::PyFloat>() {
        let secs: f64 = value.extract()?;
        if !secs.is_finite() || secs.abs() > 1e15 {
            return Err(bad(format!("{secs} seconds is outside every UUID's range")));
        }
        // Whole seconds and the fraction apart (both exact in an f64), so that the
        // nanoseconds of 1645557742.25 are 250000000, not the 249999872 of one product.
        let whole = secs.floor();
        let frac = ((secs - whole) * 1e9).round() as i128;
        whole as i128 * 1_000_000_000 + frac
    } else {
        return Err(PyTypeError::new_err(format!(
            "{func}() argument 'time' must be a datetime.datetime, int or float, not {}",
            type_name(value)
        )));
    };
    if nanos < 0 {
        return Err(bad(format!(
            "{} is before 1970-01-01T00:00:00Z, where Unix time starts",
            value.repr()?
        )));
    }
    Ok(UnixTime::from_nanos(nanos))
}
