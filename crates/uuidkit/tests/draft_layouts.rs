//! The layouts beyond RFC 9562: round trips for every one, hand-computed vectors (the
//! expected strings were worked out by hand from the 2021 draft's figures, with Python
//! integers as the calculator), the draft's own fraction example, and the precision a
//! draft v7 decodes to.

use proptest::prelude::*;
use uuidkit::layout::draft::{self, Precision, V7Fields, V8Fields, V8Timestamp};
use uuidkit::layout::{Layout, LayoutError, decode_as};
use uuidkit::time::UnixTime;
use uuidkit::{Uuid, Version, uuid};

/// 2022-02-22T19:22:22Z, the instant of RFC 9562's vectors.
const S: u64 = 1_645_557_742;

const PRECISIONS: [Precision; 3] = [Precision::Millis, Precision::Micros, Precision::Nanos];
const V8_KINDS: [V8Timestamp; 4] = [
    V8Timestamp::Secs32,
    V8Timestamp::Millis48,
    V8Timestamp::Gregorian60,
    V8Timestamp::Nanos64,
];

#[test]
fn draft_v7_vectors() {
    let cases = [
        // 123 ms: fraction ceil(123 × 4096 / 1000) = 504 = 0x1f8 in subsec_a, seq 5 in
        // subsec_b, 62 random bits all ones.
        (
            Precision::Millis,
            123,
            5,
            0x3FFF_FFFF_FFFF_FFFF,
            "0621537e-e1f8-8005-bfff-ffffffffffff",
        ),
        // 123456 µs: fraction ceil(123456 × 2^24 / 10^6) = 2071248 = 0x1f9_ad0 across
        // subsec_a and subsec_b; seq 7 in the next 14 bits; 48 random bits.
        (
            Precision::Micros,
            123_456,
            7,
            0xABCD_EF01_2345,
            "0621537e-e1f9-8ad0-8007-abcdef012345",
        ),
        // 123456789 ns: 38-bit fraction 33935543759, 8-bit seq 0xab, 40 random bits.
        (
            Precision::Nanos,
            123_456_789,
            0xAB,
            0x12_3456_7890,
            "0621537e-e1f9-8add-8dcf-ab1234567890",
        ),
        // 999 ms: ceil(999 × 4.096) = 4092 = 0xffc, the largest fraction a millisecond
        // value needs.
        (
            Precision::Millis,
            999,
            0,
            1,
            "0621537e-effc-8000-8000-000000000001",
        ),
    ];
    for (precision, subsec, sequence, random, text) in cases {
        let f = V7Fields {
            precision,
            unix_seconds: S,
            subsec,
            sequence,
            random,
        };
        let u = draft::encode_v7(&f).unwrap();
        assert_eq!(u.to_string(), text, "{precision:?}");
        assert_eq!(draft::decode_v7(&u, precision).unwrap(), f);
    }
}

#[test]
fn draft_v8_vectors() {
    let cases = [
        // 32-bit seconds in timestamp_32, timestamp_48 zero, seq 0xabc in time_or_seq.
        (
            V8Timestamp::Secs32,
            S,
            0xABC,
            0x2AAA_AAAA_AAAA_AAAA,
            "621537ee-0000-8abc-aaaa-aaaaaaaaaaaa",
        ),
        // 48-bit milliseconds across timestamp_32 and timestamp_48.
        (
            V8Timestamp::Millis48,
            S * 1000 + 123,
            1,
            5,
            "017f22e2-7a2b-8001-8000-000000000005",
        ),
        // 60-bit Gregorian ticks (v1's 0x1EC9414C232AB00 plus 1234567), seq 0x42 in
        // seq_or_node, 54 node bits all ones.
        (
            V8Timestamp::Gregorian60,
            138_648_505_421_234_567,
            0x42,
            0x3F_FFFF_FFFF_FFFF,
            "1ec9414c-2458-8187-90bf-ffffffffffff",
        ),
        // 64-bit nanoseconds 1645557742123456789 stored as its top 60 bits.
        (
            V8Timestamp::Nanos64,
            (S * 1_000_000_000 + 123_456_789) >> 4,
            0xFF,
            1,
            "16d6320c-44a9-8991-bfc0-000000000001",
        ),
    ];
    for (kind, timestamp, sequence, node, text) in cases {
        let f = V8Fields {
            timestamp_kind: kind,
            timestamp,
            sequence,
            node,
        };
        let u = draft::encode_v8(&f).unwrap();
        assert_eq!(u.to_string(), text, "{kind:?}");
        assert_eq!(draft::decode_v8(&u, kind).unwrap(), f);
    }
}

/// The draft's decoding example: the first 16 fraction bits 0101 0101 0101 0101 are
/// 0x5555 / 65536 = 0.3333282 s.
#[test]
fn the_drafts_fraction_example() {
    let u = uuid!("00000000-1555-7555-8000-000000000000");
    let t = draft::decode_v7_time(&u).unwrap();
    assert_eq!(t.fraction38 >> 22, 0x5555);
    assert_eq!(t.subsec(Precision::Millis), 333);
    assert_eq!(t.subsec(Precision::Micros), 333_333);
    // 24 fraction bits 0x555555, then 14 zero bits of subsec_seq_node: 5592405 / 2^24
    // is 0.333333313 s.
    assert_eq!(t.subsec(Precision::Nanos), 333_333_313);
    assert_eq!(t.unix_seconds, 1);
}

#[test]
fn micros_decode_to_the_microsecond_and_nanos_within_the_fraction() {
    let t = UnixTime::new(S as i64, 987_654_321);
    let us = draft::encode_v7(&V7Fields {
        precision: Precision::Micros,
        unix_seconds: S,
        subsec: 987_654,
        sequence: 0,
        random: 1,
    })
    .unwrap();
    let d = decode_as(&us, Layout::DraftV7(Precision::Micros)).unwrap();
    assert_eq!(d.time.unwrap(), UnixTime::new(S as i64, 987_654_000));
    assert_eq!(d.time_rfc3339().unwrap(), "2022-02-22T19:22:22.987654Z");
    assert_eq!(d.timestamp, Some(S as u128 * 1_000_000 + 987_654));

    let ns = draft::encode_v7(&V7Fields {
        precision: Precision::Nanos,
        unix_seconds: S,
        subsec: 987_654_321,
        sequence: 0,
        random: 1,
    })
    .unwrap();
    let raw = draft::decode_v7_time(&ns).unwrap();
    // The 38-bit fraction stands for a time within 2^-38 s (3.6 ps) of the instant ...
    let exact = raw.fraction38 as f64 / (1u64 << 38) as f64;
    assert!((exact - 0.987_654_321).abs() < 1.0 / (1u64 << 38) as f64);
    // ... and reads back as that very nanosecond.
    let d = decode_as(&ns, Layout::DraftV7(Precision::Nanos)).unwrap();
    assert_eq!(d.time.unwrap(), t);
    assert_eq!(d.time_rfc3339().unwrap(), "2022-02-22T19:22:22.987654321Z");
}

/// A reader at a coarser precision than the writer's gets its own unit rounded down, or
/// one below: the draft's "lesser of the two precisions".
#[test]
fn a_coarser_reader_gets_the_time_at_its_precision() {
    for subsec in [0u64, 1, 999_999, 1_000_000, 123_456_789, 999_999_999] {
        let u = draft::encode_v7(&V7Fields {
            precision: Precision::Nanos,
            unix_seconds: S,
            subsec,
            sequence: 0xff,
            random: 1,
        })
        .unwrap();
        let t = draft::decode_v7_time(&u).unwrap();
        for p in [Precision::Millis, Precision::Micros] {
            let unit = 1_000_000_000 / p.units_per_second();
            let got = t.subsec(p);
            let truth = subsec / unit;
            assert!(
                got == truth || got + 1 == truth,
                "{subsec} ns at {p:?}: {got}, expected {truth}"
            );
        }
    }
}

#[test]
fn draft_v7_decodes_from_version_7_and_8_only() {
    let f = V7Fields {
        precision: Precision::Millis,
        unix_seconds: S,
        subsec: 5,
        sequence: 1,
        random: 9,
    };
    let v8 = draft::encode_v7(&f).unwrap();
    assert_eq!(v8.version(), Version::V8);
    let v7 = v8.with_version(Version::V7);
    assert_eq!(draft::decode_v7(&v7, Precision::Millis).unwrap(), f);
    // RFC 9562's v7 reads the draft's 36-bit seconds and 12 fraction bits as 48-bit
    // milliseconds: a time in 2183 instead of 2022.
    assert!(v7.timestamp().unwrap().to_rfc3339().starts_with("2183-"));
    let v4 = v8.with_version(Version::V4);
    assert!(matches!(
        draft::decode_v7(&v4, Precision::Millis),
        Err(LayoutError::WrongVersion { .. })
    ));
    assert!(matches!(
        decode_as(&v7, Layout::B1),
        Err(LayoutError::WrongVersion { .. })
    ));
}

#[test]
fn bad_fields_are_errors_naming_them() {
    let v7 = |subsec, sequence, random| {
        draft::encode_v7(&V7Fields {
            precision: Precision::Millis,
            unix_seconds: S,
            subsec,
            sequence,
            random,
        })
    };
    assert_eq!(
        v7(1000, 0, 1).unwrap_err(),
        LayoutError::FieldTooLarge {
            field: "subsec",
            max: 999,
            value: 1000
        }
    );
    assert!(matches!(
        v7(0, 0x1000, 1),
        Err(LayoutError::FieldTooWide { field: "seq", .. })
    ));
    assert_eq!(
        v7(0, 0, 0).unwrap_err(),
        LayoutError::AllZero { field: "rand" }
    );
    let f = V8Fields {
        timestamp_kind: V8Timestamp::Gregorian60,
        timestamp: 1,
        sequence: 0x100,
        node: 1,
    };
    assert!(matches!(
        draft::encode_v8(&f),
        Err(LayoutError::FieldTooWide {
            field: "seq_or_node",
            bits: 8,
            ..
        })
    ));
    assert_eq!(
        draft::encode_v8(&V8Fields {
            node: 0,
            sequence: 0,
            ..f
        })
        .unwrap_err(),
        LayoutError::AllZero { field: "node" }
    );
    // draft-v8-32 leaves timestamp_48 zero; a UUID with bits there is not one.
    let u = uuid!("621537ee-0001-8abc-aaaa-aaaaaaaaaaaa");
    assert!(matches!(
        draft::decode_v8(&u, V8Timestamp::Secs32),
        Err(LayoutError::NotZero {
            field: "timestamp_48",
            value: 1
        })
    ));
}

#[test]
fn b1_and_b2_are_the_appendix_b_examples() {
    let b1 = uuid!("2489e9ad-2ee2-8e00-8ec9-32d5f69181c0");
    let d = decode_as(&b1, Layout::B1).unwrap();
    assert_eq!(d.time_rfc3339().unwrap(), "2022-02-22T19:22:22.00000000Z");
    assert_eq!(d.timestamp, Some(0x2489E9AD2EE2E00));
    assert_eq!(d.random, 0x0EC932D5F69181C0);
    let b2 = uuid!("5c146b14-3c52-8afd-938a-375d0df1fbf6");
    let d = decode_as(&b2, Layout::B2).unwrap();
    assert_eq!((d.time, d.random_bits), (None, 122));
}

#[test]
fn layout_names_round_trip() {
    for l in Layout::ALL {
        assert_eq!(l.name().parse::<Layout>().unwrap(), l);
    }
    let e = "draft-v9".parse::<Layout>().unwrap_err().to_string();
    assert!(e.contains("draft-v9") && e.contains("draft-v8-64"), "{e}");
}

fn v8_fields() -> impl Strategy<Value = V8Fields> {
    (0..4usize, any::<u64>(), any::<u16>(), any::<u64>()).prop_map(|(k, t, s, n)| {
        let kind = V8_KINDS[k];
        let mask = |bits: u32| (1u64 << bits) - 1;
        V8Fields {
            timestamp_kind: kind,
            timestamp: t & mask(kind.timestamp_bits()),
            sequence: s & mask(kind.sequence_bits()) as u16,
            node: (n & mask(kind.node_bits())).max(1),
        }
    })
}

fn v7_fields() -> impl Strategy<Value = V7Fields> {
    (
        0..3usize,
        any::<u64>(),
        any::<u64>(),
        any::<u16>(),
        any::<u64>(),
    )
        .prop_map(|(p, s, sub, seq, r)| {
            let precision = PRECISIONS[p];
            V7Fields {
                precision,
                unix_seconds: s & ((1 << 36) - 1),
                subsec: sub % precision.units_per_second(),
                sequence: seq & ((1 << precision.sequence_bits()) - 1) as u16,
                random: (r & ((1 << precision.random_bits()) - 1)).max(1),
            }
        })
}

proptest! {
    /// The 64-bit fraction arithmetic against the definition, in 128 bits.
    #[test]
    fn fraction_is_the_smallest_at_or_above(p in 0..3usize, sub in any::<u64>(), frac in any::<u64>()) {
        let p = PRECISIONS[p];
        let (n, u) = (p.fraction_bits(), p.units_per_second() as u128);
        let sub = sub % p.units_per_second();
        prop_assert_eq!(p.fraction(sub) as u128, ((sub as u128) << n).div_ceil(u));
        let frac = frac & ((1 << n) - 1);
        prop_assert_eq!(p.subsec(frac) as u128, (frac as u128 * u) >> n);
        prop_assert_eq!(p.subsec(p.fraction(sub)), sub);
    }

    #[test]
    fn draft_v7_round_trips(f in v7_fields()) {
        let u = draft::encode_v7(&f).unwrap();
        prop_assert_eq!(u.version(), Version::V8);
        prop_assert_eq!(draft::decode_v7(&u, f.precision).unwrap(), f);
        let d = decode_as(&u, Layout::DraftV7(f.precision)).unwrap();
        let nanos = f.subsec * (1_000_000_000 / f.precision.units_per_second());
        prop_assert_eq!(d.time, Some(UnixTime::new(f.unix_seconds as i64, nanos as u32)));
        prop_assert_eq!(d.sequence, Some(f.sequence as u64));
        prop_assert_eq!(d.random, f.random as u128);
    }

    #[test]
    fn draft_v7_orders_like_its_fields(a in v7_fields(), b in v7_fields()) {
        let b = V7Fields { precision: a.precision, ..b };
        let b = V7Fields {
            subsec: b.subsec % a.precision.units_per_second(),
            sequence: b.sequence & ((1 << a.precision.sequence_bits()) - 1) as u16,
            random: (b.random & ((1 << a.precision.random_bits()) - 1)).max(1),
            ..b
        };
        let key = |f: &V7Fields| (f.unix_seconds, f.subsec, f.sequence, f.random);
        let (ua, ub) = (draft::encode_v7(&a).unwrap(), draft::encode_v7(&b).unwrap());
        prop_assert_eq!(key(&a).cmp(&key(&b)), ua.cmp(&ub));
    }

    #[test]
    fn draft_v8_round_trips(f in v8_fields()) {
        let u = draft::encode_v8(&f).unwrap();
        prop_assert_eq!(draft::decode_v8(&u, f.timestamp_kind).unwrap(), f);
        let d = decode_as(&u, Layout::DraftV8(f.timestamp_kind)).unwrap();
        prop_assert_eq!(d.timestamp, Some(f.timestamp as u128));
        prop_assert_eq!(d.sequence, Some(f.sequence as u64));
        prop_assert_eq!(d.random, f.node as u128);
    }

    #[test]
    fn b1_round_trips(t in 0u64..1 << 60, rest in 0u64..1 << 62) {
        use uuidkit::layout::v8;
        let u = v8::encode_time_based(&v8::TimeBasedFields { timestamp: t, rest }).unwrap();
        let d = decode_as(&u, Layout::B1).unwrap();
        prop_assert_eq!(d.timestamp, Some(t as u128));
        prop_assert_eq!(d.random, rest as u128);
        prop_assert_eq!(d.time.unwrap().as_nanos(), t as i128 * 10);
    }

    #[test]
    fn b2_round_trips(name in proptest::collection::vec(any::<u8>(), 0..64)) {
        let u = uuidkit::v8_sha256(&uuidkit::namespace::DNS, &name);
        let d = decode_as(&u, Layout::B2).unwrap();
        let payload = u.as_u128() & !(0xF << 76) & !(0x3 << 62);
        let (high, low) = (payload >> 64, payload & u64::MAX as u128);
        // The 122 bits without version and variant, packed together.
        let packed = (high >> 16) << 74 | (high & 0xfff) << 62 | low;
        prop_assert_eq!(d.random, packed);
    }

    #[test]
    fn machine_id_is_the_first_random_bits(f in v8_fields(), bits in 1u32..54) {
        let u = draft::encode_v8(&f).unwrap();
        let d = decode_as(&u, Layout::DraftV8(f.timestamp_kind)).unwrap();
        let (id, rest, rest_bits) = d.machine_id(bits).unwrap();
        prop_assert_eq!(rest_bits, f.timestamp_kind.node_bits() - bits);
        prop_assert_eq!(((id as u128) << rest_bits) | rest, f.node as u128);
    }
}

#[test]
fn any_uuid_of_another_version_is_an_error_not_a_panic() {
    for l in Layout::ALL {
        for u in [Uuid::NIL, Uuid::MAX, uuidkit::v4(), uuidkit::v7()] {
            let r = decode_as(&u, l);
            let draft_v7 = matches!(l, Layout::DraftV7(_));
            if !(draft_v7 && u.version() == Version::V7) {
                assert!(r.is_err(), "{l} read {u}");
            }
        }
    }
}
