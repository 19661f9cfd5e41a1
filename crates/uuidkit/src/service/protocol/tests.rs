//! The wire format against docs/protocol.md, and its refusals.

use super::report::STATUS_FIXED;
use super::*;
use crate::layout::ClockSequence;
use crate::node::NodeId;
use crate::store::{GeneratorKind, Lease, LeaseRequest};

fn roundtrip(r: &Request) -> Request {
    let b = r.encode();
    let h = Header::decode(b[..HEADER_LEN].try_into().unwrap()).unwrap();
    assert_eq!(h.len as usize, b.len() - HEADER_LEN);
    Request::decode(h.code, &b[HEADER_LEN..]).unwrap()
}

#[test]
fn lease_requests_round_trip() {
    let node = NodeId::from_bytes([1, 2, 3, 4, 5, 6]);
    let mut req = LeaseRequest::new(GeneratorKind::Gregorian(node), 10, 11, 12);
    req.max_start = Some(99);
    req.clock_seq = ClockSequence::new(0x3fff);
    req.fresh_clock_seq = ClockSequence::from_masked(7);
    let w = req;
    assert_eq!(roundtrip(&Request::Lease(w)), Request::Lease(w));
    let w = LeaseRequest::new(GeneratorKind::V8, 0, 0, 1);
    assert_eq!(roundtrip(&Request::Lease(w)), Request::Lease(w));
}

/// The lead fields round-trip; a body without them (a daemon built before them) still
/// reads, with none; a `LATER` reply carries its wait.
#[test]
fn status_leads_round_trip_and_are_optional() {
    let node = NodeId::from_bytes([2, 0, 0x5e, 0, 0, 9]);
    let s = StatusReport {
        version: "0.1.0".into(),
        state: "/s".into(),
        lead_bound_ns: 10_000_000_000,
        leads: vec![
            KindLead {
                kind: GeneratorKind::V7,
                lead_ns: 12_000_000,
            },
            KindLead {
                kind: GeneratorKind::Gregorian(node),
                lead_ns: -5,
            },
        ],
        ..Default::default()
    };
    let body = s.encode_body();
    assert_eq!(StatusReport::decode(&body).unwrap(), s);
    let old = &body[..STATUS_FIXED + 2 + 5 + 2 + 2];
    let r = StatusReport::decode(old).unwrap();
    assert_eq!(
        (r.lead_bound_ns, r.leads.len(), r.state.as_str()),
        (0, 0, "/s")
    );
    assert!(StatusReport::decode(&body[..body.len() - 2]).is_err());
    let later = Reply::Later { wait_ms: 1500 }.encode();
    assert_eq!(later[5], status::LATER);
    assert_eq!(
        Reply::decode(&Request::Status, later[5], &later[HEADER_LEN..]),
        Ok(Reply::Later { wait_ms: 1500 })
    );
}

#[test]
fn draft_layout_kinds_round_trip_and_others_are_unknown() {
    for l in crate::layout::Layout::ALL {
        let kind = GeneratorKind::Draft(l);
        let w = LeaseRequest::new(kind, 0, 5, 1);
        if crate::layout::draft::Units::of(l).is_some() {
            assert_eq!(roundtrip(&Request::Lease(w)), Request::Lease(w), "{l}");
        }
    }
    // 16 and 17 would be b1 and b2, which have no entries of their own; 25 and up
    // are no layout.
    let w = LeaseRequest::new(GeneratorKind::V7, 0, 0, 1);
    for found in [16, 17, 25, 31] {
        let mut b = w.encode_body();
        b[0] = found;
        assert_eq!(
            Request::decode(op::LEASE, &b),
            Err(ProtocolError::UnknownKind { found })
        );
    }
}

/// The codes docs/protocol.md gives the draft layouts.
#[test]
fn draft_kind_codes_are_the_documented_ones() {
    let documented = [
        (18, "draft-v7-ms"),
        (19, "draft-v7-us"),
        (20, "draft-v7-ns"),
        (21, "draft-v8-32"),
        (22, "draft-v8-48"),
        (23, "draft-v8-60"),
        (24, "draft-v8-64"),
    ];
    for (code, name) in documented {
        let kind = GeneratorKind::Draft(name.parse().unwrap());
        let w = LeaseRequest::new(kind, 0, 0, 1);
        let b = w.encode_body();
        assert_eq!(b[0], code, "{name}");
        assert_eq!(
            Request::decode(op::LEASE, &b),
            Ok(Request::Lease(w)),
            "{name}"
        );
    }
    // Every layout with a state entry has a code.
    for l in crate::layout::Layout::ALL {
        assert_eq!(
            kind::of_draft(l).is_some(),
            crate::layout::draft::Units::of(l).is_some(),
            "{l}"
        );
    }
}

#[test]
fn bad_lease_fields_are_named() {
    let w = LeaseRequest::new(GeneratorKind::V7, 0, 0, 1);
    let body = w.encode_body();
    let mut b = body;
    b[0] = 6;
    assert_eq!(
        Request::decode(op::LEASE, &b),
        Err(ProtocolError::UnknownKind { found: 6 })
    );
    let mut b = body;
    b[48..64].copy_from_slice(&(1001u128 << 42).to_be_bytes());
    assert!(matches!(
        Request::decode(op::LEASE, &b),
        Err(ProtocolError::TooLarge { field: "len", .. })
    ));
    let mut b = body;
    b[32..48].copy_from_slice(&u128::MAX.to_be_bytes());
    assert!(matches!(
        Request::decode(op::LEASE, &b),
        Err(ProtocolError::TooLarge { field: "from", .. })
    ));
    let mut b = body;
    b[1] = 0x80;
    assert!(matches!(
        Request::decode(op::LEASE, &b),
        Err(ProtocolError::Malformed { field: "flags", .. })
    ));
    assert!(matches!(
        Request::decode(op::LEASE, &body[..79]),
        Err(ProtocolError::Malformed {
            field: "length",
            ..
        })
    ));
}

#[test]
fn lease_replies_are_checked_against_the_request() {
    let r = LeaseRequest::new(GeneratorKind::V7, 0, 100, 10);
    let req = Request::Lease(r);
    let ok = |start, end| {
        let b = Reply::Lease(Lease {
            start,
            end,
            clock_seq: None,
            warning: None,
            machine_id: None,
        })
        .encode();
        Reply::decode(&req, b[5], &b[HEADER_LEN..])
    };
    assert!(ok(100, 109).is_ok());
    assert!(ok(200, 209).is_ok());
    assert!(ok(99, 108).is_err());
    assert!(ok(100, 110).is_err());
    assert!(ok(110, 100).is_err());
}

/// The example in docs/protocol.md, byte for byte.
#[test]
fn documented_example() {
    let c = 1_704_067_200_000u128 << 42;
    let req = Request::Lease(LeaseRequest::new(GeneratorKind::V7, c, c, 4096));
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let b = req.encode();
    assert_eq!(hex(&b[..12]), "75756b640101000000000050");
    assert_eq!(hex(&b[12..28]), "07000000000000000000000000000000");
    assert_eq!(hex(&b[28..44]), "000000000006330947d0000000000000");
    assert_eq!(hex(&b[60..76]), "00000000000000000000000000001000");
    let reply = Reply::Lease(Lease {
        start: c,
        end: c + 4095,
        clock_seq: None,
        warning: None,
        machine_id: None,
    })
    .encode();
    assert_eq!(hex(&reply[..12]), "75756b640100000000000028");
    assert_eq!(hex(&reply[28..44]), "000000000006330947d0000000000fff");
    assert_eq!(hex(&reply[44..]), "ffff000000000000");
}

#[test]
fn any_bytes_decode_without_panic() {
    let mut seed = 0x1234_5678_u64;
    for n in 0..2000 {
        let mut b = vec![0u8; n % 120];
        for x in &mut b {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            *x = seed as u8;
        }
        for code in 0..=255u8 {
            let _ = Request::decode(code, &b);
            let _ = Reply::decode(&Request::Status, code, &b);
            let _ = Reply::decode(&Request::Random { count: 2 }, code, &b);
        }
    }
}

/// Fleet mode: a lease reply carries the machine ID in 8 appended bytes (a reply without
/// them still reads, with none; a bad width or reserved byte is refused); `FENCED` is
/// not fatal and carries its text; the status report's fleet fields round-trip, and a
/// body ending after the leads (a daemon before fleet mode) reads as no fleet.
#[test]
fn fleet_fields_round_trip_and_are_optional() {
    use crate::node::machine_id::MachineId;
    let r = LeaseRequest::new(GeneratorKind::V7, 0, 100, 10);
    let req = Request::Lease(r);
    let lease = Lease {
        start: 100,
        end: 109,
        clock_seq: None,
        warning: None,
        machine_id: Some(MachineId::new(5, 3).unwrap()),
    };
    let b = Reply::Lease(lease.clone()).encode();
    assert_eq!(b.len(), HEADER_LEN + LEASE_REPLY_WITH_ID_LEN);
    assert_eq!(&b[HEADER_LEN + 40..], &[0, 0, 0, 5, 3, 0, 0, 0]);
    assert_eq!(
        Reply::decode(&req, b[5], &b[HEADER_LEN..]),
        Ok(Reply::Lease(lease.clone()))
    );
    for (i, v) in [(44, 0u8), (44, 32), (43, 8), (45, 1)] {
        let mut bad = b[HEADER_LEN..].to_vec();
        bad[i] = v;
        assert!(Reply::decode(&req, b[5], &bad).is_err(), "byte {i} = {v}");
    }
    let fenced = Reply::Fenced("machine ID 1: fenced".into()).encode();
    assert_eq!(fenced[5], status::FENCED);
    const { assert!(status::FENCED < status::FIRST_FATAL) };
    assert_eq!(
        Reply::decode(&req, fenced[5], &fenced[HEADER_LEN..]),
        Ok(Reply::Fenced("machine ID 1: fenced".into()))
    );

    for fleet in [
        None,
        Some(FleetReport {
            fleet: "web".into(),
            bits: 3,
            id: Some(5),
            remaining_ms: Some(9_500),
            mark_ms: 1_700_000_000_000,
        }),
        Some(FleetReport {
            fleet: "web".into(),
            bits: 3,
            id: None,
            remaining_ms: None,
            mark_ms: 0,
        }),
    ] {
        let s = StatusReport {
            version: "0.2.0".into(),
            state: "/s".into(),
            leads: vec![KindLead {
                kind: GeneratorKind::V7,
                lead_ns: 1,
            }],
            fleet,
            ..Default::default()
        };
        let body = s.encode_body();
        assert_eq!(StatusReport::decode(&body).unwrap(), s);
        let before_fleet = &body[..STATUS_FIXED + 2 + 5 + 2 + 2 + 10 + 15];
        assert_eq!(StatusReport::decode(before_fleet).unwrap().fleet, None);
        if s.fleet.is_some() {
            assert!(StatusReport::decode(&body[..body.len() - 1]).is_err());
        }
    }
}
