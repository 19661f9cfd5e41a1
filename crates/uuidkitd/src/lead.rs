//! The bound on the lead: how far the positions the daemon grants may run ahead of a
//! reference time that no client can move, and each user's share of it.
//!
//! **Reference time.** For each kind, `R = max(clock, anchor + elapsed)`: the daemon's
//! clock, or, when that is behind, an *anchor* position carried forward at the real
//! speed of the monotonic clock. The anchor is the highest position the daemon had to
//! continue from when it first leased the kind (the state file's record, after a
//! restart), and afterwards the latest clock reading not behind it. So after the clock
//! is set back, or a restart with the clock behind the file, `R` goes on from where the
//! kind was at real speed instead of stalling; and no request moves it: it is never the
//! highest granted position, which each request could push up (the bug of issue 25).
//!
//! **Bound.** No grant ends more than `bound` (`--max-lead`, 10 s of the kind's time)
//! above `R`. A lease that would is shortened to end there, or, when it would start
//! there or the client needs it whole (libuuid's bulk time), refused: `LATER` in
//! uuidkitd's protocol, a closed connection in uuidd's.
//!
//! **Fair share, per peer uid** (`SO_PEERCRED`; connections are free to open, users are
//! not). The first [`free`] of lead above `R` is everyone's: the library's clients never
//! ask further ahead on their own. Above it, each uid has a budget per kind of a quarter
//! of the bound, spent by how much its grants raise the kind's highest position above
//! `max(R + free, highest before)`, and coming back at a quarter of real speed. So one
//! user can push a kind at most `free + bound / 4` ahead (3.5 s by default), and then
//! no faster than a quarter of the clock's pace while `R` moves at full pace; three
//! users together stay below the bound, which is still enforced for everyone.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use uuidkit::service::protocol::{KindLead, MAX_STATUS_LEADS, max_lease_len};
use uuidkit::store::GeneratorKind;
use uuidkit::time::UnixTime;

/// The default bound: 10 s of the kind's time.
pub const DEFAULT_BOUND: Duration = Duration::from_secs(10);

/// More kinds or (uid, kind) budgets than this clears the map: a client can name any
/// node ID. Anchors come back from the state file; budgets cleared are full again,
/// which the bound itself still caps.
const MAX_TRACKED: usize = 65_536;

const NANOS: u128 = 1_000_000_000;

/// The position of `kind` that the daemon's clock reads now.
pub fn clock_position(kind: GeneratorKind) -> u128 {
    kind.clock_position(UnixTime::now())
}

/// One second of `kind`'s positions: the longest lease.
pub fn second(kind: GeneratorKind) -> u128 {
    max_lease_len(kind)
}

/// The lead above `R` that costs no user's budget: one second (the longest lease), far
/// more than any of the library's generators leads by (at most 16 ms, 1 ms for v1).
pub fn free(kind: GeneratorKind) -> u128 {
    second(kind)
}

/// `d` of `kind`'s time, in positions.
pub fn positions_of(kind: GeneratorKind, d: Duration) -> u128 {
    positions(kind, d.as_nanos())
}

fn positions(kind: GeneratorKind, d: u128) -> u128 {
    d.saturating_mul(second(kind)) / NANOS
}

fn nanos(kind: GeneratorKind, p: u128) -> u128 {
    p.saturating_mul(NANOS) / second(kind)
}

struct Anchor {
    /// The position `R` was at `at`.
    pos: u128,
    /// Monotonic nanoseconds since the daemon started.
    at: u128,
    /// The highest position granted (or recorded by the file when first seen).
    high: u128,
}

/// A uid's spent budget for a kind.
struct Debt {
    nanos: u128,
    at: u128,
}

/// What a request of one kind may be granted now.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub kind: GeneratorKind,
    /// `R`.
    pub reference: u128,
    /// The highest position granted before.
    pub high: u128,
    /// `R + bound`.
    pub limit: u128,
    /// The last position the uid's budget reaches.
    pub share_end: u128,
    /// Nanoseconds the uid spent beyond its budget (one request can take a whole
    /// second of lead when its budget has any left): they come back first.
    pub overdrawn: u128,
}

impl Window {
    /// The last position a grant may end at.
    pub fn max_end(&self) -> u128 {
        self.limit.min(self.share_end)
    }

    /// How long until a grant ending at `end` fits: `R` reaches it at real speed, the
    /// uid's budget comes back at a quarter of it.
    pub fn wait_for(&self, end: u128) -> Duration {
        let by_bound = nanos(self.kind, end.saturating_sub(self.limit));
        let by_share = nanos(self.kind, end.saturating_sub(self.share_end))
            .saturating_add(self.overdrawn)
            .saturating_mul(4);
        let ns = by_bound.max(by_share);
        Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
    }
}

pub struct Lead {
    bound: Duration,
    started: Instant,
    inner: Mutex<Inner>,
    /// Fleet mode: the first Unix millisecond the held machine ID may stamp (0: none).
    /// The reference time of the stamped kinds never runs below it, as if the clock had
    /// been set back to below it (`fleet.rs`).
    fleet_floor_ms: AtomicU64,
}

#[derive(Default)]
struct Inner {
    anchors: HashMap<GeneratorKind, Anchor>,
    debts: HashMap<(u32, GeneratorKind), Debt>,
}

impl Lead {
    pub fn new(bound: Duration) -> Lead {
        Lead {
            bound,
            started: Instant::now(),
            inner: Mutex::new(Inner::default()),
            fleet_floor_ms: AtomicU64::new(0),
        }
    }

    pub fn bound(&self) -> Duration {
        self.bound
    }

    /// Fleet mode: the stamped kinds' reference time runs at or above Unix millisecond
    /// `ms` (the floor of the machine ID held) from now on.
    pub fn set_fleet_floor(&self, ms: u64) {
        self.fleet_floor_ms.fetch_max(ms, Ordering::AcqRel);
    }

    fn bound_positions(&self, kind: GeneratorKind) -> u128 {
        positions(kind, self.bound.as_nanos())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn mono(&self) -> u128 {
        self.started.elapsed().as_nanos()
    }

    /// `R` for `kind` now; `floor` gives the state file's highest position for a kind
    /// seen for the first time.
    ///
    /// The file's position becomes the anchor only when it lies further above the clock
    /// than any grant of a daemon with this bound can have reached (the bound plus one
    /// second): then the clock was set back, and `R` must go on from the file. Nearer
    /// than that, the clock is taken as right: taking the file's position would leave
    /// `R` that far ahead of the clock for the daemon's whole life, and a client that
    /// had pushed the kind to the bound before a restart would start the next daemon
    /// with its lead as the new zero.
    fn reference(
        &self,
        inner: &mut Inner,
        kind: GeneratorKind,
        mono: u128,
        floor: impl FnOnce() -> Option<u128>,
    ) -> (u128, u128) {
        let mut clock = clock_position(kind);
        let floor_ms = self.fleet_floor_ms.load(Ordering::Acquire);
        if floor_ms > 0 && crate::fleet::stamped(kind) {
            clock = clock.max(crate::fleet::floor_position(kind, floor_ms));
        }
        if !inner.anchors.contains_key(&kind) && inner.anchors.len() >= MAX_TRACKED {
            inner.anchors.clear();
        }
        let set_back = clock
            .saturating_add(self.bound_positions(kind))
            .saturating_add(second(kind));
        let a = inner.anchors.entry(kind).or_insert_with(|| {
            let high = floor().unwrap_or(0);
            Anchor {
                pos: if high > set_back { high } else { clock },
                at: mono,
                high,
            }
        });
        // A monotonic clock that went back (a test's faked one, say) is taken as not
        // having moved: `R` never goes back.
        let carried = a
            .pos
            .saturating_add(positions(kind, mono.saturating_sub(a.at)));
        let r = if clock >= carried { clock } else { carried };
        a.pos = r;
        a.at = mono;
        (r.min(kind.max_position()), a.high)
    }

    /// What `uid` may be granted of `kind` now.
    pub fn window(
        &self,
        kind: GeneratorKind,
        uid: u32,
        floor: impl FnOnce() -> Option<u128>,
    ) -> Window {
        let mono = self.mono();
        let mut inner = self.lock();
        let (reference, high) = self.reference(&mut inner, kind, mono, floor);
        let max = kind.max_position();
        let limit = reference
            .saturating_add(self.bound_positions(kind))
            .min(max);
        let cap = self.bound.as_nanos() / 4;
        let spent = inner
            .debts
            .get(&(uid, kind))
            .map_or(0, |d| d.nanos.saturating_sub(mono.saturating_sub(d.at) / 4));
        let base = high.max(reference.saturating_add(free(kind)));
        let share_end = base
            .saturating_add(positions(kind, cap.saturating_sub(spent)))
            .min(max);
        Window {
            kind,
            reference,
            high,
            limit,
            share_end,
            overdrawn: spent.saturating_sub(cap),
        }
    }

    /// Records a grant to `uid` ending at `end`, made in `w`: the kind's highest
    /// position, and what it cost the uid's budget.
    pub fn granted(&self, w: &Window, uid: u32, end: u128) {
        let mono = self.mono();
        let mut inner = self.lock();
        if let Some(a) = inner.anchors.get_mut(&w.kind) {
            a.high = a.high.max(end);
        }
        let base = w.high.max(w.reference.saturating_add(free(w.kind)));
        let cost = nanos(w.kind, end.saturating_sub(base));
        if cost == 0 {
            return;
        }
        if !inner.debts.contains_key(&(uid, w.kind)) && inner.debts.len() >= MAX_TRACKED {
            // Budgets that came back in full are the same as none.
            inner
                .debts
                .retain(|_, d| d.nanos > mono.saturating_sub(d.at) / 4);
            if inner.debts.len() >= MAX_TRACKED {
                inner.debts.clear();
            }
        }
        let d = inner
            .debts
            .entry((uid, w.kind))
            .or_insert(Debt { nanos: 0, at: mono });
        d.nanos = d
            .nanos
            .saturating_sub(mono.saturating_sub(d.at) / 4)
            .saturating_add(cost);
        d.at = mono;
    }

    /// A grant made outside [`Lead::window`] (the state file moved by another process):
    /// only the highest position.
    pub fn saw_high(&self, kind: GeneratorKind, high: u128) {
        if let Some(a) = self.lock().anchors.get_mut(&kind) {
            a.high = a.high.max(high);
        }
    }

    /// `R` for `kind` now, for a request's `from`.
    pub fn reference_of(&self, kind: GeneratorKind, floor: impl FnOnce() -> Option<u128>) -> u128 {
        let mono = self.mono();
        self.reference(&mut self.lock(), kind, mono, floor).0
    }

    /// The kinds leased since start (or recorded by the state file when first asked
    /// for) whose highest position is furthest ahead of `R`, largest lead first, at
    /// most [`MAX_STATUS_LEADS`].
    pub fn report(&self) -> Vec<KindLead> {
        let mono = self.mono();
        let mut inner = self.lock();
        // A kind asked for but never granted (every request refused) has no lead.
        let kinds: Vec<GeneratorKind> = inner
            .anchors
            .iter()
            .filter(|(_, a)| a.high > 0)
            .map(|(k, _)| *k)
            .collect();
        let mut leads: Vec<KindLead> = kinds
            .into_iter()
            .map(|kind| {
                let (r, high) = self.reference(&mut inner, kind, mono, || None);
                let ns = if high >= r {
                    i64::try_from(nanos(kind, high - r)).unwrap_or(i64::MAX)
                } else {
                    -i64::try_from(nanos(kind, r - high)).unwrap_or(i64::MAX)
                };
                KindLead { kind, lead_ns: ns }
            })
            .collect();
        leads.sort_by_key(|l| std::cmp::Reverse(l.lead_ns));
        leads.truncate(MAX_STATUS_LEADS);
        leads
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_follows_the_clock_and_no_grant() {
        let lead = Lead::new(DEFAULT_BOUND);
        let kind = GeneratorKind::V7;
        let w = lead.window(kind, 1000, || None);
        let clock = clock_position(kind);
        assert!(w.reference <= clock && clock - w.reference < second(kind));
        // A grant far ahead does not move R.
        lead.granted(&w, 1000, w.limit);
        let again = lead.window(kind, 1000, || None);
        assert!(again.reference < w.reference + second(kind));
        assert_eq!(again.high, w.limit);
        // The uid spent far more than its budget: it may grant nothing above the high.
        assert!(again.share_end <= again.high);
        assert!(again.wait_for(again.high + 1) > Duration::from_secs(1));
        // Another uid still has its share.
        let other = lead.window(kind, 2000, || None);
        assert!(other.share_end > other.high);
    }

    #[test]
    fn reference_goes_on_from_the_file_after_a_restart_with_the_clock_behind() {
        let lead = Lead::new(DEFAULT_BOUND);
        let kind = GeneratorKind::V7;
        let hour_ahead = clock_position(kind) + 3600 * second(kind);
        let w = lead.window(kind, 0, || Some(hour_ahead));
        assert_eq!(w.reference, hour_ahead);
        assert!(w.max_end() > hour_ahead + second(kind));
        std::thread::sleep(Duration::from_millis(20));
        let later = lead.window(kind, 0, || None);
        assert!(later.reference >= hour_ahead + (20 << 42));
        // A file within the bound of the clock (a restart with the clock right, after a
        // client pushed the kind ahead): the clock is the reference.
        let lead = Lead::new(DEFAULT_BOUND);
        let pushed = clock_position(kind) + 9 * second(kind);
        let w = lead.window(kind, 0, || Some(pushed));
        assert!(w.reference < pushed - 8 * second(kind));
        assert_eq!(w.high, pushed);
    }
}
