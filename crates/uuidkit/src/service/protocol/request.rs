//! What a client asks: [`Request`], and the lease request as it travels
//! (a [`LeaseRequest`](crate::store::LeaseRequest) as it travels), with the limits the daemon holds them to.

use super::codes::{kind, kind_code, op};
use super::error::ProtocolError;
use super::frame::message;
use crate::layout::ClockSequence;
use crate::node::NodeId;
use crate::store::{GeneratorKind, LeaseRequest};

/// The longest request body the daemon reads (a lease request is 80 bytes); a header
/// stating more is refused without reading the body.
pub const MAX_REQUEST_BODY: u32 = 256;

/// The most v4 UUIDs one [`Request::Random`] may ask for: 4096 (a 64 KiB reply).
pub const MAX_RANDOM_COUNT: u32 = 4096;

/// The length of a lease request body.
pub const LEASE_REQUEST_LEN: usize = 80;

/// The most positions one lease may cover, per kind: one second of the kind's time
/// (10,000,000 ticks for Gregorian, 1000 ms of v7 positions, 10^8 steps of v8). The
/// library's generators ask for at most a few milliseconds; the limit keeps one client
/// from using up the shared space.
///
/// ```
/// use uuidkit::service::protocol::max_lease_len;
/// use uuidkit::store::GeneratorKind;
/// assert_eq!(max_lease_len(GeneratorKind::V7), 1000 << 42);
/// ```
pub const fn max_lease_len(kind: GeneratorKind) -> u128 {
    match kind {
        GeneratorKind::Gregorian(_) => 10_000_000,
        GeneratorKind::V7 => 1000 << 42,
        GeneratorKind::V8 => 100_000_000 << 30,
        GeneratorKind::Draft(_) => kind.draft_second(),
    }
}

/// A request from a client.
///
/// ```
/// use uuidkit::service::protocol::Request;
/// let b = Request::Status.encode();
/// assert_eq!(b.len(), 12);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Lease positions, as [`LeaseSource::lease`](crate::store::LeaseSource::lease) does.
    Lease(LeaseRequest),
    /// `count` random (v4) UUIDs, 1 to [`MAX_RANDOM_COUNT`].
    Random {
        /// How many.
        count: u32,
    },
    /// The daemon's [`StatusReport`](super::StatusReport).
    Status,
}

// A lease request travels as the store's own `LeaseRequest`: its 80-byte body, coded
// here, beside the other messages.
impl LeaseRequest {
    pub(super) fn encode_body(&self) -> [u8; LEASE_REQUEST_LEN] {
        let mut b = [0u8; LEASE_REQUEST_LEN];
        let (k, node) = kind_code(self.kind);
        b[0] = k;
        b[1] = u8::from(self.max_start.is_some()) | u8::from(self.clock_seq.is_some()) << 1;
        b[2..4].copy_from_slice(&self.clock_seq.map_or(0, |c| c.get()).to_be_bytes());
        b[4..6].copy_from_slice(&self.fresh_clock_seq.get().to_be_bytes());
        b[6..12].copy_from_slice(&node);
        b[16..32].copy_from_slice(&self.clock.to_be_bytes());
        b[32..48].copy_from_slice(&self.from.to_be_bytes());
        b[48..64].copy_from_slice(&self.len.to_be_bytes());
        b[64..80].copy_from_slice(&self.max_start.unwrap_or(0).to_be_bytes());
        b
    }

    fn decode_body(b: &[u8]) -> Result<LeaseRequest, ProtocolError> {
        if b.len() != LEASE_REQUEST_LEN {
            return Err(ProtocolError::malformed(
                "length",
                format!(
                    "a lease request body is {LEASE_REQUEST_LEN} bytes, not {}",
                    b.len()
                ),
            ));
        }
        let flags = b[1];
        if flags & !0b11 != 0 {
            return Err(ProtocolError::malformed("flags", "unknown flag bits set"));
        }
        if b[12..16] != [0; 4] {
            return Err(ProtocolError::malformed("reserved", "not zero"));
        }
        let node = NodeId::from_bytes([b[6], b[7], b[8], b[9], b[10], b[11]]);
        let kind = match b[0] {
            kind::GREGORIAN => GeneratorKind::Gregorian(node),
            kind::V7 | kind::V8 | kind::DRAFT..=31 if node != NodeId::from_bytes([0; 6]) => {
                return Err(ProtocolError::malformed(
                    "node",
                    "not zero for a v7, v8 or draft layout lease",
                ));
            }
            kind::V7 => GeneratorKind::V7,
            kind::V8 => GeneratorKind::V8,
            found => match kind::draft(found) {
                Some(l) => GeneratorKind::Draft(l),
                None => return Err(ProtocolError::UnknownKind { found }),
            },
        };
        let u16_at = |i: usize| u16::from_be_bytes([b[i], b[i + 1]]);
        let u128_at = |i: usize| {
            let mut a = [0u8; 16];
            a.copy_from_slice(&b[i..i + 16]);
            u128::from_be_bytes(a)
        };
        let seq = |field: &'static str, v: u16| {
            ClockSequence::new(v)
                .ok_or_else(|| ProtocolError::malformed(field, format!("{v} is above 16383")))
        };
        let clock_seq = if flags & 0b10 != 0 {
            Some(seq("clock_seq", u16_at(2))?)
        } else if u16_at(2) != 0 {
            return Err(ProtocolError::malformed(
                "clock_seq",
                "set without its flag",
            ));
        } else {
            None
        };
        let fresh_clock_seq = seq("fresh_clock_seq", u16_at(4))?;
        let max_start = if flags & 0b01 != 0 {
            Some(u128_at(64))
        } else if u128_at(64) != 0 {
            return Err(ProtocolError::malformed(
                "max_start",
                "set without its flag",
            ));
        } else {
            None
        };
        let (clock, from, len) = (u128_at(16), u128_at(32), u128_at(48));
        let last = kind.max_position();
        for (field, v) in [("clock", clock), ("from", from)] {
            if v > last {
                return Err(ProtocolError::TooLarge {
                    field,
                    value: v,
                    limit: last,
                });
            }
        }
        if len > max_lease_len(kind) {
            return Err(ProtocolError::TooLarge {
                field: "len",
                value: len,
                limit: max_lease_len(kind),
            });
        }
        Ok(LeaseRequest {
            kind,
            clock,
            from,
            len,
            max_start,
            clock_seq,
            fresh_clock_seq,
        })
    }
}

impl Request {
    /// The request's bytes: header and body.
    ///
    /// ```
    /// use uuidkit::service::protocol::Request;
    /// assert_eq!(Request::Random { count: 1 }.encode().len(), 16);
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Request::Lease(r) => message(op::LEASE, &r.encode_body()),
            Request::Random { count } => message(op::RANDOM, &count.to_be_bytes()),
            Request::Status => message(op::STATUS, &[]),
        }
    }

    /// Reads a request from its header's code and its body.
    ///
    /// ```
    /// use uuidkit::service::protocol::{op, ProtocolError, Request};
    /// let e = Request::decode(op::RANDOM, &5000u32.to_be_bytes()).unwrap_err();
    /// assert_eq!(e, ProtocolError::TooLarge { field: "count", value: 5000, limit: 4096 });
    /// ```
    ///
    /// # Errors
    ///
    /// [`ProtocolError::UnknownOp`] for an unknown `code`; for a lease,
    /// [`ProtocolError::UnknownKind`] for an unknown generator kind; [`ProtocolError::TooLarge`]
    /// for a random count above [`MAX_RANDOM_COUNT`] or a lease's `clock`, `from` or `len` above the
    /// kind's limit; [`ProtocolError::Malformed`] for a body of the wrong length, a zero
    /// count, and a lease request's unknown flag bits, non-zero reserved bytes, a node on
    /// a kind that has none, a clock sequence above 16,383 or a field set without its flag.
    pub fn decode(code: u8, body: &[u8]) -> Result<Request, ProtocolError> {
        let exact = |n: usize| {
            if body.len() == n {
                Ok(())
            } else {
                Err(ProtocolError::malformed(
                    "length",
                    format!("this operation's body is {n} bytes, not {}", body.len()),
                ))
            }
        };
        match code {
            op::LEASE => LeaseRequest::decode_body(body).map(Request::Lease),
            op::RANDOM => {
                exact(4)?;
                let count = u32::from_be_bytes([body[0], body[1], body[2], body[3]]);
                if count == 0 {
                    return Err(ProtocolError::malformed("count", "zero"));
                }
                if count > MAX_RANDOM_COUNT {
                    return Err(ProtocolError::TooLarge {
                        field: "count",
                        value: count.into(),
                        limit: MAX_RANDOM_COUNT.into(),
                    });
                }
                Ok(Request::Random { count })
            }
            op::STATUS => {
                exact(0)?;
                Ok(Request::Status)
            }
            found => Err(ProtocolError::UnknownOp { found }),
        }
    }
}
