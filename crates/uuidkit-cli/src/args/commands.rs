//! The arguments and help of every command but `gen`: those that read UUIDs (inspect,
//! check, convert, format), the state file and the daemon (state, daemon), and the
//! rest (collisions, completions, man).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use uuidkit::layout::Layout;

use super::values::{
    FormatArg, daemon_path_parser, parse_figure, parse_layout, parse_machine_id_bits,
    state_path_parser,
};

pub(super) const INSPECT_LONG_ABOUT: &str = "\
Show the fields of each UUID: its canonical form, variant and version, and what its
version's layout holds: the time (RFC 3339, UTC) and raw timestamp of v1, v2, v6 and
v7, the clock sequence and node of v1, v2 and v6, the hash of v3 and v5, the domain
and local ID of v2, the custom fields of v8. A blank line separates two UUIDs.

With no UUID arguments, reads one UUID a line from standard input; only the line end
(\\n or \\r\\n) is stripped. An invalid input is reported on standard error with
its argument or line number, and the exit status is 1; the valid ones are still shown.

--json writes one JSON object a line; a UUID has the keys that apply to it:
  uuid        the canonical form
  variant     ncs, rfc9562, microsoft or future
  version     the version field, 0-15, in the RFC 9562 variant (1-8 are the versions
              RFC 9562 defines); null in the other variants (so for Nil and Max)
  nil, max    whether it is the Nil or the Max UUID
  int         the 128 bits as one unsigned number, in decimal (a string: too large
              for a JSON number)
  bytes_le    the 16 bytes in Microsoft's GUID order (the first three fields
              little-endian), 32 lowercase hex digits
  fields      RFC 4122's six fields as lowercase hex: an object with time_low,
              time_mid, time_hi_and_version, clock_seq_hi_and_reserved,
              clock_seq_low and node
  time        v1, v2, v6 (7 fractional digits), v7 (3 digits); RFC 3339, UTC, with
              years past 9999 in ISO 8601's expanded form (+010889-08-02T05:31:50.655Z)
  timestamp   v1, v2, v6: 100 ns ticks since 1582-10-15; v7: Unix milliseconds
  clock_seq   v1, v6 (14 bits), v2 (its 6 stored bits)
  node        v1, v2, v6: 12 lowercase hex digits
  multicast   v1, v2, v6: the node's multicast bit (set in random nodes)
  hash        v3: md5, v5: sha1
  domain      v2: person, group, org (or the domain number)
  local_id    v2
  custom_a, custom_b, custom_c
              v8: the custom fields of 48, 12 and 62 bits
A v2 keeps only the top 28 bits of its timestamp: its time is exact to ~7 minutes.

--layout NAME reads each UUID as a named layout as well (v8 does not say which it
follows; the 2021 draft's v7 was shipped with version 7, which RFC 9562 reads as
nonsense times; see --layout below). Its time and timestamp then replace the
version's own, and --json adds the keys:
  layout      the layout's name
  sequence    the layout's counter, where it has one
  machine_id  with --machine-id-bits B: the first B random bits (right after the
              sequence), as a number
  random      the random bits after those, as hex
For example:
  uuidkit inspect --json --layout draft-v7-us 0621537e-e1f9-8ad0-8000-5632429295da";

pub(super) const CHECK_LONG_ABOUT: &str = "\
Validate UUIDs. Exits 0, printing nothing, if every input is a valid UUID in one
of the four accepted forms (hyphenated, simple, braced, urn; hex digits in either
case). Otherwise reports each invalid input on standard error, with its argument or
line number, the byte at fault and what was expected there, and exits 1:

  uuidkit: invalid UUID \"xyz\" (argument 2): at byte 0: expected a hex digit ...

With no UUID arguments, reads one UUID a line from standard input. Only the line end
(\\n or \\r\\n) is stripped: a line with a trailing space, or an empty line, is
invalid. An input longer than 64 bytes is quoted by its first 48 bytes and its length;
a line of any length is read in bounded memory.";

pub(super) const CONVERT_LONG_ABOUT: &str = "\
Convert Gregorian time-based UUIDs between version 1 and version 6, one a line in
canonical form. The timestamp, clock sequence and node are kept: the conversion is
lossless both ways.

--to v6 accepts v1 and v6 UUIDs; --to v1 accepts v6 and v1 UUIDs. A UUID already of
the target version is written unchanged (in canonical form), so a mixed list can be
normalized. Any other version is an error naming the input (exit status 1); the
other inputs are still converted.

With no UUID arguments, reads one UUID a line from standard input.";

/// What `inspect` accepts.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// Read inputs in this form only (needed for base58, base62, base64url: their
    /// 22-character texts look alike); default: any hex form, and base32 at 26 bytes
    #[arg(long, value_enum, value_name = "FORM")]
    pub from: Option<FormatArg>,

    /// One JSON object per line instead of the readable summary
    #[arg(long, conflicts_with = "output")]
    pub json: bool,

    /// How to show the fields: summary (the default), json (as --json), or table: one
    /// row a UUID in aligned columns under a header, like uuidparse
    #[arg(long, value_name = "HOW", value_parser = ["summary", "json", "table"])]
    pub output: Option<String>,

    /// With --output table: the columns, comma-separated: any JSON field of inspect
    /// (uuid, variant, version, time, timestamp, clock_seq, node, int, bytes_le, ...)
    #[arg(
        long,
        value_name = "LIST",
        default_value = "uuid,variant,version,time",
        value_delimiter = ','
    )]
    pub columns: Vec<String>,

    /// Read each UUID as this layout (b1, b2, draft-v7-ms, ... draft-v8-64)
    #[arg(
        long,
        value_name = "NAME",
        value_parser = parse_layout,
        long_help = INSPECT_LAYOUT_HELP
    )]
    pub layout: Option<Layout>,

    /// With --layout: read the first B random bits as a machine ID
    #[arg(long, value_name = "B", value_parser = parse_machine_id_bits, requires = "layout")]
    pub machine_id_bits: Option<u32>,

    /// UUIDs to inspect; with none, one per line from standard input
    #[arg(value_name = "UUID", value_parser = clap::value_parser!(OsString))]
    pub uuids: Vec<OsString>,
}

/// What `check` accepts.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Read inputs in this form only (needed for base58, base62, base64url: their
    /// 22-character texts look alike); default: any hex form, and base32 at 26 bytes
    #[arg(long, value_enum, value_name = "FORM")]
    pub from: Option<FormatArg>,

    /// UUIDs to check; with none, one per line from standard input
    #[arg(value_name = "UUID", value_parser = clap::value_parser!(OsString))]
    pub uuids: Vec<OsString>,
}

/// The target of `convert`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ConvertTarget {
    /// Version 1 (from v6; v1 passes through unchanged)
    V1,
    /// Version 6 (from v1; v6 passes through unchanged)
    V6,
}

/// What `convert` accepts.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// Read inputs in this form only (needed for base58, base62, base64url: their
    /// 22-character texts look alike); default: any hex form, and base32 at 26 bytes
    #[arg(long, value_enum, value_name = "FORM")]
    pub from: Option<FormatArg>,

    /// The version to convert to
    #[arg(long, value_enum, value_name = "VERSION")]
    pub to: ConvertTarget,

    /// UUIDs to convert; with none, one per line from standard input
    #[arg(value_name = "UUID", value_parser = clap::value_parser!(OsString))]
    pub uuids: Vec<OsString>,
}
const INSPECT_LAYOUT_HELP: &str = "\
Read each UUID as the named layout as well (see gen --help for the list): the draft
v7 layouts accept version 7 or 8, the others version 8. The output gains
  layout      the name
  time        RFC 3339 at the precision the layout carries (0 to 9 digits)
  timestamp   the timestamp field (draft v7: its ms, us or ns since 1970)
  sequence    the sequence counter (draft layouts)
  random      the random (node) bits in hex (after the machine ID, if asked for)
  machine_id  with --machine-id-bits B: the first B random bits
and time and timestamp replace the version's own. A UUID of another version is
reported as an error (exit status 1).";
pub(super) const FORMAT_LONG_ABOUT: &str = "\
Re-encode each UUID into FORM, one a line: hyphenated, simple, braced, urn, or the compact
base32 (Crockford, 26 characters: ULID's form, so a v7 sorts as its ULID), base58
(Bitcoin), base62 or base64url (RFC 4648, unpadded; 22 characters each).

Inputs are the arguments, or one a line from standard input. Any hex form is read, and a
26-character input as base32; a 22-character text could be base58, base62 or base64url,
so those are read only with --from naming the one. An input that is not a UUID is
reported with the byte at fault (exit status 1), as check reports it.

Examples:
  uuidkit format --to base32 017f22e2-79b0-7cc3-98c4-dc0c0c07398f
  uuidkit gen v7 -n 3 | uuidkit format --to base58
  uuidkit format --from base58 --to urn 1BzmjTFLHWXwiSK4y3H5iW";

/// What `format` accepts.
#[derive(Debug, Args)]
pub struct FormatArgs {
    /// The form to write
    #[arg(long, value_enum, value_name = "FORM")]
    pub to: FormatArg,
    /// Read inputs in this form only (needed for base58, base62, base64url: their
    /// 22-character texts look alike); default: any hex form, and base32 at 26 bytes
    #[arg(long, value_enum, value_name = "FORM")]
    pub from: Option<FormatArg>,

    /// Uppercase hex digits (hex forms only; the urn:uuid: prefix stays lowercase)
    #[arg(long)]
    pub upper: bool,

    /// UUIDs to re-encode; with none, one per line from standard input
    #[arg(value_name = "UUID", value_parser = clap::value_parser!(OsString))]
    pub uuids: Vec<OsString>,
}

pub(super) const STATE_LONG_ABOUT: &str = "\
Show or check the state file that gen keeps for the time-based versions.

PATH is the state file; without it, UUIDKIT_STATE, else
$XDG_STATE_HOME/uuidkit/state, else $HOME/.local/state/uuidkit/state (the file gen
uses without --state). Both read the file without locking or changing it.

The file holds one entry per generator kind: 'gregorian' for v1, v2 and v6 of one
node ID, 'v7', 'v8', and one for each of the 2021 draft's layouts gen v8 --layout
writes (draft-v7-ms ... draft-v8-64). Each entry records a position, a number ordered
like the UUIDs: Gregorian 100 ns ticks since 1582-10-15; v7 the Unix milliseconds times
2^42 plus the 42-bit counter; v8 the 10 ns steps since 1970 times 2^30 plus the 30-bit
counter; a draft layout its timestamp (in its finest unit) times 2^S plus its S-bit
sequence. 'high' is the highest position ever handed out, 'durable' the write-ahead
mark above it that survives a power loss.";

pub(super) const STATE_AFTER_LONG_HELP: &str = "\
EXIT STATUS:
  0  show: the file was read (a damaged one too: its \"damage\" says what is wrong);
     check: the file is sound
  1  the file does not exist, cannot be read, or is in a newer format than this
     uuidkit reads (the message names both versions); check: the file is damaged
     (the message names the line and field)
  2  usage error

EXAMPLES:
  uuidkit state show
  uuidkit state show /var/lib/uuidkit/state | jq -r '.entries[].high_time'
  uuidkit state check || echo 'the next gen will rewrite it'";

/// What `state` accepts.
#[derive(Debug, Args)]
pub struct StateArgs {
    /// What to do with the state file.
    #[command(subcommand)]
    pub action: StateAction,
}

/// The subcommands of `state`.
#[derive(Debug, Subcommand)]
pub enum StateAction {
    /// Write the state file's content as one JSON object
    #[command(long_about = STATE_SHOW_LONG_ABOUT)]
    Show(StatePathArg),
    /// Exit 0 if the state file is sound; otherwise say what is wrong and exit 1
    #[command(long_about = STATE_CHECK_LONG_ABOUT)]
    Check(StatePathArg),
}

/// What `daemon` accepts.
#[derive(Debug, Args)]
pub struct DaemonArgs {
    /// What to ask the daemon.
    #[command(subcommand)]
    pub action: DaemonAction,
}

/// The subcommands of `daemon`.
#[derive(Debug, Subcommand)]
pub enum DaemonAction {
    /// Write what uuidkitd reports about itself as one JSON object
    #[command(long_about = DAEMON_STATUS_LONG_ABOUT)]
    Status(DaemonSocketArg),
}

/// The socket of the daemon to ask.
#[derive(Debug, Args)]
pub struct DaemonSocketArg {
    /// The daemon's socket [default: UUIDKIT_DAEMON, else the default socket]
    #[arg(long, value_name = "PATH", value_parser = daemon_path_parser())]
    pub daemon: Option<PathBuf>,
}

pub(super) const DAEMON_LONG_ABOUT: &str = "\
Ask uuidkitd, the host's UUID service, how it is.

The daemon's socket is --daemon PATH, else UUIDKIT_DAEMON, else the default socket:
/run/uuidkit/uuidkitd.sock for root, $XDG_RUNTIME_DIR/uuidkit/uuidkitd.sock for
others. gen uses a daemon only when --daemon or UUIDKIT_DAEMON names it.";

pub(super) const DAEMON_AFTER_LONG_HELP: &str = "\
EXIT STATUS:
  0  the daemon answered
  1  no daemon answers on the socket (the message names it and says why), or there
     is no socket to ask (UUIDKIT_DAEMON and XDG_RUNTIME_DIR unset)
  2  usage error

EXAMPLES:
  uuidkit daemon status
  uuidkit daemon status --daemon /run/uuidkit/uuidkitd.sock | jq .uptime_ms";

const DAEMON_STATUS_LONG_ABOUT: &str = "\
Write what uuidkitd reports about itself as one JSON object, with the keys:
  socket          the socket asked
  version         the daemon's version
  state           its state file
  pid             its process ID
  uptime_ms       milliseconds since it started
  leases          leases of timestamps granted (its own protocol and uuidd's)
  random          random (v4) UUIDs handed out
  uuidd_requests  requests answered in util-linux uuidd's protocol
  clients         connections open now, this one included
  connections     connections accepted since it started
  node            the node ID of the v1 UUIDs it makes for libuuid, 12 hex digits
  lead_bound_ms   how far the positions it grants may run ahead of its reference
                  time (its clock, or where a kind was when the clock was set back,
                  carried on at real speed); 0 from a daemon that does not say
  leads           the kinds it leased whose highest granted position is furthest
                  ahead of that time: {\"kind\", \"lead_ms\"}, largest first, at
                  most 64; a negative lead means the clock has passed it";

/// The optional state file operand.
#[derive(Debug, Args)]
pub struct StatePathArg {
    /// The state file [default: UUIDKIT_STATE, else the XDG state dir]
    #[arg(
        value_name = "PATH",
        value_parser = state_path_parser()
    )]
    pub path: Option<PathBuf>,
}

const STATE_SHOW_LONG_ABOUT: &str = "\
Write the state file's content as one JSON object, with the keys:
  path             the file
  format_version   the version its first line states (0 if that is not a header)
  checksum_ok      whether its checksum line matches the content
  boot_id          the boot ID of the system that wrote it, or null
  current_boot_id  this system's boot ID now, or null (when it differs, the next
                   lease starts above each entry's durable mark)
  size             the file's size in bytes
  damage           what is wrong with it, naming the line and field, or null
  entries          one object per generator kind:
    kind             gregorian (v1, v2, v6 of one node), v7, v8 or a draft layout
                     (draft-v7-ms ... draft-v8-64)
    node             gregorian: the node ID, 12 hex digits
    clock_seq        gregorian: the clock sequence, 0-16383
    high             the highest position handed out, a decimal string (positions
                     exceed the integers JSON numbers hold exactly)
    high_time        its time: RFC 3339, UTC
    high_counter     v7, v8, draft layouts: its counter bits (42 for v7, 30 for v8,
                     the sequence's 8, 12 or 14 for a draft layout)
    durable, durable_time, durable_counter
                     the write-ahead mark, the same way
    last_clock, last_clock_time
                     the clock reading of the latest lease
A damaged file shows the entries that could be read before the damage. A file in a
newer format is not shown: the command names both versions and exits 1.";

const STATE_CHECK_LONG_ABOUT: &str = "\
Check the state file. Exits 0, printing nothing, if it is sound. Otherwise says what
is wrong on standard error and exits 1: a missing file ('does not exist'), one that
cannot be read, or damage with the line and field at fault:

  uuidkit: state file /root/.local/state/uuidkit/state: line 3, field high: ...

A damaged file does not stop gen: the next gen warns, starts afresh from the clock and
rewrites the file. A file in a newer format is not damage: check names both versions
and exits 1, and gen leaves the file untouched and refuses to use it.";

pub(super) const COLLISIONS_LONG_ABOUT: &str = "\
How likely a fleet of hosts, generating without coordination, is to make the same UUID
twice: the expected number of colliding pairs and the probability of at least one, for
HOSTS hosts each making RATE UUIDs a second for YEARS years (Julian years of 365.25
days), with the generator uuidkit uses for that version, method, layout and node.

UUIDs of one host never collide (its generators never repeat); between hosts, only the
random bits each draws keep them apart. docs/collisions.md derives each figure.

Examples:
  uuidkit collisions --version v4 --hosts 1000 --rate 1000000 --years 10
  uuidkit collisions --version v7 --method counter --hosts 10 --rate 1000 --years 1 --json
  uuidkit collisions --version v7 --machine-id-bits 10 --hosts 1000 --rate 1e6 --years 10
  uuidkit collisions --version v7 --machine-id-bits 10 --machine-id leased --hosts 1000 --rate 1e6 --years 10
  uuidkit collisions --version v1 --node static --hosts 1000000 --rate 100 --years 10";

/// What `collisions` accepts.
#[derive(Debug, Args)]
pub struct CollisionsArgs {
    /// The version: v1, v4, v6, v7 or v8
    #[arg(long, value_name = "VERSION", value_parser = ["v1", "v4", "v6", "v7", "v8"])]
    pub version: String,
    /// v7 only: the RFC 9562 §6.2 method
    #[arg(long, value_name = "METHOD", value_parser = ["counter", "random", "precision"])]
    pub method: Option<String>,
    /// v8 only: the layout (b1, b2, draft-v7-ms/-us/-ns, draft-v8-32/-48/-60/-64; default b1)
    #[arg(long, value_name = "NAME", value_parser = parse_layout)]
    pub layout: Option<Layout>,
    /// v1/v6 only: how the node is chosen (static, the default, is random per generator)
    #[arg(long, value_name = "STRATEGY", value_parser = ["static", "random", "hash", "mac"])]
    pub node: Option<String>,
    /// v7 and v8 layouts: B bits of machine ID in place of random bits
    #[arg(long, value_name = "B", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub machine_id_bits: Option<u32>,
    /// How the hosts get their machine IDs: assigned (distinct, the default), hash, or
    /// leased (from etcd: gen and uuidkitd --machine-id etcd)
    #[arg(long, value_name = "HOW", value_parser = ["assigned", "hash", "leased"], requires = "machine_id_bits")]
    pub machine_id: Option<String>,
    /// Hosts generating at once
    #[arg(long, value_name = "H", value_parser = parse_figure, allow_hyphen_values = true)]
    pub hosts: f64,
    /// UUIDs a second per host
    #[arg(long, value_name = "R", value_parser = parse_figure, allow_hyphen_values = true)]
    pub rate: f64,
    /// Years of generation
    #[arg(long, value_name = "Y", value_parser = parse_figure, allow_hyphen_values = true)]
    pub years: f64,
    /// Print one JSON object instead of text
    #[arg(long)]
    pub json: bool,
}

pub(super) const COMPLETIONS_LONG_ABOUT: &str = "\
Print a completion script for SHELL on standard output, made from the same definitions
as this help, so it knows every subcommand and option.

Install it where the shell looks:
  bash:   uuidkit completions bash > ~/.local/share/bash-completion/completions/uuidkit
  zsh:    uuidkit completions zsh > ~/.zfunc/_uuidkit   (with fpath+=(~/.zfunc) in .zshrc)
  fish:   uuidkit completions fish > ~/.config/fish/completions/uuidkit.fish
  elvish: uuidkit completions elvish >> ~/.config/elvish/rc.elv
  powershell: uuidkit completions powershell >> $PROFILE";

/// What `completions` accepts.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

pub(super) const MAN_LONG_ABOUT: &str = "\
Write the man pages, made from the same definitions as this help: uuidkit(1) and one
page a subcommand (uuidkit-gen(1), uuidkit-inspect(1), ...).

Without --dir, uuidkit(1) is printed on standard output (try: uuidkit man | man -l -).
With --dir DIR, every page is written into DIR as NAME.1; install them with, for
example: uuidkit man --dir ~/.local/share/man/man1";

/// What `man` accepts.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write every page into this directory (created if missing) instead of printing
    /// uuidkit(1)
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
}
