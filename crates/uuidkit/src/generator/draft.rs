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

use core::fmt;
use std::sync::Arc;

use rand_core::RngCore;

use super::leased::{self, BlockSizes, StoreLink};
use super::machine_id::{MachineId, MachineIdError};
use super::monotonic::{Monotonic, Step};
use crate::Uuid;
use crate::layout::Layout;
use crate::layout::draft::{Units, pack_v7_fields, pack_v8_fields};
use crate::random::Csprng;
use crate::store::{GeneratorKind, LeaseSource, StoreWarning};
use crate::time::{Clock, SystemClock};

/// `b1` or `b2` given to [`DraftGenerator`], which makes only the draft layouts
/// ([`CustomGenerator`](super::custom::CustomGenerator) makes `b1`; `b2` is name-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotADraftLayout(pub Layout);

impl fmt::Display for NotADraftLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is not one of the 2021 draft's layouts (draft-v7-ms, draft-v7-us, \
             draft-v7-ns, draft-v8-32, draft-v8-48, draft-v8-60, draft-v8-64)",
            self.0
        )
    }
}

impl std::error::Error for NotADraftLayout {}

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
#[derive(Debug)]
pub struct DraftGenerator<C = SystemClock, R = Csprng> {
    clock: C,
    rng: R,
    layout: Layout,
    units: Units,
    machine_id: Option<MachineId>,
    state: Monotonic,
    store: Option<StoreLink>,
}

impl DraftGenerator {
    /// A generator of `layout` on the system clock and the default CSPRNG.
    ///
    /// # Errors
    ///
    /// [`NotADraftLayout`] for `b1` or `b2`, which are not the draft's layouts.
    pub fn new(layout: Layout) -> Result<DraftGenerator, NotADraftLayout> {
        DraftGenerator::with_sources(layout, SystemClock, Csprng)
    }
}

impl<C: Clock, R: RngCore> DraftGenerator<C, R> {
    /// A generator of `layout` on the given clock and random source.
    ///
    /// # Errors
    ///
    /// [`NotADraftLayout`] for `b1` or `b2`, which are not the draft's layouts.
    pub fn with_sources(
        layout: Layout,
        clock: C,
        rng: R,
    ) -> Result<DraftGenerator<C, R>, NotADraftLayout> {
        let units = Units::of(layout).ok_or(NotADraftLayout(layout))?;
        Ok(DraftGenerator {
            clock,
            rng,
            layout,
            units,
            machine_id: None,
            state: Monotonic::new(units.timestamp_bits, units.sequence_bits, Step::One)
                .zero_seeded(),
            store: None,
        })
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
        id.check_room(self.layout.random_bits(), self.layout.name())?;
        self.machine_id = Some(id);
        Ok(self)
    }

    /// Shares this layout's positions in `store` with every generator of the same layout
    /// that uses it, in this process or another: from now on no two of them make the same
    /// (timestamp, sequence), and this one continues above everything the store handed
    /// out, also across restarts, crashes and a clock set back. See [`crate::store`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use uuidkit::{generator::draft::DraftGenerator, store::StateStore};
    /// let path = std::env::temp_dir().join(format!("uuidkit-doc-draft-{}", std::process::id()));
    /// let store = Arc::new(StateStore::open(&path));
    /// let layout = "draft-v8-32".parse()?;
    /// let mut a = DraftGenerator::new(layout)?.with_store(store.clone());
    /// let mut b = DraftGenerator::new(layout)?.with_store(store);
    /// let (x, y) = (a.next(), b.next());
    /// assert_ne!(x.as_u128() >> 64, y.as_u128() >> 64, "timestamp and sequence differ");
    /// # let _ = std::fs::remove_file(&path);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_store(mut self, store: Arc<dyn LeaseSource>) -> Self {
        let u = self.units;
        let tick = 1u128 << u.sequence_bits;
        // A millisecond of the layout's time at least (one unit for seconds), up to 16
        // ms, grown while a block lasts less than 32 ms: the v7 rules in these units.
        let ms = |n: u128| ((n * u.per_second as u128) / 1000).max(1) << u.sequence_bits;
        let sizes = BlockSizes {
            min: ms(1).max(tick),
            max: ms(16).max(tick),
            target: ms(32).max(tick),
        };
        self.store = Some(StoreLink::new(store, sizes));
        self
    }

    /// What went wrong with the store since the last call; see
    /// [`UnixGenerator::take_store_warnings`](super::unix::UnixGenerator::take_store_warnings).
    pub fn take_store_warnings(&mut self) -> Vec<StoreWarning> {
        leased::take_warnings(&mut self.store)
    }

    /// The layout this generator writes.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The next UUID.
    // An inherent `next` that cannot end: the `Iterator` impl wraps it in `Some`.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Uuid {
        let now = self.clock.now();
        self.next_at(now)
    }

    /// Fills `out` with the next UUIDs, reading the clock once for the batch; see
    /// [`UnixGenerator::fill`](super::unix::UnixGenerator::fill).
    ///
    /// ```
    /// let mut g = uuidkit::generator::draft::DraftGenerator::new("draft-v8-60".parse()?)?;
    /// let mut batch = [uuidkit::Uuid::NIL; 64];
    /// g.fill(&mut batch);
    /// assert!(batch.windows(2).all(|w| w[0] < w[1]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fill(&mut self, out: &mut [Uuid]) {
        let now = self.clock.now();
        for u in out {
            *u = self.next_at(now);
        }
    }

    fn next_at(&mut self, now: crate::time::UnixTime) -> Uuid {
        let units = self.units.at(now);
        let out = self.state.next(units, &mut self.rng);
        let (units, sequence) = match &mut self.store {
            None => out,
            Some(link) => self.state.admit(
                link,
                GeneratorKind::Draft(self.layout),
                out,
                units,
                &mut self.rng,
            ),
        };
        // Past the layout's last unit only at the very end of its range (see the
        // guarantees): stay on it rather than wrap.
        let units = units.min(self.units.max);
        let width = self.layout.random_bits();
        let mut random = (self.rng.next_u64() as u128) & ((1u128 << width) - 1);
        if let Some(m) = &self.machine_id {
            random = m.place(random, width);
        }
        if random == 0 {
            // The draft: the node MUST NOT be all zeros. One value in 2^40 or more.
            random = 1;
        }
        let random = random as u64;
        let sequence = sequence as u64;
        match self.layout {
            Layout::DraftV7(p) => {
                let per = p.units_per_second();
                pack_v7_fields(p, units / per, units % per, sequence, random)
            }
            Layout::DraftV8(k) => pack_v8_fields(k, units, sequence, random),
            // `with_sources` accepts only draft layouts.
            Layout::B1 | Layout::B2 => Uuid::NIL,
        }
    }
}

impl<C: Clock, R: RngCore> Iterator for DraftGenerator<C, R> {
    type Item = Uuid;
    fn next(&mut self) -> Option<Uuid> {
        Some(DraftGenerator::next(self))
    }
}
