//! A held machine ID: the claim, the background thread that renews the lease and raises
//! the mark, and the fence every UUID passes before it is handed out.
//!
//! # Why two guards
//! - **The mark** is what keeps UUIDs apart across holders. A holder hands out a UUID
//!   only if its time is at or below the mark it has *already written* to etcd, and it
//!   can write the mark only while etcd says it holds the ID (a transaction compares the
//!   ID's key with its lease). The next holder takes the ID and reads the mark in one
//!   transaction, and starts strictly above it. So even a holder that does not know it
//!   lost the ID (cut off, or stopped) issues nothing the next holder will issue.
//! - **The fence** stops a holder that may have lost its lease from issuing at all: the
//!   lease's time-to-live, counted from when the last renewal was *sent* (etcd counts
//!   from when it received it, later), less a margin (a fifth of the time-to-live) for
//!   the two clocks' rates. The clock is `CLOCK_BOOTTIME`, which is not moved when the
//!   clock is set and goes on counting while the system is suspended, as the lease at
//!   etcd runs out meanwhile; it is read once per millisecond of UUIDs or per batch.
//!   Past it, calls fail with [`FleetError::Fenced`] until a renewal succeeds. This makes "never two live holders of one ID" hold for the holders
//!   themselves, not only for their UUIDs.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::config::{CLAIM_HORIZON, FleetConfig, Geometry, Placement};
use super::error::FleetError;
use super::etcd::Etcd;
use crate::node::machine_id::MachineId;
use crate::store::{LeaseSource, MemoryStorage, StateStore};
use crate::time::UnixTime;

/// What a holder knows about its ID, for status displays.
///
/// ```no_run
/// use std::sync::Arc;
/// use uuidkit::fleet::{FleetConfig, LeasedId};
/// let id = LeasedId::claim(&FleetConfig::new("http://127.0.0.1:2379", "web", 3)?)?;
/// let s = id.status();
/// println!("ID {} of {}, lease {:?} left, mark {}", s.id, 1u64 << s.bits, s.remaining, s.mark_ms);
/// # Ok::<(), uuidkit::fleet::FleetError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseStatus {
    /// The ID.
    pub id: u64,
    /// Its width.
    pub bits: u32,
    /// The fleet.
    pub fleet: String,
    /// The etcd lease's ID.
    pub lease: i64,
    /// How long the fence stays open without another renewal; `None` once it is shut
    /// (the lease may have expired, or is lost).
    pub remaining: Option<Duration>,
    /// The high-water mark written to etcd, in Unix milliseconds: nothing is handed out
    /// stamped after it.
    pub mark_ms: u64,
    /// The first Unix millisecond this holder may use: one past the previous holder's
    /// mark (0 for an ID never held).
    pub floor_ms: u64,
    /// How far the system clock was behind the previous holder's mark at the claim
    /// (UUIDs then run ahead of the clock by as much until it catches up).
    pub clock_behind: Option<Duration>,
    /// The lease is gone for good.
    pub lost: bool,
    /// Free IDs the claim passed over because their marks were too far ahead (a clock far
    /// ahead wrote them; see [`CLAIM_HORIZON`](super::CLAIM_HORIZON)), with the marks in
    /// Unix ms: never used, and worth a warning.
    pub skipped: Vec<(u64, u64)>,
}

impl LeaseStatus {
    /// The warning for [`skipped`](Self::skipped) IDs, if any: which, their marks, and
    /// why.
    ///
    /// ```
    /// let mut s = uuidkit::fleet::LeaseStatus {
    ///     id: 1, bits: 1, fleet: "web".into(), lease: 7, remaining: None, mark_ms: 0,
    ///     floor_ms: 0, clock_behind: None, lost: false, skipped: vec![(0, 99_999_999_999_999)],
    /// };
    /// let w = s.skipped_warning().unwrap();
    /// assert!(w.starts_with("fleet \"web\": skipped machine ID 0 (mark 5138-11-16T09:46:39.999Z)"), "{w}");
    /// s.skipped.clear();
    /// assert_eq!(s.skipped_warning(), None);
    /// ```
    pub fn skipped_warning(&self) -> Option<String> {
        if self.skipped.is_empty() {
            return None;
        }
        let list: Vec<String> = self
            .skipped
            .iter()
            .map(|(id, mark)| format!("{id} (mark {})", UnixTime::from_millis(*mark).rfc3339(3)))
            .collect();
        Some(format!(
            "fleet {:?}: skipped machine ID {}: its high-water mark is later than a claim \
             accepts (past this host's clock plus 2 hours, or within a time-to-live of the \
             end of what the layout can stamp: a clock far ahead wrote it); it is never \
             used, and stays so until its mark is deleted in etcd",
            self.fleet,
            list.join(", ")
        ))
    }
}

struct Shared {
    id: MachineId,
    fleet: String,
    lease: i64,
    ttl: Duration,
    margin: Duration,
    /// When the fence shuts, on the fence's clock (`platform::fence_clock_ns`, which counts
    /// a suspend).
    deadline: AtomicU64,
    lost: AtomicBool,
    /// The mark written to etcd (Unix ms).
    mark: AtomicU64,
    floor_ms: u64,
    clock_behind: Option<Duration>,
    /// The latest mark this holder writes: a time-to-live before the last Unix
    /// millisecond the ID's generators can stamp ([`FleetConfig::max_mark_ms`]).
    max_mark_ms: u64,
    /// Free IDs the claim skipped for a mark too far ahead, with their marks.
    skipped: Vec<(u64, u64)>,
    /// Where the ID goes: every generator on it must put it there.
    placement: Placement,
    /// The latest Unix millisecond a generator handed out a UUID for (reported when it
    /// is dropped): on release the mark comes down to it, so that a holder that ran for a
    /// moment does not leave the next one a time-to-live ahead of the clock.
    used: AtomicU64,
    /// The mark a caller needs, and the condition it waits on.
    want: Mutex<u64>,
    raised: Condvar,
    wake: Notify,
    stop: AtomicBool,
    fork_generation: u64,
}

/// A machine ID held through an etcd lease, renewed in the background until it is
/// released (or dropped). Share it (`Arc`) between the generators that stamp it.
///
/// ```no_run
/// use std::sync::Arc;
/// use uuidkit::fleet::{FleetConfig, FleetGenerator, LeasedId};
/// use uuidkit::generator::v7::V7Method;
/// let id = Arc::new(LeasedId::claim(&FleetConfig::new("http://127.0.0.1:2379", "web", 3)?)?);
/// let mut g = FleetGenerator::v7(id.clone(), V7Method::Counter)?;
/// let u = g.try_next()?;
/// assert_eq!(u.version(), uuidkit::Version::V7);
/// # Ok::<(), uuidkit::fleet::FleetError>(())
/// ```
pub struct LeasedId {
    shared: Arc<Shared>,
    keeper: Mutex<Option<JoinHandle<()>>>,
    /// The ID's positions in this process: every generator on the ID leases its blocks
    /// here, as processes sharing a state file lease theirs from the file, so no two of
    /// them ever make the same (time, counter).
    positions: Arc<StateStore>,
}

impl core::fmt::Debug for LeasedId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LeasedId")
            .field("id", &self.shared.id)
            .field("fleet", &self.shared.fleet)
            .field("lease", &self.shared.lease)
            .finish_non_exhaustive()
    }
}

/// The longest a claim waits for its clock to reach the previous holder's mark (see
/// [`LeasedId::claim`]) before it runs ahead of it.
const CATCH_UP_WAIT: Duration = Duration::from_secs(2);

/// How often a claim that waits for a free ID looks again.
const WAIT_POLL: Duration = Duration::from_millis(100);

fn now_ms() -> u64 {
    UnixTime::now().millis_since_epoch()
}

impl LeasedId {
    /// Claims the lowest free ID of the fleet.
    ///
    /// Reads the fleet's keys (any key uuidkit did not write is an error, and nothing is
    /// written), takes a lease, takes the lowest ID nobody holds in one transaction that
    /// also reads the ID's mark, writes the first mark of its own (above the old one and
    /// a time-to-live ahead of the clock) and starts renewing. When the old mark is ahead
    /// of this clock, it then waits for the clock to pass it, up to 2 seconds (further
    /// ahead, the ID's generators run ahead of the clock from the mark), so that short
    /// holders one after another never carry the mark ever further ahead of the clocks.
    ///
    /// # Errors
    ///
    /// [`FleetError::AllHeld`] when every ID is held (or
    /// [`FleetError::WaitedTooLong`] after [`FleetConfig::with_wait`]'s wait),
    /// [`FleetError::Etcd`] when etcd cannot be reached or refuses, and
    /// [`FleetError::Garbage`] for a key under the fleet that uuidkit did not write, and
    /// [`FleetError::Unleased`] for a holder key with no lease.
    pub fn claim(cfg: &FleetConfig) -> Result<LeasedId, FleetError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| FleetError::Etcd {
                doing: "starting the client",
                endpoints: cfg.endpoints_text(),
                message: e.to_string(),
            })?;
        let ttl = cfg.ttl();
        let timeout = call_timeout(ttl);
        let (etcd, mut shared) = match runtime.block_on(claim(cfg, timeout)) {
            Ok(claimed) => claimed,
            Err(e) => {
                // Not a drop, which would wait for the runtime's blocking threads: a name
                // lookup of an endpoint may hold one for as long as the resolver likes.
                runtime.shutdown_background();
                return Err(e);
            }
        };
        // The previous holder's mark ahead of this clock (a layout of whole seconds ends
        // its mark at the second's last millisecond; a clock set back): wait for the
        // clock, below, up to 2 s, rather than start ahead of it; past that, the holder
        // runs ahead of its clock from the mark, and says so. Without the wait, short
        // holders one after another would each carry the mark a unit further ahead, far
        // past every clock; with it, each takes at least as much time as its unit from a
        // gap it cannot close otherwise.
        let catch_up = shared.clock_behind.map(|d| d.min(CATCH_UP_WAIT));
        if let (Some(behind), Some(wait)) = (shared.clock_behind, catch_up) {
            shared.clock_behind = Some(behind - wait).filter(|d| !d.is_zero());
        }
        let shared = Arc::new(shared);
        let for_keeper = Arc::clone(&shared);
        let keeper = std::thread::Builder::new()
            .name("uuidkit-fleet".into())
            .spawn(move || {
                runtime.block_on(keep(etcd, for_keeper));
                // As above: giving the ID back is done; a lookup still running is not
                // waited for.
                runtime.shutdown_background();
            })
            .map_err(|e| FleetError::Etcd {
                doing: "starting the renewal thread",
                endpoints: cfg.endpoints_text(),
                message: e.to_string(),
            })?;
        let held = LeasedId {
            shared,
            keeper: Mutex::new(Some(keeper)),
            positions: Arc::new(StateStore::with_storage(Box::new(MemoryStorage::new()))),
        };
        if let Some(d) = catch_up {
            // Renewing meanwhile: the keeper runs.
            std::thread::sleep(d + Duration::from_millis(1));
        }
        Ok(held)
    }

    /// The ID.
    pub fn machine_id(&self) -> MachineId {
        self.shared.id
    }

    /// Where the generators on this ID lease their positions (see the field).
    pub(crate) fn positions(&self) -> Arc<dyn LeaseSource> {
        self.positions.clone()
    }

    /// Where the ID goes, as the claim recorded it for the fleet.
    pub fn placement(&self) -> Placement {
        self.shared.placement
    }

    /// `Ok` if a generator that puts the ID at `place` may use it.
    pub(crate) fn check_placement(&self, place: Placement) -> Result<(), FleetError> {
        if place == self.shared.placement {
            return Ok(());
        }
        Err(FleetError::Geometry {
            fleet: self.shared.fleet.clone(),
            found: Geometry::text(self.shared.id.bits(), self.shared.placement),
            asked: Geometry::text(self.shared.id.bits(), place),
        })
    }

    /// Where things stand.
    pub fn status(&self) -> LeaseStatus {
        let s = &self.shared;
        let lost = s.lost.load(Ordering::Acquire);
        let now = crate::platform::fence_clock_ns();
        let deadline = s.deadline.load(Ordering::Acquire);
        LeaseStatus {
            id: s.id.value(),
            bits: s.id.bits(),
            fleet: s.fleet.clone(),
            lease: s.lease,
            remaining: (!lost && deadline > now).then(|| Duration::from_nanos(deadline - now)),
            mark_ms: s.mark.load(Ordering::Acquire),
            floor_ms: s.floor_ms,
            clock_behind: s.clock_behind,
            lost,
            skipped: s.skipped.clone(),
        }
    }

    /// The first Unix millisecond this holder may stamp: one past the previous holder's
    /// mark.
    pub fn floor_ms(&self) -> u64 {
        self.shared.floor_ms
    }

    /// Whether a UUID whose time ends in Unix millisecond `last_ms` may be handed out
    /// now: the fence is open and the mark covers it (raising the mark first if need be,
    /// which waits for etcd).
    ///
    /// # Errors
    ///
    /// [`FleetError::Fenced`] when the lease may have expired, [`FleetError::Lost`] when
    /// it has, [`FleetError::Forked`] in a child process of the holder.
    ///
    /// What it permits is recorded ([`note_used`](Self::note_used)): giving the ID back
    /// never lowers the mark below a UUID it let out.
    #[inline]
    pub fn permit(&self, last_ms: u64) -> Result<(), FleetError> {
        let s = &self.shared;
        // The common case: the mark covering `last_ms`, the fence open (a lost lease has
        // shut it for good: its deadline is 0), not a forked child. The millisecond is
        // recorded before the fence is looked at, both in one total order with the
        // give-back's shutting the fence and then reading `used` (`SeqCst`): a permit
        // either sees the fence shut, or its millisecond is in what the give-back reads.
        // Only one under the mark is recorded, so a refused one leaves the mark where it
        // was at most.
        if last_ms <= s.mark.load(Ordering::Acquire) {
            s.used.fetch_max(last_ms, Ordering::SeqCst);
            if crate::platform::fence_clock_ns() < s.deadline.load(Ordering::SeqCst)
                && crate::platform::fork_generation_relaxed() == s.fork_generation
            {
                return Ok(());
            }
        }
        self.permit_slow(last_ms)
    }

    /// The process's `fork` generation when the ID was claimed: in any other, the ID is
    /// not this process's.
    pub(crate) fn fork_generation(&self) -> u64 {
        self.shared.fork_generation
    }

    /// [`permit`](Self::permit) when the quick test failed: which error, or raise the mark.
    #[cold]
    fn permit_slow(&self, last_ms: u64) -> Result<(), FleetError> {
        let s = &self.shared;
        if crate::platform::fork_generation_relaxed() != s.fork_generation {
            return Err(FleetError::Forked { id: s.id.value() });
        }
        self.open()?;
        if last_ms > s.mark.load(Ordering::Acquire) {
            self.raise(last_ms)?;
        }
        // Under the mark now: recorded, then the fence looked at again (see `permit`).
        s.used.fetch_max(last_ms, Ordering::SeqCst);
        self.open()
    }

    /// The fence: open, or why not.
    fn open(&self) -> Result<(), FleetError> {
        let s = &self.shared;
        if s.lost.load(Ordering::Acquire) {
            return Err(FleetError::Lost { id: s.id.value() });
        }
        let now = crate::platform::fence_clock_ns();
        let deadline = s.deadline.load(Ordering::SeqCst);
        if now >= deadline {
            return Err(FleetError::Fenced {
                id: s.id.value(),
                overdue: Duration::from_nanos(now - deadline) + s.margin,
            });
        }
        Ok(())
    }

    /// Waits until the fence is open again (a renewal got through), up to `timeout`.
    ///
    /// # Errors
    ///
    /// The fence's error if it is still shut at the end, [`FleetError::Lost`] at once when
    /// the lease is gone.
    pub fn wait_open(&self, timeout: Duration) -> Result<(), FleetError> {
        let end = Instant::now() + timeout;
        loop {
            match self.open() {
                Ok(()) => return Ok(()),
                Err(e @ FleetError::Lost { .. }) => return Err(e),
                Err(e) if Instant::now() >= end => return Err(e),
                Err(_) => {
                    self.shared.wake.notify_one();
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        }
    }

    /// The furthest a mark may go now: the clock (or the floor, if later) plus a
    /// time-to-live, and never past a time-to-live before the last millisecond the ID's
    /// generators can stamp.
    fn bound_ms(&self) -> u64 {
        let s = &self.shared;
        now_ms()
            .max(s.floor_ms)
            .saturating_add(s.ttl.as_millis() as u64)
            .min(s.max_mark_ms)
    }

    #[cold]
    fn raise(&self, last_ms: u64) -> Result<(), FleetError> {
        let s = &self.shared;
        // A UUID far ahead of the clock (a layout's last unit, a clock gone wild) would
        // carry the mark, and every later holder of the ID, with it: refused instead.
        let bound_ms = self.bound_ms();
        if last_ms > bound_ms {
            return Err(FleetError::TooFarAhead {
                id: s.id.value(),
                wanted_ms: last_ms,
                bound_ms,
                range_end: bound_ms == s.max_mark_ms,
            });
        }
        let mut want = s.want.lock().unwrap_or_else(|p| p.into_inner());
        *want = (*want).max(last_ms);
        s.wake.notify_one();
        let end = Instant::now() + s.ttl;
        while s.mark.load(Ordering::Acquire) < last_ms {
            self.open()?;
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(FleetError::Fenced {
                    id: s.id.value(),
                    overdue: Duration::ZERO,
                });
            }
            want = s
                .raised
                .wait_timeout(want, left.min(Duration::from_millis(50)))
                .unwrap_or_else(|p| p.into_inner())
                .0;
            s.wake.notify_one();
        }
        Ok(())
    }

    /// Records that UUIDs up to Unix millisecond `ms` were handed out (a generator says
    /// so when it is dropped; a daemon in fleet mode for every lease it grants): on
    /// release the mark comes down no lower than this.
    pub fn note_used(&self, ms: u64) {
        self.shared.used.fetch_max(ms, Ordering::AcqRel);
    }

    /// Stops renewing and gives the ID back (its key deleted), so that it is free at once. The mark
    /// stays in etcd for the next holder, lowered first to the last millisecond a
    /// generator of this holder used (never below the previous holder's mark): the next
    /// holder then starts right after it rather than a time-to-live ahead. Dropping the
    /// last handle does the same.
    pub fn release(self) {
        self.stop();
    }

    /// Gives the ID back now, through a shared handle, as [`release`](Self::release)
    /// does: for a process told to end (a signal) while its generators still hold the
    /// handle. What [`permit`](Self::permit) let out stays under the mark; later calls
    /// fail.
    pub fn give_back(&self) {
        self.stop();
    }

    fn stop(&self) {
        // The fence shut first, then the renewal thread told to read what was used and
        // give the ID back: no permit after the shutting (in `SeqCst` order) passes, and
        // every one before it is in `used` (see `permit`).
        self.shared.deadline.store(0, Ordering::SeqCst);
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.wake.notify_one();
        let keeper = self.keeper.lock().unwrap_or_else(|p| p.into_inner()).take();
        // A child after fork has no keeper thread to join; its handle is the parent's.
        if crate::platform::fork_generation_relaxed() == self.shared.fork_generation
            && let Some(k) = keeper
        {
            let _ = k.join();
        }
        // Given back: nothing more is let out with the ID.
        self.shared.lost.store(true, Ordering::Release);
        self.shared.deadline.store(0, Ordering::Release);
    }
}

impl Drop for LeasedId {
    fn drop(&mut self) {
        self.stop();
    }
}

/// How many times in a row a claim may find every free ID taken by another before it
/// is an error (after the wait, with one).
const MAX_LOST_RACES: u32 = 8;

/// Each etcd call's bound: a fifth of the time-to-live, so several renewals fit in one.
fn call_timeout(ttl: Duration) -> Duration {
    (ttl / 5).max(Duration::from_millis(400))
}

/// The fence's margin: a fifth of the time-to-live (2 s of the default 10), for the
/// difference between this host's and etcd's clock rates and the renewal's flight.
fn margin(ttl: Duration) -> Duration {
    ttl / 5
}

async fn claim(cfg: &FleetConfig, timeout: Duration) -> Result<(Etcd, Shared), FleetError> {
    let mut etcd = Etcd::connect(cfg, timeout).await?;
    let who = super::keys::holder_value(
        std::process::id(),
        &crate::host::hostname(),
        &Geometry::text(cfg.bits(), cfg.placement()),
    );
    let started = Instant::now();
    let mut lost_races = 0;
    loop {
        let scan = etcd.scan(cfg.ids()).await?;
        // A mark further ahead than this leaves its ID unusable here: the holder would
        // run that far ahead of the clock (or past its layout's range). Skipped, and
        // said, never claimed.
        let limit_ms = now_ms()
            .saturating_add(CLAIM_HORIZON.as_millis() as u64)
            .min(cfg.max_mark_ms());
        let mut skipped = Vec::new();
        let free: Vec<u64> = (0..cfg.ids())
            .filter(|n| !scan.held.contains(n))
            .filter(|n| match scan.marks.get(n) {
                Some(&(mark, _)) if mark >= limit_ms => {
                    if skipped.len() < 8 {
                        skipped.push((*n, mark));
                    }
                    false
                }
                _ => true,
            })
            .take(64)
            .collect();
        // The geometry first: a fleet of another width or placement is refused before
        // anything is written.
        let ours = Geometry::text(cfg.bits(), cfg.placement());
        // The key, or what live holders wrote beside their IDs (the key may have been
        // deleted under them).
        let found = scan
            .geometry
            .as_ref()
            .map(|(g, _)| g)
            .into_iter()
            .chain(&scan.held_geometries)
            .find(|g| **g != ours);
        if let Some(found) = found {
            return Err(FleetError::Geometry {
                fleet: cfg.fleet().to_string(),
                found: found.clone(),
                asked: ours,
            });
        }
        let geometry_rev = scan.geometry.as_ref().map(|(_, rev)| *rev);
        if free.is_empty() && !skipped.is_empty() && cfg.wait().is_none() {
            return Err(FleetError::MarksAhead {
                fleet: cfg.fleet().to_string(),
                skipped,
                limit_ms,
            });
        }
        if !free.is_empty() {
            let sent = crate::platform::fence_clock_ns();
            let lease = etcd.grant(cfg.ttl()).await?;
            for n in free {
                let scanned = scan.marks.get(&n).copied();
                let first = First::new(cfg, scanned.map(|(ms, _)| ms));
                if etcd
                    .take(
                        n,
                        lease,
                        &who,
                        scanned.map(|(_, rev)| rev),
                        first.mark,
                        (&ours, geometry_rev),
                    )
                    .await?
                {
                    return Ok((etcd, start(cfg, n, lease, first, sent, skipped)?));
                }
            }
            // Every free ID was taken by others in the meantime: look again, a while later,
            // and not for ever: a claim that keeps losing is an error, not a spin.
            let _ = etcd.revoke(lease).await;
            lost_races += 1;
            let waited_out = cfg.wait().is_none_or(|w| started.elapsed() >= w);
            if lost_races >= MAX_LOST_RACES && waited_out {
                return Err(FleetError::Etcd {
                    doing: "claiming an ID",
                    endpoints: cfg.endpoints_text(),
                    message: format!(
                        "every free ID was taken by another claimant, {lost_races} times in a row"
                    ),
                });
            }
            tokio::time::sleep(WAIT_POLL).await;
            continue;
        }
        match cfg.wait() {
            Some(w) if started.elapsed() < w => tokio::time::sleep(WAIT_POLL).await,
            Some(_) if !skipped.is_empty() => {
                return Err(FleetError::MarksAhead {
                    fleet: cfg.fleet().to_string(),
                    skipped,
                    limit_ms,
                });
            }
            Some(w) => {
                return Err(FleetError::WaitedTooLong {
                    ids: cfg.ids(),
                    fleet: cfg.fleet().to_string(),
                    waited: w,
                });
            }
            None => {
                return Err(FleetError::AllHeld {
                    ids: cfg.ids(),
                    fleet: cfg.fleet().to_string(),
                });
            }
        }
    }
}

/// A new holder's first mark, from the previous holder's (if the ID was ever held):
/// a time-to-live ahead of the clock, or of the previous mark when the clock is behind it.
struct First {
    floor_ms: u64,
    mark: u64,
    clock_behind: Option<Duration>,
}

impl First {
    fn new(cfg: &FleetConfig, old_mark: Option<u64>) -> First {
        let floor_ms = old_mark.map_or(0, |m| m.saturating_add(1));
        let now = now_ms();
        First {
            floor_ms,
            mark: floor_ms
                .max(now)
                .saturating_add(cfg.ttl().as_millis() as u64)
                .min(cfg.max_mark_ms()),
            clock_behind: (floor_ms > now).then(|| Duration::from_millis(floor_ms - now)),
        }
    }
}

/// The state of a new holder of `n`, whose claim wrote `first.mark`.
fn start(
    cfg: &FleetConfig,
    n: u64,
    lease: i64,
    first: First,
    sent: u64,
    skipped: Vec<(u64, u64)>,
) -> Result<Shared, FleetError> {
    let ttl = cfg.ttl();
    // The lease was granted after `sent`, so it lives at least until `sent + ttl`.
    let deadline = sent.saturating_add(ttl.saturating_sub(margin(ttl)).as_nanos() as u64);
    Ok(Shared {
        id: MachineId::new(n, cfg.bits()).map_err(|_| FleetError::BadBits {
            bits: cfg.bits(),
            max: super::config::MAX_BITS,
            layout: "a machine ID".into(),
        })?,
        fleet: cfg.fleet().to_string(),
        lease,
        ttl,
        margin: margin(ttl),
        deadline: AtomicU64::new(deadline),
        lost: AtomicBool::new(false),
        mark: AtomicU64::new(first.mark),
        floor_ms: first.floor_ms,
        clock_behind: first.clock_behind,
        max_mark_ms: cfg.max_mark_ms(),
        skipped,
        placement: cfg.placement(),
        used: AtomicU64::new(0),
        want: Mutex::new(0),
        raised: Condvar::new(),
        wake: Notify::new(),
        stop: AtomicBool::new(false),
        fork_generation: crate::platform::fork_generation(),
    })
}

/// The renewal loop: renews the lease every quarter of its time-to-live (and at once
/// when a caller waits), raises the mark when it comes within half a time-to-live of
/// the clock or a caller needs more, and gives the ID back when told to stop.
async fn keep(mut etcd: Etcd, s: Arc<Shared>) {
    let period = s.ttl / 4;
    let mut last_renewal = Instant::now();
    loop {
        let _ = tokio::time::timeout(period, s.wake.notified()).await;
        if s.stop.load(Ordering::SeqCst) {
            // Shut again here, by the one thread that reopens it (a renewal answered
            // while `stop` was being told), before `used` is read: see `permit`.
            s.deadline.store(0, Ordering::SeqCst);
            let last = s
                .used
                .load(Ordering::SeqCst)
                .max(s.floor_ms.saturating_sub(1));
            if !s.lost.load(Ordering::Acquire) {
                // Fenced by the lease like every mark write: if the ID is gone, nothing
                // is written.
                let lower = (last < s.mark.load(Ordering::Acquire)).then_some(last);
                // The lease, with nothing left on it, runs out by itself: no revoke, which
                // would cost the exit another round trip through etcd's leader.
                if let Ok(true) = etcd.give_back(s.id.value(), s.lease, lower).await
                    && let Some(last) = lower
                {
                    s.mark.store(last, Ordering::Release);
                }
            }
            return;
        }
        let fenced = crate::platform::fence_clock_ns() >= s.deadline.load(Ordering::Acquire);
        if last_renewal.elapsed() >= period || fenced {
            let sent = crate::platform::fence_clock_ns();
            let sent_at = Instant::now();
            match etcd.renew(s.lease).await {
                Ok(Some(ttl)) => {
                    last_renewal = sent_at;
                    // Never more than was asked for, whatever the answer says; an answer
                    // within the margin leaves the fence shut.
                    let ttl = ttl.min(s.ttl);
                    let d = sent.saturating_add(ttl.saturating_sub(s.margin).as_nanos() as u64);
                    s.deadline.fetch_max(d, Ordering::AcqRel);
                }
                Ok(None) => return lose(&s),
                // Unreachable or no quorum: try again soon; the fence shuts by itself.
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
        let want = *s.want.lock().unwrap_or_else(|p| p.into_inner());
        let mark = s.mark.load(Ordering::Acquire);
        let now = now_ms().max(s.floor_ms);
        let half = s.ttl.as_millis() as u64 / 2;
        if want > mark || mark < now.saturating_add(half) {
            // Saturating, and never past what the generators can stamp (nor what
            // uuidkit reads back as a mark); `raise` refuses a `want` beyond that.
            // A time-to-live past the clock: room for the callers until the next raise,
            // and no more (what a caller wanted was itself within that of its clock).
            let new = now
                .saturating_add(s.ttl.as_millis() as u64)
                .max(want)
                .min(s.max_mark_ms);
            if new <= mark {
                continue;
            }
            match etcd.write_mark(s.id.value(), s.lease, new).await {
                Ok(true) => {
                    s.mark.fetch_max(new, Ordering::AcqRel);
                    let _g = s.want.lock().unwrap_or_else(|p| p.into_inner());
                    s.raised.notify_all();
                }
                Ok(false) => return lose(&s),
                Err(_) => {}
            }
        }
    }
}

/// The lease is gone: shut the fence for good and wake whoever waits.
fn lose(s: &Shared) {
    s.lost.store(true, Ordering::Release);
    s.deadline.store(0, Ordering::Release);
    let _g = s.want.lock().unwrap_or_else(|p| p.into_inner());
    s.raised.notify_all();
}
