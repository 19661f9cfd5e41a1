//! `uuidkit gen VERSION`: check which flags apply, build the generator (with the state
//! file or uuidkitd for the time-based versions), write N UUIDs, and print what the
//! generator says about its state file as warnings.

use std::io::Write;
use std::sync::Arc;

use clap::error::ErrorKind;
use uuidkit::encoding::Encoding;
use uuidkit::layout::v2::Domain;
use uuidkit::random::Csprng;
use uuidkit::text::{self, LineEnd};
use uuidkit::time::{
    Clock, FnClock, GregorianTimestamp, TimeError, UnixTime, unix_10ns_60, unix_millis_48,
};
use uuidkit::{Case, Format, Uuid, Version};

use uuidkit::generator::GenError;
use uuidkit::generator::custom::CustomGenerator;
use uuidkit::generator::gregorian::{GregorianGenerator, OverrunPolicy};
use uuidkit::generator::unix::{UnixGenerator, V7Method};
use uuidkit::node::NodeStrategy;
use uuidkit::service::client::DaemonClient;
use uuidkit::service::protocol::MAX_RANDOM_COUNT;

use crate::args::{DomainArg, GenArgs, GenVersion, MethodArg, TimeArg};
use crate::state::GenState;
use crate::{Failure, Status, usage_error};

use GenVersion::*;

/// Each optional flag of `gen` and the versions it applies to.
fn applicability(a: &GenArgs) -> [(&'static str, bool, &'static [GenVersion], &'static str); 10] {
    const NAMED: &[GenVersion] = &[V3, V5, V8];
    const TIMED: &[GenVersion] = &[V1, V2, V6, V7, V8];
    const GREGORIAN: &[GenVersion] = &[V1, V2, V6];
    [
        ("--namespace", a.namespace.is_some(), NAMED, "v3, v5 and v8"),
        ("--name", a.has_name(), NAMED, "v3, v5 and v8"),
        ("--time", a.time.is_some(), TIMED, "v1, v2, v6, v7 and v8"),
        (
            "--clock-seq",
            a.clock_seq.is_some(),
            GREGORIAN,
            "v1, v2 and v6",
        ),
        ("--node", a.node.is_some(), GREGORIAN, "v1, v2 and v6"),
        ("--method", a.method.is_some(), &[V7], "v7"),
        ("--domain", a.domain.is_some(), &[V2], "v2"),
        ("--local-id", a.local_id.is_some(), &[V2], "v2"),
        (
            "--state",
            a.state.is_some(),
            TIMED,
            "the time-based versions v1, v2, v6, v7 and v8",
        ),
        (
            "--daemon",
            a.daemon.is_some(),
            &[V1, V2, V4, V6, V7, V8],
            "v4 and the time-based versions v1, v2, v6, v7 and v8",
        ),
    ]
}

fn usage(kind: ErrorKind, message: impl std::fmt::Display) -> Failure {
    usage_error("gen", kind, message)
}

/// Refuses flags that do not apply to the version, and missing required ones.
fn validate(a: &GenArgs) -> Result<(), Failure> {
    crate::layouts::validate(a)?;
    if let Some(e) = a.format.encoding()
        && a.upper
    {
        return Err(usage(
            ErrorKind::ArgumentConflict,
            format!("--upper applies to the hex forms; {e} has its own alphabet"),
        ));
    }
    let v = a.version;
    for (flag, given, versions, names) in applicability(a) {
        if given && !versions.contains(&v) {
            return Err(usage(
                ErrorKind::ArgumentConflict,
                format!(
                    "{flag} does not apply to gen {}; it is for {names}",
                    v.name()
                ),
            ));
        }
    }
    let named = a.namespace.is_some() || a.has_name();
    if matches!(v, V3 | V5) || (v == V8 && named) {
        // What NS stands for is said only when --namespace is among the missing.
        let missing = match (a.namespace.is_some(), a.has_name()) {
            (false, false) => {
                Some("--namespace NS and --name NAME (NS is @dns, @url, @oid, @x500 or a UUID)")
            }
            (false, true) => Some("--namespace NS (@dns, @url, @oid, @x500 or a UUID)"),
            (true, false) => Some("--name NAME"),
            (true, true) => None,
        };
        if let Some(missing) = missing {
            let what = if v == V8 {
                "the name-based gen v8 needs"
            } else {
                &format!("gen {} needs", v.name())
            };
            return Err(usage(
                ErrorKind::MissingRequiredArgument,
                format!("{what} {missing}"),
            ));
        }
    }
    if v == V8 && named && a.time.is_some() {
        return Err(usage(
            ErrorKind::ArgumentConflict,
            "--time does not apply to the name-based gen v8 (--namespace/--name); \
             without them gen v8 is time-based and takes --time",
        ));
    }
    if v == V8 && named && a.state.is_some() {
        return Err(usage(
            ErrorKind::ArgumentConflict,
            "--state does not apply to the name-based gen v8 (--namespace/--name): a \
             name-based UUID has no state to keep",
        ));
    }
    if v == V8 && named && a.daemon.is_some() {
        return Err(usage(
            ErrorKind::ArgumentConflict,
            "--daemon does not apply to the name-based gen v8 (--namespace/--name): a \
             name-based UUID has no state to keep",
        ));
    }
    if a.state.is_some() && a.time.is_some() {
        // Asking for both is a mistake worth saying: the file would not be used.
        return Err(usage(
            ErrorKind::ArgumentConflict,
            "--state does not apply with --time: a fixed instant uses no state file, so \
             that the same command line gives the same UUIDs",
        ));
    }
    if let Some(t) = &a.time
        && !crate::layouts::handles_v8(a)
    {
        check_time_range(v, t, a.count)?;
    }
    shards_without_state(a)
}

/// `gen v1 --shards N` keeps its generators' state in memory: N clock sequences of one
/// random node, each with its own budget of 10 million UUIDs a second. A state file or
/// uuidkitd keeps one line of timestamps per node, shared by everyone who uses it; the
/// shards would take turns on it and be no faster than one generator, which is all that
/// --shards is for. So where `gen v1` would use a state file or the daemon, --shards is
/// refused rather than quietly going without it (whoever set UUIDKIT_STATE or
/// UUIDKIT_DAEMON wants the guarantee): the error names the setting and the way on,
/// --no-state. Exactly where `gen v1` would use neither, nothing is lost: with
/// --no-state, with the `random` node strategy (which keeps no state), and when there is
/// no state file path at all.
fn shards_without_state(a: &GenArgs) -> Result<(), Failure> {
    if a.shards.is_none() || a.no_state {
        return Ok(());
    }
    // --state and --daemon with --shards were refused already; the environment is left.
    if matches!(node_strategy(a)?, Some(NodeStrategy::Random)) {
        return Ok(());
    }
    let set = |name: &str| std::env::var_os(name).filter(|p| !p.is_empty());
    let setting = if let Some(d) = set(uuidkit::service::DAEMON_ENV) {
        format!(
            "{}={} (uuidkitd)",
            uuidkit::service::DAEMON_ENV,
            std::path::Path::new(&d).display()
        )
    } else if let Some(p) = set(crate::state::STATE_ENV) {
        format!(
            "{}={} (a state file)",
            crate::state::STATE_ENV,
            std::path::Path::new(&p).display()
        )
    } else if let Some(p) = uuidkit::store::default_path() {
        format!("the default state file {}", p.display())
    } else {
        return Ok(());
    };
    Err(usage(
        ErrorKind::ArgumentConflict,
        format!(
            "--shards does not go with {setting}: the shards keep their state in memory \
             (through a state file or uuidkitd they would share one node's timestamps, \
             no faster than one generator), so gen v1 --shards would make its UUIDs \
             without it; give --no-state to generate in memory, or leave out --shards"
        ),
    ))
}

/// An instant that the version's timestamp field cannot hold is a usage error naming
/// `--time` as given; for v1, v2 and v6 also when `-n` takes the last UUID's timestamp
/// past the end of the field, which the error then says.
fn check_time_range(v: GenVersion, t: &TimeArg, count: u64) -> Result<(), Failure> {
    let invalid = |e: TimeError| {
        usage(
            ErrorKind::ValueValidation,
            format!("invalid value '{}' for '--time <RFC3339>': {e}", t.text),
        )
    };
    match v {
        V1 | V2 | V6 => {
            let first = GregorianTimestamp::from_unix(t.time).map_err(invalid)?;
            // -n N takes N consecutive 100 ns ticks from the instant: the last must fit.
            let room = GregorianTimestamp::MAX.ticks() - first.ticks();
            if count.saturating_sub(1) > room {
                return Err(usage(
                    ErrorKind::ArgumentConflict,
                    format!(
                        "--time {} with -n {count}: the last UUID would need a timestamp \
                         after {}, the end of the Gregorian range (v1, v2 and v6 take one \
                         100 ns tick a UUID; from this instant -n can be at most {})",
                        t.text,
                        GregorianTimestamp::MAX.to_unix().to_rfc3339(7),
                        room.saturating_add(1)
                    ),
                ));
            }
            Ok(())
        }
        V7 => unix_millis_48(t.time).map(drop).map_err(invalid),
        V8 => unix_10ns_60(t.time).map(drop).map_err(invalid),
        _ => Ok(()),
    }
}

/// Writes `count` UUIDs from `next`, one a line (through the same batches as
/// [`emit_batches`]).
fn emit(
    a: &GenArgs,
    out: &mut impl Write,
    mut next: impl FnMut() -> Result<Uuid, GenError>,
) -> Result<Status, Failure> {
    emit_batches(a, out, |batch| fill_each(batch, &mut next))
}

/// Fills `batch` from `next`, stopping at the first error.
fn fill_each(
    batch: &mut [Uuid],
    mut next: impl FnMut() -> Result<Uuid, GenError>,
) -> Result<(), Stopped> {
    for (done, u) in batch.iter_mut().enumerate() {
        *u = next().map_err(|e| Stopped {
            done,
            failure: Failure::Message(e.to_string()),
        })?;
    }
    Ok(())
}

/// A batch that a generator could not finish: the first `done` UUIDs are to be written,
/// then the run ends with `failure`.
pub(crate) struct Stopped {
    pub(crate) done: usize,
    pub(crate) failure: Failure,
}

impl Stopped {
    /// Nothing of the batch is to be written.
    pub(crate) fn all(failure: Failure) -> Stopped {
        Stopped { done: 0, failure }
    }
}

/// UUIDs a batch: small enough that a batch takes microseconds (so one clock reading
/// per batch stays far inside the timestamp's millisecond), large enough that the clock
/// read is spread thin.
const BATCH: usize = 256;

/// Batches a write: 2,048 lines are 64 KiB or more in every form (the simple form's
/// lines are 33 bytes), so that each write passes straight through the 64 KiB buffer in
/// front of standard output instead of being copied into it.
const BATCHES_A_WRITE: usize = 8;

/// Writes `count` UUIDs from `fill`, a batch at a time: each batch is encoded straight
/// into its lines of one output buffer (see [`uuidkit::text::encode_lines`]), which is
/// written whole when full. On an error, the UUIDs made before it are still written.
pub(crate) fn emit_batches(
    a: &GenArgs,
    out: &mut impl Write,
    mut fill: impl FnMut(&mut [Uuid]) -> Result<(), Stopped>,
) -> Result<Status, Failure> {
    if let Some(e) = a.format.encoding() {
        return emit_encoded(a, out, e, fill);
    }
    let (format, case): (Format, Case) = a.style();
    let line = text::line_len(format, LineEnd::Lf);
    let mut uuids = [Uuid::NIL; BATCH];
    let mut lines = vec![0u8; BATCH * BATCHES_A_WRITE * line];
    let mut used = 0;
    let mut left = a.count;
    while left > 0 {
        let n = left.min(BATCH as u64) as usize;
        let (done, failure) = match fill(&mut uuids[..n]) {
            Ok(()) => (n, None),
            Err(Stopped { done, failure }) => (done, Some(failure)),
        };
        used += line
            * text::encode_lines(
                &uuids[..done],
                format,
                case,
                LineEnd::Lf,
                &mut lines[used..],
            );
        left -= n as u64;
        if failure.is_some() || left == 0 || lines.len() - used < BATCH * line {
            out.write_all(&lines[..used])?;
            used = 0;
        }
        if let Some(f) = failure {
            return Err(f);
        }
    }
    Ok(Status::Ok)
}

/// [`emit_batches`] for a compact encoding: each UUID encoded into its line of one
/// buffer, written a batch at a time.
fn emit_encoded(
    a: &GenArgs,
    out: &mut impl Write,
    e: Encoding,
    mut fill: impl FnMut(&mut [Uuid]) -> Result<(), Stopped>,
) -> Result<Status, Failure> {
    let mut uuids = [Uuid::NIL; BATCH];
    let mut lines = Vec::with_capacity(BATCH * (Encoding::MAX_LEN + 1));
    let mut left = a.count;
    while left > 0 {
        let n = left.min(BATCH as u64) as usize;
        let (done, failure) = match fill(&mut uuids[..n]) {
            Ok(()) => (n, None),
            Err(Stopped { done, failure }) => (done, Some(failure)),
        };
        lines.clear();
        let mut buf = [0u8; Encoding::MAX_LEN];
        for u in &uuids[..done] {
            lines.extend_from_slice(e.encode(u, &mut buf).as_bytes());
            lines.push(b'\n');
        }
        out.write_all(&lines)?;
        left -= n as u64;
        if let Some(f) = failure {
            return Err(f);
        }
    }
    Ok(Status::Ok)
}

/// Process-wide v4 UUIDs into every slot of `out`, the random bits of the batch drawn
/// in one visit to the thread's CSPRNG.
fn v4_fill(out: &mut [Uuid]) {
    uuidkit::v4_fill(out);
}

/// The same UUID `count` times (nil, max and the name-based versions).
fn emit_constant(a: &GenArgs, out: &mut impl Write, u: Uuid) -> Result<Status, Failure> {
    emit(a, out, || Ok(u))
}

/// The node strategy: `--node`, else `UUIDKIT_NODE`, else the generator's default
/// (`static`). A malformed or non-UTF-8 `UUIDKIT_NODE` is a usage error naming it (the
/// library's own `GregorianGenerator::v1()` would quietly fall back to `static`), and
/// says that `--node` overrides it, the way out when the environment is not the user's
/// to change.
fn node_strategy(a: &GenArgs) -> Result<Option<NodeStrategy>, Failure> {
    if let Some(n) = &a.node {
        return Ok(Some(n.clone()));
    }
    NodeStrategy::from_env().map_err(|e| {
        usage(
            ErrorKind::ValueValidation,
            format!("{e}; --node overrides {}", e.variable()),
        )
    })
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
        crate::report(format_args!("warning: {w}"));
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

/// The state of a live (not `--time`) generator: the daemon when there is one, else the
/// state file unless `--no-state`.
pub(crate) fn live_state(a: &GenArgs, daemon: Option<Arc<DaemonClient>>) -> GenState {
    if let Some(d) = daemon {
        GenState::daemon(d)
    } else if a.no_state {
        GenState::none()
    } else {
        GenState::open(a.state.as_deref())
    }
}

/// A clock stopped at `t`.
pub(crate) fn fixed(t: UnixTime) -> FnClock<impl Fn() -> UnixTime> {
    FnClock(move || t)
}

fn gregorian(
    a: &GenArgs,
    out: &mut impl Write,
    daemon: Option<Arc<DaemonClient>>,
) -> Result<Status, Failure> {
    if let Some(n) = a.shards {
        return crate::layouts::run_sharded(a, out, n);
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

fn v7(
    a: &GenArgs,
    out: &mut impl Write,
    daemon: Option<Arc<DaemonClient>>,
) -> Result<Status, Failure> {
    let method = match a.method.unwrap_or(MethodArg::Counter) {
        MethodArg::Counter => V7Method::Counter,
        MethodArg::Random => V7Method::Random,
        MethodArg::Precision => V7Method::Precision,
    };
    let machine_id = crate::layouts::machine_id(a)?;
    match &a.time {
        Some(t) => {
            let mut g = UnixGenerator::with_sources(method, fixed(t.time), Csprng);
            emit_batches(a, out, |b| {
                g.fill(b);
                crate::layouts::stamp_v7(b, machine_id);
                Ok(())
            })
        }
        None => {
            let GenState {
                store,
                mut warnings,
            } = live_state(a, daemon);
            let mut g = UnixGenerator::new(method);
            if let Some(store) = store {
                g = g.with_store(store);
            }
            emit_batches(a, out, |b| {
                g.fill(b);
                crate::layouts::stamp_v7(b, machine_id);
                warnings
                    .after_batch(g.take_store_warnings(), b.len())
                    .map_err(Stopped::all)
            })
        }
    }
}

fn v8_time_based(
    a: &GenArgs,
    out: &mut impl Write,
    daemon: Option<Arc<DaemonClient>>,
) -> Result<Status, Failure> {
    match &a.time {
        Some(t) => {
            let mut g = CustomGenerator::with_sources(fixed(t.time), Csprng);
            emit_batches(a, out, |b| {
                g.fill(b);
                Ok(())
            })
        }
        None => {
            let GenState {
                store,
                mut warnings,
            } = live_state(a, daemon);
            let mut g = CustomGenerator::new();
            if let Some(store) = store {
                g = g.with_store(store);
            }
            emit_batches(a, out, |b| {
                g.fill(b);
                warnings
                    .after_batch(g.take_store_warnings(), b.len())
                    .map_err(Stopped::all)
            })
        }
    }
}

/// v4 UUIDs made by the daemon, a batch a request.
fn v4_from_daemon(a: &GenArgs, out: &mut impl Write, d: &DaemonClient) -> Result<Status, Failure> {
    // A batch is one request; the protocol's limit is far above it.
    const _: () = assert!(BATCH as u32 <= MAX_RANDOM_COUNT);
    let mut written = 0u64;
    emit_batches(a, out, |b| {
        let failed = |e| Stopped::all(crate::daemon::random_failed(d, &e, written));
        let got = d.random(b.len() as u32).map_err(failed)?;
        if got.len() != b.len() {
            return Err(failed(uuidkit::service::client::ClientError::Unexpected));
        }
        b.copy_from_slice(&got);
        written += b.len() as u64;
        Ok(())
    })
}

/// Runs `gen`.
pub fn run(a: &GenArgs, out: &mut impl Write) -> Result<Status, Failure> {
    validate(a)?;
    // Asked before anything is made, so that an unreachable daemon writes no UUID.
    let daemon = match a.version {
        V1 | V2 | V4 | V6 | V7 => crate::daemon::for_gen(a)?,
        V8 if !a.has_name() && !crate::layouts::is_stateless_v8(a) => crate::daemon::for_gen(a)?,
        _ => None,
    };
    let named = || -> Result<_, Failure> {
        // validate() made sure both are there.
        let ns = a.namespace.unwrap_or_default();
        Ok((ns, crate::layouts::name_bytes(a)?))
    };
    match a.version {
        Nil => emit_constant(a, out, Uuid::NIL),
        Max => emit_constant(a, out, Uuid::MAX),
        V3 => {
            let (ns, name) = named()?;
            emit_constant(a, out, uuidkit::v3(&ns, &name))
        }
        V5 => {
            let (ns, name) = named()?;
            emit_constant(a, out, uuidkit::v5(&ns, &name))
        }
        V8 if crate::layouts::handles_v8(a) => crate::layouts::run_v8(a, out, daemon),
        V8 if a.has_name() => {
            let (ns, name) = named()?;
            emit_constant(a, out, uuidkit::v8_sha256(&ns, &name))
        }
        V8 => v8_time_based(a, out, daemon),
        V4 => match daemon {
            Some(d) => v4_from_daemon(a, out, &d),
            None => emit_batches(a, out, |b| {
                v4_fill(b);
                Ok(())
            }),
        },
        V1 | V2 | V6 => gregorian(a, out, daemon),
        V7 => v7(a, out, daemon),
    }
}
