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
//!
//! The format's parts, each in a file: `codes` (magic, version, the [`op`], [`status`]
//! and [`kind`] codes), `error` ([`ProtocolError`]), `frame` (the [`Header`] and the
//! bounds on text), `request` ([`Request`], the lease request's body, the limits on both),
//! `report` ([`StatusReport`]) and `reply` ([`Reply`]).

mod codes;
mod error;
mod frame;
mod reply;
mod report;
mod request;
#[cfg(test)]
mod tests;

pub use codes::{MAGIC, VERSION, kind, op, status};
pub use error::ProtocolError;
pub use frame::{HEADER_LEN, Header, MAX_TEXT};
pub use reply::{LEASE_REPLY_LEN, LEASE_REPLY_WITH_ID_LEN, MAX_REPLY_BODY, Reply};
pub use report::{FleetReport, KindLead, MAX_STATUS_LEADS, StatusReport};
pub use request::{LEASE_REQUEST_LEN, MAX_RANDOM_COUNT, MAX_REQUEST_BODY, Request, max_lease_len};
