//! What the state file tests share: temporary directories, running the command with a
//! clean environment, reading its UUIDs, and libfaketime.

// Each test binary uses a different part of this module.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use uuidkit::Uuid;

/// A node and a clock sequence every process of a test fixes: sharing them, only the
/// state file keeps the processes' v1 and v6 UUIDs apart.
pub const NODE: &str = "0x0123456789ab";
pub const CLOCK_SEQ: &str = "0x1234";

/// A directory under the system's temporary directory, unique to this process and
/// call, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "uuidkit-{name}-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `uuidkit` with none of the variables that choose a state file or a node, so that a
/// test sees only what it sets (and never touches the state file of the user running it).
pub fn uuidkit() -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("uuidkit"));
    for var in [
        "UUIDKIT_STATE",
        "UUIDKIT_NODE",
        "LD_PRELOAD",
        "FAKETIME",
        "FAKETIME_TIMESTAMP_FILE",
        "FAKETIME_NO_CACHE",
    ] {
        c.env_remove(var);
    }
    c
}

/// `uuidkit gen VERSION -n COUNT --state STATE`, with `--node` and `--clock-seq` fixed
/// for v1 and v6.
pub fn gen_cmd(version: &str, count: u64, state: &Path) -> Command {
    let mut c = uuidkit();
    c.args(["gen", version, "-n", &count.to_string()])
        .arg("--state")
        .arg(state);
    if matches!(version, "v1" | "v6") {
        c.args(["--node", NODE, "--clock-seq", CLOCK_SEQ]);
    }
    c
}

/// Runs `cmd` to its end.
pub fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("running {cmd:?}: {e}"))
}

/// The UUIDs of standard output, one a line; a line that is not one fails the test.
pub fn uuids(stdout: &[u8]) -> Vec<Uuid> {
    std::str::from_utf8(stdout)
        .expect("UTF-8 output")
        .lines()
        .map(|l| {
            l.parse()
                .unwrap_or_else(|e| panic!("not a UUID: {l:?}: {e}"))
        })
        .collect()
}

/// Standard error as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `cmd`, which must succeed with nothing on standard error, and returns its UUIDs.
pub fn gen_ok(cmd: &mut Command) -> Vec<Uuid> {
    let out = run(cmd);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{cmd:?}: {:?}\n{}",
        out.status,
        stderr(&out)
    );
    uuids(&out.stdout)
}

/// Spawns `cmd` with standard output to a pipe.
pub fn spawn(cmd: &mut Command) -> Child {
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {cmd:?}: {e}"))
}

/// Reads up to `n` lines from `r` as UUIDs (fewer at the end of the output).
pub fn read_lines(r: &mut BufReader<ChildStdout>, n: usize) -> Vec<Uuid> {
    let mut line = String::new();
    let mut got = Vec::with_capacity(n);
    while got.len() < n {
        line.clear();
        let len = r
            .read_line(&mut line)
            .expect("reading the command's output");
        if len == 0 || !line.ends_with('\n') {
            break;
        }
        got.push(line.trim_end().parse().expect("a UUID"));
    }
    got
}

/// Reads the rest of `r`: the UUIDs of its complete lines. A process killed in the
/// middle of a write can leave part of a line: that UUID was never written whole.
pub fn read_rest(mut r: BufReader<ChildStdout>) -> Vec<Uuid> {
    let mut rest = Vec::new();
    r.read_to_end(&mut rest)
        .expect("reading the command's output");
    let complete = rest.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    uuids(&rest[..complete])
}

/// Whether each UUID is greater than the one before.
pub fn strictly_increasing(u: &[Uuid]) -> bool {
    u.windows(2).all(|w| w[0] < w[1])
}

// Where libfaketime is, written once for the library's tests and the command's.
#[path = "../../../uuidkit/tests/faketime.rs"]
mod faketime;
pub use faketime::{faked, libfaketime};

/// A small, seeded random number generator for choosing when to kill: the seed is
/// printed, so that a failing run can be repeated.
pub struct Rng(u64);

impl Rng {
    pub fn from_env_or_time(name: &str) -> Rng {
        let seed = std::env::var("UUIDKIT_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
        eprintln!("{name}: UUIDKIT_TEST_SEED={seed}");
        Rng(seed | 1)
    }

    /// xorshift64*.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Waits until `child` (a uuidkitd) accepts connections on every one of `sockets`: for
/// the sockets, not for a time, so a slow machine only waits longer. Fails if the daemon
/// exits first, or is still not listening after `limit`.
pub fn wait_listening(child: &mut Child, sockets: &[&Path], limit: Duration) {
    let deadline = Instant::now() + limit;
    while sockets
        .iter()
        .any(|s| std::os::unix::net::UnixStream::connect(s).is_err())
    {
        if let Ok(Some(st)) = child.try_wait() {
            panic!("uuidkitd exited before listening: {st}");
        }
        assert!(Instant::now() < deadline, "uuidkitd is not listening");
        std::thread::sleep(Duration::from_millis(10));
    }
}
