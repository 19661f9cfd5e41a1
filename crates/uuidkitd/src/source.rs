//! Where the daemon's leases come from: the state file, and when it cannot be used, a
//! store in memory that continues above every position this daemon ever granted.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, RwLock};
use std::time::Duration;

use uuidkit::layout::ClockSequence;
use uuidkit::store::{GeneratorKind, Lease, LeaseRequest, MemoryStorage, StateStore, StoreError};

use crate::lead::Lead;

/// Why a bounded lease was not granted.
#[derive(Debug)]
pub enum Denied {
    /// `Ahead` or `Exhausted`, as the store says.
    Store(StoreError),
    /// The lease would end more than the bound ahead of the reference time, or past the
    /// asking uid's share: it fits after this wait.
    Later(Duration),
}

/// How many positions of a kind the daemon takes from the file at a time and then hands
/// out from memory: 64 ms of the kind's time. One file write (lock, read, write) then
/// serves every request in those 64 ms instead of one each, and the file's `high`
/// always covers every position handed out, so a restart after `kill -9` still starts
/// above them all (its UUIDs at most 64 ms ahead of the clock until it catches up).
fn reserve(kind: GeneratorKind) -> u128 {
    match kind {
        GeneratorKind::V7 => 64 << 42,
        GeneratorKind::V8 => 6_400_000 << 30,
        GeneratorKind::Gregorian(_) => 640_000,
        GeneratorKind::Draft(_) => (kind.draft_second() * 64 / 1000).max(1),
    }
}

/// More entries than this in the map of granted positions clears it: a client can name
/// any node ID, and the map only matters while the file cannot be used.
const MAX_TRACKED_KINDS: usize = 65_536;

/// What the daemon has handed out of one kind since start.
#[derive(Clone, Copy)]
struct Granted {
    /// The last position handed out.
    last: u128,
    /// The last position leased from the file (or memory) for this kind: positions
    /// above `last` up to here are the daemon's to hand out without asking the file.
    reserved: u128,
    /// The clock reading of the request that took the reserve from the file. A request
    /// whose clock reads earlier goes to the file, which decides whether the clock
    /// stepped back (and, for Gregorian kinds, changes the clock sequence).
    clock: u128,
    /// Gregorian: the reserve's clock sequence.
    clock_seq: Option<ClockSequence>,
}

/// The daemon's lease source.
pub struct Source {
    file: StateStore,
    memory: StateStore,
    /// The last position granted per kind since start, from either store: every lease
    /// starts above it, so that one granted from memory while the file failed is never
    /// granted again from the file, whose `high` never saw it.
    granted: Mutex<HashMap<GeneratorKind, Granted>>,
    /// Leases hold it shared; shutdown takes it exclusively, so that the daemon exits
    /// between writes of the state file, never during one.
    pub gate: RwLock<()>,
    warned: Mutex<Option<String>>,
    /// The bound on the lead and each uid's share of it (`lead.rs`).
    pub lead: Lead,
}

impl Source {
    #[cfg(test)]
    pub fn new(file: StateStore) -> Source {
        Source::with_bound(file, crate::lead::DEFAULT_BOUND)
    }

    /// A source whose grants never end more than `bound` ahead of the reference time.
    pub fn with_bound(file: StateStore, bound: Duration) -> Source {
        Source {
            file,
            memory: StateStore::with_storage(Box::new(MemoryStorage::new())),
            granted: Mutex::new(HashMap::new()),
            gate: RwLock::new(()),
            warned: Mutex::new(None),
            lead: Lead::new(bound),
        }
    }

    /// A lease for `req` without the bound: the store's rules alone (tests of them).
    #[cfg(test)]
    pub fn lease(&self, req: &LeaseRequest) -> Result<Lease, StoreError> {
        let _gate = self.gate.read().unwrap_or_else(|p| p.into_inner());
        let mut granted = self.granted.lock().unwrap_or_else(|p| p.into_inner());
        self.lease_in(&mut granted, req)
    }

    /// A lease for `req`, asked by `uid`, within the bound on the lead and the uid's
    /// share of it (`lead.rs`): shortened to fit when it would end past them, refused
    /// with [`Denied::Later`] when it would start past them, or when `whole` (libuuid's
    /// bulk time, which cannot take fewer than it asked) and it would end past them.
    /// `Denied::Store` only for `Ahead` and `Exhausted`: a file that cannot be used is
    /// reported (once per distinct problem) and the lease comes from memory.
    pub fn lease_bounded(
        &self,
        req: &LeaseRequest,
        uid: u32,
        whole: bool,
    ) -> Result<Lease, Denied> {
        let _gate = self.gate.read().unwrap_or_else(|p| p.into_inner());
        let mut granted = self.granted.lock().unwrap_or_else(|p| p.into_inner());
        let kind = req.kind;
        let max = kind.max_position();
        let w = self.lead.window(kind, uid, || self.file_high(kind));
        let max_end = w.max_end();
        let mut req = *req;
        // Where the lease will start: above the last position granted, or for a kind
        // this daemon has not granted yet, above what the file recorded.
        let floor = match granted.get(&kind) {
            Some(g) => Some(g.last.saturating_add(1)),
            None => (w.high > 0).then(|| w.high.saturating_add(1)),
        };
        let start = floor.map_or(req.from, |f| req.from.max(f));
        if start <= max {
            if start > max_end {
                return Err(Denied::Later(w.wait_for(start)));
            }
            let end = start.saturating_add(req.len.max(1) - 1).min(max);
            if end > max_end {
                if whole {
                    return Err(Denied::Later(w.wait_for(end)));
                }
                req.len = max_end - start + 1;
            }
        }
        let mut lease = self.lease_in(&mut granted, &req).map_err(Denied::Store)?;
        if lease.end > max_end {
            // Another process moved the file above what this daemon knew: the block is
            // recorded and stays the daemon's to hand out, from where it may.
            self.lead.saw_high(kind, lease.start.saturating_sub(1));
            let keep = if lease.start > max_end || whole {
                lease.start - 1
            } else {
                max_end
            };
            if let Some(g) = granted.get_mut(&kind) {
                g.last = keep;
            }
            if keep < lease.start {
                return Err(Denied::Later(w.wait_for(lease.end)));
            }
            lease.end = keep;
        }
        self.lead.granted(&w, uid, lease.end);
        Ok(lease)
    }

    /// The lease itself, with the granted positions locked.
    fn lease_in(
        &self,
        granted: &mut MutexGuard<'_, HashMap<GeneratorKind, Granted>>,
        req: &LeaseRequest,
    ) -> Result<Lease, StoreError> {
        let mut req = *req;
        let max = req.kind.max_position();
        let held = granted.get(&req.kind).copied();
        if let Some(g) = held {
            if g.last >= max {
                return Err(StoreError::Exhausted);
            }
            req.from = req.from.max(g.last + 1);
        }
        if let Some(g) = held {
            let end = req.from.saturating_add(req.len.max(1) - 1).min(max);
            let same_seq = req.clock_seq.is_none() || req.clock_seq == g.clock_seq;
            if end <= g.reserved && req.clock >= g.clock && same_seq {
                // Within what the file already records as leased: no file access.
                if req.max_start.is_some_and(|m| req.from > m) {
                    return Err(StoreError::Ahead { start: req.from });
                }
                granted.insert(req.kind, Granted { last: end, ..g });
                return Ok(Lease {
                    start: req.from,
                    end,
                    clock_seq: g.clock_seq,
                    warning: None,
                    machine_id: None,
                });
            }
        }
        let asked = req.len.max(1);
        // A request that starts inside the reserve and ends past it, with the clock and
        // clock sequence the reserve was taken with: the next reserve is asked for right
        // above this one, and when the file grants it there (no other process leased in
        // between, the clock sequence stays) the caller's lease runs on from the old
        // reserve into the new. Otherwise the file would start it above the old
        // reserve's end, skipping up to a whole reserve (64 ms): a client alone on its
        // kind would find itself that far ahead of its clock for no reason, and one
        // that bounds its lead (v1/v6 with `max_start`) would be told AHEAD and wait.
        let splice = held.filter(|g| {
            req.from <= g.reserved
                && req.clock >= g.clock
                && (req.clock_seq.is_none() || req.clock_seq == g.clock_seq)
        });
        let mut file_req = req;
        file_req.len = asked.max(reserve(req.kind));
        if let Some(g) = splice {
            if req.max_start.is_some_and(|m| req.from > m) {
                return Err(StoreError::Ahead { start: req.from });
            }
            file_req.from = g.reserved + 1;
            file_req.max_start = None;
        }
        let lease = match self.file.lease(&file_req) {
            Err(StoreError::Unavailable(w)) => {
                self.warn(w.to_string());
                self.memory.lease(&file_req)?
            }
            other => other?,
        };
        if let Some(w) = &lease.warning {
            self.warn(w.to_string());
        }
        if granted.len() >= MAX_TRACKED_KINDS {
            granted.clear();
        }
        let lease = match splice {
            Some(g) if lease.start == g.reserved + 1 && lease.clock_seq == g.clock_seq => Lease {
                start: req.from,
                ..lease
            },
            // Not contiguous: from the new block alone, as any other lease.
            Some(_) if req.max_start.is_some_and(|m| lease.start > m) => {
                // The new block is leased and recorded; it stays the daemon's to hand out.
                granted.insert(
                    req.kind,
                    Granted {
                        last: lease.start - 1,
                        reserved: lease.end,
                        clock: req.clock,
                        clock_seq: lease.clock_seq,
                    },
                );
                return Err(StoreError::Ahead { start: lease.start });
            }
            _ => lease,
        };
        // The caller gets what it asked for; the rest of the block is held for others.
        let end = lease.end.min(lease.start.saturating_add(asked - 1));
        granted.insert(
            req.kind,
            Granted {
                last: end,
                reserved: lease.end,
                clock: req.clock,
                clock_seq: lease.clock_seq,
            },
        );
        Ok(Lease {
            end,
            warning: None,
            machine_id: None,
            ..lease
        })
    }

    /// The highest position of `kind` known to be leased: what this daemon took from the
    /// file (or memory) since it started, else what the state file records (a daemon
    /// restarted after `kill -9` has not leased the kind yet, but its clients, and the
    /// previous daemon's, go on from blocks the file records). `None` when neither knows
    /// the kind, or the file is damaged (the next lease then starts afresh from the
    /// request).
    ///
    #[cfg(test)]
    pub fn high_water(&self, kind: GeneratorKind) -> Option<u128> {
        let held = self
            .granted
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&kind)
            .map(|g| g.reserved);
        if held.is_some() {
            return held;
        }
        self.file_high(kind)
    }

    /// The highest position of `kind` the state file records, as the next lease from
    /// it will see it. Read once per kind (the first time this daemon sees it, for the
    /// floor of its reference time, `lead.rs`), never on the way of an ordinary lease.
    pub fn file_high(&self, kind: GeneratorKind) -> Option<u128> {
        let snap = self.file.snapshot().ok()?;
        if snap.damage.is_some() {
            return None;
        }
        // After a reboot the next lease starts above the write-ahead mark, not `high`.
        let rebooted = snap.boot_id != snap.current_boot_id;
        snap.entries.iter().find(|e| e.kind == kind).map(|e| {
            if rebooted {
                e.high.max(e.durable)
            } else {
                e.high
            }
        })
    }

    fn warn(&self, message: String) {
        let mut last = self.warned.lock().unwrap_or_else(|p| p.into_inner());
        if last.as_deref() != Some(message.as_str()) {
            eprintln!("uuidkitd: {message}");
            *last = Some(message);
        }
    }

    /// Flushes the state file to disk (at shutdown).
    pub fn sync(&self) {
        // Only a regular file: a FIFO's `open` would wait for a writer (and hold the
        // shutdown), a device's `fsync` is not the state's.
        use std::os::unix::fs::OpenOptionsExt;
        if let Some(p) = self.file.path()
            && let Ok(f) = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(p)
            && f.metadata().is_ok_and(|m| m.is_file())
        {
            let _ = f.sync_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuidkit::store::read_state;

    fn temp_state(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("uuidkitd-source-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir.join("state")
    }

    fn high(path: &std::path::Path, kind: GeneratorKind) -> u128 {
        let snap = read_state(path).unwrap();
        snap.entries.iter().find(|e| e.kind == kind).unwrap().high
    }

    #[test]
    fn v7_leases_come_from_a_reserve_the_file_already_covers() {
        let path = temp_state("reserve");
        let source = Source::new(StateStore::open(&path));
        let p = 1_700_000_000_000u128 << 42;
        let a = source
            .lease(&LeaseRequest::new(GeneratorKind::V7, p, p, 1))
            .unwrap();
        assert_eq!((a.start, a.end), (p, p));
        // The file records the whole reserve as leased, before anything is handed out.
        let recorded = high(&path, GeneratorKind::V7);
        assert_eq!(recorded, p + (64 << 42) - 1);
        let b = source
            .lease(&LeaseRequest::new(GeneratorKind::V7, p, p, 10))
            .unwrap();
        assert_eq!((b.start, b.end), (p + 1, p + 10));
        // Served from memory: the file did not move.
        assert_eq!(high(&path, GeneratorKind::V7), recorded);
        // A later millisecond inside the reserve starts there, still from memory.
        let later = p + (5 << 42);
        let c = source
            .lease(&LeaseRequest::new(GeneratorKind::V7, later, later, 1))
            .unwrap();
        assert_eq!(c.start, later);
        assert_eq!(high(&path, GeneratorKind::V7), recorded);
        // A block past the reserve goes to the file, which moves on; the block runs on
        // from the old reserve into the new one.
        let d = source
            .lease(&LeaseRequest::new(
                GeneratorKind::V7,
                later,
                later,
                64 << 42,
            ))
            .unwrap();
        assert_eq!(d.start, later + 1);
        assert!(d.end > recorded);
        assert_eq!(d.len(), 64 << 42);
        assert!(high(&path, GeneratorKind::V7) >= d.end);
        // A daemon started again on the file (after `kill -9`, say) begins above every
        // position this one handed out, reserve included.
        let again = Source::new(StateStore::open(&path));
        let e = again
            .lease(&LeaseRequest::new(GeneratorKind::V7, p, p, 1))
            .unwrap();
        assert!(e.start > d.end);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// A client alone on its kind, asking for the blocks that follow its own with a
    /// bound on how far ahead they may start, gets each right where it asked, across
    /// the ends of the daemon's reserves; another process leasing from the file in
    /// between breaks the run, and the bound is then reported.
    #[test]
    fn leases_run_on_across_the_end_of_a_reserve() {
        let path = temp_state("splice");
        let source = Source::new(StateStore::open(&path));
        let kind = GeneratorKind::Gregorian(uuidkit::NodeId::from_u64(0x0200_5e10_0002).unwrap());
        let t = 139_000_000_000_000_000u128;
        let mut from = t;
        // 100,000 ticks a block: a 640,000-tick reserve ends inside every seventh.
        for _ in 0..30 {
            let mut req = LeaseRequest::new(kind, from, from, 100_000);
            req.max_start = Some(from + 9_999);
            let l = source.lease(&req).unwrap();
            assert_eq!((l.start, l.end), (from, from + 99_999));
            from = l.end + 1;
        }
        assert!(high(&path, kind) >= from - 1);
        // Another process takes the next positions from the file directly.
        let other = StateStore::open(&path)
            .lease(&LeaseRequest::new(kind, from, from, 1))
            .unwrap();
        let reserved = high(&path, kind) - 1;
        assert!(other.start > from);
        let mut req = LeaseRequest::new(kind, from, from, 640_000);
        req.max_start = Some(from + 9_999);
        match source.lease(&req) {
            Err(StoreError::Ahead { start }) => assert!(start > reserved),
            other => panic!("{other:?}"),
        }
        // Without the bound, the lease starts above the other process's.
        let l = source
            .lease(&LeaseRequest::new(kind, from, from, 10))
            .unwrap();
        assert!(l.start > other.end);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// A lease past the bound is shortened to end at it, or refused when it must be
    /// whole (uuidd) or would start past it; positions another process took from the
    /// file far ahead are not handed out past the bound either.
    #[test]
    fn bounded_leases_are_shortened_refused_or_held_back() {
        let path = temp_state("bounded");
        let source = Source::with_bound(StateStore::open(&path), Duration::from_secs(2));
        let kind = GeneratorKind::Gregorian(uuidkit::NodeId::from_u64(0x0200_5e10_0003).unwrap());
        let sec = crate::lead::second(kind);
        let now = crate::lead::clock_position(kind);
        // Within the free second: as asked.
        let a = source
            .lease_bounded(&LeaseRequest::new(kind, now, now, 1000), 7, false)
            .unwrap();
        assert_eq!(a.len(), 1000);
        // From 1.4 s ahead, one second long: shortened to the uid's share (the free
        // second and a quarter of the bound, 0.5 s).
        let from = now + sec * 14 / 10;
        let b = source
            .lease_bounded(&LeaseRequest::new(kind, now, from, sec), 7, false)
            .unwrap();
        assert_eq!(b.start, from);
        assert!(b.end < from + sec - 1);
        assert!(b.end <= crate::lead::clock_position(kind) + sec * 3 / 2);
        // Whole or not at all (libuuid's bulk time): refused, nothing granted.
        let c = LeaseRequest::new(kind, now, b.end + 1, sec);
        assert!(matches!(
            source.lease_bounded(&c, 7, true),
            Err(Denied::Later(_))
        ));
        // Another process leases from the file 5 s ahead: the daemon's next lease would
        // start there, past the bound, and is refused; the block is held, not lost.
        let far = now + 5 * sec;
        let other = StateStore::open(&path)
            .lease(&LeaseRequest::new(kind, far, far, 1))
            .unwrap();
        // Longer than what is left of the daemon's reserve, so that it goes to the file.
        let d = LeaseRequest::new(kind, now, now, sec);
        match source.lease_bounded(&d, 8, false) {
            Err(Denied::Later(wait)) => assert!(wait > Duration::from_secs(2)),
            other => panic!("{other:?}"),
        }
        let e = source.lease(&LeaseRequest::new(kind, now, now, 1)).unwrap();
        assert!(e.start > other.end);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn a_reserved_lease_still_reports_ahead_and_exhausted() {
        let path = temp_state("ahead");
        let source = Source::new(StateStore::open(&path));
        let p = 1_700_000_000_000u128 << 42;
        source
            .lease(&LeaseRequest::new(GeneratorKind::V7, p, p, 100))
            .unwrap();
        let mut req = LeaseRequest::new(GeneratorKind::V7, p, p, 1);
        req.max_start = Some(p + 50);
        assert!(matches!(
            source.lease(&req),
            Err(StoreError::Ahead { start }) if start == p + 100
        ));
        let last = GeneratorKind::V8.max_position();
        let v8 = source
            .lease(&LeaseRequest::new(GeneratorKind::V8, last, last, 1))
            .unwrap();
        assert_eq!((v8.start, v8.end), (last, last));
        assert!(matches!(
            source.lease(&LeaseRequest::new(GeneratorKind::V8, last, last, 1)),
            Err(StoreError::Exhausted)
        ));
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn gregorian_reserves_keep_the_file_s_clock_sequence_rules() {
        let path = temp_state("gregorian");
        let source = Source::new(StateStore::open(&path));
        let kind = GeneratorKind::Gregorian(uuidkit::NodeId::from_u64(0x0200_5e10_0001).unwrap());
        let t = 139_000_000_000_000_000u128;
        let mut req = LeaseRequest::new(kind, t, t, 1);
        req.fresh_clock_seq = ClockSequence::from_masked(77);
        let a = source.lease(&req).unwrap();
        assert_eq!((a.start, a.end, a.clock_seq.unwrap().get()), (t, t, 77));
        assert_eq!(high(&path, kind), t + 640_000 - 1);
        // From memory, with the reserve's clock sequence.
        let b = source
            .lease(&LeaseRequest::new(kind, t + 5, t + 5, 3))
            .unwrap();
        assert_eq!(
            (b.start, b.end, b.clock_seq.unwrap().get()),
            (t + 5, t + 7, 77)
        );
        assert_eq!(high(&path, kind), t + 640_000 - 1);
        // A fixed clock sequence other than the reserve's goes to the file.
        let mut fixed = LeaseRequest::new(kind, t + 10, t + 10, 1);
        fixed.clock_seq = Some(ClockSequence::from_masked(5));
        let c = source.lease(&fixed).unwrap();
        assert_eq!(c.clock_seq.unwrap().get(), 5);
        assert!(c.start > t + 640_000 - 1);
        // The clock stepped back a minute: the file sees it and changes the sequence.
        let back = t - 600_000_000;
        let d = source
            .lease(&LeaseRequest::new(kind, back, back, 1))
            .unwrap();
        assert!(d.start > c.end);
        assert_ne!(d.clock_seq, c.clock_seq);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }
}
