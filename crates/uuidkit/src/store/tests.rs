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

// ---- leases never overlap ----

/// Two stores on one file (two processes, say) interleaved thousands of times, with the
/// clock moving forward and back and every request overlapping earlier grants: each
/// grant starts above every earlier one.
#[test]
fn two_stores_on_one_file_never_overlap() {
    let dir = TempDir::new("two");
    let stores = [StateStore::open(dir.state()), StateStore::open(dir.state())];
    let mut rng = Lcg(7);
    let mut clock: u128 = 139_000_000_000_000_000;
    let mut top = None;
    for _ in 0..3000 {
        clock = match rng.next(10) {
            0 => clock - u128::from(rng.next(1000)),
            _ => clock + u128::from(rng.next(100)),
        };
        let r = LeaseRequest {
            clock_seq: Some(cs(4242)),
            ..req(
                GREG,
                clock,
                clock + u128::from(rng.next(50)),
                1 + u128::from(rng.next(40)),
            )
        };
        let lease = stores[rng.next(2) as usize].lease(&r).unwrap();
        assert!(lease.start >= r.from && lease.end >= lease.start);
        assert!(lease.len() <= r.len);
        assert!(
            top.is_none_or(|t| lease.start > t),
            "{lease:?} overlaps {top:?}"
        );
        assert_eq!(lease.clock_seq, Some(cs(4242)));
        assert!(lease.warning.is_none());
        top = Some(lease.end);
    }
    let snap = read_state(&dir.state()).unwrap();
    assert!(snap.damage.is_none());
    assert_eq!(snap.entries[0].high, top.unwrap());
}

/// Threads with a store each, all on one file, contending for the lock.
#[test]
fn threads_on_one_file_never_overlap() {
    let dir = TempDir::new("threads");
    let path = dir.state();
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                let store = StateStore::open(path).with_lock_timeout(Duration::from_secs(60));
                let mut rng = Lcg(t);
                (0..250)
                    .map(|i| {
                        let clock = (1_700_000_000_000u128 + i) << 42;
                        let from = clock + u128::from(rng.next(1 << 20));
                        let l = store
                            .lease(&req(GeneratorKind::V7, clock, from, 4096))
                            .unwrap();
                        (l.start, l.end)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut all: Vec<(u128, u128)> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    all.sort();
    assert_eq!(all.len(), 1000);
    for w in all.windows(2) {
        assert!(w[1].0 > w[0].1, "{:?} overlaps {:?}", w[0], w[1]);
    }
}

/// Kinds and nodes have separate entries: one's leases do not move another's.
#[test]
fn kinds_and_nodes_have_separate_entries() {
    let (_, store) = memory();
    let other = GeneratorKind::Gregorian(NodeId::from_bytes([1, 2, 3, 4, 5, 6]));
    for kind in [GREG, other, GeneratorKind::V7, GeneratorKind::V8] {
        let l = store.lease(&req(kind, 100, 100, 10)).unwrap();
        assert_eq!((l.start, l.end), (100, 109), "{kind:?}");
    }
    assert_eq!(store.snapshot().unwrap().entries.len(), 4);
}

// ---- restart, reboot, power loss ----

/// A new store on the file (a new process) continues above the previous high, even
/// asked for earlier positions, and keeps the stored clock sequence.
#[test]
fn restart_continues_above_previous_high() {
    let dir = TempDir::new("restart");
    let a = StateStore::open(dir.state());
    let first = a.lease(&greg_req(1000, 5)).unwrap();
    let last = a
        .lease(&LeaseRequest {
            len: 10,
            ..greg_req(1000, 5)
        })
        .unwrap();
    assert_eq!((first.start, last.start, last.end), (1000, 1001, 1010));
    drop(a);
    let b = StateStore::open(dir.state());
    let next = b.lease(&greg_req(1200, 9)).unwrap();
    assert_eq!(next.start, 1200);
    let behind = b
        .lease(&LeaseRequest {
            from: 0,
            ..greg_req(1200, 9)
        })
        .unwrap();
    assert_eq!(behind.start, 1201);
    assert_eq!(
        behind.clock_seq,
        Some(cs(5)),
        "the stored one, not the fresh one"
    );
}

/// The scenario the write-ahead mark is for: many leases, most of them written without
/// a sync, then the power fails. The file comes back as last synced, with a `high` far
/// below what was handed out; the boot ID has changed, so the next store starts above
/// the mark, which is above everything handed out.
#[test]
fn power_loss_falls_back_to_the_write_ahead_mark() {
    let (disk, store) = memory();
    let mut rng = Lcg(3);
    let mut top = 0;
    let ms = 1_700_000_000_000u128;
    for i in 0..2000 {
        let clock = (ms + i) << 42;
        let l = store
            .lease(&req(
                GeneratorKind::V7,
                clock,
                clock + u128::from(rng.next(1 << 30)),
                1 + u128::from(rng.next(1 << 12)),
            ))
            .unwrap();
        top = top.max(l.end);
    }
    // 2000 ms of leases fit in one 5 s window: one sync, at the first lease.
    assert_eq!(disk.write_counts(), (2000, 1));
    disk.power_loss();
    let synced = format::parse(&disk.contents().unwrap());
    assert!(synced.problem.is_none());
    assert!(
        synced.state.entries[0].high < top,
        "the power loss lost writes"
    );
    assert!(synced.state.entries[0].durable > top, "but not the mark");

    let after = StateStore::with_storage(Box::new(disk.clone()));
    let l = after.lease(&req(GeneratorKind::V7, 0, 0, 1)).unwrap();
    assert!(l.start > top);
    assert_eq!(l.start, synced.state.entries[0].durable + 1);
    assert!(l.warning.is_none());
}

/// Repeated power losses with leases crossing the mark in between: every new start is
/// above every earlier grant.
#[test]
fn repeated_power_losses_never_reuse_a_position() {
    let (disk, _) = memory();
    let mut rng = Lcg(11);
    let mut top: Option<u128> = None;
    let mut clock = 1_000_000u128 << 30;
    for _ in 0..50 {
        let store = StateStore::with_storage(Box::new(disk.clone()));
        for _ in 0..rng.next(200) {
            // Sometimes far ahead (past the mark), sometimes behind (a clock set back).
            clock = match rng.next(20) {
                0 => clock.saturating_sub(1 << 40),
                1 => clock + (1 << 40),
                _ => clock + (1 << 20),
            };
            let l = store
                .lease(&req(GeneratorKind::V8, clock, clock, 1 << 16))
                .unwrap();
            assert!(top.is_none_or(|t| l.start > t), "{l:?} at or below {top:?}");
            top = Some(l.end);
        }
        disk.power_loss();
    }
}

/// Same boot: `high` is exact, the next lease continues right above it (not above the
/// mark, which would skip positions for nothing).
#[test]
fn same_boot_trusts_high() {
    let (disk, a) = memory();
    let l = a.lease(&req(GeneratorKind::V8, 50, 50, 10)).unwrap();
    let b = StateStore::with_storage(Box::new(disk));
    assert_eq!(
        b.lease(&req(GeneratorKind::V8, 0, 0, 1)).unwrap().start,
        l.end + 1
    );
}

/// A file from another boot: every entry continues above its mark, not just the one
/// leased, and the file then records the current boot.
#[test]
fn other_boot_starts_above_durable() {
    let (disk, store) = memory();
    disk.set_contents(Some(with_checksum(
        "uuidkit-state 1\nboot 0f-other-boot\n\
         v7 high=100 durable=500 last-clock=90\n\
         v8 high=7 durable=70 last-clock=7\n",
    )));
    let l = store.lease(&req(GeneratorKind::V7, 0, 0, 1)).unwrap();
    assert_eq!(l.start, 501);
    let snap = store.snapshot().unwrap();
    assert_eq!(snap.boot_id, disk.boot_id());
    assert_eq!(snap.entries[1].high, 70);
    assert_eq!(
        store.lease(&req(GeneratorKind::V8, 0, 0, 1)).unwrap().start,
        71
    );
}

/// A file without a boot ID, on a system that has one: the same.
#[test]
fn file_without_boot_id_starts_above_durable() {
    let (disk, store) = memory();
    disk.set_contents(Some(with_checksum(
        "uuidkit-state 1\nboot none\nv7 high=100 durable=500 last-clock=90\n",
    )));
    assert_eq!(
        store.lease(&req(GeneratorKind::V7, 0, 0, 1)).unwrap().start,
        501
    );
}

/// No boot ID on this system: a reboot cannot be told from a restart, so every write
/// is synced and `high` is trusted, even across a power loss.
#[test]
fn without_boot_id_every_write_is_synced() {
    let (disk, store) = memory();
    disk.set_has_boot_id(false);
    let mut top = 0;
    for i in 0..100 {
        top = store.lease(&req(GeneratorKind::V7, i, i, 3)).unwrap().end;
    }
    assert_eq!(disk.write_counts(), (100, 100));
    disk.power_loss();
    let after = StateStore::with_storage(Box::new(disk.clone()));
    assert_eq!(
        after.lease(&req(GeneratorKind::V7, 0, 0, 1)).unwrap().start,
        top + 1
    );
}

// ---- write-ahead mark ----

/// The mark is set a window above the end when a lease passes it, capped at the last
/// position; leases under the mark leave it and are not synced.
#[test]
fn write_ahead_mark_per_kind() {
    for kind in [GREG, GeneratorKind::V7, GeneratorKind::V8] {
        let (disk, store) = memory();
        let w = kind.write_ahead_window();
        let l = store.lease(&req(kind, 10, 10, 5)).unwrap();
        let e = store.snapshot().unwrap().entries[0];
        assert_eq!((e.high, e.durable), (l.end, l.end + w));
        store.lease(&req(kind, 10, l.end + w - 1, 2)).unwrap(); // ends on the mark
        assert_eq!(disk.write_counts(), (2, 1));
        assert_eq!(store.snapshot().unwrap().entries[0].durable, l.end + w);
        let past = store.lease(&req(kind, 10, 0, 1)).unwrap(); // one past the mark
        assert_eq!(past.start, l.end + w + 1);
        assert_eq!(disk.write_counts(), (3, 2));
        assert_eq!(store.snapshot().unwrap().entries[0].durable, past.end + w);

        let max = kind.max_position();
        store.lease(&req(kind, 10, max - 3, 1)).unwrap();
        assert_eq!(store.snapshot().unwrap().entries[0].durable, max);
    }
}

// ---- limits ----

#[test]
fn exhausted_at_the_last_position() {
    let (disk, store) = memory();
    let max = GeneratorKind::V7.max_position();
    let l = store
        .lease(&req(GeneratorKind::V7, 0, max - 1, 10))
        .unwrap();
    assert_eq!((l.start, l.end), (max - 1, max), "cut at the last position");
    let before = disk.contents();
    assert_eq!(
        store.lease(&req(GeneratorKind::V7, 0, 0, 1)),
        Err(StoreError::Exhausted)
    );
    assert_eq!(disk.contents(), before, "nothing written");
    let (_, fresh) = memory();
    assert_eq!(
        fresh.lease(&req(GREG, 0, GREG.max_position() + 1, 1)),
        Err(StoreError::Exhausted)
    );
}

#[test]
fn ahead_grants_nothing_and_writes_nothing() {
    let (disk, store) = memory();
    store.lease(&req(GeneratorKind::V8, 0, 100, 50)).unwrap();
    let before = disk.contents();
    let r = LeaseRequest {
        max_start: Some(149),
        ..req(GeneratorKind::V8, 0, 0, 1)
    };
    assert_eq!(store.lease(&r), Err(StoreError::Ahead { start: 150 }));
    assert_eq!(disk.contents(), before);
    let ok = store
        .lease(&LeaseRequest {
            max_start: Some(150),
            ..r
        })
        .unwrap();
    assert_eq!(ok.start, 150);
}

#[test]
fn zero_len_is_one() {
    let (_, store) = memory();
    let l = store.lease(&req(GeneratorKind::V7, 0, 9, 0)).unwrap();
    assert_eq!((l.start, l.end), (9, 9));
}

/// Processes with random node IDs each add an entry; the file keeps the newest ones.
#[test]
fn gregorian_entries_are_capped() {
    let (disk, store) = memory();
    store.lease(&req(GeneratorKind::V7, 0, 0, 1)).unwrap();
    for i in 0..300u64 {
        let node = NodeId::from_u64(0x0100_0000_0000 + i).unwrap();
        store
            .lease(&req(
                GeneratorKind::Gregorian(node),
                1000 + u128::from(i),
                0,
                1,
            ))
            .unwrap();
    }
    let snap = store.snapshot().unwrap();
    assert!(snap.damage.is_none());
    let greg: Vec<_> = snap
        .entries
        .iter()
        .filter(|e| matches!(e.kind, GeneratorKind::Gregorian(_)))
        .collect();
    assert_eq!(greg.len(), MAX_GREGORIAN_ENTRIES);
    assert!(greg.iter().all(|e| e.last_clock >= 1000 + 300 - 256));
    assert!(snap.entries.iter().any(|e| e.kind == GeneratorKind::V7));
    assert!(disk.contents().unwrap().len() < 64 * 1024);
}

/// Entries whose write-ahead mark the clock has passed go first, however recent: a
/// lease for their node would start above them anyway. Entries that may still be in
/// use are kept.
#[test]
fn gregorian_entries_past_the_clock_go_first() {
    let (_, store) = memory();
    let node = |i: u64| GeneratorKind::Gregorian(NodeId::from_u64(0x0100_0000_0000 + i).unwrap());
    store.lease(&req(node(0), 2_000_000_000, 0, 1)).unwrap(); // recent, mark passed
    for i in 1..256u64 {
        let from = 4_000_000_000 + 10 * u128::from(i); // older, marks ahead of the clock
        store
            .lease(&req(node(i), 100 + u128::from(i), from, 1))
            .unwrap();
    }
    store
        .lease(&req(node(999), 3_000_000_000, 3_000_000_000, 1))
        .unwrap();
    let kinds: Vec<_> = store
        .snapshot()
        .unwrap()
        .entries
        .iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(kinds.len(), MAX_GREGORIAN_ENTRIES);
    assert!(!kinds.contains(&node(0)));
    assert!(kinds.contains(&node(1)) && kinds.contains(&node(999)));
}

// ---- Gregorian clock sequence ----

#[test]
fn clock_seq_of_a_new_entry_is_the_fresh_one() {
    let (_, store) = memory();
    assert_eq!(
        store.lease(&greg_req(1000, 321)).unwrap().clock_seq,
        Some(cs(321))
    );
    let (_, store) = memory();
    let fixed = LeaseRequest {
        clock_seq: Some(cs(7)),
        ..greg_req(1000, 321)
    };
    assert_eq!(store.lease(&fixed).unwrap().clock_seq, Some(cs(7)));
    assert_eq!(
        store
            .lease(&req(GeneratorKind::V7, 0, 0, 1))
            .unwrap()
            .clock_seq,
        None
    );
}

/// 5 s of 100 ns ticks: the write-ahead window, and here the tolerance for readings
/// taken before waiting on the lock.
const FIVE_S: u128 = 50_000_000;

/// One step back costs one increment; a reading that trails by less than the tolerance
/// (it was read before waiting on the lock) is no step and does not lower the stored
/// reading.
#[test]
fn clock_going_back_increments_the_clock_seq_once() {
    let (_, store) = memory();
    let seq = |clock| {
        store
            .lease(&greg_req(clock, 0))
            .unwrap()
            .clock_seq
            .unwrap()
            .get()
    };
    let t = 100 * FIVE_S;
    assert_eq!(seq(t), 0);
    assert_eq!(seq(t), 0, "the same reading is not a step back");
    assert_eq!(seq(t - FIVE_S), 0, "a stale reading is not a step back");
    assert_eq!(
        store.snapshot().unwrap().entries[0].last_clock,
        t,
        "nor lowers the stored one"
    );
    assert_eq!(seq(t + 10 * FIVE_S), 0);
    assert_eq!(seq(t), 1, "stepped back by 50 s");
    assert_eq!(
        store.snapshot().unwrap().entries[0].last_clock,
        t,
        "the new reference"
    );
    assert_eq!(seq(t + 1), 1);
    assert_eq!(
        seq(t + 5 * FIVE_S),
        1,
        "below the old high reading: no new step"
    );
    assert_eq!(seq(t + 3 * FIVE_S), 2, "10 s back");
}

/// The tolerance grows with the lock timeout: a lease may have waited that long.
#[test]
fn stale_reading_tolerance_covers_the_lock_timeout() {
    let (disk, _) = memory();
    let store = StateStore::with_storage(Box::new(disk)).with_lock_timeout(Duration::from_secs(60));
    let seq = |clock| {
        store
            .lease(&greg_req(clock, 0))
            .unwrap()
            .clock_seq
            .unwrap()
            .get()
    };
    let t = 1000 * FIVE_S;
    assert_eq!(seq(t), 0);
    assert_eq!(
        seq(t - 11 * FIVE_S),
        0,
        "55 s back, within the 60 s lock timeout"
    );
    assert_eq!(seq(t - 13 * FIVE_S), 1, "65 s back");
}

#[test]
fn clock_seq_wraps_after_16383() {
    let (_, store) = memory();
    let fixed = LeaseRequest {
        clock_seq: Some(cs(ClockSequence::MAX)),
        ..greg_req(1000 * FIVE_S, 0)
    };
    store.lease(&fixed).unwrap();
    assert_eq!(
        store.lease(&greg_req(10, 0)).unwrap().clock_seq,
        Some(cs(0))
    );
}

/// A fixed clock sequence is used even when the clock went back, and stored for the
/// callers that fix none.
#[test]
fn fixed_clock_seq_stays_and_is_stored() {
    let (_, store) = memory();
    store.lease(&greg_req(1000 * FIVE_S, 100)).unwrap();
    let fixed = LeaseRequest {
        clock_seq: Some(cs(9000)),
        ..greg_req(10, 100) // the clock went back
    };
    assert_eq!(store.lease(&fixed).unwrap().clock_seq, Some(cs(9000)));
    assert_eq!(
        store.lease(&greg_req(20, 100)).unwrap().clock_seq,
        Some(cs(9000))
    );
    assert_eq!(
        store.snapshot().unwrap().entries[0].clock_seq,
        Some(cs(9000))
    );
}

// ---- damaged files ----

/// A sound file to damage: one entry of each kind.
fn sound_file() -> Vec<u8> {
    let (disk, store) = memory();
    store.lease(&greg_req(1000, 1)).unwrap();
    store.lease(&req(GeneratorKind::V7, 2000, 2000, 1)).unwrap();
    disk.contents().unwrap()
}

/// Each kind of damage: the lease works (from the request, as on first use), its
/// warning names the file and the fault, and the file reads back sound.
#[test]
fn damaged_file_is_repaired_with_a_warning() {
    let sound = sound_file();
    let text = String::from_utf8(sound.clone()).unwrap();
    let cases: Vec<(&str, Vec<u8>, Problem)> = vec![
        ("empty", vec![], Problem::Empty),
        (
            "cut in a line",
            sound[..sound.len() - 5].to_vec(),
            Problem::Truncated {
                line: 5,
                mid_line: true,
            },
        ),
        (
            "cut after a line",
            text.as_bytes()[..text.find("checksum").unwrap()].to_vec(),
            Problem::Truncated {
                line: 4,
                mid_line: false,
            },
        ),
        (
            "garbage",
            b"GIF89a and so on\n".to_vec(),
            Problem::Syntax {
                line: 1,
                field: "header".into(),
                message: "expected 'uuidkit-state <version>', found 'GIF89a and so on'".into(),
            },
        ),
        (
            "binary",
            b"uuidkit-state 1\nboot \xff\xfe\n".to_vec(),
            Problem::Syntax {
                line: 2,
                field: "text".into(),
                message: "not UTF-8 text".into(),
            },
        ),
        (
            // A bit of the version number flipped (`1` is 0x31, `9` 0x39): the checksum,
            // which covers the header, shows that this format wrote the file.
            "version digit damaged",
            text.replacen("uuidkit-state 1", "uuidkit-state 9", 1)
                .into_bytes(),
            Problem::Syntax {
                line: 1,
                field: "header".into(),
                message: "version 9, but the checksum is that of a version 1 file with a \
                          damaged header"
                    .into(),
            },
        ),
        (
            "version 0",
            text.replacen("uuidkit-state 1", "uuidkit-state 0", 1)
                .into_bytes(),
            Problem::Syntax {
                line: 1,
                field: "header".into(),
                message: "version '0' is not a whole number from 1".into(),
            },
        ),
        (
            // Past any version a uuidkit could write: a broken header, not a newer one.
            "version past u32",
            text.replacen("uuidkit-state 1", "uuidkit-state 4294967296", 1)
                .into_bytes(),
            Problem::Syntax {
                line: 1,
                field: "header".into(),
                message: "version '4294967296' is not a whole number from 1".into(),
            },
        ),
        (
            "too large",
            vec![b'u'; MAX_FILE_SIZE + 1],
            Problem::TooLarge {
                limit: MAX_FILE_SIZE,
            },
        ),
        (
            "bad field",
            with_checksum("uuidkit-state 1\nboot none\nv7 high=12x durable=20 last-clock=0\n"),
            Problem::Syntax {
                line: 3,
                field: "high".into(),
                message: "'12x' is not a decimal number".into(),
            },
        ),
    ];
    for (name, bytes, problem) in cases {
        let dir = TempDir::new("damaged");
        fs::write(dir.state(), &bytes).unwrap();
        let store = StateStore::open(dir.state());
        let l = store
            .lease(&req(GeneratorKind::V7, 100, 100, 1))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(l.start, 100, "{name}: fresh state");
        let w = l.warning.unwrap_or_else(|| panic!("{name}: no warning"));
        assert_eq!(w.problem(), &problem, "{name}");
        assert_eq!(w.path(), dir.state());
        assert_eq!(w.outcome(), Outcome::Repaired);
        assert!(
            w.to_string().starts_with(&format!(
                "state file {}: {problem}; ",
                dir.state().display()
            )),
            "{name}: {w}"
        );
        let snap = read_state(&dir.state()).unwrap();
        assert!(snap.damage.is_none(), "{name}: {:?}", snap.damage);
        assert!(snap.checksum_ok);
        assert_eq!(snap.entries.len(), 1);
        let again = store.lease(&req(GeneratorKind::V7, 100, 100, 1)).unwrap();
        assert!(again.warning.is_none() && again.start == 101, "{name}");
    }
}

/// Files whose header names a newer format than this library reads, each with what
/// follows the header in some way this format would call damage (or none of it).
fn newer_format_files() -> Vec<(&'static str, u32, Vec<u8>)> {
    let sound = String::from_utf8(sound_file()).unwrap();
    // This format's lines under a newer header, with the checksum such a format would
    // write: over its own header.
    let relabelled = |v: u32| {
        let t = sound.replacen("uuidkit-state 1", &format!("uuidkit-state {v}"), 1);
        with_checksum(&t[..t.find("checksum ").unwrap()])
    };
    let mut large = b"uuidkit-state 3\n".to_vec();
    large.resize(MAX_FILE_SIZE + 10, b'x');
    vec![
        ("this format's lines", 9, relabelled(9)),
        (
            // The checksum left as version 1 wrote it: it matches under neither header
            // once a line is changed too, so nothing says this format wrote it.
            "a changed line",
            9,
            sound
                .replacen("uuidkit-state 1", "uuidkit-state 9", 1)
                .replacen("boot ", "boot x", 1)
                .into_bytes(),
        ),
        (
            "lines this format does not know",
            9,
            with_checksum("uuidkit-state 9\nboot none\nv9 high=1 epoch=3\nv7 lane=2 high=5\n"),
        ),
        ("the header alone", 2, b"uuidkit-state 2".to_vec()),
        (
            "binary after the header",
            9,
            b"uuidkit-state 9\n\x00\xff\xfe binary\n".to_vec(),
        ),
        ("larger than this format reads", 3, large),
        ("the last u32", u32::MAX, relabelled(u32::MAX)),
    ]
}

/// A newer format is not damage: every lease (of every kind) and every read is refused
/// with `NewerFormat`, naming the file and both versions, and the file is left as it
/// was: the same bytes, the same modification time (set an hour back first, so that
/// any write would show whatever the clock's resolution), and no temporary file beside it.
#[test]
fn a_newer_format_is_refused_and_left_untouched() {
    let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    let draft = GeneratorKind::Draft("draft-v7-ms".parse().unwrap());
    for (name, found, bytes) in newer_format_files() {
        let dir = TempDir::new("newer");
        let path = dir.state();
        fs::write(&path, &bytes).unwrap();
        File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(hour_ago))
            .unwrap();
        let expected = StoreError::NewerFormat {
            path: path.clone(),
            found,
            supported: 1,
        };
        let message = format!(
            "state file {}: format version {found} is newer than this uuidkit reads (1); \
             left untouched",
            path.display()
        );
        assert_eq!(expected.to_string(), message);

        let store = StateStore::open(&path);
        for r in [
            greg_req(1000, 1),
            req(GeneratorKind::V7, 100, 100, 1),
            req(GeneratorKind::V8, 100, 100, 1),
            req(draft, 100, 100, 1),
            // Asking for a block far below or above anything changes nothing either.
            req(GeneratorKind::V7, 0, 0, 1),
            req(GeneratorKind::V7, 1 << 80, 1 << 80, 1 << 40),
        ] {
            assert_eq!(
                store.lease(&r),
                Err(expected.clone()),
                "{name}: {:?}",
                r.kind
            );
        }
        assert_eq!(store.snapshot(), Err(expected.clone()), "{name}");
        assert_eq!(read_state(&path), Err(expected.clone()), "{name}");

        assert_eq!(fs::read(&path).unwrap(), bytes, "{name}: the bytes changed");
        let mtime = fs::metadata(&path).unwrap().modified().unwrap();
        assert_eq!(mtime, hour_ago, "{name}: the file was written");
        let tmp = format!("{}.tmp", path.display());
        assert!(!std::path::Path::new(&tmp).exists(), "{name}: {tmp} left");

        // The problem inside, as a generator that goes on without the file reports it.
        let w = expected.warning(Outcome::InMemory).unwrap();
        assert_eq!(
            w.problem(),
            &Problem::FutureVersion {
                found,
                supported: 1
            }
        );
        assert!(!w.problem().is_damage());
        assert_eq!(w.path(), path);
    }
}

/// The parser names the version of a newer file, and takes only a well-formed header
/// of a version above its own for one: anything else is this format's damage.
#[test]
fn only_a_well_formed_newer_header_is_a_newer_format() {
    for (name, found, bytes) in newer_format_files() {
        let parsed = format::parse(&bytes);
        assert_eq!(parsed.version, found, "{name}");
        assert_eq!(
            parsed.problem,
            Some(Problem::FutureVersion {
                found,
                supported: 1
            }),
            "{name}"
        );
    }
    for damaged in [
        &b"uuidkit-state 9x\n"[..],
        b"uuidkit-state  9\n",
        b"uuidkit-state\t9\n",
        b"Uuidkit-state 9\n",
        b"uuidkit-state -9\n",
        b"uuidkit-state 4294967296\n",
        b"uuidkit-state 9\xff\n",
        b"\nuuidkit-state 9\n",
    ] {
        let problem = format::parse(damaged).problem.unwrap();
        assert!(problem.is_damage(), "{damaged:?}: {problem:?}");
    }
}

/// A bad checksum: `read_state` still shows the entries, says which line is at fault,
/// and changes nothing; the next lease starts afresh.
#[test]
fn bad_checksum_is_reported_with_the_entries() {
    let sound = String::from_utf8(sound_file()).unwrap();
    let edited = sound.replacen("high=2000", "high=2001", 1);
    let dir = TempDir::new("checksum");
    fs::write(dir.state(), &edited).unwrap();
    let snap = read_state(&dir.state()).unwrap();
    assert!(!snap.checksum_ok);
    assert_eq!(snap.format_version, 1);
    assert_eq!(snap.entries.len(), 2);
    assert_eq!(snap.entries[1].high, 2001);
    let damage = snap.damage.unwrap();
    assert!(matches!(
        damage.problem(),
        Problem::BadChecksum { line: 5, .. }
    ));
    assert_eq!(damage.outcome(), Outcome::WillRepair);
    assert!(
        damage.to_string().contains("line 5, field checksum"),
        "{damage}"
    );
    assert_eq!(
        fs::read_to_string(dir.state()).unwrap(),
        edited,
        "unchanged"
    );
}

/// Each fault in an otherwise well-formed file (correct checksum) names its line and
/// field.
#[test]
fn parse_errors_name_the_line_and_field() {
    let cases: &[(&str, usize, &str)] = &[
        ("uuidkit-state 1\n", 2, "boot"),
        ("uuidkit-state 1\nbooted x\n", 2, "boot"),
        ("uuidkit-state 1\nboot a/b\n", 2, "boot"),
        ("uuidkit-state 1\nboot none\n\n", 3, "kind"),
        ("uuidkit-state 1\nboot none\nv6 high=1\n", 3, "kind"),
        (
            "uuidkit-state 1\nboot none\nv7 high=1 durable=2\n",
            3,
            "last-clock",
        ),
        (
            "uuidkit-state 1\nboot none\nv7 high=1 high=1 durable=2 last-clock=0\n",
            3,
            "high",
        ),
        (
            "uuidkit-state 1\nboot none\nv7 high=1 durable=2 last-clock=0 node=1\n",
            3,
            "node",
        ),
        (
            "uuidkit-state 1\nboot none\nv7 high=1  durable=2 last-clock=0\n",
            3,
            "v7",
        ),
        (
            "uuidkit-state 1\nboot none\nv7 high=+1 durable=2 last-clock=0\n",
            3,
            "high",
        ),
        (
            "uuidkit-state 1\nboot none\nv7 high=3 durable=2 last-clock=0\n",
            3,
            "durable",
        ),
        (
            "uuidkit-state 1\nboot none\nv8 high=1 durable=1237940039285380274899124224 last-clock=0\n",
            3,
            "durable",
        ),
        (
            "uuidkit-state 1\nboot none\ngregorian node=9f6bdeced84 high=1 durable=2 last-clock=0 clock-seq=1\n",
            3,
            "node",
        ),
        (
            "uuidkit-state 1\nboot none\ngregorian node=9f6bdeced846 high=1 durable=2 last-clock=0 clock-seq=16384\n",
            3,
            "clock-seq",
        ),
        (
            "uuidkit-state 1\nboot none\ngregorian node=9f6bdeced846 high=1 durable=2 last-clock=0\n",
            3,
            "clock-seq",
        ),
        (
            "uuidkit-state 1\nboot none\nv7 high=1 durable=2 last-clock=0\nv7 high=1 durable=2 last-clock=0\n",
            4,
            "kind",
        ),
        (
            "uuidkit-state 1\nboot none\nv8 high=1 durable=2 last-clock=0\nv7 high=1 durable=2 last-clock=0\n",
            4,
            "kind",
        ),
        ("uuidkit-state 01x\n", 1, "header"),
        ("uuidkit-state 0\n", 1, "header"),
    ];
    for &(body, line, field) in cases {
        let parsed = format::parse(&with_checksum(body));
        match parsed.problem {
            Some(Problem::Syntax {
                line: l, field: f, ..
            }) => assert_eq!((l, f.as_str()), (line, field), "{body:?}"),
            other => panic!("{body:?}: {other:?}"),
        }
    }
    let bad_sum = b"uuidkit-state 1\nboot none\nchecksum 12345\n";
    match format::parse(bad_sum).problem {
        Some(Problem::Syntax { line: 3, field, .. }) => assert_eq!(field, "checksum"),
        other => panic!("{other:?}"),
    }
}

// ---- unavailable ----

/// The directory cannot be created (its would-be parent is a regular file; root is not
/// stopped by permission bits, but by this): `Unavailable`, naming the file and the
/// operation.
#[test]
fn unavailable_when_the_directory_cannot_be_created() {
    let dir = TempDir::new("unavailable");
    let file = dir.0.join("file");
    fs::write(&file, "not a directory").unwrap();
    let path = file.join("uuidkit").join("state");
    let w = unavailable(StateStore::open(&path).lease(&req(GeneratorKind::V7, 0, 0, 1)));
    assert_eq!(w.path(), path);
    assert_eq!(w.outcome(), Outcome::InMemory);
    assert!(matches!(w.problem(), Problem::Io { .. }));
    let text = w.to_string();
    assert!(
        text.starts_with(&format!(
            "state file {}: cannot open {}.lock: Not a directory",
            path.display(),
            path.display()
        )),
        "{text}"
    );
    assert!(
        text.ends_with("; generating in memory without it"),
        "{text}"
    );
}

#[test]
fn unavailable_under_proc() {
    if !std::path::Path::new("/proc/self").exists() {
        return;
    }
    let store = StateStore::open("/proc/uuidkit-no-such-dir/state");
    unavailable(store.lease(&req(GeneratorKind::V7, 0, 0, 1)));
}

/// The state file's path is a directory: it cannot be read.
#[test]
fn unavailable_when_the_state_file_is_a_directory() {
    let dir = TempDir::new("isdir");
    fs::create_dir(dir.state()).unwrap();
    let w = unavailable(StateStore::open(dir.state()).lease(&req(GeneratorKind::V7, 0, 0, 1)));
    assert!(w.to_string().contains("cannot read"), "{w}");
    match read_state(&dir.state()) {
        Err(StoreError::Unavailable(w)) => assert!(matches!(w.problem(), Problem::Io { .. })),
        other => panic!("{other:?}"),
    }
}

#[test]
fn unavailable_when_storage_fails() {
    let (disk, store) = memory();
    disk.set_failing(true);
    let w = unavailable(store.lease(&req(GeneratorKind::V7, 0, 0, 1)));
    assert_eq!(w.path(), std::path::Path::new("<memory>"));
    disk.set_failing(false);
    assert!(store.lease(&req(GeneratorKind::V7, 0, 0, 1)).is_ok());
}

#[test]
fn read_state_of_a_missing_file() {
    let dir = TempDir::new("missing");
    match read_state(&dir.state()) {
        Err(StoreError::Unavailable(w)) => {
            assert_eq!(w.problem(), &Problem::Missing);
            assert!(w.to_string().contains(": does not exist;"), "{w}");
        }
        other => panic!("{other:?}"),
    }
}

/// A missing file is first use: no warning, and the directory is created.
#[test]
fn missing_file_and_directory_are_created_silently() {
    let dir = TempDir::new("create");
    let path = dir.0.join("a").join("b").join("state");
    let l = StateStore::open(&path)
        .lease(&req(GeneratorKind::V7, 0, 0, 1))
        .unwrap();
    assert!(l.warning.is_none());
    assert!(read_state(&path).unwrap().damage.is_none());
    assert!(
        !dir.0.join("a/b/state.tmp").exists(),
        "no temporary file left"
    );
}

// ---- the lock ----

/// Another open file holds the lock (as another process would): the lease gives up
/// after the timeout with `Unavailable`, and works once the lock is released.
#[test]
fn lock_timeout_gives_unavailable() {
    let dir = TempDir::new("lock");
    let store = StateStore::open(dir.state()).with_lock_timeout(Duration::from_millis(100));
    store.lease(&req(GeneratorKind::V7, 0, 0, 1)).unwrap();
    let holder = File::options()
        .read(true)
        .write(true)
        .open(dir.0.join("state.lock"))
        .unwrap();
    holder.try_lock().unwrap();
    let w = unavailable(store.lease(&req(GeneratorKind::V7, 0, 0, 1)));
    assert_eq!(
        w.problem(),
        &Problem::LockTimeout {
            timeout: Duration::from_millis(100)
        }
    );
    assert!(
        w.to_string()
            .contains("held the lock file for longer than 100ms"),
        "{w}"
    );
    drop(holder);
    assert_eq!(
        store.lease(&req(GeneratorKind::V7, 0, 0, 1)).unwrap().start,
        1
    );
}

#[test]
fn memory_lock_timeout_gives_unavailable() {
    let (disk, store) = memory();
    let store = store.with_lock_timeout(Duration::ZERO);
    let guard = disk.lock(Duration::ZERO).unwrap();
    let w = unavailable(store.lease(&req(GeneratorKind::V7, 0, 0, 1)));
    assert!(matches!(w.problem(), Problem::LockTimeout { .. }));
    drop(guard);
    assert!(store.lease(&req(GeneratorKind::V7, 0, 0, 1)).is_ok());
}

/// The lock file is created once and never replaced: processes must all lock the same
/// file.
#[cfg(unix)]
#[test]
fn lock_file_is_never_replaced() {
    use std::os::unix::fs::MetadataExt;
    let dir = TempDir::new("lockfile");
    let store = StateStore::open(dir.state());
    store.lease(&req(GeneratorKind::V7, 0, 0, 1)).unwrap();
    let ino = fs::metadata(dir.0.join("state.lock")).unwrap().ino();
    fs::write(dir.state(), "damaged").unwrap();
    for i in 0..10 {
        store
            .lease(&req(GeneratorKind::V7, i << 50, i << 50, 1))
            .unwrap();
    }
    assert_eq!(fs::metadata(dir.0.join("state.lock")).unwrap().ino(), ino);
}

/// Generators hold the store in an `Arc` shared by threads.
#[test]
fn state_store_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<StateStore>();
    check::<MemoryStorage>();
    check::<FileStorage>();
}

// ---- the format ----

/// The exact bytes of a file (the format is an interface: other versions of this
/// library, `cat` and `uuidkit state check` read it).
#[test]
fn encoding_is_pinned() {
    let state = State {
        boot: Some("8c5a4e9c-3f1e-4f4e-9d7a-1b2c3d4e5f60".into()),
        entries: vec![
            Entry {
                kind: GeneratorKind::Gregorian(NodeId::from_bytes([
                    0x9f, 0x6b, 0xde, 0xce, 0xd8, 0x46,
                ])),
                high: 139_613_640_000_000_000,
                durable: 139_613_640_050_000_000,
                last_clock: 139_613_639_999_990_000,
                clock_seq: Some(cs(13256)),
            },
            Entry {
                kind: GeneratorKind::V7,
                high: (1_700_000_000_000 << 42) | 12345,
                durable: (1_700_000_005_000 << 42) | 12345,
                last_clock: 1_700_000_000_000 << 42,
                clock_seq: None,
            },
        ],
    };
    let bytes = format::encode(&state);
    let text = String::from_utf8(bytes.clone()).unwrap();
    let body = "uuidkit-state 1\n\
                boot 8c5a4e9c-3f1e-4f4e-9d7a-1b2c3d4e5f60\n\
                gregorian node=9f6bdeced846 high=139613640000000000 durable=139613640050000000 \
                last-clock=139613639999990000 clock-seq=13256\n\
                v7 high=7476679068876800000012345 durable=7476679090867032555532345 \
                last-clock=7476679068876800000000000\n";
    assert_eq!(text, String::from_utf8(with_checksum(body)).unwrap());
    let parsed = format::parse(&bytes);
    assert_eq!(parsed.problem, None);
    assert_eq!(parsed.state, state);
}

#[test]
fn default_path_follows_xdg() {
    let p = |x: Option<&str>, h: Option<&str>| {
        default_path_from(x.map(PathBuf::from), h.map(PathBuf::from))
    };
    assert_eq!(
        p(Some("/x/state"), Some("/home/u")),
        Some(PathBuf::from("/x/state/uuidkit/state"))
    );
    assert_eq!(
        p(Some("relative"), Some("/home/u")),
        Some(PathBuf::from("/home/u/.local/state/uuidkit/state"))
    );
    assert_eq!(
        p(Some(""), Some("/home/u")),
        Some(PathBuf::from("/home/u/.local/state/uuidkit/state"))
    );
    assert_eq!(p(None, Some("")), None);
    assert_eq!(p(None, None), None);
}

fn arb_kind() -> impl Strategy<Value = GeneratorKind> {
    prop_oneof![
        (0u64..1 << 48).prop_map(|n| GeneratorKind::Gregorian(NodeId::from_u64(n).unwrap())),
        Just(GeneratorKind::V7),
        Just(GeneratorKind::V8),
    ]
}

fn arb_entry() -> impl Strategy<Value = Entry> {
    (
        arb_kind(),
        any::<u128>(),
        any::<u128>(),
        any::<u128>(),
        0u16..=0x3fff,
    )
        .prop_map(|(kind, a, b, c, seq)| {
            let max = kind.max_position();
            let (a, b) = (a % (max + 1), b % (max + 1));
            Entry {
                kind,
                high: a.min(b),
                durable: a.max(b),
                last_clock: c % (max + 1),
                clock_seq: matches!(kind, GeneratorKind::Gregorian(_)).then(|| cs(seq)),
            }
        })
}

fn arb_state() -> impl Strategy<Value = State> {
    (
        proptest::option::of("[0-9a-zA-Z-]{1,64}"),
        vec(arb_entry(), 0..8),
    )
        .prop_map(|(boot, entries)| {
            let mut state = State {
                boot: format::valid_boot_id(boot),
                entries: Vec::new(),
            };
            for e in entries {
                state.put(e);
            }
            state
        })
}

/// Few cases: each lease test above is worth more than many random ones, and these
/// are about the parser's totality.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig::with_cases(cases)
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn format_round_trips(state in arb_state()) {
        let parsed = format::parse(&format::encode(&state));
        prop_assert_eq!(parsed.problem, None);
        prop_assert!(parsed.checksum_ok);
        prop_assert_eq!(parsed.version, 1);
        prop_assert_eq!(parsed.state, state);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..512)) {
        let parsed = format::parse(&bytes);
        prop_assert!(parsed.problem.is_some() || bytes.ends_with(b"\n"));
    }

    /// A sound file with a byte changed, removed or inserted: the parser finds a fault
    /// (or, rarely, a still-sound file), and a lease on it always works.
    #[test]
    fn damaged_files_never_panic_and_leases_go_on(
        state in arb_state(),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        how in 0u8..3,
    ) {
        let mut bytes = format::encode(&state);
        let i = at.index(bytes.len());
        match how {
            0 => bytes[i] = byte,
            1 => { bytes.remove(i); }
            _ => bytes.insert(i, byte),
        }
        let parsed = format::parse(&bytes);
        if parsed.problem.is_none() {
            prop_assert_eq!(&parsed.state, &state);
        }
        let (disk, store) = memory();
        disk.set_contents(Some(bytes));
        let lease = store.lease(&req(GeneratorKind::V8, 5, 5, 1));
        prop_assert!(lease.is_ok() || lease == Err(StoreError::Exhausted));
        prop_assert!(store.snapshot().unwrap().damage.is_none() || lease.is_err());
    }
}
