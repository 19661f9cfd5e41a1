//! Generators of the 2021 draft's layouts ([`crate::layout::draft`]): its v7 at
//! millisecond, microsecond or nanosecond precision and its v8 with a 32-, 48-, 60- or
//! 64-bit timestamp, all written as version 8.
//!
//! They run on the same timestamp-and-counter state machine as v7 and the time-based v8,
//! with the draft's rule for the sequence: it starts at **0** on each new timestamp (where
//! RFC 9562 v7 seeds it at random) and never rolls over.
//!
//! # What a zero-based sequence means for guessing
//! Knowing one UUID of a timestamp tells the sequence of the next ones of that timestamp
//! (1, 2, …) and that the first of any timestamp has sequence 0; only the random (node)
//! bits after the sequence are unguessable: 62 bits for `draft-v7-ms`, `draft-v8-32` and
//! `draft-v8-48`, 48 for `draft-v7-us`, 40 for `draft-v7-ns`, 54 for `draft-v8-60` and
//! `draft-v8-64`, less any machine-ID bits. Where UUIDs must not be guessable, use v4
//! (or v7, whose counter is seeded at random).

use super::leased::BlockSizes;
use super::monotonic::{Monotonic, Step};
use super::timed::{Timed, sealed};
use crate::error::UnknownName;
use crate::layout::Layout;
use crate::layout::draft::{Units, pack_v7_fields, pack_v8_fields};
use crate::node::machine_id::{MachineId, MachineIdError};
use crate::random::Csprng;
use crate::store::GeneratorKind;
use crate::time::{SystemClock, UnixTime};
use crate::uuid::Uuid;

/// The draft layouts' names, the [`UnknownName::known`] of an error for `b1` or `b2`:
/// every layout's but those two, which come first in [`Layout::NAMES`].
const DRAFT_NAMES: [&str; 7] = {
    let mut names = [""; 7];
    let mut i = 0;
    while i < names.len() {
        names[i] = Layout::NAMES[i + 2];
        i += 1;
    }
    names
};

/// The error for `b1` or `b2` given to [`DraftGenerator`], which makes only the draft
/// layouts ([`V8Generator`](super::v8::V8Generator) makes `b1`; `b2` is name-based).
fn not_a_draft_layout(layout: Layout) -> UnknownName {
    UnknownName::new("2021 draft layout", layout.name(), &DRAFT_NAMES)
}

/// A generator of one of the 2021 draft's layouts.
///
/// # Guarantees
/// - **Strictly increasing**: each UUID is greater than the one before from this
///   generator (as bytes, so as text), whatever the clock does.
/// - **Sequence**: 0 for the first UUID of each new timestamp, then 1, 2, … for the next
///   ones in the same timestamp unit (the layout's finest: a millisecond, microsecond,
///   nanosecond, second, 100 ns tick or 16 ns).
/// - **Clock going back**: the timestamp stays where it was and the sequence counts on; it
///   follows the clock again once the clock passes it.
/// - **Sequence overflow** (4096 UUIDs in one unit with a 12-bit sequence, 16,384 with
///   14 bits, 256 with 8 bits): the timestamp moves one unit ahead and the sequence
///   restarts at 0. It never wraps, and no UUID repeats.
/// - **Random bits** come fresh from `R` for every UUID, after the machine ID if one is
///   set; the node (random part) is never all zero.
/// - **fork**: the sequence is not random, so parent and child go on from the same
///   (timestamp, sequence) and are kept apart by their random bits alone (the default
///   random source rekeys in the child): with the probability those bits give, which a
///   wide machine ID lowers. With a store, the child leases its own block and the two
///   never share a (timestamp, sequence).
/// - **Range**: readings before 1970 (1582 for `draft-v8-60`) count as its start; past
///   the layout's end (`draft-v7-ms`/`-us`: 36-bit seconds, the year 4147; `draft-v7-ns`:
///   2262, the end of 63-bit nanoseconds; `draft-v8-32`: 2106; `draft-v8-48`: 10889;
///   `draft-v8-60`: 5236; `draft-v8-64`: 2554) as its last unit. In that last unit, a
///   sequence overflow cannot move on: the UUIDs then repeat sequences and stay apart
///   only by their random bits.
///
/// ```
/// use uuidkit::generator::draft::DraftGenerator;
/// let mut g = DraftGenerator::new("draft-v7-us".parse()?)?;
/// let (a, b) = (g.next(), g.next());
/// assert!(a < b);
/// assert_eq!(a.version(), uuidkit::Version::V8);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type DraftGenerator<C = SystemClock, R = Csprng> = Timed<DraftStamp, C, R>;

/// A draft layout's stamp: its timestamp units, its sequence, and the machine ID (if any)
/// at the head of its random bits. [`DraftGenerator`] is `Timed<DraftStamp>`.
///
/// ```
/// use uuidkit::generator::draft::DraftStamp;
/// let stamp = DraftStamp::new("draft-v7-ns".parse()?)?;
/// assert_eq!(stamp.layout().name(), "draft-v7-ns");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct DraftStamp {
    layout: Layout,
    units: Units,
    machine_id: Option<MachineId>,
    /// The ID came from a service's lease: it goes in the last random bits, where every
    /// version a service's clients make puts it.
    id_last: bool,
}

impl DraftStamp {
    /// The stamp of `layout`; an error for `b1` and `b2`, which are not the draft's.
    ///
    /// ```
    /// use uuidkit::generator::draft::DraftStamp;
    /// assert!(DraftStamp::new("b1".parse()?).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`UnknownName`] for `b1` or `b2`; it lists the draft's layouts.
    pub fn new(layout: Layout) -> Result<DraftStamp, UnknownName> {
        let units = Units::of(layout).ok_or_else(|| not_a_draft_layout(layout))?;
        Ok(DraftStamp {
            layout,
            units,
            machine_id: None,
            id_last: false,
        })
    }

    /// The layout this stamp writes.
    ///
    /// ```
    /// use uuidkit::generator::draft::DraftStamp;
    /// let layout = "draft-v8-48".parse()?;
    /// assert_eq!(DraftStamp::new(layout)?.layout(), layout);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn layout(&self) -> Layout {
        self.layout
    }
}

impl DraftGenerator {
    /// A generator of `layout` on the system clock and the default CSPRNG.
    ///
    /// ```
    /// use uuidkit::generator::draft::DraftGenerator;
    /// assert!(DraftGenerator::new("b2".parse()?).is_err(), "not a draft layout");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    /// # Errors
    ///
    /// [`UnknownName`] for `b1` or `b2`, which are not the draft's
    /// layouts; it lists the draft's.
    pub fn new(layout: Layout) -> Result<DraftGenerator, UnknownName> {
        DraftGenerator::with_sources(layout, SystemClock, Csprng)
    }
}

impl<C, R> DraftGenerator<C, R> {
    /// A generator of `layout` on the given clock and random source.
    ///
    /// ```
    /// use uuidkit::{time::ManualClock, generator::draft::DraftGenerator};
    /// use uuidkit::{random::Csprng, time::UnixTime};
    /// let clock = ManualClock::new(UnixTime::new(1_700_000_000, 0));
    /// let mut g = DraftGenerator::with_sources("draft-v7-ms".parse()?, &clock, Csprng)?;
    /// assert!(g.next() < g.next());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    /// # Errors
    ///
    /// [`UnknownName`] for `b1` or `b2`, which are not the draft's
    /// layouts; it lists the draft's.
    pub fn with_sources(
        layout: Layout,
        clock: C,
        rng: R,
    ) -> Result<DraftGenerator<C, R>, UnknownName> {
        let stamp = DraftStamp::new(layout)?;
        let u = stamp.units;
        let state = Monotonic::new(u.timestamp_bits, u.sequence_bits, Step::One).zero_seeded();
        Ok(Timed::from_parts(stamp, state, clock, rng))
    }

    /// Puts `id` in the first random bits, right after the sequence (the draft's
    /// "Distributed UUID Generation"); an error when it leaves no random bit.
    ///
    /// ```
    /// use uuidkit::generator::{draft::DraftGenerator, machine_id::MachineId};
    /// use uuidkit::layout::{decode_as, Layout};
    /// let layout: Layout = "draft-v8-48".parse()?;
    /// let mut g = DraftGenerator::new(layout)?.with_machine_id(MachineId::new(7, 10)?)?;
    /// let d = decode_as(&g.next(), layout)?;
    /// assert_eq!(d.machine_id(10).unwrap().0, 7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`MachineIdError::NoRoom`] when the layout's random bits cannot hold the ID and one
    /// random bit.
    pub fn with_machine_id(mut self, id: MachineId) -> Result<Self, MachineIdError> {
        let layout = self.layout();
        id.check_room(layout.random_bits(), layout.name())?;
        self.stamp_mut().machine_id = Some(id);
        self.stamp_mut().id_last = false;
        Ok(self)
    }

    /// The layout this generator writes.
    ///
    /// ```
    /// use uuidkit::generator::draft::DraftGenerator;
    /// let layout = "draft-v8-64".parse()?;
    /// assert_eq!(DraftGenerator::new(layout)?.layout(), layout);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn layout(&self) -> Layout {
        self.stamp().layout
    }
}

impl sealed::Stamp for DraftStamp {
    fn kind(&self) -> GeneratorKind {
        GeneratorKind::Draft(self.layout)
    }

    fn blocks(&self) -> BlockSizes {
        let u = self.units;
        let tick = 1u128 << u.sequence_bits;
        // A millisecond of the layout's time at least (one unit for seconds), up to 16
        // ms, grown while a block lasts less than 32 ms: the v7 rules in these units.
        let ms = |n: u128| ((n * u.per_second as u128) / 1000).max(1) << u.sequence_bits;
        BlockSizes {
            min: ms(1).max(tick),
            max: ms(16).max(tick),
            target: ms(32).max(tick),
        }
    }

    fn units(&self, now: UnixTime) -> u64 {
        self.units.at(now)
    }

    fn last_millis(&self, units: u64) -> u64 {
        // The nanosecond before the next unit starts, in whole milliseconds.
        let next = self.units.to_unix(units.saturating_add(1));
        let ns = next.secs() as i128 * 1_000_000_000 + next.subsec_nanos() as i128 - 1;
        (ns.max(0) / 1_000_000) as u64
    }

    fn machine_id(&self) -> Option<MachineId> {
        self.machine_id
    }

    fn adopt_machine_id(&mut self, id: MachineId) -> Option<u32> {
        if id
            .check_room(self.layout.random_bits(), self.layout.name())
            .is_ok()
        {
            self.machine_id = Some(id);
            self.id_last = true;
        }
        None
    }

    fn forget_machine_id(&mut self) -> Option<u32> {
        self.machine_id = None;
        None
    }

    fn tail_bytes(&self) -> usize {
        8
    }

    #[inline]
    fn pack_tail(&self, (units, sequence): (u64, u128), tail: u64) -> Uuid {
        // Past the layout's last unit only at the very end of its range (see the
        // guarantees): stay on it rather than wrap.
        let units = units.min(self.units.max);
        let width = self.layout.random_bits();
        let mut random = (tail as u128) & ((1u128 << width) - 1);
        let mut id_low = 0;
        if let Some(m) = &self.machine_id {
            random = if self.id_last {
                id_low = m.bits();
                m.place_last(random)
            } else {
                m.place(random, width)
            };
        }
        if random == 0 {
            // The draft: the node MUST NOT be all zeros. One value in 2^40 or more. The
            // lowest random bit that is not the ID's.
            random = 1 << id_low;
        }
        let random = random as u64;
        let sequence = sequence as u64;
        match self.layout {
            Layout::DraftV7(p) => {
                let per = p.units_per_second();
                pack_v7_fields(p, units / per, units % per, sequence, random)
            }
            Layout::DraftV8(k) => pack_v8_fields(k, units, sequence, random),
            // `DraftStamp::new` accepts only draft layouts.
            Layout::B1 | Layout::B2 => Uuid::NIL,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::timed::sealed::Stamp as _;
    use rand_core::RngCore;

    /// An RNG whose every draw is 0: the node the draft forbids, all zeros.
    struct Zeros;

    impl RngCore for Zeros {
        fn next_u32(&mut self) -> u32 {
            0
        }
        fn next_u64(&mut self) -> u64 {
            0
        }
        fn fill_bytes(&mut self, dest: &mut [u8]) {
            dest.fill(0);
        }
    }

    /// A node of all zeros is never written, and the bit set instead of it is never the
    /// ID's: with a service's ID 0 in the last bits, the first bit above it; with an ID
    /// at the head, the last bit.
    #[test]
    fn an_all_zero_node_never_changes_the_id() {
        for name in ["draft-v7-ms", "draft-v7-ns", "draft-v8-32", "draft-v8-64"] {
            let layout: Layout = name.parse().unwrap();
            let id = MachineId::new(0, 5).unwrap();
            let mut leased = DraftStamp::new(layout).unwrap();
            leased.adopt_machine_id(id);
            let u = leased.pack((1000, 0), &mut Zeros);
            assert_eq!(u.as_u128() & 0x3f, 0x20, "{name}: {u}");
            let mut own = DraftStamp::new(layout).unwrap();
            own.machine_id = Some(id);
            let u = own.pack((1000, 0), &mut Zeros);
            assert_eq!(u.as_u128() & 1, 1, "{name}: {u}");
        }
    }
}
