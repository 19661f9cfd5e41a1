//! The wire format of uuidkitd's own protocol, version 1: what a client and the daemon
//! exchange over a Unix stream socket. `docs/protocol.md` in the repository is the
//! specification; this module is its one implementation, shared by the client
//! ([`super::client`]) and the daemon, so that the two cannot drift apart.
//!
//! Every message, either way, is a 12-byte [`Header`] and a body of the length it
//! states. All integers are big-endian. A connection carries any number of requests,
//! each answered in order by one reply.
//!
//! ```
//! use uuidkit::service::protocol::{Header, Request};
//!
//! let bytes = Request::Random { count: 3 }.encode();
//! assert_eq!(&bytes[..4], b"uukd");
//! let (header, body) = bytes.split_at(12);
//! let header = Header::decode(header.try_into().unwrap())?;
//! assert_eq!(Request::decode(header.code, body)?, Request::Random { count: 3 });
//! # Ok::<(), uuidkit::service::protocol::ProtocolError>(())
//! ```

use core::fmt;

use crate::layout::ClockSequence;
use crate::store::{GeneratorKind, Lease, LeaseRequest};
use crate::{NodeId, Uuid};

/// The first four bytes of every message.
pub const MAGIC: [u8; 4] = *b"uukd";

/// The protocol version this library speaks.
pub const VERSION: u8 = 1;

/// The length of a [`Header`].
pub const HEADER_LEN: usize = 12;

/// The longest request body the daemon reads (a lease request is 80 bytes); a header
/// stating more is refused without reading the body.
pub const MAX_REQUEST_BODY: u32 = 256;

/// The most v4 UUIDs one [`Request::Random`] may ask for: 4096 (a 64 KiB reply).
pub const MAX_RANDOM_COUNT: u32 = 4096;

/// The longest text (error message, version, path) in a reply: 1024 bytes.
pub const MAX_TEXT: usize = 1024;

/// The longest reply body a client accepts: a full batch of random UUIDs.
pub const MAX_REPLY_BODY: u32 = MAX_RANDOM_COUNT * 16;

/// The length of a lease request body.
pub const LEASE_REQUEST_LEN: usize = 80;

/// The length of a lease reply body.
pub const LEASE_REPLY_LEN: usize = 40;

/// Request operation codes (header byte 5 of a request).
pub mod op {
    /// A lease of positions of one generator kind.
    pub const LEASE: u8 = 1;
    /// A batch of random (v4) UUIDs.
    pub const RANDOM: u8 = 2;
    /// The daemon's status.
    pub const STATUS: u8 = 3;
}

/// Reply status codes (header byte 5 of a reply). Codes from [`FIRST_FATAL`] on mean the
/// daemon closes the connection after the reply.
pub mod status {
    /// Success; the body depends on the request.
    pub const OK: u8 = 0;
    /// The lease would start above the request's `max_start`; body: the start (u128).
    pub const AHEAD: u8 = 1;
    /// Every position of the kind is leased; no body.
    pub const EXHAUSTED: u8 = 2;
    /// The daemon cannot use its state file; body: why (UTF-8).
    pub const UNAVAILABLE: u8 = 3;
    /// The lease would run further ahead of the daemon's reference time than its bound
    /// allows, or than the asking user's share of it: asked again after the wait the
    /// body gives, it can be granted. Added to version 1 (see `docs/protocol.md`).
    pub const LATER: u8 = 4;
    /// The first code after which the daemon closes the connection.
    pub const FIRST_FATAL: u8 = 0x10;
    /// The request is not well formed (magic, reserved bytes, body length, a field).
    pub const MALFORMED: u8 = 0x10;
    /// The header names a protocol version the daemon does not speak.
    pub const UNSUPPORTED_VERSION: u8 = 0x11;
    /// The header names an unknown operation.
    pub const UNKNOWN_OP: u8 = 0x12;
    /// The lease request names an unknown generator kind.
    pub const UNKNOWN_KIND: u8 = 0x13;
    /// A count, a lease length, a start position or a body is above its limit.
    pub const TOO_LARGE: u8 = 0x14;
    /// The daemon serves as many connections as it may; try again later.
    pub const BUSY: u8 = 0x15;
    /// The daemon is shutting down.
    pub const SHUTTING_DOWN: u8 = 0x16;
}

/// Generator kind codes in a lease request (body byte 0).
pub mod kind {
    /// v1, v2 and v6 of one node ID.
    pub const GREGORIAN: u8 = 1;
    /// v7.
    pub const V7: u8 = 7;
    /// Time-based v8.
    pub const V8: u8 = 8;
    /// The 2021 draft's layouts, 18 to 24 ([`DRAFTS`]); 16 and 17 (once meant for `b1`
    /// and `b2`, which have no entries of their own) and 25 to 31 are kept unused.
    pub const DRAFT: u8 = 16;

    use crate::layout::Layout;
    use crate::layout::draft::{Precision, V8Timestamp};

    /// The code of each 2021 draft layout. A table, not a layout's place in
    /// [`Layout::ALL`]: the codes are the protocol's, and a layout added to or moved in
    /// that list must not renumber what clients and daemons of other builds send.
    pub const DRAFTS: [(u8, Layout); 7] = [
        (18, Layout::DraftV7(Precision::Millis)),
        (19, Layout::DraftV7(Precision::Micros)),
        (20, Layout::DraftV7(Precision::Nanos)),
        (21, Layout::DraftV8(V8Timestamp::Secs32)),
        (22, Layout::DraftV8(V8Timestamp::Millis48)),
        (23, Layout::DraftV8(V8Timestamp::Gregorian60)),
        (24, Layout::DraftV8(V8Timestamp::Nanos64)),
    ];

    /// The code of a draft layout; `None` for `b1` and `b2`.
    pub fn of_draft(layout: Layout) -> Option<u8> {
        DRAFTS.iter().find(|(_, l)| *l == layout).map(|(c, _)| *c)
    }

    /// The draft layout of a code.
    pub fn draft(code: u8) -> Option<Layout> {
        DRAFTS.iter().find(|(c, _)| *c == code).map(|(_, l)| *l)
    }
}

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

/// What is wrong with a message; each names the field at fault.
///
/// ```
/// use uuidkit::service::protocol::{Header, ProtocolError};
/// let e = Header::decode(b"nope\x01\x01\0\0\0\0\0\0").unwrap_err();
/// assert_eq!(e, ProtocolError::Malformed { field: "magic", message: "not \"uukd\"".into() });
/// assert_eq!(e.to_string(), "field magic: not \"uukd\"");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProtocolError {
    /// A field holds a value the format does not allow.
    Malformed {
        /// The field at fault.
        field: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// The header names another protocol version.
    UnsupportedVersion {
        /// The version stated.
        found: u8,
    },
    /// The header names an unknown operation.
    UnknownOp {
        /// The code stated.
        found: u8,
    },
    /// A lease request names an unknown generator kind.
    UnknownKind {
        /// The code stated.
        found: u8,
    },
    /// A field is above its limit.
    TooLarge {
        /// The field at fault: `length`, `count`, `len`, `from`.
        field: &'static str,
        /// The value stated.
        value: u128,
        /// The largest allowed.
        limit: u128,
    },
}

impl ProtocolError {
    /// The reply status code that reports this error.
    ///
    /// ```
    /// use uuidkit::service::protocol::{status, ProtocolError};
    /// assert_eq!(ProtocolError::UnknownOp { found: 9 }.status(), status::UNKNOWN_OP);
    /// ```
    pub fn status(&self) -> u8 {
        match self {
            ProtocolError::Malformed { .. } => status::MALFORMED,
            ProtocolError::UnsupportedVersion { .. } => status::UNSUPPORTED_VERSION,
            ProtocolError::UnknownOp { .. } => status::UNKNOWN_OP,
            ProtocolError::UnknownKind { .. } => status::UNKNOWN_KIND,
            ProtocolError::TooLarge { .. } => status::TOO_LARGE,
        }
    }

    fn malformed(field: &'static str, message: impl Into<String>) -> ProtocolError {
        ProtocolError::Malformed {
            field,
            message: message.into(),
        }
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::Malformed { field, message } => write!(f, "field {field}: {message}"),
            ProtocolError::UnsupportedVersion { found } => write!(
                f,
                "field version: protocol version {found} is not supported (this speaks {VERSION})"
            ),
            ProtocolError::UnknownOp { found } => write!(f, "field op: unknown operation {found}"),
            ProtocolError::UnknownKind { found } => {
                write!(f, "field kind: unknown generator kind {found}")
            }
            ProtocolError::TooLarge {
                field,
                value,
                limit,
            } => write!(f, "field {field}: {value} is above the limit of {limit}"),
        }
    }
}

impl std::error::Error for ProtocolError {}

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
    Lease(WireLeaseRequest),
    /// `count` random (v4) UUIDs, 1 to [`MAX_RANDOM_COUNT`].
    Random {
        /// How many.
        count: u32,
    },
    /// The daemon's [`StatusReport`].
    Status,
}

/// A [`LeaseRequest`] as it travels: the same fields, comparable.
///
/// ```
/// use uuidkit::service::protocol::WireLeaseRequest;
/// use uuidkit::store::{GeneratorKind, LeaseRequest};
/// let w = WireLeaseRequest::from(&LeaseRequest::new(GeneratorKind::V7, 1, 2, 3));
/// assert_eq!(w.to_lease_request().len, 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireLeaseRequest {
    /// Whose positions.
    pub kind: GeneratorKind,
    /// The clock reading in the kind's units.
    pub clock: u128,
    /// The first position wanted.
    pub from: u128,
    /// How many positions.
    pub len: u128,
    /// Grant nothing if the lease would start above this.
    pub max_start: Option<u128>,
    /// A clock sequence fixed by the caller.
    pub clock_seq: Option<ClockSequence>,
    /// The clock sequence for a new Gregorian entry.
    pub fresh_clock_seq: ClockSequence,
}

impl From<&LeaseRequest> for WireLeaseRequest {
    fn from(r: &LeaseRequest) -> WireLeaseRequest {
        WireLeaseRequest {
            kind: r.kind,
            clock: r.clock,
            from: r.from,
            len: r.len,
            max_start: r.max_start,
            clock_seq: r.clock_seq,
            fresh_clock_seq: r.fresh_clock_seq,
        }
    }
}

impl WireLeaseRequest {
    /// The [`LeaseRequest`] to pass to a store.
    ///
    /// ```
    /// use uuidkit::service::protocol::WireLeaseRequest;
    /// use uuidkit::store::{GeneratorKind, LeaseRequest};
    /// let r = LeaseRequest::new(GeneratorKind::V8, 7, 8, 9);
    /// assert_eq!(WireLeaseRequest::from(&r).to_lease_request().from, 8);
    /// ```
    pub fn to_lease_request(&self) -> LeaseRequest {
        LeaseRequest {
            kind: self.kind,
            clock: self.clock,
            from: self.from,
            len: self.len,
            max_start: self.max_start,
            clock_seq: self.clock_seq,
            fresh_clock_seq: self.fresh_clock_seq,
        }
    }

    fn encode_body(&self) -> [u8; LEASE_REQUEST_LEN] {
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

    fn decode_body(b: &[u8]) -> Result<WireLeaseRequest, ProtocolError> {
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
        Ok(WireLeaseRequest {
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

fn message(code: u8, body: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(HEADER_LEN + body.len());
    // Bodies are bounded by the limits above, far below 4 GiB.
    let len = u32::try_from(body.len()).unwrap_or(u32::MAX);
    v.extend_from_slice(&Header { code, len }.encode());
    v.extend_from_slice(body);
    v
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
            op::LEASE => WireLeaseRequest::decode_body(body).map(Request::Lease),
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

/// What the daemon reports about itself.
///
/// ```
/// use uuidkit::service::protocol::{Reply, StatusReport};
/// let s = StatusReport { version: "0.1.0".into(), state: "/var/lib/uuidkit/state".into(), ..Default::default() };
/// let bytes = Reply::Status(s.clone()).encode();
/// assert_eq!(StatusReport::decode(&bytes[12..])?, s);
/// # Ok::<(), uuidkit::service::protocol::ProtocolError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatusReport {
    /// The daemon's version (`0.1.0`).
    pub version: String,
    /// Its state file.
    pub state: String,
    /// Milliseconds since it started.
    pub uptime_ms: u64,
    /// Leases granted (own protocol and uuidd time requests).
    pub leases: u64,
    /// Random UUIDs handed out.
    pub random: u64,
    /// uuidd-protocol requests answered.
    pub uuidd_requests: u64,
    /// Connections open now (including the one asking).
    pub clients: u32,
    /// Connections accepted since it started.
    pub connections: u64,
    /// Its process ID.
    pub pid: u32,
    /// The node ID of the v1 UUIDs it makes for uuidd clients.
    pub node: NodeId,
    /// The bound on the lead, in nanoseconds of the kinds' time; 0 from a daemon that
    /// does not report it (one built before the lead was bounded).
    pub lead_bound_ns: u64,
    /// The kinds the daemon leased since it started whose lead is largest (at most
    /// [`MAX_STATUS_LEADS`]), largest first.
    pub leads: Vec<KindLead>,
}

/// How far one kind's highest granted position is ahead of the daemon's reference time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindLead {
    /// The kind.
    pub kind: GeneratorKind,
    /// Nanoseconds of the kind's time; negative when the reference time has passed the
    /// highest position granted (no client asked since).
    pub lead_ns: i64,
}

/// The most [`KindLead`]s one status reply carries: a client can name any node ID, and
/// the reply must stay small.
pub const MAX_STATUS_LEADS: usize = 64;

const STATUS_FIXED: usize = 54;

/// A kind's code and node, as in a lease request.
fn kind_code(k: GeneratorKind) -> (u8, [u8; 6]) {
    match k {
        GeneratorKind::Gregorian(n) => (kind::GREGORIAN, *n.as_bytes()),
        GeneratorKind::V7 => (kind::V7, [0; 6]),
        GeneratorKind::V8 => (kind::V8, [0; 6]),
        // `b1` and `b2` have no code: sent as 16, which a daemon answers with
        // UNKNOWN_KIND.
        GeneratorKind::Draft(l) => (kind::of_draft(l).unwrap_or(kind::DRAFT), [0; 6]),
    }
}

/// The kind of a code and node; `None` for a code no kind has.
fn kind_of_code(code: u8, node: [u8; 6]) -> Option<GeneratorKind> {
    match code {
        kind::GREGORIAN => Some(GeneratorKind::Gregorian(NodeId::from_bytes(node))),
        kind::V7 => Some(GeneratorKind::V7),
        kind::V8 => Some(GeneratorKind::V8),
        c => kind::draft(c).map(GeneratorKind::Draft),
    }
}

impl StatusReport {
    fn encode_body(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(STATUS_FIXED + 4 + self.version.len() + self.state.len());
        b.extend_from_slice(&self.uptime_ms.to_be_bytes());
        b.extend_from_slice(&self.leases.to_be_bytes());
        b.extend_from_slice(&self.random.to_be_bytes());
        b.extend_from_slice(&self.uuidd_requests.to_be_bytes());
        b.extend_from_slice(&self.connections.to_be_bytes());
        b.extend_from_slice(&self.clients.to_be_bytes());
        b.extend_from_slice(&self.pid.to_be_bytes());
        b.extend_from_slice(self.node.as_bytes());
        for s in [&self.version, &self.state] {
            let t = truncate(s);
            b.extend_from_slice(&(t.len() as u16).to_be_bytes());
            b.extend_from_slice(t.as_bytes());
        }
        // Appended after the fields of the first version 1 daemons, which a client of
        // theirs stops reading before: the lead bound, then the kinds' leads.
        b.extend_from_slice(&self.lead_bound_ns.to_be_bytes());
        let leads = &self.leads[..self.leads.len().min(MAX_STATUS_LEADS)];
        b.extend_from_slice(&(leads.len() as u16).to_be_bytes());
        for l in leads {
            let (code, node) = kind_code(l.kind);
            b.push(code);
            b.extend_from_slice(&node);
            b.extend_from_slice(&l.lead_ns.to_be_bytes());
        }
        b
    }

    /// Reads a status reply body.
    ///
    /// ```
    /// use uuidkit::service::protocol::{ProtocolError, StatusReport};
    /// assert!(matches!(StatusReport::decode(&[0; 3]), Err(ProtocolError::Malformed { .. })));
    /// ```
    pub fn decode(b: &[u8]) -> Result<StatusReport, ProtocolError> {
        if b.len() < STATUS_FIXED {
            return Err(ProtocolError::malformed("length", "status body too short"));
        }
        let u64_at = |i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[i..i + 8]);
            u64::from_be_bytes(a)
        };
        let u32_at = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let mut rest = &b[STATUS_FIXED..];
        let mut text = |field: &'static str| -> Result<String, ProtocolError> {
            if rest.len() < 2 {
                return Err(ProtocolError::malformed(field, "missing"));
            }
            let n = usize::from(u16::from_be_bytes([rest[0], rest[1]]));
            let t = rest
                .get(2..2 + n)
                .ok_or_else(|| ProtocolError::malformed(field, "cut short"))?;
            let s = String::from_utf8(t.to_vec())
                .map_err(|_| ProtocolError::malformed(field, "not UTF-8"))?;
            rest = &rest[2 + n..];
            Ok(s)
        };
        let version = text("version")?;
        let state = text("state")?;
        // A daemon built before the lead was bounded ends here.
        let mut lead_bound_ns = 0;
        let mut leads = Vec::new();
        if rest.len() >= 10 {
            let mut a = [0u8; 8];
            a.copy_from_slice(&rest[..8]);
            lead_bound_ns = u64::from_be_bytes(a);
            let n = usize::from(u16::from_be_bytes([rest[8], rest[9]]));
            let entries = rest[10..].chunks_exact(15);
            if entries.len() < n || n > MAX_STATUS_LEADS {
                return Err(ProtocolError::malformed("leads", "cut short or too many"));
            }
            for e in entries.take(n) {
                let kind = kind_of_code(e[0], [e[1], e[2], e[3], e[4], e[5], e[6]])
                    .ok_or_else(|| ProtocolError::malformed("leads", "unknown kind"))?;
                let mut a = [0u8; 8];
                a.copy_from_slice(&e[7..15]);
                leads.push(KindLead {
                    kind,
                    lead_ns: i64::from_be_bytes(a),
                });
            }
        }
        Ok(StatusReport {
            version,
            state,
            uptime_ms: u64_at(0),
            leases: u64_at(8),
            random: u64_at(16),
            uuidd_requests: u64_at(24),
            connections: u64_at(32),
            clients: u32_at(40),
            pid: u32_at(44),
            node: NodeId::from_bytes([b[48], b[49], b[50], b[51], b[52], b[53]]),
            lead_bound_ns,
            leads,
        })
    }
}

/// At most [`MAX_TEXT`] bytes of `s`, cut at a character boundary.
fn truncate(s: &str) -> &str {
    if s.len() <= MAX_TEXT {
        return s;
    }
    let mut end = MAX_TEXT;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

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
                message(status::OK, &b)
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
fn decode_lease(r: &WireLeaseRequest, b: &[u8]) -> Result<Lease, ProtocolError> {
    if b.len() != LEASE_REPLY_LEN {
        return Err(ProtocolError::malformed(
            "length",
            format!("a lease reply is {LEASE_REPLY_LEN} bytes, not {}", b.len()),
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
    Ok(Lease {
        start,
        end,
        clock_seq,
        warning: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(r: &Request) -> Request {
        let b = r.encode();
        let h = Header::decode(b[..HEADER_LEN].try_into().unwrap()).unwrap();
        assert_eq!(h.len as usize, b.len() - HEADER_LEN);
        Request::decode(h.code, &b[HEADER_LEN..]).unwrap()
    }

    #[test]
    fn lease_requests_round_trip() {
        let node = NodeId::from_bytes([1, 2, 3, 4, 5, 6]);
        let mut req = LeaseRequest::new(GeneratorKind::Gregorian(node), 10, 11, 12);
        req.max_start = Some(99);
        req.clock_seq = ClockSequence::new(0x3fff);
        req.fresh_clock_seq = ClockSequence::from_masked(7);
        let w = WireLeaseRequest::from(&req);
        assert_eq!(roundtrip(&Request::Lease(w)), Request::Lease(w));
        let w = WireLeaseRequest::from(&LeaseRequest::new(GeneratorKind::V8, 0, 0, 1));
        assert_eq!(roundtrip(&Request::Lease(w)), Request::Lease(w));
    }

    /// The lead fields round-trip; a body without them (a daemon built before them) still
    /// reads, with none; a `LATER` reply carries its wait.
    #[test]
    fn status_leads_round_trip_and_are_optional() {
        let node = NodeId::from_bytes([2, 0, 0x5e, 0, 0, 9]);
        let s = StatusReport {
            version: "0.1.0".into(),
            state: "/s".into(),
            lead_bound_ns: 10_000_000_000,
            leads: vec![
                KindLead {
                    kind: GeneratorKind::V7,
                    lead_ns: 12_000_000,
                },
                KindLead {
                    kind: GeneratorKind::Gregorian(node),
                    lead_ns: -5,
                },
            ],
            ..Default::default()
        };
        let body = s.encode_body();
        assert_eq!(StatusReport::decode(&body).unwrap(), s);
        let old = &body[..STATUS_FIXED + 2 + 5 + 2 + 2];
        let r = StatusReport::decode(old).unwrap();
        assert_eq!(
            (r.lead_bound_ns, r.leads.len(), r.state.as_str()),
            (0, 0, "/s")
        );
        assert!(StatusReport::decode(&body[..body.len() - 1]).is_err());
        let later = Reply::Later { wait_ms: 1500 }.encode();
        assert_eq!(later[5], status::LATER);
        assert_eq!(
            Reply::decode(&Request::Status, later[5], &later[HEADER_LEN..]),
            Ok(Reply::Later { wait_ms: 1500 })
        );
    }

    #[test]
    fn draft_layout_kinds_round_trip_and_others_are_unknown() {
        for l in crate::layout::Layout::ALL {
            let kind = GeneratorKind::Draft(l);
            let w = WireLeaseRequest::from(&LeaseRequest::new(kind, 0, 5, 1));
            if crate::layout::draft::Units::of(l).is_some() {
                assert_eq!(roundtrip(&Request::Lease(w)), Request::Lease(w), "{l}");
            }
        }
        // 16 and 17 would be b1 and b2, which have no entries of their own; 25 and up
        // are no layout.
        let w = WireLeaseRequest::from(&LeaseRequest::new(GeneratorKind::V7, 0, 0, 1));
        for found in [16, 17, 25, 31] {
            let mut b = w.encode_body();
            b[0] = found;
            assert_eq!(
                Request::decode(op::LEASE, &b),
                Err(ProtocolError::UnknownKind { found })
            );
        }
    }

    /// The codes docs/protocol.md gives the draft layouts.
    #[test]
    fn draft_kind_codes_are_the_documented_ones() {
        let documented = [
            (18, "draft-v7-ms"),
            (19, "draft-v7-us"),
            (20, "draft-v7-ns"),
            (21, "draft-v8-32"),
            (22, "draft-v8-48"),
            (23, "draft-v8-60"),
            (24, "draft-v8-64"),
        ];
        for (code, name) in documented {
            let kind = GeneratorKind::Draft(name.parse().unwrap());
            let w = WireLeaseRequest::from(&LeaseRequest::new(kind, 0, 0, 1));
            let b = w.encode_body();
            assert_eq!(b[0], code, "{name}");
            assert_eq!(
                Request::decode(op::LEASE, &b),
                Ok(Request::Lease(w)),
                "{name}"
            );
        }
        // Every layout with a state entry has a code.
        for l in crate::layout::Layout::ALL {
            assert_eq!(
                kind::of_draft(l).is_some(),
                crate::layout::draft::Units::of(l).is_some(),
                "{l}"
            );
        }
    }

    #[test]
    fn bad_lease_fields_are_named() {
        let w = WireLeaseRequest::from(&LeaseRequest::new(GeneratorKind::V7, 0, 0, 1));
        let body = w.encode_body();
        let mut b = body;
        b[0] = 6;
        assert_eq!(
            Request::decode(op::LEASE, &b),
            Err(ProtocolError::UnknownKind { found: 6 })
        );
        let mut b = body;
        b[48..64].copy_from_slice(&(1001u128 << 42).to_be_bytes());
        assert!(matches!(
            Request::decode(op::LEASE, &b),
            Err(ProtocolError::TooLarge { field: "len", .. })
        ));
        let mut b = body;
        b[32..48].copy_from_slice(&u128::MAX.to_be_bytes());
        assert!(matches!(
            Request::decode(op::LEASE, &b),
            Err(ProtocolError::TooLarge { field: "from", .. })
        ));
        let mut b = body;
        b[1] = 0x80;
        assert!(matches!(
            Request::decode(op::LEASE, &b),
            Err(ProtocolError::Malformed { field: "flags", .. })
        ));
        assert!(matches!(
            Request::decode(op::LEASE, &body[..79]),
            Err(ProtocolError::Malformed {
                field: "length",
                ..
            })
        ));
    }

    #[test]
    fn lease_replies_are_checked_against_the_request() {
        let r = WireLeaseRequest::from(&LeaseRequest::new(GeneratorKind::V7, 0, 100, 10));
        let req = Request::Lease(r);
        let ok = |start, end| {
            let b = Reply::Lease(Lease {
                start,
                end,
                clock_seq: None,
                warning: None,
            })
            .encode();
            Reply::decode(&req, b[5], &b[HEADER_LEN..])
        };
        assert!(ok(100, 109).is_ok());
        assert!(ok(200, 209).is_ok());
        assert!(ok(99, 108).is_err());
        assert!(ok(100, 110).is_err());
        assert!(ok(110, 100).is_err());
    }

    /// The example in docs/protocol.md, byte for byte.
    #[test]
    fn documented_example() {
        let c = 1_704_067_200_000u128 << 42;
        let req = Request::Lease(WireLeaseRequest::from(&LeaseRequest::new(
            GeneratorKind::V7,
            c,
            c,
            4096,
        )));
        let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        let b = req.encode();
        assert_eq!(hex(&b[..12]), "75756b640101000000000050");
        assert_eq!(hex(&b[12..28]), "07000000000000000000000000000000");
        assert_eq!(hex(&b[28..44]), "000000000006330947d0000000000000");
        assert_eq!(hex(&b[60..76]), "00000000000000000000000000001000");
        let reply = Reply::Lease(Lease {
            start: c,
            end: c + 4095,
            clock_seq: None,
            warning: None,
        })
        .encode();
        assert_eq!(hex(&reply[..12]), "75756b640100000000000028");
        assert_eq!(hex(&reply[28..44]), "000000000006330947d0000000000fff");
        assert_eq!(hex(&reply[44..]), "ffff000000000000");
    }

    #[test]
    fn any_bytes_decode_without_panic() {
        let mut seed = 0x1234_5678_u64;
        for n in 0..2000 {
            let mut b = vec![0u8; n % 120];
            for x in &mut b {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                *x = seed as u8;
            }
            for code in 0..=255u8 {
                let _ = Request::decode(code, &b);
                let _ = Reply::decode(&Request::Status, code, &b);
                let _ = Reply::decode(&Request::Random { count: 2 }, code, &b);
            }
        }
    }
}
