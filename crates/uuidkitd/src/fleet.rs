//! Fleet mode (`--machine-id etcd`): the daemon holds a machine ID leased from etcd
//! (`uuidkit::fleet`) and stamps every v7 and draft-layout lease it grants with it.
//!
//! A lease of those kinds is granted only while the ID is held for sure:
//! - it starts at or above the ID's floor (one past the previous holder's mark): the
//!   request's `from` and `clock` are lifted to it, and the lead's reference time
//!   (`lead.rs`) never runs below it, as after a clock set back;
//! - before the reply goes out, `permit` must pass for the last millisecond the lease's
//!   end stands for: the fence is open (the etcd lease cannot have expired) and the
//!   high-water mark in etcd covers the lease (raised first when it does not). Otherwise
//!   the reply is `FENCED`, and the positions are left unused.
//!
//! When the etcd lease is lost (expired at etcd), a background thread claims a new ID;
//! until it holds one, those leases are answered `FENCED`. Other kinds (v1/v6, v8, and
//! uuidd's protocol) carry no machine ID and are served as before.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use uuidkit::fleet::{FleetConfig, FleetError, LeasedId};
use uuidkit::service::protocol::FleetReport;
use uuidkit::store::{GeneratorKind, Lease, LeaseRequest};
use uuidkit::time::UnixTime;

/// How often the watcher looks whether the lease was lost, and retries a claim.
const WATCH: Duration = Duration::from_millis(200);

/// The held machine ID, and what it takes to claim another.
pub struct Fleet {
    cfg: FleetConfig,
    held: RwLock<Option<Arc<LeasedId>>>,
    stopping: AtomicBool,
}

/// Whether leases of `kind` carry the fleet's machine ID: v7 (every method) and the
/// draft layouts, the kinds whose generators have room for one.
pub fn stamped(kind: GeneratorKind) -> bool {
    matches!(kind, GeneratorKind::V7 | GeneratorKind::Draft(_))
}

/// The position where `kind`'s time reaches Unix millisecond `ms` (the unit holding it).
pub fn floor_position(kind: GeneratorKind, ms: u64) -> u128 {
    kind.clock_position(UnixTime::from_millis(ms))
}

/// The last Unix millisecond that position `pos` of `kind` stands for: the millisecond
/// in which its timestamp unit ends (a fleet's mark is kept in milliseconds, and a UUID
/// is under it only if its whole unit is).
pub fn last_millis(kind: GeneratorKind, pos: u128) -> u64 {
    let bits = kind.counter_bits().unwrap_or(0);
    let next = ((pos >> bits).saturating_add(1)) << bits;
    match kind.position_time(next) {
        Some((t, _)) => t.nanos_since_epoch().saturating_sub(1) / 1_000_000,
        // The kind's last unit: no later one to end before.
        None => u64::MAX,
    }
}

impl Fleet {
    /// Claims an ID (before any socket is bound: a failed claim ends the daemon).
    pub fn claim(cfg: FleetConfig) -> Result<Fleet, FleetError> {
        let id = LeasedId::claim(&cfg)?;
        Ok(Fleet {
            cfg,
            held: RwLock::new(Some(Arc::new(id))),
            stopping: AtomicBool::new(false),
        })
    }

    /// The ID held now, if any.
    pub fn current(&self) -> Option<Arc<LeasedId>> {
        self.held.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// A lease of a stamped kind: `grant` is called with the request lifted to the ID's
    /// floor; its lease goes out with the ID only if the ID may stamp it. `Err` is the
    /// text of a `FENCED` reply.
    pub fn grant<E>(
        &self,
        req: &LeaseRequest,
        grant: impl FnOnce(&LeaseRequest) -> Result<Lease, E>,
        later: impl FnOnce(Duration) -> E,
    ) -> Result<Result<Lease, E>, String> {
        let Some(id) = self.current() else {
            return Err(format!(
                "no machine ID held: claiming a new one in fleet {:?} (the last was lost)",
                self.cfg.fleet()
            ));
        };
        // The fence first: a daemon that may have lost its ID grants nothing.
        id.permit(0).map_err(|e| e.to_string())?;
        let floor = floor_position(req.kind, id.floor_ms());
        let mut lifted = *req;
        lifted.from = lifted.from.max(floor);
        lifted.clock = lifted.clock.max(floor);
        let mut lease = match grant(&lifted) {
            Ok(l) => l,
            Err(e) => return Ok(Err(e)),
        };
        // The mark must cover the lease before anyone makes a UUID of it; when it cannot
        // (etcd unreachable, the fence shut meanwhile) the positions stay unused.
        let last = last_millis(req.kind, lease.end);
        match id.permit(last) {
            Ok(()) => {}
            // Further ahead of the clock than the mark may go (a time-to-live): the
            // client asks again once the clock has caught up, as for a lease past the
            // lead. Not a fence: the ID is held.
            Err(FleetError::TooFarAhead {
                wanted_ms,
                bound_ms,
                range_end: false,
                ..
            }) => {
                return Ok(Err(later(Duration::from_millis(
                    wanted_ms.saturating_sub(bound_ms),
                ))));
            }
            Err(e) => return Err(e.to_string()),
        }
        // On release the mark comes down to what was used (never below this): the next
        // holder starts above every lease granted.
        id.note_used(last);
        lease.machine_id = Some(id.machine_id());
        Ok(Ok(lease))
    }

    /// The floor of the ID held (Unix ms), for the lead's reference time.
    pub fn floor_ms(&self) -> Option<u64> {
        self.current().map(|id| id.floor_ms())
    }

    /// For `daemon status`.
    pub fn report(&self) -> FleetReport {
        match self.current() {
            Some(id) => {
                let s = id.status();
                FleetReport {
                    fleet: s.fleet,
                    bits: s.bits,
                    id: (!s.lost).then_some(s.id),
                    remaining_ms: s
                        .remaining
                        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
                    mark_ms: s.mark_ms,
                }
            }
            None => FleetReport {
                fleet: self.cfg.fleet().to_string(),
                bits: self.cfg.bits(),
                id: None,
                remaining_ms: None,
                mark_ms: 0,
            },
        }
    }

    /// Watches the lease for ever: when it is lost, drops it and claims another ID
    /// (retrying until one is free and etcd answers); `on_claim` is told each new ID's
    /// floor.
    pub fn watch(&self, on_claim: impl Fn(u64)) {
        let mut last_error = String::new();
        loop {
            std::thread::sleep(WATCH);
            if self.stopping.load(Ordering::Acquire) {
                return;
            }
            let lost = match self.current() {
                Some(id) => id.status().lost,
                None => true,
            };
            if !lost {
                continue;
            }
            if let Some(old) = self.held.write().unwrap_or_else(|p| p.into_inner()).take() {
                eprintln!(
                    "uuidkitd: machine ID {} of fleet {:?} lost (its etcd lease expired); \
                     claiming another, v7 and draft-layout leases are answered FENCED until then",
                    old.machine_id().value(),
                    self.cfg.fleet()
                );
            }
            match LeasedId::claim(&self.cfg) {
                Ok(id) => {
                    if self.stopping.load(Ordering::Acquire) {
                        return;
                    }
                    log_held(&id, &self.cfg);
                    on_claim(id.floor_ms());
                    *self.held.write().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(id));
                    last_error.clear();
                }
                Err(e) => {
                    let e = e.to_string();
                    if e != last_error {
                        eprintln!("uuidkitd: claiming a machine ID: {e}; trying again");
                        last_error = e;
                    }
                }
            }
        }
    }

    /// Stops the watcher and revokes the etcd lease, so that the ID is free at once (its
    /// mark stays for the next holder). Called after the state file is saved.
    pub fn release(&self) {
        self.stopping.store(true, Ordering::Release);
        let held = self.held.write().unwrap_or_else(|p| p.into_inner()).take();
        let Some(mut id) = held else { return };
        // A connection thread may hold it for the moment of a grant (new requests are
        // answered SHUTTING_DOWN by now): wait for it, a while.
        for _ in 0..200 {
            match Arc::try_unwrap(id) {
                Ok(id) => return id.release(),
                Err(shared) => id = shared,
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        eprintln!("uuidkitd: the machine ID is still in use; its etcd lease expires by itself");
    }
}

/// Logs the ID held.
pub fn log_held(id: &LeasedId, cfg: &FleetConfig) {
    let s = id.status();
    let behind = s
        .clock_behind
        .map(|d| {
            format!(
                "; the clock is {:.3} s behind the previous holder's mark: UUIDs run ahead of it until it catches up",
                d.as_secs_f64()
            )
        })
        .unwrap_or_default();
    eprintln!(
        "uuidkitd: holding machine ID {} of {} in fleet {:?} (etcd {}, lease {:x}, time-to-live {} s){behind}",
        s.id,
        1u64 << s.bits,
        s.fleet,
        cfg.endpoints().join(","),
        s.lease,
        cfg.ttl().as_secs(),
    );
    if let Some(w) = s.skipped_warning() {
        eprintln!("uuidkitd: warning: {w}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_millis_of_each_kind() {
        let v7 = GeneratorKind::V7;
        assert_eq!(
            last_millis(v7, (1_700_000_000_123 << 42) | 77),
            1_700_000_000_123
        );
        let s32 = GeneratorKind::Draft("draft-v8-32".parse().unwrap());
        // A whole second: its last millisecond.
        assert_eq!(
            last_millis(s32, (1_700_000_000 << 12) | 3),
            1_700_000_000_999
        );
        let ns = GeneratorKind::Draft("draft-v7-ns".parse().unwrap());
        let p = floor_position(ns, 1_700_000_000_123);
        assert_eq!(last_millis(ns, p), 1_700_000_000_123);
        for kind in [v7, s32, ns] {
            let f = floor_position(kind, 1_700_000_000_500);
            assert!(last_millis(kind, f) >= 1_700_000_000_500, "{kind:?}");
        }
    }
}
