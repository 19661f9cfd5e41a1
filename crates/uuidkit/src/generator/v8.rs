//! Time-based version 8 generation, in the layout of RFC 9562 Appendix B.1: 60 bits of
//! Unix 10 ns steps, then a 30-bit counter and 32 random bits in `custom_c`.

use rand_core::RngCore;

use std::sync::Arc;

use super::leased::{self, BlockSizes, StoreLink};
use super::monotonic::{Monotonic, Step};
use crate::Uuid;
use crate::layout::v8::pack_time_based;
use crate::random::Csprng;
use crate::store::{GeneratorKind, LeaseSource, StoreWarning};
use crate::time::{Clock, SystemClock};

/// A generator of time-based v8 UUIDs (Appendix B.1 layout).
///
/// # Guarantees
/// The same as [`V7Generator`](super::v7::V7Generator)'s, with a 10 ns tick: each
/// UUID is greater than the one before from this generator; in one tick (or after the
/// clock went back) a 30-bit counter, seeded at random with its top bit clear, counts up;
/// on its overflow the embedded time moves one 10 ns step ahead. Readings before 1970
/// count as 1970, readings past the layout's end (the year 2335) as its last step. In
/// that last step, should the counter overflow (after at least 2^29 UUIDs in it), it is
/// seeded again: UUIDs stay unique with the probability of their random bits, but are no
/// longer ordered.
///
/// ```
/// let mut g = uuidkit::generator::v8::V8Generator::new();
/// let (a, b) = (g.next(), g.next());
/// assert!(a < b && a.version() == uuidkit::Version::V8);
/// ```
#[derive(Debug)]
pub struct V8Generator<C = SystemClock, R = Csprng> {
    clock: C,
    rng: R,
    state: Monotonic,
    store: Option<StoreLink>,
}

/// v8 blocks: from 10 µs to 16 ms of 10 ns steps with all their counter values, grown
/// while a block lasts less than 32 ms (see the v7 blocks).
const V8_BLOCKS: BlockSizes = BlockSizes {
    min: 1_000 << 30,
    max: 1_600_000 << 30,
    target: 3_200_000 << 30,
};

impl V8Generator {
    /// A generator on the system clock and the default CSPRNG.
    pub const fn new() -> V8Generator {
        V8Generator::with_sources(SystemClock, Csprng)
    }
}

impl Default for V8Generator {
    fn default() -> V8Generator {
        V8Generator::new()
    }
}

impl<C: Clock, R: RngCore> V8Generator<C, R> {
    /// A generator on the given clock and random source.
    pub const fn with_sources(clock: C, rng: R) -> V8Generator<C, R> {
        V8Generator {
            clock,
            rng,
            state: Monotonic::new(60, 30, Step::One),
            store: None,
        }
    }

    /// Shares the v8 positions of the state in `store` with every other generator that
    /// uses it; see [`V7Generator::with_store`](super::v7::V7Generator::with_store).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use uuidkit::{generator::v8::V8Generator, store::StateStore};
    /// let path = std::env::temp_dir().join(format!("uuidkit-doc-v8-{}", std::process::id()));
    /// let store = Arc::new(StateStore::open(&path));
    /// let mut a = V8Generator::new().with_store(store.clone());
    /// let mut b = V8Generator::new().with_store(store);
    /// assert_ne!(a.next(), b.next());
    /// # let _ = std::fs::remove_file(&path);
    /// ```
    pub fn with_store(mut self, store: Arc<dyn LeaseSource>) -> Self {
        self.store = Some(StoreLink::new(store, V8_BLOCKS));
        self
    }

    /// What went wrong with the store since the last call; see
    /// [`V7Generator::take_store_warnings`](super::v7::V7Generator::take_store_warnings).
    pub fn take_store_warnings(&mut self) -> Vec<StoreWarning> {
        leased::take_warnings(&mut self.store)
    }

    /// The next UUID.
    // An inherent `next` that cannot end: the `Iterator` impl wraps it in `Some`.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Uuid {
        let now = self.clock.now();
        self.next_at(now)
    }

    /// Fills `out` with the next UUIDs, reading the clock once for the batch; see
    /// [`V7Generator::fill`](super::v7::V7Generator::fill) for why that is allowed.
    ///
    /// ```
    /// let mut g = uuidkit::generator::v8::V8Generator::new();
    /// let mut batch = [uuidkit::Uuid::NIL; 64];
    /// g.fill(&mut batch);
    /// assert!(batch.windows(2).all(|w| w[0] < w[1]));
    /// ```
    pub fn fill(&mut self, out: &mut [Uuid]) {
        let now = self.clock.now();
        for u in out {
            *u = self.next_at(now);
        }
    }

    fn next_at(&mut self, now: crate::time::UnixTime) -> Uuid {
        let steps = now.nanos_since_epoch() / 10;
        let out = self.state.next(steps, &mut self.rng);
        let (steps, counter) = match &mut self.store {
            None => out,
            Some(link) => self
                .state
                .admit(link, GeneratorKind::V8, out, steps, &mut self.rng),
        };
        let tail = self.rng.next_u32() as u64;
        pack_time_based(steps, ((counter as u64) << 32) | tail)
    }
}

impl<C: Clock, R: RngCore> Iterator for V8Generator<C, R> {
    type Item = Uuid;
    fn next(&mut self) -> Option<Uuid> {
        Some(V8Generator::next(self))
    }
}
