//! Batches: `uuid4_many`/`uuid7_many` (a list of `uuid.UUID`) and
//! `uuid4_bytes`/`uuid7_bytes` (one `bytes`, 16 per UUID). The UUIDs are made in chunks
//! with the GIL released (other Python threads run meanwhile; `release.rs`: never taken
//! back once the interpreter is exiting); v7 batches keep the process-wide order of
//! `uuid7()`.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use uuidkit::Uuid;

use crate::args;
use crate::bridge::to_py;
use crate::platform;
use crate::release;
use crate::state;

/// UUIDs made per release of the GIL: enough that releasing it costs nothing per UUID,
/// few enough that the chunk stays in the first-level cache.
pub const CHUNK: usize = 1024;

fn many<'py>(
    py: Python<'py>,
    n: &Bound<'py, PyAny>,
    func: &str,
    fill: fn(&mut [Uuid]),
) -> PyResult<Bound<'py, PyList>> {
    // A list slot and a uuid.UUID with its int: about 100 bytes each.
    let n = args::count(n, func, 100)?;
    let mut buf = [Uuid::NIL; CHUNK];
    let mut at = CHUNK;
    platform::list_of(py, n, |i| {
        if at == CHUNK {
            let part = &mut buf[..(n - i).min(CHUNK)];
            release::detach(py, || fill(part));
            at = 0;
        }
        at += 1;
        to_py(py, buf[at - 1])
    })
}

fn bytes<'py>(
    py: Python<'py>,
    n: &Bound<'py, PyAny>,
    func: &str,
    fill: fn(&mut [Uuid]),
) -> PyResult<Bound<'py, PyBytes>> {
    let n = args::count(n, func, 16)?;
    // Python allocates the bytes (a MemoryError if it cannot); the UUIDs are written
    // straight into it, a chunk at a time, without the GIL.
    PyBytes::new_with(py, n * 16, |out| {
        let mut buf = [Uuid::NIL; CHUNK];
        for dst in out.chunks_mut(16 * CHUNK) {
            let part = &mut buf[..dst.len() / 16];
            release::detach(py, || {
                fill(part);
                for (d, u) in dst.chunks_exact_mut(16).zip(part.iter()) {
                    d.copy_from_slice(u.as_bytes());
                }
            });
        }
        Ok(())
    })
}

/// `uuid4_many(n)`: a list of `n` random `uuid.UUID`s, made with the GIL released.
///
/// >>> len(uuidkit.uuid4_many(3))
/// 3
#[pyfunction]
pub fn uuid4_many<'py>(py: Python<'py>, n: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    many(py, n, "uuid4_many", uuidkit::v4_fill)
}

/// `uuid7_many(n)`: a list of `n` v7 `uuid.UUID`s, strictly increasing, in the
/// process-wide order of `uuid7()`: each greater than every v7 UUID made before the
/// call and less than every one made after it.
///
/// >>> a, b = uuidkit.uuid7_many(2)
/// >>> a < b < uuidkit.uuid7()
/// True
#[pyfunction]
pub fn uuid7_many<'py>(py: Python<'py>, n: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    state::check_source()?;
    many(py, n, "uuid7_many", uuidkit::v7_fill)
}

/// `uuid4_bytes(n)`: `n` random UUIDs as one `bytes` of `16 * n`, UUID `i` at
/// `[16*i:16*i+16]` (`uuid.UUID(bytes=...)` reads one back).
///
/// >>> len(uuidkit.uuid4_bytes(10))
/// 160
#[pyfunction]
pub fn uuid4_bytes<'py>(py: Python<'py>, n: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    bytes(py, n, "uuid4_bytes", uuidkit::v4_fill)
}

/// `uuid7_bytes(n)`: `n` v7 UUIDs as one `bytes`, in the order of `uuid7_many`.
///
/// >>> b = uuidkit.uuid7_bytes(2)
/// >>> b[:16] < b[16:]
/// True
#[pyfunction]
pub fn uuid7_bytes<'py>(py: Python<'py>, n: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    state::check_source()?;
    bytes(py, n, "uuid7_bytes", uuidkit::v7_fill)
}
