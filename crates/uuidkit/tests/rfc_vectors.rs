//! RFC 9562 Appendix A (test vectors) and Appendix B (illustrative examples), one test a
//! section, through the layouts, the name-based functions, parsing and the decoders.
//! The values are copied from the RFC text so the tests need nothing outside the repo.

use uuidkit::layout::{self, ClockSequence, GregorianFields};
use uuidkit::time::{GregorianTimestamp, UnixTime};
use uuidkit::{NodeId, Uuid, Variant, Version, namespace, uuid};

/// "Tuesday, February 22, 2022 2:22:22.000000 PM GMT-05:00", the instant of every
/// time-based vector.
fn vector_instant() -> UnixTime {
    UnixTime::parse_rfc3339("2022-02-22T14:22:22-05:00").unwrap()
}

fn gregorian_fields() -> GregorianFields {
    GregorianFields {
        timestamp: GregorianTimestamp::from_unix(vector_instant()).unwrap(),
        clock_seq: ClockSequence::new(0x33C8).unwrap(),
        node: NodeId::from_u64(0x9F6BDECED846).unwrap(),
    }
}

#[test]
fn appendix_a_timestamp_pseudocode() {
    let t = vector_instant();
    assert_eq!(t.as_nanos(), 0x16D6320C3D4DCC00);
    let g = GregorianTimestamp::from_unix(t).unwrap();
    assert_eq!(g.ticks(), 0x1EC9414C232AB00);
    assert_eq!(g.ticks(), 138_648_505_420_000_000);
    assert_eq!(uuidkit::time::GREGORIAN_UNIX_OFFSET, 0x01b21dd213814000);
}

#[test]
fn a1_uuidv1() {
    let want = uuid!("C232AB00-9414-11EC-B3C8-9F6BDECED846");
    let u = layout::v1::encode(&gregorian_fields());
    assert_eq!(u, want);
    assert_eq!(u.to_string(), "c232ab00-9414-11ec-b3c8-9f6bdeced846");
    assert_eq!(u.as_fields().0, 0xC232AB00, "time_low");
    assert_eq!(u.as_fields().1, 0x9414, "time_mid");
    assert_eq!(u.as_fields().2 & 0x0fff, 0x1EC, "time_high");
    assert_eq!((u.version(), u.variant()), (Version::V1, Variant::Rfc9562));
    assert_eq!(layout::v1::decode(&u).unwrap(), gregorian_fields());
    assert_eq!(u.timestamp().unwrap().raw(), 0x1EC9414C232AB00);
    assert_eq!(u.timestamp().unwrap().to_unix(), vector_instant());
    assert_eq!(u.clock_seq(), Some(0x33C8));
    assert_eq!(u.node().unwrap().as_u64(), 0x9F6BDECED846);
    assert!(
        u.node().unwrap().is_multicast(),
        "0x9E.. was changed to 0x9F.. (§6.10)"
    );
}

#[test]
fn a2_uuidv3() {
    let u = uuidkit::v3(&namespace::DNS, b"www.example.com");
    assert_eq!(u, uuid!("5df41881-3aed-3515-88a7-2f4a814cf09e"));
    assert_eq!(
        namespace::DNS,
        uuid!("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
    );
    // Figure 19: the MD5 with version and variant overwritten.
    let md5 = 0x5df418813aed051548a72f4a814cf09eu128;
    assert_eq!(Uuid::from_u128(md5).with_version(Version::V3), u);
    assert_eq!(u.hash_algorithm(), Some(layout::HashAlgorithm::Md5));
}

#[test]
fn a3_uuidv4() {
    let random = 0x919108F752D133205BACF847DB4148A8u128.to_be_bytes();
    let u = layout::v4::encode(random);
    assert_eq!(u, uuid!("919108f7-52d1-4320-9bac-f847db4148a8"));
    assert_eq!((u.version(), u.variant()), (Version::V4, Variant::Rfc9562));
}

#[test]
fn a4_uuidv5() {
    let u = uuidkit::v5(&namespace::DNS, b"www.example.com");
    assert_eq!(u, uuid!("2ed6657d-e927-568b-95e1-2665a8aea6a2"));
    let sha1_first_128 = 0x2ed6657de927468b55e12665a8aea6a2u128;
    assert_eq!(Uuid::from_u128(sha1_first_128).with_version(Version::V5), u);
    assert_eq!(u.hash_algorithm(), Some(layout::HashAlgorithm::Sha1));
}

#[test]
fn a5_uuidv6() {
    let want = uuid!("1EC9414C-232A-6B00-B3C8-9F6BDECED846");
    let u = layout::v6::encode(&gregorian_fields());
    assert_eq!(u, want);
    assert_eq!(layout::v6::decode(&u).unwrap(), gregorian_fields());
    assert_eq!(u.timestamp().unwrap().raw(), 0x1EC9414C232AB00);
    assert_eq!(u.clock_seq(), Some(0x33C8));
    // v1 and v6 of Appendix A carry the same fields, so each converts to the other.
    let v1 = uuid!("C232AB00-9414-11EC-B3C8-9F6BDECED846");
    assert_eq!(layout::v6::from_v1(&v1).unwrap(), u);
    assert_eq!(layout::v6::to_v1(&u).unwrap(), v1);
}

#[test]
fn a6_uuidv7() {
    let f = layout::v7::Fields {
        unix_ts_ms: 0x017F22E279B0,
        rand_a: 0xCC3,
        rand_b: (0b01 << 60) | 0x8C4DC0C0C07398F,
    };
    let u = layout::v7::encode(&f).unwrap();
    assert_eq!(u, uuid!("017F22E2-79B0-7CC3-98C4-DC0C0C07398F"));
    assert_eq!(layout::v7::decode(&u).unwrap(), f);
    assert_eq!(u.timestamp().unwrap().raw(), 1_645_557_742_000);
    assert_eq!(u.timestamp().unwrap().to_unix(), vector_instant());
    assert_eq!(
        uuidkit::time::unix_millis_48(vector_instant()).unwrap(),
        0x017F22E279B0
    );
}

#[test]
fn b1_uuidv8_time_based() {
    let steps = uuidkit::time::unix_10ns_60(vector_instant()).unwrap();
    assert_eq!(steps, 0x2489E9AD2EE2E00);
    assert_eq!(steps, 164_555_774_200_000_000);
    let f = layout::v8::TimeBasedFields {
        timestamp: steps,
        rest: 0xEC932D5F69181C0,
    };
    let u = layout::v8::encode_time_based(&f).unwrap();
    assert_eq!(u, uuid!("2489E9AD-2EE2-8E00-8EC9-32D5F69181C0"));
    assert_eq!(layout::v8::decode_time_based(&u).unwrap(), f);
    let raw = layout::v8::decode(&u).unwrap();
    assert_eq!(
        (raw.custom_a, raw.custom_b, raw.custom_c),
        (0x2489E9AD2EE2, 0xE00, 0xEC932D5F69181C0)
    );
}

#[test]
fn b2_uuidv8_name_based() {
    let u = uuidkit::v8_sha256(&namespace::DNS, b"www.example.com");
    assert_eq!(u, uuid!("5c146b14-3c52-8afd-938a-375d0df1fbf6"));
    let sha256_first_128 = 0x5c146b143c524afd938a375d0df1fbf6u128;
    assert_eq!(
        Uuid::from_u128(sha256_first_128).with_version(Version::V8),
        u
    );
    let raw = layout::v8::decode(&u).unwrap();
    assert_eq!(
        (raw.custom_a, raw.custom_b, raw.custom_c),
        (0x5c146b143c52, 0xafd, (0b01 << 60) | 0x38a375d0df1fbf6)
    );
}

#[test]
fn nil_and_max_section_5_9_and_5_10() {
    assert_eq!(Uuid::NIL, uuid!("00000000-0000-0000-0000-000000000000"));
    assert_eq!(Uuid::MAX, uuid!("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"));
    assert_eq!(Uuid::NIL.rfc_version(), None);
    assert_eq!(Uuid::MAX.rfc_version(), None);
}

#[test]
fn namespaces_section_6_6() {
    assert_eq!(
        namespace::URL,
        uuid!("6ba7b811-9dad-11d1-80b4-00c04fd430c8")
    );
    assert_eq!(
        namespace::OID,
        uuid!("6ba7b812-9dad-11d1-80b4-00c04fd430c8")
    );
    assert_eq!(
        namespace::X500,
        uuid!("6ba7b814-9dad-11d1-80b4-00c04fd430c8")
    );
}
