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
use crate::source::Source;

/// How far ahead of the daemon's clock a request's `from` may be: 10 s of the kind's
/// time. A client on this host reads the same clock; one asking for positions further
/// ahead would push every other client's UUIDs ahead of the clock with it, and one
/// asking for the last positions would use the kind up for good.
const MAX_AHEAD_SECS: u128 = 10;

/// How far above the highest position already leased a request's `from` may be,
/// whatever the clock says: one second of the kind's time (the longest lease, see
/// `max_lease_len`). A client that goes on past the end of its block asks from just
/// above it: the next position, or for v7 and v8 after a counter overflow the next
/// tick with a fresh random seed (at most 1.5 ms of v7's positions), or for a draft
/// layout the next tick with its sequence at 0 (a whole second for `draft-v8-32`,
/// whose tick is the second). Its block lies at or below the highest position leased,
/// so its `from` lies within one second above it.
const MAX_ABOVE_HIGH_SECS: u128 = 1;

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
        check_ahead(l, &shared.source)?;
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

/// Refuses a lease request whose `from` is further ahead than any client of this host
/// has a reason to ask: more than [`MAX_AHEAD_SECS`] ahead of the daemon's clock *and*
/// more than [`MAX_ABOVE_HIGH_SECS`] above the highest position of the kind already
/// leased.
///
/// Why not the clock alone: once the clock has been set back (an NTP step, a corrected
/// RTC, a restart with the clock behind), the kind's positions are ahead of the clock,
/// by as much as the step, and they have to be: the daemon grants every lease above
/// every position granted before (v6, v7 and v8 stay ordered, v1 distinct). A client
/// that got such a lease and goes on past its end asks `from` just above it, which the
/// clock alone would call far ahead. Refusing it (`TOO_LARGE`, and the connection
/// closes) cut every v1/v6 client, and every draft layout's, off for as long as the
/// step, at positions the daemon itself had granted. Measured against
/// `max(clock, highest position leased)`, the limit keeps its purpose: no single
/// request moves a kind further ahead than where its positions already are plus the
/// one-second allowance, so one request cannot jump to the kind's end, and a `from` at
/// or below the highest position moves nothing (the lease starts above it anyway).
///
/// What this limit does not bound is the lead that grants build up over many requests
/// (each lease starts above the last, up to one second long): that is a bound on the
/// start of grants, not on `from`, and it too has to be measured from the later of
/// the clock and the highest clock reading seen before a step back, or it would refuse
/// every client for as long as a step.
fn check_ahead(l: &WireLeaseRequest, source: &Source) -> Result<(), ProtocolError> {
    let by_clock = clock_position(l.kind).saturating_add(MAX_AHEAD_SECS * second(l.kind));
    if l.from <= by_clock {
        return Ok(());
    }
    // Only now the highest position: for a request this far ahead of the clock, which
    // after a restart means reading the state file.
    let limit = match source.high_water(l.kind) {
        Some(high) => by_clock.max(
            high.saturating_add(1)
                .saturating_add(MAX_ABOVE_HIGH_SECS * second(l.kind)),
        ),
        None => by_clock,
    }
    .min(l.kind.max_position());
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

#[cfg(test)]
mod tests {
    use super::*;
    use uuidkit::store::{LeaseRequest, StateStore};

    fn temp_state(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("uuidkitd-own-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir.join("state")
    }

    fn request(kind: GeneratorKind, from: u128) -> WireLeaseRequest {
        WireLeaseRequest::from(&LeaseRequest::new(kind, clock_position(kind), from, 1))
    }

    fn limit_of(r: Result<(), ProtocolError>) -> Option<u128> {
        match r {
            Ok(()) => None,
            Err(ProtocolError::TooLarge {
                field: "from",
                limit,
                ..
            }) => Some(limit),
            Err(e) => panic!("{e}"),
        }
    }

    /// The positions of every kind lie an hour ahead of the clock, as after the clock was
    /// set back an hour: a client going on just above them is served, by this daemon and
    /// by one started again on the same file; one asking further is still refused.
    #[test]
    fn from_may_follow_positions_left_ahead_by_a_clock_set_back() {
        let path = temp_state("set-back");
        let node = uuidkit::NodeId::from_bytes([2, 0, 0x5e, 0, 0, 1]);
        let kinds = [
            GeneratorKind::Gregorian(node),
            GeneratorKind::V7,
            GeneratorKind::V8,
            GeneratorKind::Draft("draft-v8-32".parse().unwrap()),
            GeneratorKind::Draft("draft-v7-ns".parse().unwrap()),
        ];
        let source = Source::new(StateStore::open(&path));
        let mut highs = Vec::new();
        for kind in kinds {
            let ahead = clock_position(kind) + 3600 * second(kind);
            let lease = source
                .lease(&LeaseRequest::new(kind, ahead, ahead, 1))
                .unwrap();
            highs.push(source.high_water(kind).unwrap());
            assert!(highs.last().unwrap() >= &lease.end);
        }
        let restarted = Source::new(StateStore::open(&path));
        for s in [&source, &restarted] {
            for (&kind, &high) in kinds.iter().zip(&highs) {
                for from in [high, high + 1, high + 1 + second(kind)] {
                    assert_eq!(
                        limit_of(check_ahead(&request(kind, from), s)),
                        None,
                        "{kind:?}"
                    );
                }
                let too_far = high + 2 + second(kind);
                assert_eq!(
                    limit_of(check_ahead(&request(kind, too_far), s)),
                    Some(too_far - 1),
                    "{kind:?}"
                );
            }
        }
        // A kind with no positions leased: the clock alone decides, as before.
        let other = GeneratorKind::Gregorian(uuidkit::NodeId::from_bytes([2, 0, 0x5e, 0, 0, 2]));
        let by_clock = clock_position(other) + MAX_AHEAD_SECS * second(other);
        assert!(
            limit_of(check_ahead(
                &request(other, by_clock - 1_000_000),
                &restarted
            ))
            .is_none()
        );
        let limit = limit_of(check_ahead(
            &request(other, by_clock + 1_000_000_000),
            &restarted,
        ));
        assert!(limit.is_some_and(|l| l < by_clock + 1_000_000_000));
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }
}
