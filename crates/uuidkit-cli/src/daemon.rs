//! `uuidkit daemon status`: uuidkitd's report, as one JSON object. Which daemon `gen`
//! uses, and the check that it answers, are [`crate::state_choice`]'s.

use std::io::Write;
use std::path::Path;

use serde_json::json;
use uuidkit::service::client::DaemonClient;
use uuidkit::service::{DAEMON_ENV, default_socket_path};

use crate::args::{DaemonAction, DaemonArgs};
use crate::failure::{Failure, Status};
use crate::state_choice::{Origin, unreachable};

/// Runs `daemon`.
pub fn run(a: &DaemonArgs, out: &mut impl Write) -> Result<Status, Failure> {
    match &a.action {
        DaemonAction::Status(s) => status(s.daemon.as_deref(), out),
    }
}

/// `uuidkit daemon status`: the daemon's report as one pretty-printed JSON object (as
/// `state show` writes its own).
fn status(explicit: Option<&Path>, out: &mut impl Write) -> Result<Status, Failure> {
    let (path, origin) = match (explicit, uuidkit::generator::daemon_from_env()) {
        (Some(p), _) => (p.to_path_buf(), Origin::Flag),
        (None, Some(p)) => (p, Origin::Env),
        (None, None) => match default_socket_path() {
            Some(p) => (p, Origin::Default),
            None => {
                return Err(Failure::Message(format!(
                    "no daemon socket: {DAEMON_ENV} is not set, and XDG_RUNTIME_DIR, where \
                     a user's daemon listens, is not an absolute directory; give --daemon PATH"
                )));
            }
        },
    };
    let report = DaemonClient::new(&path)
        .status()
        .map_err(|e| unreachable(&path, origin, &e))?;
    let doc = json!({
        "socket": path.to_string_lossy(),
        "version": report.version,
        "state": report.state,
        "pid": report.pid,
        "uptime_ms": report.uptime_ms,
        "leases": report.leases,
        "random": report.random,
        "uuidd_requests": report.uuidd_requests,
        "clients": report.clients,
        "connections": report.connections,
        "node": report.node.to_string(),
        "lead_bound_ms": report.lead_bound_ns as f64 / 1e6,
        "leads": report.leads.iter().map(|l| json!({
            "kind": kind_name(l.kind),
            "lead_ms": l.lead_ns as f64 / 1e6,
        })).collect::<Vec<_>>(),
        "machine_id": machine_id_line(report.fleet.as_ref()),
        "fleet": report.fleet.as_ref().map(|f| json!({
            "fleet": f.fleet,
            "bits": f.bits,
            "id": f.id,
            "lease_left_ms": f.remaining_ms,
            "mark_ms": f.mark_ms,
            "mark": mark_time(f.mark_ms),
        })),
    });
    // Serializing a Value built here cannot fail; the write can.
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.write_all(text.as_bytes())?;
    out.write_all(b"\n")?;
    Ok(Status::Ok)
}

/// The daemon's machine ID in a line: `machine ID N of 2^B (fleet NAME), lease X.X s
/// left, mark <RFC 3339>`, or why it has none.
fn machine_id_line(fleet: Option<&uuidkit::service::protocol::FleetReport>) -> String {
    let Some(f) = fleet else {
        return "none: the daemon is not in fleet mode (uuidkitd --machine-id etcd)".into();
    };
    let Some(id) = f.id else {
        return format!(
            "none: claiming a machine ID of fleet {} (2^{} IDs); v7 and draft-layout leases \
             are refused (FENCED) until then",
            f.fleet, f.bits
        );
    };
    let lease = match f.remaining_ms {
        Some(ms) => format!("lease {:.1} s left", ms as f64 / 1000.0),
        None => "lease not renewed in time: fenced, leases refused until etcd renews it".into(),
    };
    format!(
        "machine ID {id} of 2^{} (fleet {}), {lease}, mark {}",
        f.bits,
        f.fleet,
        mark_time(f.mark_ms)
    )
}

/// A mark (Unix milliseconds) in RFC 3339.
fn mark_time(ms: u64) -> String {
    uuidkit::time::UnixTime::from_millis(ms).to_rfc3339(3)
}

/// A kind as `daemon status` names it: `v7`, `v8`, a draft layout's name, or `v1/v6` and
/// the node ID for a Gregorian kind.
fn kind_name(kind: uuidkit::store::GeneratorKind) -> String {
    use uuidkit::store::GeneratorKind;
    match kind {
        GeneratorKind::Gregorian(node) => format!("v1/v6 {node}"),
        GeneratorKind::V7 => "v7".into(),
        GeneratorKind::V8 => "v8".into(),
        GeneratorKind::Draft(l) => l.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuidkit::service::protocol::FleetReport;

    #[test]
    fn the_machine_id_line() {
        let mut f = FleetReport {
            fleet: "web".into(),
            bits: 3,
            id: Some(5),
            remaining_ms: Some(9_460),
            mark_ms: 1_700_000_000_123,
        };
        assert_eq!(
            machine_id_line(Some(&f)),
            "machine ID 5 of 2^3 (fleet web), lease 9.5 s left, mark 2023-11-14T22:13:20.123Z"
        );
        f.remaining_ms = None;
        assert!(machine_id_line(Some(&f)).contains("fenced"));
        f.id = None;
        assert!(machine_id_line(Some(&f)).starts_with("none: claiming"));
        assert!(machine_id_line(None).starts_with("none: the daemon is not in fleet mode"));
    }
}
