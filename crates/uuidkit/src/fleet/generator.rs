//! Generators stamped with a leased machine ID: v7 (every method) and the 2021 draft's
//! layouts, each fenced by its [`LeasedId`] and kept above the previous holder's mark.

use std::sync::Arc;

use super::error::FleetError;
use super::holder::LeasedId;
use crate::generator::draft::{DraftGenerator, DraftStamp};
use crate::generator::machine_id::MachineIdError;
use crate::generator::timed::{Stamp, Timed};
use crate::generator::v7::{V7Generator, V7Method, V7Stamp};
use crate::layout::Layout;
use crate::random::Csprng;
use crate::time::{Clock, SystemClock, UnixTime};
use crate::uuid::Uuid;

/// The system clock, never earlier than the first millisecond the holder may use: a
/// holder whose clock is behind the previous holder's mark runs ahead of its clock
/// (the way a generator does after the clock went back) until the clock catches up.
#[derive(Clone, Copy, Debug)]
pub struct FloorClock {
    floor: UnixTime,
}

impl Clock for FloorClock {
    #[inline]
    fn now(&self) -> UnixTime {
        let t = SystemClock.now();
        if t < self.floor { self.floor } else { t }
    }
}

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
/// - **Fenced**: once the lease may have expired, calls fail
///   ([`FleetError::Fenced`]) until it is renewed; once it has expired,
///   [`FleetError::Lost`]. A failed call hands out nothing.
///
/// ```no_run
/// use std::sync::Arc;
/// use uuidkit::fleet::{FleetConfig, FleetGenerator, LeasedId};
/// let id = Arc::new(LeasedId::claim(&FleetConfig::new("http://127.0.0.1:2379", "web", 3)?)?);
/// let mut g = FleetGenerator::draft(id, "draft-v7-us".parse().unwrap())?;
/// let mut batch = [uuidkit::Uuid::NIL; 256];
/// g.try_fill(&mut batch)?;
/// assert!(batch.windows(2).all(|w| w[0] < w[1]));
/// # Ok::<(), uuidkit::fleet::FleetError>(())
/// ```
#[derive(Debug)]
pub struct FleetGenerator<S> {
    inner: Timed<S, FloorClock, Csprng>,
    id: Arc<LeasedId>,
    /// The last millisecond handed out, told to the holder when this generator goes.
    used: u64,
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

fn floor(id: &LeasedId) -> FloorClock {
    FloorClock {
        floor: UnixTime::from_millis(id.floor_ms()),
    }
}

impl FleetGenerator<V7Stamp> {
    /// A v7 generator of `method` stamped with `id`.
    ///
    /// # Errors
    ///
    /// [`FleetError::BadBits`] for an ID wider than 31 bits.
    pub fn v7(id: Arc<LeasedId>, method: V7Method) -> Result<Self, FleetError> {
        let m = id.machine_id();
        let g = V7Generator::new(method)
            .with_machine_id(m)
            .map_err(|e| no_room(e, m.bits(), "v7"))?;
        Ok(FleetGenerator {
            inner: g.with_clock(floor(&id)),
            id,
            used: 0,
        })
    }
}

impl FleetGenerator<DraftStamp> {
    /// A generator of the 2021 draft's `layout` stamped with `id`.
    ///
    /// # Errors
    ///
    /// [`FleetError::BadBits`] for an ID the layout's random bits cannot hold with one to
    /// spare, and for `b1`/`b2`, which are not the draft's.
    pub fn draft(id: Arc<LeasedId>, layout: Layout) -> Result<Self, FleetError> {
        let m = id.machine_id();
        let g = DraftGenerator::new(layout)
            .map_err(|_| FleetError::BadBits {
                bits: m.bits(),
                max: 0,
                layout: layout.name().to_string(),
            })?
            .with_machine_id(m)
            .map_err(|e| no_room(e, m.bits(), layout.name()))?;
        Ok(FleetGenerator {
            inner: g.with_clock(floor(&id)),
            id,
            used: 0,
        })
    }
}

impl<S: Stamp> FleetGenerator<S> {
    /// The next UUID, if the ID may be used.
    ///
    /// # Errors
    ///
    /// As [`LeasedId::permit`]: fenced, lost, or in a forked child.
    #[inline]
    pub fn try_next(&mut self) -> Result<Uuid, FleetError> {
        let u = self.inner.next();
        let last = self.inner.last_millis_covered();
        self.id.permit(last)?;
        self.used = last;
        Ok(u)
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
        self.id.permit(last)?;
        self.used = last;
        Ok(())
    }

    /// The held ID.
    pub fn leased_id(&self) -> &Arc<LeasedId> {
        &self.id
    }
}
