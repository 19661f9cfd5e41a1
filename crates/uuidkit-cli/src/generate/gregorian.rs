//! The Gregorian versions, v1, v2 and v6: a 60-bit count of 100 ns ticks since 1582, a
//! clock sequence and a node; v2's domain and local ID; and `gen v1 --shards`, several
//! generators of one node that take turns.

use std::io::Write;
use std::sync::Arc;

use clap::error::ErrorKind;
use uuidkit::Version;
use uuidkit::generator::gregorian::{GregorianGenerator, OverrunPolicy};
use uuidkit::layout::v2::Domain;
use uuidkit::node::NodeStrategy;
use uuidkit::random::Csprng;
use uuidkit::service::client::DaemonClient;
use uuidkit::time::Clock;

use super::emit::{Stopped, emit_batches, fill_each};
use super::sources::{fixed, live_state, node_strategy};
use crate::args::{DomainArg, GenArgs, GenVersion};
use crate::failure::{Failure, Status, usage_error};
use crate::state::GenState;
use crate::stdio::report;

use GenVersion::*;

fn usage(kind: ErrorKind, message: impl std::fmt::Display) -> Failure {
    usage_error("gen", kind, message)
}

/// The default local ID of a v2 UUID: the UID or GID of this process.
fn default_local_id(domain: DomainArg) -> Result<u32, Failure> {
    let missing = |why: String| {
        usage(
            ErrorKind::MissingRequiredArgument,
            format!("gen v2 --domain {why}; pass --local-id N"),
        )
    };
    match domain {
        DomainArg::Org => Err(missing("org has no default local ID".to_string())),
        DomainArg::Other(n) => Err(missing(format!("{n} has no default local ID"))),
        DomainArg::Person | DomainArg::Group => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                let which = if domain == DomainArg::Person {
                    "person"
                } else {
                    "group"
                };
                let md = std::fs::metadata("/proc/self").map_err(|e| {
                    missing(format!(
                        "{which}: cannot read this process's user and group IDs from /proc/self ({e})"
                    ))
                })?;
                Ok(if domain == DomainArg::Person {
                    md.uid()
                } else {
                    md.gid()
                })
            }
            #[cfg(not(unix))]
            {
                Err(missing(
                    "person/group: this system has no POSIX user and group IDs".to_string(),
                ))
            }
        }
    }
}

/// What a Gregorian generator is asked for: v1/v6, or v2 with its domain and local ID.
#[derive(Clone, Copy)]
enum GregorianKind {
    Plain,
    Dce(Domain, u32),
}

fn run_gregorian<C: Clock>(
    a: &GenArgs,
    out: &mut impl Write,
    generator: GregorianGenerator<C, Csprng>,
    node: Option<NodeStrategy>,
    kind: GregorianKind,
    state: GenState,
) -> Result<Status, Failure> {
    let mut g = generator;
    if let Some(n) = node {
        g = g.with_node(n);
    }
    if let Some(cs) = a.clock_seq {
        g = g.with_clock_seq(cs);
    }
    let GenState {
        store,
        mut warnings,
    } = state;
    if let Some(store) = store {
        // After the node: with a store, `static` becomes the host's hash node.
        g = g.with_store(store);
    }
    if let Some(w) = g.node_warning() {
        report(format_args!("warning: {w}"));
    }
    emit_batches(a, out, |b| {
        let made = match kind {
            GregorianKind::Plain => fill_each(b, || g.next()),
            GregorianKind::Dce(domain, id) => fill_each(b, || g.next_v2(domain, id)),
        };
        let done = made.as_ref().map_or_else(|s| s.done, |()| b.len());
        warnings
            .after_batch(g.take_store_warnings(), done)
            .map_err(Stopped::all)?;
        made
    })
}

/// `gen v1`, `gen v2` and `gen v6` (and `gen v1 --shards`).
pub(super) fn run(
    a: &GenArgs,
    out: &mut impl Write,
    daemon: Option<Arc<DaemonClient>>,
) -> Result<Status, Failure> {
    if let Some(n) = a.shards {
        return run_sharded(a, out, n);
    }
    let node = node_strategy(a)?;
    let kind = if a.version == V2 {
        let domain = a.domain.unwrap_or(DomainArg::Person);
        let id = match a.local_id {
            Some(id) => id,
            None => default_local_id(domain)?,
        };
        let domain = match domain {
            DomainArg::Person => Domain::Person,
            DomainArg::Group => Domain::Group,
            DomainArg::Org => Domain::Org,
            DomainArg::Other(n) => Domain::Other(n),
        };
        GregorianKind::Dce(domain, id)
    } else {
        GregorianKind::Plain
    };
    let version = if a.version == V6 {
        Version::V6
    } else {
        Version::V1
    };
    match &a.time {
        Some(t) => {
            let g = GregorianGenerator::with_sources(version, fixed(t.time), Csprng)
                .with_overrun(OverrunPolicy::Advance);
            run_gregorian(a, out, g, node, kind, GenState::none())
        }
        None => {
            // v1()/v6() follow UUIDKIT_NODE themselves (validated above); only the flag
            // is left to apply.
            let g = if version == Version::V6 {
                GregorianGenerator::v6()
            } else {
                GregorianGenerator::v1()
            };
            // A node that changes with every UUID keeps them apart without state (and
            // the generator would not use the store, file or daemon, for it).
            let state = if matches!(node, Some(NodeStrategy::Random)) {
                GenState::none()
            } else {
                live_state(a, daemon)
            };
            run_gregorian(a, out, g, a.node.clone(), kind, state)
        }
    }
}

/// `gen v1 --shards N`: N generators of one node with distinct clock sequences, a batch
/// from each in turn, each with its own budget of one UUID per 100 ns tick.
fn run_sharded(a: &GenArgs, out: &mut impl Write, shards: u32) -> Result<Status, Failure> {
    let strategy = match &a.node {
        Some(n) => n.clone(),
        None => NodeStrategy::from_env()
            .map_err(|e| {
                usage(
                    ErrorKind::ValueValidation,
                    format!("{e}; --node overrides {}", e.variable()),
                )
            })?
            .unwrap_or_default(),
    };
    let (node, warning) = match strategy {
        // One node for all of them: their clock sequences keep them apart.
        NodeStrategy::Static | NodeStrategy::Random => {
            (uuidkit::node::random_node(&mut Csprng), None)
        }
        s => s.resolve(&mut Csprng),
    };
    if let Some(w) = warning {
        report(format_args!("warning: {w}"));
    }
    let g = uuidkit::generator::sharded::ShardedGregorian::with_node(
        uuidkit::Version::V1,
        shards as usize,
        node,
    )
    .map_err(|e| Failure::Message(e.to_string()))?;
    // A batch from each generator in turn: one lock a batch.
    let mut turn = 0usize;
    emit_batches(a, out, |b| {
        let made = g.fill_from(turn, b).map_err(|(done, e)| Stopped {
            done,
            failure: Failure::Message(e.to_string()),
        });
        turn = turn.wrapping_add(1);
        made
    })
}
