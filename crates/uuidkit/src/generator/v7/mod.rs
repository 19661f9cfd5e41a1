//! Version 7 generation (RFC 9562 §5.7, §6.2): Unix milliseconds and the three methods
//! that keep UUIDs from one generator strictly increasing.
//!
//! # The process-wide generator ([`crate::v7`], [`crate::v7_fill`])
//! Method 1 with a 42-bit counter, as [`V7Generator`], shared by every thread without a
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

mod gate;
pub(crate) mod lock_free;

use core::fmt;
use core::str::FromStr;

use self::gate::MS_MAX;
use super::leased::BlockSizes;
use super::monotonic::{Monotonic, Step};
use super::timed::{Timed, sealed};
use crate::error::UnknownName;
use crate::layout::v7::pack;
use crate::node::machine_id::{MachineId, MachineIdError};
use crate::random::Csprng;
use crate::store::GeneratorKind;
use crate::time::{SystemClock, UnixTime};
use crate::uuid::Uuid;

/// The §6.2 method that fills `rand_a` and `rand_b`.
///
/// | method | `rand_a` (12 bits) | `rand_b` (62 bits) |
/// |---|---|---|
/// | `Counter` (Method 1, default) | counter bits 41–30 | counter bits 29–0, then 32 random bits |
/// | `Random` (Method 2) | \ the top 12 of a 74-bit monotonic random value | \ its low 62 bits |
/// | `Precision` (Method 3) | sub-millisecond fraction × 4096, rounded down | 30-bit counter, then 32 random bits |
///
/// With a machine ID of B bits ([`V7Generator::with_machine_id`]), `Counter` and
/// `Precision` write it over the first B of the 32 random bits (right after the counter);
/// `Random` keeps it in the **last** B bits of `rand_b` and makes its 74 − B bits above
/// them the monotonic random value: its random increments are added above the ID and can
/// never reach it, so the ID stays in every UUID and the order is kept.
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
/// use uuidkit::generator::v7::V7Method;
/// assert_eq!("precision".parse::<V7Method>()?, V7Method::Precision);
/// # Ok::<(), uuidkit::UnknownName>(())
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
    /// Every method, in the order of §6.2.
    pub const ALL: [V7Method; 3] = [V7Method::Counter, V7Method::Random, V7Method::Precision];

    /// Every method's [`name`](Self::name), in the order of [`ALL`](Self::ALL).
    ///
    /// ```
    /// use uuidkit::generator::v7::V7Method;
    /// assert_eq!(V7Method::NAMES, ["counter", "random", "precision"]);
    /// ```
    pub const NAMES: [&'static str; 3] = {
        let mut names = [""; 3];
        let mut i = 0;
        while i < names.len() {
            names[i] = V7Method::ALL[i].name();
            i += 1;
        }
        names
    };

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

impl FromStr for V7Method {
    type Err = UnknownName;

    /// The method of a [`name`](V7Method::name).
    ///
    /// # Errors
    ///
    /// [`UnknownName`] for any other name; it says the three.
    ///
    /// ```
    /// use uuidkit::generator::v7::V7Method;
    /// let err = "fast".parse::<V7Method>().unwrap_err();
    /// assert_eq!(err.to_string(),
    ///     "unknown v7 method \"fast\": expected one of counter, random, precision");
    /// ```
    fn from_str(s: &str) -> Result<V7Method, UnknownName> {
        V7Method::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| UnknownName::new("v7 method", s, &V7Method::NAMES))
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
///   With `Random` and a machine ID of B bits the value is 74 − B bits wide, seeded below
///   its middle and stepping by 2^31 on average: a millisecond holds about
///   1.5 × 2^(42 − B) UUIDs (some 3,000 with B = 31, 100 million with B = 16), and a
///   generator asked for more runs ahead of the clock by a millisecond per that many
///   (RFC 9562 §6.2 allows this; the other choice, waiting for the clock, is the
///   caller's to make by asking for fewer).
/// - **Unpredictable**: at least 32 bits of every UUID come fresh from `R` (with `Random`,
///   its increment of 1 to 2^32; in a new millisecond, or `Precision`'s new 1/4096 ms,
///   the seeded counter's bits as well), less the bits a machine ID takes.
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
/// use uuidkit::generator::v7::{V7Generator, V7Method};
/// let mut g = V7Generator::new(V7Method::Counter);
/// let (a, b) = (g.next(), g.next());
/// assert!(a < b);
/// assert_eq!(a.version(), uuidkit::Version::V7);
/// ```
pub type V7Generator<C = SystemClock, R = Csprng> = Timed<V7Stamp, C, R>;

/// v7's stamp: the method, and the machine ID (if any). [`V7Generator`] is
/// `Timed<V7Stamp>`.
///
/// ```
/// use uuidkit::generator::v7::{V7Method, V7Stamp};
/// assert_eq!(V7Stamp::from(V7Method::Random).method(), V7Method::Random);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct V7Stamp {
    method: V7Method,
    machine_id: Option<MachineId>,
    /// The ID came from a service's lease: it goes in the last bits, as in every
    /// version a service's clients make (Method 2 puts it there anyway).
    id_last: bool,
}

impl V7Stamp {
    /// The method.
    ///
    /// ```
    /// use uuidkit::generator::v7::{V7Method, V7Stamp};
    /// assert_eq!(V7Stamp::from(V7Method::Counter).method(), V7Method::Counter);
    /// ```
    pub const fn method(&self) -> V7Method {
        self.method
    }

    /// The machine ID written into every UUID, if any.
    ///
    /// ```
    /// use uuidkit::generator::v7::{V7Method, V7Stamp};
    /// assert_eq!(V7Stamp::from(V7Method::Counter).machine_id(), None);
    /// ```
    pub const fn machine_id(&self) -> Option<MachineId> {
        self.machine_id
    }
}

impl From<V7Method> for V7Stamp {
    fn from(method: V7Method) -> V7Stamp {
        V7Stamp {
            method,
            machine_id: None,
            id_last: false,
        }
    }
}

/// The state machine of a method, with `id_bits` of a machine ID kept out of Method 2's
/// random value.
const fn v7_state(method: V7Method, id_bits: u32) -> Monotonic {
    match method {
        V7Method::Counter => Monotonic::new(48, 42, Step::One),
        V7Method::Random => Monotonic::new(48, 74 - id_bits, Step::Random),
        V7Method::Precision => Monotonic::new(60, 30, Step::One),
    }
}

/// v7 blocks: at least 2^36 counter values of one millisecond (a one-UUID process leases
/// little), at most 16 ms, grown while a block lasts less than 32 ms: a process at full
/// speed leases about 100 times a second, and others' blocks start at most 16 ms ahead.
const V7_BLOCKS: BlockSizes = BlockSizes {
    min: 1 << 36,
    max: 16 << 42,
    target: 32 << 42,
};

impl V7Generator {
    /// A generator on the system clock and the default CSPRNG.
    ///
    /// ```
    /// use uuidkit::generator::v7::{V7Generator, V7Method};
    /// assert_eq!(V7Generator::new(V7Method::Random).method(), V7Method::Random);
    /// ```
    pub const fn new(method: V7Method) -> V7Generator {
        V7Generator::with_sources(method, SystemClock, Csprng)
    }
}

impl Default for V7Generator {
    fn default() -> V7Generator {
        V7Generator::new(V7Method::Counter)
    }
}

impl<C, R> V7Generator<C, R> {
    /// A generator on the given clock and random source.
    ///
    /// ```
    /// use uuidkit::{time::ManualClock, generator::v7::{V7Generator, V7Method}};
    /// use uuidkit::{random::Csprng, time::UnixTime};
    /// let clock = ManualClock::new(UnixTime::new(1_700_000_000, 0));
    /// let mut g = V7Generator::with_sources(V7Method::Precision, &clock, Csprng);
    /// assert_eq!(g.next().version(), uuidkit::Version::V7);
    /// ```
    pub const fn with_sources(method: V7Method, clock: C, rng: R) -> V7Generator<C, R> {
        let stamp = V7Stamp {
            method,
            machine_id: None,
            id_last: false,
        };
        Timed::from_parts(stamp, v7_state(method, 0), clock, rng)
    }

    /// The same generator writing `id` into every UUID (see [`V7Method`] for where), so
    /// that generators with different IDs never make the same UUID. Every method takes
    /// one; at most 31 bits wide, so that one of the 32 random bits stays random. Give it
    /// before the first UUID: the generator starts afresh.
    ///
    /// ```
    /// use uuidkit::generator::{machine_id::MachineId, v7::{V7Generator, V7Method}};
    /// let id = MachineId::new(5, 4)?;
    /// let mut g = V7Generator::new(V7Method::Random).with_machine_id(id)?;
    /// let (a, b) = (g.next(), g.next());
    /// assert!(a < b);
    /// assert_eq!((a.as_u128() & 0xf, b.as_u128() & 0xf), (5, 5));
    /// # Ok::<(), uuidkit::generator::machine_id::MachineIdError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`MachineIdError::NoRoom`] for an ID of 32 bits or more.
    pub fn with_machine_id(mut self, id: MachineId) -> Result<Self, MachineIdError> {
        id.check_room(MachineId::V7_RANDOM_BITS, "v7")?;
        let method = self.method();
        *self.stamp_mut() = V7Stamp {
            method,
            machine_id: Some(id),
            id_last: false,
        };
        self.reset_state(v7_state(method, id.bits()));
        Ok(self)
    }

    /// The method this generator uses.
    ///
    /// ```
    /// use uuidkit::generator::v7::{V7Generator, V7Method};
    /// assert_eq!(V7Generator::default().method(), V7Method::Counter);
    /// ```
    pub const fn method(&self) -> V7Method {
        self.stamp().method
    }

    /// The Unix millisecond of the last UUID.
    ///
    /// ```
    /// use uuidkit::generator::v7::{V7Generator, V7Method};
    /// let mut g = V7Generator::new(V7Method::Precision);
    /// let u = g.next();
    /// assert_eq!(g.last_millis(), uuidkit::layout::v7::decode(&u)?.unix_ts_ms);
    /// # Ok::<(), uuidkit::layout::LayoutError>(())
    /// ```
    pub fn last_millis(&self) -> u64 {
        match self.method() {
            V7Method::Precision => self.last_timestamp() >> 12,
            _ => self.last_timestamp(),
        }
    }
}

impl V7Stamp {
    /// Methods 1 and 3: the 32 random bits after the counter are `(tail & keep) | id`,
    /// the machine ID (if any) in `id`, where `pack_tail` places it.
    fn tail_masks(&self) -> (u64, u64) {
        match &self.machine_id {
            None => (0xffff_ffff, 0),
            Some(m) if self.id_last => {
                (0xffff_ffff & !((1 << m.bits()) - 1), m.place_last(0) as u64)
            }
            Some(m) => {
                let rest = MachineId::V7_RANDOM_BITS - m.bits();
                (
                    (1 << rest) - 1,
                    m.place(0, MachineId::V7_RANDOM_BITS) as u64,
                )
            }
        }
    }
}

/// A run of Method 1: `high` the timestamp and version, `id` the machine ID's bits and
/// the variant, `keep` the random bits of the tail (see [`V7Stamp::tail_masks`]).
struct CounterRun {
    high: u64,
    keep: u64,
    id: u64,
}

impl sealed::RunPack for CounterRun {
    #[inline(always)]
    fn pack(&self, counter: u128, tail: u64) -> Uuid {
        // The counter is at most 42 bits wide: 12 in `rand_a`, 30 at the head of `rand_b`.
        let c = counter as u64;
        Uuid::from_u64_pair(
            self.high | (c >> 30),
            ((c << 34) >> 2) | self.id | (tail & self.keep),
        )
    }

    /// Between two carries out of the counter's low 30 bits (at the head of the low
    /// half) the high half stays as it is and the low half goes up by 2^32 a UUID: each
    /// UUID is then an addition, its tail and two stores, where `pack` shifts the
    /// counter into both halves anew (`gen v7 --no-state`: 47.0 to 38.2 instructions a
    /// UUID, callgrind, 1,000,000).
    #[inline(always)]
    fn pack_by_one<const TAIL: usize>(
        &self,
        counter: u128,
        out: &mut [Uuid],
        fresh: &[u8],
    ) -> u128 {
        const LOW: u64 = (1 << 30) - 1;
        let per = TAIL.max(1);
        // At most 42 bits, below its overflow: nothing wraps.
        let mut c = counter as u64;
        let (mut out, mut fresh) = (out, fresh);
        while !out.is_empty() {
            let first = c + 1;
            let stay = ((LOW - (first & LOW)) as usize)
                .saturating_add(1)
                .min(out.len());
            let (now, rest) = core::mem::take(&mut out).split_at_mut(stay);
            let (bits, more) = fresh.split_at(stay * per);
            let high = self.high | (first >> 30);
            let mut low = ((first & LOW) << 32) | self.id;
            for (u, w) in now.iter_mut().zip(bits.chunks_exact(per)) {
                let tail = super::timed::tail_of::<TAIL>(w) & self.keep;
                *u = Uuid::from_u64_pair(high, low | tail);
                low += 1 << 32;
            }
            c += stay as u64;
            (out, fresh) = (rest, more);
        }
        c as u128
    }
}

/// A run of Method 3: `high` the millisecond, version and fraction; `id` and `keep` as
/// for [`CounterRun`].
struct PrecisionRun {
    high: u64,
    keep: u64,
    id: u64,
}

impl sealed::RunPack for PrecisionRun {
    #[inline(always)]
    fn pack(&self, counter: u128, tail: u64) -> Uuid {
        // The counter is at most 30 bits wide.
        Uuid::from_u64_pair(
            self.high,
            ((counter as u64) << 32) | self.id | (tail & self.keep),
        )
    }
}

/// A run of Method 2 without a machine ID: the 74-bit value in `rand_a` and `rand_b`.
/// Kept apart from [`RandomIdRun`] (which with `bits` 0 and `id` 0 packs the same):
/// its shift by a variable `bits` costs `gen v7 --method random --no-state` 7
/// instructions a UUID (callgrind, 45.1M against 52.1M for 1,000,000).
struct RandomRun {
    high: u64,
}

impl sealed::RunPack for RandomRun {
    #[inline(always)]
    fn pack(&self, v: u128, _: u64) -> Uuid {
        Uuid::from_u64_pair(
            self.high | (v >> 62) as u64,
            (v as u64 & ((1 << 62) - 1)) | 1 << 63,
        )
    }
}

/// A run of Method 2 with a machine ID of `bits` below the random value.
struct RandomIdRun {
    high: u64,
    bits: u32,
    id: u128,
}

impl sealed::RunPack for RandomIdRun {
    #[inline(always)]
    fn pack(&self, counter: u128, _: u64) -> Uuid {
        let v = (counter << self.bits) | self.id;
        Uuid::from_u64_pair(
            self.high | (v >> 62) as u64,
            (v as u64 & ((1 << 62) - 1)) | 1 << 63,
        )
    }
}

/// v7's stamp: a method's timestamp units (milliseconds, or 1/4096 ms for `Precision`)
/// and how it fills `rand_a` and `rand_b`.
impl sealed::Stamp for V7Stamp {
    fn kind(&self) -> GeneratorKind {
        GeneratorKind::V7
    }

    fn blocks(&self) -> BlockSizes {
        V7_BLOCKS
    }

    #[inline]
    fn units(&self, now: UnixTime) -> u64 {
        let ms = now.millis_since_epoch();
        match self.method {
            V7Method::Counter | V7Method::Random => ms,
            // Units of 1/4096 ms: the fraction is rounded down, as §6.2 Method 3 says. A
            // reading past the 48-bit millisecond range counts as its very last unit (the
            // state clamps it), so the product cannot overflow. A reading before 1970 is
            // the epoch itself, fraction included: its sub-millisecond part belongs to a
            // negative millisecond, not to millisecond 0.
            V7Method::Precision => {
                if now.secs() < 0 {
                    0
                } else if ms > MS_MAX {
                    u64::MAX
                } else {
                    ms * 4096 + (now.subsec_nanos() % 1_000_000) as u64 * 4096 / 1_000_000
                }
            }
        }
    }

    fn lease_clock(&self, units: u64, out: (u64, u128)) -> u64 {
        match self.method {
            // Method 2 has always leased with the clock at the millisecond it hands out,
            // not the one it read (they differ only after the clock went back).
            V7Method::Random => out.0.min(MS_MAX),
            _ => units,
        }
    }

    fn tail_bytes(&self) -> usize {
        match self.method {
            // Its random increments are its fresh bits.
            V7Method::Random => 0,
            V7Method::Counter | V7Method::Precision => 4,
        }
    }

    #[inline]
    fn pack_tail(&self, (t, counter): (u64, u128), tail: u64) -> Uuid {
        // The 32 random bits after the counter, headed by the machine ID if there is one.
        let tail = || match &self.machine_id {
            None => tail,
            Some(m) if self.id_last => m.place_last(tail as u128) as u64,
            Some(m) => m.place(tail as u128, MachineId::V7_RANDOM_BITS) as u64,
        };
        match self.method {
            V7Method::Counter => pack(
                t,
                (counter >> 30) as u16,
                ((counter as u64 & ((1 << 30) - 1)) << 32) | tail(),
            ),
            V7Method::Random => {
                // The ID below the random value, out of its increments' reach.
                let v = match &self.machine_id {
                    None => counter,
                    Some(m) => (counter << m.bits()) | m.value() as u128,
                };
                pack(t, (v >> 62) as u16, v as u64)
            }
            V7Method::Precision => pack(
                t >> 12,
                (t & 0xfff) as u16,
                ((counter as u64) << 32) | tail(),
            ),
        }
    }

    #[inline]
    fn with_run_pack<V: sealed::RunVisit>(&self, t: u64, visit: V) -> V::Out {
        match self.method {
            V7Method::Counter => {
                let (keep, id) = self.tail_masks();
                visit.visit(CounterRun {
                    high: (t << 16) | 0x7000,
                    keep,
                    id: id | 1 << 63,
                })
            }
            V7Method::Precision => {
                let (keep, id) = self.tail_masks();
                visit.visit(PrecisionRun {
                    high: ((t >> 12) << 16) | 0x7000 | (t & 0xfff),
                    keep,
                    id: id | 1 << 63,
                })
            }
            V7Method::Random => match &self.machine_id {
                None => visit.visit(RandomRun {
                    high: (t << 16) | 0x7000,
                }),
                Some(m) => visit.visit(RandomIdRun {
                    high: (t << 16) | 0x7000,
                    bits: m.bits(),
                    id: m.value() as u128,
                }),
            },
        }
    }

    fn last_millis(&self, units: u64) -> u64 {
        match self.method {
            V7Method::Precision => units >> 12,
            _ => units,
        }
    }

    fn machine_id(&self) -> Option<MachineId> {
        self.machine_id
    }

    fn adopt_machine_id(&mut self, id: MachineId) -> Option<u32> {
        if id.check_room(MachineId::V7_RANDOM_BITS, "v7").is_err() {
            return None;
        }
        self.machine_id = Some(id);
        self.id_last = true;
        // Method 2 keeps the ID below a random value 74 − B bits wide, as
        // `with_machine_id` makes it; the other methods' state does not change.
        (self.method == V7Method::Random).then(|| 74 - id.bits())
    }

    fn forget_machine_id(&mut self) -> Option<u32> {
        self.machine_id = None;
        (self.method == V7Method::Random).then_some(74)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::timed::sealed::{RunPack, RunVisit, Stamp};

    /// Packs `cases` with the run's packer.
    struct PackAll<'a>(&'a [(u128, u64)]);

    impl RunVisit for PackAll<'_> {
        type Out = Vec<Uuid>;
        fn visit<P: RunPack>(self, pack: P) -> Vec<Uuid> {
            self.0.iter().map(|&(c, tail)| pack.pack(c, tail)).collect()
        }
    }

    /// `pack_by_one` of `len` UUIDs from `counter`, with tails `fresh`, next to `pack`'s
    /// one at a time.
    struct ByOne<'a> {
        counter: u128,
        len: usize,
        fresh: &'a [u8],
    }

    impl RunVisit for ByOne<'_> {
        type Out = (Vec<Uuid>, u128, Vec<Uuid>);
        fn visit<P: RunPack>(self, pack: P) -> Self::Out {
            let mut out = vec![Uuid::NIL; self.len];
            let last = pack.pack_by_one::<4>(self.counter, &mut out, self.fresh);
            let one_at_a_time = (1..=self.len)
                .map(|i| {
                    let w = &self.fresh[(i - 1) * 4..];
                    let tail = u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as u64;
                    pack.pack(self.counter + i as u128, tail)
                })
                .collect();
            (out, last, one_at_a_time)
        }
    }

    /// Method 1's steps of one make what its `pack` makes one UUID at a time, across the
    /// carries out of the counter's low 30 bits (where its high half changes), up to the
    /// counter's last value, with and without a machine ID.
    #[test]
    fn counter_steps_of_one_pack_as_pack_does_across_the_carries() {
        let fresh: Vec<u8> = (0..4 * 3000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8)
            .collect();
        let mut stamps = vec![V7Stamp::from(V7Method::Counter)];
        for (value, bits) in [(1, 1), (0x7fff_ffff, 31), (0x1234, 16)] {
            stamps.push(V7Stamp {
                method: V7Method::Counter,
                machine_id: Some(MachineId::new(value, bits).unwrap()),
                id_last: false,
            });
        }
        let last = (1u128 << 42) - 1;
        for stamp in stamps {
            for (counter, len) in [
                (0, 3000),
                ((1 << 30) - 1500, 3000),
                ((1 << 30) - 1, 1),
                ((1 << 30) - 2, 2),
                ((3 << 30) - 7, 20),
                (last - 3000, 3000),
                (last - 1, 1),
                (5, 0),
            ] {
                let (out, end, want) = stamp.with_run_pack(
                    1_700_000_000_000,
                    ByOne {
                        counter,
                        len,
                        fresh: &fresh,
                    },
                );
                assert_eq!(end, counter + len as u128, "{stamp:?} {counter} {len}");
                assert_eq!(out, want, "{stamp:?} {counter} {len}");
            }
        }
    }

    /// A run's packer makes what `pack_tail` makes, for every method, with and without a
    /// machine ID (given, or brought by a lease), at the edges of each field.
    #[test]
    fn run_packers_pack_as_pack_tail_does() {
        let mut stamps = Vec::new();
        for method in V7Method::ALL {
            stamps.push(V7Stamp::from(method));
            for (value, bits) in [(0, 1), (1, 1), (5, 3), (0x7fff_ffff, 31), (0x1234, 16)] {
                let id = MachineId::new(value, bits).unwrap();
                for id_last in [false, true] {
                    stamps.push(V7Stamp {
                        method,
                        machine_id: Some(id),
                        id_last,
                    });
                }
            }
        }
        let tails = [0, 1, 0xffff_ffff, 0x8000_0001, 0x1234_5678];
        for stamp in stamps {
            let (t_max, c_bits) = match stamp.method {
                V7Method::Counter => ((1u64 << 48) - 1, 42),
                V7Method::Precision => ((1u64 << 60) - 1, 30),
                V7Method::Random => (
                    (1u64 << 48) - 1,
                    74 - stamp.machine_id.map_or(0, |m| m.bits()),
                ),
            };
            let c_max = (1u128 << c_bits) - 1;
            let counters = [
                0,
                1,
                c_max,
                c_max >> 1,
                (1 << 30) - 1,
                1 << 29,
                0x2_5555_5555,
            ];
            let mut cases = Vec::new();
            for c in counters.into_iter().filter(|&c| c <= c_max) {
                for tail in tails {
                    let tail = if stamp.tail_bytes() == 0 { 0 } else { tail };
                    cases.push((c, tail));
                }
            }
            for t in [0, 1, 0xfff, 0x1000, 1_700_000_000_000, t_max] {
                let run = stamp.with_run_pack(t, PackAll(&cases));
                for (&(c, tail), u) in cases.iter().zip(run) {
                    assert_eq!(u, stamp.pack_tail((t, c), tail), "{stamp:?} {t} {c} {tail}");
                }
            }
        }
    }
}
