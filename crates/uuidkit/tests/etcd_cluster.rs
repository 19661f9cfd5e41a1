//! A real etcd cluster on loopback for the fleet tests (machine IDs leased from etcd).
//! One file for every test binary that needs it: the library's (`mod etcd_cluster` in
//! `it.rs`) and the command's (by `#[path = "../../uuidkit/tests/etcd_cluster.rs"]`), so
//! how a cluster is started is written once.
//!
//! Only `std`: the members are `/usr/bin/etcd` processes (Debian's etcd-server, etcd
//! 3.4), and the harness talks to them over plain HTTP/1.1 on a `TcpStream`: `/health`,
//! and the JSON gateway etcd 3.4 serves on its client URL (`/v3/kv/put`, `/v3/kv/range`,
//! keys and values in base64). No etcdctl, so no further package.
//!
//! Each cluster is its own: its ports are taken by binding `127.0.0.1:0` (the kernel
//! hands out only free ports, from the ephemeral range, so never 2379 or 2380 of an etcd
//! the package may have started as a service, nor another test's cluster), its data is in
//! a directory of its own under the temporary directory, and its cluster token is unique,
//! so members of two clusters can never join each other.

// Each test binary that includes this file uses a part of it.
#![allow(dead_code)]

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The etcd server binary, from Debian's etcd-server package.
pub const ETCD: &str = "/usr/bin/etcd";

/// How long [`EtcdCluster::start`], [`EtcdCluster::start_member`] and
/// [`EtcdCluster::wait_healthy`] wait for the members to have a leader before failing
/// with the tail of their logs. A 3-member cluster is up well within a second or two.
pub const HEALTHY_TIMEOUT: Duration = Duration::from_secs(20);

/// How long [`EtcdCluster::put`] and [`EtcdCluster::get`] wait for an answer. A cluster
/// without quorum does not answer a write at all until etcd's own request timeout (5 s
/// plus two election timeouts): this bounds a test that expects the write to fail.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// Raft heartbeat interval and election timeout, in milliseconds: etcd's defaults, so
/// that a cluster re-elects a leader in a second or two after a member is stopped, and
/// ten heartbeats per election timeout, as etcd's tuning guide asks. Half of them (50
/// and 500) made a loaded CI machine (tests and their etcd clusters on two cores) miss
/// heartbeats: a put right after one member was paused then found no leader for longer
/// than the 5 s a test waits.
const HEARTBEAT_MS: u32 = 100;
const ELECTION_MS: u32 = 1000;

/// How many times [`EtcdCluster::start`] picks new ports when a member could not bind
/// its own: a port is free when picked, and could be taken by another process before the
/// member binds it.
const START_ATTEMPTS: usize = 3;

static CLUSTERS: AtomicUsize = AtomicUsize::new(0);

struct Member {
    name: String,
    client_port: u16,
    peer_port: u16,
    /// The member's directory: `data/` (etcd's `--data-dir`) and `etcd.log`.
    dir: PathBuf,
    /// `None` when stopped. In a mutex so that [`EtcdCluster::wait_healthy`] (`&self`)
    /// can see a member that exited; the cluster stays `Sync`.
    child: Mutex<Option<Child>>,
    paused: bool,
}

impl Member {
    fn client_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.client_port)
    }

    fn peer_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.peer_port)
    }

    fn log_path(&self) -> PathBuf {
        self.dir.join("etcd.log")
    }

    fn log_tail(&self, lines: usize) -> String {
        let text = fs::read_to_string(self.log_path()).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }
}

/// A running etcd cluster of 1 or 3 members on loopback, stopped and removed on drop.
pub struct EtcdCluster {
    dir: PathBuf,
    token: String,
    members: Vec<Member>,
}

impl EtcdCluster {
    /// Starts a cluster of `members` (1 or 3) members and waits until it has a leader.
    ///
    /// Panics, so that a test cannot pass without etcd, when `/usr/bin/etcd` is missing
    /// or the cluster is not healthy within [`HEALTHY_TIMEOUT`] (with the members' logs).
    pub fn start(members: usize) -> EtcdCluster {
        assert!(
            members == 1 || members == 3,
            "an etcd cluster of {members} members: the tests use 1 or 3"
        );
        if !Path::new(ETCD).exists() {
            panic!(
                "etcd is not installed ({ETCD} is missing); the fleet tests run a real etcd \
                 cluster. Install the Debian package etcd-server: bash scripts/setup does"
            );
        }
        let mut last = String::new();
        for _ in 0..START_ATTEMPTS {
            let cluster = EtcdCluster::spawn(members);
            match cluster.wait_until_healthy() {
                Ok(()) => return cluster,
                Err(e) if cluster.a_port_was_taken() => last = e, // dropped: new ports
                Err(e) => panic!("{e}"),
            }
        }
        panic!("etcd cluster: ports taken {START_ATTEMPTS} times over; the last try: {last}")
    }

    /// A new cluster's directory, ports and processes, without waiting for it.
    fn spawn(members: usize) -> EtcdCluster {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let unique = format!(
            "{}-{}-{nanos}",
            std::process::id(),
            CLUSTERS.fetch_add(1, Ordering::Relaxed)
        );
        let dir = std::env::temp_dir().join(format!("uuidkit-etcd-{unique}"));
        fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));

        // All the listeners are held until every port is picked, so that the kernel gives
        // the cluster 2 × members different ports.
        let listeners: Vec<TcpListener> = (0..2 * members)
            .map(|_| {
                TcpListener::bind("127.0.0.1:0")
                    .unwrap_or_else(|e| panic!("bind 127.0.0.1:0 for a free port: {e}"))
            })
            .collect();
        let ports: Vec<u16> = listeners
            .iter()
            .map(|l| l.local_addr().expect("local_addr").port())
            .collect();
        drop(listeners);

        let members: Vec<Member> = (0..members)
            .map(|i| {
                let name = format!("m{i}");
                let member_dir = dir.join(&name);
                fs::create_dir_all(&member_dir)
                    .unwrap_or_else(|e| panic!("create {}: {e}", member_dir.display()));
                Member {
                    name,
                    client_port: ports[2 * i],
                    peer_port: ports[2 * i + 1],
                    dir: member_dir,
                    child: Mutex::new(None),
                    paused: false,
                }
            })
            .collect();
        let cluster = EtcdCluster {
            dir,
            token: format!("uuidkit-test-{unique}"),
            members,
        };
        for i in 0..cluster.members.len() {
            cluster.spawn_member(i);
        }
        cluster
    }

    /// Starts member `i`'s process. The same command for a first start and a restart: on
    /// a restart the data directory already holds the membership, and etcd ignores the
    /// `--initial-cluster*` flags.
    fn spawn_member(&self, i: usize) {
        let m = &self.members[i];
        let initial_cluster = self
            .members
            .iter()
            .map(|m| format!("{}={}", m.name, m.peer_url()))
            .collect::<Vec<_>>()
            .join(",");
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(m.log_path())
            .unwrap_or_else(|e| panic!("open {}: {e}", m.log_path().display()));
        let log2 = log.try_clone().expect("clone the log file");
        let mut cmd = Command::new(ETCD);
        cmd.arg("--name")
            .arg(&m.name)
            .arg("--data-dir")
            .arg(m.dir.join("data"))
            .arg("--listen-client-urls")
            .arg(m.client_url())
            .arg("--advertise-client-urls")
            .arg(m.client_url())
            .arg("--listen-peer-urls")
            .arg(m.peer_url())
            .arg("--initial-advertise-peer-urls")
            .arg(m.peer_url())
            .arg("--initial-cluster")
            .arg(&initial_cluster)
            .arg("--initial-cluster-state")
            .arg("new")
            .arg("--initial-cluster-token")
            .arg(&self.token)
            .arg("--heartbeat-interval")
            .arg(HEARTBEAT_MS.to_string())
            .arg("--election-timeout")
            .arg(ELECTION_MS.to_string())
            // etcd 3.4's default logger (capnslog) is deprecated, and says so at start.
            .arg("--logger")
            .arg("zap")
            .arg("--log-outputs")
            .arg("stderr")
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log2);
        // etcd takes any ETCD_<FLAG> variable as a flag: none of the caller's applies here.
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("ETCD_") {
                cmd.env_remove(key);
            }
        }
        // etcd 3.4 refuses to run on an architecture other than amd64 and ppc64le unless
        // told it may.
        if std::env::consts::ARCH == "aarch64" {
            cmd.env("ETCD_UNSUPPORTED_ARCH", "arm64");
        }
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("start {ETCD} (member {}): {e}", m.name));
        *m.child.lock().unwrap() = Some(child);
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Member `i`'s client URL, `http://127.0.0.1:PORT`.
    pub fn endpoint(&self, i: usize) -> String {
        self.members[i].client_url()
    }

    /// Every member's client URL, `http://127.0.0.1:PORT`, in member order.
    pub fn endpoints(&self) -> Vec<String> {
        self.members.iter().map(Member::client_url).collect()
    }

    /// [`endpoints`](Self::endpoints) joined by commas, as etcd's tools take them.
    pub fn endpoints_arg(&self) -> String {
        self.endpoints().join(",")
    }

    /// Kills member `i` (SIGKILL: a crash, not a shutdown in which a leader would hand
    /// its leadership over) and waits for it to be gone. Its data stays, for
    /// [`start_member`](Self::start_member).
    pub fn stop_member(&mut self, i: usize) {
        let m = &mut self.members[i];
        if let Some(mut child) = m.child.get_mut().unwrap().take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        m.paused = false;
    }

    /// Starts stopped member `i` again, on its data and ports, and waits until it is
    /// healthy (which needs a quorum of the members to be running).
    pub fn start_member(&mut self, i: usize) {
        assert!(
            self.members[i].child.get_mut().unwrap().is_none(),
            "start_member({i}): member {i} is running; stop_member it first"
        );
        self.spawn_member(i);
        self.wait_healthy();
    }

    /// Stops member `i` with SIGSTOP: it holds its ports and connections but answers
    /// nothing, like a machine that hangs or a network partition.
    pub fn pause_member(&mut self, i: usize) {
        self.signal(i, "-STOP");
        self.members[i].paused = true;
    }

    /// Lets member `i`, paused by [`pause_member`](Self::pause_member), run again.
    pub fn resume_member(&mut self, i: usize) {
        self.signal(i, "-CONT");
        self.members[i].paused = false;
    }

    fn signal(&self, i: usize, signal: &str) {
        let pid = match &*self.members[i].child.lock().unwrap() {
            Some(child) => child.id(),
            None => panic!("signal {signal} to member {i}: it is stopped"),
        };
        // /bin/kill (procps), not libc: this file needs nothing beyond std.
        let status = Command::new("/bin/kill")
            .arg(signal)
            .arg(pid.to_string())
            .status()
            .unwrap_or_else(|e| panic!("/bin/kill {signal} {pid}: {e} (package procps)"));
        assert!(status.success(), "/bin/kill {signal} {pid}: {status}");
    }

    /// Waits until every running member (not stopped, not paused) reports on `/health`
    /// that it has a leader; panics with the members' logs after [`HEALTHY_TIMEOUT`], or
    /// at once when a member's process has exited.
    pub fn wait_healthy(&self) {
        if let Err(e) = self.wait_until_healthy() {
            panic!("{e}");
        }
    }

    fn wait_until_healthy(&self) -> Result<(), String> {
        let deadline = Instant::now() + HEALTHY_TIMEOUT;
        loop {
            let mut healthy = true;
            for (i, m) in self.members.iter().enumerate() {
                if m.paused {
                    continue;
                }
                match m.child.lock().unwrap().as_mut().map(Child::try_wait) {
                    None => continue, // stopped
                    Some(Ok(None)) => {}
                    Some(Ok(Some(status))) => {
                        return Err(self.failure(&format!("member {i} exited ({status})")));
                    }
                    Some(Err(e)) => return Err(self.failure(&format!("member {i}: {e}"))),
                }
                if !self.member_is_healthy(i) {
                    healthy = false;
                    break;
                }
            }
            if healthy {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(self.failure(&format!(
                    "not healthy within {HEALTHY_TIMEOUT:?} ({})",
                    self.endpoints_arg()
                )));
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether member `i` answers `GET /health` with `{"health":"true"}`: etcd 3.4 says
    /// so when the member has a leader (and no alarm is raised).
    pub fn member_is_healthy(&self, i: usize) -> bool {
        matches!(
            http(self.members[i].client_port, "GET", "/health", "", Duration::from_secs(1)),
            Ok((200, body)) if body.contains(r#""health":"true""#)
        )
    }

    /// Whether a member could not bind its port (taken since it was picked).
    fn a_port_was_taken(&self) -> bool {
        self.members.iter().any(|m| {
            fs::read_to_string(m.log_path())
                .map(|log| log.contains("address already in use"))
                .unwrap_or(false)
        })
    }

    /// `what`, the cluster's directory and the tail of each member's log.
    fn failure(&self, what: &str) -> String {
        format!(
            "etcd cluster in {}: {what}\n{}",
            self.dir.display(),
            self.logs(40)
        )
    }

    /// The last `lines` lines of each member's log.
    pub fn logs(&self, lines: usize) -> String {
        self.members
            .iter()
            .map(|m| {
                format!(
                    "--- {} ({}):\n{}",
                    m.name,
                    m.log_path().display(),
                    m.log_tail(lines)
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// POSTs `body` to etcd 3.4's JSON gateway at `path` through member `i`: the answer,
    /// or an error naming `what` when etcd refuses or does not answer within
    /// [`REQUEST_TIMEOUT`] (as when the cluster has lost its quorum).
    fn post(&self, i: usize, what: &str, path: &str, body: &str) -> Result<String, String> {
        match http(
            self.members[i].client_port,
            "POST",
            path,
            body,
            REQUEST_TIMEOUT,
        ) {
            Ok((200, answer)) => Ok(answer),
            Ok((status, body)) => Err(format!("{what} through member {i}: HTTP {status}: {body}")),
            Err(e) => Err(format!("{what} through member {i}: {e}")),
        }
    }

    /// Puts `key` = `value` through member `i` (`POST /v3/kv/put`); an error as for
    /// [`post`](Self::post).
    pub fn put(&self, i: usize, key: &[u8], value: &[u8]) -> Result<(), String> {
        let body = format!(
            r#"{{"key":"{}","value":"{}"}}"#,
            base64_encode(key),
            base64_encode(value)
        );
        self.post(i, "put", "/v3/kv/put", &body).map(drop)
    }

    /// Puts every `(key, value)` through member `i`, 128 in a transaction (etcd's limit
    /// of operations in one), for a test that needs many keys.
    pub fn put_many(&self, i: usize, pairs: &[(Vec<u8>, Vec<u8>)]) -> Result<(), String> {
        for chunk in pairs.chunks(128) {
            let ops: Vec<String> = chunk
                .iter()
                .map(|(k, v)| {
                    format!(
                        r#"{{"requestPut":{{"key":"{}","value":"{}"}}}}"#,
                        base64_encode(k),
                        base64_encode(v)
                    )
                })
                .collect();
            let body = format!(r#"{{"success":[{}]}}"#, ops.join(","));
            self.post(i, "txn", "/v3/kv/txn", &body)?;
        }
        Ok(())
    }

    /// Puts `key` = `value` through member `i` attached to a new lease of `ttl` seconds
    /// (`POST /v3/lease/grant`, then a put with it), as a holder writes its key: the
    /// lease's ID.
    pub fn put_leased(&self, i: usize, key: &[u8], value: &[u8], ttl: u32) -> Result<i64, String> {
        let answer = self.post(
            i,
            "grant",
            "/v3/lease/grant",
            &format!(r#"{{"TTL":"{ttl}"}}"#),
        )?;
        // {"header":{…},"ID":"7587…","TTL":"30"}
        let id = answer
            .split(r#""ID":""#)
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .and_then(|id| id.parse::<i64>().ok())
            .ok_or_else(|| format!("grant: no lease ID in {answer}"))?;
        let body = format!(
            r#"{{"key":"{}","value":"{}","lease":"{id}"}}"#,
            base64_encode(key),
            base64_encode(value)
        );
        self.post(i, "put", "/v3/kv/put", &body)?;
        Ok(id)
    }

    /// Deletes `key` through member `i` (`POST /v3/kv/deleterange`).
    pub fn delete(&self, i: usize, key: &[u8]) -> Result<(), String> {
        let body = format!(r#"{{"key":"{}"}}"#, base64_encode(key));
        self.post(i, "delete", "/v3/kv/deleterange", &body)
            .map(drop)
    }

    /// Revokes lease `id` through member `i` (`POST /v3/lease/revoke`), as its expiry at
    /// etcd would end it: every key attached to it goes.
    pub fn revoke(&self, i: usize, id: i64) -> Result<(), String> {
        let body = format!(r#"{{"ID":"{id}"}}"#);
        self.post(i, "revoke", "/v3/lease/revoke", &body).map(drop)
    }

    /// Reads `key` through member `i` (a linearizable read, `POST /v3/kv/range`): its
    /// value, `None` when there is no such key; an error as for [`put`](Self::put).
    pub fn get(&self, i: usize, key: &[u8]) -> Result<Option<Vec<u8>>, String> {
        let body = format!(r#"{{"key":"{}"}}"#, base64_encode(key));
        let answer = self.post(i, "get", "/v3/kv/range", &body)?;
        // {"header":{…},"kvs":[{"key":"…",…,"value":"…"}],"count":"1"}; no "kvs" when
        // the key does not exist, no "value" when the value is empty. Base64 needs no
        // JSON escapes, so the value ends at the next quote.
        let Some(kvs) = answer.find(r#""kvs":"#) else {
            return Ok(None);
        };
        let rest = &answer[kvs..];
        let Some(start) = rest.find(r#""value":""#) else {
            return Ok(Some(Vec::new()));
        };
        let rest = &rest[start + r#""value":""#.len()..];
        let end = rest
            .find('"')
            .ok_or_else(|| format!("get: unterminated value in {answer}"))?;
        base64_decode(&rest[..end])
            .map(Some)
            .ok_or_else(|| format!("get: bad base64 in {answer}"))
    }
}

impl Drop for EtcdCluster {
    /// Kills every member, waits for them and removes the cluster's directory, after
    /// printing the members' logs when a test is failing.
    fn drop(&mut self) {
        if thread::panicking() {
            eprintln!("{}", self.failure("dropped by a failing test"));
        }
        for m in &mut self.members {
            if let Some(mut child) = m.child.get_mut().unwrap().take() {
                // SIGKILL ends a paused (SIGSTOPped) process too.
                let _ = child.kill();
                let _ = child.wait();
            }
        }
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// One HTTP/1.1 request to `127.0.0.1:port`: the status and the body. `Connection:
/// close`, so the body is what comes until the server closes; all of it within `timeout`.
fn http(
    port: u16,
    method: &str,
    path: &str,
    body: &str,
    timeout: Duration,
) -> io::Result<(u16, String)> {
    let deadline = Instant::now() + timeout;
    let left = || {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no answer within {timeout:?}"),
                )
            })
    };
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut stream = TcpStream::connect_timeout(&addr, left()?)?;
    stream.set_write_timeout(Some(left()?))?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut answer = Vec::new();
    let mut buf = [0; 4096];
    loop {
        stream.set_read_timeout(Some(left()?))?;
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no answer within {timeout:?}"),
                ));
            }
            Err(e) => return Err(e),
        }
    }
    let answer = String::from_utf8_lossy(&answer);
    let bad = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not an HTTP answer: {answer:?}"),
        )
    };
    let (head, body) = answer.split_once("\r\n\r\n").ok_or_else(bad)?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(bad)?;
    let chunked = head
        .lines()
        .any(|l| l.to_ascii_lowercase().replace(' ', "") == "transfer-encoding:chunked");
    let body = if chunked {
        dechunk(body).ok_or_else(bad)?
    } else {
        body.to_string()
    };
    Ok((status, body))
}

/// The body of a `Transfer-Encoding: chunked` answer.
fn dechunk(mut rest: &str) -> Option<String> {
    let mut body = String::new();
    loop {
        let (size, after) = rest.split_once("\r\n")?;
        let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        if size == 0 {
            return Some(body);
        }
        body.push_str(after.get(..size)?);
        rest = after.get(size..)?.strip_prefix("\r\n")?;
    }
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding, as etcd's JSON gateway takes bytes.
pub fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(BASE64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes of standard base64 text (padded or not), `None` if it is not base64.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut n, mut bits) = (0u32, 0);
    for c in text.bytes() {
        let v = BASE64.iter().position(|&b| b == c)? as u32;
        n = n << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((n >> bits) as u8);
            n &= (1 << bits) - 1;
        }
    }
    Some(out)
}
