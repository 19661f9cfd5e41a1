//! decode(encode(fields)) == fields for every layout, and what each layout must leave
//! alone, over arbitrary field values (proptest).

use proptest::prelude::*;
use uuidkit::layout::{self, ClockSequence, GregorianFields, v2::Domain};
use uuidkit::time::GregorianTimestamp;
use uuidkit::{NodeId, Uuid, Variant, Version};

fn gregorian() -> impl Strategy<Value = GregorianFields> {
    (0u64..1 << 60, 0u16..=0x3fff, 0u64..1 << 48).prop_map(|(t, c, n)| GregorianFields {
        timestamp: GregorianTimestamp::from_ticks(t).unwrap(),
        clock_seq: ClockSequence::new(c).unwrap(),
        node: NodeId::from_u64(n).unwrap(),
    })
}

fn is(u: &Uuid, v: Version) -> bool {
    u.version() == v && u.variant() == Variant::Rfc9562
}

proptest! {
    #[test]
    fn v1_round_trips(f in gregorian()) {
        let u = layout::v1::encode(&f);
        prop_assert!(is(&u, Version::V1));
        prop_assert_eq!(layout::v1::decode(&u).unwrap(), f);
        prop_assert!(layout::v6::decode(&u).is_err());
    }

    #[test]
    fn v6_round_trips_and_sorts_by_time(a in gregorian(), b in gregorian()) {
        let (ua, ub) = (layout::v6::encode(&a), layout::v6::encode(&b));
        prop_assert!(is(&ua, Version::V6));
        prop_assert_eq!(layout::v6::decode(&ua).unwrap(), a);
        prop_assert_eq!(layout::v6::to_v1(&ua).unwrap(), layout::v1::encode(&a));
        prop_assert_eq!(layout::v6::from_v1(&layout::v1::encode(&a)).unwrap(), ua);
        let key = |f: &GregorianFields| (f.timestamp, f.clock_seq, f.node);
        prop_assert_eq!(ua.cmp(&ub), key(&a).cmp(&key(&b)));
    }

    #[test]
    fn v2_round_trips(local_id in any::<u32>(), domain in any::<u8>(), t in 0u64..1 << 28,
                      cs in 0u8..64, n in 0u64..1 << 48) {
        let f = layout::v2::Fields {
            local_id,
            domain: Domain::from_byte(domain),
            timestamp: GregorianTimestamp::from_ticks(t << 32).unwrap(),
            clock_seq: cs,
            node: NodeId::from_u64(n).unwrap(),
        };
        let u = layout::v2::encode(&f).unwrap();
        prop_assert!(is(&u, Version::V2));
        prop_assert_eq!(layout::v2::decode(&u).unwrap(), f);
    }

    #[test]
    fn v3_v4_v5_keep_122_bits(bytes in any::<[u8; 16]>(), name in any::<Vec<u8>>()) {
        let u = layout::v4::encode(bytes);
        prop_assert!(is(&u, Version::V4));
        let kept = layout::v4::decode(&u).unwrap();
        let mut masked = bytes;
        masked[6] &= 0x0f;
        masked[8] &= 0x3f;
        prop_assert_eq!(kept, masked);
        let ns = Uuid::from_bytes(bytes);
        prop_assert!(is(&uuidkit::v3(&ns, &name), Version::V3));
        prop_assert!(is(&uuidkit::v5(&ns, &name), Version::V5));
        prop_assert!(is(&uuidkit::v8_sha256(&ns, &name), Version::V8));
        prop_assert!(layout::v3::decode(&uuidkit::v3(&ns, &name)).is_ok());
        prop_assert!(layout::v5::decode(&uuidkit::v5(&ns, &name)).is_ok());
    }

    #[test]
    fn v7_round_trips(ms in 0u64..1 << 48, a in 0u16..1 << 12, b in 0u64..1 << 62) {
        let f = layout::v7::Fields { unix_ts_ms: ms, rand_a: a, rand_b: b };
        let u = layout::v7::encode(&f).unwrap();
        prop_assert!(is(&u, Version::V7));
        prop_assert_eq!(layout::v7::decode(&u).unwrap(), f);
        prop_assert_eq!(u.timestamp().unwrap().raw(), ms);
    }

    #[test]
    fn v8_round_trips(a in 0u64..1 << 48, b in 0u16..1 << 12, c in 0u64..1 << 62, t in 0u64..1 << 60) {
        let f = layout::v8::Fields { custom_a: a, custom_b: b, custom_c: c };
        let u = layout::v8::encode(&f).unwrap();
        prop_assert!(is(&u, Version::V8));
        prop_assert_eq!(layout::v8::decode(&u).unwrap(), f);
        let tb = layout::v8::TimeBasedFields { timestamp: t, rest: c };
        prop_assert_eq!(layout::v8::decode_time_based(&layout::v8::encode_time_based(&tb).unwrap()).unwrap(), tb);
    }

    #[test]
    fn fields_too_wide_are_errors(ms in 1u64 << 48.., b in 1u64 << 62..) {
        let f = layout::v7::Fields { unix_ts_ms: ms, rand_a: 0, rand_b: 0 };
        let is_too_wide = |r: Result<Uuid, layout::LayoutError>, name: &str| matches!(
            r, Err(layout::LayoutError::FieldTooWide { field, .. }) if field == name);
        prop_assert!(is_too_wide(layout::v7::encode(&f), "unix_ts_ms"));
        let f = layout::v7::Fields { unix_ts_ms: 0, rand_a: 0, rand_b: b };
        prop_assert!(is_too_wide(layout::v7::encode(&f), "rand_b"));
    }

    #[test]
    fn microsoft_order_and_u128_round_trip(bytes in any::<[u8; 16]>()) {
        let u = Uuid::from_bytes(bytes);
        prop_assert_eq!(Uuid::from_bytes_le(u.to_bytes_le()), u);
        prop_assert_eq!(Uuid::from_u128(u.as_u128()), u);
        let (h, l) = u.as_u64_pair();
        prop_assert_eq!(Uuid::from_u64_pair(h, l), u);
    }
}

#[test]
fn decoders_refuse_other_versions() {
    let v4 = uuidkit::uuid!("919108f7-52d1-4320-9bac-f847db4148a8");
    let e = layout::v7::decode(&v4).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected an RFC 9562 version 7 UUID, found version 4 of the rfc9562 variant"
    );
    assert!(layout::v1::decode(&Uuid::NIL).is_err());
}
