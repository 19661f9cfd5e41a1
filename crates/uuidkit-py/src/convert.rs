//! v1 ↔ v6 (RFC 9562 §5.6): the same timestamp, clock sequence and node, reordered.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use uuidkit::Version;
use uuidkit::layout::v6;

use crate::bridge::{from_py, to_py};

/// `v1_to_v6(u)`: the v6 UUID with the fields of the v1 UUID `u`; a v6 UUID comes
/// back as it is. Any other version raises `ValueError`.
///
/// >>> str(uuidkit.v1_to_v6(uuidkit.parse("c232ab00-9414-11ec-b3c8-9f6bdeced846")))
/// '1ec9414c-232a-6b00-b3c8-9f6bdeced846'
#[pyfunction]
pub fn v1_to_v6<'py>(py: Python<'py>, u: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let uuid = from_py(u, "v1_to_v6", "u")?;
    if uuid.version() == Version::V6 && v6::decode(&uuid).is_ok() {
        return to_py(py, uuid);
    }
    let v6 = v6::from_v1(&uuid).map_err(|e| PyValueError::new_err(format!("v1_to_v6(): {e}")))?;
    to_py(py, v6)
}

/// `v6_to_v1(u)`: the v1 UUID with the fields of the v6 UUID `u`; a v1 UUID comes
/// back as it is. Any other version raises `ValueError`.
///
/// >>> str(uuidkit.v6_to_v1(uuidkit.parse("1ec9414c-232a-6b00-b3c8-9f6bdeced846")))
/// 'c232ab00-9414-11ec-b3c8-9f6bdeced846'
#[pyfunction]
pub fn v6_to_v1<'py>(py: Python<'py>, u: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let uuid = from_py(u, "v6_to_v1", "u")?;
    if uuid.version() == Version::V1 && uuidkit::layout::v1::decode(&uuid).is_ok() {
        return to_py(py, uuid);
    }
    let v1 = v6::to_v1(&uuid).map_err(|e| PyValueError::new_err(format!("v6_to_v1(): {e}")))?;
    to_py(py, v1)
}
