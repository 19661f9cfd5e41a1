//! `Unavailable`: files and directories that cannot be used; missing ones are created.

use super::*;

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

/// The state file's path is a directory: not a state file, and left as it is (no lock
/// file beside it either).
#[test]
fn unavailable_when_the_state_file_is_a_directory() {
    let dir = TempDir::new("isdir");
    fs::create_dir(dir.state()).unwrap();
    let w = unavailable(StateStore::open(dir.state()).lease(&req(GeneratorKind::V7, 0, 0, 1)));
    assert!(
        w.to_string().contains("is a directory, not a regular file"),
        "{w}"
    );
    assert!(matches!(
        w.problem(),
        Problem::NotRegular {
            what: "a directory",
            ..
        }
    ));
    assert!(!dir.0.join("state.lock").exists());
    match read_state(&dir.state()) {
        Err(StoreError::Unavailable(w)) => {
            assert!(matches!(w.problem(), Problem::NotRegular { .. }), "{w}")
        }
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
