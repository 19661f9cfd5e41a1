//! Damaged files repaired with a warning naming the fault; a newer format refused and left as it was.

use super::*;

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
