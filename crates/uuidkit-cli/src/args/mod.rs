//! The command line: the clap definitions and help text of `uuidkit` and its commands
//! (here the whole command line, `gen_args` gen's flags, `commands` the other
//! commands'), and in `values` the flags' value types and the parsers that turn a
//! flag's text into a library value (so that clap reports a bad value as a usage error
//! naming the flag, and exits with status 2). The rest of the command takes every name
//! from here, not from the files within.

mod commands;
mod gen_args;
mod gen_flags;
mod values;

use clap::{Parser, Subcommand};

pub use commands::{
    CheckArgs, CollisionsArgs, CompletionsArgs, ConvertArgs, ConvertTarget, DaemonAction,
    DaemonArgs, FormatArgs, InspectArgs, ManArgs, StateAction, StateArgs,
};
pub use gen_args::{GenArgs, GenVersion};
pub use gen_flags::{GEN_FLAGS, GenFlag, V8Kind};
pub use values::{DomainArg, MachineIdArg, MethodArg, TimeArg};

use commands::{
    CHECK_LONG_ABOUT, COLLISIONS_LONG_ABOUT, COMPLETIONS_LONG_ABOUT, CONVERT_LONG_ABOUT,
    DAEMON_AFTER_LONG_HELP, DAEMON_LONG_ABOUT, FORMAT_LONG_ABOUT, INSPECT_LONG_ABOUT,
    MAN_LONG_ABOUT, STATE_AFTER_LONG_HELP, STATE_LONG_ABOUT,
};
use gen_args::GEN_LONG_ABOUT;

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
  0  success; also when gen warned about its state file (it goes on without it), and
     when the reader of standard output closed its pipe early (| head -1): the
     command then stops quietly
  1  an input was not a valid UUID (or could not be converted), generation failed,
     the state file is in a newer format than this uuidkit reads (gen and state
     leave it untouched), state check found the state file missing, unreadable or
     damaged, the uuidkitd that gen or daemon status was given could not be
     reached, or standard input or output failed (closed, full, unreadable)
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
        after_long_help = gen_flags::after_long_help(),
        mut_args = gen_flags::annotate
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_is_consistent() {
        Cli::command().debug_assert();
    }
}
