//! The frame around every message: the [`Header`] before the body, and the bounds on the
//! text a body carries.

use super::codes::{MAGIC, VERSION};
use super::error::ProtocolError;

/// The length of a [`Header`].
pub const HEADER_LEN: usize = 12;

/// The longest text (error message, version, path) in a reply: 1024 bytes.
pub const MAX_TEXT: usize = 1024;

/// The 12 bytes before every body: magic, version, operation or status, two reserved
/// zero bytes, and the body length.
///
/// ```
/// use uuidkit::service::protocol::Header;
/// let h = Header { code: 3, len: 0 };
/// assert_eq!(Header::decode(&h.encode())?, h);
/// # Ok::<(), uuidkit::service::protocol::ProtocolError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The operation (request) or status (reply).
    pub code: u8,
    /// The body length in bytes.
    pub len: u32,
}

impl Header {
    /// The header's bytes.
    ///
    /// ```
    /// use uuidkit::service::protocol::Header;
    /// assert_eq!(Header { code: 2, len: 4 }.encode(), *b"uukd\x01\x02\0\0\0\0\0\x04");
    /// ```
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[..4].copy_from_slice(&MAGIC);
        b[4] = VERSION;
        b[5] = self.code;
        b[8..].copy_from_slice(&self.len.to_be_bytes());
        b
    }

    /// Reads a header; checks magic, version and reserved bytes, not the code or length.
    ///
    /// ```
    /// use uuidkit::service::protocol::{Header, ProtocolError};
    /// let e = Header::decode(b"uukd\x02\x01\0\0\0\0\0\0").unwrap_err();
    /// assert_eq!(e, ProtocolError::UnsupportedVersion { found: 2 });
    /// ```
    ///
    /// # Errors
    ///
    /// [`ProtocolError::UnsupportedVersion`] for another protocol version;
    /// [`ProtocolError::Malformed`] for a magic that is not `uukd` or reserved bytes that
    /// are not zero.
    pub fn decode(b: &[u8; HEADER_LEN]) -> Result<Header, ProtocolError> {
        if b[..4] != MAGIC {
            return Err(ProtocolError::malformed("magic", "not \"uukd\""));
        }
        if b[4] != VERSION {
            return Err(ProtocolError::UnsupportedVersion { found: b[4] });
        }
        if b[6..8] != [0, 0] {
            return Err(ProtocolError::malformed("reserved", "not zero"));
        }
        Ok(Header {
            code: b[5],
            len: u32::from_be_bytes([b[8], b[9], b[10], b[11]]),
        })
    }
}

/// A message: its header (with `code` and the body's length) and `body`.
pub(super) fn message(code: u8, body: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(HEADER_LEN + body.len());
    // Bodies are bounded by the limits above, far below 4 GiB.
    let len = u32::try_from(body.len()).unwrap_or(u32::MAX);
    v.extend_from_slice(&Header { code, len }.encode());
    v.extend_from_slice(body);
    v
}

/// At most [`MAX_TEXT`] bytes of `s`, cut at a character boundary.
pub(super) fn truncate(s: &str) -> &str {
    if s.len() <= MAX_TEXT {
        return s;
    }
    let mut end = MAX_TEXT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
