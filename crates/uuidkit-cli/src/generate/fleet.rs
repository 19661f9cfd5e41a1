//! `--machine-id etcd`: claim the lowest free ID of `--fleet` from the etcd cluster at
//! `--etcd`, stamp it into every UUID, and hand out only what the lease allows: while
//! the lease cannot be renewed the run waits (up to `--fence-wait`), and a lease that is
//! gone ends it with an error. The ID is released when the run ends.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use uuidkit::fleet::{FleetError, FleetGenerator, LAST_MARK_MS, LeasedId, Placement};
use uuidkit::generator::timed::Stamp;
use uuidkit::store::GeneratorKind;

use super::emit::{Output, Stopped, emit_batches};
use super::plan::{Lease, Leased};
use crate::failure::{Failure, Status};

/// Runs `gen` with an ID of `lease` in every UUID of `what`.
pub(super) fn run(
    lease: Lease,
    what: Leased,
    output: &Output,
    out: &mut impl Write,
) -> Result<Status, Failure> {
    match what {
        Leased::V7(method) => run_with(
            lease,
            output,
            out,
            GeneratorKind::V7,
            Placement::of_v7(method),
            |id| FleetGenerator::v7(id, method),
        ),
        Leased::Draft(layout) => run_with(
            lease,
            output,
            out,
            GeneratorKind::Draft(layout),
            Placement::Draft(layout),
            |id| FleetGenerator::draft(id, layout),
        ),
    }
}

/// Runs `gen` with an ID leased for the run, from the generator `make` builds on it.
/// `kind` is what the generator leases (its range's end bounds the marks), `placement`
/// where it puts the ID (the fleet's geometry).
fn run_with<S: Stamp>(
    lease: Lease,
    output: &Output,
    out: &mut impl Write,
    kind: GeneratorKind,
    placement: Placement,
    make: impl FnOnce(Arc<LeasedId>) -> Result<FleetGenerator<S>, FleetError>,
) -> Result<Status, Failure> {
    let last_ms = kind
        .position_time(kind.max_position())
        .map_or(LAST_MARK_MS, |(t, _)| t.millis_since_epoch());
    let cfg = lease
        .config
        .with_last_millis(last_ms)
        .with_placement(placement);
    // SIGTERM, SIGINT and SIGHUP are taken by a thread of this run's (blocked before the
    // claim starts the renewal thread, which inherits the mask): told to end, the run
    // gives the ID back (free at once, its mark above every UUID it let out), then ends
    // as the signal would have ended it.
    // A signal while the claim waits for a free ID ends the run at once: there is
    // nothing to give back yet (an ID claimed in its last round trip to etcd stays held
    // until its lease runs out, as after kill -9).
    let held: Arc<Mutex<Option<Arc<LeasedId>>>> = Arc::default();
    #[cfg(unix)]
    if uuidkit::signals::block_termination().is_ok() {
        let held = Arc::clone(&held);
        std::thread::spawn(move || {
            let sig = uuidkit::signals::wait_for_termination();
            let id = held.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some(id) = id {
                id.give_back();
            }
            uuidkit::signals::die_of(sig);
        });
    }
    let id = Arc::new(LeasedId::claim(&cfg).map_err(|e| Failure::Message(e.to_string()))?);
    *held.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::clone(&id));
    let s = id.status();
    if let Some(w) = s.skipped_warning() {
        eprintln!("uuidkit: warning: {w}");
    }
    if let Some(behind) = s.clock_behind {
        eprintln!(
            "uuidkit: warning: machine ID {} of fleet {:?}: the clock is {:.3} s behind the \
             previous holder's high-water mark; UUIDs run ahead of the clock until it catches up",
            s.id,
            s.fleet,
            behind.as_secs_f64()
        );
    }
    let mut g = make(Arc::clone(&id)).map_err(|e| Failure::Message(e.to_string()))?;
    let fence_wait = lease.fence_wait;
    let status = emit_batches(output, out, |b| {
        let started = Instant::now();
        loop {
            match g.try_fill(b) {
                Ok(()) => return Ok(()),
                Err(e @ FleetError::Fenced { .. }) => {
                    // Wait for a renewal (etcd back, quorum back) within the bound; still
                    // fenced at its end, or the lease gone, ends the run. The bound holds
                    // also when the fence is open but the mark cannot be raised (etcd
                    // renews the lease but refuses writes): no run waits past it.
                    let left = fence_wait.saturating_sub(started.elapsed());
                    if left.is_zero() {
                        return Err(Stopped::all(Failure::Message(e.to_string())));
                    }
                    if let Err(e) = id.wait_open(left) {
                        return Err(Stopped::all(Failure::Message(e.to_string())));
                    }
                }
                // The generator ran ahead of the clock by more than the mark may (a layout
                // of few UUIDs per unit, borrowing later units in a burst): wait for the
                // clock, as long as the fence's bound allows, and go on. The batch made is
                // not handed out; the next one continues above it.
                Err(FleetError::TooFarAhead {
                    wanted_ms,
                    bound_ms,
                    range_end: false,
                    ..
                }) if Duration::from_millis(wanted_ms.saturating_sub(bound_ms))
                    < fence_wait.saturating_sub(started.elapsed()) =>
                {
                    std::thread::sleep(Duration::from_millis(
                        wanted_ms.saturating_sub(bound_ms) + 1,
                    ));
                }
                Err(e) => return Err(Stopped::all(Failure::Message(e.to_string()))),
            }
        }
    });
    drop(g);
    // Given back, so it is free at once (the signal thread holds a handle too).
    id.give_back();
    status
}
