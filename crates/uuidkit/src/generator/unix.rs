//! Version 7 generation (RFC 9562 §5.7, §6.2): Unix milliseconds and the three methods
//! that keep UUIDs from one generator strictly increasing.
//!
//! # The process-wide generator ([`crate::v7`], [`crate::v7_fill`])
//! Method 1 with a 42-bit counter, as [`UnixGenerator`], shared by every thread without a
//! lock:
//!
//! - **One word, one `fetch_add`.** The state is one 64-bit word: the millisecond
//!   (relative to the process's first use; 40 bits, 34 years) and a 23-bit count within
//!   it. Each UUID is one atomic addition (a batch of up to 1,024: one addition of its
//!   length), which never retries, and the order of the additions is the order of the
//!   UUIDs, across all threads. A count that overflows carries into the next
//!   millisecond, as §6.2 says a counter overflow should. When the word is behind the
//!   clock, one compare-and-swap lifts it to the clock's millisecond; it is never
//!   lowered, so a clock set back leaves the embedded time standing until the clock
//!   catches up. The counter in the UUID is a per-millisecond seed plus the count: the
//!   seed is 41 bits (top bit of the 42 clear) of AES-128 of the millisecond under a key
//!   drawn from the CSPRNG for the process, so it is as unpredictable as a seed drawn at
//!   random each millisecond, yet the same in every thread. 32 bits of every UUID come
//!   fresh from the thread's CSPRNG.
//! - **The clock gate.** Reading the system clock costs about 25 ns; the CPU's
//!   invariant time-stamp counter a few. Each thread keeps its last clock reading, and
//!   how many counter ticks may pass before that reading's millisecond can have ended:
//!   the time left in it less a 20 µs margin, at the counter's measured rate less 1/64.
//!   While fewer ticks have passed, the thread uses that millisecond without reading
//!   the clock; otherwise it reads it. It reads it on any doubt: no invariant counter
//!   (or not readable, or under Miri), a rate not measured yet (it is measured against
//!   `CLOCK_MONOTONIC` over the process's first ~15 ms of use), a counter that went back
//!   (another core), a reading within the margin of its millisecond's end, and after
//!   `fork`. **Bound**: the timestamp is always the system clock's millisecond at a
//!   reading taken less than one millisecond earlier; unless the clock was set in
//!   between, it is the millisecond a fresh read would give. RFC 9562 §6.1 allows
//!   timestamps altered this little ("implementations MAY alter the actual timestamp").
//! - **fork.** A child process takes a new seed key and moves the word a millisecond
//!   on before its first UUID: its UUIDs are greater than every one the process made
//!   before the fork, and its counters are not its parent's.
//! - **Window end.** Should the clock run 34 years past the process's first use, or
//!   reach the end of the 48-bit range, the generator moves for good to a 128-bit state
//!   advanced by compare-and-swap, above everything the word handed out.
//! - **With a state file** ([`crate::use_state_file`], or `UUIDKIT_STATE`) none of this
//!   is used: every UUID is admitted through the store's lease under a lock, as with an
//!   owned generator.

use core::fmt;
use core::str::FromStr;

use rand_core::RngCore;

use core::mem::ManuallyDrop;
use core::sync::atomic::AtomicU64;
use std::sync::Arc;

use aes::Aes128Enc;
use aes::cipher::{BlockEncrypt, KeyInit};

use super::leased::{self, BlockSizes, StoreLink};
use super::monotonic::{Monotonic, Step};
use crate::Uuid;
use crate::layout::v7::pack;
use crate::platform::tsc::TickSource;
use crate::random::Csprng;
use crate::store::{GeneratorKind, LeaseSource, StoreWarning};
use crate::time::{Clock, SystemClock, UnixTime};

/// The §6.2 method that fills `rand_a` and `rand_b`.
///
/// | method | `rand_a` (12 bits) | `rand_b` (62 bits) |
/// |---|---|---|
/// | `Counter` (Method 1, default) | counter bits 41–30 | counter bits 29–0, then 32 random bits |
/// | `Random` (Method 2) | \ the top 12 of a 74-bit monotonic random value | \ its low 62 bits |
/// | `Precision` (Method 3) | sub-millisecond fraction × 4096, rounded down | 30-bit counter, then 32 random bits |
///
/// The counter of Method 1 is 42 bits, the width the `uuid` crate and others settled on:
/// seeded at random with its top bit clear on each new millisecond, it has room for at
/// least 2^41 (2.2 × 10^12) UUIDs in one millisecond before it overflows, which no
/// machine reaches, while 32 fresh random bits in every UUID keep two generators (two
/// processes) apart even inside the same millisecond: with 41 random seed bits and 32
/// random tail bits, two processes collide only if both match. Unguessable they are not,
/// next to a known UUID: the next UUID of the same millisecond has the known counter plus
/// one, so only its 32 tail bits are fresh (RFC 9562 §6.9 and §8 leave counter-based
/// methods guessable this way; use v4 where a UUID must not be guessed). Each method's
/// fresh bits are tabled in docs/collisions.md.
///
/// ```
/// use uuidkit::generator::unix::V7Method;
/// assert_eq!("precision".parse::<V7Method>()?, V7Method::Precision);
/// # Ok::<(), uuidkit::generator::unix::MethodParseError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum V7Method {
    /// Method 1: fixed-length dedicated counter.
    #[default]
    Counter,
    /// Method 2: monotonic random.
    Random,
    /// Method 3: replace leftmost random bits with increased clock precision.
    Precision,
}

impl V7Method {
    /// `counter`, `random` or `precision`.
    pub const fn name(self) -> &'static str {
        match self {
            V7Method::Counter => "counter",
            V7Method::Random => "random",
            V7Method::Precision => "precision",
        }
    }
}

impl fmt::Display for V7Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A method name that is not `counter`, `random` or `precision`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodParseError(String);

impl fmt::Display for MethodParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown v7 method {:?}: expected counter, random or precision",
            self.0
        )
    }
}

impl std::error::Error for MethodParseError {}

impl FromStr for V7Method {
    type Err = MethodParseError;
    fn from_str(s: &str) -> Result<V7Method, MethodParseError> {
        match s {
            "counter" => Ok(V7Method::Counter),
            "random" => Ok(V7Method::Random),
            "precision" => Ok(V7Method::Precision),
            _ => Err(MethodParseError(s.to_string())),
        }
    }
}

/// A v7 generator: owns its state, asks `C` for time and `R` for random bits.
///
/// # Guarantees
/// - **Strictly increasing**: every UUID is greater (as bytes, so as text and as
///   `Uuid`) than the one before from the same generator, whatever the clock does.
/// - **Clock going back**: the generator keeps its last timestamp and keeps counting; the
///   embedded time then stands still until the clock catches up with it, after which it
///   follows the clock again. It never jumps back.
/// - **Counter overflow**: the embedded millisecond (for `Precision`, the 1/4096 ms
///   unit) moves one ahead and the counter is seeded again; nothing wraps or repeats.
///   With Method 1 that needs 2^41 UUIDs in one millisecond, so in practice the embedded
///   time runs ahead of the clock only after the clock went back, and by at most that step.
/// - **Unpredictable**: 32 bits of every UUID (74 with `Random`) come fresh from `R`.
/// - **fork**: the default random source rekeys in a child, and the generator reseeds its
///   counter there, so parent and child continue with different bits.
/// - A clock reading before 1970 counts as 1970; one past 48 bits of milliseconds
///   (10889-08-02T05:31:50.655Z) as the last millisecond (for `Precision`, its last
///   1/4096 ms).
/// - **End of the range**: in that last millisecond (unit) there is no later tick to
///   borrow. Should its counter overflow there — after at least 2^41 UUIDs with
///   `Counter`, 2^29 with `Precision`, about 2^41 random steps with `Random` — the
///   counter is seeded again: UUIDs stay unique with the probability of their random
///   bits, but are no longer ordered. Nothing panics or wraps to 1970.
///
/// ```
/// use uuidkit::generator::unix::{UnixGenerator, V7Method};
/// let mut g = UnixGenerator::new(V7Method::Counter);
/// let (a, b) = (g.next(), g.next());
/// assert!(a < b);
/// assert_eq!(a.version(), uuidkit::Version::V7);
/// ```
#[derive(Debug)]
pub struct UnixGenerator<C = SystemClock, R = Csprng> {
    clock: C,
    rng: R,
    method: V7Method,
    state: Monotonic,
    store: Option<StoreLink>,
}

/// v7 blocks: at least 2^36 counter values of one millisecond (a one-UUID process leases
/// little), at most 16 ms, grown while a block lasts less than 32 ms: a process at full
/// speed leases about 100 times a second, and others' blocks start at most 16 ms ahead.
const V7_BLOCKS: BlockSizes = BlockSizes {
    min: 1 << 36,
    max: 16 << 42,
    target: 32 << 42,
};

impl UnixGenerator {
    /// A generator on the system clock and the default CSPRNG.
    pub const fn new(method: V7Method) -> UnixGenerator {
        UnixGenerator::with_sources(method, SystemClock, Csprng)
    }
}

impl Default for UnixGenerator {
    fn default() -> UnixGenerator {
        UnixGenerator::new(V7Method::Counter)
    }
}

impl<C: Clock, R: RngCore> UnixGenerator<C, R> {
    /// A generator on the given clock and random source.
    pub const fn with_sources(method: V7Method, clock: C, rng: R) -> UnixGenerator<C, R> {
        let state = match method {
            V7Method::Counter => Monotonic::new(48, 42, Step::One),
            V7Method::Random => Monotonic::new(48, 74, Step::Random),
            V7Method::Precision => Monotonic::new(60, 30, Step::One),
        };
        UnixGenerator {
            clock,
            rng,
            method,
            state,
            store: None,
        }
    }

    /// Shares the v7 positions of the state in `store` with every other generator that
    /// uses it, in this process or any other: from now on no two of them make the same
    /// UUID, and this one continues above everything the store has handed out (also
    /// across restarts, crashes and a clock set back). See [`crate::store`].
    ///
    /// A store that cannot be used (unreadable, unwritable, locked too long) leaves the
    /// generator in memory from then on, with a warning in
    /// [`take_store_warnings`](Self::take_store_warnings); so does a damaged file,
    /// which is repaired.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use uuidkit::{generator::unix::{UnixGenerator, V7Method}, store::StateStore};
    /// let path = std::env::temp_dir().join(format!("uuidkit-doc-v7-{}", std::process::id()));
    /// let store = Arc::new(StateStore::open(&path));
    /// let mut a = UnixGenerator::new(V7Method::Counter).with_store(store.clone());
    /// let mut b = UnixGenerator::new(V7Method::Counter).with_store(store);
    /// assert_ne!(a.next(), b.next());
    /// assert!(a.take_store_warnings().is_empty());
    /// # let _ = std::fs::remove_file(&path);
    /// ```
    pub fn with_store(mut self, store: Arc<dyn LeaseSource>) -> Self {
        self.store = Some(StoreLink::new(store, V7_BLOCKS));
        self
    }

    /// What went wrong with the store since the last call (damaged and repaired, or
    /// unusable so the generator went on in memory). The library never prints them.
    pub fn take_store_warnings(&mut self) -> Vec<StoreWarning> {
        leased::take_warnings(&mut self.store)
    }

    /// The method this generator uses.
    pub fn method(&self) -> V7Method {
        self.method
    }

    /// The next UUID.
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
    /// ```
    /// use uuidkit::generator::unix::{UnixGenerator, V7Method};
    /// let mut g = UnixGenerator::new(V7Method::Counter);
    /// let mut batch = [uuidkit::Uuid::NIL; 256];
    /// g.fill(&mut batch);
    /// assert!(batch.windows(2).all(|w| w[0] < w[1]));
    /// ```
    pub fn fill(&mut self, out: &mut [Uuid]) {
        let now = self.clock.now();
        for u in out {
            *u = self.next_at(now);
        }
    }

    #[inline]
    fn next_at(&mut self, now: crate::time::UnixTime) -> Uuid {
        match self.method {
            V7Method::Counter => {
                let ms = now.millis_since_epoch();
                let out = self.state.next(ms, &mut self.rng);
                let (ms, counter) = self.admit(out, ms);
                let tail = self.rng.next_u32() as u64;
                pack(
                    ms,
                    (counter >> 30) as u16,
                    ((counter as u64 & ((1 << 30) - 1)) << 32) | tail,
                )
            }
            V7Method::Random => {
                let ms = now.millis_since_epoch();
                let (ms, value) = self.state.next(ms, &mut self.rng);
                let (ms, value) = self.admit((ms, value), ms.min(MS_MAX));
                pack(ms, (value >> 62) as u16, value as u64)
            }
            V7Method::Precision => {
                // Units of 1/4096 ms: the fraction is rounded down, as §6.2 Method 3 says.
                // A reading past the 48-bit millisecond range counts as its very last
                // unit (the state clamps it), so the product cannot overflow. A reading
                // before 1970 is the epoch itself, fraction included: its sub-millisecond
                // part belongs to a negative millisecond, not to millisecond 0.
                let ms = now.millis_since_epoch();
                let units = if now.secs() < 0 {
                    0
                } else if ms > MS_MAX {
                    u64::MAX
                } else {
                    ms * 4096 + (now.subsec_nanos() % 1_000_000) as u64 * 4096 / 1_000_000
                };
                let (units, counter) = self.state.next(units, &mut self.rng);
                let (units, counter) = self.admit((units, counter), units);
                let tail = self.rng.next_u32() as u64;
                pack(
                    units >> 12,
                    (units & 0xfff) as u16,
                    ((counter as u64) << 32) | tail,
                )
            }
        }
    }

    /// Admits an output of the state machine through the store, if there is one.
    #[inline]
    fn admit(&mut self, out: (u64, u128), now: u64) -> (u64, u128) {
        match &mut self.store {
            None => out,
            Some(link) => self
                .state
                .admit(link, GeneratorKind::V7, out, now, &mut self.rng),
        }
    }

    /// The Unix millisecond of the last UUID.
    pub fn last_millis(&self) -> u64 {
        match self.method {
            V7Method::Precision => self.state.timestamp() >> 12,
            _ => self.state.timestamp(),
        }
    }
}

impl<C: Clock, R: RngCore> Iterator for UnixGenerator<C, R> {
    type Item = Uuid;
    fn next(&mut self) -> Option<Uuid> {
        Some(UnixGenerator::next(self))
    }
}

// ---------------------------------------------------------------------------------------
// The process-wide v7 generator behind `crate::v7` and `crate::v7_fill`.
// ---------------------------------------------------------------------------------------

/// How close to the end of a millisecond the clock gate stops trusting the tick counter
/// and reads the clock again: room for counters of two cores that differ a little, and
/// for the tick read landing a few nanoseconds after the clock read it precedes.
pub(crate) const GATE_MARGIN_NS: u64 = 20_000;

/// The clock gate: the last system clock reading of this thread, its millisecond, and
/// how many ticks of the CPU's counter may pass before that millisecond can have ended.
///
/// A call first reads the tick counter (a few nanoseconds); while fewer ticks than
/// `span` passed since the reading, the millisecond of the reading is still the
/// current one and the clock is not read (about 25 ns). `span` is the time left in the
/// millisecond less [`GATE_MARGIN_NS`], at the measured tick rate less 1/64. The gate
/// reads the clock again on any doubt: a counter that went back (another core, a
/// migrated VM), a tick rate not measured or refused, a reading within the margin of
/// the millisecond's end, a reading before 1970 or at the end of the 48-bit range, and
/// after `fork` ([`forget`](Self::forget)).
///
/// So the millisecond it returns is the one the system clock showed at a reading taken
/// less than a millisecond earlier, and in which, by the counter, the clock still is:
/// the same millisecond a fresh read would give unless the clock was set in between
/// (then it is at most one millisecond stale, which RFC 9562 §6.1 allows: "altering,
/// fuzzing, or smearing" the timestamp). The timestamp still only ever comes from the
/// system clock.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MillisGate {
    ms: u64,
    start: u64,
    /// 0: read the clock on the next call.
    span: u64,
}

impl MillisGate {
    pub(crate) const fn new() -> MillisGate {
        MillisGate {
            ms: 0,
            start: 0,
            span: 0,
        }
    }

    /// The current Unix millisecond (at most [`MS_MAX`]), read from `clock` only when
    /// `ticks` cannot vouch that the last reading's millisecond is still current.
    #[inline]
    pub(crate) fn now_ms<C: Clock, T: TickSource>(&mut self, clock: &C, ticks: &T) -> u64 {
        // One comparison covers both "not past the span" and "not before the start":
        // a counter that went back wraps to a huge difference.
        if self.span != 0 && ticks.now().wrapping_sub(self.start) < self.span {
            return self.ms;
        }
        self.read(clock, ticks)
    }

    #[cold]
    #[inline(never)]
    fn read<C: Clock, T: TickSource>(&mut self, clock: &C, ticks: &T) -> u64 {
        let per_ms = ticks.per_ms();
        // The counter first, then the clock: the real time at `start` is then no later
        // than the reading, so the span measured from it ends no later than it should.
        let start = if per_ms.is_some() { ticks.now() } else { 0 };
        let now = clock.now();
        let ms = now.millis_since_epoch().min(MS_MAX);
        self.ms = ms;
        self.start = start;
        self.span = 0;
        if let Some(f) = per_ms
            && now >= UnixTime::EPOCH
            && ms < MS_MAX
        {
            let left = 1_000_000 - u64::from(now.subsec_nanos() % 1_000_000);
            if left > GATE_MARGIN_NS {
                let slow = f - f / 64;
                self.span = ((left - GATE_MARGIN_NS) as u128 * slow as u128 / 1_000_000) as u64;
            }
        }
        ms
    }

    /// Reads the clock on the next call.
    pub(crate) fn forget(&mut self) {
        self.span = 0;
    }
}

/// Bits of the counter's per-millisecond part in the shared word, and of the
/// millisecond since the process's base.
const N_BITS: u32 = 23;
const REL_BITS: u32 = 40;
const N_MASK: u64 = (1 << N_BITS) - 1;
/// Width of the 42-bit counter's random seed: top bit clear (RFC 9562 §6.2's rollover
/// guard), so seed + n never leaves 42 bits.
const SEED_MASK: u64 = (1 << (COUNTER_BITS - 1)) - 1;
/// Bits of the fork generation kept beside a key, as in the wide state.
const FORK_MASK: u64 = (1 << FORK_BITS) - 1;

/// The process-wide v7 generator: Method 1 with a 42-bit counter, like
/// [`UnixGenerator`], shared by every thread through one 64-bit word advanced by
/// `fetch_add`.
///
/// # The word
/// `ms − base` (40 bits) and `n` (23 bits), below a guard bit: the position of the last
/// UUID handed out. `base` is the millisecond of the process's first use. Taking the
/// next position is one `fetch_add(1)` (a batch: `fetch_add(k)`), which never retries,
/// and the order of those additions is the order of the UUIDs. An `n` that overflows
/// carries into the millisecond, as RFC 9562 §6.2 says a counter overflow should; at
/// 2^23 UUIDs a millisecond that takes more than 8 billion a second. When the word is
/// behind the clock (a new millisecond), a compare-and-swap lifts it to the clock's
/// millisecond; it is never lowered, so a clock set back leaves the embedded time
/// standing until the clock catches up.
///
/// # The counter
/// UUID counter = seed(ms) + n, where seed(ms) is 41 bits of AES-128 of the millisecond
/// under a key drawn from the CSPRNG for this process: a fresh unpredictable value each
/// millisecond, as a seed drawn at random is, and the same for every thread without
/// sharing anything but the key. Each thread keeps the expanded key and the last seed.
/// 32 bits of every UUID come fresh from the thread's CSPRNG.
///
/// # fork
/// A child takes a new key (so new seeds) and first moves the word one millisecond on:
/// its UUIDs are greater than every UUID of the process before the fork, and its
/// counters are not its parent's. The key carries the fork generation it belongs to; a
/// thread whose generation is not the key's installs a new one with compare-and-swap
/// (one wins, the others adopt it), after moving the word on.
///
/// # The end of the window
/// A word at the guard (40 bits of milliseconds: 34 years after the base), or a
/// millisecond past [`MS_MAX`], hands over to the 128-bit state [`SharedV7`], lifted
/// above everything the word handed out; from then on every thread goes there.
pub(crate) struct ProcessV7 {
    word: AtomicU64,
    /// The base millisecond + 1; 0 until first use.
    base: AtomicU64,
    /// key (90 bits) | fork generation (38 bits); 0: none yet.
    key: portable_atomic::AtomicU128,
    wide: SharedV7,
}

/// What one thread keeps of the process-wide v7 generator: the clock gate, and what it
/// needs of the shared state without touching it (base, the window's end, the key).
pub(crate) struct V7Thread {
    /// The fork generation this was set up for; `u64::MAX` before the first use.
    fork_generation: u64,
    base: u64,
    /// Word positions at or above this are past the window.
    limit: u64,
    gate: MillisGate,
    // `ManuallyDrop`: the expanded key is plain arrays with nothing to free, and without
    // drop glue the thread-local needs no destructor registered (one check less a call).
    prf: Option<ManuallyDrop<Aes128Enc>>,
    seed_ms: u64,
    seed: u64,
    /// Random tails for single calls, drawn from the thread's CSPRNG [`TAIL_BYTES`] at a
    /// time (one visit to it instead of one per UUID); dropped after `fork`.
    tails: [u8; TAIL_BYTES],
    tail_pos: usize,
}

/// Bytes of random tails a thread draws at once for single `v7()` calls.
const TAIL_BYTES: usize = 256;

impl V7Thread {
    pub(crate) const fn new() -> V7Thread {
        V7Thread {
            fork_generation: u64::MAX,
            base: 0,
            limit: 0,
            gate: MillisGate::new(),
            prf: None,
            seed_ms: u64::MAX,
            seed: 0,
            tails: [0; TAIL_BYTES],
            tail_pos: TAIL_BYTES,
        }
    }

    /// 32 fresh random bits from the thread's CSPRNG.
    #[inline]
    fn tail(&mut self) -> u32 {
        if self.tail_pos > TAIL_BYTES - 4 {
            self.draw_tails();
        }
        let p = self.tail_pos.min(TAIL_BYTES - 4);
        self.tail_pos = p + 4;
        u32::from_ne_bytes([
            self.tails[p],
            self.tails[p + 1],
            self.tails[p + 2],
            self.tails[p + 3],
        ])
    }

    #[cold]
    #[inline(never)]
    fn draw_tails(&mut self) {
        crate::random::with_thread_rng(|r| r.fill(&mut self.tails));
        self.tail_pos = 0;
    }

    /// seed(ms): the low 41 bits of AES-128 of `ms` under the process's key.
    #[inline]
    fn seed(&mut self, ms: u64) -> u64 {
        if ms != self.seed_ms {
            self.seed = self.compute_seed(ms);
            self.seed_ms = ms;
        }
        self.seed
    }

    #[cold]
    fn compute_seed(&self, ms: u64) -> u64 {
        let prf = self.prf.as_ref().expect("set up before the first position");
        let mut block = aes::Block::from(u128::from(ms).to_le_bytes());
        prf.encrypt_block(&mut block);
        let mut low = [0u8; 8];
        low.copy_from_slice(&block[..8]);
        u64::from_le_bytes(low) & SEED_MASK
    }
}

impl ProcessV7 {
    pub(crate) const fn new() -> ProcessV7 {
        ProcessV7 {
            word: AtomicU64::new(0),
            base: AtomicU64::new(0),
            key: portable_atomic::AtomicU128::new(0),
            wide: SharedV7::new(),
        }
    }

    /// The next UUID, for a thread `th` on `clock` and `ticks`, in fork generation `fork`.
    #[inline]
    pub(crate) fn next_with<C: Clock, T: TickSource>(
        &self,
        th: &mut V7Thread,
        clock: &C,
        ticks: &T,
        fork: u64,
    ) -> Uuid {
        if th.fork_generation != fork {
            self.set_up(th, clock, fork);
        }
        let now = th.gate.now_ms(clock, ticks);
        match self.reserve(th, now, 1) {
            Some(p) => {
                let tail = th.tail();
                self.make(th, p, tail)
            }
            None => self.wide_next(th, now, fork),
        }
    }

    /// Fills `out` with the next UUIDs: per chunk of [`FILL_CHUNK`], one gate check,
    /// one `fetch_add` and one visit to the thread's random stream.
    pub(crate) fn fill_with<C: Clock, T: TickSource>(
        &self,
        th: &mut V7Thread,
        clock: &C,
        ticks: &T,
        fork: u64,
        out: &mut [Uuid],
    ) {
        if th.fork_generation != fork {
            self.set_up(th, clock, fork);
        }
        for chunk in out.chunks_mut(FILL_CHUNK) {
            let now = th.gate.now_ms(clock, ticks);
            match self.reserve(th, now, chunk.len() as u64) {
                Some(first) => crate::random::with_thread_rng(|r| {
                    for (p, u) in (first..).zip(chunk.iter_mut()) {
                        *u = self.make(th, p, u32::from_ne_bytes(r.bytes::<4>()));
                    }
                }),
                None => {
                    for u in chunk {
                        *u = self.wide_next(th, now, fork);
                    }
                }
            }
        }
    }

    /// The first of `k` consecutive positions for a clock at `now_ms`, or `None` past
    /// the window (the caller goes to the wide state).
    #[inline]
    fn reserve(&self, th: &V7Thread, now_ms: u64, k: u64) -> Option<u64> {
        use core::sync::atomic::Ordering::{AcqRel, Acquire};
        let rel = now_ms.saturating_sub(th.base);
        if rel >= th.limit >> N_BITS {
            return None;
        }
        let floor = rel << N_BITS;
        let old = self.word.fetch_add(k, AcqRel);
        let first = if old + 1 >= floor {
            old + 1
        } else {
            // The word is behind the clock: lift it. The positions just added are below
            // `floor` and below the new word, so nobody hands them out.
            let mut cur = self.word.load(Acquire);
            loop {
                let first = (cur + 1).max(floor);
                match self
                    .word
                    .compare_exchange_weak(cur, first + k - 1, AcqRel, Acquire)
                {
                    Ok(_) => break first,
                    Err(actual) => cur = actual,
                }
            }
        };
        (first + k - 1 < th.limit).then_some(first)
    }

    /// The UUID at word position `p`.
    #[inline]
    fn make(&self, th: &mut V7Thread, p: u64, tail: u32) -> Uuid {
        let ms = th.base + (p >> N_BITS);
        let counter = th.seed(ms) + (p & N_MASK);
        pack(
            ms,
            (counter >> 30) as u16,
            ((counter & ((1 << 30) - 1)) << 32) | u64::from(tail),
        )
    }

    /// Past the window: the 128-bit state, lifted above every position of the word.
    #[cold]
    #[inline(never)]
    fn wide_next(&self, th: &V7Thread, now_ms: u64, fork: u64) -> Uuid {
        // Close the window first, for good: a later call whose clock reads inside it
        // (set back) must not take a position below what the wide state hands out. A
        // call still taking a word position now is concurrent with this one, so either
        // order is the order of the calls.
        self.word
            .fetch_max(th.limit, core::sync::atomic::Ordering::AcqRel);
        let last_ms = (th.base + (th.limit >> N_BITS) - 1).min(MS_MAX);
        self.wide.raise(last_ms, fork);
        let [r1, r2] = [Csprng.next_u64(), Csprng.next_u64()];
        self.wide.next(now_ms, fork, r1, r2)
    }

    /// First use in this thread, or in a new fork generation: the base, the window and
    /// the key of this process (creating them where this is the first use at all).
    #[cold]
    #[inline(never)]
    fn set_up<C: Clock>(&self, th: &mut V7Thread, clock: &C, fork: u64) {
        use core::sync::atomic::Ordering::{AcqRel, Acquire};
        th.gate.forget();
        let mut base = self.base.load(Acquire);
        if base == 0 {
            let now = clock.now().millis_since_epoch().min(MS_MAX);
            base = match self.base.compare_exchange(0, now + 1, AcqRel, Acquire) {
                Ok(_) => now + 1,
                Err(winner) => winner,
            };
        }
        th.base = base - 1;
        let window = (1u64 << REL_BITS).min(MS_MAX - th.base + 1);
        th.limit = window << N_BITS;
        let tag = fork & FORK_MASK;
        let key = loop {
            let rec = self.key.load(Acquire);
            if rec != 0 && (rec as u64 & FORK_MASK) == tag {
                break rec;
            }
            if rec != 0 {
                // A parent's key: this is a child after fork. Move past everything the
                // process handed out before, then take a key of its own.
                self.skip_millisecond();
            }
            let fresh = loop {
                let r = u128::from_ne_bytes(crate::random::bytes16()) << FORK_BITS;
                if r != 0 {
                    break r | u128::from(tag);
                }
            };
            if self
                .key
                .compare_exchange(rec, fresh, AcqRel, Acquire)
                .is_ok()
            {
                break fresh;
            }
        };
        th.prf = Some(ManuallyDrop::new(Aes128Enc::new(&key.to_le_bytes().into())));
        th.seed_ms = u64::MAX;
        // Tails drawn before a fork are the parent's too.
        th.tail_pos = TAIL_BYTES;
        th.fork_generation = fork;
    }

    /// Moves the word to the start of its next millisecond.
    fn skip_millisecond(&self) {
        use core::sync::atomic::Ordering::{AcqRel, Acquire};
        let _ = self
            .word
            .fetch_update(AcqRel, Acquire, |w| Some(((w >> N_BITS) + 1) << N_BITS));
    }
}

/// UUIDs per gate check and `fetch_add` in [`ProcessV7::fill_with`]: a chunk takes about
/// 2 µs, so its timestamps are as fresh as single calls', and the word moves by at most
/// this much at once.
const FILL_CHUNK: usize = 1024;

/// The 128-bit state the process-wide v7 generator moves to past the end of its 64-bit
/// word's window: Method 1 with the same 42-bit counter, millisecond, counter and fork
/// generation in one atomic advanced by compare-and-swap, whose order is the order of
/// the UUIDs.
pub(crate) struct SharedV7 {
    // ms (48) | counter (42) | fork generation (38)
    state: portable_atomic::AtomicU128,
}

const COUNTER_BITS: u32 = 42;
const FORK_BITS: u32 = 38;
const MS_MAX: u64 = (1 << 48) - 1;
const COUNTER_MAX: u64 = (1 << COUNTER_BITS) - 1;

impl SharedV7 {
    pub(crate) const fn new() -> SharedV7 {
        SharedV7 {
            state: portable_atomic::AtomicU128::new(0),
        }
    }

    const fn encode(ms: u64, counter: u64, fork: u128) -> u128 {
        (ms as u128) << (COUNTER_BITS + FORK_BITS) | (counter as u128) << FORK_BITS | fork
    }

    /// Makes the state at least (`ms`, last counter value), so that the next UUID is in a
    /// later millisecond than `ms`.
    fn raise(&self, ms: u64, fork: u64) {
        use core::sync::atomic::Ordering::{AcqRel, Acquire};
        let floor = SharedV7::encode(ms, COUNTER_MAX, u128::from(fork & FORK_MASK));
        let _ = self
            .state
            .fetch_update(AcqRel, Acquire, |cur| (cur < floor).then_some(floor));
    }

    /// The next UUID for a clock at `now` ms, with random words `r1` (seed) and `r2`
    /// (tail).
    fn next(&self, now: u64, fork: u64, r1: u64, r2: u64) -> Uuid {
        use core::sync::atomic::Ordering::{AcqRel, Acquire};
        let now = now.min(MS_MAX);
        let seed = r1 & SEED_MASK;
        let fork = u128::from(fork & FORK_MASK);
        let mut cur = self.state.load(Acquire);
        let (ms, counter) = loop {
            let ms = (cur >> (COUNTER_BITS + FORK_BITS)) as u64;
            let counter = (cur >> FORK_BITS) as u64 & COUNTER_MAX;
            let (ms, counter) = if cur & u128::from(FORK_MASK) != fork && cur != 0 {
                // The first UUID in a child after fork: a millisecond on, new seed.
                ((ms + 1).max(now).min(MS_MAX), seed)
            } else if now > ms {
                (now, seed)
            } else if counter < COUNTER_MAX {
                (ms, counter + 1)
            } else {
                // Overflow: the next millisecond; at the range's end, reseed (documented).
                ((ms + 1).min(MS_MAX), seed)
            };
            let next = SharedV7::encode(ms, counter, fork);
            match self.state.compare_exchange_weak(cur, next, AcqRel, Acquire) {
                Ok(_) => break (ms, counter),
                Err(actual) => cur = actual,
            }
        };
        pack(
            ms,
            (counter >> 30) as u16,
            ((counter & ((1 << 30) - 1)) << 32) | (r2 & 0xffff_ffff),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;
    use crate::random::SeedableRng;
    use core::cell::Cell;
    use std::time::Duration;

    /// A tick counter under the test's control: `per_ms` ticks a millisecond, or none.
    struct ManualTicks {
        now: Cell<u64>,
        per_ms: Option<u64>,
    }

    impl ManualTicks {
        fn new(per_ms: Option<u64>) -> ManualTicks {
            ManualTicks {
                now: Cell::new(1_000_000),
                per_ms,
            }
        }
        fn advance(&self, ticks: u64) {
            self.now.set(self.now.get() + ticks);
        }
        fn back(&self, ticks: u64) {
            self.now.set(self.now.get() - ticks);
        }
    }

    impl TickSource for ManualTicks {
        fn now(&self) -> u64 {
            self.now.get()
        }
        fn per_ms(&self) -> Option<u64> {
            self.per_ms
        }
    }

    /// A clock that counts its readings.
    struct Counting<'a>(&'a ManualClock, Cell<u32>);

    impl Clock for Counting<'_> {
        fn now(&self) -> UnixTime {
            self.1.set(self.1.get() + 1);
            self.0.now()
        }
    }

    const T0: u64 = 1_700_000_000_000;
    /// One tick a nanosecond.
    const GHZ: u64 = 1_000_000;

    fn at(ms: u64, sub_ns: u32) -> UnixTime {
        UnixTime::new((ms / 1000) as i64, (ms % 1000) as u32 * 1_000_000 + sub_ns)
    }

    /// The ticks the gate trusts after a reading `into` ns into a millisecond.
    fn trusted(into: u64) -> u64 {
        let slow = GHZ - GHZ / 64;
        (1_000_000 - into - GATE_MARGIN_NS) * slow / 1_000_000
    }

    #[test]
    fn gate_keeps_the_millisecond_only_while_the_ticks_vouch_for_it() {
        let manual = ManualClock::new(at(T0, 200_000));
        let clock = Counting(&manual, Cell::new(0));
        let ticks = ManualTicks::new(Some(GHZ));
        let mut gate = MillisGate::new();
        assert_eq!(gate.now_ms(&clock, &ticks), T0);
        assert_eq!(clock.1.get(), 1);
        // The clock moves on but the ticks say the millisecond cannot have ended: the
        // clock is not read (the manual clock's jump is what shows it).
        manual.set(at(T0 + 5, 0));
        ticks.advance(trusted(200_000) - 1);
        assert_eq!(gate.now_ms(&clock, &ticks), T0);
        assert_eq!(clock.1.get(), 1);
        // One tick more: read.
        ticks.advance(1);
        assert_eq!(gate.now_ms(&clock, &ticks), T0 + 5);
        assert_eq!(clock.1.get(), 2);
        // Read at the millisecond's very start: trusted for nearly all of it.
        assert_eq!(gate.now_ms(&clock, &ticks), T0 + 5);
        assert_eq!(clock.1.get(), 2);
        // Ticks that went back (another core, a migrated machine): read.
        ticks.back(1);
        manual.set(at(T0 + 6, 0));
        assert_eq!(gate.now_ms(&clock, &ticks), T0 + 6);
        assert_eq!(clock.1.get(), 3);
        // After fork (or any doubt): read.
        gate.forget();
        manual.set(at(T0 + 7, 0));
        assert_eq!(gate.now_ms(&clock, &ticks), T0 + 7);
        assert_eq!(clock.1.get(), 4);
    }

    #[test]
    fn gate_reads_every_time_without_a_trusted_counter_or_near_the_end() {
        for (per_ms, sub_ns, ms) in [
            (None, 0, T0),
            // Within the margin of the millisecond's end.
            (Some(GHZ), 1_000_000 - GATE_MARGIN_NS as u32, T0),
            // Before 1970, and at the end of the 48-bit range.
            (Some(GHZ), 0, 0),
            (Some(GHZ), 0, MS_MAX),
        ] {
            let manual = if ms == 0 {
                ManualClock::new(UnixTime::new(-5, 0))
            } else {
                ManualClock::new(at(ms, sub_ns))
            };
            let clock = Counting(&manual, Cell::new(0));
            let ticks = ManualTicks::new(per_ms);
            let mut gate = MillisGate::new();
            for i in 1..=5 {
                assert_eq!(gate.now_ms(&clock, &ticks), ms);
                assert_eq!(clock.1.get(), i, "{per_ms:?} {sub_ns} {ms}");
            }
        }
    }

    /// The bound: whenever the gate keeps a millisecond without reading, the real time
    /// (the counter at a true rate anywhere from the measured one down to 1/64 below
    /// it) is still inside that millisecond, at least the margin before its end.
    #[test]
    fn gate_never_keeps_an_ended_millisecond() {
        let mut rng = <rand_chacha::ChaCha8Rng as SeedableRng>::seed_from_u64(9);
        for _ in 0..20_000 {
            let into = rng.next_u64() % 1_000_000;
            let true_per_ms = GHZ - rng.next_u64() % (GHZ / 64 + 1);
            let elapsed = rng.next_u64() % (2 * GHZ);
            let manual = ManualClock::new(at(T0, into as u32));
            let ticks = ManualTicks::new(Some(GHZ));
            let mut gate = MillisGate::new();
            gate.now_ms(&manual, &ticks);
            ticks.advance(elapsed);
            // Where the clock really is by then.
            let real_ns = into + elapsed * 1_000_000 / true_per_ms;
            manual.set(at(T0 + real_ns / 1_000_000, (real_ns % 1_000_000) as u32));
            let got = gate.now_ms(&manual, &ticks);
            assert_eq!(
                got,
                T0 + real_ns / 1_000_000,
                "{into} {elapsed} {true_per_ms}"
            );
        }
    }

    trait Millis {
        fn unix_millis(&self) -> Option<u64>;
    }

    impl Millis for Uuid {
        fn unix_millis(&self) -> Option<u64> {
            crate::layout::v7::decode(self).ok().map(|f| f.unix_ts_ms)
        }
    }

    fn counter(u: &Uuid) -> u64 {
        let f = crate::layout::v7::decode(u).unwrap();
        ((f.rand_a as u64) << 30) | (f.rand_b >> 32)
    }

    #[test]
    fn process_v7_increases_through_any_clock_and_batch() {
        let g = ProcessV7::new();
        let manual = ManualClock::new(at(T0, 0));
        let ticks = ManualTicks::new(Some(GHZ));
        let mut th = V7Thread::new();
        let mut last = Uuid::NIL;
        let mut batch = vec![Uuid::NIL; 3000];
        let mut rng = <rand_chacha::ChaCha8Rng as SeedableRng>::seed_from_u64(4);
        for step in 0..3000 {
            match rng.next_u32() % 6 {
                0 => manual.advance(Duration::from_micros(rng.next_u64() % 3000)),
                1 => manual.step_back(Duration::from_millis(rng.next_u64() % 50)),
                2 => ticks.advance(rng.next_u64() % (2 * GHZ)),
                _ => {}
            }
            let out = if step % 7 == 0 {
                let n = (rng.next_u64() % 3000) as usize;
                g.fill_with(&mut th, &manual, &ticks, 0, &mut batch[..n]);
                &batch[..n]
            } else {
                batch[0] = g.next_with(&mut th, &manual, &ticks, 0);
                &batch[..1]
            };
            for u in out {
                assert!(*u > last, "step {step}: {u} after {last}");
                assert_eq!(u.version(), crate::Version::V7);
                assert!(counter(u) < 1 << COUNTER_BITS);
                last = *u;
            }
        }
    }

    #[test]
    fn process_v7_timestamp_follows_the_gated_clock_and_new_milliseconds_reseed() {
        let g = ProcessV7::new();
        let manual = ManualClock::new(at(T0, 0));
        let ticks = ManualTicks::new(None);
        let mut th = V7Thread::new();
        let a = g.next_with(&mut th, &manual, &ticks, 0);
        let b = g.next_with(&mut th, &manual, &ticks, 0);
        assert_eq!(a.unix_millis(), Some(T0));
        assert_eq!(counter(&b), counter(&a) + 1, "counts within a millisecond");
        manual.advance(Duration::from_millis(1));
        let c = g.next_with(&mut th, &manual, &ticks, 0);
        assert_eq!(c.unix_millis(), Some(T0 + 1));
        let mut seeds = std::collections::HashSet::new();
        for ms in 0..200 {
            manual.set(at(T0 + 10 + ms, 0));
            let u = g.next_with(&mut th, &manual, &ticks, 0);
            assert_eq!(u.unix_millis(), Some(T0 + 10 + ms));
            // The first position of a millisecond is 0 or 1 over its seed.
            assert!(seeds.insert(counter(&u) >> 1), "a seed repeated");
            assert!(counter(&u) < (1 << 41) + 2, "seeded with its top bit clear");
        }
        // Another thread of the same process shares the key: the same seeds.
        let mut other = V7Thread::new();
        let d = g.next_with(&mut other, &manual, &ticks, 0);
        assert_eq!(d.unix_millis(), Some(T0 + 209));
        let e = g.next_with(&mut th, &manual, &ticks, 0);
        assert_eq!(counter(&e), counter(&d) + 1);
    }

    /// The 8,388,608th UUID of a millisecond carries into the next one, reseeded.
    #[test]
    fn process_v7_counter_overflow_borrows_the_next_millisecond() {
        let g = ProcessV7::new();
        let manual = ManualClock::new(at(T0, 0));
        let ticks = ManualTicks::new(None);
        let mut th = V7Thread::new();
        let mut batch = vec![Uuid::NIL; 1 << N_BITS];
        g.fill_with(&mut th, &manual, &ticks, 0, &mut batch);
        assert!(batch.windows(2).all(|w| w[0] < w[1]));
        let last = batch[batch.len() - 1];
        assert_eq!(last.unix_millis(), Some(T0 + 1));
        assert_eq!(batch[batch.len() - 2].unix_millis(), Some(T0));
    }

    /// Past the 64-bit word's window (a clock 2^40 ms, 34 years, after the process's
    /// first use), the wide state takes over, above everything before, and stays
    /// increasing.
    #[test]
    fn process_v7_hands_over_to_the_wide_state_past_the_window() {
        let g = ProcessV7::new();
        let manual = ManualClock::new(at(T0, 0));
        let ticks = ManualTicks::new(None);
        let mut th = V7Thread::new();
        let mut batch = vec![Uuid::NIL; 5000];
        g.fill_with(&mut th, &manual, &ticks, 0, &mut batch);
        let mut all = batch.clone();
        manual.set(at(T0 + (1 << REL_BITS) - 1, 0));
        all.push(g.next_with(&mut th, &manual, &ticks, 0));
        manual.set(at(T0 + (1 << REL_BITS) + 5, 0));
        all.push(g.next_with(&mut th, &manual, &ticks, 0));
        g.fill_with(&mut th, &manual, &ticks, 0, &mut batch);
        all.extend_from_slice(&batch);
        manual.step_back(Duration::from_secs(1));
        g.fill_with(&mut th, &manual, &ticks, 0, &mut batch);
        all.extend_from_slice(&batch);
        // Another thread arriving later goes to the wide state too.
        let mut other = V7Thread::new();
        all.push(g.next_with(&mut other, &manual, &ticks, 0));
        for (i, w) in all.windows(2).enumerate() {
            assert!(w[0] < w[1], "{i}: {} then {}", w[0], w[1]);
        }
        assert_eq!(all[5001].unix_millis(), Some(T0 + (1 << REL_BITS) + 5));
    }

    /// A base near the end of the 48-bit range: the window ends there, and the last
    /// millisecond keeps making distinct v7 UUIDs (unordered once its counter is used
    /// up, as the owned generator does there), never wrapping to 1970.
    #[test]
    fn process_v7_at_the_end_of_the_range() {
        let g = ProcessV7::new();
        let manual = ManualClock::new(at(MS_MAX, 0));
        let ticks = ManualTicks::new(None);
        let mut th = V7Thread::new();
        let mut batch = vec![Uuid::NIL; 1 << N_BITS];
        g.fill_with(&mut th, &manual, &ticks, 0, &mut batch);
        assert!(g.word.load(core::sync::atomic::Ordering::Relaxed) >= th.limit);
        let mut seen = std::collections::HashSet::new();
        batch.truncate(100_000);
        for _ in 0..2 {
            g.fill_with(&mut th, &manual, &ticks, 0, &mut batch);
            for u in &batch {
                assert_eq!(u.unix_millis(), Some(MS_MAX));
                assert!(seen.insert(*u));
            }
        }
        manual.set(UnixTime::MAX);
        let u = g.next_with(&mut th, &manual, &ticks, 0);
        assert_eq!(u.unix_millis(), Some(MS_MAX));
        assert!(seen.insert(u));
    }

    /// A child after fork (a copy of the state, a new fork generation): its UUIDs are
    /// greater than everything before the fork and its counters are not the parent's.
    #[test]
    fn process_v7_child_after_fork_moves_on_with_its_own_key() {
        let parent = ProcessV7::new();
        let manual = ManualClock::new(at(T0, 0));
        let ticks = ManualTicks::new(None);
        let mut th = V7Thread::new();
        let mut before = Uuid::NIL;
        for _ in 0..100 {
            before = parent.next_with(&mut th, &manual, &ticks, 0);
        }
        // What fork copies: the shared state and this thread's part.
        let child = ProcessV7::new();
        use core::sync::atomic::Ordering::Relaxed;
        child.word.store(parent.word.load(Relaxed), Relaxed);
        child.base.store(parent.base.load(Relaxed), Relaxed);
        child.key.store(parent.key.load(Relaxed), Relaxed);
        let mut child_th = V7Thread {
            prf: th.prf.clone(),
            tails: th.tails,
            ..th
        };
        let mut child_new_thread = V7Thread::new();
        let p = parent.next_with(&mut th, &manual, &ticks, 0);
        let c = child.next_with(&mut child_th, &manual, &ticks, 1);
        let c2 = child.next_with(&mut child_new_thread, &manual, &ticks, 1);
        assert!(p > before);
        assert!(c > before && c2 > c);
        assert_eq!(c.unix_millis(), Some(T0 + 1), "a millisecond on");
        // The parent, in that millisecond too, counts from another seed.
        manual.advance(Duration::from_millis(1));
        let p2 = parent.next_with(&mut th, &manual, &ticks, 0);
        let c3 = child.next_with(&mut child_th, &manual, &ticks, 1);
        assert_eq!(p2.unix_millis(), c3.unix_millis());
        assert_ne!(counter(&p2) >> 2, counter(&c3) >> 2);
        assert_ne!(parent.key.load(Relaxed), child.key.load(Relaxed));
    }
}
