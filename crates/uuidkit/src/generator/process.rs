//! The process-wide generators behind [`crate::v1`], [`crate::v4`], [`crate::v6`],
//! [`crate::v7`] and [`crate::v8`]: one generator per version per process, created on
//! first use (the [`super`] module documents what they guarantee).

use std::cell::RefCell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::draft::DraftGenerator;
use super::error::GenError;
use super::gregorian::GregorianGenerator;
use super::lock;
use super::state_file::{process_store, state_set};
use super::v7::lock_free::{ProcessV7, V7Thread};
use super::v7::{V7Generator, V7Method};
use super::v8::V8Generator;
use crate::layout::Layout;
use crate::store::StoreWarning;
use crate::time::GregorianTimestamp;
use crate::uuid::Uuid;

type Shared<T> = Mutex<Option<T>>;

// The process-wide generators that need a lock. Each is created on first use inside its
// own lock (not in a `LazyLock`, whose initialisation, caught by `fork` half done in
// another thread, would leave the child waiting forever).
pub(super) static V1: Shared<GregorianGenerator> = Mutex::new(None);
pub(super) static V6: Shared<GregorianGenerator> = Mutex::new(None);
/// v7 with a state file ([`use_state_file`](super::use_state_file), `UUIDKIT_STATE`): a lease can need the
/// file, so a lock.
pub(super) static V7_STORED: Shared<V7Generator> = Mutex::new(None);
pub(super) static V8: Shared<V8Generator> = Mutex::new(None);
/// v7 Method 2 and Method 3 ([`v7_of`]); Method 1 is [`v7`](fn@v7)'s.
pub(super) static V7_RANDOM: Shared<V7Generator> = Mutex::new(None);
pub(super) static V7_PRECISION: Shared<V7Generator> = Mutex::new(None);
/// One generator per layout ([`draft`]), by its place in [`Layout::ALL`] (only the
/// draft's are made).
pub(super) static DRAFT: Mutex<[Option<DraftGenerator>; Layout::ALL.len()]> =
    Mutex::new([const { None }; Layout::ALL.len()]);

static V7: ProcessV7 = ProcessV7::new();

fn gregorian_next(
    m: &Shared<GregorianGenerator>,
    make: fn() -> GregorianGenerator,
) -> Result<Uuid, GenError> {
    lock(m)
        .get_or_insert_with(|| match process_store() {
            Some(store) => make().with_store(store),
            None => make(),
        })
        .next()
}

/// The warnings of the process-wide generators' state file since the last
/// call: a damaged file that was repaired, or a store that could not be used, so that
/// the generator went on in memory. Empty without a store. The library never prints.
///
/// ```
/// let _ = uuidkit::v7();
/// assert!(uuidkit::generator::take_store_warnings().is_empty());
/// ```
pub fn take_store_warnings() -> Vec<StoreWarning> {
    let mut all = Vec::new();
    for g in [&V1, &V6] {
        if let Some(g) = lock(g).as_mut() {
            all.extend(g.take_store_warnings());
        }
    }
    if let Some(g) = lock(&V7_STORED).as_mut() {
        all.extend(g.take_store_warnings());
    }
    if let Some(g) = lock(&V8).as_mut() {
        all.extend(g.take_store_warnings());
    }
    for g in [&V7_RANDOM, &V7_PRECISION] {
        if let Some(g) = lock(g).as_mut() {
            all.extend(g.take_store_warnings());
        }
    }
    for g in lock(&DRAFT).iter_mut().flatten() {
        all.extend(g.take_store_warnings());
    }
    all
}

/// A v1 UUID from the process-wide generator (node strategy from `UUIDKIT_NODE`, waits
/// on overrun), or [`GenError::TimestampExhausted`] when the clock reads past 5236.
///
/// ```
/// assert_eq!(uuidkit::try_v1()?.version(), uuidkit::Version::V1);
/// # Ok::<(), uuidkit::generator::GenError>(())
/// ```
///
/// # Errors
///
/// [`GenError::TimestampExhausted`] when the clock reads past 5236.
pub fn try_v1() -> Result<Uuid, GenError> {
    gregorian_next(&V1, GregorianGenerator::v1)
}

/// A v1 UUID from the process-wide generator (node strategy from `UUIDKIT_NODE`, waits
/// on overrun).
///
/// # Panics
/// Only when the system clock reads past the end of the v1 timestamp range
/// (5236-03-31T21:21:00.6846975Z), where no further v1 UUID exists; [`try_v1`] returns
/// that as an error instead.
///
/// ```
/// assert_eq!(uuidkit::v1().version(), uuidkit::Version::V1);
/// ```
pub fn v1() -> Uuid {
    try_v1().unwrap_or_else(|e| panic!("uuidkit::v1: {e}"))
}

/// A v4 UUID: 122 bits from the CSPRNG ([`crate::random::Csprng`]).
///
/// ```
/// assert_ne!(uuidkit::v4(), uuidkit::v4());
/// ```
#[inline]
pub fn v4() -> Uuid {
    crate::layout::v4::encode(crate::random::bytes16())
}

/// Fills `out` with v4 UUIDs, as many calls to [`v4`] would, but drawing the random bits
/// of the whole batch in runs of the thread's keystream, with one visit to its state.
///
/// ```
/// let mut batch = [uuidkit::Uuid::NIL; 100];
/// uuidkit::v4_fill(&mut batch);
/// assert!(batch.iter().all(|u| u.version() == uuidkit::Version::V4));
/// assert_ne!(batch[0], batch[99]);
/// ```
#[inline]
pub fn v4_fill(out: &mut [Uuid]) {
    crate::random::fill_v4(out)
}

/// A v6 UUID from the process-wide generator, or [`GenError::TimestampExhausted`] when
/// the clock reads past 5236.
///
/// ```
/// let a = uuidkit::try_v6()?;
/// assert!(uuidkit::try_v6()? > a);
/// # Ok::<(), uuidkit::generator::GenError>(())
/// ```
///
/// # Errors
///
/// [`GenError::TimestampExhausted`] when the clock reads past 5236.
pub fn try_v6() -> Result<Uuid, GenError> {
    gregorian_next(&V6, GregorianGenerator::v6)
}

/// A v6 UUID from the process-wide generator: greater than every v6 UUID this process
/// generated before.
///
/// # Panics
/// Only when the system clock reads past the end of the v6 timestamp range
/// (5236-03-31T21:21:00.6846975Z); [`try_v6`] returns that as an error instead.
///
/// ```
/// let a = uuidkit::v6();
/// assert!(uuidkit::v6() > a);
/// ```
pub fn v6() -> Uuid {
    try_v6().unwrap_or_else(|e| panic!("uuidkit::v6: {e}"))
}

thread_local! {
    /// This thread's part of the process-wide v7 generator (its clock gate and key).
    static V7_THREAD: RefCell<V7Thread> = const { RefCell::new(V7Thread::new()) };
}

/// A v7 UUID (Method 1, 42-bit counter) from the process-wide generator: greater than
/// every v7 UUID this process generated before, from any thread.
///
/// # Timestamp
/// Its millisecond is the system clock's, read by this thread less than a millisecond
/// earlier: where the CPU has an invariant time-stamp counter, the clock is read again
/// only once the counter says its millisecond may have ended (the [`v7`](mod@super::v7)
/// module documents the gate and its bound), which takes the clock read (about 25 ns)
/// out of most calls. A clock set back leaves the timestamp standing until the
/// clock catches up; the UUIDs keep increasing.
///
/// ```
/// let a = uuidkit::v7();
/// assert!(uuidkit::v7() > a);
/// ```
#[inline]
pub fn v7() -> Uuid {
    if state_set() {
        return stored_v7();
    }
    V7_THREAD.with(|th| {
        V7.next_with(
            &mut th.borrow_mut(),
            &crate::time::SystemClock,
            &crate::platform::tsc::CpuTicks,
            crate::platform::fork_generation_relaxed(),
        )
    })
}

/// Fills `out` with v7 UUIDs from the process-wide generator: strictly increasing, and
/// in the same global order as [`v7`](fn@v7) (every UUID of the batch is greater than every v7
/// UUID the process made before the call, and less than every one after it; calls from
/// other threads at the same time interleave with it in chunks). Per chunk of 1,024 it
/// checks the clock once, takes its positions with one atomic addition and its random
/// bits in one visit to the thread's CSPRNG, which makes it several times faster than as
/// many calls, and lets threads scale where single calls all take turns on one cache
/// line.
///
/// ```
/// let before = uuidkit::v7();
/// let mut batch = [uuidkit::Uuid::NIL; 500];
/// uuidkit::v7_fill(&mut batch);
/// assert!(batch[0] > before);
/// assert!(batch.windows(2).all(|w| w[0] < w[1]));
/// assert!(uuidkit::v7() > batch[499]);
/// ```
pub fn v7_fill(out: &mut [Uuid]) {
    if state_set() {
        return stored_v7_fill(out);
    }
    V7_THREAD.with(|th| {
        V7.fill_with(
            &mut th.borrow_mut(),
            &crate::time::SystemClock,
            &crate::platform::tsc::CpuTicks,
            crate::platform::fork_generation_relaxed(),
            out,
        )
    })
}

fn stored_generator(g: &mut Option<V7Generator>) -> &mut V7Generator {
    g.get_or_insert_with(|| {
        let g = V7Generator::new(V7Method::Counter);
        match process_store() {
            Some(store) => g.with_store(store),
            None => g,
        }
    })
}

#[cold]
fn stored_v7() -> Uuid {
    stored_generator(&mut lock(&V7_STORED)).next()
}

/// With a store every UUID is admitted through the lease (no fast path), under the
/// lock; the clock is read once per chunk of 1,024.
#[cold]
fn stored_v7_fill(out: &mut [Uuid]) {
    let mut g = lock(&V7_STORED);
    let g = stored_generator(&mut g);
    for chunk in out.chunks_mut(1024) {
        g.fill(chunk);
    }
}

/// `g`, made on first use, with the process-wide generators' store when they have one.
fn with_process_store<S: super::timed::Stamp>(g: super::timed::Timed<S>) -> super::timed::Timed<S> {
    match process_store() {
        Some(store) => g.with_store(store),
        None => g,
    }
}

/// The host's node as CPython's `uuid.getnode()` finds it, fixed for the life of the
/// process: the MAC address of the first Ethernet interface (not loopback, address not
/// zero; by name) that is up and backed by a device, else the first that is up, even a
/// virtual one; when none is up, a [`random_node`](crate::node::random_node) (multicast
/// bit set).
///
/// ```
/// assert_eq!(uuidkit::generator::host_node(), uuidkit::generator::host_node());
/// ```
pub fn host_node() -> crate::node::NodeId {
    use std::sync::atomic::{AtomicU64, Ordering};
    // The node with bit 63 set once found, 0 before: an atomic, not a `OnceLock`, whose
    // initialisation caught half done by `fork` in another thread would leave a child
    // waiting for ever. Two threads may both look; the first to store wins.
    static NODE: AtomicU64 = AtomicU64::new(0);
    const FOUND: u64 = 1 << 63;
    let mut v = NODE.load(Ordering::Acquire);
    if v == 0 {
        let found = match crate::host::primary_mac() {
            Some(mac) => crate::node::NodeId::from_bytes(mac),
            None => crate::node::random_node(&mut crate::random::Csprng),
        };
        v = match NODE.compare_exchange(
            0,
            found.as_u64() | FOUND,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => found.as_u64() | FOUND,
            Err(first) => first,
        };
    }
    crate::node::NodeId::from_u64_masked(v)
}

/// The last timestamps (100 ns ticks since 1582) [`next_v1_timestamp`] and
/// [`next_v6_timestamp`] handed out. Atomics, not locks: nothing for `fork` to catch half
/// taken.
static LAST_V1_TICKS: AtomicU64 = AtomicU64::new(0);
static LAST_V6_TICKS: AtomicU64 = AtomicU64::new(0);

fn next_ticks(last: &AtomicU64) -> Result<GregorianTimestamp, GenError> {
    use crate::time::Clock;
    let now = GregorianTimestamp::from_unix_clamped(crate::time::SystemClock.now()).ticks();
    let max = GregorianTimestamp::MAX.ticks();
    let mut taken = 0;
    last.fetch_update(Ordering::AcqRel, Ordering::Acquire, |prev| {
        taken = now.max(prev.saturating_add(1));
        (taken <= max).then_some(taken)
    })
    .map_err(|_| GenError::TimestampExhausted {
        timestamp: GregorianTimestamp::MAX.to_unix(),
    })?;
    GregorianTimestamp::from_ticks(taken).ok_or(GenError::TimestampExhausted {
        timestamp: GregorianTimestamp::MAX.to_unix(),
    })
}

/// The timestamp for a v1 UUID whose node and clock sequence the caller chose (as
/// CPython's `uuid1(node, clock_seq)` makes one): the system clock's, or one tick past the
/// last one this function gave, whichever is later, so that a caller's UUIDs with one
/// node and clock sequence never repeat in this process. Not the process-wide
/// generator's ([`v1`](fn@v1)), whose node and clock sequence are its own.
///
/// ```
/// let a = uuidkit::generator::next_v1_timestamp()?;
/// assert!(uuidkit::generator::next_v1_timestamp()? > a);
/// # Ok::<(), uuidkit::generator::GenError>(())
/// ```
///
/// # Errors
///
/// [`GenError::TimestampExhausted`] past the last tick of 5236.
pub fn next_v1_timestamp() -> Result<GregorianTimestamp, GenError> {
    next_ticks(&LAST_V1_TICKS)
}

/// The same as [`next_v1_timestamp`] for v6 (CPython 3.14's `uuid6(node, clock_seq)`),
/// counted apart.
///
/// ```
/// let a = uuidkit::generator::next_v6_timestamp()?;
/// assert!(uuidkit::generator::next_v6_timestamp()? > a);
/// # Ok::<(), uuidkit::generator::GenError>(())
/// ```
///
/// # Errors
///
/// [`GenError::TimestampExhausted`] past the last tick of 5236.
pub fn next_v6_timestamp() -> Result<GregorianTimestamp, GenError> {
    next_ticks(&LAST_V6_TICKS)
}

/// A v7 UUID of `method` from the process-wide generator of that method: greater than
/// every v7 UUID of that method this process made before, from any thread, and sharing
/// the state file or daemon of the other process-wide generators when they have one.
/// `Counter` is [`v7`](fn@v7) itself; `Random` and `Precision` have a generator each
/// (behind a lock: each call takes it).
///
/// ```
/// use uuidkit::generator::{v7_of, v7::V7Method};
/// let a = v7_of(V7Method::Precision);
/// assert!(v7_of(V7Method::Precision) > a);
/// ```
pub fn v7_of(method: V7Method) -> Uuid {
    let slot = match method {
        V7Method::Counter => return v7(),
        V7Method::Random => &V7_RANDOM,
        V7Method::Precision => &V7_PRECISION,
    };
    lock(slot)
        .get_or_insert_with(|| with_process_store(V7Generator::new(method)))
        .next()
}

/// A UUID of the 2021 draft's `layout` from the process-wide generator of that layout:
/// greater than every UUID of the layout this process made before, from any thread (up
/// to the layout's end), sharing the state file or daemon of the other process-wide
/// generators when they have one.
///
/// ```
/// let l = "draft-v7-us".parse()?;
/// let a = uuidkit::generator::draft(l)?;
/// assert!(uuidkit::generator::draft(l)? > a);
/// assert!(uuidkit::generator::draft("b1".parse()?).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`UnknownName`](crate::error::UnknownName) for `b1` and `b2`, which are not the draft's.
pub fn draft(layout: Layout) -> Result<Uuid, crate::error::UnknownName> {
    let i = Layout::ALL
        .iter()
        .position(|l| *l == layout)
        .expect("every layout is in Layout::ALL");
    let mut all = lock(&DRAFT);
    let g = match &mut all[i] {
        Some(g) => g,
        slot => slot.insert(with_process_store(DraftGenerator::new(layout)?)),
    };
    Ok(g.next())
}

/// A time-based v8 UUID (Appendix B.1 layout) from the process-wide generator: greater
/// than every such UUID this process generated before.
///
/// ```
/// let a = uuidkit::v8();
/// assert!(uuidkit::v8() > a);
/// ```
pub fn v8() -> Uuid {
    lock(&V8)
        .get_or_insert_with(|| {
            let g = V8Generator::new();
            match process_store() {
                Some(store) => g.with_store(store),
                None => g,
            }
        })
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::sync::atomic::Ordering;

    /// Threads mixing `v7` and `v7_fill`: each thread's UUIDs increase, none repeats,
    /// and a call that starts after another thread published its result returns more
    /// (one global order, not one per thread).
    #[test]
    fn v7_and_v7_fill_keep_one_order_across_threads() {
        let published = Mutex::new(Uuid::NIL);
        let all: Vec<Vec<Uuid>> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..4)
                .map(|t| {
                    let published = &published;
                    s.spawn(move || {
                        let mut mine = Vec::new();
                        let mut batch = vec![Uuid::NIL; 3000];
                        for i in 0..400 {
                            let seen = *published.lock().unwrap();
                            let n = (i * 37 + t * 11) % 3000;
                            let out: &[Uuid] = if i % 3 == 0 {
                                batch[0] = v7();
                                &batch[..1]
                            } else {
                                v7_fill(&mut batch[..n]);
                                &batch[..n]
                            };
                            if let (Some(first), Some(last)) = (out.first(), out.last()) {
                                assert!(*first > seen, "{first} after {seen} was published");
                                let mut p = published.lock().unwrap();
                                *p = (*p).max(*last);
                            }
                            assert!(out.windows(2).all(|w| w[0] < w[1]));
                            if let (Some(prev), Some(first)) = (mine.last(), out.first()) {
                                assert!(first > prev, "a thread's sequence decreased");
                            }
                            mine.extend_from_slice(out);
                        }
                        mine
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        let mut every: Vec<Uuid> = all.into_iter().flatten().collect();
        let n = every.len();
        every.sort_unstable();
        every.dedup();
        assert_eq!(every.len(), n, "a v7 UUID repeated");
    }

    /// One call as the other threads could see it: the value of a shared ticket taken
    /// just before the call and just after it returned, and what it returned.
    struct Call {
        before: u64,
        after: u64,
        uuid: Uuid,
    }

    /// Threads calling `make` at once, each logging its calls with tickets from one
    /// atomic counter (sequentially consistent, so the tickets order the calls as the
    /// threads observed them). Whenever a call returned before another started (its
    /// `after` ticket is below the other's `before`), its UUID must be the smaller: one
    /// order for the whole process. Each thread's own order and uniqueness follow.
    fn one_order_across_threads(label: &str, make: fn() -> Uuid) {
        use std::sync::atomic::AtomicU64;
        const THREADS: usize = 4;
        const CALLS: usize = 200_000;
        let ticket = AtomicU64::new(0);
        let mut calls: Vec<Call> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..THREADS)
                .map(|_| {
                    let ticket = &ticket;
                    s.spawn(move || {
                        (0..CALLS)
                            .map(|_| {
                                let before = ticket.fetch_add(1, Ordering::SeqCst);
                                let uuid = make();
                                let after = ticket.fetch_add(1, Ordering::SeqCst);
                                Call {
                                    before,
                                    after,
                                    uuid,
                                }
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            threads
                .into_iter()
                .flat_map(|t| t.join().unwrap())
                .collect()
        });
        // Sweep the calls by start; `done` (by end) feeds the largest UUID of the calls
        // that had returned before the current one started.
        let mut done: Vec<(u64, Uuid)> = calls.iter().map(|c| (c.after, c.uuid)).collect();
        done.sort_unstable_by_key(|&(after, _)| after);
        calls.sort_unstable_by_key(|c| c.before);
        let (mut next, mut highest) = (0, None::<(Uuid, u64)>);
        for c in &calls {
            while next < done.len() && done[next].0 < c.before {
                let (after, u) = done[next];
                if highest.is_none_or(|(h, _)| u > h) {
                    highest = Some((u, after));
                }
                next += 1;
            }
            if let Some((h, after)) = highest {
                assert!(
                    c.uuid > h,
                    "{label}: {} (call started at ticket {}) is not above {h}, returned \
                     earlier (ticket {after}) in another thread or this one",
                    c.uuid,
                    c.before
                );
            }
        }
        let mut every: Vec<Uuid> = calls.iter().map(|c| c.uuid).collect();
        every.sort_unstable();
        every.dedup();
        assert_eq!(every.len(), THREADS * CALLS, "{label}: a UUID repeated");
    }

    #[test]
    fn v6_keeps_one_order_across_threads() {
        one_order_across_threads("v6", v6);
    }

    #[test]
    fn v8_keeps_one_order_across_threads() {
        one_order_across_threads("v8", v8);
    }

    #[test]
    fn v4_fill_never_repeats_across_threads() {
        let all: Vec<Vec<Uuid>> = std::thread::scope(|s| {
            let threads: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        let mut batch = vec![Uuid::NIL; 100_000];
                        v4_fill(&mut batch);
                        batch.push(v4());
                        batch
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        let mut every: Vec<Uuid> = all.into_iter().flatten().collect();
        assert!(
            every
                .iter()
                .all(|u| u.version() == crate::uuid::Version::V4)
        );
        let n = every.len();
        every.sort_unstable();
        every.dedup();
        assert_eq!(every.len(), n, "a v4 UUID repeated");
    }
}
