//! uuidkitd's own protocol (`docs/protocol.md`): leases, random batches, status.

use std::os::unix::net::UnixStream;
use std::sync::atomic::Ordering;

use uuidkit::service::protocol::{
    HEADER_LEN, Header, MAX_REQUEST_BODY, ProtocolError, Reply, Request, StatusReport,
    WireLeaseRequest, status,
};
use uuidkit::store::{GeneratorKind, StoreError};
use uuidkit::time::{GregorianTimestamp, UnixTime};

use crate::server::{Shared, read_full, write_reply};

/// How far ahead of the daemon's clock a lease may start: 10 s of the kind's time. A
/// client on this host reads the same clock; one asking for positions further ahead
/// would push every other client's UUIDs ahead of the clock with it, and one asking
/// for the last positions would use the kind up for good.
const MAX_AHEAD_SECS: u128 = 10;

/// Serves one connection until the client closes it, goes idle too long, or sends a
/// request that is refused.
pub fn serve(mut s: UnixStream, shared: &Shared) {
    let limits = shared.limits;
    loop {
        let mut h = [0u8; HEADER_LEN];
        if read_full(
            &mut s,
            &mut h,
            Some(limits.idle_timeout),
            limits.request_timeout,
        )
        .is_err()
        {
            return;
        }
        let reply = match read_request(&mut s, &h, shared) {
            Ok(Some(req)) => answer(&req, shared),
            Ok(None) => return,
            Err(e) => Reply::Error {
                status: e.status(),
                message: e.to_string(),
            },
        };
        let fatal = matches!(reply, Reply::Error { .. });
        if write_reply(&mut s, &reply.encode(), limits.request_timeout).is_err() || fatal {
            return;
        }
    }
}

/// Reads and checks the body after header `h`; `Ok(None)` when the body did not arrive.
fn read_request(
    s: &mut UnixStream,
    h: &[u8; HEADER_LEN],
    shared: &Shared,
) -> Result<Option<Request>, ProtocolError> {
    let header = Header::decode(h)?;
    if header.len > MAX_REQUEST_BODY {
        // Not read: the connection is closed after the reply.
        return Err(ProtocolError::TooLarge {
            field: "length",
            value: header.len.into(),
            limit: MAX_REQUEST_BODY.into(),
        });
    }
    let mut body = vec![0u8; header.len as usize];
    if read_full(s, &mut body, None, shared.limits.request_timeout).is_err() {
        return Ok(None);
    }
    let req = Request::decode(header.code, &body)?;
    if let Request::Lease(l) = &req {
        check_ahead(l)?;
    }
    Ok(Some(req))
}

/// The position of `kind` that the clock reads now.
fn clock_position(kind: GeneratorKind) -> u128 {
    let now = UnixTime::now();
    match kind {
        GeneratorKind::Gregorian(_) => GregorianTimestamp::from_unix_clamped(now).ticks().into(),
        GeneratorKind::V7 => u128::from(now.millis_since_epoch()) << 42,
        GeneratorKind::V8 => u128::from(now.nanos_since_epoch() / 10) << 30,
        GeneratorKind::Draft(_) => kind.clock_position(now),
    }
}

/// One second of `kind`'s positions.
fn second(kind: GeneratorKind) -> u128 {
    match kind {
        GeneratorKind::Gregorian(_) => 10_000_000,
        GeneratorKind::V7 => 1000 << 42,
        GeneratorKind::V8 => 100_000_000 << 30,
        GeneratorKind::Draft(_) => uuidkit::service::protocol::max_lease_len(kind),
    }
}

fn check_ahead(l: &WireLeaseRequest) -> Result<(), ProtocolError> {
    let limit = clock_position(l.kind).saturating_add(MAX_AHEAD_SECS * second(l.kind));
    if l.from > limit {
        return Err(ProtocolError::TooLarge {
            field: "from",
            value: l.from,
            limit,
        });
    }
    Ok(())
}

fn answer(req: &Request, shared: &Shared) -> Reply {
    if shared.shutting_down.load(Ordering::Acquire) {
        return Reply::Error {
            status: status::SHUTTING_DOWN,
            message: "the daemon is shutting down".into(),
        };
    }
    match req {
        Request::Lease(l) => match shared.source.lease(&l.to_lease_request()) {
            Ok(lease) => {
                shared.leases.fetch_add(1, Ordering::Relaxed);
                Reply::Lease(lease)
            }
            Err(StoreError::Ahead { start }) => Reply::Ahead { start },
            Err(StoreError::Exhausted) => Reply::Exhausted,
            Err(e) => Reply::Unavailable(e.to_string()),
        },
        Request::Random { count } => {
            shared
                .random
                .fetch_add(u64::from(*count), Ordering::Relaxed);
            Reply::Random((0..*count).map(|_| uuidkit::v4()).collect())
        }
        Request::Status => Reply::Status(StatusReport {
            version: env!("CARGO_PKG_VERSION").into(),
            state: shared.state_path.clone(),
            uptime_ms: u64::try_from(shared.started.elapsed().as_millis()).unwrap_or(u64::MAX),
            leases: shared.leases.load(Ordering::Relaxed),
            random: shared.random.load(Ordering::Relaxed),
            uuidd_requests: shared.uuidd_requests.load(Ordering::Relaxed),
            clients: u32::try_from(shared.active.load(Ordering::Relaxed)).unwrap_or(u32::MAX),
            connections: shared.connections.load(Ordering::Relaxed),
            pid: std::process::id(),
            node: shared.node,
        }),
    }
}
