//! Accepting connections and handing each to its protocol (`own.rs`, `uuidd.rs`): one
//! thread per connection and a bound on how many, so that with the deadlines on every
//! read and write (`conn.rs`) a client that is slow, stuck or hostile holds only its own
//! thread. Threads that finish a connection wait a while
//! for the next one instead of exiting ([`Pool`]): util-linux's protocol opens a
//! connection per request, and starting a thread for each would cost more than the
//! request.

use std::io::{self, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::shared::Shared;

/// Which protocol a listener speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// uuidkitd's own (`docs/protocol.md`).
    Own,
    /// util-linux uuidd's.
    Uuidd,
}

/// The stack of a connection thread: it holds a request of at most a few hundred bytes
/// and a reply of at most 64 KiB, on the heap.
const STACK: usize = 256 * 1024;

/// Accepts on `listener` for ever. Errors of `accept` (out of descriptors, say) are
/// reported and waited out, never fatal: the clients already connected go on.
pub fn accept_loop(listener: UnixListener, protocol: Protocol, shared: Arc<Shared>) {
    let mut last_error: Option<io::ErrorKind> = None;
    let pool = Pool::new();
    loop {
        let stream = match listener.accept() {
            Ok((s, _)) => s,
            Err(e) => {
                if last_error != Some(e.kind()) {
                    eprintln!("uuidkitd: accept: {e}");
                    last_error = Some(e.kind());
                }
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
        };
        last_error = None;
        shared.connections.fetch_add(1, Ordering::Relaxed);
        if shared.active.fetch_add(1, Ordering::AcqRel) >= shared.limits.max_connections {
            shared.active.fetch_sub(1, Ordering::AcqRel);
            refuse_busy(stream, protocol);
            continue;
        }
        pool.run(Job {
            stream,
            protocol,
            slot: Slot {
                shared: Arc::clone(&shared),
            },
        });
    }
}

/// A connection to serve.
struct Job {
    stream: UnixStream,
    protocol: Protocol,
    /// Counts the connection as active until the job is done.
    slot: Slot,
}

impl Job {
    fn serve(self) {
        match self.protocol {
            Protocol::Own => crate::own::serve(self.stream, &self.slot.shared),
            Protocol::Uuidd => crate::uuidd::serve(self.stream, &self.slot.shared),
        }
    }
}

/// How long a thread with nothing to do waits for a connection before it exits.
const IDLE_THREAD: Duration = Duration::from_secs(30);

/// Threads serving connections: one per connection being served, as before, plus those
/// that finished one and wait up to [`IDLE_THREAD`] for the next.
///
/// `idle` counts waiting threads minus jobs sent to them and not yet taken. A job is
/// sent only after claiming one (a successful decrement), so every job sent has a
/// thread that will take it; a thread that wants to exit must claim itself the same
/// way, and when it cannot (`idle` is 0) a job is on its way to it.
struct Pool {
    tx: Sender<Job>,
    rx: Arc<Mutex<Receiver<Job>>>,
    idle: Arc<AtomicUsize>,
}

impl Pool {
    fn new() -> Pool {
        let (tx, rx) = mpsc::channel();
        Pool {
            tx,
            rx: Arc::new(Mutex::new(rx)),
            idle: Arc::new(AtomicUsize::new(0)),
        }
    }

    fn run(&self, job: Job) {
        if claim(&self.idle) {
            // The receiver lives as long as `self`: sending cannot fail.
            let _ = self.tx.send(job);
            return;
        }
        let rx = Arc::clone(&self.rx);
        let idle = Arc::clone(&self.idle);
        let spawned = std::thread::Builder::new()
            .name("uuidkitd-conn".into())
            .stack_size(STACK)
            .spawn(move || worker(job, &rx, &idle));
        if let Err(e) = spawned {
            // The job (and its connection) was dropped with the closure.
            eprintln!("uuidkitd: cannot start a thread for a client: {e}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Takes one from `idle` if it is above 0.
fn claim(idle: &AtomicUsize) -> bool {
    idle.fetch_update(Ordering::AcqRel, Ordering::Acquire, |i| i.checked_sub(1))
        .is_ok()
}

fn worker(first: Job, rx: &Mutex<Receiver<Job>>, idle: &AtomicUsize) {
    first.serve();
    loop {
        idle.fetch_add(1, Ordering::AcqRel);
        let next = {
            let rx = rx.lock().unwrap_or_else(|p| p.into_inner());
            match rx.recv_timeout(IDLE_THREAD) {
                Ok(job) => Some(job),
                Err(RecvTimeoutError::Timeout) if claim(idle) => None,
                // Claimed meanwhile: the job is coming.
                Err(RecvTimeoutError::Timeout) => rx.recv().ok(),
                Err(RecvTimeoutError::Disconnected) => None,
            }
        };
        match next {
            Some(job) => job.serve(),
            None => return,
        }
    }
}

/// One of the `max_connections` places, taken in [`accept_loop`] and given back when
/// dropped, whichever way the connection ends.
struct Slot {
    shared: Arc<Shared>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.shared.active.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Tells a client over the bound that the daemon is busy (own protocol), or just closes
/// (uuidd: its clients then generate locally, as when no uuidd runs).
fn refuse_busy(stream: UnixStream, protocol: Protocol) {
    if protocol == Protocol::Own {
        let _ = stream.set_write_timeout(Some(Duration::from_millis(50)));
        let reply = uuidkit::service::protocol::Reply::Error {
            status: uuidkit::service::protocol::status::BUSY,
            message: "too many connections".into(),
        };
        let _ = (&stream).write_all(&reply.encode());
    }
}
