//! `uuidkit collisions`: the figures of `uuidkit::collisions` for a fleet.

use std::io::Write;

use clap::error::ErrorKind;
use uuidkit::collisions::{self, Fleet, MachineId, Mode, Model, Node};
use uuidkit::generator::v7::V7Method;
use uuidkit::layout::Layout;

use crate::args::CollisionsArgs;
use crate::failure::{Failure, Status, usage_error};

fn usage(message: impl std::fmt::Display) -> Failure {
    usage_error("collisions", ErrorKind::ArgumentConflict, message)
}

/// The mode the flags name; a flag the version does not take is a usage error naming it.
fn mode(a: &CollisionsArgs) -> Result<Mode, Failure> {
    let v = a.version.as_str();
    let only =
        |flag: &str, versions: &str| usage(format!("{flag} applies to {versions} only, not {v}"));
    if a.method.is_some() && v != "v7" {
        return Err(only("--method", "v7"));
    }
    if a.layout.is_some() && v != "v8" {
        return Err(only("--layout", "v8"));
    }
    if a.node.is_some() && !matches!(v, "v1" | "v6") {
        return Err(only("--node", "v1 and v6"));
    }
    if a.machine_id_bits.is_some() && !matches!(v, "v7" | "v8") {
        return Err(only("--machine-id-bits", "v7 and the v8 layouts"));
    }
    let machine_id = a.machine_id_bits.map(|bits| match a.machine_id.as_deref() {
        Some("hash") => MachineId::Hashed { bits },
        Some("leased") => MachineId::Leased { bits },
        _ => MachineId::Assigned { bits },
    });
    Ok(match v {
        "v4" => Mode::V4,
        "v1" | "v6" => Mode::Gregorian {
            node: match a.node.as_deref() {
                Some("random") => Node::Random,
                Some("hash") => Node::Hash,
                Some("mac") => Node::Mac,
                _ => Node::Static,
            },
        },
        "v7" => Mode::V7 {
            method: match a.method.as_deref() {
                Some("random") => V7Method::Random,
                Some("precision") => V7Method::Precision,
                _ => V7Method::Counter,
            },
            machine_id,
        },
        _ => match a.layout {
            None | Some(Layout::B1) => Mode::V8 { machine_id },
            Some(layout) => Mode::Draft { layout, machine_id },
        },
    })
}

/// What a figure of 0 rests on, for IDs handed out distinct: the fleet never has more
/// hosts at once than IDs, and (leased) the host taking over an ID starts above its
/// previous holder's mark.
fn assumption(a: &CollisionsArgs) -> Option<String> {
    let bits = a.machine_id_bits?;
    let ids = 1u128 << bits;
    match a.machine_id.as_deref() {
        Some("hash") => None,
        // Enforced by the code: one holder per ID (etcd's claim transaction), one width
        // and placement per fleet (its geometry key), the mark between holders (bounded,
        // and skipped when too far ahead), no ID stamped without a lease (the fence, and
        // a service's clients drop it). The rest is the user's, and said as such.
        Some("leased") => Some(format!(
            "at most {ids} hosts (2^{bits}) hold IDs at once (etcd refuses, or keeps waiting, \
             the next); every holder of the fleet puts its ID in the same bits (recorded in \
             etcd and checked at each claim); a host that takes over an ID starts above its \
             previous holder's high-water mark, so the figures hold through crashes, \
             replacements and clocks set back. Yours to keep: every UUID is made through \
             uuidkit's fleet (gen --machine-id etcd, FleetGenerator, a fleet-mode \
             uuidkitd), on one etcd cluster whose marks are never \
             deleted while UUIDs near them may still be made"
        )),
        _ => Some(format!(
            "at most {ids} hosts (2^{bits}), each given an ID no other live host has (by \
             whoever runs the fleet), and a host reusing a retired ID starts after its last \
             UUID"
        )),
    }
}

/// What the random bits of a model are, in words.
fn describe(m: Model) -> String {
    match m {
        Model::Birthday { bits } => format!("{bits} random bits per UUID, all UUIDs against all"),
        Model::PerUnit { unit, bits } => {
            format!(
                "{bits} random bits per UUID within each {} of time",
                seconds(unit)
            )
        }
        Model::Sequenced { unit, bits } => format!(
            "a sequence from 0 in each {}, then {bits} random bits",
            seconds(unit)
        ),
        Model::HostIdentity { bits } => {
            format!(
                "a {bits}-bit host identity (node and clock sequence), one UUID per 100 ns tick"
            )
        }
        Model::Distinct => "hosts never share their distinguishing bits".into(),
    }
}

fn seconds(s: f64) -> String {
    match s {
        s if s >= 1.0 => format!("{s} s"),
        s if s >= 1e-3 => format!("{} ms", s * 1e3),
        s if s >= 1e-6 => format!("{:.3} µs", s * 1e6),
        s => format!("{:.1} ns", s * 1e9),
    }
}

/// A figure in scientific notation with 2 significant digits (`2.3e-19`); 0 as `0`.
fn sci(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else {
        format!("{v:.1e}")
    }
}

pub fn run(a: &CollisionsArgs, out: &mut impl Write) -> Result<Status, Failure> {
    let mode = mode(a)?;
    let fleet = Fleet {
        hosts: a.hosts,
        rate: a.rate,
        years: a.years,
    };
    let e = collisions::estimate(&mode, &fleet).map_err(|e| usage(e.to_string()))?;
    if a.json {
        let json = serde_json::json!({
            "version": a.version,
            "method": a.method,
            "layout": a.layout.map(|l| l.name()),
            "node": a.node,
            "machine_id_bits": a.machine_id_bits,
            "machine_id": a.machine_id_bits.map(|_| a.machine_id.as_deref().unwrap_or("assigned")),
            "hosts": a.hosts,
            "rate": a.rate,
            "years": a.years,
            "uuids": fleet.uuids(),
            "model": describe(e.model),
            "expected_pairs": e.expected_pairs,
            "probability": e.probability,
            "assumes": assumption(a),
        });
        writeln!(out, "{json}")?;
    } else {
        writeln!(out, "UUIDs made:              {}", sci(fleet.uuids()))?;
        writeln!(out, "what keeps hosts apart:  {}", describe(e.model))?;
        writeln!(out, "expected colliding pairs: {}", sci(e.expected_pairs))?;
        writeln!(out, "probability of at least one: {}", sci(e.probability))?;
        if let Some(assumes) = assumption(a) {
            writeln!(out, "assumes: {assumes}")?;
        }
    }
    Ok(Status::Ok)
}
