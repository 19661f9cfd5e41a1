//! The lock: timeouts give `Unavailable`, the lock file is never replaced.

use super::*;

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

/// Two hard links are two names of one file: a lock through one excludes a lock through
/// the other (each name has its own lock file; the file's own lock is shared).
#[cfg(unix)]
#[test]
fn hard_links_share_the_lock() {
    let dir = TempDir::new("hardlock");
    let (real, hard) = (dir.state(), dir.0.join("hard"));
    StateStore::open(&real)
        .lease(&req(GeneratorKind::V7, 0, 0, 1))
        .unwrap();
    fs::hard_link(&real, &hard).unwrap();
    let a = FileStorage::new(&real);
    let b = FileStorage::new(&hard);
    let held = a.lock(Duration::ZERO).unwrap();
    assert!(matches!(
        b.lock(Duration::from_millis(30)),
        Err(Problem::LockTimeout { .. })
    ));
    drop(held);
    drop(b.lock(Duration::ZERO).unwrap());
    // And leases through either name never overlap.
    let (sa, sb) = (StateStore::open(&real), StateStore::open(&hard));
    let mut last = 0;
    for i in 0..20 {
        let store = if i % 2 == 0 { &sa } else { &sb };
        let l = store.lease(&req(GeneratorKind::V7, 0, 0, 10)).unwrap();
        assert!(l.start > last, "{i}: {} after {last}", l.start);
        last = l.end;
    }
}

/// A file with other hard links is written in place (one inode under both names), and
/// a shorter text leaves no tail of the longer one.
#[cfg(unix)]
#[test]
fn a_hard_linked_file_is_written_in_place() {
    use std::os::unix::fs::MetadataExt;
    let dir = TempDir::new("inplace");
    let (real, hard) = (dir.state(), dir.0.join("hard"));
    fs::write(&real, "x").unwrap();
    fs::hard_link(&real, &hard).unwrap();
    let ino = fs::metadata(&real).unwrap().ino();
    let s = FileStorage::new(&hard);
    for text in [
        &b"a longer text\n"[..],
        b"short\n",
        b"",
        b"again a longer one\n",
    ] {
        let guard = s.lock(Duration::ZERO).unwrap();
        s.write(text, true).unwrap();
        assert_eq!(s.read(1024).unwrap().as_deref(), Some(text));
        drop(guard);
        assert_eq!(fs::read(&real).unwrap(), text);
        assert_eq!(fs::metadata(&real).unwrap().ino(), ino);
    }
    // With the other name gone, writes are renames again.
    fs::remove_file(&real).unwrap();
    let guard = s.lock(Duration::ZERO).unwrap();
    s.write(b"renamed\n", false).unwrap();
    drop(guard);
    assert_ne!(fs::metadata(&hard).unwrap().ino(), ino);
    assert_eq!(fs::read(&hard).unwrap(), b"renamed\n");
}

/// A lock that waits on the state file while something renames another file over its
/// name locks the new file, not the one no name leads to any more.
#[cfg(unix)]
#[test]
fn a_lock_that_waited_on_a_replaced_file_locks_the_new_one() {
    let dir = TempDir::new("replaced");
    let (real, hard) = (dir.state(), dir.0.join("hard"));
    fs::write(&real, "old\n").unwrap();
    fs::hard_link(&real, &hard).unwrap();
    let holder = FileStorage::new(&hard);
    let held = holder.lock(Duration::ZERO).unwrap();
    let waiter = std::thread::spawn({
        let real = real.clone();
        move || {
            let s = FileStorage::new(&real);
            let _g = s.lock(Duration::from_secs(10)).unwrap();
            s.read(1024).unwrap()
        }
    });
    // Give the waiter time to open the old file and wait on it (if it has not yet, it
    // simply opens the new one: the outcome is the same).
    std::thread::sleep(Duration::from_millis(100));
    fs::write(dir.0.join("new"), "new\n").unwrap();
    fs::rename(dir.0.join("new"), &real).unwrap();
    drop(held);
    assert_eq!(waiter.join().unwrap().as_deref(), Some(&b"new\n"[..]));
}

/// Generators hold the store in an `Arc` shared by threads.
#[test]
fn state_store_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<StateStore>();
    check::<MemoryStorage>();
    check::<FileStorage>();
}
