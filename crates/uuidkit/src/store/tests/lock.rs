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

/// Generators hold the store in an `Arc` shared by threads.
#[test]
fn state_store_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<StateStore>();
    check::<MemoryStorage>();
    check::<FileStorage>();
}
