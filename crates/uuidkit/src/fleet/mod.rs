//! A fleet: machine IDs leased from etcd, so that time-ordered UUIDs from many hosts are
//! unique by construction (feature `etcd`).
//!
//! RFC 9562 §6.4 leaves "the creation and negotiation of unique node ids among nodes" out
//! of scope, and the 2021 draft's machine-ID bits come with no way to hand them out. A
//! fleet hands them out with etcd, the usual lease service:
//!
//! 1. [`LeasedId::claim`] takes the lowest free ID in `0 .. 2^B` under
//!    `/uuidkit/<fleet>/machine-id/<n>` with a lease (10 s by default), in one
//!    transaction that succeeds only if nobody holds the key, and renews it in the
//!    background.
//! 2. Each ID has a **high-water mark** beside it (`…/<n>/mark`, Unix milliseconds, no
//!    lease): the holder writes it ahead of the clock (a time-to-live ahead, raised before
//!    it is reached) and hands out nothing stamped later; the next holder's claim
//!    transaction succeeds only if the mark is the one it read (and writes its own first
//!    mark), and it starts strictly above it, whatever its own clock says. Marks are
//!    bounded: a holder raises its own at most a time-to-live past its clock, never past
//!    [`LAST_MARK_MS`] (or its layout's end), and a claim skips an ID whose mark is more
//!    than [`CLAIM_HORIZON`] ahead ([`LeaseStatus::skipped`]).
//! 3. A **fence** stops a holder whose lease may have expired (see `holder.rs`).
//! 4. [`FleetGenerator`] stamps the ID into v7 (every method) or a draft layout.
//!
//! Distinct IDs among live holders, and the marks between one holder of an ID and the
//! next, make the UUIDs of the whole fleet unique without any probability, as long as
//! the fleet has no more than 2^B hosts at once (the next one waits or is refused).
//!
//! `keys.rs` says what is written where in etcd; `etcd.rs` is the only file that speaks
//! to it.

mod config;
mod error;
mod etcd;
mod generator;
mod holder;
mod keys;

pub use config::{CLAIM_HORIZON, DEFAULT_TTL, FleetConfig, LAST_MARK_MS, MAX_BITS, Placement};
pub use error::FleetError;
pub use generator::FleetGenerator;
pub use holder::{LeaseStatus, LeasedId};
