//! The text of a new UUID, with no `uuid.UUID` in between: `uuid1_str` … `uuid8_str`
//! (one `str`) and `uuid4_str_many`/`uuid7_str_many` (a list of them).
//!
//! Each makes its UUID exactly as the call it is named after makes it without arguments
//! (`uuid7_str()` as `uuid7()`: the same process-wide generator, state file or daemon,
//! GIL handling and errors, through the same functions of `generate.rs` and `batch.rs`),
//! then writes its text on the stack (`Spelling`, in `text.rs`, which `format` uses too)
//! and copies it once, into the `str`. The arguments are checked first (before the
//! daemon check of the time-based calls, and before the UUID is made: a call refused for
//! its arguments takes nothing from a generator).

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use uuidkit::Uuid;
use uuidkit::generator::v7::V7Method;
use uuidkit::text::{LineEnd, encode_lines};

use crate::args;
use crate::batch::CHUNK;
use crate::generate;
use crate::platform;
use crate::release;
use crate::state;
use crate::text::Spelling;

/// `uuid1_str(form="hyphenated", *, upper=False)`: the text of a new `uuid1()`, in
/// `form` (one of `FORMS`, as `format` takes it): the same UUID `uuid1()` would have
/// made, written straight to a `str`.
///
/// >>> t = uuidkit.uuid1_str()
/// >>> len(t), t[14], uuidkit.parse(t).version
/// (36, '1', 1)
#[pyfunction]
#[pyo3(signature = (form=None, *, upper=false))]
pub fn uuid1_str<'py>(
    py: Python<'py>,
    form: Option<&Bound<'py, PyAny>>,
    upper: bool,
) -> PyResult<Bound<'py, PyString>> {
    let spelling = Spelling::from_args(form, upper, "uuid1_str")?;
    Ok(spelling.to_py(py, &generate::new_v1(py)?))
}

/// `uuid4_str(form="hyphenated", *, upper=False)`: the text of a new `uuid4()` (122
/// random bits) in `form`, written straight to a `str`.
///
/// >>> t = uuidkit.uuid4_str("simple", upper=True)
/// >>> len(t), t[12]
/// (32, '4')
#[pyfunction]
#[pyo3(signature = (form=None, *, upper=false))]
pub fn uuid4_str<'py>(
    py: Python<'py>,
    form: Option<&Bound<'py, PyAny>>,
    upper: bool,
) -> PyResult<Bound<'py, PyString>> {
    let spelling = Spelling::from_args(form, upper, "uuid4_str")?;
    Ok(spelling.to_py(py, &uuidkit::v4()))
}

/// `uuid6_str(form="hyphenated", *, upper=False)`: the text of a new `uuid6()` (the
/// process-wide v6 generator) in `form`, written straight to a `str`.
///
/// >>> uuidkit.uuid6_str("urn")[:9], uuidkit.uuid6_str("urn")[23]
/// ('urn:uuid:', '6')
#[pyfunction]
#[pyo3(signature = (form=None, *, upper=false))]
pub fn uuid6_str<'py>(
    py: Python<'py>,
    form: Option<&Bound<'py, PyAny>>,
    upper: bool,
) -> PyResult<Bound<'py, PyString>> {
    let spelling = Spelling::from_args(form, upper, "uuid6_str")?;
    Ok(spelling.to_py(py, &generate::new_v6(py)?))
}

/// `uuid7_str(form="hyphenated", *, upper=False)`: the text of a new `uuid7()` in
/// `form`, written straight to a `str`: the next UUID of the process-wide v7 generator,
/// in the one order of `uuid7()` and `uuid7_many()` (the hyphenated, simple, braced and
/// URN texts of later UUIDs sort after earlier ones, as their values do).
///
/// >>> a = uuidkit.uuid7_str()
/// >>> a < str(uuidkit.uuid7()) < uuidkit.uuid7_str()
/// True
/// >>> len(uuidkit.uuid7_str("base58"))
/// 22
#[pyfunction]
#[pyo3(signature = (form=None, *, upper=false))]
pub fn uuid7_str<'py>(
    py: Python<'py>,
    form: Option<&Bound<'py, PyAny>>,
    upper: bool,
) -> PyResult<Bound<'py, PyString>> {
    let spelling = Spelling::from_args(form, upper, "uuid7_str")?;
    Ok(spelling.to_py(py, &generate::new_v7(py, V7Method::Counter)?))
}

/// `uuid8_str(form="hyphenated", *, upper=False)`: the text of a new `uuid8()` (CPython
/// 3.14's layout, 122 random bits) in `form`, written straight to a `str`.
///
/// >>> uuidkit.uuid8_str("braced")[15]
/// '8'
#[pyfunction]
#[pyo3(signature = (form=None, *, upper=false))]
pub fn uuid8_str<'py>(
    py: Python<'py>,
    form: Option<&Bound<'py, PyAny>>,
    upper: bool,
) -> PyResult<Bound<'py, PyString>> {
    let spelling = Spelling::from_args(form, upper, "uuid8_str")?;
    Ok(spelling.to_py(py, &generate::v8_of(None, None, None)?))
}

/// What one text of a batch keeps, for the `MemoryError` of an `n` no memory can hold:
/// a list slot (8 bytes) and a `str` of up to 45 ASCII characters (a 48-byte header,
/// the text and its NUL, rounded up to 8 by the allocator).
const TEXT_SIZE: usize = 8 + 96;

/// Writes `uuids`' texts into `out`, one every `spelling.len() + 1` bytes.
fn write_texts(spelling: Spelling, uuids: &[Uuid], out: &mut [u8]) {
    match spelling.hex() {
        // The hex forms as lines of one SIMD call: the text, then a '\n' not read.
        Some((form, case)) => {
            let written = encode_lines(uuids, form, case, LineEnd::Lf, out);
            debug_assert_eq!(written, uuids.len());
        }
        None => {
            for (u, line) in uuids.iter().zip(out.chunks_exact_mut(spelling.len() + 1)) {
                spelling.write(u, line);
            }
        }
    }
}

/// A list of `n` texts of UUIDs from `fill`, in order: once the arguments are read,
/// `ready()` (the daemon check of the time-based calls), then the UUIDs made and written
/// 1,024 at a time with the GIL released (as `uuid4_many`/`uuid7_many` make theirs), each
/// text then copied into its `str`.
fn str_many<'py>(
    py: Python<'py>,
    n: &Bound<'py, PyAny>,
    form: Option<&Bound<'py, PyAny>>,
    upper: bool,
    func: &str,
    ready: fn() -> PyResult<()>,
    fill: fn(&mut [Uuid]),
) -> PyResult<Bound<'py, PyList>> {
    let n = args::count(n, func, TEXT_SIZE)?;
    let spelling = Spelling::from_args(form, upper, func)?;
    ready()?;
    let len = spelling.len();
    let stride = len + 1;
    let mut uuids = [Uuid::NIL; CHUNK];
    let mut text = vec![0u8; n.min(CHUNK) * stride];
    let mut at = CHUNK;
    platform::list_of(py, n, |i| {
        if at == CHUNK {
            let k = (n - i).min(CHUNK);
            let (part, out) = (&mut uuids[..k], &mut text[..k * stride]);
            release::detach(py, || {
                fill(part);
                write_texts(spelling, part, out);
            });
            at = 0;
        }
        let line = &text[at * stride..at * stride + len];
        at += 1;
        Ok(platform::str_of_utf8(py, line)?.into_any())
    })
}

/// `uuid4_str_many(n, form="hyphenated", *, upper=False)`: a list of the texts of `n`
/// new random UUIDs in `form`, as `uuid4_many(n)` makes them (with the GIL released),
/// with no `uuid.UUID` in between.
///
/// >>> [len(t) for t in uuidkit.uuid4_str_many(3, "base62")]
/// [22, 22, 22]
#[pyfunction]
#[pyo3(signature = (n, form=None, *, upper=false))]
pub fn uuid4_str_many<'py>(
    py: Python<'py>,
    n: &Bound<'py, PyAny>,
    form: Option<&Bound<'py, PyAny>>,
    upper: bool,
) -> PyResult<Bound<'py, PyList>> {
    str_many(
        py,
        n,
        form,
        upper,
        "uuid4_str_many",
        || Ok(()),
        uuidkit::v4_fill,
    )
}

/// `uuid7_str_many(n, form="hyphenated", *, upper=False)`: a list of the texts of `n`
/// new v7 UUIDs in `form`, as `uuid7_many(n)` makes them: strictly increasing, in the
/// process-wide order of `uuid7()` (each greater than every v7 UUID made before the call
/// and less than every one made after it), made with the GIL released.
///
/// >>> a, b = uuidkit.uuid7_str_many(2)
/// >>> a < b < uuidkit.uuid7_str()
/// True
#[pyfunction]
#[pyo3(signature = (n, form=None, *, upper=false))]
pub fn uuid7_str_many<'py>(
    py: Python<'py>,
    n: &Bound<'py, PyAny>,
    form: Option<&Bound<'py, PyAny>>,
    upper: bool,
) -> PyResult<Bound<'py, PyList>> {
    let ready = state::check_source;
    str_many(
        py,
        n,
        form,
        upper,
        "uuid7_str_many",
        ready,
        uuidkit::v7_fill,
    )
}
