//! What the daemon answers: [`Reply`], read back against the request it answers.

use super::codes::status;
use super::error::ProtocolError;
use super::frame::{message, truncate};
use super::report::StatusReport;
use super::request::{MAX_RANDOM_COUNT, Request};
use crate::layout::ClockSequence;
use crate::node::machine_id::MachineId;
use crate::store::LeaseRequest;
use crate::store::{GeneratorKind, Lease};
use crate::uuid::Uuid;

/// The longest reply body a client accepts: a full batch of random UUIDs.
pub const MAX_REPLY_BODY: u32 = MAX_RANDOM_COUNT * 16;

/// The length of a lease reply body.
pub const LEASE_REPLY_LEN: usize = 40;

/// The length of a lease reply body that carries a machine ID (a daemon in fleet mode):
/// [`LEASE_REPLY_LEN`] and 8 bytes appended, the ID (4 bytes), its width in bits (1 byte)
/// and 3 reserved bytes of 0.
pub const LEASE_REPLY_WITH_ID_LEN: usize = LEASE_REPLY_LEN + 8;

/// A reply from the daemon.
///
/// ```
/// use uuidkit::service::protocol::{status, Reply};
/// let b = Reply::Error { status: status::UNKNOWN_OP, message: "field op: unknown operation 9".into() }.encode();
/// assert_eq!(b[5], status::UNKNOWN_OP);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// A granted lease.
    Lease(Lease),
    /// Random UUIDs.
    Random(Vec<Uuid>),
    /// The daemon's status.
    Status(StatusReport),
    /// The lease would start at `start`, above `max_start`.
    Ahead {
        /// Where it would start.
        start: u128,
    },
    /// The kind is used up.
    Exhausted,
    /// The lease would run past the daemon's bound on the lead (or the asking user's
    /// share of it): it can be granted after `wait_ms` milliseconds.
    Later {
        /// How long to wait before asking again.
        wait_ms: u64,
    },
    /// The daemon (in fleet mode) does not hold its machine ID for sure now: its etcd
    /// lease may have expired, or it is claiming another ID. The text says why.
    Fenced(String),
    /// The daemon cannot use its state file.
    Unavailable(String),
    /// A refused request ([`status::FIRST_FATAL`] and above): the connection closes.
    Error {
        /// The status code.
        status: u8,
        /// Why, naming the field at fault.
        message: String,
    },
}

impl Reply {
    /// The reply's bytes: header and body.
    ///
    /// ```
    /// use uuidkit::service::protocol::Reply;
    /// assert_eq!(Reply::Exhausted.encode().len(), 12);
    /// ```
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Reply::Lease(l) => {
                let mut b = [0u8; LEASE_REPLY_LEN];
                b[..16].copy_from_slice(&l.start.to_be_bytes());
                b[16..32].copy_from_slice(&l.end.to_be_bytes());
                b[32..34].copy_from_slice(&l.clock_seq.map_or(0xffff, |c| c.get()).to_be_bytes());
                match l.machine_id {
                    // Without an ID, the reply of every daemon before fleet mode.
                    None => message(status::OK, &b),
                    Some(m) => {
                        let mut w = [0u8; LEASE_REPLY_WITH_ID_LEN];
                        w[..LEASE_REPLY_LEN].copy_from_slice(&b);
                        // At most 31 bits wide (checked when the ID was made).
                        w[40..44].copy_from_slice(&(m.value() as u32).to_be_bytes());
                        w[44] = m.bits() as u8;
                        message(status::OK, &w)
                    }
                }
            }
            Reply::Random(us) => {
                let body: Vec<u8> = us.iter().flat_map(|u| *u.as_bytes()).collect();
                message(status::OK, &body)
            }
            Reply::Status(s) => message(status::OK, &s.encode_body()),
            Reply::Ahead { start } => message(status::AHEAD, &start.to_be_bytes()),
            Reply::Exhausted => message(status::EXHAUSTED, &[]),
            Reply::Later { wait_ms } => message(status::LATER, &wait_ms.to_be_bytes()),
            Reply::Unavailable(m) => message(status::UNAVAILABLE, truncate(m).as_bytes()),
            Reply::Fenced(m) => message(status::FENCED, truncate(m).as_bytes()),
            Reply::Error { status, message: m } => message(*status, truncate(m).as_bytes()),
        }
    }

    /// Reads the reply to `request` from its header's code and its body.
    ///
    /// ```
    /// use uuidkit::service::protocol::{Reply, Request};
    /// let r = Request::Random { count: 2 };
    /// let bytes = Reply::Random(vec![uuidkit::v4(), uuidkit::v4()]).encode();
    /// let reply = Reply::decode(&r, bytes[5], &bytes[12..])?;
    /// assert!(matches!(reply, Reply::Random(v) if v.len() == 2));
    /// # Ok::<(), uuidkit::service::protocol::ProtocolError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ProtocolError::Malformed`] for an unknown status below the fatal ones, a body of
    /// the wrong length for its status (or, for random UUIDs, for the count asked), a lease
    /// that does not fit `request` (empty, below its `from`, longer than asked, past the
    /// kind's range, or with a clock sequence it should not have), and a status body
    /// [`StatusReport::decode`] refuses.
    pub fn decode(request: &Request, code: u8, body: &[u8]) -> Result<Reply, ProtocolError> {
        let text = || String::from_utf8_lossy(body).into_owned();
        match code {
            status::OK => match request {
                Request::Lease(r) => decode_lease(r, body).map(Reply::Lease),
                Request::Random { count } => {
                    if body.len() != *count as usize * 16 {
                        return Err(ProtocolError::malformed(
                            "length",
                            format!("{} bytes for {count} UUIDs", body.len()),
                        ));
                    }
                    Ok(Reply::Random(
                        body.chunks_exact(16)
                            .map(|c| {
                                let mut a = [0u8; 16];
                                a.copy_from_slice(c);
                                Uuid::from_bytes(a)
                            })
                            .collect(),
                    ))
                }
                Request::Status => StatusReport::decode(body).map(Reply::Status),
            },
            status::AHEAD => {
                let a: [u8; 16] = body.try_into().map_err(|_| {
                    ProtocolError::malformed("length", "an ahead reply is 16 bytes")
                })?;
                Ok(Reply::Ahead {
                    start: u128::from_be_bytes(a),
                })
            }
            status::EXHAUSTED => Ok(Reply::Exhausted),
            status::LATER => {
                let a: [u8; 8] = body
                    .try_into()
                    .map_err(|_| ProtocolError::malformed("length", "a later reply is 8 bytes"))?;
                Ok(Reply::Later {
                    wait_ms: u64::from_be_bytes(a),
                })
            }
            status::UNAVAILABLE => Ok(Reply::Unavailable(text())),
            status::FENCED => Ok(Reply::Fenced(text())),
            s if s >= status::FIRST_FATAL => Ok(Reply::Error {
                status: s,
                message: text(),
            }),
            s => Err(ProtocolError::malformed(
                "status",
                format!("unknown status {s}"),
            )),
        }
    }
}

/// Reads a lease reply body and checks it against the request: a lease that is empty,
/// starts below `from`, is longer than asked or runs past the kind's range is refused,
/// since a generator would hand out positions from it.
fn decode_lease(r: &LeaseRequest, b: &[u8]) -> Result<Lease, ProtocolError> {
    if b.len() != LEASE_REPLY_LEN && b.len() != LEASE_REPLY_WITH_ID_LEN {
        return Err(ProtocolError::malformed(
            "length",
            format!(
                "a lease reply is {LEASE_REPLY_LEN} or {LEASE_REPLY_WITH_ID_LEN} bytes, not {}",
                b.len()
            ),
        ));
    }
    let u128_at = |i: usize| {
        let mut a = [0u8; 16];
        a.copy_from_slice(&b[i..i + 16]);
        u128::from_be_bytes(a)
    };
    let (start, end) = (u128_at(0), u128_at(16));
    if end < start || start < r.from || end > r.kind.max_position() {
        return Err(ProtocolError::malformed(
            "start",
            format!("lease {start}..={end} does not fit the request"),
        ));
    }
    if end - start >= r.len.max(1) {
        return Err(ProtocolError::malformed("end", "lease longer than asked"));
    }
    let cs = u16::from_be_bytes([b[32], b[33]]);
    let clock_seq = match (r.kind, cs) {
        (GeneratorKind::Gregorian(_), cs) => Some(ClockSequence::new(cs).ok_or_else(|| {
            ProtocolError::malformed("clock_seq", format!("{cs} is above 16383"))
        })?),
        (_, 0xffff) => None,
        _ => return Err(ProtocolError::malformed("clock_seq", "set for v7 or v8")),
    };
    let machine_id = match b.get(LEASE_REPLY_LEN..) {
        Some(&[a, b1, c, d, bits, 0, 0, 0]) => {
            let value = u32::from_be_bytes([a, b1, c, d]);
            // 1 to 31 bits: v7 keeps one of its 32 random bits random.
            let id = (1..=31)
                .contains(&bits)
                .then(|| MachineId::new(value.into(), bits.into()).ok())
                .flatten()
                .ok_or_else(|| {
                    ProtocolError::malformed(
                        "machine_id",
                        format!("{value} of {bits} bits is not a machine ID of 1 to 31 bits"),
                    )
                })?;
            Some(id)
        }
        Some([]) | None => None,
        Some(_) => {
            return Err(ProtocolError::malformed(
                "machine_id",
                "reserved bytes after the width are not 0",
            ));
        }
    };
    Ok(Lease {
        start,
        end,
        clock_seq,
        warning: None,
        machine_id,
    })
}
