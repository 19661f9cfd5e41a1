//! Which of `gen`'s flags apply to the version asked for, and which it needs: every
//! refusal is a usage error that names the flag and the versions it is for. Runs before
//! anything is made. Where a flag applies is the table's, `args::GEN_FLAGS` (which
//! `gen --help` is made from too); the checks here add what is about two flags
//! together, the flags a version needs, and the ranges of the values.

use clap::error::ErrorKind;
use uuidkit::Uuid;
use uuidkit::fleet;
use uuidkit::generator::draft::DraftGenerator;
use uuidkit::generator::machine_id::MachineId;
use uuidkit::layout::Layout;
use uuidkit::node::NodeStrategy;
use uuidkit::time::{GregorianTimestamp, TimeError, unix_10ns_60, unix_millis_48};

use crate::args::{GEN_FLAGS, GenArgs, GenFlag, GenVersion, MachineIdArg, TimeArg, V8Kind};
use crate::failure::{Failure, gen_usage as usage};
use crate::state_choice::STATE_ENV;

use GenVersion::*;

/// Bits of a machine ID from `hash` without `--machine-id-bits`.
const DEFAULT_HASH_BITS: u32 = 16;

/// The values the checks had to make to check them: kept for the plan, so that each is
/// made once.
pub(super) struct Checked {
    /// `--machine-id` and `--machine-id-bits`, checked against the room the version
    /// leaves (for `etcd`, its width only: the ID comes with the lease).
    pub(super) machine_id: Option<MachineId>,
    /// The node strategy of v1, v2 and v6: `--node`, else `UUIDKIT_NODE`, else none.
    pub(super) node: Option<NodeStrategy>,
}

/// Refuses flags that do not apply to the version, flags that do not go together, and
/// missing required ones; gives the values it made on the way.
pub(super) fn validate(a: &GenArgs) -> Result<Checked, Failure> {
    // The table's refusals first, then those about flags together, then what is missing:
    // the earlier are the more precise (`gen v8 --custom-a 1 --name x` is told that raw
    // fields take no name, not that a name-based v8 needs --namespace).
    refuse_what_does_not_apply(a)?;
    let machine_id = validate_beyond_rfc(a)?;
    if let Some(e) = a.format.encoding()
        && a.upper
    {
        return Err(usage(
            ErrorKind::ArgumentConflict,
            format!("--upper applies to the hex forms; {e} has its own alphabet"),
        ));
    }
    let v = a.version;
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
    if a.state.is_some() && a.time.is_some() {
        // Asking for both is a mistake worth saying: the file would not be used.
        return Err(usage(
            ErrorKind::ArgumentConflict,
            "--state does not apply with --time: a fixed instant uses no state file, so \
             that the same command line gives the same UUIDs",
        ));
    }
    if let Some(t) = &a.time
        && !(v == V8 && matches!(V8Kind::of(a), V8Kind::Draft | V8Kind::Raw))
    {
        check_time_range(v, t, a.count)?;
    }
    let node = match v {
        V1 | V2 | V6 => node_strategy(a)?,
        _ => None,
    };
    shards_without_state(a, node.as_ref())?;
    fleet_without_state_from_the_environment(a)?;
    Ok(Checked { machine_id, node })
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

/// The machine ID of `--machine-id` and `--machine-id-bits`, checked against the room
/// that `draft` (the draft layout of `gen v8 --layout`) or else v7 leaves for it.
fn machine_id(a: &GenArgs, draft: Option<Layout>) -> Result<Option<MachineId>, Failure> {
    let bad = |e: &dyn std::fmt::Display| {
        usage(
            ErrorKind::ValueValidation,
            format!("invalid value for '--machine-id'/'--machine-id-bits': {e}"),
        )
    };
    let id = match a.machine_id {
        None => return Ok(None),
        Some(MachineIdArg::Value(v)) => {
            MachineId::new(v, a.machine_id_bits.unwrap_or(64)).map_err(|e| bad(&e))?
        }
        Some(MachineIdArg::Hash) => {
            MachineId::from_host_hash(a.machine_id_bits.unwrap_or(DEFAULT_HASH_BITS))
                .map_err(|e| bad(&e))?
        }
        // Its width, checked here before anything is asked of etcd; the ID comes with the
        // lease (generate/fleet.rs).
        Some(MachineIdArg::Etcd) => {
            let bits = a.machine_id_bits.unwrap_or(0);
            if bits > fleet::MAX_BITS {
                return Err(bad(&format!(
                    "a machine ID leased from etcd is 1 to {max} bits wide (up to 2^{max} \
                     hosts), not {bits}",
                    max = fleet::MAX_BITS
                )));
            }
            MachineId::new(0, bits).map_err(|e| bad(&e))?
        }
    };
    match draft {
        Some(l) => DraftGenerator::new(l)
            .map_err(|e| bad(&e))?
            .with_machine_id(id)
            .map(drop)
            .map_err(|e| bad(&e))?,
        _ => {
            // v7: the room is the same in every v7 UUID.
            id.stamp_v7(Uuid::NIL).map_err(|e| bad(&e))?;
        }
    }
    Ok(Some(id))
}

/// `gen --machine-id etcd` keeps its state in etcd (the ID's high-water mark orders it
/// across restarts and hosts), not in a state file or uuidkitd, whose leases carry no
/// fleet ID (--state and --daemon with it are refused by the flag table). Whoever set
/// UUIDKIT_STATE or UUIDKIT_DAEMON asked for their guarantee: refused naming the
/// setting, rather than quietly gone without. The default state file, which nobody
/// asked for, is simply not used (`gen --help` says so).
fn fleet_without_state_from_the_environment(a: &GenArgs) -> Result<(), Failure> {
    if !matches!(a.machine_id, Some(MachineIdArg::Etcd)) || a.no_state {
        return Ok(());
    }
    let Some(setting) = state_from_the_environment() else {
        return Ok(());
    };
    Err(usage(
        ErrorKind::ArgumentConflict,
        format!(
            "--machine-id etcd does not go with {setting}: a fleet keeps its state in \
             etcd (the ID's high-water mark), not in a state file or uuidkitd; give \
             --no-state to go without them (the fleet's order holds through etcd), unset \
             the variable, or for a fleet through the service run uuidkitd --machine-id \
             etcd and gen --daemon"
        ),
    ))
}

/// The state `gen` would use because the environment names it, for a refusal to say:
/// `UUIDKIT_DAEMON=… (uuidkitd)` (which wins), else `UUIDKIT_STATE=… (a state file)`.
fn state_from_the_environment() -> Option<String> {
    if let Some(d) = uuidkit::generator::daemon_from_env() {
        return Some(format!(
            "{}={} (uuidkitd)",
            uuidkit::service::DAEMON_ENV,
            d.display()
        ));
    }
    uuidkit::generator::state_file_from_env()
        .map(|p| format!("{STATE_ENV}={} (a state file)", p.display()))
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
fn shards_without_state(a: &GenArgs, node: Option<&NodeStrategy>) -> Result<(), Failure> {
    if a.shards.is_none() || a.no_state {
        return Ok(());
    }
    // --state and --daemon with --shards were refused already; the environment is left.
    if matches!(node, Some(NodeStrategy::Random)) {
        return Ok(());
    }
    let setting = match state_from_the_environment() {
        Some(setting) => setting,
        None => match uuidkit::store::default_path() {
            Some(p) => format!("the default state file {}", p.display()),
            None => return Ok(()),
        },
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

fn conflict(message: impl std::fmt::Display) -> Failure {
    usage(ErrorKind::ArgumentConflict, message)
}

/// `--machine-id etcd` needs `--etcd`, `--fleet` and `--machine-id-bits`, and stamps live
/// UUIDs on its own: not with `--time` (a fixed instant is not the holder's to mark), nor
/// `--state` or `--daemon` (the leased ID and its high-water mark keep this process's
/// UUIDs apart from every other's; a state file or daemon would only share positions
/// among processes of one host). The flags of a lease need `--machine-id etcd`.
fn fleet_flags(a: &GenArgs) -> Result<(), Failure> {
    let etcd = matches!(a.machine_id, Some(MachineIdArg::Etcd));
    let lease_flags = [
        ("--etcd", a.etcd.is_some()),
        ("--fleet", a.fleet.is_some()),
        ("--lease-ttl", a.lease_ttl.is_some()),
        ("--claim-wait", a.claim_wait.is_some()),
        ("--fence-wait", a.fence_wait.is_some()),
    ];
    if !etcd {
        if let Some((flag, _)) = lease_flags.iter().find(|(_, given)| *given) {
            return Err(conflict(format!(
                "{flag} applies only with --machine-id etcd, which leases the ID it is about"
            )));
        }
        return Ok(());
    }
    for (flag, given, what) in [
        (
            "--etcd URLS",
            a.etcd.is_some(),
            "the etcd cluster to lease from",
        ),
        ("--fleet NAME", a.fleet.is_some(), "whose IDs to lease"),
        (
            "--machine-id-bits B",
            a.machine_id_bits.is_some(),
            "how many IDs the fleet has (2^B)",
        ),
    ] {
        if !given {
            return Err(usage(
                ErrorKind::MissingRequiredArgument,
                format!("--machine-id etcd needs {flag}: {what}"),
            ));
        }
    }
    for (flag, given) in [
        ("--time", a.time.is_some()),
        ("--state", a.state.is_some()),
        ("--daemon", a.daemon.is_some()),
    ] {
        if given {
            return Err(conflict(format!(
                "{flag} cannot go with --machine-id etcd: the leased ID and its high-water \
                 mark keep live UUIDs apart across hosts without a state file or daemon, and \
                 a fixed instant is not one the lease can mark"
            )));
        }
    }
    Ok(())
}

/// Refuses the first flag of the table ([`GEN_FLAGS`]) given where it does not apply:
/// to the version, or to the kind of v8 the command line asks for.
fn refuse_what_does_not_apply(a: &GenArgs) -> Result<(), Failure> {
    let v = a.version;
    let given = || GEN_FLAGS.iter().filter(|f| (f.given)(a));
    if let Some(f) = given().find(|f| !f.applies_to(v)) {
        return Err(conflict(format!(
            "{} does not apply to gen {}; it is for {}",
            f.long,
            v.name(),
            f.words
        )));
    }
    if v != V8 {
        return Ok(());
    }
    let kind = V8Kind::of(a);
    match given().find(|f| !f.applies_to_v8(kind)) {
        Some(f) => Err(conflict(not_for_v8_kind(f, kind, a.layout))),
        None => Ok(()),
    }
}

/// Why flag `f` does not apply to gen v8 of kind `kind` (whose `--layout`, if given, is
/// `layout`).
fn not_for_v8_kind(f: &GenFlag, kind: V8Kind, layout: Option<Layout>) -> String {
    let flag = f.family;
    match (kind, flag) {
        (_, "--machine-id" | "--machine-id-bits") => "--machine-id does not apply to gen v8 \
             without --layout draft-*: it is for v7 and the 2021 draft's layouts"
            .to_string(),
        (V8Kind::Raw, _) => format!(
            "{flag} does not apply to gen v8 with --custom-a/-b/-c: raw fields are the whole \
             UUID"
        ),
        (V8Kind::B2, "--time") => "--time does not apply to the name-based gen v8 \
             (--namespace/--name); without them gen v8 is time-based and takes --time"
            .to_string(),
        (V8Kind::B2, _) => format!(
            "{flag} does not apply to the name-based gen v8 (--namespace/--name): a \
             name-based UUID has no state to keep"
        ),
        (V8Kind::B1 | V8Kind::Draft, "--namespace" | "--name") => format!(
            "--namespace and --name do not apply to gen v8 --layout {}: only b2 is \
             name-based",
            layout.unwrap_or(Layout::B1)
        ),
        (V8Kind::B1 | V8Kind::Draft, _) => format!(
            "{flag} does not apply to gen v8 --layout {}",
            layout.unwrap_or(Layout::B1)
        ),
    }
}

/// Refuses the flags beyond RFC 9562's own (`--shards`, `--machine-id`, `--layout`)
/// where another flag rules them out, or their values do not fit; runs before
/// [`validate`]'s own checks.
fn validate_beyond_rfc(a: &GenArgs) -> Result<Option<MachineId>, Failure> {
    let v = a.version;
    if a.shards.is_some() {
        for (flag, given) in [
            ("--time", a.time.is_some()),
            ("--clock-seq", a.clock_seq.is_some()),
        ] {
            if given {
                return Err(conflict(format!(
                    "{flag} does not apply with --shards: each of the generators holds a \
                     clock sequence of its own, in memory"
                )));
            }
        }
        // The environment's state file and daemon are refused the same way, with the
        // same reason (see [`shards_without_state`]).
        for (flag, given) in [
            ("--state", a.state.is_some()),
            ("--daemon", a.daemon.is_some()),
        ] {
            if given {
                return Err(conflict(format!(
                    "{flag} does not apply with --shards: the shards keep their state in \
                     memory (through a state file or uuidkitd they would share one node's \
                     timestamps, no faster than one generator); leave out --shards to use it"
                )));
            }
        }
    }
    let mut id = None;
    if a.machine_id.is_some() {
        // The table let it through: v7, or v8 in a draft layout.
        if matches!(a.machine_id, Some(MachineIdArg::Value(_))) && a.machine_id_bits.is_none() {
            return Err(usage(
                ErrorKind::MissingRequiredArgument,
                "--machine-id N needs --machine-id-bits B, its width (or give --machine-id hash)",
            ));
        }
        fleet_flags(a)?;
        // Width and room, as errors naming the options.
        id = machine_id(a, a.draft_layout().filter(|_| v == V8))?;
    }
    if v != V8 {
        return Ok(id);
    }
    let named = a.namespace.is_some() || a.has_name();
    match a.layout {
        Some(Layout::B2) if !named => Err(usage(
            ErrorKind::MissingRequiredArgument,
            "gen v8 --layout b2 needs --namespace NS and --name NAME (or --name-hex, \
             --name-file)",
        )),
        Some(l) => match &a.time {
            Some(t) if l != Layout::B2 => l.check_time(t.time).map(|()| id).map_err(|e| {
                usage(
                    ErrorKind::ValueValidation,
                    format!("invalid value '{}' for '--time <RFC3339>': {e}", t.text),
                )
            }),
            _ => Ok(id),
        },
        None => Ok(id),
    }
}

#[cfg(test)]
mod tests {
    use clap::{Parser, ValueEnum};

    use super::*;
    use crate::args::{Cli, Command};

    /// The flags that give a name: one of them at a time.
    const NAME_FLAGS: [&str; 3] = ["--name", "--name-hex", "--name-file"];

    /// A flag of the table with a value it takes wherever it applies.
    fn sample(long: &str) -> &'static [&'static str] {
        match long {
            "--name-hex" => &["--name-hex", "00"],
            "--name-file" => &["--name-file", "/dev/null"],
            "--layout" => &["--layout", "b1"],
            "--custom-a" => &["--custom-a", "1"],
            "--custom-b" => &["--custom-b", "1"],
            "--custom-c" => &["--custom-c", "1"],
            "--shards" => &["--shards", "2"],
            "--machine-id" => &["--machine-id", "hash"],
            "--machine-id-bits" => &["--machine-id", "hash", "--machine-id-bits", "8"],
            "--etcd" => &["--machine-id", "etcd", "--etcd", "http://127.0.0.1:1"],
            "--fleet" => &["--machine-id", "etcd", "--fleet", "f"],
            "--lease-ttl" => &["--machine-id", "etcd", "--lease-ttl", "5"],
            "--claim-wait" => &["--machine-id", "etcd", "--claim-wait", "1"],
            "--fence-wait" => &["--machine-id", "etcd", "--fence-wait", "1"],
            "--namespace" => &["--namespace", "@dns"],
            "--name" => &["--name", "x"],
            "--time" => &["--time", "2022-02-22T14:22:22Z"],
            "--clock-seq" => &["--clock-seq", "1"],
            "--node" => &["--node", "random"],
            "--method" => &["--method", "counter"],
            "--domain" => &["--domain", "person"],
            "--local-id" => &["--local-id", "1"],
            "--state" => &["--state", "/nonexistent/uuidkit-state"],
            "--daemon" => &["--daemon", "/nonexistent/uuidkitd.sock"],
            "--count" => &["--count", "2"],
            "--format" => &["--format", "simple"],
            "--upper" => &["--upper"],
            "--no-state" => &["--no-state"],
            _ => panic!("{long} is in the table but has no sample value here"),
        }
    }

    /// The command lines, but for the flag, of `gen v`: what the version needs, and for
    /// v8 one of each kind.
    fn bases(v: GenVersion) -> Vec<Vec<(&'static str, &'static str)>> {
        let named = vec![("--namespace", "@dns"), ("--name", "x")];
        match v {
            V3 | V5 => vec![named],
            V8 => vec![
                vec![],
                vec![("--layout", "b1")],
                named,
                vec![("--layout", "b2"), ("--namespace", "@dns"), ("--name", "x")],
                vec![("--layout", "draft-v8-48")],
                vec![("--custom-c", "1")],
            ],
            _ => vec![vec![]],
        }
    }

    /// For every flag of the table, every version and every kind of v8: gen refuses a
    /// flag as one that does not apply exactly where the table says one does not, and a
    /// refusal for the version names the table's words.
    #[test]
    fn refusals_follow_the_table() {
        for f in GEN_FLAGS {
            let flag = sample(f.long);
            for &v in GenVersion::value_variants() {
                for base in bases(v) {
                    let mut argv = vec!["uuidkit", "gen", v.name()];
                    // The sample stands in for the base's own flag, or name.
                    let replaced = |b: &str| {
                        b == f.long || (NAME_FLAGS.contains(&b) && NAME_FLAGS.contains(&f.long))
                    };
                    for (b, value) in base.iter().filter(|(b, _)| !replaced(b)) {
                        argv.extend([*b, *value]);
                    }
                    argv.extend(flag);
                    let mut a = match Cli::try_parse_from(&argv) {
                        Ok(Cli {
                            command: Command::Gen(a),
                        }) => a,
                        other => panic!("{argv:?} does not parse: {other:?}"),
                    };
                    a.resolve();
                    // The flag may change the kind of v8 (a layout, a name), so that one
                    // of the base's flags no longer applies: every flag given counts.
                    let kind = V8Kind::of(&a);
                    let applies = GEN_FLAGS
                        .iter()
                        .filter(|g| (g.given)(&a))
                        .all(|g| g.applies_to(v) && (v != V8 || g.applies_to_v8(kind)));
                    let message = match validate(&a) {
                        Ok(_) => String::new(),
                        Err(Failure::Usage(e)) => e.to_string(),
                        Err(Failure::Message(m)) => m,
                        Err(Failure::Io(e)) => e.to_string(),
                    };
                    assert_eq!(
                        message.contains("not apply"),
                        !applies,
                        "{argv:?}: the table says {}; {message}",
                        if applies {
                            "all apply"
                        } else {
                            "not all apply"
                        }
                    );
                    if !f.applies_to(v) {
                        let words =
                            format!("does not apply to gen {}; it is for {}", v.name(), f.words);
                        assert!(message.contains(&words), "{argv:?}: {message}");
                    }
                }
            }
        }
    }
}
