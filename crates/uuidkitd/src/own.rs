//! uuidkitd's own protocol (`docs/protocol.md`): leases, random batches, status.

use std::os::unix::net::UnixStream;
use std::sync::atomic::Ordering;

use uuidkit::service::protocol::{
    HEADER_LEN, Header, MAX_REQUEST_BODY, ProtocolError, Reply, Request, StatusReport, status,
};
use uuidkit::store::{Lease, LeaseRequest, StoreError};

use crate::conn::{read_full, write_reply};
use crate::lead;
use crate::platform::peer_uid;
use crate::shared::Shared;
use crate::source::{Denied, Source};

/// Serves one connection until the client closes it, goes idle too long, or sends a
/// request that is refused.
pub fn serve(mut s: UnixStream, shared: &Shared) {
    let limits = shared.limits;
    // Every request of the connection is its peer's: the fair share is per uid.
    let uid = peer_uid(&s);
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
            Ok(Some(req)) => answer(&req, shared, uid),
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

/// Refuses (`TOO_LARGE`) a lease request whose `from` lies more than the bound on the
/// lead plus one second above the daemon's reference time `R` (`lead.rs`). Every grant
/// ends at most the bound above `R`, and `R` never goes back, so a client that goes on
/// just above its lease asks within this: the next position, or for v7 and v8 after a
/// counter overflow the next tick (at most 1.5 ms of v7's positions), or for a draft
/// layout the next tick with its sequence at 0 (a whole second for `draft-v8-32`). `R`
/// follows real time from where the kind was after the clock is set back, so this holds
/// then too, without measuring from the highest position granted, which clients move.
/// A `from` within this but too far ahead to grant now is answered `LATER`.
fn check_ahead(l: &LeaseRequest, source: &Source) -> Result<(), ProtocolError> {
    let r = source
        .lead
        .reference_of(l.kind, || source.file_high(l.kind));
    let bound = lead::positions_of(l.kind, source.lead.bound());
    let limit = r
        .saturating_add(bound)
        .saturating_add(lead::second(l.kind))
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

fn answer(req: &Request, shared: &Shared, uid: u32) -> Reply {
    if shared.shutting_down.load(Ordering::Acquire) {
        return Reply::Error {
            status: status::SHUTTING_DOWN,
            message: "the daemon is shutting down".into(),
        };
    }
    match req {
        Request::Lease(l) => match lease(shared, l, uid) {
            Err(fenced) => Reply::Fenced(fenced),
            Ok(r) => lease_reply(shared, r),
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
            lead_bound_ns: u64::try_from(shared.source.lead.bound().as_nanos()).unwrap_or(u64::MAX),
            leads: shared.source.lead.report(),
            fleet: shared.fleet.as_ref().map(|f| f.report()),
        }),
    }
}

/// A lease within the bound; in fleet mode, for v7 and the draft layouts, stamped with
/// the machine ID, or `Err` (the text of a `FENCED` reply) when the ID is not held for
/// sure (`fleet.rs`).
fn lease(shared: &Shared, req: &LeaseRequest, uid: u32) -> Result<Result<Lease, Denied>, String> {
    match &shared.fleet {
        Some(fleet) if crate::fleet::stamped(req.kind) => fleet.grant(
            req,
            |r| shared.source.lease_bounded(r, uid, false),
            Denied::Later,
        ),
        _ => Ok(shared.source.lease_bounded(req, uid, false)),
    }
}

fn lease_reply(shared: &Shared, r: Result<Lease, Denied>) -> Reply {
    match r {
        Ok(lease) => {
            shared.leases.fetch_add(1, Ordering::Relaxed);
            Reply::Lease(lease)
        }
        Err(Denied::Later(wait)) => Reply::Later {
            // Rounded up: asked again after this, the lease fits.
            wait_ms: u64::try_from(wait.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX),
        },
        Err(Denied::Store(StoreError::Ahead { start })) => Reply::Ahead { start },
        Err(Denied::Store(StoreError::Exhausted)) => Reply::Exhausted,
        Err(Denied::Store(e)) => Reply::Unavailable(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuidkit::store::{GeneratorKind, StateStore};

    fn temp_state(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("uuidkitd-own-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir.join("state")
    }

    fn request(kind: GeneratorKind, from: u128) -> LeaseRequest {
        LeaseRequest::new(kind, lead::clock_position(kind), from, 1)
    }

    fn refused(r: Result<(), ProtocolError>) -> bool {
        match r {
            Ok(()) => false,
            Err(ProtocolError::TooLarge { field: "from", .. }) => true,
            Err(e) => panic!("{e}"),
        }
    }

    /// The positions of every kind lie an hour ahead of the clock, as after the clock was
    /// set back an hour: a client going on just above them is served, by this daemon and
    /// by one started again on the same file (its reference time starts from the file);
    /// one asking far further is still refused.
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
            let ahead = lead::clock_position(kind) + 3600 * lead::second(kind);
            let lease = source
                .lease(&LeaseRequest::new(kind, ahead, ahead, 1))
                .unwrap();
            highs.push(source.high_water(kind).unwrap());
            assert!(highs.last().unwrap() >= &lease.end);
        }
        let restarted = Source::new(StateStore::open(&path));
        for (&kind, &high) in kinds.iter().zip(&highs) {
            for from in [high, high + 1, high + 1 + lead::second(kind)] {
                assert!(
                    !refused(check_ahead(&request(kind, from), &restarted)),
                    "{kind:?}"
                );
            }
            let too_far = high + 3600 * lead::second(kind);
            assert!(
                refused(check_ahead(&request(kind, too_far), &restarted)),
                "{kind:?}"
            );
        }
        // A kind with no positions leased: the clock decides.
        let other = GeneratorKind::Gregorian(uuidkit::NodeId::from_bytes([2, 0, 0x5e, 0, 0, 2]));
        let clock = lead::clock_position(other);
        assert!(!refused(check_ahead(
            &request(other, clock + 9 * lead::second(other)),
            &restarted
        )));
        assert!(refused(check_ahead(
            &request(other, clock + 60 * lead::second(other)),
            &restarted
        )));
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    /// Requests for the longest lease from ever further ahead, by one uid: the grants
    /// stop at its share, then at the bound for another uid; neither the clock nor the
    /// reference time moves with them.
    #[test]
    fn grants_stay_within_the_bound_and_the_share() {
        let path = temp_state("bound");
        let source = Source::new(StateStore::open(&path));
        let kind = GeneratorKind::V7;
        let sec = lead::second(kind);
        let mut highest = 0;
        let mut later = 0;
        for uid in [1000, 1001, 1002, 1003, 1004] {
            for _ in 0..50 {
                let clock = lead::clock_position(kind);
                let from = clock + 9 * sec;
                match source.lease_bounded(&LeaseRequest::new(kind, clock, from, sec), uid, false) {
                    Ok(l) => highest = highest.max(l.end),
                    Err(Denied::Later(_)) => later += 1,
                    Err(Denied::Store(e)) => panic!("{e}"),
                }
                let clock = lead::clock_position(kind);
                assert!(
                    highest <= clock + 10 * sec + sec / 10,
                    "lead past the bound"
                );
            }
        }
        assert!(later > 0);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }
}
