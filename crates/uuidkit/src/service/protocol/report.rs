//! What the daemon says about itself: [`StatusReport`], with the lead of each kind
//! ([`KindLead`]).

use super::codes::{kind_code, kind_of_code};
use super::error::ProtocolError;
use super::frame::truncate;
use crate::node::NodeId;
use crate::store::GeneratorKind;

/// What the daemon reports about itself.
///
/// ```
/// use uuidkit::service::protocol::{Reply, StatusReport};
/// let s = StatusReport { version: "0.1.0".into(), state: "/var/lib/uuidkit/state".into(), ..Default::default() };
/// let bytes = Reply::Status(s.clone()).encode();
/// assert_eq!(StatusReport::decode(&bytes[12..])?, s);
/// # Ok::<(), uuidkit::service::protocol::ProtocolError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatusReport {
    /// The daemon's version (the uuidkitd crate's version, such as `0.2.0`).
    pub version: String,
    /// Its state file.
    pub state: String,
    /// Milliseconds since it started.
    pub uptime_ms: u64,
    /// Leases granted (own protocol and uuidd time requests).
    pub leases: u64,
    /// Random UUIDs handed out.
    pub random: u64,
    /// uuidd-protocol requests answered.
    pub uuidd_requests: u64,
    /// Connections open now (including the one asking).
    pub clients: u32,
    /// Connections accepted since it started.
    pub connections: u64,
    /// Its process ID.
    pub pid: u32,
    /// The node ID of the v1 UUIDs it makes for uuidd clients.
    pub node: NodeId,
    /// The bound on the lead, in nanoseconds of the kinds' time; 0 from a daemon that
    /// does not report it (one built before the lead was bounded).
    pub lead_bound_ns: u64,
    /// The kinds the daemon leased since it started whose lead is largest (at most
    /// [`MAX_STATUS_LEADS`]), largest first.
    pub leads: Vec<KindLead>,
    /// The machine ID of a daemon in fleet mode (`uuidkitd --machine-id etcd`); `None`
    /// from a daemon that is not (or was built before fleet mode).
    pub fleet: Option<FleetReport>,
}

/// What a daemon in fleet mode holds: the machine ID it stamps every v7 and draft-layout
/// lease with, and its etcd lease.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FleetReport {
    /// The fleet's name.
    pub fleet: String,
    /// The IDs' width: the fleet has `2^bits` of them.
    pub bits: u32,
    /// The ID held; `None` while the daemon claims one (its last was lost).
    pub id: Option<u64>,
    /// Milliseconds the fence stays open without another renewal; `None` once it is shut
    /// (the lease may have expired): leases are then answered `FENCED`.
    pub remaining_ms: Option<u64>,
    /// The high-water mark written to etcd, Unix milliseconds: nothing is granted that
    /// stands for a later time.
    pub mark_ms: u64,
}

/// How far one kind's highest granted position is ahead of the daemon's reference time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindLead {
    /// The kind.
    pub kind: GeneratorKind,
    /// Nanoseconds of the kind's time; negative when the reference time has passed the
    /// highest position granted (no client asked since).
    pub lead_ns: i64,
}

/// The most [`KindLead`]s one status reply carries: a client can name any node ID, and
/// the reply must stay small.
pub const MAX_STATUS_LEADS: usize = 64;

pub(super) const STATUS_FIXED: usize = 54;

impl StatusReport {
    pub(super) fn encode_body(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(STATUS_FIXED + 4 + self.version.len() + self.state.len());
        b.extend_from_slice(&self.uptime_ms.to_be_bytes());
        b.extend_from_slice(&self.leases.to_be_bytes());
        b.extend_from_slice(&self.random.to_be_bytes());
        b.extend_from_slice(&self.uuidd_requests.to_be_bytes());
        b.extend_from_slice(&self.connections.to_be_bytes());
        b.extend_from_slice(&self.clients.to_be_bytes());
        b.extend_from_slice(&self.pid.to_be_bytes());
        b.extend_from_slice(self.node.as_bytes());
        for s in [&self.version, &self.state] {
            let t = truncate(s);
            b.extend_from_slice(&(t.len() as u16).to_be_bytes());
            b.extend_from_slice(t.as_bytes());
        }
        // Appended after the fields of the first version 1 daemons, which a client of
        // theirs stops reading before: the lead bound, then the kinds' leads.
        b.extend_from_slice(&self.lead_bound_ns.to_be_bytes());
        let leads = &self.leads[..self.leads.len().min(MAX_STATUS_LEADS)];
        b.extend_from_slice(&(leads.len() as u16).to_be_bytes());
        for l in leads {
            let (code, node) = kind_code(l.kind);
            b.push(code);
            b.extend_from_slice(&node);
            b.extend_from_slice(&l.lead_ns.to_be_bytes());
        }
        // Appended after the leads (fleet mode): 0, or 1 and the fleet's machine ID.
        match &self.fleet {
            None => b.push(0),
            Some(f) => {
                b.push(1);
                let t = truncate(&f.fleet);
                b.extend_from_slice(&(t.len() as u16).to_be_bytes());
                b.extend_from_slice(t.as_bytes());
                b.push(f.bits as u8);
                b.push(u8::from(f.id.is_some()));
                b.extend_from_slice(&(f.id.unwrap_or(0) as u32).to_be_bytes());
                b.extend_from_slice(&f.remaining_ms.unwrap_or(u64::MAX).to_be_bytes());
                b.extend_from_slice(&f.mark_ms.to_be_bytes());
            }
        }
        b
    }

    /// Reads a status reply body.
    ///
    /// ```
    /// use uuidkit::service::protocol::{ProtocolError, StatusReport};
    /// assert!(matches!(StatusReport::decode(&[0; 3]), Err(ProtocolError::Malformed { .. })));
    /// ```
    ///
    /// # Errors
    ///
    /// [`ProtocolError::Malformed`] for a body shorter than its fixed part, a version or
    /// state text cut short or not UTF-8, or leads cut short, more than the protocol
    /// allows, or of an unknown kind.
    pub fn decode(b: &[u8]) -> Result<StatusReport, ProtocolError> {
        if b.len() < STATUS_FIXED {
            return Err(ProtocolError::malformed("length", "status body too short"));
        }
        let u64_at = |i: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[i..i + 8]);
            u64::from_be_bytes(a)
        };
        let u32_at = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let mut rest = &b[STATUS_FIXED..];
        let mut text = |field: &'static str| -> Result<String, ProtocolError> {
            if rest.len() < 2 {
                return Err(ProtocolError::malformed(field, "missing"));
            }
            let n = usize::from(u16::from_be_bytes([rest[0], rest[1]]));
            let t = rest
                .get(2..2 + n)
                .ok_or_else(|| ProtocolError::malformed(field, "cut short"))?;
            let s = String::from_utf8(t.to_vec())
                .map_err(|_| ProtocolError::malformed(field, "not UTF-8"))?;
            rest = &rest[2 + n..];
            Ok(s)
        };
        let version = text("version")?;
        let state = text("state")?;
        // A daemon built before the lead was bounded ends here.
        let mut lead_bound_ns = 0;
        let mut leads = Vec::new();
        let mut fleet = None;
        if rest.len() >= 10 {
            let mut a = [0u8; 8];
            a.copy_from_slice(&rest[..8]);
            lead_bound_ns = u64::from_be_bytes(a);
            let n = usize::from(u16::from_be_bytes([rest[8], rest[9]]));
            let entries = rest[10..].chunks_exact(15);
            if entries.len() < n || n > MAX_STATUS_LEADS {
                return Err(ProtocolError::malformed("leads", "cut short or too many"));
            }
            for e in entries.take(n) {
                let kind = kind_of_code(e[0], [e[1], e[2], e[3], e[4], e[5], e[6]])
                    .ok_or_else(|| ProtocolError::malformed("leads", "unknown kind"))?;
                let mut a = [0u8; 8];
                a.copy_from_slice(&e[7..15]);
                leads.push(KindLead {
                    kind,
                    lead_ns: i64::from_be_bytes(a),
                });
            }
            // A daemon built before fleet mode ends here.
            fleet = decode_fleet(&rest[10 + 15 * n..])?;
        }
        Ok(StatusReport {
            version,
            state,
            uptime_ms: u64_at(0),
            leases: u64_at(8),
            random: u64_at(16),
            uuidd_requests: u64_at(24),
            connections: u64_at(32),
            clients: u32_at(40),
            pid: u32_at(44),
            node: NodeId::from_bytes([b[48], b[49], b[50], b[51], b[52], b[53]]),
            lead_bound_ns,
            leads,
            fleet,
        })
    }
}

/// The fleet fields after the leads: none (a daemon before fleet mode), 0, or 1 and the
/// machine ID.
fn decode_fleet(b: &[u8]) -> Result<Option<FleetReport>, ProtocolError> {
    let bad = || ProtocolError::malformed("fleet", "cut short or not UTF-8");
    match b.first() {
        None | Some(0) => return Ok(None),
        Some(1) => {}
        Some(_) => return Err(ProtocolError::malformed("fleet", "unknown flag")),
    }
    let n = usize::from(u16::from_be_bytes([
        *b.get(1).ok_or_else(bad)?,
        *b.get(2).ok_or_else(bad)?,
    ]));
    let name = b.get(3..3 + n).ok_or_else(bad)?;
    let fleet = String::from_utf8(name.to_vec()).map_err(|_| bad())?;
    let f = b.get(3 + n..3 + n + 22).ok_or_else(bad)?;
    let u64_at = |i: usize| {
        let mut a = [0u8; 8];
        a.copy_from_slice(&f[i..i + 8]);
        u64::from_be_bytes(a)
    };
    let remaining = u64_at(6);
    Ok(Some(FleetReport {
        fleet,
        bits: f[0].into(),
        id: (f[1] != 0).then(|| u32::from_be_bytes([f[2], f[3], f[4], f[5]]).into()),
        remaining_ms: (remaining != u64::MAX).then_some(remaining),
        mark_ms: u64_at(14),
    }))
}
