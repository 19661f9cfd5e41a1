//! The scalar code the entry points fall back on: the parser for what a kernel declines,
//! and the encoder where no kernel runs. A leaf, so that `mod.rs`, `batch.rs` and the
//! x86 kernels take them from here.

use crate::codec::form::{Case, Format};
use crate::codec::scalar;
use crate::error::ParseError;
use crate::uuid::Uuid;

/// Why `s` is not a UUID, or (only when no kernel ran) the UUID: the scalar parser, kept
/// out of line so that the kernels' hot path stays small.
#[cold]
#[inline(never)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) fn parse_slow(s: &[u8]) -> Result<Uuid, ParseError> {
    scalar::parse_scalar(s)
}

/// The scalar reference behind [`encode_str`]: writes `format` into the front of `buf`.
#[cfg_attr(all(target_arch = "x86_64", not(miri), not(test)), allow(dead_code))]
pub(super) fn encode_scalar(
    bytes: &[u8; 16],
    format: Format,
    case: Case,
    buf: &mut [u8; Format::MAX_LEN],
) {
    match format {
        Format::Hyphenated => buf[..36].copy_from_slice(&scalar::encode_hyphenated(bytes, case)),
        Format::Simple => buf[..32].copy_from_slice(&scalar::encode_simple(bytes, case)),
        Format::Braced => {
            buf[0] = b'{';
            buf[1..37].copy_from_slice(&scalar::encode_hyphenated(bytes, case));
            buf[37] = b'}';
        }
        Format::Urn => {
            buf[..9].copy_from_slice(b"urn:uuid:");
            buf[9..45].copy_from_slice(&scalar::encode_hyphenated(bytes, case));
        }
    }
}
