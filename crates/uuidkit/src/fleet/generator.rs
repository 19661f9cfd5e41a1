//! Generators stamped with a leased machine ID: v7 (every method) and the 2021 draft's
//! layouts, each fenced by its [`LeasedId`] and kept above the previous holder's mark.

use std::sync::Arc;

use super::config::Placement;
use super::error::FleetError;
use super::holder::LeasedId;
use crate::generator::draft::{DraftGenerator, DraftStamp};
use crate::generator::timed::{Stamp, Timed};
use crate::generator::v7::{V7Generator, V7Method, V7Stamp};
use crate::layout::Layout;
use crate::node::machine_id::MachineIdError;
use crate::random::Csprng;
use crate::time::{Clock, SystemClock, UnixTime};
use crate::uuid::Uuid;

/// A generator of one timestamp-and-counter version whose UUIDs carry a leased machine
/// ID.
///
/// # Guarantees
/// - Everything the version's own generator guarantees (strictly increasing, clock going
///   back, overflow); the ID sits where [`V7Method`] (or the draft layout) puts it.
/// - **Unique across the fleet, not by chance**: live holders have different IDs (etcd
///   hands each ID to one lease), and a UUID is handed out only if its time is at or
///   below the ID's high-water mark already written to etcd, which the next holder of the
///   ID starts strictly above. So no two holders, at once or one after the other, make
///   the same UUID, whatever their clocks say.
/// - **One position per ID in a process**: generators sharing one [`LeasedId`] lease
///   their (time, counter) positions in blocks from it, as processes sharing a state
///   file do from the file, so no two of them make the same one, and each new one starts
///   above every block the others have leased.
/// - **Fenced**: once the lease may have expired, calls fail
///   ([`FleetError::Fenced`]) until it is renewed; once it has expired,
///   [`FleetError::Lost`]. A failed call hands out nothing.
///
/// ```no_run
/// use std::sync::Arc;
/// use uuidkit::fleet::{FleetConfig, FleetGenerator, LeasedId, Placement};
/// let layout = "draft-v7-us".parse().unwrap();
/// let cfg = FleetConfig::new("http://127.0.0.1:2379", "web", 3)?
///     .with_placement(Placement::Draft(layout));
/// let id = Arc::new(LeasedId::claim(&cfg)?);
/// let mut g = FleetGenerator::draft(id, layout)?;
/// let mut batch = [uuidkit::Uuid::NIL; 256];
/// g.try_fill(&mut batch)?;
/// assert!(batch.windows(2).all(|w| w[0] < w[1]));
/// # Ok::<(), uuidkit::fleet::FleetError>(())
/// ```
#[derive(Debug)]
pub struct FleetGenerator<S> {
    inner: Timed<S, SystemClock, Csprng>,
    id: Arc<LeasedId>,
    /// The last millisecond handed out, told to the holder when this generator goes.
    used: u64,
    /// The system clock's reading (nanoseconds since 1970) at the last full check of the
    /// lease by `try_next`, which permitted UUIDs up to millisecond `used`; 0 for none.
    checked_at: u64,
    /// The process's `fork` generation when the ID was claimed.
    fork_generation: u64,
}

impl<S> Drop for FleetGenerator<S> {
    fn drop(&mut self) {
        self.id.note_used(self.used);
    }
}

fn no_room(e: MachineIdError, bits: u32, layout: &str) -> FleetError {
    let max = match e {
        MachineIdError::NoRoom { max, .. } => max,
        _ => 0,
    };
    FleetError::BadBits {
        bits,
        max,
        layout: layout.to_string(),
    }
}

impl FleetGenerator<V7Stamp> {
    /// A v7 generator of `method` stamped with `id`.
    ///
    /// # Errors
    ///
    /// [`FleetError::BadBits`] for an ID wider than 31 bits, [`FleetError::Geometry`]
    /// when the ID was claimed for another [`Placement`] than `method`'s.
    pub fn v7(id: Arc<LeasedId>, method: V7Method) -> Result<Self, FleetError> {
        id.check_placement(Placement::of_v7(method))?;
        let m = id.machine_id();
        let g = V7Generator::new(method)
            .with_machine_id(m)
            .map_err(|e| no_room(e, m.bits(), "v7"))?;
        Ok(FleetGenerator::on(g, id))
    }
}

impl FleetGenerator<DraftStamp> {
    /// A generator of the 2021 draft's `layout` stamped with `id`.
    ///
    /// # Errors
    ///
    /// [`FleetError::BadBits`] for an ID the layout's random bits cannot hold with one to
    /// spare, and for `b1`/`b2`, which are not the draft's; [`FleetError::Geometry`]
    /// when the ID was claimed for another [`Placement`].
    pub fn draft(id: Arc<LeasedId>, layout: Layout) -> Result<Self, FleetError> {
        id.check_placement(Placement::Draft(layout))?;
        let m = id.machine_id();
        let g = DraftGenerator::new(layout)
            .map_err(|_| FleetError::BadBits {
                bits: m.bits(),
                max: 0,
                layout: layout.name().to_string(),
            })?
            .with_machine_id(m)
            .map_err(|e| no_room(e, m.bits(), layout.name()))?;
        Ok(FleetGenerator::on(g, id))
    }
}

impl<S: Stamp> FleetGenerator<S> {
    /// `g`, stamped with `id`'s machine ID, started at the holder's floor (one past the
    /// previous holder's mark): a holder whose clock is behind it runs ahead of its clock
    /// from there, as a generator does after the clock went back, until the clock catches
    /// up. Its positions are leased in blocks from the ID's own store, which every
    /// generator on the ID shares: two of them never make the same (time, counter), and
    /// a new one starts above everything the others have leased.
    fn on(g: Timed<S>, id: Arc<LeasedId>) -> Self {
        let mut g = g.with_store(id.positions());
        if id.floor_ms() > 0 {
            g.prime(UnixTime::from_millis(id.floor_ms()));
        }
        FleetGenerator {
            inner: g,
            fork_generation: id.fork_generation(),
            id,
            used: 0,
            checked_at: 0,
        }
    }

    /// The next UUID, if the ID may be used.
    ///
    /// The lease is checked in full ([`LeasedId::permit`]: the fence on the monotonic
    /// clock, the mark, `fork`) unless a full check passed less than a millisecond
    /// earlier by the system clock, which this call reads anyway, and this UUID's
    /// millisecond is one that check permitted: then only `fork` is looked at. A clock
    /// set back or forward, a process stopped and woken, a new millisecond: each fails
    /// that test and checks in full. So the fence is looked at in every millisecond in
    /// which UUIDs are handed out, without a second clock read per UUID.
    ///
    /// # Errors
    ///
    /// As [`LeasedId::permit`]: fenced, lost, or in a forked child.
    #[inline]
    pub fn try_next(&mut self) -> Result<Uuid, FleetError> {
        let now = SystemClock.now();
        let u = self.inner.next_at(now);
        let last = self.inner.last_millis_covered();
        let ns = now.nanos_since_epoch();
        if ns.wrapping_sub(self.checked_at) < 1_000_000
            && last <= self.used
            && crate::platform::fork_generation_relaxed() == self.fork_generation
        {
            return Ok(u);
        }
        self.check(last, ns)?;
        Ok(u)
    }

    /// The full check: of every batch, and of [`try_next`](Self::try_next) out of its way.
    #[cold]
    #[inline(never)]
    fn check(&mut self, last: u64, ns: u64) -> Result<(), FleetError> {
        self.id.permit(last)?;
        self.used = last;
        self.checked_at = ns;
        Ok(())
    }

    /// Fills `out`, if the ID may be used (one check for the whole batch: its last UUID
    /// is its latest).
    ///
    /// # Errors
    ///
    /// As [`LeasedId::permit`]; `out` then holds nothing to hand out.
    pub fn try_fill(&mut self, out: &mut [Uuid]) -> Result<(), FleetError> {
        self.inner.fill(out);
        let last = self.inner.last_millis_covered();
        // A batch checks in full, and leaves `try_next` to check in full next time (no
        // reading to measure its millisecond from).
        self.check(last, 0)
    }

    /// The held ID.
    pub fn leased_id(&self) -> &Arc<LeasedId> {
        &self.id
    }
}
