//! Leases: what a generator asks for ([`LeaseRequest`]), what it is granted ([`Lease`]),
//! and where it asks ([`LeaseSource`]).

use core::fmt;

use super::error::{Outcome, Problem, StoreError, StoreWarning};
use super::kind::GeneratorKind;
use crate::layout::ClockSequence;
use crate::node::machine_id::MachineId;

/// What a generator asks of [`StateStore::lease`](crate::store::StateStore::lease).
///
/// ```
/// use uuidkit::store::{GeneratorKind, LeaseRequest};
/// let req = LeaseRequest::new(GeneratorKind::V8, 100 << 30, (100 << 30) + 7, 1 << 20);
/// assert_eq!(req.max_start, None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaseRequest {
    /// Whose positions.
    pub kind: GeneratorKind,
    /// The clock reading, in the kind's position units, without any random seed. The
    /// store compares it with the previous lease's reading to see the clock go back.
    pub clock: u128,
    /// The first position the caller would like: the clock reading, plus a random seed
    /// where the generator uses one. The lease starts here unless that is at or below a
    /// position already leased.
    pub from: u128,
    /// How many positions (at least 1; 0 is taken as 1).
    pub len: u128,
    /// If the lease would start above this, grant nothing and report
    /// [`StoreError::Ahead`]: for a generator that would rather wait for its clock than
    /// run far ahead of it.
    pub max_start: Option<u128>,
    /// Gregorian: a clock sequence the caller has fixed (it is used and stored); `None`
    /// to use the stored one.
    pub clock_seq: Option<ClockSequence>,
    /// Gregorian: the clock sequence a new entry starts with when the caller fixed none;
    /// a random one, as RFC 9562 §6.3 asks when there is no state.
    pub fresh_clock_seq: ClockSequence,
}

impl LeaseRequest {
    /// A request for `len` positions from `from` at clock reading `clock`, with no
    /// `max_start`, no fixed clock sequence, and 0 as the fresh one (set
    /// [`fresh_clock_seq`](Self::fresh_clock_seq) to a random value for Gregorian kinds).
    ///
    /// ```
    /// use uuidkit::store::{GeneratorKind, LeaseRequest};
    /// let req = LeaseRequest::new(GeneratorKind::V7, 5 << 42, 5 << 42, 16);
    /// assert_eq!((req.from, req.len), (5 << 42, 16));
    /// ```
    pub fn new(kind: GeneratorKind, clock: u128, from: u128, len: u128) -> LeaseRequest {
        LeaseRequest {
            kind,
            clock,
            from,
            len,
            max_start: None,
            clock_seq: None,
            fresh_clock_seq: ClockSequence::from_masked(0),
        }
    }
}

/// A block of positions granted to one caller, which alone generates from it.
///
/// ```
/// use uuidkit::store::{GeneratorKind, LeaseRequest, MemoryStorage, StateStore};
/// let store = StateStore::with_storage(Box::new(MemoryStorage::new()));
/// let lease = store.lease(&LeaseRequest::new(GeneratorKind::V7, 0, 10, 5))?;
/// assert_eq!((lease.start, lease.end, lease.len()), (10, 14, 5));
/// assert!(lease.warning.is_none() && lease.clock_seq.is_none() && lease.machine_id.is_none());
/// # Ok::<(), uuidkit::store::StoreError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The first position: `max(from, high + 1)`.
    pub start: u128,
    /// The last position (inclusive): `min(start + len − 1, the kind's last)`.
    pub end: u128,
    /// Gregorian: the clock sequence to use with this block; `None` for v7 and v8.
    pub clock_seq: Option<ClockSequence>,
    /// The file was damaged and has been rewritten; generation goes on. Show it once.
    pub warning: Option<StoreWarning>,
    /// The machine ID every UUID made from this lease must carry: set by a daemon in
    /// fleet mode (`uuidkitd --machine-id etcd`) for v7 and the draft layouts, whose
    /// generators then write it where [`V7Method`](crate::generator::v7::V7Method) (or
    /// the layout) puts a machine ID. `None` from a state file and from any other daemon.
    pub machine_id: Option<MachineId>,
}

impl Lease {
    /// How many positions: `end − start + 1`.
    ///
    /// ```
    /// # use uuidkit::store::{GeneratorKind, LeaseRequest, MemoryStorage, StateStore};
    /// # let store = StateStore::with_storage(Box::new(MemoryStorage::new()));
    /// let lease = store.lease(&LeaseRequest::new(GeneratorKind::V8, 0, 0, 3))?;
    /// assert_eq!(lease.len(), 3);
    /// # Ok::<(), uuidkit::store::StoreError>(())
    /// ```
    #[allow(clippy::len_without_is_empty)] // a lease is never empty
    pub fn len(&self) -> u128 {
        self.end - self.start + 1
    }
}

/// Where generators lease blocks of positions: a state file ([`StateStore`](crate::store::StateStore)), or anything
/// that leases from one on their behalf (a service serving processes that cannot share
/// the file). Generators take one through `with_store`.
///
/// ```
/// use std::sync::Arc;
/// use uuidkit::store::{GeneratorKind, LeaseRequest, LeaseSource, StateStore};
/// let path = std::env::temp_dir().join(format!("uuidkit-doc-source-{}", std::process::id()));
/// let source: Arc<dyn LeaseSource> = Arc::new(StateStore::open(&path));
/// let lease = source.lease(&LeaseRequest::new(GeneratorKind::V7, 1 << 42, 1 << 42, 10))?;
/// assert_eq!(lease.len(), 10);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), uuidkit::store::StoreError>(())
/// ```
pub trait LeaseSource: Send + Sync + fmt::Debug {
    /// A block of positions no other user of the source has or will get; see
    /// [`StateStore::lease`](crate::store::StateStore::lease) for the rules.
    ///
    /// # Errors
    ///
    /// As [`StateStore::lease`](crate::store::StateStore::lease); a source that reaches its positions through something
    /// else (a daemon) reports that something's failures as [`StoreError::Unavailable`].
    fn lease(&self, req: &LeaseRequest) -> Result<Lease, StoreError>;

    /// A warning naming this source, for what a generator finds out from its leases
    /// (such as [`StoreError::Exhausted`], which names nothing): a state file's path, a
    /// daemon's socket. By default it names no file.
    ///
    /// ```
    /// use uuidkit::store::{GeneratorKind, LeaseSource, Outcome, Problem, StateStore};
    /// let store = StateStore::open("/x/state");
    /// let w = store.warning(Problem::RangeUsedUp { kind: GeneratorKind::V7 }, Outcome::InMemory);
    /// assert!(w.to_string().starts_with("state file /x/state: its v7 positions are used up"));
    /// ```
    fn warning(&self, problem: Problem, outcome: Outcome) -> StoreWarning {
        StoreWarning::new("<unnamed lease source>", problem, outcome)
    }
}
