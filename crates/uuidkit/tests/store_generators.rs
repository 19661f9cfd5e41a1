//! Generators sharing a state store: no two of them make the same UUID, each goes on
//! above everything the store handed out (restarts, a clock set back, a power loss), and
//! a store that cannot be used leaves them generating in memory with a warning.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use uuidkit::generator::gregorian::GregorianGenerator;
use uuidkit::generator::v7::{V7Generator, V7Method};
use uuidkit::generator::v8::V8Generator;
use uuidkit::layout::ClockSequence;
use uuidkit::node::NodeStrategy;
use uuidkit::random::Csprng;
use uuidkit::store::{MemoryStorage, StateStore};
use uuidkit::time::ManualClock;
use uuidkit::{NodeId, Uuid, Version};

const T0_MS: u64 = 1_700_000_000_000;

/// A fresh state file path of this test.
fn state_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uuidkit-store-gen-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("state")
}

fn node() -> NodeStrategy {
    NodeStrategy::Fixed(NodeId::from_u64(0x0123_4567_89ab).unwrap())
}

fn cs7() -> ClockSequence {
    ClockSequence::new(7).unwrap()
}

fn gregorian<'c>(
    version: Version,
    clock: &'c ManualClock,
    store: &Arc<StateStore>,
) -> GregorianGenerator<&'c ManualClock, Csprng> {
    GregorianGenerator::with_sources(version, clock, Csprng)
        .with_node(node())
        .with_clock_seq(cs7())
        .with_store(store.clone())
}

/// Two generators with one node and one clock sequence on one frozen clock collide at
/// once without a store; with one they never do, and each stays in order.
#[test]
fn generators_sharing_a_store_never_collide() {
    let path = state_path("share");
    let clock = ManualClock::at_millis(T0_MS);
    for version in [Version::V6, Version::V1] {
        let (sa, sb) = (
            Arc::new(StateStore::open(&path)),
            Arc::new(StateStore::open(&path)),
        );
        let (mut a, mut b) = (
            gregorian(version, &clock, &sa),
            gregorian(version, &clock, &sb),
        );
        let mut seen = HashSet::new();
        let (mut la, mut lb) = (Uuid::NIL, Uuid::NIL);
        for i in 0..50_000 {
            let (ua, ub) = (a.next().unwrap(), b.next().unwrap());
            assert!(
                seen.insert(ua) && seen.insert(ub),
                "{version:?}: duplicate at {i}"
            );
            if version == Version::V6 {
                assert!(ua > la && ub > lb, "{version:?}: order at {i}");
            }
            (la, lb) = (ua, ub);
            if i % 1000 == 0 {
                clock.advance(Duration::from_micros(3));
            }
        }
        assert!(a.take_store_warnings().is_empty());
    }

    let (sa, sb) = (
        Arc::new(StateStore::open(&path)),
        Arc::new(StateStore::open(&path)),
    );
    for method in [V7Method::Counter, V7Method::Random, V7Method::Precision] {
        let mut a = V7Generator::with_sources(method, &clock, Csprng).with_store(sa.clone());
        let mut b =
            V7Generator::with_sources(V7Method::Counter, &clock, Csprng).with_store(sb.clone());
        let mut seen = HashSet::new();
        for _ in 0..50_000 {
            assert!(
                seen.insert(a.next()) && seen.insert(b.next()),
                "v7 {method}"
            );
        }
    }
    let mut a = V8Generator::with_sources(&clock, Csprng).with_store(sa);
    let mut b = V8Generator::with_sources(&clock, Csprng).with_store(sb);
    let mut seen = HashSet::new();
    for _ in 0..50_000 {
        assert!(seen.insert(a.next()) && seen.insert(b.next()), "v8");
    }
}

/// A generator started after another stopped continues above its last UUID, even with
/// the clock set back an hour in between; v1 then takes the next clock sequence.
#[test]
fn restart_continues_above_the_last_uuid_even_with_the_clock_set_back() {
    let path = state_path("restart");
    let clock = ManualClock::at_millis(T0_MS);
    let store = || Arc::new(StateStore::open(&path));
    let v6_last = {
        let mut g = gregorian(Version::V6, &clock, &store());
        (0..10_000).map(|_| g.next().unwrap()).last().unwrap()
    };
    let v7_last = {
        let mut g =
            V7Generator::with_sources(V7Method::Counter, &clock, Csprng).with_store(store());
        (0..10_000).map(|_| g.next()).last().unwrap()
    };
    let v8_last = {
        let mut g = V8Generator::with_sources(&clock, Csprng).with_store(store());
        (0..10_000).map(|_| g.next()).last().unwrap()
    };
    let v1_first = {
        let mut g = GregorianGenerator::with_sources(Version::V1, &clock, Csprng)
            .with_node(NodeStrategy::Fixed(NodeId::from_u64(0xB).unwrap()))
            .with_store(store());
        g.next().unwrap()
    };

    clock.step_back(Duration::from_secs(3600));
    let mut g = gregorian(Version::V6, &clock, &store());
    assert!(g.next().unwrap() > v6_last);
    let mut g = V7Generator::with_sources(V7Method::Counter, &clock, Csprng).with_store(store());
    assert!(g.next() > v7_last);
    let mut g = V8Generator::with_sources(&clock, Csprng).with_store(store());
    assert!(g.next() > v8_last);
    let mut g = GregorianGenerator::with_sources(Version::V1, &clock, Csprng)
        .with_node(NodeStrategy::Fixed(NodeId::from_u64(0xB).unwrap()))
        .with_store(store());
    let v1 = g.next().unwrap();
    assert_ne!(v1, v1_first);
    assert_eq!(
        v1.clock_seq().unwrap(),
        (v1_first.clock_seq().unwrap() + 1) & 0x3fff,
        "v1 takes the next clock sequence when the clock went back"
    );
    assert!(v1.timestamp().unwrap().raw() > v1_first.timestamp().unwrap().raw());
}

/// A power loss drops every write not yet made durable: the write-ahead mark alone puts
/// the next generator above everything handed out.
#[test]
fn after_a_power_loss_the_write_ahead_mark_is_enough() {
    let clock = ManualClock::at_millis(T0_MS);
    let storage = MemoryStorage::new();
    let mut before = Vec::new();
    {
        let store = Arc::new(StateStore::with_storage(Box::new(storage.clone())));
        let mut g6 = gregorian(Version::V6, &clock, &store);
        let mut g7 =
            V7Generator::with_sources(V7Method::Counter, &clock, Csprng).with_store(store.clone());
        let mut g8 = V8Generator::with_sources(&clock, Csprng).with_store(store);
        for i in 0..200_000 {
            before.push((g6.next().unwrap(), g7.next(), g8.next()));
            if i % 100 == 0 {
                clock.advance(Duration::from_micros(250));
            }
        }
    }
    storage.power_loss();
    let (l6, l7, l8) = *before.last().unwrap();
    let store = Arc::new(StateStore::with_storage(Box::new(storage)));
    assert!(gregorian(Version::V6, &clock, &store).next().unwrap() > l6);
    let mut g7 =
        V7Generator::with_sources(V7Method::Counter, &clock, Csprng).with_store(store.clone());
    assert!(g7.next() > l7);
    let mut g8 = V8Generator::with_sources(&clock, Csprng).with_store(store);
    assert!(g8.next() > l8);
}

/// A store that cannot be used: generation goes on, with one warning naming the file.
#[test]
fn an_unusable_store_leaves_generation_in_memory_with_a_warning() {
    let path = state_path("unusable");
    // A regular file where a directory should be: not even root can create the state.
    std::fs::write(path.parent().unwrap().join("afile"), b"x").unwrap();
    let bad = path.parent().unwrap().join("afile").join("state");
    let store = Arc::new(StateStore::open(&bad));
    let clock = ManualClock::at_millis(T0_MS);
    let mut g = gregorian(Version::V6, &clock, &store);
    let mut last = g.next().unwrap();
    for _ in 0..1000 {
        let u = g.next().unwrap();
        assert!(u > last);
        last = u;
    }
    let warnings = g.take_store_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].to_string().contains("afile"), "{}", warnings[0]);
    assert!(g.take_store_warnings().is_empty(), "each warning once");

    let mut g = V7Generator::with_sources(V7Method::Counter, &clock, Csprng).with_store(store);
    let a = g.next();
    assert!(g.next() > a);
    assert_eq!(g.take_store_warnings().len(), 1);
}

/// After `fork`, the child never uses its parent's block: parent and child, with one
/// node and one clock sequence, never make the same UUID.
#[test]
fn a_forked_child_leases_its_own_block() {
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;

    let path = state_path("fork");
    let store = Arc::new(StateStore::open(&path));
    let mut g6 = GregorianGenerator::v6()
        .with_node(node())
        .with_clock_seq(cs7())
        .with_store(store.clone());
    let mut g7 = V7Generator::new(V7Method::Counter).with_store(store);
    let _ = (g6.next().unwrap(), g7.next());
    let (mut parent_end, mut child_end) = UnixStream::pair().unwrap();
    // SAFETY: the child touches only uuidkit's generators, a socket and `_exit`.
    #[allow(unsafe_code)]
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        let mut bytes = Vec::new();
        for _ in 0..5_000 {
            bytes.extend_from_slice(g6.next().unwrap().as_bytes());
            bytes.extend_from_slice(g7.next().as_bytes());
        }
        let ok = child_end.write_all(&bytes).is_ok();
        // SAFETY: ends the child without running the parent's atexit handlers again.
        #[allow(unsafe_code)]
        unsafe {
            libc::_exit(if ok { 0 } else { 1 })
        };
    }
    drop(child_end);
    let mut seen = HashSet::new();
    for _ in 0..5_000 {
        assert!(seen.insert(g6.next().unwrap()));
        assert!(seen.insert(g7.next()));
    }
    let mut buf = Vec::new();
    parent_end.read_to_end(&mut buf).unwrap();
    let mut status = 0;
    // SAFETY: waits for the child this test forked.
    #[allow(unsafe_code)]
    unsafe {
        libc::waitpid(pid, &mut status, 0)
    };
    assert_eq!(status, 0);
    for c in buf.chunks(16) {
        let u = Uuid::from_bytes(c.try_into().unwrap());
        assert!(seen.insert(u), "the child repeated the parent's {u}");
    }
}

/// Counts the leases a generator asks of a state store: a used-up range must not cost
/// one per UUID.
#[derive(Debug)]
struct Counting {
    store: StateStore,
    leases: std::sync::atomic::AtomicU64,
}

impl uuidkit::store::LeaseSource for Counting {
    fn lease(
        &self,
        req: &uuidkit::store::LeaseRequest,
    ) -> Result<uuidkit::store::Lease, uuidkit::store::StoreError> {
        self.leases
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.store.lease(req)
    }

    fn warning(
        &self,
        problem: uuidkit::store::Problem,
        outcome: uuidkit::store::Outcome,
    ) -> uuidkit::store::StoreWarning {
        self.store.warning(problem, outcome)
    }
}

/// A clock far ahead used up a kind's positions (v7 at the end of its range, the year
/// 10889; draft-v8-32 in 2106): the next generator, with a correct clock, says so once
/// (a warning naming the file and the kind, never a silent step back) and goes on in
/// memory, strictly increasing, with no lease per UUID.
#[test]
fn a_used_up_range_is_said_once_and_costs_no_lease_per_uuid() {
    use uuidkit::generator::draft::DraftGenerator;
    use uuidkit::store::{GeneratorKind, LeaseRequest, Problem};
    let year_2250_ms = 8_835_984_000_000;
    let draft: uuidkit::layout::Layout = "draft-v8-32".parse().unwrap();
    for kind in [GeneratorKind::V7, GeneratorKind::Draft(draft)] {
        let path = state_path(&format!("used-up-{kind}"));
        // The far-ahead process: v7 leased its last position; draft-v8-32 is used up by
        // a generator whose clock reads 2250.
        match kind {
            GeneratorKind::V7 => {
                let max = kind.max_position();
                StateStore::open(&path)
                    .lease(&LeaseRequest::new(kind, max, max, 1))
                    .unwrap();
            }
            _ => {
                let ahead = ManualClock::at_millis(year_2250_ms);
                let mut g = DraftGenerator::with_sources(draft, &ahead, Csprng)
                    .unwrap()
                    .with_store(Arc::new(StateStore::open(&path)));
                g.next();
            }
        }
        let counting = Arc::new(Counting {
            store: StateStore::open(&path),
            leases: Default::default(),
        });
        let clock = ManualClock::at_millis(T0_MS);
        let mut next: Box<dyn FnMut() -> (Uuid, Vec<uuidkit::store::StoreWarning>)> = match kind {
            GeneratorKind::V7 => {
                let mut g = V7Generator::with_sources(V7Method::Counter, &clock, Csprng)
                    .with_store(counting.clone());
                Box::new(move || (g.next(), g.take_store_warnings()))
            }
            _ => {
                let mut g = DraftGenerator::with_sources(draft, &clock, Csprng)
                    .unwrap()
                    .with_store(counting.clone());
                Box::new(move || (g.next(), g.take_store_warnings()))
            }
        };
        let (first, warnings) = next();
        assert_eq!(warnings.len(), 1, "{kind}: {warnings:?}");
        assert_eq!(warnings[0].problem(), &Problem::RangeUsedUp { kind });
        let text = warnings[0].to_string();
        assert!(
            text.contains(&path.display().to_string()) && text.contains("used up"),
            "{text}"
        );
        let mut last = first;
        for i in 0..10_000 {
            let (u, warnings) = next();
            assert!(warnings.is_empty(), "{kind}: said again at {i}");
            assert!(u > last, "{kind}: {u} after {last}");
            last = u;
            if i % 1000 == 0 {
                clock.advance(Duration::from_millis(1));
            }
        }
        assert_eq!(
            counting.leases.load(std::sync::atomic::Ordering::Relaxed),
            1,
            "{kind}: a lease per UUID"
        );
    }
}
