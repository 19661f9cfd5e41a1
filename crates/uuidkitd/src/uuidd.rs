//! util-linux uuidd's protocol, so that libuuid's `uuid_generate_time` and
//! `uuid_generate_time_safe` get their v1 UUIDs from uuidkitd's generator.
//!
//! One request per connection. The client sends one operation byte; for the bulk
//! operations (4 and 5) a count follows, a C `int` (4 bytes, native byte order). The
//! reply is a 4-byte native `int` length and that many bytes:
//!
//! | op | request | reply payload |
//! |---|---|---|
//! | 0 get pid | `op` | the daemon's PID in decimal, NUL-terminated |
//! | 1 get max op | `op` | `"5"`, NUL-terminated |
//! | 2 time UUID | `op` | 16-byte v1 UUID |
//! | 3 random UUID | `op` | 16-byte v4 UUID |
//! | 4 bulk time | `op`, `int n` | 16-byte v1 UUID, `int n` |
//! | 5 bulk random | `op`, `int n` | `int m`, `m` v4 UUIDs (m = n clamped to 0..=63, < 0 as 1) |
//!
//! An unknown operation or a short request is answered by closing the connection, as
//! uuidd does.
//!
//! **Bulk time replies are leases.** libuuid takes the UUID and makes the next `n − 1`
//! itself, adding 1 to the 60-bit timestamp each time (carrying from `time_low` into
//! `time_mid` and `time_hi`), with the same clock sequence and node. It also never reads
//! the count in the reply: it overwrites it with the count it asked for. So the daemon
//! leases exactly `n` consecutive timestamps from the store for its node, and refuses
//! (closes the connection, so that libuuid generates locally) a count it will not grant
//! in full, rather than granting fewer.

use std::os::unix::net::UnixStream;
use std::sync::atomic::Ordering;

use uuidkit::layout::{ClockSequence, GregorianFields, v1};
use uuidkit::store::{GeneratorKind, LeaseRequest};
use uuidkit::time::{GregorianTimestamp, UnixTime};
use uuidkit::{NodeId, Uuid};

use crate::conn::{read_full, write_reply};
use crate::platform::peer_uid;
use crate::shared::Shared;

/// `UUIDD_MAX_OP`.
const MAX_OP: u8 = 5;

/// The most timestamps one bulk time request may lease: 2^21 (0.2 s of 100 ns ticks).
/// libuuid 2.38 asks for up to 1,000,000 at a time, newer ones up to 2^18.
pub const MAX_BULK_TIME: i32 = 1 << 21;

/// The most UUIDs one bulk random reply holds, as uuidd: 63.
const MAX_BULK_RANDOM: i32 = 63;

/// Serves one uuidd request.
pub fn serve(mut s: UnixStream, shared: &Shared) {
    let t = shared.limits.request_timeout;
    let mut op = [0u8; 1];
    if read_full(&mut s, &mut op, Some(t), t).is_err() {
        return;
    }
    let op = op[0];
    let num = if op == 4 || op == 5 {
        let mut n = [0u8; 4];
        if read_full(&mut s, &mut n, None, t).is_err() {
            return;
        }
        i32::from_ne_bytes(n)
    } else {
        1
    };
    let payload: Vec<u8> = match op {
        0 => nul_terminated(&std::process::id().to_string()),
        1 => nul_terminated(&MAX_OP.to_string()),
        2 => match time_uuid(shared, 1, peer_uid(&s)) {
            Some(u) => u.as_bytes().to_vec(),
            None => return,
        },
        3 => uuidkit::v4().as_bytes().to_vec(),
        4 => {
            // uuidd passes a count of 0 or less on as 1.
            let n = num.max(1);
            if n > MAX_BULK_TIME {
                return;
            }
            let Some(u) = time_uuid(shared, n as u32, peer_uid(&s)) else {
                return;
            };
            let mut p = u.as_bytes().to_vec();
            p.extend_from_slice(&n.to_ne_bytes());
            p
        }
        5 => {
            let n = if num < 0 { 1 } else { num.min(MAX_BULK_RANDOM) };
            let mut p = n.to_ne_bytes().to_vec();
            for _ in 0..n {
                p.extend_from_slice(uuidkit::v4().as_bytes());
            }
            shared.random.fetch_add(n as u64, Ordering::Relaxed);
            p
        }
        _ => return,
    };
    shared.uuidd_requests.fetch_add(1, Ordering::Relaxed);
    // Payloads are at most 4 + 63 × 16 bytes.
    let mut reply = (payload.len() as i32).to_ne_bytes().to_vec();
    reply.extend_from_slice(&payload);
    let _ = write_reply(&mut s, &reply, t);
}

fn nul_terminated(s: &str) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.push(0);
    v
}

/// The first v1 UUID of a lease of `n` consecutive timestamps of the daemon's node, for
/// a peer of `uid`; `None` when the store cannot grant all `n`, or not within the bound
/// on the lead and the uid's share of it (`lead.rs`): libuuid takes the closed
/// connection as no daemon, and makes its UUID itself.
fn time_uuid(shared: &Shared, n: u32, uid: u32) -> Option<Uuid> {
    if shared.shutting_down.load(Ordering::Acquire) {
        return None;
    }
    let now = u128::from(GregorianTimestamp::from_unix_clamped(UnixTime::now()).ticks());
    let mut req = LeaseRequest::new(GeneratorKind::Gregorian(shared.node), now, now, n.into());
    req.fresh_clock_seq = random_clock_seq();
    let lease = shared.source.lease_bounded(&req, uid, true).ok()?;
    if lease.len() < u128::from(n) {
        return None;
    }
    shared.leases.fetch_add(1, Ordering::Relaxed);
    Some(encode(shared.node, lease.start, lease.clock_seq?))
}

fn encode(node: NodeId, ticks: u128, clock_seq: ClockSequence) -> Uuid {
    v1::encode(&GregorianFields {
        timestamp: GregorianTimestamp::from_ticks(ticks as u64).unwrap_or(GregorianTimestamp::MAX),
        clock_seq,
        node,
    })
}

fn random_clock_seq() -> ClockSequence {
    let b = uuidkit::v4();
    ClockSequence::from_masked(u16::from_be_bytes([b.as_bytes()[0], b.as_bytes()[1]]))
}
