//! Tests of the state store: leases never overlap across stores, threads, restarts and
//! power loss; damaged files are repaired with a warning naming the fault; a newer
//! format's file is refused with `NewerFormat` and left as it was; unusable files and
//! held locks give `Unavailable`; the format round-trips and takes any bytes.

use std::fs::{self, File};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use proptest::collection::vec;
use proptest::prelude::*;

use super::format::{self, Entry, State};
use super::*;
use crate::layout::ClockSequence;
use crate::node::NodeId;

// One file per area; the helpers below serve them all (each takes `super::*`).
mod clock_seq;
mod damage;
mod file_format;
mod limits;
mod lock;
mod overlap;
mod restart;
mod unavailable;

/// A directory of its own under the system's temporary one, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        static SERIAL: AtomicU32 = AtomicU32::new(0);
        let p = std::env::temp_dir().join(format!(
            "uuidkit-store-{name}-{}-{}",
            std::process::id(),
            SERIAL.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    fn state(&self) -> PathBuf {
        self.0.join("state")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

const NODE: NodeId = NodeId::from_bytes([0x9f, 0x6b, 0xde, 0xce, 0xd8, 0x47]);
const GREG: GeneratorKind = GeneratorKind::Gregorian(NODE);

fn cs(v: u16) -> ClockSequence {
    ClockSequence::new(v).unwrap()
}

fn memory() -> (MemoryStorage, StateStore) {
    let disk = MemoryStorage::new();
    let store = StateStore::with_storage(Box::new(disk.clone()));
    (disk, store)
}

fn req(kind: GeneratorKind, clock: u128, from: u128, len: u128) -> LeaseRequest {
    LeaseRequest::new(kind, clock, from, len)
}

fn greg_req(clock: u128, fresh: u16) -> LeaseRequest {
    LeaseRequest {
        fresh_clock_seq: cs(fresh),
        ..req(GREG, clock, clock, 1)
    }
}

/// A small deterministic generator for test sequences (no timing, no OS randomness).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % below
    }
}

/// The content with a correct checksum line appended.
fn with_checksum(body: &str) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(body.as_bytes());
    let mut s = body.to_string();
    for b in &d[..8] {
        s.push_str(&format!("{b:02x}"));
    }
    let sum = s.split_off(body.len());
    format!("{body}checksum {sum}\n").into_bytes()
}

fn unavailable(r: Result<Lease, StoreError>) -> StoreWarning {
    match r {
        Err(StoreError::Unavailable(w)) => w,
        other => panic!("expected Unavailable, got {other:?}"),
    }
}
