//! uuidkit for Python: the extension module `uuidkit._uuidkit`, which the package
//! `uuidkit` (python/uuidkit/__init__.py) re-exports.
//!
//! Where things are: the generators (`uuid1` … `uuid8`, `getnode`) in `generate.rs`;
//! batches in `batch.rs`; the text of a new UUID with no `uuid.UUID` in between
//! (`uuid1_str` … `uuid8_str`, `uuid4_str_many`, `uuid7_str_many`) in `fresh.rs`;
//! `parse`/`format` in `text.rs`; `inspect` in `inspect.rs`; v1 ↔ v6 in `convert.rs`; the state file and daemon in `state.rs`; the GIL released
//! around batches and blocking calls, safely at exit, in `release.rs`; arguments read as
//! CPython reads them in `args.rs`; the step from uuidkit's `Uuid` to the standard
//! library's `uuid.UUID` in `bridge.rs`, over `platform/`: the C-API calls PyO3 has no
//! safe form of (a `uuid.UUID` made with two functions, `PyType_GenericAlloc` and
//! `PyObject_GenericSetAttr`, and untracked from the cyclic GC; lists, text, ints).

mod args;
mod batch;
mod bridge;
mod convert;
mod fresh;
mod generate;
mod inspect;
mod platform;
mod release;
mod state;
mod text;

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use uuidkit::Uuid;
use uuidkit::generator::v7::V7Method;
use uuidkit::layout::Layout;

/// Every UUID of RFC 9562: the standard `uuid` module's generators, returning
/// `uuid.UUID`, and all of uuidkit.
#[pymodule]
fn _uuidkit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(generate::getnode, m)?)?;
    m.add_function(wrap_pyfunction!(generate::uuid1, m)?)?;
    m.add_function(wrap_pyfunction!(generate::uuid3, m)?)?;
    m.add_function(wrap_pyfunction!(generate::uuid4, m)?)?;
    m.add_function(wrap_pyfunction!(generate::uuid5, m)?)?;
    m.add_function(wrap_pyfunction!(generate::uuid6, m)?)?;
    m.add_function(wrap_pyfunction!(generate::uuid7, m)?)?;
    m.add_function(wrap_pyfunction!(generate::uuid8, m)?)?;
    m.add_function(wrap_pyfunction!(batch::uuid4_many, m)?)?;
    m.add_function(wrap_pyfunction!(batch::uuid7_many, m)?)?;
    m.add_function(wrap_pyfunction!(batch::uuid4_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(batch::uuid7_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(fresh::uuid1_str, m)?)?;
    m.add_function(wrap_pyfunction!(fresh::uuid4_str, m)?)?;
    m.add_function(wrap_pyfunction!(fresh::uuid6_str, m)?)?;
    m.add_function(wrap_pyfunction!(fresh::uuid7_str, m)?)?;
    m.add_function(wrap_pyfunction!(fresh::uuid8_str, m)?)?;
    m.add_function(wrap_pyfunction!(fresh::uuid4_str_many, m)?)?;
    m.add_function(wrap_pyfunction!(fresh::uuid7_str_many, m)?)?;
    m.add_function(wrap_pyfunction!(text::parse, m)?)?;
    m.add_function(wrap_pyfunction!(text::format, m)?)?;
    m.add_function(wrap_pyfunction!(inspect::inspect, m)?)?;
    m.add_function(wrap_pyfunction!(convert::v1_to_v6, m)?)?;
    m.add_function(wrap_pyfunction!(convert::v6_to_v1, m)?)?;
    m.add_function(wrap_pyfunction!(state::use_state_file, m)?)?;
    m.add_function(wrap_pyfunction!(state::use_daemon, m)?)?;
    m.add_function(wrap_pyfunction!(state::take_store_warnings, m)?)?;
    m.add("ParseError", py.get_type::<text::ParseError>())?;
    m.add("NIL", bridge::to_py(py, Uuid::NIL)?)?;
    m.add("MAX", bridge::to_py(py, Uuid::MAX)?)?;
    // The standard module's own namespace objects, so that `uuidkit.NAMESPACE_DNS is
    // uuid.NAMESPACE_DNS`, as a drop-in's constants should be.
    let stdlib = py.import("uuid")?;
    for name in [
        "NAMESPACE_DNS",
        "NAMESPACE_URL",
        "NAMESPACE_OID",
        "NAMESPACE_X500",
    ] {
        m.add(name, stdlib.getattr(name)?)?;
    }
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("FORMS", PyTuple::new(py, text::FORMS)?)?;
    m.add("METHODS", PyTuple::new(py, V7Method::NAMES)?)?;
    m.add("LAYOUTS", PyTuple::new(py, Layout::NAMES)?)?;
    release::install(m)?;
    state::from_env(py);
    Ok(())
}
