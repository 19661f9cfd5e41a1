//! [`Format`] as a const generic parameter (an enum cannot be one on stable Rust), so
//! that each kernel instance is compiled for one form.

use crate::codec::form::Format;

pub(super) const HYPHENATED: u8 = Format::Hyphenated as u8;
pub(super) const SIMPLE: u8 = Format::Simple as u8;
pub(super) const BRACED: u8 = Format::Braced as u8;
pub(super) const URN: u8 = Format::Urn as u8;

/// The form numbered `form`; a constant wherever `form` is.
#[inline(always)]
pub(crate) const fn format(form: u8) -> Format {
    match form {
        HYPHENATED => Format::Hyphenated,
        SIMPLE => Format::Simple,
        BRACED => Format::Braced,
        _ => Format::Urn,
    }
}
