//! `gen`'s arguments: the versions, the flags and their help.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use uuidkit::layout::{ClockSequence, Layout};
use uuidkit::node::NodeStrategy;
use uuidkit::{Case, Format, Uuid};

use super::values::{
    DomainArg, FormatArg, MachineIdArg, MethodArg, NameBytes, TimeArg, daemon_path_parser,
    parse_clock_seq, parse_count, parse_custom_a, parse_custom_b, parse_custom_c, parse_domain,
    parse_layout, parse_local_id, parse_machine_id, parse_machine_id_bits, parse_name_hex,
    parse_namespace, parse_node, parse_seconds, parse_shards, parse_time, state_path_parser,
};

pub(super) const GEN_LONG_ABOUT: &str = "\
Generate UUIDs of a chosen version, one a line. Without a VERSION, v4 (random), as
uuidgen and python -m uuid do; -r and -t are uuidgen's spellings of v4 and v1.

VERSION is one of:
  v1   Gregorian time, clock sequence and node (RFC 9562 §5.1)
  v2   DCE Security: v1 with a local ID and domain (§5.2)
  v3   name-based, MD5 (§5.3); needs --namespace and --name
  v4   random (§5.4)
  v5   name-based, SHA-1 (§5.5); needs --namespace and --name
  v6   v1's fields reordered to sort by time (§5.6)
  v7   Unix milliseconds and random or counter bits (§5.7)
  v8   custom (§5.8), in the layout --layout names: b1, the time-based layout of
       Appendix B.1 (the default); b2, the SHA-256 name-based layout of Appendix B.2
       (the default with --namespace and --name); the 2021 draft's v7 and v8 layouts
       (draft-v7-ms, -us, -ns, draft-v8-32, -48, -60, -64); or raw fields with
       --custom-a/-b/-c, as Python's uuid.uuid8(a, b, c)
  nil  the Nil UUID, all zeros (§5.9)
  max  the Max UUID, all ones (§5.10)

A flag that does not apply to the chosen version is a usage error.";

/// The sections of `gen --help` after FLAGS BY VERSION, which the table makes (see
/// `gen_flags`).
pub(super) const GEN_AFTER_LONG_HELP: &str = "\
LAYOUTS:
  b1           60-bit Unix 10 ns steps, 30-bit counter, 32 random bits
  b2           SHA-256 name-based
  draft-v7-ms  36-bit Unix seconds, 12-bit binary fraction (ms), 12-bit sequence,
               62 random bits
  draft-v7-us  36-bit seconds, 24-bit fraction (us), 14-bit sequence, 48 random bits
  draft-v7-ns  36-bit seconds, 38-bit fraction (ns), 8-bit sequence, 40 random bits
  draft-v8-32  32-bit Unix seconds, 12-bit sequence, 62-bit node
  draft-v8-48  48-bit Unix milliseconds, 12-bit sequence, 62-bit node
  draft-v8-60  60-bit 100 ns ticks since 1582-10-15, 8-bit sequence, 54-bit node
  draft-v8-64  top 60 bits of 64-bit Unix nanoseconds, 8-bit sequence, 54-bit node
The draft layouts are written as version 8 (RFC 9562 gives 7 to its own v7); their
sequence starts at 0 on each new timestamp, so it is guessable: only the random bits
are not. 'inspect --layout NAME' reads them back.

With --time, -n N gives N UUIDs from that one instant: v1, v2 and v6 advance the
timestamp by one 100 ns tick per UUID; v7 and v8 count within the instant.
v2 keeps only the top 28 bits of the timestamp and 6 of the clock sequence, so v2
UUIDs of one domain and local ID made within about 7 minutes can be equal (that is
the DCE design).

STATE FILE:
The time-based versions (v1, v2, v6, v7 and the time-based v8) keep their state in a
file shared by every process that names it, as uuidgen -t does: --state PATH, else
UUIDKIT_STATE, else $XDG_STATE_HOME/uuidkit/state, else
$HOME/.local/state/uuidkit/state. A process leases blocks of timestamps from the file
under a lock, so that
  - processes sharing the file never write the same v1, v6, v7 or v8 UUID, even with
    the same --node and --clock-seq;
  - a process started later continues above every v6, v7 and v8 UUID an earlier one
    wrote, also after kill -9 or a clock set back, and v1 never repeats one (it takes
    the next clock sequence when the clock went back; with a fixed --clock-seq it
    continues above the stored timestamps as v6 does).
With the state file, the static node strategy is the host's hash node (as 'hash'), so
that all processes of the host share one clock sequence; --node random keeps no state
(its node changes with every UUID). v2 replaces 32 bits of the timestamp by design,
so v2 UUIDs are outside this guarantee even though v2 leases its timestamps too.

A missing file is created (with its directory) on first use. A state file that is
damaged (empty, cut short, garbage, a bad checksum), removed (its
lock file, older than 10 s, is still there), unreadable, in a directory that cannot be written, or
locked by another process for more than 2 s never stops gen: it writes one warning
naming the file and what is wrong on standard error, goes on (rewriting a damaged
or removed file, or in memory when the file cannot be used) and exits 0.
A state file in a newer format (its first line names a version this uuidkit does not
read, as a newer uuidkit on the same host writes) is not damage: gen leaves it
untouched, writes no UUID, names the file and both versions, and exits 1.
--no-state keeps the state in memory only.

--time uses no state file: a fixed instant is for reproducible output, and the same
command line gives the same UUIDs (with --clock-seq and --node) only when no stored
timestamp pushes them up.

DAEMON:
With --daemon PATH, else UUIDKIT_DAEMON=PATH, gen takes the state of v1, v2, v6, v7
and the time-based v8 from uuidkitd listening on the socket PATH instead of a state
file, with the same guarantees, for every process on the host that uses that daemon;
v4 UUIDs are made by the daemon. For v1 and v6 the guarantees hold per node: give the
processes one --node. UUIDKIT_DAEMON is set aside by --state, --no-state and --time;
--daemon does not go with them (a usage error). --node random uses no daemon, as it
uses no state file.
A daemon that gen was given and cannot reach is an error (exit status 1), whether it
was named by --daemon or by UUIDKIT_DAEMON: gen asks it first and writes no UUID when
it does not answer. Should it stop answering during the run, gen writes no UUID made
without it, says how many it wrote, and exits 1.

A FLEET:
With --machine-id etcd (v7, and v8 with a draft layout), gen claims the lowest free
machine ID of --fleet NAME (0 to 2^B - 1, B from --machine-id-bits, 1 to 31) from the
etcd cluster at --etcd URLS, on a lease of --lease-ttl seconds that it renews while it
runs, and gives the ID back when it ends: by itself, on SIGTERM, SIGINT or SIGHUP (then
ending as the signal does), or when its reader goes; after kill -9 the ID comes free
when the lease expires. It starts above the high-water mark the ID's previous holder
left in etcd, and writes nothing while its lease may have expired (waiting up to
--fence-wait seconds for a renewal, then exit 1). With every ID held it fails at once
(exit 1), or waits up to --claim-wait seconds for one. Its state is the mark in etcd:
it uses no state file or uuidkitd (UUIDKIT_STATE or UUIDKIT_DAEMON set is a usage
error; --no-state sets them aside). Every holder of a fleet must put its ID in the same
bits (one --machine-id-bits, and v7 counter/precision, v7 random, or one draft layout):
the first records them in etcd, and the others are refused.
/usr/share/doc/uuidkit/docs/fleet.md (docs/fleet.md in the source) has the rest.

EXAMPLES:
  uuidkit gen v4 -n 3 --format simple
  uuidkit gen v5 --namespace @url --name https://example.com/
  uuidkit gen v1 --time 2022-02-22T14:22:22-05:00 --clock-seq 0x33C8 --node 9F:6B:DE:CE:D8:46
  uuidkit gen v7 --method precision --upper
  uuidkit gen v7 --machine-id 42 --machine-id-bits 10
  uuidkit gen v8 --layout draft-v7-us -n 3
  uuidkit gen v8 --layout draft-v8-48 --machine-id hash
  uuidkit gen v7 --machine-id etcd --etcd http://127.0.0.1:2379 --fleet web --machine-id-bits 10
  uuidkit gen v8 --custom-a 0x123456789abc --custom-b 0xdef --custom-c 0x3fff
  uuidkit gen v5 --namespace @oid --name-hex 0x2b0601
  uuidkit gen v2 --domain 42 --local-id 7
  uuidkit gen v7 --state /var/lib/uuidkit/state -n 3
  uuidkit gen v7 --daemon /run/uuidkit/uuidkitd.sock -n 3
  UUIDKIT_DAEMON=$XDG_RUNTIME_DIR/uuidkit/uuidkitd.sock uuidkit gen v6 --node 0x0123456789ab
  UUIDKIT_STATE=/tmp/uuidkit-test-state uuidkit gen v6 --node 0x0123456789ab";

/// A version to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GenVersion {
    /// Gregorian time-based
    V1,
    /// DCE Security
    V2,
    /// Name-based, MD5
    V3,
    /// Random
    V4,
    /// Name-based, SHA-1
    V5,
    /// Reordered Gregorian time-based
    V6,
    /// Unix time-based
    V7,
    /// Custom: SHA-256 name-based or 10 ns time-based
    V8,
    /// All zeros
    Nil,
    /// All ones
    Max,
}

impl GenVersion {
    /// The name as typed on the command line.
    pub fn name(self) -> &'static str {
        match self {
            GenVersion::V1 => "v1",
            GenVersion::V2 => "v2",
            GenVersion::V3 => "v3",
            GenVersion::V4 => "v4",
            GenVersion::V5 => "v5",
            GenVersion::V6 => "v6",
            GenVersion::V7 => "v7",
            GenVersion::V8 => "v8",
            GenVersion::Nil => "nil",
            GenVersion::Max => "max",
        }
    }
}

/// What `gen` accepts.
#[derive(Debug, Args)]
pub struct GenArgs {
    /// The UUID version to generate (default v4, as uuidgen)
    #[arg(value_enum, value_name = "VERSION", hide_possible_values = false)]
    pub version_arg: Option<GenVersion>,

    /// uuidgen's spelling of v4
    #[arg(short = 'r', long = "random", conflicts_with_all = ["version_arg", "time_based"])]
    pub random: bool,

    /// uuidgen's spelling of v1 (its long form is --time-based: --time takes a time)
    #[arg(short = 't', long = "time-based", conflicts_with = "version_arg")]
    pub time_based: bool,

    /// The version to generate: VERSION, -r, -t, else v4 (see [`GenArgs::resolve`]).
    #[arg(skip = GenVersion::V4)]
    pub version: GenVersion,

    /// How many UUIDs to write, one a line: decimal or 0x hex
    #[arg(
        short = 'n',
        long,
        value_name = "N",
        default_value_t = 1,
        allow_hyphen_values = true,
        value_parser = parse_count
    )]
    pub count: u64,

    /// Output text form
    #[arg(long, value_enum, value_name = "FORM", default_value_t = FormatArg::Hyphenated)]
    pub format: FormatArg,

    /// Uppercase hex digits (the urn:uuid: prefix stays lowercase)
    #[arg(long)]
    pub upper: bool,

    /// Namespace of a name-based UUID: @dns, @url, @oid, @x500 or a UUID
    #[arg(
        long,
        value_name = "NS",
        value_parser = parse_namespace,
        long_help = "Namespace of a name-based UUID: @dns, @url, @oid or @x500 for the\n\
                     namespaces of RFC 9562 §6.6, or any UUID in an accepted form."
    )]
    pub namespace: Option<Uuid>,

    /// Name of a name-based UUID, hashed as its UTF-8 bytes
    #[arg(long, value_name = "NAME", conflicts_with_all = ["name_hex", "name_file"])]
    pub name: Option<String>,

    /// Name as bytes in hex (for names that are not text)
    #[arg(
        long,
        value_name = "HEX",
        value_parser = parse_name_hex,
        conflicts_with = "name_file",
        long_help = "The name of a name-based UUID as its bytes in hex: an even number of\n\
                     hex digits, either case, optionally after 0x (an empty name is '' or\n\
                     0x). For names that are bytes rather than text, such as an ASN.1 DER\n\
                     OID or a binary key. Instead of --name or --name-file."
    )]
    pub name_hex: Option<NameBytes>,

    /// Name: the bytes of this file ('-': standard input)
    #[arg(
        long,
        value_name = "PATH",
        value_parser = clap::value_parser!(PathBuf),
        long_help = "The name of a name-based UUID: every byte of the file PATH, as it is\n\
                     (no line end stripped), or of standard input for '-'. At most\n\
                     16 MiB. Instead of --name or --name-hex."
    )]
    pub name_file: Option<PathBuf>,

    /// Layout: b1, b2, draft-v7-ms/-us/-ns, draft-v8-32/-48/-60/-64
    #[arg(
        long,
        value_name = "NAME",
        value_parser = parse_layout,
        long_help = LAYOUT_HELP
    )]
    pub layout: Option<Layout>,

    /// Machine ID in the random bits after the counter: N, hash or etcd
    #[arg(
        long,
        value_name = "ID",
        value_parser = parse_machine_id,
        long_help = "A machine ID in the random bits after the timestamp and counter (the 2021\n\
                     draft's Distributed UUID Generation; in gen v7, methods counter and precision:\n\
                     the head of rand_b's last 32 bits; method random: the last B bits of rand_b,\n\
                     below its random increments): a number, decimal or 0x hex, with\n\
                     --machine-id-bits B; or 'hash': the first B bits (default 16) of SHA-256 over\n\
                     a label, the host name, MAC and IP addresses (never a MAC address itself); or\n\
                     'etcd': the lowest free ID of --fleet NAME, leased from the etcd cluster at\n\
                     --etcd URLS for as long as the command runs (see A FLEET below). At least one\n\
                     random bit must stay: B is at most 31 for v7, and the layout's random width\n\
                     less one for the draft layouts."
    )]
    pub machine_id: Option<MachineIdArg>,

    /// etcd endpoints for --machine-id etcd: http://HOST:PORT[,…]
    #[arg(long, value_name = "URLS", requires = "machine_id")]
    pub etcd: Option<String>,

    /// The fleet whose IDs --machine-id etcd leases (a key segment)
    #[arg(long, value_name = "NAME", requires = "machine_id")]
    pub fleet: Option<String>,

    /// Seconds the etcd lease lives without renewal [default: 10]
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, requires = "machine_id")]
    pub lease_ttl: Option<std::time::Duration>,

    /// Seconds to wait for a free ID when all are held [default: 0, fail at once]
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, requires = "machine_id")]
    pub claim_wait: Option<std::time::Duration>,

    /// Seconds to wait while the lease cannot be renewed before failing [default: 60]
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, requires = "machine_id")]
    pub fence_wait: Option<std::time::Duration>,

    /// Width of --machine-id in bits: v7 1-31, a draft layout its random width less one
    #[arg(long, value_name = "B", value_parser = parse_machine_id_bits, requires = "machine_id")]
    pub machine_id_bits: Option<u32>,

    /// Spread over N generators with distinct clock sequences, past 10 M/s
    #[arg(
        long,
        value_name = "N",
        value_parser = parse_shards,
        long_help = "Take the UUIDs in turn from N generators (1 to 64) that share the node but\n\
                     hold distinct clock sequences, each with its own budget of one UUID per 100 ns\n\
                     tick: past v1's cap of 10 million a second for one (node, clock sequence). The\n\
                     UUIDs are distinct; those of one generator have increasing timestamps, but the\n\
                     output as a whole is not ordered by time. Not with --time or --clock-seq. The\n\
                     shards keep their state in memory: where gen v1 would use a state file or\n\
                     uuidkitd (UUIDKIT_STATE, UUIDKIT_DAEMON, the default state file) --shards is a\n\
                     usage error unless --no-state says to go without (--node random keeps no state\n\
                     either way)."
    )]
    pub shards: Option<u32>,

    /// Raw custom_a (48 bits), decimal or 0x hex; missing custom fields are random
    #[arg(long, value_name = "N", value_parser = parse_custom_a, allow_hyphen_values = true)]
    pub custom_a: Option<u64>,

    /// Raw custom_b (12 bits), decimal or 0x hex
    #[arg(long, value_name = "N", value_parser = parse_custom_b, allow_hyphen_values = true)]
    pub custom_b: Option<u64>,

    /// Raw custom_c (62 bits), decimal or 0x hex
    #[arg(
        long,
        value_name = "N",
        value_parser = parse_custom_c,
        allow_hyphen_values = true,
        long_help = "Raw v8 fields as Python's uuid.uuid8(a, b, c) takes them: --custom-a\n\
                     (48 bits), --custom-b (12 bits), --custom-c (62 bits), each decimal or\n\
                     0x hex. Fields not given are random, as in Python. With all three, -n N\n\
                     writes the same UUID N times. Not with --layout, --namespace or --time."
    )]
    pub custom_c: Option<u64>,

    /// Embed this instant instead of now (RFC 3339)
    #[arg(
        long,
        value_name = "RFC3339",
        value_parser = parse_time,
        allow_hyphen_values = true,
        long_help = "Embed this instant instead of the current time. RFC 3339:\n\
                     YYYY-MM-DDTHH:MM:SS, an optional fraction of up to 9 digits, then Z or\n\
                     an offset ±HH:MM, e.g. 2022-02-22T14:22:22-05:00.\n\
                     Years past 9999 take ISO 8601's expanded form, a sign and at least six\n\
                     digits (+010889-08-02T05:31:50.655Z), as inspect writes them.\n\
                     The instant must fit the version: from 1582-10-15 to 5236-03-31 for v1,\n\
                     v2 and v6, from 1970 to +010889-08-02 for v7, to 2335 for v8."
    )]
    pub time: Option<TimeArg>,

    /// Clock sequence: 0-16383, decimal or 0x hex
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        value_parser = parse_clock_seq,
        long_help = "Clock sequence: 0 to 16383 (14 bits), decimal or 0x-prefixed hex. Without it,\n\
                     a random one is chosen. v2 stores only its top 6 bits."
    )]
    pub clock_seq: Option<ClockSequence>,

    /// Node: static, random, mac, hash, or a 48-bit value
    #[arg(
        long,
        value_name = "NODE",
        value_parser = parse_node,
        allow_hyphen_values = true,
        long_help = "Node ID: a strategy or a value. Overrides the UUIDKIT_NODE environment\n\
                     variable; the default is static.\n  \
                     static  a random node chosen once, multicast bit set; with a state\n          \
                     file the host's hash node, shared by all its processes\n  \
                     random  a new random node for every UUID, multicast bit set (no\n          \
                     state file: the nodes keep the UUIDs apart)\n  \
                     mac     the MAC address of an up, non-loopback interface\n          \
                     (static, with a warning, when there is none)\n  \
                     hash    SHA-256 of host name, MAC and IP addresses, multicast bit set\n  \
                     VALUE   a node ID, always in hex: 12 hex digits (9f6bdeced846), 0x and\n          \
                     1 to 12 hex digits (0x9F6BDECED846, 0x1), or six octets of 2 hex\n          \
                     digits with ':' or '-' between them (9F:6B:DE:CE:D8:46).\n          \
                     Digits are hex at any length (123456789012 is 0x123456789012);\n          \
                     decimal numbers are not accepted: write them in hex after 0x."
    )]
    pub node: Option<NodeStrategy>,

    /// Sub-millisecond method [default: counter]
    #[arg(long, value_enum, value_name = "METHOD")]
    pub method: Option<MethodArg>,

    /// Local domain: person, group, org or a number 0-255 [default: person]
    #[arg(
        long,
        value_name = "DOMAIN",
        value_parser = parse_domain,
        long_help = "Local domain of a v2 UUID: person (the local ID is a UID), group (a GID),\n\
                     org, or any domain number 0-255, decimal or 0x hex, as Go's\n\
                     uuid.NewDCESecurity allows (0, 1 and 2 are person, group and org).\n\
                     A number above 2 has no default --local-id. [default: person]"
    )]
    pub domain: Option<DomainArg>,

    /// Local ID (default: your UID for person, GID for group)
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        value_parser = parse_local_id,
        long_help = "Local identifier of a v2 UUID: a 32-bit number, decimal or 0x hex.\n\
                     Defaults to the current user's UID for --domain person and GID for\n\
                     --domain group; required for --domain org."
    )]
    pub local_id: Option<u32>,

    /// State file [default: UUIDKIT_STATE, else the XDG state dir]
    #[arg(
        long,
        value_name = "PATH",
        value_parser = state_path_parser(),
        long_help = "State file of the time-based versions, shared by every process that names it\n\
                     (see STATE FILE below). Overrides UUIDKIT_STATE; without either,\n\
                     $XDG_STATE_HOME/uuidkit/state, else $HOME/.local/state/uuidkit/state. Its lock\n\
                     file is PATH.lock. Not with --time, which uses no state."
    )]
    pub state: Option<PathBuf>,

    /// Keep the state in memory only: no state file (overrides UUIDKIT_STATE)
    #[arg(long, conflicts_with = "state")]
    pub no_state: bool,

    /// Take the state (v4: the UUIDs) from uuidkitd at this socket [default: UUIDKIT_DAEMON]
    #[arg(
        long,
        value_name = "PATH",
        value_parser = daemon_path_parser(),
        conflicts_with_all = ["state", "no_state", "time"],
        long_help = "The socket of uuidkitd, the host's UUID service: the time-based versions lease\n\
                     their timestamps from it instead of a state file, and v4 UUIDs are made by it\n\
                     (see DAEMON below). Overrides UUIDKIT_DAEMON. A daemon that does not answer is\n\
                     an error (exit 1). Not with --state, --no-state or --time."
    )]
    pub daemon: Option<PathBuf>,
}

impl GenArgs {
    /// Whether a name is given, by --name, --name-hex or --name-file.
    pub fn has_name(&self) -> bool {
        self.name.is_some() || self.name_hex.is_some() || self.name_file.is_some()
    }

    /// Settles the version: VERSION, else `-t` (v1), else v4 (also `-r`).
    pub fn resolve(&mut self) {
        self.version = match (self.version_arg, self.time_based) {
            (Some(v), _) => v,
            (None, true) => GenVersion::V1,
            (None, false) => GenVersion::V4,
        };
    }

    /// The draft layout `gen v8` is to write, if `--layout` names one.
    pub fn draft_layout(&self) -> Option<Layout> {
        self.layout
            .filter(|l| !matches!(l, Layout::B1 | Layout::B2))
    }

    /// The output form and case (for a compact encoding, see [`FormatArg::encoding`]).
    pub fn style(&self) -> (Format, Case) {
        let case = if self.upper { Case::Upper } else { Case::Lower };
        (self.format.hex().unwrap_or_default(), case)
    }
}

const LAYOUT_HELP: &str = "\
The layout of gen v8 (a v8 UUID does not say which it follows):
  b1           RFC 9562 Appendix B.1: 60-bit Unix 10 ns steps, then a 30-bit counter
               and 32 random bits (the default without --namespace/--name)
  b2           RFC 9562 Appendix B.2: SHA-256 name-based (the default with them)
  draft-v7-ms  the 2021 draft's v7 (36-bit Unix seconds, then the sub-second fraction
  draft-v7-us  in binary: 12, 24 or 38 bits), then a 12-, 14- or 8-bit sequence and
  draft-v7-ns  62, 48 or 40 random bits; written as version 8
  draft-v8-32  the draft's v8: 32-bit Unix seconds, 12-bit sequence, 62-bit node
  draft-v8-48  48-bit Unix milliseconds, 12-bit sequence, 62-bit node
  draft-v8-60  60-bit 100 ns ticks since 1582-10-15 (as v1/v6), 8-bit sequence,
               54-bit node
  draft-v8-64  64-bit Unix nanoseconds stored as its 60 most significant bits (16 ns
               units), 8-bit sequence, 54-bit node
The draft layouts' sequence starts at 0 on each new timestamp and never wraps (a
full one moves the timestamp one unit on), but in the layout's last unit, which it
cannot leave: there the sequence starts again and the UUIDs stay apart by their random
bits alone, out of order. Their node is random and never all zero.";
