//! What the text module and the SIMD kernels share, below both: the text forms
//! ([`form`]) and the scalar reference codec ([`scalar`]) that defines what is accepted
//! and written. `text` chooses between the kernels (in `platform::simd`) and this codec;
//! the kernels are checked against it and fall back to it.

pub(crate) mod form;
pub(crate) mod scalar;
