//! The numbers the wire carries: the magic and version of every header, the operation
//! and status codes, and the generator kinds' codes with the node ID beside them.

use crate::node::NodeId;
use crate::store::GeneratorKind;

/// The first four bytes of every message.
pub const MAGIC: [u8; 4] = *b"uukd";

/// The protocol version this library speaks.
pub const VERSION: u8 = 1;

/// Request operation codes (header byte 5 of a request).
pub mod op {
    /// A lease of positions of one generator kind.
    pub const LEASE: u8 = 1;
    /// A batch of random (v4) UUIDs.
    pub const RANDOM: u8 = 2;
    /// The daemon's status.
    pub const STATUS: u8 = 3;
}

/// Reply status codes (header byte 5 of a reply). Codes from
/// [`FIRST_FATAL`](status::FIRST_FATAL) on mean the daemon closes the connection after
/// the reply.
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
    /// A daemon in fleet mode (`uuidkitd --machine-id etcd`) cannot stamp the lease with
    /// a machine ID it holds for sure now: its etcd lease may have expired (fenced), is
    /// lost, or it is claiming a new ID. Not fatal: the connection stays open, and the
    /// same request may be granted once the daemon holds its ID again.
    pub const FENCED: u8 = 5;
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

/// A kind's code and node, as in a lease request.
pub(super) fn kind_code(k: GeneratorKind) -> (u8, [u8; 6]) {
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
pub(super) fn kind_of_code(code: u8, node: [u8; 6]) -> Option<GeneratorKind> {
    match code {
        kind::GREGORIAN => Some(GeneratorKind::Gregorian(NodeId::from_bytes(node))),
        kind::V7 => Some(GeneratorKind::V7),
        kind::V8 => Some(GeneratorKind::V8),
        c => kind::draft(c).map(GeneratorKind::Draft),
    }
}
