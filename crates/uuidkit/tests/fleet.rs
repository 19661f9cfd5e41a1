//! Machine IDs leased from a real etcd (`uuidkit::fleet`, feature `etcd`), in this
//! process: claims, the high-water mark between holders, the fence, a lost lease, `fork`,
//! and bad input. The command's multi-process tests are in the uuidkit-cli crate's
//! `fleet` module.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use uuidkit::Uuid;
use uuidkit::fleet::{FleetConfig, FleetError, FleetGenerator, LeasedId, Placement};
use uuidkit::generator::v7::V7Method;

use crate::etcd_cluster::EtcdCluster;

fn config(c: &EtcdCluster, fleet: &str, bits: u32) -> FleetConfig {
    FleetConfig::new(&c.endpoints_arg(), fleet, bits).unwrap()
}

fn ms_of(u: Uuid) -> u64 {
    (u.as_u128() >> 80) as u64
}

fn mark(c: &EtcdCluster, fleet: &str, n: u64) -> Option<u64> {
    let key = format!("/uuidkit/{fleet}/machine-id/{n}/mark");
    c.get(0, key.as_bytes())
        .unwrap()
        .map(|v| String::from_utf8(v).unwrap().parse().unwrap())
}

fn holder(c: &EtcdCluster, fleet: &str, n: u64) -> Option<Vec<u8>> {
    c.get(0, format!("/uuidkit/{fleet}/machine-id/{n}").as_bytes())
        .unwrap()
}

#[test]
fn claims_take_the_lowest_free_ids_and_all_held_is_an_error() {
    let c = EtcdCluster::start(1);
    let cfg = config(&c, "lowest", 2);
    let mut held: Vec<LeasedId> = (0..4).map(|_| LeasedId::claim(&cfg).unwrap()).collect();
    let ids: Vec<u64> = held.iter().map(|h| h.machine_id().value()).collect();
    assert_eq!(ids, [0, 1, 2, 3]);
    let who = String::from_utf8(holder(&c, "lowest", 2).unwrap()).unwrap();
    assert!(
        who.starts_with(&format!("pid={} ", std::process::id())),
        "{who}"
    );
    let e = LeasedId::claim(&cfg).unwrap_err();
    assert_eq!(
        e,
        FleetError::AllHeld {
            ids: 4,
            fleet: "lowest".into()
        }
    );
    assert_eq!(
        e.to_string(),
        "all 4 machine IDs of fleet \"lowest\" are held"
    );
    // A released ID is free at once (its key is gone with the revoked lease).
    held.remove(1).release();
    assert_eq!(holder(&c, "lowest", 1), None);
    let again = LeasedId::claim(&cfg).unwrap();
    assert_eq!(again.machine_id().value(), 1);
}

#[test]
fn a_claim_waits_for_a_free_id_up_to_its_deadline() {
    let c = EtcdCluster::start(1);
    let cfg = config(&c, "wait", 1);
    let a = LeasedId::claim(&cfg).unwrap();
    let _b = LeasedId::claim(&cfg).unwrap();
    let t = Instant::now();
    let e = LeasedId::claim(&cfg.clone().with_wait(Duration::from_millis(600))).unwrap_err();
    assert!(matches!(e, FleetError::WaitedTooLong { ids: 2, .. }), "{e}");
    assert!(t.elapsed() >= Duration::from_millis(600));
    let waiting = std::thread::spawn({
        let cfg = cfg.clone().with_wait(Duration::from_secs(20));
        move || LeasedId::claim(&cfg).map(|h| h.machine_id().value())
    });
    std::thread::sleep(Duration::from_millis(300));
    let freed = a.machine_id().value();
    a.release();
    assert_eq!(waiting.join().unwrap().unwrap(), freed);
}

#[test]
fn the_next_holder_of_an_id_starts_above_everything_the_last_one_made() {
    let c = EtcdCluster::start(1);
    // Holders of ID 0 in turn, each after the last: v7's methods that share a placement
    // in one fleet, Method 2 in one of its own; batches and single UUIDs.
    type Round<'a> = (&'a str, Placement, &'a [(V7Method, bool)]);
    let rounds: [Round; 2] = [
        (
            "handover",
            Placement::V7,
            &[
                (V7Method::Counter, true),
                (V7Method::Precision, true),
                (V7Method::Counter, false),
            ],
        ),
        (
            "handover-random",
            Placement::V7Random,
            &[(V7Method::Random, true), (V7Method::Random, false)],
        ),
    ];
    for (fleet, placement, methods) in rounds {
        let cfg = config(&c, fleet, 1).with_placement(placement);
        let mut last = Uuid::NIL;
        let mut seen = HashSet::new();
        for (round, &(method, in_batches)) in methods.iter().enumerate() {
            let id = Arc::new(LeasedId::claim(&cfg).unwrap());
            assert_eq!(id.machine_id().value(), 0);
            let status = id.status();
            if round > 0 {
                // The previous holder lowered its mark to what it used before it left.
                assert_eq!(status.floor_ms, ms_of(last) + 1, "{fleet} {round}");
            }
            let mut batch = vec![Uuid::NIL; 20_000];
            let mut g = FleetGenerator::v7(id.clone(), method).unwrap();
            if in_batches {
                g.try_fill(&mut batch).unwrap();
            } else {
                for u in batch.iter_mut() {
                    *u = g.try_next().unwrap();
                }
            }
            drop(g);
            assert!(
                batch[0] > last,
                "{fleet} {round}: {} after {last}",
                batch[0]
            );
            assert!(batch.windows(2).all(|w| w[0] < w[1]));
            // Every UUID is at or below the mark etcd holds.
            let m = mark(&c, fleet, 0).unwrap();
            assert!(batch.iter().all(|u| ms_of(*u) <= m));
            seen.extend(batch.iter().copied());
            last = *batch.last().unwrap();
            Arc::try_unwrap(id).unwrap().release();
            assert_eq!(mark(&c, fleet, 0), Some(ms_of(last)));
        }
        assert_eq!(seen.len(), 20_000 * methods.len());
    }
}

#[test]
fn a_mark_ahead_of_the_clock_is_where_the_next_holder_starts() {
    let c = EtcdCluster::start(1);
    // A previous holder whose clock ran an hour ahead left this mark.
    let ahead = uuidkit::time::UnixTime::now().millis_since_epoch() + 3_600_000;
    c.put(
        0,
        b"/uuidkit/ahead/machine-id/0/mark",
        ahead.to_string().as_bytes(),
    )
    .unwrap();
    let layout = "draft-v7-us".parse().unwrap();
    let cfg = config(&c, "ahead", 1).with_placement(Placement::Draft(layout));
    let id = Arc::new(LeasedId::claim(&cfg).unwrap());
    let s = id.status();
    assert_eq!(s.floor_ms, ahead + 1);
    let behind = s.clock_behind.unwrap();
    assert!(behind > Duration::from_secs(3590) && behind <= Duration::from_secs(3600));
    let mut g = FleetGenerator::draft(id.clone(), layout).unwrap();
    let u = g.try_next().unwrap();
    let d = uuidkit::layout::decode_as(&u, layout).unwrap();
    assert_eq!(d.machine_id(1).unwrap().0, 0);
    // Above the mark, not at the clock: the holder runs ahead until the clock catches up.
    assert!(d.time.unwrap().millis_since_epoch() > ahead);
    assert!(id.status().mark_ms > ahead);
}

#[test]
fn a_fenced_holder_hands_out_nothing_until_its_lease_is_renewed() {
    let mut c = EtcdCluster::start(1);
    let cfg = config(&c, "fence", 2)
        .with_ttl(Duration::from_secs(2))
        .unwrap();
    let id = Arc::new(LeasedId::claim(&cfg).unwrap());
    let mut g = FleetGenerator::v7(id.clone(), V7Method::Counter).unwrap();
    let before = g.try_next().unwrap();
    c.stop_member(0);
    let stopped = Instant::now();
    // The fence shuts at most TTL − TTL/5 after the last renewal was sent; calls back to
    // back (a full check only once a millisecond) see it shut as soon as calls apart do.
    let fenced = loop {
        match g.try_next() {
            Ok(_) => assert!(stopped.elapsed() < Duration::from_secs(2), "still issuing"),
            Err(e) => break e,
        }
    };
    assert!(
        matches!(fenced, FleetError::Fenced { id: 0, .. }),
        "{fenced}"
    );
    assert!(id.status().remaining.is_none());
    // Nothing while etcd is away.
    std::thread::sleep(Duration::from_millis(500));
    assert!(matches!(g.try_next(), Err(FleetError::Fenced { .. })));
    // etcd back (its leases come back with it, their time-to-live restarted): the
    // next renewal opens the fence again, and the UUIDs go on in order.
    c.start_member(0);
    id.wait_open(Duration::from_secs(15)).unwrap();
    let after = g.try_next().unwrap();
    assert!(after > before);
    assert!(id.status().remaining.is_some());
}

#[test]
fn a_holder_whose_id_was_taken_over_stops_for_good() {
    let c = EtcdCluster::start(1);
    let cfg = config(&c, "taken", 1)
        .with_ttl(Duration::from_secs(2))
        .unwrap();
    let id = Arc::new(LeasedId::claim(&cfg).unwrap());
    let mut g = FleetGenerator::v7(id.clone(), V7Method::Counter).unwrap();
    g.try_next().unwrap();
    // Someone writes over the holder key, detaching it from the lease: the next mark
    // write (fenced by the lease) fails, and the holder knows the ID is not its own.
    c.put(0, b"/uuidkit/taken/machine-id/0", b"intruder")
        .unwrap();
    let t = Instant::now();
    let e = loop {
        match g.try_next() {
            Ok(_) => assert!(t.elapsed() < Duration::from_secs(10), "never noticed"),
            Err(e) => break e,
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(e, FleetError::Lost { id: 0 });
    assert!(id.status().lost);
    assert_eq!(
        id.wait_open(Duration::from_secs(1)),
        Err(FleetError::Lost { id: 0 })
    );
}

#[test]
fn a_forked_child_cannot_use_its_parents_id() {
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;
    let c = EtcdCluster::start(1);
    let id = Arc::new(LeasedId::claim(&config(&c, "fork", 3)).unwrap());
    let mut g = FleetGenerator::v7(id.clone(), V7Method::Counter).unwrap();
    g.try_next().unwrap();
    let (mut parent_end, mut child_end) = UnixStream::pair().unwrap();
    // SAFETY: the child touches only the generator, a socket and `_exit`.
    #[allow(unsafe_code)]
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let verdict: &[u8] = match g.try_next() {
            Err(FleetError::Forked { .. }) => b"forked",
            Err(_) => b"other error",
            Ok(_) => b"issued",
        };
        let ok = child_end.write_all(verdict).is_ok();
        // SAFETY: ends the child without running the parent's handlers or destructors.
        #[allow(unsafe_code)]
        unsafe {
            libc::_exit(if ok { 0 } else { 1 })
        };
    }
    drop(child_end);
    let mut verdict = String::new();
    parent_end.read_to_string(&mut verdict).unwrap();
    let mut status = 0;
    // SAFETY: waits for the child forked above; `status` outlives the call.
    #[allow(unsafe_code)]
    unsafe {
        libc::waitpid(pid, &mut status, 0)
    };
    assert_eq!(verdict, "forked");
    // The parent goes on.
    g.try_next().unwrap();
}

#[test]
fn garbage_under_the_fleet_is_an_error_naming_it_and_nothing_is_written() {
    let c = EtcdCluster::start(1);
    for (fleet, key, value) in [
        ("g1", "/uuidkit/g1/machine-id/0/mark", "soon"),
        ("g2", "/uuidkit/g2/machine-id/zz", "x"),
        ("g3", "/uuidkit/g3/machine-id/1/mark", ""),
        // Not ID 0's mark (`0/mark`): taken for it, the claim compared one key's revision
        // with another's and went round for ever.
        ("g4", "/uuidkit/g4/machine-id/00/mark", "5"),
        ("g5", "/uuidkit/g5/machine-id/01", "pid=1"),
    ] {
        c.put(0, key.as_bytes(), value.as_bytes()).unwrap();
        let e = LeasedId::claim(&config(&c, fleet, 2)).unwrap_err();
        assert_eq!(
            e,
            FleetError::Garbage {
                key: key.into(),
                value: value.into()
            }
        );
        assert!(e.to_string().contains(key), "{e}");
        for n in 0..4 {
            assert_eq!(holder(&c, fleet, n), None, "{fleet}: ID {n} was claimed");
        }
        assert_eq!(c.get(0, key.as_bytes()).unwrap().unwrap(), value.as_bytes());
    }
    // With a lease, yet not uuidkit's: a holder value that says nothing of who or which
    // geometry, keys of IDs the width (2 bits: 0 to 3) does not reach, a geometry
    // written otherwise than uuidkit writes it.
    for (fleet, key, value, leased) in [
        ("h1", "/uuidkit/h1/machine-id/1", "garbage", true),
        (
            "h2",
            "/uuidkit/h2/machine-id/16",
            "pid=1 host=h bits=2 place=v7",
            true,
        ),
        ("h3", "/uuidkit/h3/machine-id/20/mark", "5", false),
        ("h4", "/uuidkit/h4/machine-id/4294967296/mark", "5", false),
        ("h5", "/uuidkit/h5/geometry", "bits=02 place=v7", false),
        // A mark or a geometry on a lease would vanish with it, and the next holder have
        // no floor: uuidkit writes them with none.
        ("h6", "/uuidkit/h6/machine-id/0/mark", "5", true),
        ("h7", "/uuidkit/h7/geometry", "bits=2 place=v7", true),
    ] {
        if leased {
            c.put_leased(0, key.as_bytes(), value.as_bytes(), 60)
                .unwrap();
        } else {
            c.put(0, key.as_bytes(), value.as_bytes()).unwrap();
        }
        let e = LeasedId::claim(&config(&c, fleet, 2)).unwrap_err();
        assert_eq!(
            e,
            FleetError::Garbage {
                key: key.into(),
                value: value.into()
            },
            "{fleet}"
        );
        for n in 0..4 {
            if key != format!("/uuidkit/{fleet}/machine-id/{n}") {
                assert_eq!(holder(&c, fleet, n), None, "{fleet}: ID {n} was claimed");
            }
        }
    }
    // A holder key as uuidkit writes it, but with no lease: it would hold ID 0 for ever,
    // so it is refused by name rather than quietly skipped.
    let key = "/uuidkit/g6/machine-id/0";
    c.put(0, key.as_bytes(), b"pid=1 host=h bits=2 place=v7")
        .unwrap();
    let e = LeasedId::claim(&config(&c, "g6", 2)).unwrap_err();
    assert_eq!(e, FleetError::Unleased { key: key.into() });
    assert!(e.to_string().contains("with no lease"), "{e}");
    for n in 1..4 {
        assert_eq!(holder(&c, "g6", n), None, "g6: ID {n} was claimed");
    }
}

#[test]
fn an_unreachable_etcd_is_an_error_naming_it() {
    let cfg = FleetConfig::new("http://127.0.0.1:1", "nowhere", 3).unwrap();
    let e = LeasedId::claim(&cfg).unwrap_err();
    assert!(matches!(e, FleetError::Etcd { .. }), "{e}");
    assert!(e.to_string().contains("http://127.0.0.1:1"), "{e}");
}

#[test]
fn widths_the_layout_has_no_room_for_are_refused() {
    let c = EtcdCluster::start(1);
    // 31 bits fit v7 (every method); b1 is not a draft layout and has no machine ID.
    let cfg = config(&c, "wide", 31).with_placement(Placement::V7Random);
    let id = Arc::new(LeasedId::claim(&cfg).unwrap());
    assert!(FleetGenerator::v7(id.clone(), V7Method::Random).is_ok());
    let b1 = "b1".parse().unwrap();
    let cfg = config(&c, "wide-b1", 31).with_placement(Placement::Draft(b1));
    let id = Arc::new(LeasedId::claim(&cfg).unwrap());
    assert!(matches!(
        FleetGenerator::draft(id.clone(), b1),
        Err(FleetError::BadBits { .. })
    ));
}

/// A member that is down, or accepts connections and never answers, anywhere in the
/// list: every claim still gets through the live one, and the ID works.
#[test]
fn a_dead_or_silent_member_in_the_list_does_not_stop_claims() {
    let c = EtcdCluster::start(1);
    let live = c.endpoint(0);
    // A listener nobody serves: connections are accepted (by the kernel) and never
    // answered.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent = format!("http://{}", silent.local_addr().unwrap());
    let dead = "http://127.0.0.1:1".to_string();
    for (i, list) in [
        format!("{dead},{live}"),
        format!("{live},{dead}"),
        format!("{dead},{live},{dead}"),
        format!("{silent},{live}"),
        format!("{live},{silent}"),
    ]
    .iter()
    .enumerate()
    {
        for round in 0..5 {
            let fleet = format!("dead{i}");
            let cfg = FleetConfig::new(list, &fleet, 4)
                .unwrap()
                .with_ttl(Duration::from_secs(2))
                .unwrap();
            let id = LeasedId::claim(&cfg).unwrap_or_else(|e| panic!("{list}, round {round}: {e}"));
            let mut g = FleetGenerator::v7(Arc::new(id), V7Method::Counter).unwrap();
            g.try_next()
                .unwrap_or_else(|e| panic!("{list}, round {round}: {e}"));
        }
    }
}

/// Every member down: an error naming each.
#[test]
fn a_cluster_with_every_member_down_is_an_error_naming_each() {
    let cfg = FleetConfig::new("http://127.0.0.1:1,http://127.0.0.1:2", "down", 3).unwrap();
    let e = LeasedId::claim(&cfg).unwrap_err();
    for endpoint in ["http://127.0.0.1:1", "http://127.0.0.1:2"] {
        assert!(e.to_string().contains(endpoint), "{e}");
    }
}

/// Marks too far ahead to use — one in the year 5138, one at the end of v7's range —
/// are skipped with a warning and never used: claims take the free ID beside them (0
/// duplicates between successive holders), and with none left the error names each.
/// The ID stays claimable after every holder leaves.
#[test]
fn a_mark_too_far_ahead_is_skipped_with_a_warning_and_never_used() {
    let c = EtcdCluster::start(1);
    for (fleet, far) in [
        ("far-5138", 99_999_999_999_999u64),
        ("far-end", (1 << 48) - 2),
    ] {
        c.put(
            0,
            format!("/uuidkit/{fleet}/machine-id/0/mark").as_bytes(),
            far.to_string().as_bytes(),
        )
        .unwrap();
        let cfg = config(&c, fleet, 1);
        let mut seen = HashSet::new();
        for round in 0..2 {
            let id = Arc::new(LeasedId::claim(&cfg).unwrap());
            let s = id.status();
            assert_eq!(
                (s.id, s.skipped.clone()),
                (1, vec![(0, far)]),
                "{fleet} {round}"
            );
            let w = s.skipped_warning().unwrap();
            assert!(w.contains("skipped machine ID 0"), "{w}");
            // With ID 1 held, nothing is left: the error names ID 0 and its mark.
            let e = LeasedId::claim(&cfg).unwrap_err();
            assert!(matches!(e, FleetError::MarksAhead { .. }), "{e}");
            assert!(e.to_string().contains("ID 0 at"), "{e}");
            let mut g = FleetGenerator::v7(id.clone(), V7Method::Counter).unwrap();
            for _ in 0..50_000 {
                let u = g.try_next().unwrap();
                assert!(ms_of(u) < far);
                assert!(seen.insert(u), "{fleet}: a duplicate");
            }
            drop(g);
            Arc::try_unwrap(id).unwrap().release();
        }
        // The far mark is left as it was; the other ID's is one uuidkit reads back.
        assert_eq!(mark(&c, fleet, 0), Some(far));
        assert!(mark(&c, fleet, 1).unwrap() < (1 << 48));
    }
}

/// A holder never raises its mark past its clock plus a time-to-live, whatever a
/// generator asks (a layout's last unit, which a daemon once turned into a mark in
/// 1970): the permit is refused, naming both times, and the mark is left as it was.
#[test]
fn a_holder_never_raises_the_mark_past_its_clock_plus_a_time_to_live() {
    let c = EtcdCluster::start(1);
    let id = LeasedId::claim(&config(&c, "bound", 1)).unwrap();
    let before = mark(&c, "bound", 0).unwrap();
    let now = uuidkit::time::UnixTime::now().millis_since_epoch();
    for wanted in [now + 3_600_000, (1 << 48) - 1, u64::MAX] {
        let e = id.permit(wanted).unwrap_err();
        assert!(matches!(e, FleetError::TooFarAhead { .. }), "{e}");
        assert!(e.to_string().contains("the mark was left as it was"), "{e}");
    }
    // Within the bound it is raised as before.
    id.permit(now + 5_000).unwrap();
    let after = mark(&c, "bound", 0).unwrap();
    assert!(
        after >= now + 5_000 && after <= now + 5_000 + 20_000,
        "{before} → {after}"
    );
}

/// A fleet whose generators' layout ends early (draft-v8-32, in 2106) skips an ID whose
/// floor leaves less than a time-to-live of it.
#[test]
fn a_floor_near_the_end_of_the_layouts_range_is_skipped() {
    let c = EtcdCluster::start(1);
    let end_2106 = 4_294_967_295_999u64;
    // Within the horizon of a clock in 2106 would not matter here: the layout's end does.
    c.put(
        0,
        b"/uuidkit/short/machine-id/0/mark",
        (end_2106 - 1000).to_string().as_bytes(),
    )
    .unwrap();
    let cfg = config(&c, "short", 1).with_last_millis(end_2106);
    let id = LeasedId::claim(&cfg).unwrap();
    assert_eq!(id.machine_id().value(), 1);
    assert_eq!(id.status().skipped, vec![(0, end_2106 - 1000)]);
}

/// A fleet records its width and where its IDs go at its first claim; a claim of another
/// width or placement is refused naming both, and writes nothing; a generator of another
/// placement cannot be built on an ID.
#[test]
fn mixed_widths_and_placements_in_one_fleet_are_refused() {
    let c = EtcdCluster::start(1);
    let first = LeasedId::claim(&config(&c, "geo", 2)).unwrap();
    assert_eq!(
        c.get(0, b"/uuidkit/geo/geometry").unwrap().as_deref(),
        Some(&b"bits=2 place=v7"[..])
    );
    let layout = "draft-v7-us".parse().unwrap();
    for cfg in [
        config(&c, "geo", 1),
        config(&c, "geo", 2).with_placement(Placement::V7Random),
        config(&c, "geo", 2).with_placement(Placement::Draft(layout)),
    ] {
        let e = LeasedId::claim(&cfg).unwrap_err();
        assert!(matches!(e, FleetError::Geometry { .. }), "{e}");
        let text = e.to_string();
        assert!(text.contains("\"bits=2 place=v7\""), "{text}");
    }
    // Only the first holder's key: nothing was written by the refused claims.
    assert!(holder(&c, "geo", 1).is_none());
    // The same geometry joins.
    let second = LeasedId::claim(&config(&c, "geo", 2)).unwrap();
    assert_eq!(second.machine_id().value(), 1);
    let id = Arc::new(first);
    assert!(matches!(
        FleetGenerator::v7(id.clone(), V7Method::Random),
        Err(FleetError::Geometry { .. })
    ));
    assert!(FleetGenerator::v7(id.clone(), V7Method::Precision).is_ok());
    // The geometry key deleted under live holders: their keys still say it.
    c.delete(0, b"/uuidkit/geo/geometry").unwrap();
    let e = LeasedId::claim(&config(&c, "geo", 2).with_placement(Placement::V7Random)).unwrap_err();
    assert!(matches!(e, FleetError::Geometry { .. }), "{e}");
    // A geometry that is not what uuidkit writes is garbage, named.
    c.put(0, b"/uuidkit/geo2/geometry", b"bits=99 place=v7")
        .unwrap();
    let e = LeasedId::claim(&config(&c, "geo2", 2)).unwrap_err();
    assert!(matches!(e, FleetError::Garbage { .. }), "{e}");
}

/// A lease gone at etcd (expired, or here revoked) is seen at the holder's first renewal
/// after it: calls fail with `Lost` at once, never first `Fenced` for the rest of the
/// time-to-live.
#[test]
fn a_lost_lease_is_seen_at_the_first_renewal() {
    let c = EtcdCluster::start(1);
    let cfg = config(&c, "lost", 1)
        .with_ttl(Duration::from_secs(8))
        .unwrap();
    let id = LeasedId::claim(&cfg).unwrap();
    id.permit(0).unwrap();
    c.revoke(0, id.status().lease).unwrap();
    let t = Instant::now();
    // Renewals go every quarter of the time-to-live (2 s); the fence would shut after
    // 6.4 s.
    let e = loop {
        if let Err(e) = id.permit(0) {
            break e;
        }
        assert!(t.elapsed() < Duration::from_secs(30), "never noticed");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(e, FleetError::Lost { id: 0 });
}

/// What `permit` let out is recorded: giving the ID back lowers the mark to it, never
/// below, even when no generator said what it used.
#[test]
fn giving_back_never_lowers_the_mark_below_a_permit() {
    let c = EtcdCluster::start(1);
    let id = LeasedId::claim(&config(&c, "permits", 1)).unwrap();
    let at = uuidkit::time::UnixTime::now().millis_since_epoch() + 4_000;
    id.permit(at).unwrap();
    id.release();
    assert_eq!(mark(&c, "permits", 0), Some(at));
}

/// Generators sharing one `LeasedId` never make the same (time, counter): each leases its
/// positions in blocks from the ID, and a generator made later starts above every block
/// the others leased. Before, each started at the holder's floor, so two draft
/// generators made in one millisecond began at sequence 0 together.
#[test]
fn generators_sharing_one_id_never_share_a_position() {
    use uuidkit::layout::{Layout, decode_as};
    let c = EtcdCluster::start(1);
    // draft-v8-32 stamps seconds with a 12-bit sequence: 1,000 pairs stay in the clock's
    // second or the next, inside the mark's bound.
    for (n, (name, pairs)) in [("draft-v7-ms", 20_000), ("draft-v8-32", 1_000)]
        .into_iter()
        .enumerate()
    {
        let l: Layout = name.parse().unwrap();
        let fleet = format!("shared{n}");
        let cfg = config(&c, &fleet, 2).with_placement(Placement::Draft(l));
        let id = Arc::new(LeasedId::claim(&cfg).unwrap());
        let mut a = FleetGenerator::draft(id.clone(), l).unwrap();
        let mut b = FleetGenerator::draft(id.clone(), l).unwrap();
        let mut seen = HashSet::new();
        for i in 0..pairs {
            for u in [a.try_next().unwrap(), b.try_next().unwrap()] {
                let d = decode_as(&u, l).unwrap();
                assert!(
                    seen.insert((d.timestamp, d.sequence)),
                    "{name}: {u} repeats a position, after {i} pairs"
                );
            }
        }
        // One made now starts above both.
        let top = seen.iter().max().copied().unwrap();
        let mut later = FleetGenerator::draft(id.clone(), l).unwrap();
        let d = decode_as(&later.try_next().unwrap(), l).unwrap();
        assert!((d.timestamp, d.sequence) > top, "{name}");
    }
    // v7: the counter's positions (the bits above the random tail) likewise.
    let id = Arc::new(LeasedId::claim(&config(&c, "shared-v7", 2)).unwrap());
    let mut a = FleetGenerator::v7(id.clone(), V7Method::Counter).unwrap();
    let mut b = FleetGenerator::v7(id.clone(), V7Method::Precision).unwrap();
    let mut seen = HashSet::new();
    for _ in 0..20_000 {
        for u in [a.try_next().unwrap(), b.try_next().unwrap()] {
            // Above the 32-bit tail (ID and random bits): time, counter, version, variant.
            assert!(seen.insert(u.as_u128() >> 32), "v7: {u} repeats a position");
        }
    }
}

/// Given back while another thread is making UUIDs (a signal's thread does this): the
/// mark written is at or above every UUID the generator handed out, before or during the
/// give-back. Before, the fence shut only after the final mark was written, and batches
/// permitted meanwhile ended above it.
#[test]
fn a_give_back_during_generation_leaves_the_mark_above_every_uuid() {
    let c = EtcdCluster::start(1);
    for round in 0..8 {
        let fleet = format!("giveback{round}");
        let id = Arc::new(LeasedId::claim(&config(&c, &fleet, 1)).unwrap());
        let making = {
            let id = id.clone();
            std::thread::spawn(move || {
                let mut g = FleetGenerator::v7(id, V7Method::Counter).unwrap();
                let mut batch = [Uuid::NIL; 256];
                let mut top = 0;
                while g.try_fill(&mut batch).is_ok() {
                    top = ms_of(batch[255]);
                }
                top
            })
        };
        std::thread::sleep(Duration::from_millis(50 + 10 * round));
        id.give_back();
        let top = making.join().unwrap();
        let m = mark(&c, &fleet, 0).unwrap();
        assert!(
            top > 0 && m >= top,
            "round {round}: mark {m} below a UUID at {top}"
        );
    }
}

/// Short holders one after another, each making one `draft-v8-32` UUID (whole seconds:
/// each leaves its mark at its second's last millisecond): each waits for the clock to
/// pass the last one's mark rather than start a second ahead of it, so the mark stays
/// within a second or two of the clock however many holders come. Before, it climbed a
/// second a holder, and after enough of them (hours ahead) every claim failed.
#[test]
fn short_holders_one_after_another_keep_the_mark_near_the_clock() {
    let c = EtcdCluster::start(1);
    let l: uuidkit::layout::Layout = "draft-v8-32".parse().unwrap();
    let cfg = config(&c, "short-holders", 1)
        .with_placement(Placement::Draft(l))
        .with_last_millis(4_294_967_295_999);
    for _ in 0..6 {
        let id = Arc::new(LeasedId::claim(&cfg).unwrap());
        assert_eq!(id.status().clock_behind, None);
        let mut g = FleetGenerator::draft(id.clone(), l).unwrap();
        g.try_next().unwrap();
        drop(g);
        id.give_back();
    }
    let now = uuidkit::time::UnixTime::now().millis_since_epoch();
    let m = mark(&c, "short-holders", 0).unwrap();
    assert!(
        m < now + 2_000,
        "the mark is {} ms ahead of the clock",
        m - now
    );
}

/// A fleet whose IDs have been used by many hosts keeps a mark for each (marks outlive
/// their holders): 80,000 of them, more than one gRPC message of 4 MiB holds, are read a
/// page at a time, and a claim still succeeds. Before, every claim of the fleet failed
/// for good ("decoded message length too large").
#[test]
fn a_fleet_with_more_marks_than_one_message_holds_is_still_claimable() {
    let c = EtcdCluster::start(1);
    let old = uuidkit::time::UnixTime::now().millis_since_epoch() - 3_600_000;
    let pairs: Vec<(Vec<u8>, Vec<u8>)> = (1..=80_000u64)
        .map(|n| {
            (
                format!("/uuidkit/many/machine-id/{n}/mark").into_bytes(),
                old.to_string().into_bytes(),
            )
        })
        .collect();
    c.put_many(0, &pairs).unwrap();
    let id = LeasedId::claim(&config(&c, "many", 17)).unwrap();
    assert_eq!(id.machine_id().value(), 0);
    let next = LeasedId::claim(&config(&c, "many", 17)).unwrap();
    assert_eq!(next.machine_id().value(), 1);
    assert!(next.floor_ms() > old);
}

/// The same with the mark already more than 2 s ahead (a holder whose clock ran fast, a
/// burst): each claim waits 2 s for its clock, so the gap closes, however the holders
/// follow one another. Before, each short holder ran ahead from the mark and left it a
/// second further ahead.
#[test]
fn short_holders_close_a_gap_larger_than_the_wait() {
    let c = EtcdCluster::start(1);
    let l: uuidkit::layout::Layout = "draft-v8-32".parse().unwrap();
    let cfg = config(&c, "short-gap", 1)
        .with_placement(Placement::Draft(l))
        .with_last_millis(4_294_967_295_999);
    let id = LeasedId::claim(&cfg).unwrap();
    id.release();
    let ahead = uuidkit::time::UnixTime::now().millis_since_epoch() + 3_500;
    c.put(
        0,
        b"/uuidkit/short-gap/machine-id/0/mark",
        ahead.to_string().as_bytes(),
    )
    .unwrap();
    let gap = || {
        let now = uuidkit::time::UnixTime::now().millis_since_epoch();
        mark(&c, "short-gap", 0).unwrap() as i64 - now as i64
    };
    let mut gaps = Vec::new();
    for _ in 0..4 {
        let id = Arc::new(LeasedId::claim(&cfg).unwrap());
        let mut g = FleetGenerator::draft(id.clone(), l).unwrap();
        g.try_next().unwrap();
        drop(g);
        id.give_back();
        gaps.push(gap());
    }
    assert!(gaps[3] < 2_000, "the gap did not close: {gaps:?} ms");
}
