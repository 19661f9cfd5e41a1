//! The command line: clap definitions, the help text, and the value parsers that turn a
//! flag's text into a library value (so that clap reports a bad value as a usage error
//! naming the flag, and exits with status 2).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use uuidkit::encoding::Encoding;
use uuidkit::layout::{ClockSequence, Layout};
use uuidkit::time::UnixTime;
use uuidkit::{Case, Format, Uuid};

use uuidkit::node::NodeStrategy;

const ABOUT: &str = "Generate, inspect, check and convert UUIDs (RFC 9562)";

const LONG_ABOUT: &str = "\
Generate, inspect, check and convert UUIDs (RFC 9562).

uuidkit writes every version of RFC 9562 (v1 to v8, the Nil and the Max UUID), reads
the fields back out of any UUID, validates UUID text naming the byte at fault, and
converts between the Gregorian time-based versions 1 and 6.

gen keeps the state of the time-based versions (v1, v2, v6, v7, v8) in a state file
shared by every uuidkit process of the user, as uuidgen -t does: processes that share
it never write the same UUID, and a process started later continues above everything
an earlier one wrote, after a crash or a clock set back too. 'uuidkit state' shows
and checks the file. With --daemon PATH (or UUIDKIT_DAEMON) gen takes its state from
uuidkitd, the host's UUID service, instead; 'uuidkit daemon status' asks how it is.

Accepted input forms, hex digits in either case:
  hyphenated  f81d4fae-7dec-11d0-a765-00a0c91e6bf6
  simple      f81d4fae7dec11d0a76500a0c91e6bf6
  braced      {f81d4fae-7dec-11d0-a765-00a0c91e6bf6}
  urn         urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6
Nothing else is accepted: no surrounding spaces, no 0x prefix.

inspect, check and convert read their UUIDs from the arguments or, with none, one a
line from standard input; '--' ends the options.";

const AFTER_LONG_HELP: &str = "\
EXIT STATUS:
  0  success; also when gen warned about its state file (it goes on without it)
  1  an input was not a valid UUID (or could not be converted), generation failed,
     the state file is in a newer format than this uuidkit reads (gen and state
     leave it untouched), state check found the state file missing, unreadable or
     damaged, or the uuidkitd that gen or daemon status was given could not be
     reached
  2  usage error: unknown subcommand or version, a flag that does not apply, a bad flag value

ENVIRONMENT:
  UUIDKIT_NODE    node strategy for gen v1/v2/v6 when --node is not given
                  (static, random, mac, hash or a 48-bit node value in hex)
  UUIDKIT_STATE   the state file of gen and state when --state or PATH is not given;
                  unset or empty: $XDG_STATE_HOME/uuidkit/state, else
                  $HOME/.local/state/uuidkit/state (gen --no-state uses none)
  XDG_STATE_HOME, HOME
                  where the default state file lives (absolute paths only)
  UUIDKIT_DAEMON  the socket of uuidkitd: gen takes its state (and v4 its UUIDs) from
                  it when neither --daemon, --state, --no-state nor --time is given,
                  and daemon status asks it when --daemon is not given; unset or
                  empty: gen uses the state file
  XDG_RUNTIME_DIR where daemon status looks for uuidkitd without --daemon or
                  UUIDKIT_DAEMON: $XDG_RUNTIME_DIR/uuidkit/uuidkitd.sock
                  (/run/uuidkit/uuidkitd.sock for root)

EXAMPLES:
  uuidkit gen v7 -n 5
  uuidkit gen v5 --namespace @dns --name www.example.com
  uuidkit gen v1 --time 2022-02-22T14:22:22-05:00 --clock-seq 0x33C8 --node 9F:6B:DE:CE:D8:46
  uuidkit inspect --json 017f22e2-79b0-7cc3-98c4-dc0c0c07398f
  uuidkit check < ids.txt
  uuidkit convert --to v6 c232ab00-9414-11ec-b3c8-9f6bdeced846
  uuidkit state show
  uuidkit gen v7 --daemon /run/uuidkit/uuidkitd.sock -n 5
  uuidkit daemon status";

/// The whole command line.
#[derive(Debug, Parser)]
#[command(
    name = "uuidkit",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_long_help = AFTER_LONG_HELP,
    subcommand_required = true,
    arg_required_else_help = true
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Generate UUIDs of a chosen version, one a line
    #[command(
        long_about = GEN_LONG_ABOUT,
        after_long_help = GEN_AFTER_LONG_HELP
    )]
    Gen(Box<GenArgs>),
    /// Show the fields of UUIDs: version, variant, time, clock sequence, node, hash
    #[command(long_about = INSPECT_LONG_ABOUT)]
    Inspect(InspectArgs),
    /// Validate UUIDs; report each invalid input with the byte at fault
    #[command(long_about = CHECK_LONG_ABOUT)]
    Check(CheckArgs),
    /// Convert time-based UUIDs between version 1 and version 6
    #[command(long_about = CONVERT_LONG_ABOUT)]
    Convert(ConvertArgs),
    /// Show or check the state file that gen keeps for the time-based versions
    #[command(
        long_about = STATE_LONG_ABOUT,
        after_long_help = STATE_AFTER_LONG_HELP,
        subcommand_required = true,
        arg_required_else_help = true
    )]
    State(StateArgs),
    /// Ask uuidkitd, the host's UUID service, how it is
    #[command(
        long_about = DAEMON_LONG_ABOUT,
        after_long_help = DAEMON_AFTER_LONG_HELP,
        subcommand_required = true,
        arg_required_else_help = true
    )]
    Daemon(DaemonArgs),
    /// Re-encode UUIDs into another text form (hex forms, base32, base58, base62, base64url)
    #[command(long_about = FORMAT_LONG_ABOUT)]
    Format(FormatArgs),
    /// How likely two hosts make the same UUID: expected colliding pairs and probability
    #[command(long_about = COLLISIONS_LONG_ABOUT)]
    Collisions(CollisionsArgs),
    /// Print a shell completion script for uuidkit
    #[command(long_about = COMPLETIONS_LONG_ABOUT)]
    Completions(CompletionsArgs),
    /// Write uuidkit's man pages
    #[command(long_about = MAN_LONG_ABOUT)]
    Man(ManArgs),
}

const FORMAT_LONG_ABOUT: &str = "\
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

const COLLISIONS_LONG_ABOUT: &str = "\
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
    /// How the hosts get their machine IDs: assigned (distinct, the default) or hash
    #[arg(long, value_name = "HOW", value_parser = ["assigned", "hash"], requires = "machine_id_bits")]
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

/// A finite, non-negative number: decimal or scientific (`1e6`).
pub fn parse_figure(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        Ok(v) => Err(format!(
            "'{s}' is {v}: a figure must be a finite number at least 0"
        )),
        Err(_) => Err(format!("'{s}' is not a number (decimal, or like 1e6)")),
    }
}

const COMPLETIONS_LONG_ABOUT: &str = "\
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

const MAN_LONG_ABOUT: &str = "\
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

const GEN_LONG_ABOUT: &str = "\
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

const GEN_AFTER_LONG_HELP: &str = "\
FLAGS BY VERSION:
  v1       --time, --clock-seq, --node, --state, --daemon, --shards
  v6       --time, --clock-seq, --node, --state, --daemon
  v2       --domain, --local-id, --time, --clock-seq, --node, --state, --daemon
  v3, v5   --namespace, --name | --name-hex | --name-file (both required)
  v4       --daemon
  v7       --time, --method, --machine-id, --machine-id-bits, --state, --daemon
  v8       --layout; --namespace and --name | --name-hex | --name-file (b2);
           --time, --state, --daemon (b1 and the draft layouts);
           --machine-id, --machine-id-bits (draft layouts);
           --custom-a, --custom-b, --custom-c (raw fields)
  all      --count, --format, --upper, --no-state

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

EXAMPLES:
  uuidkit gen v4 -n 3 --format simple
  uuidkit gen v5 --namespace @url --name https://example.com/
  uuidkit gen v1 --time 2022-02-22T14:22:22-05:00 --clock-seq 0x33C8 --node 9F:6B:DE:CE:D8:46
  uuidkit gen v7 --method precision --upper
  uuidkit gen v7 --machine-id 42 --machine-id-bits 10
  uuidkit gen v8 --layout draft-v7-us -n 3
  uuidkit gen v8 --layout draft-v8-48 --machine-id hash
  uuidkit gen v8 --custom-a 0x123456789abc --custom-b 0xdef --custom-c 0x3fff
  uuidkit gen v5 --namespace @oid --name-hex 0x2b0601
  uuidkit gen v2 --domain 42 --local-id 7
  uuidkit gen v7 --state /var/lib/uuidkit/state -n 3
  uuidkit gen v7 --daemon /run/uuidkit/uuidkitd.sock -n 3
  UUIDKIT_DAEMON=$XDG_RUNTIME_DIR/uuidkit/uuidkitd.sock uuidkit gen v6 --node 0x0123456789ab
  UUIDKIT_STATE=/tmp/uuidkit-test-state uuidkit gen v6 --node 0x0123456789ab";

const STATE_LONG_ABOUT: &str = "\
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

const STATE_AFTER_LONG_HELP: &str = "\
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

const INSPECT_LONG_ABOUT: &str = "\
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

const CHECK_LONG_ABOUT: &str = "\
Validate UUIDs. Exits 0, printing nothing, if every input is a valid UUID in one
of the four accepted forms (hyphenated, simple, braced, urn; hex digits in either
case). Otherwise reports each invalid input on standard error, with its argument or
line number, the byte at fault and what was expected there, and exits 1:

  uuidkit: invalid UUID \"xyz\" (argument 2): at byte 0: expected a hex digit ...

With no UUID arguments, reads one UUID a line from standard input. Only the line end
(\\n or \\r\\n) is stripped: a line with a trailing space, or an empty line, is
invalid. An input longer than 64 bytes is quoted by its first 48 bytes and its length;
a line of any length is read in bounded memory.";

const CONVERT_LONG_ABOUT: &str = "\
Convert Gregorian time-based UUIDs between version 1 and version 6, one a line in
canonical form. The timestamp, clock sequence and node are kept: the conversion is
lossless both ways.

--to v6 accepts v1 and v6 UUIDs; --to v1 accepts v6 and v1 UUIDs. A UUID already of
the target version is written unchanged (in canonical form), so a mixed list can be
normalized. Any other version is an error naming the input (exit status 1); the
other inputs are still converted.

With no UUID arguments, reads one UUID a line from standard input.";

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

/// An output text form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// 8-4-4-4-12 hex digits
    #[default]
    Hyphenated,
    /// 32 hex digits
    Simple,
    /// {hyphenated}
    Braced,
    /// urn:uuid:hyphenated
    Urn,
    /// Crockford base32, 26 characters (ULID's text form)
    Base32,
    /// Bitcoin base58, 22 characters
    Base58,
    /// base62 (0-9A-Za-z), 22 characters
    Base62,
    /// RFC 4648 base64url without padding, 22 characters
    Base64url,
}

impl FormatArg {
    /// The hex form, or `None` for a compact encoding.
    pub fn hex(self) -> Option<Format> {
        match self {
            FormatArg::Hyphenated => Some(Format::Hyphenated),
            FormatArg::Simple => Some(Format::Simple),
            FormatArg::Braced => Some(Format::Braced),
            FormatArg::Urn => Some(Format::Urn),
            _ => None,
        }
    }

    /// The compact encoding, or `None` for a hex form.
    pub fn encoding(self) -> Option<Encoding> {
        match self {
            FormatArg::Base32 => Some(Encoding::Base32),
            FormatArg::Base58 => Some(Encoding::Base58),
            FormatArg::Base62 => Some(Encoding::Base62),
            FormatArg::Base64url => Some(Encoding::Base64Url),
            _ => None,
        }
    }
}

/// How v7 fills the bits after the millisecond timestamp (RFC 9562 §6.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// §6.2 method 1: a 42-bit counter, seeded at random each millisecond, then 32 random bits
    Counter,
    /// §6.2 method 2: a 74-bit value seeded at random (top bit clear) each millisecond, then stepped by 1 to 2^32 at random
    Random,
    /// §6.2 method 3: 1/4096 ms in rand_a, then a 30-bit counter and 32 random bits
    Precision,
}

/// The local domain of a v2 UUID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DomainArg {
    /// The local ID is a POSIX user ID (default: your UID)
    Person,
    /// The local ID is a POSIX group ID (default: your GID)
    Group,
    /// The local ID is an organisation number (no default)
    Org,
    /// Another domain number, 3-255 (no default local ID), as Go's NewDCESecurity allows
    Other(u8),
}

/// `--domain`: person, group, org, or a domain number 0-255 (0-2 are person, group and
/// org), decimal or 0x hex.
pub fn parse_domain(s: &str) -> Result<DomainArg, String> {
    match s {
        "person" => return Ok(DomainArg::Person),
        "group" => return Ok(DomainArg::Group),
        "org" => return Ok(DomainArg::Org),
        _ => {}
    }
    let n = parse_number(s).map_err(|e| {
        format!("{e}; a domain is person, group, org or a number 0-255 (decimal or 0x hex)")
    })?;
    match n {
        0 => Ok(DomainArg::Person),
        1 => Ok(DomainArg::Group),
        2 => Ok(DomainArg::Org),
        3..=255 => Ok(DomainArg::Other(n as u8)),
        _ => Err(format!(
            "a domain number is one octet, 0-255; {n} is too large"
        )),
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

    /// Namespace for v3, v5 and v8: @dns, @url, @oid, @x500 or a UUID
    #[arg(
        long,
        value_name = "NS",
        value_parser = parse_namespace,
        long_help = "Namespace of a name-based UUID (v3, v5, v8): @dns, @url, @oid or @x500\n\
                     for the namespaces of RFC 9562 §6.6, or any UUID in an accepted form."
    )]
    pub namespace: Option<Uuid>,

    /// Name for v3, v5 and v8, hashed as its UTF-8 bytes
    #[arg(long, value_name = "NAME", conflicts_with_all = ["name_hex", "name_file"])]
    pub name: Option<String>,

    /// Name for v3, v5 and v8 as bytes in hex (for names that are not text)
    #[arg(
        long,
        value_name = "HEX",
        value_parser = parse_name_hex,
        conflicts_with = "name_file",
        long_help = "The name of a name-based UUID (v3, v5, v8) as its bytes in hex: an even\n\
                     number of hex digits, either case, optionally after 0x (an empty name\n\
                     is '' or 0x). For names that are bytes rather than text, such as an\n\
                     ASN.1 DER OID or a binary key. Instead of --name or --name-file."
    )]
    pub name_hex: Option<NameBytes>,

    /// Name for v3, v5 and v8: the bytes of this file ('-': standard input)
    #[arg(
        long,
        value_name = "PATH",
        value_parser = clap::value_parser!(PathBuf),
        long_help = "The name of a name-based UUID (v3, v5, v8): every byte of the file PATH,\n\
                     as it is (no line end stripped), or of standard input for '-'. At most\n\
                     16 MiB. Instead of --name or --name-hex."
    )]
    pub name_file: Option<PathBuf>,

    /// v8 layout: b1, b2, draft-v7-ms/-us/-ns, draft-v8-32/-48/-60/-64
    #[arg(
        long,
        value_name = "NAME",
        value_parser = parse_layout,
        long_help = LAYOUT_HELP
    )]
    pub layout: Option<Layout>,

    /// Machine ID in the first random bits after the counter (v7, draft layouts): N or hash
    #[arg(
        long,
        value_name = "ID",
        value_parser = parse_machine_id,
        long_help = "A machine ID in the first random bits right after the timestamp and\n\
                     counter (the 2021 draft's Distributed UUID Generation), for gen v7\n\
                     (methods counter and precision: in rand_b's last 32 bits) and gen v8\n\
                     --layout draft-*: a number, decimal or 0x hex, with --machine-id-bits B;\n\
                     or 'hash': the first B bits (default 16) of SHA-256 over a label, the\n\
                     host name, MAC and IP addresses (never a MAC address itself). At least\n\
                     one random bit must stay: B is at most 31 for v7, and the layout's\n\
                     random width less one for the draft layouts."
    )]
    pub machine_id: Option<MachineIdArg>,

    /// Width of --machine-id in bits, 1-64
    #[arg(long, value_name = "B", value_parser = parse_machine_id_bits, requires = "machine_id")]
    pub machine_id_bits: Option<u32>,

    /// v1: spread over N generators with distinct clock sequences, past 10 M/s
    #[arg(
        long,
        value_name = "N",
        value_parser = parse_shards,
        long_help = "gen v1 only: take the UUIDs in turn from N generators (1 to 64) that\n\
                     share the node but hold distinct clock sequences, each with its own\n\
                     budget of one UUID per 100 ns tick: past v1's cap of 10 million a\n\
                     second for one (node, clock sequence). The UUIDs are distinct; those of\n\
                     one generator have increasing timestamps, but the output as a whole is\n\
                     not ordered by time. Not with --time or --clock-seq. The shards keep\n\
                     their state in memory: where gen v1 would use a state file or uuidkitd\n\
                     (UUIDKIT_STATE, UUIDKIT_DAEMON, the default state file) --shards is a\n\
                     usage error unless --no-state says to go without (--node random keeps\n\
                     no state either way)."
    )]
    pub shards: Option<u32>,

    /// Raw v8 custom_a (48 bits), decimal or 0x hex; missing custom fields are random
    #[arg(long, value_name = "N", value_parser = parse_custom_a, allow_hyphen_values = true)]
    pub custom_a: Option<u64>,

    /// Raw v8 custom_b (12 bits), decimal or 0x hex
    #[arg(long, value_name = "N", value_parser = parse_custom_b, allow_hyphen_values = true)]
    pub custom_b: Option<u64>,

    /// Raw v8 custom_c (62 bits), decimal or 0x hex
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

    /// Embed this instant instead of now (RFC 3339), for v1, v2, v6, v7, v8
    #[arg(
        long,
        value_name = "RFC3339",
        value_parser = parse_time,
        allow_hyphen_values = true,
        long_help = "Embed this instant instead of the current time (v1, v2, v6, v7 and the\n\
                     time-based v8). RFC 3339: YYYY-MM-DDTHH:MM:SS, an optional fraction of up\n\
                     to 9 digits, then Z or an offset ±HH:MM, e.g. 2022-02-22T14:22:22-05:00.\n\
                     Years past 9999 take ISO 8601's expanded form, a sign and at least six\n\
                     digits (+010889-08-02T05:31:50.655Z), as inspect writes them.\n\
                     The instant must fit the version: from 1582-10-15 to 5236-03-31 for v1,\n\
                     v2 and v6, from 1970 to +010889-08-02 for v7, to 2335 for v8."
    )]
    pub time: Option<TimeArg>,

    /// Clock sequence for v1, v2, v6: 0-16383, decimal or 0x hex
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        value_parser = parse_clock_seq,
        long_help = "Clock sequence for v1, v2 and v6: 0 to 16383 (14 bits), decimal or\n\
                     0x-prefixed hex. Without it, a random one is chosen. v2 stores only its\n\
                     top 6 bits."
    )]
    pub clock_seq: Option<ClockSequence>,

    /// Node for v1, v2, v6: static, random, mac, hash, or a 48-bit value
    #[arg(
        long,
        value_name = "NODE",
        value_parser = parse_node,
        allow_hyphen_values = true,
        long_help = "Node ID for v1, v2 and v6: a strategy or a value. Overrides the\n\
                     UUIDKIT_NODE environment variable; the default is static.\n  \
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

    /// v7 sub-millisecond method [default: counter]
    #[arg(long, value_enum, value_name = "METHOD")]
    pub method: Option<MethodArg>,

    /// v2 local domain: person, group, org or a number 0-255 [default: person]
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

    /// v2 local ID (default: your UID for person, GID for group)
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

    /// State file for v1, v2, v6, v7, v8 [default: UUIDKIT_STATE, else the XDG state dir]
    #[arg(
        long,
        value_name = "PATH",
        value_parser = state_path_parser(),
        long_help = "State file of the time-based versions (v1, v2, v6, v7, the time-based\n\
                     v8), shared by every process that names it (see STATE FILE below).\n\
                     Overrides UUIDKIT_STATE; without either, $XDG_STATE_HOME/uuidkit/state,\n\
                     else $HOME/.local/state/uuidkit/state. Its lock file is PATH.lock.\n\
                     Not with --time, which uses no state."
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
        long_help = "The socket of uuidkitd, the host's UUID service: v1, v2, v6, v7 and the\n\
                     time-based v8 lease their timestamps from it instead of a state file,\n\
                     and v4 UUIDs are made by it (see DAEMON below). Overrides\n\
                     UUIDKIT_DAEMON. A daemon that does not answer is an error (exit 1).\n\
                     Not with --state, --no-state or --time."
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

    /// The output form and case (for a compact encoding, see [`FormatArg::encoding`]).
    pub fn style(&self) -> (Format, Case) {
        let case = if self.upper { Case::Upper } else { Case::Lower };
        (self.format.hex().unwrap_or_default(), case)
    }
}

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

const DAEMON_LONG_ABOUT: &str = "\
Ask uuidkitd, the host's UUID service, how it is.

The daemon's socket is --daemon PATH, else UUIDKIT_DAEMON, else the default socket:
/run/uuidkit/uuidkitd.sock for root, $XDG_RUNTIME_DIR/uuidkit/uuidkitd.sock for
others. gen uses a daemon only when --daemon or UUIDKIT_DAEMON names it.";

const DAEMON_AFTER_LONG_HELP: &str = "\
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

/// An unsigned number in decimal or with a `0x`/`0X` prefix in hex.
fn parse_number(s: &str) -> Result<u64, String> {
    let (digits, radix) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None => (s, 10),
    };
    // from_str_radix accepts a leading '+'; a number here is digits only.
    if digits.is_empty() || !digits.bytes().all(|b| (b as char).is_digit(radix)) {
        return Err(if radix == 16 {
            "expected hex digits after 0x".to_string()
        } else {
            "expected a decimal number or 0x followed by hex digits".to_string()
        });
    }
    u64::from_str_radix(digits, radix).map_err(|_| "the number is too large".to_string())
}

/// `-n`/`--count`: 0 to 2^64-1, decimal or hex. Whatever follows `-n` comes here, also
/// text starting with '-' (rather than clap's tip to write `-- -1`, which would make the
/// number an unknown version).
pub fn parse_count(s: &str) -> Result<u64, String> {
    const RANGE: &str = "a count is from 0 to 2^64-1 (18446744073709551615), decimal or 0x hex";
    match s.strip_prefix('-').map(parse_number) {
        Some(Ok(_)) => Err(format!("{RANGE}, without a sign")),
        _ => parse_number(s).map_err(|e| format!("{e}; {RANGE}")),
    }
}

/// `--clock-seq`: 0–16383, decimal or hex.
pub fn parse_clock_seq(s: &str) -> Result<ClockSequence, String> {
    let v = parse_number(s)?;
    u16::try_from(v)
        .ok()
        .and_then(ClockSequence::new)
        .ok_or_else(|| {
            format!(
                "the clock sequence is 14 bits: 0 to {} (0x{:x}); {s} is too large",
                ClockSequence::MAX,
                ClockSequence::MAX
            )
        })
}

/// `--local-id`: a u32, decimal or hex.
pub fn parse_local_id(s: &str) -> Result<u32, String> {
    let v = parse_number(s)?;
    u32::try_from(v).map_err(|_| format!("a local ID is 32 bits: 0 to {}", u32::MAX))
}

/// `--namespace`: `@dns`, `@url`, `@oid`, `@x500` or a UUID.
pub fn parse_namespace(s: &str) -> Result<Uuid, String> {
    if let Some(name) = s.strip_prefix('@') {
        return uuidkit::namespace::by_name(name).ok_or_else(|| {
            format!("unknown namespace name @{name}: expected @dns, @url, @oid or @x500")
        });
    }
    Uuid::parse_str(s)
        .map_err(|e| format!("not a UUID ({e}); a namespace is @dns, @url, @oid, @x500 or a UUID"))
}

/// The value of `--time`: the text as given (for messages) and the instant.
#[derive(Clone, Debug)]
pub struct TimeArg {
    /// The text on the command line.
    pub text: String,
    /// The instant it names.
    pub time: UnixTime,
}

/// `--time`: RFC 3339.
pub fn parse_time(s: &str) -> Result<TimeArg, String> {
    let time = UnixTime::parse_rfc3339(s).map_err(|e| e.to_string())?;
    Ok(TimeArg {
        text: s.to_string(),
        time,
    })
}

/// `--state` and the `state` operand: any non-empty path (an empty one would name the
/// current directory's nothing; `--no-state` is the way to have no state file).
pub fn parse_state_path(s: OsString) -> Result<PathBuf, String> {
    if s.is_empty() {
        return Err(
            "a state file path cannot be empty (gen --no-state keeps the state in memory)"
                .to_string(),
        );
    }
    Ok(PathBuf::from(s))
}

/// The value parser of state file paths: any bytes the system allows, not only UTF-8.
fn state_path_parser() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().try_map(parse_state_path)
}

/// `--daemon`: any non-empty path (an empty one names no socket; leaving the flag out
/// is the way to use none).
pub fn parse_daemon_path(s: OsString) -> Result<PathBuf, String> {
    if s.is_empty() {
        return Err("a daemon socket path cannot be empty".to_string());
    }
    Ok(PathBuf::from(s))
}

/// The value parser of daemon socket paths: any bytes the system allows.
fn daemon_path_parser() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().try_map(parse_daemon_path)
}

/// `--node`: a strategy name or a node value.
pub fn parse_node(s: &str) -> Result<NodeStrategy, String> {
    s.parse::<NodeStrategy>().map_err(|e| e.to_string())
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
full one moves the timestamp one unit on); their node is random and never all zero.";

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

/// `--shards`: 1 to 64.
pub fn parse_shards(s: &str) -> Result<u32, String> {
    match parse_number(s) {
        Ok(n @ 1..=64) => Ok(n as u32),
        Ok(n) => Err(format!("shards are 1 to 64, not {n}")),
        Err(e) => Err(e),
    }
}

/// `--layout`: a layout name.
pub fn parse_layout(s: &str) -> Result<Layout, String> {
    s.parse::<Layout>().map_err(|e| e.to_string())
}

/// The value of `--machine-id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MachineIdArg {
    /// A given number.
    Value(u64),
    /// Derived from a hash of the host.
    Hash,
}

/// `--machine-id`: a number or `hash`.
pub fn parse_machine_id(s: &str) -> Result<MachineIdArg, String> {
    if s == "hash" {
        return Ok(MachineIdArg::Hash);
    }
    parse_number(s)
        .map(MachineIdArg::Value)
        .map_err(|e| format!("{e}; a machine ID is a number (decimal or 0x hex) or 'hash'"))
}

/// `--machine-id-bits`: 1 to 64.
pub fn parse_machine_id_bits(s: &str) -> Result<u32, String> {
    match parse_number(s) {
        Ok(n @ 1..=64) => Ok(n as u32),
        Ok(n) => Err(format!("a machine ID is 1 to 64 bits wide, not {n}")),
        Err(e) => Err(e),
    }
}

/// A number of at most `bits` bits, decimal or hex; the message names the width.
fn parse_bits(s: &str, bits: u32) -> Result<u64, String> {
    let v = parse_number(s)?;
    if v >> bits != 0 {
        return Err(format!(
            "the field is {bits} bits: 0 to {} (0x{:x}); {s} is too large",
            (1u64 << bits) - 1,
            (1u64 << bits) - 1
        ));
    }
    Ok(v)
}

/// `--custom-a`: 48 bits.
pub fn parse_custom_a(s: &str) -> Result<u64, String> {
    parse_bits(s, 48)
}

/// `--custom-b`: 12 bits.
pub fn parse_custom_b(s: &str) -> Result<u64, String> {
    parse_bits(s, 12)
}

/// `--custom-c`: 62 bits.
pub fn parse_custom_c(s: &str) -> Result<u64, String> {
    parse_bits(s, 62)
}

/// The bytes of a name given in hex (a type of its own: clap reads a bare `Vec` as a
/// list of values).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameBytes(pub Vec<u8>);

/// `--name-hex`: bytes in hex, an even number of digits, optional 0x.
pub fn parse_name_hex(s: &str) -> Result<NameBytes, String> {
    let digits = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if let Some(i) = digits.bytes().position(|b| !b.is_ascii_hexdigit()) {
        return Err(format!(
            "expected hex digits; {:?} at digit {} is not one",
            digits[i..].chars().next().unwrap_or('?'),
            i + 1
        ));
    }
    if !digits.len().is_multiple_of(2) {
        return Err(format!(
            "expected two hex digits a byte; {} digits is an odd number",
            digits.len()
        ));
    }
    Ok(NameBytes(
        digits
            .as_bytes()
            .chunks_exact(2)
            .map(|p| {
                // Every byte was checked to be a hex digit above.
                let hex = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
                hex(p[0]) << 4 | hex(p[1])
            })
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_clock_seq("0x33C8").unwrap().get(), 0x33c8);
        assert_eq!(parse_clock_seq("16383").unwrap().get(), 16383);
        assert!(parse_clock_seq("16384").is_err());
        assert!(parse_clock_seq("0x").is_err());
        assert!(parse_clock_seq("+1").is_err());
        assert!(parse_clock_seq("-1").is_err());
        assert!(parse_clock_seq("99999999999999999999999").is_err());
        assert_eq!(parse_count("0x10"), Ok(16));
        assert_eq!(parse_count("18446744073709551615"), Ok(u64::MAX));
        assert!(parse_count("18446744073709551616").is_err());
        assert!(parse_count("-1").unwrap_err().ends_with("without a sign"));
        assert!(parse_count("-0").unwrap_err().ends_with("without a sign"));
        assert!(
            parse_count("--upper")
                .unwrap_err()
                .starts_with("expected a decimal")
        );
        assert_eq!(parse_local_id("0xffffffff").unwrap(), u32::MAX);
        assert!(parse_local_id("4294967296").is_err());
    }

    #[test]
    fn namespaces() {
        assert_eq!(parse_namespace("@dns").unwrap(), uuidkit::namespace::DNS);
        assert_eq!(parse_namespace("@X500").unwrap(), uuidkit::namespace::X500);
        assert_eq!(
            parse_namespace("{6ba7b811-9dad-11d1-80b4-00c04fd430c8}").unwrap(),
            uuidkit::namespace::URL
        );
        assert!(parse_namespace("@foo").is_err());
        assert!(parse_namespace("dns").is_err());
    }
}
