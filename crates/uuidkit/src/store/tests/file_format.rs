//! The format: pinned bytes, the default path, and round trips of any state and any bytes.

use super::*;

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

    /// An in-place write killed between writing its padded text and cutting the file
    /// leaves line feeds after the checksum line: the same state.
    #[test]
    fn line_feeds_after_the_checksum_line_are_padding(state in arb_state(), pad in 0usize..300) {
        let mut bytes = format::encode(&state);
        bytes.resize(bytes.len() + pad, b'\n');
        let parsed = format::parse(&bytes);
        prop_assert_eq!(parsed.problem, None);
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
