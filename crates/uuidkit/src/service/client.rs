//! The client side of uuidkitd's own protocol: [`DaemonClient`], a
//! [`LeaseSource`] whose leases come from the daemon.

use core::fmt;
use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::protocol::{
    HEADER_LEN, Header, MAX_REPLY_BODY, ProtocolError, Reply, Request, StatusReport,
};
use crate::store::{Lease, LeaseRequest, LeaseSource, Outcome, Problem, StoreError, StoreWarning};
use crate::uuid::Uuid;

/// How long a client waits for the daemon to accept, read or answer: 5 s.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long [`DaemonClient`]'s [`LeaseSource::lease`] waits in all, across the daemon's
/// `LATER` replies, before it gives up on the lease (and the generator goes on in memory
/// with a warning): 2 s. A client within the daemon's bound never waits; one that is
/// told to wait longer than this is far ahead of the clock, and stalling it for that
/// long would be worse than the warning.
pub const MAX_LATER_WAIT: Duration = Duration::from_secs(2);

/// How long [`DaemonClient`]'s [`LeaseSource::lease`] keeps asking a daemon in fleet mode
/// that answers `FENCED` (its etcd lease may have expired, or it is claiming another
/// machine ID), every [`FENCED_POLL`], before it gives up with [`StoreError::Fenced`]: 2 s.
/// A daemon whose renewal got through late is open again within this; one cut off from
/// etcd for longer is not waited for (the generator goes on in memory, with a warning
/// that names the fence).
pub const MAX_FENCED_WAIT: Duration = Duration::from_secs(2);

/// How often [`DaemonClient`]'s [`LeaseSource::lease`] asks again after `FENCED`.
pub const FENCED_POLL: Duration = Duration::from_millis(100);

/// Why a request to the daemon failed.
///
/// ```
/// use uuidkit::service::client::{ClientError, DaemonClient};
/// let c = DaemonClient::new("/nonexistent/uuidkitd.sock");
/// assert!(matches!(c.status(), Err(ClientError::Io { .. })));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum ClientError {
    /// Connecting, writing or reading failed (no daemon, a timeout, a closed connection).
    Io {
        /// What was being done: `connect`, `send`, `receive`.
        action: &'static str,
        /// The error.
        error: io::Error,
    },
    /// The daemon's reply is not well formed.
    Protocol(ProtocolError),
    /// The daemon refused the request; the field at fault is in the message.
    Refused {
        /// The status code ([`status`](super::protocol::status)).
        status: u8,
        /// The daemon's message.
        message: String,
    },
    /// The reply does not answer the request (a lease reply to a status request, say).
    Unexpected,
    /// The daemon would grant the lease only after `wait`: it would run further ahead of
    /// the daemon's reference time than its bound, or than this user's share of it
    /// (`LATER`, `docs/protocol.md`). The connection stays open.
    Later {
        /// How long to wait before asking again.
        wait: Duration,
    },
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Io { action, error } => write!(f, "cannot {action}: {error}"),
            ClientError::Protocol(e) => write!(f, "malformed reply: {e}"),
            ClientError::Refused { status, message } => {
                write!(
                    f,
                    "the daemon refused the request (status {status}): {message}"
                )
            }
            ClientError::Unexpected => f.write_str("the reply does not answer the request"),
            ClientError::Later { wait } => write!(
                f,
                "the lease would run too far ahead of the daemon's clock; it can be granted in {} ms",
                wait.as_millis()
            ),
        }
    }
}

impl std::error::Error for ClientError {}

/// A connection to uuidkitd, opened on first use and again whenever it was closed (the
/// daemon closes idle connections); `Send + Sync`, one request at a time.
///
/// As a [`LeaseSource`], it gives the library's generators the daemon's leases: every
/// process on the host that uses the same daemon gets UUIDs no other gets, and the daemon
/// keeps the state. When the daemon cannot be reached the lease fails with
/// [`StoreError::Unavailable`], and the generator goes on in memory with a warning.
///
/// ```no_run
/// use std::sync::Arc;
/// use uuidkit::generator::v7::{V7Generator, V7Method};
/// use uuidkit::service::client::DaemonClient;
///
/// let daemon = Arc::new(DaemonClient::new("/run/uuidkit/uuidkitd.sock"));
/// let mut g = V7Generator::new(V7Method::Counter).with_store(daemon.clone());
/// let u = g.next();
/// assert!(g.take_store_warnings().is_empty(), "the daemon did not answer");
/// let batch = daemon.random(100)?; // v4, made by the daemon
/// # Ok::<(), uuidkit::service::client::ClientError>(())
/// ```
pub struct DaemonClient {
    path: PathBuf,
    timeout: Duration,
    /// The open connection and the process that opened it: after `fork` the child must
    /// not talk on its parent's connection (their requests and replies would interleave),
    /// so a connection of another process is dropped (closing only this process's copy)
    /// and a new one opened.
    conn: Mutex<Option<(UnixStream, u32)>>,
}

impl fmt::Debug for DaemonClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DaemonClient")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl DaemonClient {
    /// A client of the daemon at `path`; connects on first use.
    ///
    /// ```
    /// let c = uuidkit::service::client::DaemonClient::new("/run/uuidkit/uuidkitd.sock");
    /// assert_eq!(c.path(), std::path::Path::new("/run/uuidkit/uuidkitd.sock"));
    /// ```
    pub fn new(path: impl Into<PathBuf>) -> DaemonClient {
        DaemonClient {
            path: path.into(),
            timeout: DEFAULT_TIMEOUT,
            conn: Mutex::new(None),
        }
    }

    /// A client connected now, so that a missing daemon shows at once.
    ///
    /// ```
    /// use uuidkit::service::client::DaemonClient;
    /// assert!(DaemonClient::connect("/nonexistent/uuidkitd.sock").is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// [`ClientError::Io`] when the socket cannot be connected (no daemon at `path`, or no
    /// permission).
    pub fn connect(path: impl Into<PathBuf>) -> Result<DaemonClient, ClientError> {
        let c = DaemonClient::new(path);
        let s = c.open()?;
        *c.lock() = Some((s, std::process::id()));
        Ok(c)
    }

    /// The same with a timeout other than [`DEFAULT_TIMEOUT`] for each connect, send and
    /// receive.
    ///
    /// ```
    /// use std::time::Duration;
    /// use uuidkit::service::client::DaemonClient;
    /// let c = DaemonClient::new("/x.sock").with_timeout(Duration::from_millis(100));
    /// ```
    pub fn with_timeout(mut self, timeout: Duration) -> DaemonClient {
        self.timeout = timeout;
        self
    }

    /// The socket path.
    ///
    /// ```
    /// let c = uuidkit::service::client::DaemonClient::new("/x.sock");
    /// assert_eq!(c.path().to_str(), Some("/x.sock"));
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `count` random (v4) UUIDs made by the daemon, 1 to
    /// [`MAX_RANDOM_COUNT`](super::protocol::MAX_RANDOM_COUNT).
    ///
    /// ```no_run
    /// let c = uuidkit::service::client::DaemonClient::new("/run/uuidkit/uuidkitd.sock");
    /// assert_eq!(c.random(10)?.len(), 10);
    /// # Ok::<(), uuidkit::service::client::ClientError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ClientError::Io`] when the connection fails, [`ClientError::Refused`] for a `count`
    /// outside the range, and [`ClientError::Protocol`] or [`ClientError::Unexpected`] for a
    /// reply that is not an answer.
    pub fn random(&self, count: u32) -> Result<Vec<Uuid>, ClientError> {
        match self.call(&Request::Random { count })? {
            Reply::Random(v) => Ok(v),
            other => Err(unexpected(other)),
        }
    }

    /// What the daemon reports about itself.
    ///
    /// ```no_run
    /// let c = uuidkit::service::client::DaemonClient::new("/run/uuidkit/uuidkitd.sock");
    /// println!("uptime {} ms", c.status()?.uptime_ms);
    /// # Ok::<(), uuidkit::service::client::ClientError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ClientError::Io`] when the connection fails, and [`ClientError::Protocol`] or
    /// [`ClientError::Unexpected`] for a reply that is not an answer.
    pub fn status(&self) -> Result<StatusReport, ClientError> {
        match self.call(&Request::Status)? {
            Reply::Status(s) => Ok(s),
            other => Err(unexpected(other)),
        }
    }

    /// A lease from the daemon, with every way to fail told apart (the
    /// [`LeaseSource`] method folds the connection's failures into
    /// [`StoreError::Unavailable`]).
    ///
    /// ```no_run
    /// use uuidkit::store::{GeneratorKind, LeaseRequest};
    /// let c = uuidkit::service::client::DaemonClient::new("/run/uuidkit/uuidkitd.sock");
    /// let lease = c.lease_from_daemon(&LeaseRequest::new(GeneratorKind::V7, 1 << 42, 1 << 42, 16))?;
    /// # Ok::<(), uuidkit::service::client::ClientError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ClientError::Later`] when the daemon grants the lease only after a wait,
    /// [`ClientError::Refused`] when it refuses it, [`ClientError::Io`] when the connection
    /// fails, and [`ClientError::Protocol`] or [`ClientError::Unexpected`] for a reply that is
    /// not an answer.
    pub fn lease_from_daemon(
        &self,
        req: &LeaseRequest,
    ) -> Result<Result<Lease, StoreError>, ClientError> {
        match self.call(&Request::Lease(*req))? {
            Reply::Lease(l) => Ok(Ok(l)),
            Reply::Ahead { start } => Ok(Err(StoreError::Ahead { start })),
            Reply::Exhausted => Ok(Err(StoreError::Exhausted)),
            Reply::Unavailable(m) => Ok(Err(StoreError::Unavailable(self.unavailable(&m)))),
            Reply::Fenced(m) => Ok(Err(StoreError::Fenced(StoreWarning::from_daemon(
                &self.path,
                Problem::Fenced { message: m },
                Outcome::InMemory,
            )))),
            Reply::Later { wait_ms } => Err(ClientError::Later {
                wait: Duration::from_millis(wait_ms),
            }),
            other => Err(unexpected(other)),
        }
    }

    fn unavailable(&self, message: &str) -> StoreWarning {
        StoreWarning::from_daemon(
            &self.path,
            Problem::Io {
                action: "lease from it".to_string(),
                kind: io::ErrorKind::Other,
                message: message.to_string(),
            },
            Outcome::InMemory,
        )
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(UnixStream, u32)>> {
        // A panic while holding the lock leaves at worst a half-used connection, which
        // the next call replaces.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn open(&self) -> Result<UnixStream, ClientError> {
        let io = |error| ClientError::Io {
            action: "connect",
            error,
        };
        let s = UnixStream::connect(&self.path).map_err(io)?;
        s.set_read_timeout(Some(self.timeout)).map_err(io)?;
        s.set_write_timeout(Some(self.timeout)).map_err(io)?;
        Ok(s)
    }

    /// Sends `req` and reads its reply. A connection that was open before fails on its
    /// first use when the daemon closed it meanwhile (idle timeout, restart): the request
    /// is then sent once more on a new one. Repeating a lease request is safe: at worst
    /// the first lease's positions go unused.
    fn call(&self, req: &Request) -> Result<Reply, ClientError> {
        let mut conn = self.lock();
        let bytes = req.encode();
        let pid = std::process::id();
        // A connection inherited through `fork` is the parent's: never used here.
        let inherited = conn.take().filter(|(_, owner)| *owner == pid);
        let reused = inherited.is_some();
        let result = match inherited {
            Some((s, _)) => exchange(s, req, &bytes),
            None => exchange(self.open()?, req, &bytes),
        };
        let result = match result {
            Err(ClientError::Io { .. }) if reused => exchange(self.open()?, req, &bytes),
            r => r,
        };
        match result? {
            // The daemon closes the connection after a refusal: drop it here too.
            (Reply::Error { status, message }, _) => Err(ClientError::Refused { status, message }),
            (reply, s) => {
                *conn = Some((s, pid));
                Ok(reply)
            }
        }
    }
}

fn unexpected(reply: Reply) -> ClientError {
    match reply {
        Reply::Error { status, message } => ClientError::Refused { status, message },
        _ => ClientError::Unexpected,
    }
}

fn exchange(
    mut s: UnixStream,
    req: &Request,
    bytes: &[u8],
) -> Result<(Reply, UnixStream), ClientError> {
    let io = |action| move |error| ClientError::Io { action, error };
    s.write_all(bytes).map_err(io("send"))?;
    let mut h = [0u8; HEADER_LEN];
    s.read_exact(&mut h).map_err(io("receive"))?;
    let header = Header::decode(&h).map_err(ClientError::Protocol)?;
    if header.len > MAX_REPLY_BODY {
        return Err(ClientError::Protocol(ProtocolError::TooLarge {
            field: "length",
            value: header.len.into(),
            limit: MAX_REPLY_BODY.into(),
        }));
    }
    let mut body = vec![0u8; header.len as usize];
    s.read_exact(&mut body).map_err(io("receive"))?;
    let reply = Reply::decode(req, header.code, &body).map_err(ClientError::Protocol)?;
    Ok((reply, s))
}

impl LeaseSource for DaemonClient {
    /// The daemon's lease. Told `LATER`, it waits as long as the daemon says and asks
    /// again, up to [`MAX_LATER_WAIT`] in all; past that, the lease fails with
    /// [`StoreError::Unavailable`] (the generator goes on in memory and warns) rather
    /// than stalling the caller for as long as someone pushed the kind ahead. Told
    /// `FENCED` (a daemon in fleet mode that does not hold its machine ID for sure), it
    /// asks again every [`FENCED_POLL`] for up to [`MAX_FENCED_WAIT`]; past that, the
    /// lease fails with [`StoreError::Fenced`], whose warning names the fence.
    fn lease(&self, req: &LeaseRequest) -> Result<Lease, StoreError> {
        let mut waited = Duration::ZERO;
        let mut fenced = Duration::ZERO;
        loop {
            match self.lease_from_daemon(req) {
                // The daemon may hold its machine ID again in a moment (a renewal that
                // got through late): ask again, for a while.
                Ok(Err(StoreError::Fenced(_))) if fenced < MAX_FENCED_WAIT => {
                    std::thread::sleep(FENCED_POLL);
                    fenced += FENCED_POLL;
                }
                Ok(r) => return r,
                Err(ClientError::Later { wait }) if waited + wait <= MAX_LATER_WAIT => {
                    // At least a millisecond, so that a reply of 0 cannot spin.
                    let wait = wait.max(Duration::from_millis(1));
                    std::thread::sleep(wait);
                    waited += wait;
                }
                Err(e) => return Err(StoreError::Unavailable(self.unavailable(&e.to_string()))),
            }
        }
    }

    fn warning(&self, problem: Problem, outcome: Outcome) -> StoreWarning {
        StoreWarning::from_daemon(&self.path, problem, outcome)
    }
}

/// The [`DaemonClient`] for `path`, shared, ready to hand to a generator's `with_store`.
///
/// ```
/// use uuidkit::generator::v8::V8Generator;
/// let g = V8Generator::new().with_store(uuidkit::service::client::with_daemon("/run/uuidkit/uuidkitd.sock"));
/// ```
pub fn with_daemon(path: impl Into<PathBuf>) -> Arc<DaemonClient> {
    Arc::new(DaemonClient::new(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::GeneratorKind;
    use std::os::unix::net::UnixListener;
    use std::time::Instant;

    /// A daemon that answers each lease request on one connection with the next of
    /// `replies`.
    fn fake_daemon(name: &str, replies: Vec<Reply>) -> (PathBuf, std::thread::JoinHandle<()>) {
        let dir =
            std::env::temp_dir().join(format!("uuidkit-client-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let t = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            for reply in replies {
                let mut h = [0u8; HEADER_LEN];
                s.read_exact(&mut h).unwrap();
                let header = Header::decode(&h).unwrap();
                let mut body = vec![0u8; header.len as usize];
                s.read_exact(&mut body).unwrap();
                s.write_all(&reply.encode()).unwrap();
            }
        });
        (path, t)
    }

    fn request() -> LeaseRequest {
        LeaseRequest::new(GeneratorKind::V7, 1 << 50, 1 << 50, 16)
    }

    /// Told LATER, the client waits as long as the daemon says and asks again on the
    /// same connection.
    #[test]
    fn later_is_waited_for_and_asked_again() {
        let lease = Lease {
            start: 1 << 50,
            end: (1 << 50) + 15,
            clock_seq: None,
            warning: None,
            machine_id: None,
        };
        let (path, t) = fake_daemon(
            "later",
            vec![
                Reply::Later { wait_ms: 30 },
                Reply::Later { wait_ms: 0 },
                Reply::Lease(lease.clone()),
            ],
        );
        let c = DaemonClient::new(&path);
        let begun = Instant::now();
        assert_eq!(c.lease(&request()), Ok(lease));
        assert!(begun.elapsed() >= Duration::from_millis(30));
        t.join().unwrap();
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// A wait longer than [`MAX_LATER_WAIT`] is not waited: the lease fails at once as
    /// unavailable, and the generator goes on in memory.
    #[test]
    fn a_wait_past_the_limit_fails_the_lease() {
        let (path, t) = fake_daemon("too-long", vec![Reply::Later { wait_ms: 60_000 }]);
        let c = DaemonClient::new(&path);
        let begun = Instant::now();
        assert!(matches!(
            c.lease(&request()),
            Err(StoreError::Unavailable(_))
        ));
        assert!(begun.elapsed() < Duration::from_secs(30));
        t.join().unwrap();
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }
}
