//! One state file, one identity: processes that reach the same file by different names —
//! a symbolic link, paths through `..` and other directories, relative paths from
//! different working directories — share its lock and its state, and the link stays a
//! link; hard links share the file itself, which stays one file; a path that leads to a
//! device or a FIFO is never read, written or replaced.

use crate::state_common;

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;
use std::thread;

use state_common::{TempDir, gen_cmd, spawn, stderr, uuids};
use uuidkit::Uuid;

const PER_PROCESS: u64 = 200_000;

/// Runs each command side by side, each must succeed with nothing on standard error,
/// and returns every UUID they wrote.
fn side_by_side(mut commands: Vec<Command>) -> Vec<Uuid> {
    let children: Vec<_> = commands.iter_mut().map(spawn).collect();
    let readers: Vec<_> = children
        .into_iter()
        .map(|child| thread::spawn(move || child.wait_with_output().expect("waiting")))
        .collect();
    let mut all = Vec::new();
    for r in readers {
        let out = r.join().expect("reader thread");
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{:?}\n{}",
            out.status,
            stderr(&out)
        );
        all.extend(uuids(&out.stdout));
    }
    all
}

fn assert_distinct(what: &str, all: &[Uuid]) {
    let distinct: HashSet<_> = all.iter().collect();
    assert_eq!(
        distinct.len(),
        all.len(),
        "{what}: {} duplicates among {}",
        all.len() - distinct.len(),
        all.len()
    );
}

#[test]
fn two_processes_through_a_symlink_share_one_state_file() {
    let dir = TempDir::new("names-symlink");
    let real = dir.join("real");
    let alias = dir.join("alias");
    for version in ["v1", "v6"] {
        let _ = std::fs::remove_file(&alias);
        let _ = std::fs::remove_file(&real);
        // The file exists, then gets a second name.
        assert!(gen_cmd(version, 1, &real).status().unwrap().success());
        std::os::unix::fs::symlink("real", &alias).unwrap();
        let all = side_by_side(vec![
            gen_cmd(version, PER_PROCESS, &alias),
            gen_cmd(version, PER_PROCESS, &real),
        ]);
        assert_distinct(version, &all);
        let link = std::fs::symlink_metadata(&alias).unwrap();
        assert!(
            link.file_type().is_symlink(),
            "{version}: the link was replaced"
        );
        assert!(
            !dir.join("alias.lock").exists(),
            "{version}: a second lock file"
        );
    }
}

#[test]
fn two_processes_through_a_hard_link_share_one_state_file() {
    use std::os::unix::fs::MetadataExt;
    let dir = TempDir::new("names-hardlink");
    let real = dir.join("real");
    let hard = dir.join("hard");
    for version in ["v1", "v6", "v7"] {
        let _ = std::fs::remove_file(&hard);
        let _ = std::fs::remove_file(&real);
        assert!(gen_cmd(version, 1, &real).status().unwrap().success());
        std::fs::hard_link(&real, &hard).unwrap();
        let all = side_by_side(vec![
            gen_cmd(version, PER_PROCESS, &hard),
            gen_cmd(version, PER_PROCESS, &real),
        ]);
        assert_distinct(version, &all);
        // Still one file under two names, written in place: not split by a rename.
        let (a, b) = (
            std::fs::metadata(&real).unwrap(),
            std::fs::metadata(&hard).unwrap(),
        );
        assert_eq!(
            (a.ino(), a.nlink()),
            (b.ino(), 2),
            "{version}: the names parted"
        );
        // And a later process on either name continues above both.
        let top = all.iter().max().unwrap();
        if version != "v1" {
            let later = uuids(&gen_cmd(version, 1, &hard).output().unwrap().stdout);
            assert!(later[0] > *top, "{version}: {} after {top}", later[0]);
        }
    }
}

#[test]
fn a_hard_linked_state_file_keeps_order_across_a_clock_ahead() {
    // One process on one name with its clock an hour ahead, then one on the other name
    // with the right clock: the second continues above the first.
    let dir = TempDir::new("names-hardlink-clock");
    let real = dir.join("real");
    let hard = dir.join("hard");
    assert!(gen_cmd("v7", 1, &real).status().unwrap().success());
    std::fs::hard_link(&real, &hard).unwrap();
    let mut ahead = gen_cmd("v7", 1000, &hard);
    state_common::faked(&mut ahead, "+3600");
    let first = uuids(&ahead.output().unwrap().stdout);
    let then = uuids(&gen_cmd("v7", 1000, &real).output().unwrap().stdout);
    assert_eq!((first.len(), then.len()), (1000, 1000));
    assert!(then[0] > *first.last().unwrap(), "went back");
}

#[test]
fn a_link_to_a_link_and_a_dangling_link_lead_to_the_file() {
    let dir = TempDir::new("names-chain");
    std::fs::create_dir(dir.join("d")).unwrap();
    // alias2 -> alias1 -> d/real, which does not exist yet: the first use creates it there.
    std::os::unix::fs::symlink("d/real", dir.join("alias1")).unwrap();
    std::os::unix::fs::symlink("alias1", dir.join("alias2")).unwrap();
    let first = uuids(
        &gen_cmd("v7", 1000, &dir.join("alias2"))
            .output()
            .unwrap()
            .stdout,
    );
    assert!(
        dir.join("d/real").is_file(),
        "the state file is where the links lead"
    );
    assert!(
        std::fs::symlink_metadata(dir.join("alias1"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // Later, by its own name: above everything written through the links.
    let later = uuids(
        &gen_cmd("v7", 1, &dir.join("d/real"))
            .output()
            .unwrap()
            .stdout,
    );
    assert!(later[0] > *first.last().unwrap());
}

#[test]
fn relative_paths_from_different_directories_share_one_state_file() {
    let dir = TempDir::new("names-relative");
    for sub in ["a", "b", "a/deeper"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let from = |cwd: &str, path: &str| {
        let mut c = gen_cmd("v1", PER_PROCESS, Path::new(path));
        c.current_dir(dir.join(cwd));
        c
    };
    let all = side_by_side(vec![
        from("a", "../state"),
        from("b", "../a/../state"),
        from("a/deeper", "../../b/../state"),
    ]);
    assert_distinct("v1", &all);
    assert!(dir.join("state").is_file());
}

/// A path that leads to `what` (made by `make` in a temporary directory): `gen` warns
/// naming it, makes its UUIDs in memory (exit 0), and leaves it as it was.
fn refused(what: &str, make: impl Fn(&Path) -> bool, is_it: impl Fn(&std::fs::FileType) -> bool) {
    let dir = TempDir::new("names-special");
    let path = dir.join("special");
    if !make(&path) {
        eprintln!("skipped: cannot make {what} here (not root?)");
        return;
    }
    let out = gen_cmd("v7", 3, &path).output().unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{what}: {:?}\n{err}", out.status);
    assert_eq!(uuids(&out.stdout).len(), 3, "{what}");
    assert!(
        err.contains(&path.display().to_string()) && err.contains(what),
        "{what}: the warning names the path and what it is: {err}"
    );
    let after = std::fs::symlink_metadata(&path).unwrap();
    assert!(is_it(&after.file_type()), "{what} was replaced");
    assert!(!dir.join("special.tmp").exists());
    assert!(
        !dir.join("special.lock").exists(),
        "{what} got a lock file beside it"
    );
}

/// A FIFO at `p`: whether one could be made.
fn mkfifo(p: &Path) -> bool {
    Command::new("mkfifo")
        .arg(p)
        .status()
        .is_ok_and(|s| s.success())
}

/// A character device of major 1 (memory devices) and `minor` at `p`, in the test's own
/// directory: whether one could be made (it needs root; CI is).
fn mknod_char(p: &Path, minor: &str) -> bool {
    Command::new("mknod")
        .arg(p)
        .args(["c", "1", minor])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn a_fifo_is_refused_and_left_as_it_was() {
    use std::os::unix::fs::FileTypeExt;
    refused("a FIFO", mkfifo, |t| t.is_fifo());
}

#[test]
fn a_character_device_is_refused_and_left_as_it_was() {
    use std::os::unix::fs::FileTypeExt;
    // /dev/zero's numbers (1, 5).
    refused(
        "a character device",
        |p| mknod_char(p, "5"),
        |t| t.is_char_device(),
    );
}

/// Makes a file of some kind at a path; `false` when it cannot (not root).
type Maker = dyn Fn(&Path) -> bool;

/// `gen v7 --state PATH`, ended after a minute should it hang: what it printed.
fn gen_bounded(path: &Path) -> std::process::Output {
    let mut c = Command::new("timeout");
    c.arg("60")
        .arg(assert_cmd::cargo::cargo_bin("uuidkit"))
        .args(["gen", "v7", "-n", "3", "--state"])
        .arg(path)
        .env_remove("UUIDKIT_STATE");
    c.output().unwrap()
}

/// Whatever is at the temporary file's name is removed, never written through, and only
/// a new regular file is renamed over the state file: a FIFO there does not hang `gen`,
/// a device there does not become the state file, a link there does not overwrite the
/// file it points to.
#[test]
fn whatever_is_at_the_temporary_name_is_removed_not_used() {
    use std::os::unix::fs::FileTypeExt;
    let dir = TempDir::new("names-tmp");
    let victim = dir.join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let planted: [(&str, &Maker); 3] = [
        ("a FIFO", &mkfifo),
        ("a character device", &|p| mknod_char(p, "3")),
        ("a link", &|p| {
            std::os::unix::fs::symlink("../victim", p).is_ok()
        }),
    ];
    for (i, (what, make)) in planted.iter().enumerate() {
        let sub = dir.join(&format!("s{i}"));
        std::fs::create_dir(&sub).unwrap();
        let state = sub.join("state");
        for round in 0..2 {
            // Planted before the first write, and again once the file exists.
            if !make(&sub.join("state.tmp")) {
                eprintln!("skipped: cannot make {what} here (not root?)");
                break;
            }
            let out = gen_bounded(&state);
            assert!(
                out.status.success(),
                "{what}, round {round}: {:?}\n{}",
                out.status,
                stderr(&out)
            );
            assert_eq!(uuids(&out.stdout).len(), 3, "{what}");
            let m = std::fs::symlink_metadata(&state).unwrap();
            assert!(
                m.file_type().is_file(),
                "{what}, round {round}: the state file is {m:?}"
            );
            assert!(!m.file_type().is_char_device());
            assert!(
                !sub.join("state.tmp").exists(),
                "{what}: the temporary name is left"
            );
        }
    }
    assert_eq!(
        std::fs::read(&victim).unwrap(),
        b"precious",
        "written through a link"
    );
}

/// A link at the lock file's name is not followed: nothing is created where it points,
/// and `gen` goes on in memory with a warning naming it.
#[test]
fn a_link_at_the_lock_name_is_not_followed() {
    let dir = TempDir::new("names-lock-link");
    std::os::unix::fs::symlink(dir.join("planted"), dir.join("state.lock")).unwrap();
    let out = gen_bounded(&dir.join("state"));
    assert!(out.status.success(), "{:?}\n{}", out.status, stderr(&out));
    assert!(stderr(&out).contains("state.lock"), "{}", stderr(&out));
    assert!(
        !dir.join("planted").exists(),
        "the link's target was created"
    );
}

/// As the kernel's `protected_symlinks`: another user's link in a sticky directory that
/// anyone may write is not followed where the kernel would not follow it (as root: the
/// link is made another user's); where the setting is 0, the kernel follows it, and so
/// does the store.
#[test]
fn another_users_link_in_a_sticky_open_directory_is_not_followed() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("names-sticky");
    let victim = dir.join("victim");
    std::fs::write(&victim, "precious").unwrap();
    let open = dir.join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).unwrap();
    std::os::unix::fs::symlink(&victim, open.join("state")).unwrap();
    let owned = Command::new("chown")
        .args(["-h", "nobody"])
        .arg(open.join("state"))
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !owned {
        eprintln!("skipped: cannot give the link to another user (not root?)");
        return;
    }
    let out = gen_bounded(&open.join("state"));
    assert!(out.status.success(), "{:?}\n{}", out.status, stderr(&out));
    let protected = std::fs::read_to_string("/proc/sys/fs/protected_symlinks")
        .map_or(true, |v| v.trim() != "0");
    if !protected {
        // The kernel follows it here: the link leads to the state file (which holds
        // text of another kind: damage, repaired).
        assert!(
            !stderr(&out).contains("protected_symlinks"),
            "{}",
            stderr(&out)
        );
        assert!(dir.join("victim.lock").exists());
        return;
    }
    assert!(
        stderr(&out).contains("protected_symlinks"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(!dir.join("victim.lock").exists());
}

/// `/dev/fd/N` and `/proc/self/fd/N` stand for an open file, not a place: once a write
/// renamed a new file over the name, the link's text reads `… (deleted)`. Refused with a
/// warning naming why (the run goes on in memory, exit 0), and nothing is created under
/// such a name.
#[test]
fn a_descriptor_link_in_proc_is_refused() {
    let dir = TempDir::new("names-fd");
    let state = dir.join("st");
    assert!(gen_cmd("v6", 1, &state).output().unwrap().status.success());
    let before = std::fs::read(&state).unwrap();
    for name in ["/dev/fd/0", "/proc/self/fd/0"] {
        let mut c = gen_cmd("v6", 3, Path::new(name));
        c.stdin(std::fs::File::open(&state).unwrap());
        let out = c.output().unwrap();
        let err = stderr(&out);
        assert!(out.status.success(), "{name}: {err}");
        assert!(err.contains("descriptor in /proc"), "{name}: {err}");
        assert_eq!(uuids(&out.stdout).len(), 3);
    }
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(names.iter().all(|n| !n.contains("deleted")), "{names:?}");
    assert_eq!(std::fs::read(&state).unwrap(), before);
}

/// Links are followed up to 40 in a row, the kernel's own limit: a chain of exactly 40
/// leads to the file; one of 41 is an error.
#[test]
fn a_chain_of_forty_links_is_followed_and_forty_one_is_not() {
    let dir = TempDir::new("names-forty");
    std::os::unix::fs::symlink("real", dir.join("l1")).unwrap();
    for i in 2..=41 {
        std::os::unix::fs::symlink(format!("l{}", i - 1), dir.join(&format!("l{i}"))).unwrap();
    }
    let out = gen_cmd("v7", 2, &dir.join("l40")).output().unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        stderr(&out)
    );
    assert!(dir.join("real").is_file());
    let out = gen_cmd("v7", 2, &dir.join("l41")).output().unwrap();
    assert!(
        stderr(&out).contains("more than 40 symbolic links"),
        "{}",
        stderr(&out)
    );
}

/// An empty directory at the temporary file's name is removed too; a lock file that is
/// a hard link to the state file is named as such at once.
#[test]
fn a_directory_at_the_temporary_name_and_a_lock_linked_to_the_state() {
    let dir = TempDir::new("names-tmpdir");
    let state = dir.join("state");
    std::fs::create_dir(dir.join("state.tmp")).unwrap();
    let out = gen_cmd("v7", 2, &state).output().unwrap();
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        stderr(&out)
    );
    assert!(state.is_file() && !dir.join("state.tmp").exists());

    let other = dir.join("other");
    assert!(gen_cmd("v7", 1, &other).output().unwrap().status.success());
    std::fs::hard_link(&other, dir.join("other.lock.new")).unwrap();
    std::fs::rename(dir.join("other.lock.new"), dir.join("other.lock")).unwrap();
    let out = gen_cmd("v7", 2, &other).output().unwrap();
    assert!(
        stderr(&out).contains("is a hard link to the state file"),
        "{}",
        stderr(&out)
    );
}

/// `state show` and `state check` look at what a path is before opening it: a socket is
/// named as one, and not opened.
#[test]
fn state_show_names_a_socket_without_opening_it() {
    let dir = TempDir::new("names-socket");
    let sock = dir.join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    for action in ["show", "check"] {
        let out = state_common::uuidkit()
            .args(["state", action])
            .arg(&sock)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{action}");
        assert!(
            stderr(&out).contains("is a socket"),
            "{action}: {}",
            stderr(&out)
        );
    }
}
