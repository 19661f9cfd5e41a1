//! The one shell of the timestamp-and-counter generators: v7 ([`V7Generator`]),
//! time-based v8 ([`V8Generator`]) and the 2021 draft's layouts ([`DraftGenerator`]).
//!
//! Each of them reads a clock, turns the reading into its timestamp units, takes the next
//! (timestamp, counter) from the monotonic state machine (`monotonic.rs`), admits it
//! through a state store when it has one ([`with_store`](Timed::with_store)), and packs
//! it with fresh random bits into a UUID. Only the units, the packing, the store's kind
//! and its block sizes differ from version to version: a version says those as a
//! [`Stamp`], and [`Timed`] does the rest, once for all of them.
//!
//! [`V7Generator`]: super::v7::V7Generator
//! [`V8Generator`]: super::v8::V8Generator
//! [`DraftGenerator`]: super::draft::DraftGenerator

use std::sync::Arc;

use rand_core::RngCore;

use super::leased::{self, StoreLink};
use super::monotonic::Monotonic;
use crate::random::Csprng;
use crate::store::{LeaseSource, StoreWarning};
use crate::time::{Clock, SystemClock, UnixTime};
use crate::uuid::Uuid;

/// How one version stamps its UUIDs: [`V7Stamp`](super::v7::V7Stamp) for v7,
/// [`V8Stamp`](super::v8::V8Stamp) for the time-based v8 and
/// [`DraftStamp`](super::draft::DraftStamp) for the draft layouts. Sealed: the three are
/// the generators [`Timed`] makes.
///
/// ```
/// use uuidkit::generator::{timed::Timed, v7::{V7Method, V7Stamp}};
/// // Any stamp, one shell: `V7Generator` is `Timed<V7Stamp>`.
/// fn two<S: uuidkit::generator::timed::Stamp>(g: &mut Timed<S>) -> [uuidkit::Uuid; 2] {
///     [g.next(), g.next()]
/// }
/// let [a, b] = two(&mut Timed::<V7Stamp>::new(V7Method::Counter));
/// assert!(a < b);
/// ```
pub trait Stamp: sealed::Stamp {}

impl<S: sealed::Stamp> Stamp for S {}

pub(crate) mod sealed {
    use rand_core::RngCore;

    use crate::generator::leased::BlockSizes;
    use crate::node::machine_id::MachineId;
    use crate::store::GeneratorKind;
    use crate::time::UnixTime;
    use crate::uuid::Uuid;

    /// What [`Timed`](super::Timed) asks of a version. Out of reach outside the crate, so
    /// that no other type can be a [`Stamp`](super::Stamp).
    pub trait Stamp {
        /// The kind of position this version leases from a store.
        fn kind(&self) -> GeneratorKind;
        /// Its store blocks, in its position units.
        fn blocks(&self) -> BlockSizes;
        /// A clock reading in the timestamp's units (the state machine clamps it).
        fn units(&self, now: UnixTime) -> u64;
        /// The clock, in timestamp units, that a lease for `out` (made from a reading of
        /// `units`) gives the store.
        fn lease_clock(&self, units: u64, _out: (u64, u128)) -> u64 {
            units
        }
        /// Fresh random bytes a UUID takes besides its counter: 4 (`next_u32`), 8
        /// (`next_u64`) or none.
        fn tail_bytes(&self) -> usize {
            4
        }
        /// The UUID of an admitted (timestamp, counter), with `tail` the fresh bits (the
        /// low [`tail_bytes`](Self::tail_bytes) bytes' worth, the rest zero).
        fn pack_tail(&self, out: (u64, u128), tail: u64) -> Uuid;
        /// Hands `visit` the packer of a run of timestamp `t` (see [`RunPack`]), chosen
        /// once for the run: the stamps whose packing depends on settings (v7's method
        /// and machine ID) give a packer of that one case, without a test per UUID.
        #[inline]
        fn with_run_pack<V: RunVisit>(&self, t: u64, visit: V) -> V::Out {
            visit.visit(ByStamp { stamp: self, t })
        }
        /// The UUID of an admitted (timestamp, counter), with fresh bits from `rng`.
        #[inline]
        fn pack(&self, out: (u64, u128), rng: &mut impl RngCore) -> Uuid {
            let tail = match self.tail_bytes() {
                0 => 0,
                4 => rng.next_u32() as u64,
                _ => rng.next_u64(),
            };
            self.pack_tail(out, tail)
        }
        /// The last Unix millisecond that a UUID of timestamp `units` stands for (the
        /// millisecond its unit ends in): a fleet's high-water mark is kept in
        /// milliseconds, and a UUID is under it only if its whole unit is.
        fn last_millis(&self, units: u64) -> u64;
        /// The machine ID written into every UUID, if any.
        fn machine_id(&self) -> Option<MachineId> {
            None
        }
        /// Writes `id` (brought by a lease from a daemon in fleet mode) into every UUID
        /// from now on; `Some(bits)` when the state's counter must become `bits` wide for
        /// it (v7 Method 2, whose random value makes room below itself). A version
        /// without room for machine IDs ignores it.
        fn adopt_machine_id(&mut self, _id: MachineId) -> Option<u32> {
            None
        }
        /// Stops writing the ID a lease brought (its source can no longer vouch for it);
        /// `Some(bits)`, as for `adopt_machine_id`, when the counter widens again.
        fn forget_machine_id(&mut self) -> Option<u32> {
            None
        }
    }

    /// The packing of one run's UUIDs (one timestamp): what
    /// [`pack_tail`](Stamp::pack_tail) makes of `(t, counter)` and `tail`.
    pub trait RunPack {
        fn pack(&self, counter: u128, tail: u64) -> Uuid;

        /// Fills `out` with the UUIDs of counters `counter + 1`, `counter + 2`, … (all
        /// below the counter's overflow), the tail of each from its `TAIL` bytes of
        /// `fresh`; gives back the last counter. A packer that can step its packed halves
        /// instead of packing each UUID anew overrides it.
        #[inline(always)]
        fn pack_by_one<const TAIL: usize>(
            &self,
            mut counter: u128,
            out: &mut [Uuid],
            fresh: &[u8],
        ) -> u128 {
            for (u, w) in out.iter_mut().zip(fresh.chunks_exact(TAIL.max(1))) {
                counter += 1;
                *u = self.pack(counter, super::tail_of::<TAIL>(w));
            }
            counter
        }
    }

    /// What is done with a run's packer ([`Stamp::with_run_pack`]): generic over the
    /// packer, so that its loop is made for each.
    pub trait RunVisit {
        type Out;
        fn visit<P: RunPack>(self, pack: P) -> Self::Out;
    }

    /// The packer of any stamp: its `pack_tail`.
    pub struct ByStamp<'a, S: ?Sized> {
        stamp: &'a S,
        t: u64,
    }

    impl<S: Stamp + ?Sized> RunPack for ByStamp<'_, S> {
        #[inline(always)]
        fn pack(&self, counter: u128, tail: u64) -> Uuid {
            self.stamp.pack_tail((self.t, counter), tail)
        }
    }
}

/// A generator of one timestamp-and-counter version, stamped by `S`; asks `C` for time
/// and `R` for random bits. Named by version: [`V7Generator`](super::v7::V7Generator),
/// [`V8Generator`](super::v8::V8Generator) and
/// [`DraftGenerator`](super::draft::DraftGenerator), whose pages give their guarantees.
///
/// ```
/// let mut g = uuidkit::generator::v8::V8Generator::new();
/// let (a, b) = (g.next(), g.next());
/// assert!(a < b);
/// ```
#[derive(Debug)]
pub struct Timed<S, C = SystemClock, R = Csprng> {
    stamp: S,
    clock: C,
    rng: R,
    state: Monotonic,
    store: Option<StoreLink>,
    /// The stamp's machine ID came from a lease (a daemon in fleet mode), not from the
    /// caller: it is dropped when the leases stop vouching for it.
    leased_id: bool,
}

impl<S, C, R> Timed<S, C, R> {
    /// A generator of `stamp` with the state machine `state`, on the given sources: the
    /// versions' constructors, which choose the state's widths.
    pub(crate) const fn from_parts(stamp: S, state: Monotonic, clock: C, rng: R) -> Self {
        Timed {
            stamp,
            clock,
            rng,
            state,
            store: None,
            leased_id: false,
        }
    }

    /// The stamp.
    pub(crate) const fn stamp(&self) -> &S {
        &self.stamp
    }

    /// The stamp, to change before the first UUID.
    pub(crate) fn stamp_mut(&mut self) -> &mut S {
        &mut self.stamp
    }

    /// The timestamp of the last UUID, in the stamp's units.
    pub(crate) fn last_timestamp(&self) -> u64 {
        self.state.timestamp()
    }

    /// Starts the generator at `at`: no UUID comes out stamped earlier (a fleet holder's
    /// floor, one past the previous holder's mark). Before the first UUID.
    #[cfg_attr(not(feature = "etcd"), allow(dead_code))] // the fleet's
    pub(crate) fn prime(&mut self, at: UnixTime)
    where
        S: sealed::Stamp,
        R: RngCore,
    {
        let units = self.stamp.units(at);
        self.state.prime(units, &mut self.rng);
    }

    /// A new state machine, before the first UUID (a machine ID that changes its widths).
    pub(crate) fn reset_state(&mut self, state: Monotonic) {
        self.state = state;
    }
}

impl<S: sealed::Stamp, C, R> Timed<S, C, R> {
    /// The last Unix millisecond the last UUID stands for (see the stamp's `last_millis`).
    #[cfg_attr(not(feature = "etcd"), allow(dead_code))] // the fleet's
    pub(crate) fn last_millis_covered(&self) -> u64 {
        self.stamp.last_millis(self.state.timestamp())
    }
}

impl<S: Stamp, C: Clock, R: RngCore> Timed<S, C, R> {
    /// The same generator on another clock: a stopped one, say, or a test's.
    ///
    /// ```
    /// use uuidkit::{generator::v7::{V7Generator, V7Method}, time::{FnClock, UnixTime}};
    /// let t = UnixTime::new(1_700_000_000, 0);
    /// let mut g = V7Generator::new(V7Method::Counter).with_clock(FnClock(move || t));
    /// assert_eq!(uuidkit::layout::v7::decode(&g.next())?.unix_ts_ms, 1_700_000_000_000);
    /// # Ok::<(), uuidkit::layout::LayoutError>(())
    /// ```
    pub fn with_clock<C2: Clock>(self, clock: C2) -> Timed<S, C2, R> {
        Timed {
            stamp: self.stamp,
            clock,
            rng: self.rng,
            state: self.state,
            store: self.store,
            leased_id: self.leased_id,
        }
    }

    /// Shares this version's positions in `store` with every other generator of it that
    /// uses it, in this process or any other: from now on no two of them make the same
    /// UUID (the draft layouts: the same timestamp and sequence), and this one continues
    /// above everything the store has handed out (also across restarts, crashes and a
    /// clock set back). See [`crate::store`].
    ///
    /// A store that cannot be used (unreadable, unwritable, locked too long) leaves the
    /// generator in memory from then on, with a warning in
    /// [`take_store_warnings`](Self::take_store_warnings); so does a damaged file,
    /// which is repaired.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use uuidkit::{generator::v7::{V7Generator, V7Method}, store::StateStore};
    /// let path = std::env::temp_dir().join(format!("uuidkit-doc-v7-{}", std::process::id()));
    /// let store = Arc::new(StateStore::open(&path));
    /// let mut a = V7Generator::new(V7Method::Counter).with_store(store.clone());
    /// let mut b = V7Generator::new(V7Method::Counter).with_store(store);
    /// assert_ne!(a.next(), b.next());
    /// assert!(a.take_store_warnings().is_empty());
    /// # let _ = std::fs::remove_file(&path);
    /// ```
    pub fn with_store(mut self, store: Arc<dyn LeaseSource>) -> Self {
        self.store = Some(StoreLink::new(store, self.stamp.blocks()));
        self
    }

    /// What went wrong with the store since the last call (damaged and repaired, or
    /// unusable so the generator went on in memory). The library never prints them.
    ///
    /// ```
    /// let mut g = uuidkit::generator::v8::V8Generator::new();
    /// g.next();
    /// assert!(g.take_store_warnings().is_empty(), "no store, no warnings");
    /// ```
    pub fn take_store_warnings(&mut self) -> Vec<StoreWarning> {
        leased::take_warnings(&mut self.store)
    }

    /// The next UUID.
    ///
    /// ```
    /// let mut g = uuidkit::generator::v8::V8Generator::new();
    /// assert!(g.next() < g.next());
    /// ```
    // An inherent `next` that cannot end: the `Iterator` impl wraps it in `Some`.
    #[allow(clippy::should_implement_trait)]
    #[inline]
    pub fn next(&mut self) -> Uuid {
        let now = self.clock.now();
        self.next_at(now)
    }

    /// Fills `out` with the next UUIDs, reading the clock once for the whole batch.
    ///
    /// Every UUID of the batch carries that one reading (or a later time, where the
    /// counter overflowed), which RFC 9562 §6.1 allows ("implementations MAY alter the
    /// actual timestamp"): a batch of a few hundred takes microseconds, far below the
    /// millisecond the timestamp resolves, and saves a clock read (about 25 ns here) per
    /// UUID. The guarantees of [`next`](Self::next) hold across and within batches.
    ///
    /// The batch is made in runs: the first UUID of a run takes the whole path of
    /// [`next`](Self::next) (a new tick, an overflow, a lease from the store), and the
    /// ones after it only add the step to the counter, while it stays below its overflow
    /// and inside the leased block (both checked once per run, not per UUID). Their fresh
    /// bits come from `R` in one `fill_bytes` a chunk of 256 UUIDs.
    ///
    /// ```
    /// use uuidkit::generator::v7::{V7Generator, V7Method};
    /// let mut g = V7Generator::new(V7Method::Counter);
    /// let mut batch = [uuidkit::Uuid::NIL; 256];
    /// g.fill(&mut batch);
    /// assert!(batch.windows(2).all(|w| w[0] < w[1]));
    /// ```
    pub fn fill(&mut self, out: &mut [Uuid]) {
        let units = self.stamp.units(self.clock.now());
        match (self.stamp.tail_bytes(), self.state.step_bytes()) {
            (4, 0) => self.fill_runs::<4, 0>(units, out),
            (0, 4) => self.fill_runs::<0, 4>(units, out),
            (8, 0) => self.fill_runs::<8, 0>(units, out),
            _ => {
                for u in out {
                    *u = self.next_units(units);
                }
            }
        }
    }

    /// [`fill`](Self::fill) for a stamp of `TAIL` fresh bytes a UUID and a step of
    /// `STEP` (4: Method 2's random increments; 0: by one).
    #[inline]
    fn fill_runs<const TAIL: usize, const STEP: usize>(&mut self, units: u64, out: &mut [Uuid]) {
        let per = TAIL + STEP;
        let mut fresh = [0u8; FILL_CHUNK * 8];
        for out in out.chunks_mut(FILL_CHUNK) {
            let fresh = &mut fresh[..out.len() * per];
            self.rng.fill_bytes(fresh);
            let leased = matches!(&self.store, Some(link) if link.active());
            let mut i = 0;
            while i < out.len() {
                // The run's first: the whole path (its fresh bits are drawn there).
                out[i] = self.next_units(units);
                i += 1;
                let Some((t, c, limit)) = self.state.run(leased) else {
                    continue;
                };
                let steps = Steps::<TAIL, STEP> {
                    counter: c,
                    limit,
                    out: &mut out[i..],
                    fresh: &fresh[i * per..],
                };
                let (made, c) = self.stamp.with_run_pack(t, steps);
                i += made;
                self.state.set_counter(c);
            }
        }
    }

    /// The next UUID for a clock reading the caller took (a fleet's generator looks at
    /// the reading too).
    #[inline]
    pub(crate) fn next_at(&mut self, now: UnixTime) -> Uuid {
        let units = self.stamp.units(now);
        self.next_units(units)
    }

    /// The next UUID for a clock reading in the stamp's units.
    #[inline]
    fn next_units(&mut self, units: u64) -> Uuid {
        let out = self.state.next(units, &mut self.rng);
        let out = match &self.store {
            None => out,
            Some(_) if self.state.in_block(out) => out,
            Some(_) => self.admit_past_block(units, out),
        };
        self.stamp.pack(out, &mut self.rng)
    }

    /// Admits an output past the leased block: a new lease, and the machine ID it brings
    /// (a daemon in fleet mode) written into every UUID from then on.
    #[cold]
    #[inline(never)]
    fn admit_past_block(&mut self, units: u64, out: (u64, u128)) -> (u64, u128) {
        let Some(link) = &mut self.store else {
            return out;
        };
        let clock = self.stamp.lease_clock(units, out);
        let out = self
            .state
            .admit(link, self.stamp.kind(), out, clock, &mut self.rng);
        let bits = match link.machine_id() {
            Some(id) if Some(id) != self.stamp.machine_id() => {
                self.leased_id = true;
                self.stamp.adopt_machine_id(id)
            }
            // The leases no longer vouch for the ID (the daemon is fenced, gone, or
            // failed): another holder may have it now, so no UUID made without a lease
            // carries it. Method 2 widens again, the draft layouts' ID bits turn random.
            None if self.leased_id => {
                self.leased_id = false;
                self.stamp.forget_machine_id()
            }
            _ => None,
        };
        match bits {
            Some(bits) => self.state.rewidth(bits, out, link, &mut self.rng),
            None => out,
        }
    }
}

/// The steps of one run of [`Timed::fill_runs`]: from `counter`, up to `limit`, as many
/// UUIDs of `out` as fit, with their fresh bits from `fresh` (`TAIL + STEP` bytes each).
/// Gives back how many it made and the last counter.
struct Steps<'a, const TAIL: usize, const STEP: usize> {
    counter: u128,
    limit: u128,
    out: &'a mut [Uuid],
    fresh: &'a [u8],
}

/// The tail bits of a UUID's fresh bytes `w`, the first `TAIL` of them (0, 4 or 8).
#[inline(always)]
pub(crate) fn tail_of<const TAIL: usize>(w: &[u8]) -> u64 {
    match TAIL {
        0 => 0,
        4 => u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as u64,
        _ => u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]),
    }
}

impl<const TAIL: usize, const STEP: usize> Steps<'_, TAIL, STEP> {
    /// The step of a UUID's fresh bytes `w`: 1 to 2^32 (`STEP` 4), else 1.
    #[inline(always)]
    fn step(w: &[u8]) -> u128 {
        match STEP {
            0 => 1,
            _ => u32::from_le_bytes([w[TAIL], w[TAIL + 1], w[TAIL + 2], w[TAIL + 3]]) as u128 + 1,
        }
    }
}

impl<const TAIL: usize, const STEP: usize> sealed::RunVisit for Steps<'_, TAIL, STEP> {
    type Out = (usize, u128);

    #[inline(always)]
    fn visit<P: sealed::RunPack>(self, pack: P) -> (usize, u128) {
        let per = TAIL + STEP;
        let Steps {
            mut counter,
            limit,
            out,
            fresh,
        } = self;
        // `counter` is at most its limit, at most 2^74 − 1: nothing wraps.
        let room = limit.saturating_sub(counter);
        if STEP == 0 {
            // Steps of one: as many as there is room for, counted once.
            let n = out.len().min(room.min(usize::MAX as u128) as usize);
            let counter = pack.pack_by_one::<TAIL>(counter, &mut out[..n], fresh);
            return (n, counter);
        }
        let fresh = fresh.chunks_exact(per);
        if room >> 32 >= out.len() as u128 {
            // Every step is at most 2^32: all of them fit, none is checked.
            for (u, w) in out.iter_mut().zip(fresh) {
                counter += Self::step(w);
                *u = pack.pack(counter, tail_of::<TAIL>(w));
            }
            return (out.len(), counter);
        }
        let mut made = 0;
        for (u, w) in out.iter_mut().zip(fresh) {
            let next = counter + Self::step(w);
            if next > limit {
                break;
            }
            counter = next;
            *u = pack.pack(counter, tail_of::<TAIL>(w));
            made += 1;
        }
        (made, counter)
    }
}

/// UUIDs whose fresh bits [`Timed::fill`] draws at once: 256 of them at most 2 KiB.
const FILL_CHUNK: usize = 256;

impl<S: Stamp, C: Clock, R: RngCore> Iterator for Timed<S, C, R> {
    type Item = Uuid;
    fn next(&mut self) -> Option<Uuid> {
        Some(Timed::next(self))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Duration;

    use super::*;
    use crate::generator::draft::DraftGenerator;
    use crate::generator::v7::{V7Generator, V7Method};
    use crate::generator::v8::V8Generator;
    use crate::node::machine_id::MachineId;
    use crate::store::{Lease, LeaseRequest, MemoryStorage, StateStore, StoreError};
    use crate::time::ManualClock;

    /// A state store that grants blocks of at most `len` positions, and records them.
    #[derive(Debug)]
    struct Small {
        store: StateStore,
        len: u128,
        granted: Mutex<Vec<(u128, u128)>>,
    }

    impl Small {
        fn new(len: u128) -> Arc<Small> {
            Arc::new(Small {
                store: StateStore::with_storage(Box::new(MemoryStorage::new())),
                len,
                granted: Mutex::new(Vec::new()),
            })
        }

        /// Whether `p` lies in a block granted so far.
        fn covers(&self, p: u128) -> bool {
            let granted = self.granted.lock().unwrap();
            granted.iter().any(|&(a, b)| (a..=b).contains(&p))
        }
    }

    impl LeaseSource for Small {
        fn lease(&self, req: &LeaseRequest) -> Result<Lease, StoreError> {
            let mut req = *req;
            req.len = req.len.min(self.len);
            let l = self.store.lease(&req)?;
            self.granted.lock().unwrap().push((l.start, l.end));
            Ok(l)
        }
    }

    /// A v7 UUID's store position, whatever its method: 48 bits of milliseconds, 12 of
    /// `rand_a`, the first 30 of `rand_b`.
    fn v7_position(u: &Uuid) -> u128 {
        let u = u.as_u128();
        (u >> 80) << 42 | ((u >> 64) & 0xfff) << 30 | ((u >> 32) & ((1 << 30) - 1))
    }

    /// The clock moves a batch: on, back, or not at all.
    fn mv(clock: &ManualClock, i: usize) {
        match i % 5 {
            0 | 1 => {}
            2 => clock.advance(Duration::from_micros(300)),
            3 => clock.step_back(Duration::from_millis(2)),
            _ => clock.advance(Duration::from_millis(3)),
        }
    }

    const SIZES: [usize; 7] = [1, 2, 7, 255, 256, 257, 1000];

    /// Batches of any size, on a clock that stops, steps back and moves on, through a
    /// store that grants small blocks: every v7 UUID lies in a block leased to it, and
    /// all of them, of every stamp, are strictly increasing.
    #[test]
    fn fill_keeps_order_and_stays_in_its_blocks() {
        let start = UnixTime::new(1_700_000_000, 0);
        for method in V7Method::ALL {
            for len in [1, 10, 1000, 1 << 40] {
                let clock = ManualClock::new(start);
                let store = Small::new(len);
                let mut g =
                    V7Generator::with_sources(method, &clock, Csprng).with_store(store.clone());
                let mut all = Vec::new();
                for (i, n) in SIZES.iter().cycle().take(40).enumerate() {
                    let mut batch = vec![Uuid::NIL; *n];
                    g.fill(&mut batch);
                    all.extend(batch);
                    mv(&clock, i);
                }
                assert!(g.take_store_warnings().is_empty());
                assert!(
                    all.windows(2).all(|w| w[0] < w[1]),
                    "{method} {len}: not ordered"
                );
                let outside = all.iter().filter(|u| !store.covers(v7_position(u))).count();
                assert_eq!(
                    outside, 0,
                    "{method} {len}: UUIDs outside the leased blocks"
                );
            }
        }
        type Fill = Box<dyn Fn(&ManualClock, Arc<Small>) -> Vec<Uuid>>;
        let fills: Vec<(&str, Fill)> = vec![
            (
                "v8",
                Box::new(|c, s| run(V8Generator::with_sources(c, Csprng).with_store(s), c)),
            ),
            (
                "draft-v7-ms",
                Box::new(|c, s| {
                    let g = DraftGenerator::with_sources("draft-v7-ms".parse().unwrap(), c, Csprng);
                    run(g.unwrap().with_store(s), c)
                }),
            ),
            (
                "draft-v8-32",
                Box::new(|c, s| {
                    let g = DraftGenerator::with_sources("draft-v8-32".parse().unwrap(), c, Csprng);
                    run(g.unwrap().with_store(s), c)
                }),
            ),
        ];
        fn run<S: Stamp>(mut g: Timed<S, &ManualClock>, clock: &ManualClock) -> Vec<Uuid> {
            let mut all = Vec::new();
            for (i, n) in SIZES.iter().cycle().take(40).enumerate() {
                let mut batch = vec![Uuid::NIL; *n];
                g.fill(&mut batch);
                all.extend(batch);
                mv(clock, i);
            }
            assert!(g.take_store_warnings().is_empty());
            all
        }
        for (name, fill) in fills {
            for len in [1, 1000, 1 << 40] {
                let all = fill(&ManualClock::new(start), Small::new(len));
                assert!(
                    all.windows(2).all(|w| w[0] < w[1]),
                    "{name} {len}: not ordered"
                );
            }
        }
    }

    /// Counters narrow enough to overflow inside a batch (by one, and by Method 2's
    /// random steps) borrow the next tick there, with or without a store.
    #[test]
    fn fill_borrows_the_next_tick_when_the_counter_overflows() {
        let clock = ManualClock::new(UnixTime::new(1_700_000_000, 0));
        for (method, bits) in [(V7Method::Counter, 4), (V7Method::Random, 38)] {
            for store in [false, true] {
                let mut g = V7Generator::with_sources(method, &clock, Csprng);
                g.reset_state(Monotonic::new(
                    48,
                    bits,
                    match method {
                        V7Method::Random => crate::generator::monotonic::Step::Random,
                        _ => crate::generator::monotonic::Step::One,
                    },
                ));
                if store {
                    g = g.with_store(Small::new(1 << 20));
                }
                let mut all = vec![Uuid::NIL; 10_000];
                for chunk in all.chunks_mut(300) {
                    g.fill(chunk);
                }
                assert!(all.windows(2).all(|w| w[0] < w[1]), "{method} {store}");
                let ticks: std::collections::BTreeSet<u128> =
                    all.iter().map(|u| u.as_u128() >> 80).collect();
                assert!(ticks.len() > 20, "{method} {store}: {} ticks", ticks.len());
            }
        }
    }

    /// At the very last tick of the range a batch stays on it (no wrap, no panic).
    #[test]
    fn fill_at_the_end_of_the_range_stays_on_the_last_tick() {
        let clock = ManualClock::new(UnixTime::new(i64::MAX / 4, 0));
        let mut g = V7Generator::with_sources(V7Method::Counter, &clock, Csprng);
        g.reset_state(Monotonic::new(
            48,
            4,
            crate::generator::monotonic::Step::One,
        ));
        let mut all = vec![Uuid::NIL; 1000];
        g.fill(&mut all);
        assert!(all.iter().all(|u| u.as_u128() >> 80 == (1 << 48) - 1));
    }

    /// A state store whose leases bring a machine ID, as a daemon in fleet mode's do.
    #[derive(Debug)]
    struct Fleet {
        store: StateStore,
        id: Mutex<Option<MachineId>>,
        /// Answers every lease as a fenced daemon does.
        fenced: std::sync::atomic::AtomicBool,
    }

    impl LeaseSource for Fleet {
        fn lease(&self, req: &LeaseRequest) -> Result<Lease, StoreError> {
            if self.fenced.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(StoreError::Fenced(crate::store::StoreWarning::from_daemon(
                    "/run/test.sock",
                    crate::store::Problem::Fenced {
                        message: "lease expired".into(),
                    },
                    crate::store::Outcome::InMemory,
                )));
            }
            let mut l = self.store.lease(req)?;
            l.machine_id = *self.id.lock().unwrap();
            Ok(l)
        }
    }

    /// UUIDs before the leases bring an ID carry none; once a lease brings one, every UUID
    /// carries it where the method (or layout) puts a machine ID, and the generator's
    /// UUIDs stay strictly increasing and unique across the change (Method 2 narrows its
    /// random value to make room below it). Once the source is fenced, no UUID carries
    /// it (Method 2 widens again), and the order still holds.
    #[test]
    fn an_id_a_lease_brings_is_stamped_into_every_uuid_until_the_leases_stop() {
        let id = MachineId::new(5, 3).unwrap();
        // An ID a service's lease brings goes in the last bits, whatever the method or
        // layout, so that clients of services with different IDs never meet.
        let last = |u: &Uuid| (u.as_u128() & 7) as u64;
        type Fill = Box<dyn FnMut(&mut [Uuid]) -> Vec<StoreWarning>>;
        type Make = Box<dyn Fn(Arc<Fleet>) -> Fill>;
        type IdOf<'a> = &'a dyn Fn(&Uuid) -> u64;
        /// Fills a batch from `g` and hands back its store warnings.
        fn filler<S: Stamp + 'static>(mut g: Timed<S>) -> Fill {
            Box::new(move |out| {
                g.fill(out);
                g.take_store_warnings()
            })
        }
        let cases: Vec<(&str, Make, IdOf)> = vec![
            (
                "v7 counter",
                Box::new(|f| filler(V7Generator::new(V7Method::Counter).with_store(f))),
                &last,
            ),
            (
                "v7 precision",
                Box::new(|f| filler(V7Generator::new(V7Method::Precision).with_store(f))),
                &last,
            ),
            (
                "v7 random",
                Box::new(|f| filler(V7Generator::new(V7Method::Random).with_store(f))),
                &last,
            ),
            (
                "draft-v7-ms",
                Box::new(|f| {
                    let layout = "draft-v7-ms".parse().unwrap();
                    filler(DraftGenerator::new(layout).unwrap().with_store(f))
                }),
                &last,
            ),
        ];
        for (name, make, id_of) in cases {
            let fleet = Arc::new(Fleet {
                store: StateStore::with_storage(Box::new(MemoryStorage::new())),
                id: Mutex::new(None),
                fenced: Default::default(),
            });
            let mut fill = make(fleet.clone());
            let mut before = vec![Uuid::NIL; 1000];
            assert!(fill(&mut before).is_empty());
            *fleet.id.lock().unwrap() = Some(id);
            // A new millisecond: a new lease, which brings the ID.
            std::thread::sleep(Duration::from_millis(3));
            let mut after = vec![Uuid::NIL; 20_000];
            for chunk in after.chunks_mut(500) {
                assert!(fill(chunk).is_empty());
            }
            assert!(after.iter().all(|u| id_of(u) == 5), "{name}");
            // The daemon is fenced: the generator warns, goes on in memory, and its
            // UUIDs no longer carry the ID (its bits are random: 1 in 8 is 5 by chance).
            // Past the last block first (at most 16 ms of the clock): a block the daemon
            // granted while it held the ID is under its mark, and is used to its end.
            fleet
                .fenced
                .store(true, std::sync::atomic::Ordering::Relaxed);
            std::thread::sleep(Duration::from_millis(40));
            let mut fenced = vec![Uuid::NIL; 20_000];
            let warnings: Vec<_> = fenced.chunks_mut(500).flat_map(&mut fill).collect();
            assert_eq!(warnings.len(), 1, "{name}: {warnings:?}");
            let still = fenced.iter().filter(|u| id_of(u) == 5).count();
            assert!(still < 5_000, "{name}: {still} of 20000 still carry the ID");
            let all: Vec<Uuid> = before
                .iter()
                .chain(&after)
                .chain(&fenced)
                .copied()
                .collect();
            assert!(all.windows(2).all(|w| w[0] < w[1]), "{name}: not ordered");
        }
    }
}
