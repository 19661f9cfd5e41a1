//! Text codec entry points: dispatch to a vector implementation where the CPU has one,
//! otherwise to the scalar reference in [`crate::text`].

use crate::Uuid;
use crate::text::{self, Case, ParseError};

#[inline]
pub(crate) fn parse(s: &[u8]) -> Result<Uuid, ParseError> {
    text::parse_scalar(s)
}

#[inline]
pub(crate) fn encode_hyphenated(b: &[u8; 16], case: Case) -> [u8; 36] {
    text::encode_hyphenated(b, case)
}

#[inline]
pub(crate) fn encode_simple(b: &[u8; 16], case: Case) -> [u8; 32] {
    text::encode_simple(b, case)
}
