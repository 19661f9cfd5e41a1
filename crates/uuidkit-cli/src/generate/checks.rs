//! Which of `gen`'s flags apply to the version asked for, and which it needs: every
//! refusal is a usage error that names the flag and the versions it is for. Runs before
//! anything is made.

use clap::error::ErrorKind;
use uuidkit::layout::Layout;
use uuidkit::node::NodeStrategy;
use uuidkit::time::{GregorianTimestamp, TimeError, unix_10ns_60, unix_millis_48};

use super::sources::{machine_id, node_strategy};
use super::v8;
use crate::args::{GenArgs, GenVersion, MachineIdArg, MethodArg, TimeArg};
use crate::failure::{Failure, usage_error};
use crate::state::STATE_ENV;

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
pub(super) fn validate(a: &GenArgs) -> Result<(), Failure> {
    // First: its refusals are the more precise ones (`gen v8 --custom-a 1 --name x` is
    // told that raw fields take no name, not that a name-based v8 needs --namespace).
    validate_beyond_rfc(a)?;
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
        && !v8::handles(a)
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
    } else if let Some(p) = set(STATE_ENV) {
        format!(
            "{}={} (a state file)",
            STATE_ENV,
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

fn conflict(message: impl std::fmt::Display) -> Failure {
    usage(ErrorKind::ArgumentConflict, message)
}

/// Refuses the options beyond RFC 9562's own (`--layout`, `--custom-a/-b/-c`,
/// `--machine-id`, `--name-hex`, `--name-file`, `--shards`) where they do not apply;
/// runs before [`validate`]'s own checks.
fn validate_beyond_rfc(a: &GenArgs) -> Result<(), Failure> {
    let v = a.version;
    let named_versions = [V3, V5, V8];
    for (flag, given) in [
        ("--name-hex", a.name_hex.is_some()),
        ("--name-file", a.name_file.is_some()),
    ] {
        if given && !named_versions.contains(&v) {
            return Err(conflict(format!(
                "{flag} does not apply to gen {}; it is for v3, v5 and v8",
                v.name()
            )));
        }
    }
    for (flag, given) in [
        ("--layout", a.layout.is_some()),
        ("--custom-a", a.custom_a.is_some()),
        ("--custom-b", a.custom_b.is_some()),
        ("--custom-c", a.custom_c.is_some()),
    ] {
        if given && v != V8 {
            return Err(conflict(format!(
                "{flag} does not apply to gen {}; it is for v8",
                v.name()
            )));
        }
    }
    if a.shards.is_some() && v != V1 {
        return Err(conflict(format!(
            "--shards does not apply to gen {}; it is for v1",
            v.name()
        )));
    }
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
    if a.machine_id.is_some() {
        match v {
            V7 if a.method == Some(MethodArg::Random) => {
                return Err(conflict(
                    "--machine-id does not apply to gen v7 --method random: the ID goes right \
                     after the counter, and method random has none",
                ));
            }
            V7 => {}
            V8 if v8::draft_layout(a).is_some() => {}
            V8 => {
                return Err(conflict(
                    "--machine-id does not apply to gen v8 without --layout draft-*: it is for \
                     v7 and the 2021 draft's layouts",
                ));
            }
            _ => {
                return Err(conflict(format!(
                    "--machine-id does not apply to gen {}; it is for v7 and gen v8 --layout \
                     draft-*",
                    v.name()
                )));
            }
        }
        if matches!(a.machine_id, Some(MachineIdArg::Value(_))) && a.machine_id_bits.is_none() {
            return Err(usage(
                ErrorKind::MissingRequiredArgument,
                "--machine-id N needs --machine-id-bits B, its width (or give --machine-id hash)",
            ));
        }
        // Width and room, as errors naming the options.
        machine_id(a, v8::draft_layout(a).filter(|_| v == V8))?;
    }
    if v != V8 {
        return Ok(());
    }
    let named = a.namespace.is_some() || a.has_name();
    if v8::raw(a) {
        for (flag, given) in [
            ("--layout", a.layout.is_some()),
            ("--namespace", a.namespace.is_some()),
            ("--name", a.has_name()),
            ("--time", a.time.is_some()),
            ("--state", a.state.is_some()),
            ("--daemon", a.daemon.is_some()),
        ] {
            if given {
                return Err(conflict(format!(
                    "{flag} does not apply to gen v8 with --custom-a/-b/-c: raw fields are \
                     the whole UUID"
                )));
            }
        }
    }
    match a.layout {
        Some(Layout::B2) if !named => Err(usage(
            ErrorKind::MissingRequiredArgument,
            "gen v8 --layout b2 needs --namespace NS and --name NAME (or --name-hex, \
             --name-file)",
        )),
        Some(l) if l != Layout::B2 && named => Err(conflict(format!(
            "--namespace and --name do not apply to gen v8 --layout {l}: only b2 is name-based"
        ))),
        Some(l) => match &a.time {
            Some(t) if l != Layout::B2 => l.check_time(t.time).map_err(|e| {
                usage(
                    ErrorKind::ValueValidation,
                    format!("invalid value '{}' for '--time <RFC3339>': {e}", t.text),
                )
            }),
            _ => Ok(()),
        },
        None => Ok(()),
    }
}
