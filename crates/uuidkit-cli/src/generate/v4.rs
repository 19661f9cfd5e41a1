//! v4: 122 random bits, from this process's CSPRNG or, with uuidkitd, made by the daemon.

use std::io::Write;
use std::sync::Arc;

use uuidkit::Uuid;
use uuidkit::service::client::{ClientError, DaemonClient};
use uuidkit::service::protocol::MAX_RANDOM_COUNT;

use super::emit::{BATCH, Output, Stopped, emit_batches};
use crate::failure::{Failure, Status};

/// `gen v4`: from the daemon when there is one.
pub(super) fn run(
    daemon: Option<Arc<DaemonClient>>,
    a: &Output,
    out: &mut impl Write,
) -> Result<Status, Failure> {
    match daemon {
        Some(d) => from_daemon(a, out, &d),
        None => emit_batches(a, out, |b| {
            v4_fill(b);
            Ok(())
        }),
    }
}

/// Process-wide v4 UUIDs into every slot of `out`, the random bits of the batch drawn
/// in one visit to the thread's CSPRNG.
fn v4_fill(out: &mut [Uuid]) {
    uuidkit::v4_fill(out);
}

/// v4 UUIDs made by the daemon, a batch a request.
fn from_daemon(a: &Output, out: &mut impl Write, d: &DaemonClient) -> Result<Status, Failure> {
    // A batch is one request; the protocol's limit is far above it.
    const _: () = assert!(BATCH as u32 <= MAX_RANDOM_COUNT);
    let mut written = 0u64;
    emit_batches(a, out, |b| {
        let failed = |e| Stopped::all(random_failed(d, &e, written));
        let got = d.random(b.len() as u32).map_err(failed)?;
        if got.len() != b.len() {
            return Err(failed(ClientError::Unexpected));
        }
        b.copy_from_slice(&got);
        written += b.len() as u64;
        Ok(())
    })
}

/// The failure of a random (v4) request in the middle of a run: what was asked of
/// which daemon, why it failed, and how many UUIDs were written before.
fn random_failed(client: &DaemonClient, e: &ClientError, written: u64) -> Failure {
    Failure::Message(format!(
        "cannot get random UUIDs from uuidkitd at {}: {e}; stopped after {written} UUIDs",
        client.path().display()
    ))
}
