//! One connection's plumbing, below both protocols (`own.rs`, `uuidd.rs`): the limits
//! and deadlines a client is held to, and reading and writing whole messages within
//! them. It knows nothing of what the bytes mean, so that each protocol reads its
//! requests the same way and a slow, stuck or hostile client is cut off the same way.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

/// Limits on clients.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections served at once; more are refused.
    pub max_connections: usize,
    /// How long a connection may wait before starting a request.
    pub idle_timeout: Duration,
    /// How long a request may take to arrive once started, and a reply to be taken.
    pub request_timeout: Duration,
}

/// Why reading a request stopped.
pub enum ReadStop {
    /// The client closed the connection (or never sent anything) before a request began.
    Closed,
    /// An I/O error or a deadline passed.
    Failed,
}

/// Fills `buf` from `s` before `deadline`. `first_wait` is how long to wait for the
/// first byte when it differs from the deadline (an idle connection between requests).
pub fn read_full(
    s: &mut UnixStream,
    buf: &mut [u8],
    first_wait: Option<Duration>,
    deadline_after_first: Duration,
) -> Result<(), ReadStop> {
    let mut got = 0;
    let mut deadline = first_wait.map(|w| Instant::now() + w);
    let mut fixed = deadline
        .is_none()
        .then(|| Instant::now() + deadline_after_first);
    while got < buf.len() {
        let until = deadline.or(fixed).unwrap_or_else(Instant::now);
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(if got == 0 && first_wait.is_some() {
                ReadStop::Closed
            } else {
                ReadStop::Failed
            });
        }
        if s.set_read_timeout(Some(left)).is_err() {
            return Err(ReadStop::Failed);
        }
        match s.read(&mut buf[got..]) {
            Ok(0) => {
                return Err(if got == 0 {
                    ReadStop::Closed
                } else {
                    ReadStop::Failed
                });
            }
            Ok(n) => {
                if got == 0 && deadline.is_some() {
                    // The request began: the rest must follow within the request timeout.
                    deadline = None;
                    fixed = Some(Instant::now() + deadline_after_first);
                }
                got += n;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e)
                if got == 0
                    && first_wait.is_some()
                    && matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
            {
                return Err(ReadStop::Closed);
            }
            Err(_) => return Err(ReadStop::Failed),
        }
    }
    Ok(())
}

/// Writes a whole reply within the request timeout.
pub fn write_reply(s: &mut UnixStream, bytes: &[u8], timeout: Duration) -> io::Result<()> {
    s.set_write_timeout(Some(timeout))?;
    s.write_all(bytes)
}
