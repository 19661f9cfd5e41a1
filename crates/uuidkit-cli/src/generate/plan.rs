//! `gen`'s plan: the command line, checked once ([`checks`]), turned into what to make
//! and where its state lives, in this one place. The version groups run a plan and
//! never see the flags; every refusal comes from the flag table, the checks, the choice
//! of state ([`crate::state_choice`]) or the builder here.

use std::borrow::Cow;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::error::ErrorKind;
use uuidkit::fleet::{FleetConfig, FleetError};
use uuidkit::generator::machine_id::MachineId;
use uuidkit::generator::v7::V7Method;
use uuidkit::layout::ClockSequence;
use uuidkit::layout::Layout;
use uuidkit::layout::v2::Domain;
use uuidkit::node::NodeStrategy;
use uuidkit::service::client::DaemonClient;
use uuidkit::time::UnixTime;
use uuidkit::{Uuid, Version};

use super::checks::{self, Checked};
use super::emit::Output;
use crate::args::{DomainArg, GenArgs, GenVersion, MachineIdArg, MethodArg, V8Kind};
use crate::failure::{Failure, gen_usage};
use crate::state_choice::{self, GenState};

use GenVersion::*;

/// The most bytes `--name-file` reads.
const MAX_NAME_FILE: u64 = 16 << 20;

/// How long a leased run waits, without `--fence-wait`, for a lease it cannot renew.
const DEFAULT_FENCE_WAIT: Duration = Duration::from_secs(60);

/// A run of `gen`: what to make, and how to write it.
pub(super) struct Plan {
    pub(super) make: Make,
    pub(super) output: Output,
}

/// What `gen` makes.
pub(super) enum Make {
    /// The same UUID every time: nil, max, and the name-based v3, v5 and v8 (b2).
    Constant(Uuid),
    /// v4, from this process's CSPRNG or from uuidkitd.
    Random(Option<Arc<DaemonClient>>),
    /// v1, v2 or v6 from one generator.
    Gregorian(Gregorian),
    /// `gen v1 --shards N`: N generators of one node, in memory.
    Sharded { shards: u32, node: NodeStrategy },
    /// v7 by `--method`, with an optional machine ID.
    V7 {
        method: V7Method,
        machine_id: Option<MachineId>,
        clock: Clocked,
    },
    /// The time-based v8, layout b1.
    V8 { clock: Clocked },
    /// A 2021 draft layout, with an optional machine ID.
    Draft {
        layout: Layout,
        machine_id: Option<MachineId>,
        clock: Clocked,
    },
    /// v7 or a draft layout with a machine ID leased from etcd.
    Leased { lease: Lease, what: Leased },
    /// Raw v8 fields (`--custom-a/-b/-c`); those not given are random.
    Raw { fields: RawFields },
}

/// Raw v8 fields as given (`--custom-a/-b/-c`): those not given are random.
pub(super) struct RawFields {
    pub(super) custom_a: Option<u64>,
    pub(super) custom_b: Option<u16>,
    pub(super) custom_c: Option<u64>,
}

/// What a Gregorian generator makes, and from what.
pub(super) struct Gregorian {
    pub(super) version: Version,
    /// v2's domain and local ID.
    pub(super) dce: Option<(Domain, u32)>,
    /// The node strategy: `--node`, else `UUIDKIT_NODE`, else none (the generator's
    /// default).
    pub(super) node: Option<NodeStrategy>,
    /// `--node` alone: a live generator follows `UUIDKIT_NODE` itself.
    pub(super) node_flag: Option<NodeStrategy>,
    pub(super) clock_seq: Option<ClockSequence>,
    pub(super) clock: Clocked,
}

/// The clock of a run: an instant that stands still (`--time`), or the system clock with
/// its state kept in `Store`.
pub(super) enum Clocked {
    At(UnixTime),
    Live(Store),
}

/// Where a live generator keeps its state.
pub(super) enum Store {
    /// Nowhere: in memory (`--no-state`).
    Memory,
    /// A state file: `--state`, else the one the environment or the default names.
    File(Option<PathBuf>),
    /// uuidkitd, already known to answer.
    Daemon(Arc<DaemonClient>),
}

impl Store {
    /// The store opened, with the warnings it comes with.
    pub(super) fn open(self) -> GenState {
        match self {
            Store::Memory => GenState::none(),
            Store::File(p) => GenState::open(p.as_deref()),
            Store::Daemon(d) => GenState::daemon(d),
        }
    }
}

/// The lease of a machine ID from etcd: the fleet, and how long a run waits for a lease
/// it cannot renew.
pub(super) struct Lease {
    pub(super) config: FleetConfig,
    pub(super) fence_wait: Duration,
}

/// What a leased machine ID goes into.
#[derive(Clone, Copy)]
pub(super) enum Leased {
    V7(V7Method),
    Draft(Layout),
}

impl Plan {
    /// The plan of `a`, or the usage error of the first flag at fault.
    pub(super) fn new(a: &GenArgs) -> Result<Plan, Failure> {
        let Checked { machine_id, node } = checks::validate(a)?;
        let (format, case) = a.style();
        let output = Output {
            count: a.count,
            format,
            case,
            encoding: a.format.encoding(),
        };
        let v8 = V8Kind::of(a);
        // A usage error comes before the daemon is asked (as the checks' do).
        let dce = match a.version {
            V2 => Some(dce(a.domain.unwrap_or(DomainArg::Person), a.local_id)?),
            _ => None,
        };
        // Asked before anything is made, so that an unreachable daemon writes no UUID.
        // A leased machine ID keeps UUIDs apart on its own: no daemon (the checks refuse
        // --daemon with it; UUIDKIT_DAEMON is set aside).
        let leased = a.machine_id == Some(MachineIdArg::Etcd);
        let daemon = match a.version {
            _ if leased => None,
            V1 | V2 | V4 | V6 | V7 => state_choice::for_gen(a)?,
            V8 if matches!(v8, V8Kind::B1 | V8Kind::Draft) => state_choice::for_gen(a)?,
            _ => None,
        };
        let clock = |daemon: Option<Arc<DaemonClient>>| match (&a.time, daemon) {
            (Some(t), _) => Clocked::At(t.time),
            (None, Some(d)) => Clocked::Live(Store::Daemon(d)),
            (None, None) if a.no_state => Clocked::Live(Store::Memory),
            (None, None) => Clocked::Live(Store::File(a.state.clone())),
        };
        let method = match a.method.unwrap_or(MethodArg::Counter) {
            MethodArg::Counter => V7Method::Counter,
            MethodArg::Random => V7Method::Random,
            MethodArg::Precision => V7Method::Precision,
        };
        let lease = || -> Result<Lease, Failure> {
            Ok(Lease {
                config: fleet_config(a)?,
                fence_wait: a.fence_wait.unwrap_or(DEFAULT_FENCE_WAIT),
            })
        };
        // The checks made sure that a name-based version has its namespace and name.
        let named = |hash: fn(&Uuid, &[u8]) -> Uuid| -> Result<Make, Failure> {
            let ns = a.namespace.unwrap_or_default();
            Ok(Make::Constant(hash(&ns, &name_bytes(a)?)))
        };
        let make = match a.version {
            Nil => Make::Constant(Uuid::NIL),
            Max => Make::Constant(Uuid::MAX),
            V3 => named(uuidkit::v3)?,
            V5 => named(uuidkit::v5)?,
            V4 => Make::Random(daemon),
            V1 | V2 | V6 => match a.shards {
                Some(shards) => Make::Sharded {
                    shards,
                    node: node.unwrap_or_default(),
                },
                None => Make::Gregorian(Gregorian {
                    version: if a.version == V6 {
                        Version::V6
                    } else {
                        Version::V1
                    },
                    dce,
                    node,
                    node_flag: a.node.clone(),
                    clock_seq: a.clock_seq,
                    clock: clock(daemon),
                }),
            },
            V7 if leased => Make::Leased {
                lease: lease()?,
                what: Leased::V7(method),
            },
            V7 => Make::V7 {
                method,
                machine_id,
                clock: clock(daemon),
            },
            V8 => match (v8, a.draft_layout()) {
                (V8Kind::Raw, _) => Make::Raw {
                    fields: RawFields {
                        custom_a: a.custom_a,
                        // The parsers checked each width.
                        custom_b: a.custom_b.map(|v| v as u16),
                        custom_c: a.custom_c,
                    },
                },
                (V8Kind::B2, _) => named(uuidkit::v8_sha256)?,
                (V8Kind::Draft, Some(layout)) if leased => Make::Leased {
                    lease: lease()?,
                    what: Leased::Draft(layout),
                },
                (V8Kind::Draft, Some(layout)) => Make::Draft {
                    layout,
                    machine_id,
                    clock: clock(daemon),
                },
                _ => Make::V8 {
                    clock: clock(daemon),
                },
            },
        };
        Ok(Plan { make, output })
    }
}

/// v2's domain and local ID: `--local-id`, else the UID or GID of this process.
fn dce(domain: DomainArg, local_id: Option<u32>) -> Result<(Domain, u32), Failure> {
    let id = match local_id {
        Some(id) => id,
        None => default_local_id(domain)?,
    };
    let domain = match domain {
        DomainArg::Person => Domain::Person,
        DomainArg::Group => Domain::Group,
        DomainArg::Org => Domain::Org,
        DomainArg::Other(n) => Domain::Other(n),
    };
    Ok((domain, id))
}

/// The default local ID of a v2 UUID: the UID or GID of this process.
fn default_local_id(domain: DomainArg) -> Result<u32, Failure> {
    let missing = |why: String| {
        gen_usage(
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

/// The fleet of the flags, as a usage error naming the flag at fault.
fn fleet_config(a: &GenArgs) -> Result<FleetConfig, Failure> {
    let bad = |flag: &str, e: FleetError| {
        gen_usage(
            ErrorKind::ValueValidation,
            format!("invalid value for '{flag}': {e}"),
        )
    };
    // The checks made sure all three are there.
    let etcd = a.etcd.as_deref().unwrap_or_default();
    let fleet = a.fleet.as_deref().unwrap_or_default();
    let bits = a.machine_id_bits.unwrap_or_default();
    let mut c = FleetConfig::new(etcd, fleet, bits).map_err(|e| {
        let flag = match e {
            FleetError::BadFleet { .. } => "--fleet",
            FleetError::BadBits { .. } => "--machine-id-bits",
            _ => "--etcd",
        };
        bad(flag, e)
    })?;
    if let Some(t) = a.lease_ttl {
        c = c.with_ttl(t).map_err(|e| bad("--lease-ttl", e))?;
    }
    if let Some(w) = a.claim_wait {
        c = c.with_wait(w);
    }
    Ok(c)
}

/// The name's bytes: `--name`, `--name-hex` or `--name-file`.
fn name_bytes(a: &GenArgs) -> Result<Cow<'_, [u8]>, Failure> {
    if let Some(n) = &a.name {
        return Ok(Cow::Borrowed(n.as_bytes()));
    }
    if let Some(b) = &a.name_hex {
        return Ok(Cow::Borrowed(&b.0));
    }
    let Some(path) = &a.name_file else {
        return Ok(Cow::Borrowed(&[]));
    };
    let fail = |e: std::io::Error| Failure::Message(format!("--name-file {}: {e}", path.display()));
    let mut bytes = Vec::new();
    let read = if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .take(MAX_NAME_FILE + 1)
            .read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(MAX_NAME_FILE + 1).read_to_end(&mut bytes))
    };
    read.map_err(fail)?;
    if bytes.len() as u64 > MAX_NAME_FILE {
        return Err(Failure::Message(format!(
            "--name-file {}: longer than the 16 MiB a name may be",
            path.display()
        )));
    }
    Ok(Cow::Owned(bytes))
}
