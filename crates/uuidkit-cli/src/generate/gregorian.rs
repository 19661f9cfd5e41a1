//! The Gregorian versions, v1, v2 and v6: a 60-bit count of 100 ns ticks since 1582, a
//! clock sequence and a node; v2's domain and local ID; and `gen v1 --shards`, several
//! generators of one node that take turns.

use std::io::Write;

use uuidkit::generator::gregorian::{GregorianGenerator, OverrunPolicy};
use uuidkit::generator::sharded::ShardedGregorian;
use uuidkit::layout::ClockSequence;
use uuidkit::layout::v2::Domain;
use uuidkit::node::NodeStrategy;
use uuidkit::random::Csprng;
use uuidkit::time::{Clock, FnClock};

use super::emit::{Output, Stopped, emit_batches, fill_each};
use super::plan::{Clocked, Gregorian, Store};
use crate::failure::{Failure, Status};
use crate::state_choice::GenState;
use crate::stdio::report;

/// `gen v1`, `gen v2` and `gen v6`.
pub(super) fn run(p: Gregorian, output: &Output, out: &mut impl Write) -> Result<Status, Failure> {
    let Gregorian {
        version,
        dce,
        node,
        node_flag,
        clock_seq,
        clock,
    } = p;
    let kind = Kind { dce, clock_seq };
    match clock {
        Clocked::At(t) => {
            let g = GregorianGenerator::with_sources(version, FnClock(move || t), Csprng)
                .with_overrun(OverrunPolicy::Advance);
            run_on(g, node, kind, GenState::none(), output, out)
        }
        Clocked::Live(store) => {
            // v1()/v6() follow UUIDKIT_NODE themselves (checked with the flags); only the
            // flag is left to apply.
            let g = if version == uuidkit::Version::V6 {
                GregorianGenerator::v6()
            } else {
                GregorianGenerator::v1()
            };
            // A node that changes with every UUID keeps them apart without state (and
            // the generator would not use the store, file or daemon, for it).
            let state = if matches!(node, Some(NodeStrategy::Random)) {
                Store::Memory.open()
            } else {
                store.open()
            };
            run_on(g, node_flag, kind, state, output, out)
        }
    }
}

/// What every UUID of a run shares beyond the node: v2's domain and local ID, and a
/// clock sequence given.
struct Kind {
    dce: Option<(Domain, u32)>,
    clock_seq: Option<ClockSequence>,
}

fn run_on<C: Clock>(
    mut g: GregorianGenerator<C, Csprng>,
    node: Option<NodeStrategy>,
    Kind { dce, clock_seq }: Kind,
    state: GenState,
    output: &Output,
    out: &mut impl Write,
) -> Result<Status, Failure> {
    if let Some(n) = node {
        g = g.with_node(n);
    }
    if let Some(cs) = clock_seq {
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
    emit_batches(output, out, |b| {
        let made = match dce {
            None => fill_each(b, || g.next()),
            Some((domain, id)) => fill_each(b, || g.next_v2(domain, id)),
        };
        let done = made.as_ref().map_or_else(|s| s.done, |()| b.len());
        warnings
            .after_batch(g.take_store_warnings(), done)
            .map_err(Stopped::all)?;
        made
    })
}

/// `gen v1 --shards N`: N generators of one node with distinct clock sequences, a batch
/// from each in turn, each with its own budget of one UUID per 100 ns tick.
pub(super) fn run_sharded(
    shards: u32,
    strategy: NodeStrategy,
    output: &Output,
    out: &mut impl Write,
) -> Result<Status, Failure> {
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
    let g = ShardedGregorian::with_node(uuidkit::Version::V1, shards as usize, node)
        .map_err(|e| Failure::Message(e.to_string()))?;
    // A batch from each generator in turn: one lock a batch.
    let mut turn = 0usize;
    emit_batches(output, out, |b| {
        let made = g.fill_from(turn, b).map_err(|(done, e)| Stopped {
            done,
            failure: Failure::Message(e.to_string()),
        });
        turn = turn.wrapping_add(1);
        made
    })
}
