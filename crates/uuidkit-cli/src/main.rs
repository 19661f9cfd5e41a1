//! `uuidkit`: generate, inspect, check and convert UUIDs (RFC 9562).
//!
//! Exit status: 0 success, 1 invalid input (or a generation failure), 2 usage error.

mod args;
mod check;
mod convert;
mod generate;
mod input;
mod inspect;

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use args::{Cli, Command};

/// Size of the one buffer between the commands and standard output.
const STDOUT_BUFFER: usize = 64 * 1024;

/// Why a command stopped early.
#[derive(Debug)]
pub enum Failure {
    /// A usage error, formatted by clap; exits 2.
    Usage(Box<clap::Error>),
    /// A failure to report as `uuidkit: MESSAGE`; exits 1.
    Message(String),
    /// Writing standard output failed (reading standard input is a `Message`).
    Io(io::Error),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        Failure::Io(e)
    }
}

/// How a command that ran to its end went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Every input was fine.
    Ok,
    /// At least one input was invalid and has been reported on standard error; exits 1.
    Invalid,
}

impl Status {
    /// `self`, or `Invalid` when `ok` is false.
    pub fn and(self, ok: bool) -> Status {
        if ok { self } else { Status::Invalid }
    }
}

/// A usage error for the subcommand `name`, formatted as clap formats its own (with the
/// subcommand's usage line), so that it exits 2.
pub fn usage_error(
    name: &str,
    kind: clap::error::ErrorKind,
    message: impl std::fmt::Display,
) -> Failure {
    let mut cmd = Cli::command();
    cmd.build();
    let err = match cmd.find_subcommand_mut(name) {
        Some(sub) => sub.error(kind, message),
        None => cmd.error(kind, message),
    };
    Failure::Usage(Box::new(err))
}

/// Writes `uuidkit: MESSAGE` to standard error. A closed standard error is ignored: there
/// is nowhere left to report to.
pub fn report(message: std::fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "uuidkit: {message}");
}

fn run(cli: Cli, out: &mut impl Write) -> Result<Status, Failure> {
    match cli.command {
        Command::Gen(a) => generate::run(&a, out),
        Command::Inspect(a) => inspect::run(&a, out),
        Command::Check(a) => check::run(&a),
        Command::Convert(a) => convert::run(&a, out),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(STDOUT_BUFFER, stdout.lock());
    let result = run(cli, &mut out).and_then(|status| {
        out.flush()?;
        Ok(status)
    });
    match result {
        Ok(Status::Ok) => ExitCode::SUCCESS,
        Ok(Status::Invalid) => ExitCode::from(1),
        Err(Failure::Usage(e)) => {
            // Whatever was generated before the error is still written.
            let _ = out.flush();
            e.exit()
        }
        Err(Failure::Message(m)) => {
            let _ = out.flush();
            report(format_args!("{m}"));
            ExitCode::from(1)
        }
        // The reader went away (`uuidkit gen v4 -n 1000000 | head -1`): nothing is wrong.
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
            // Drop the unwritten rest quietly: BufWriter's drop would try to flush again.
            let (_, _) = out.into_parts();
            ExitCode::SUCCESS
        }
        Err(Failure::Io(e)) => {
            let _ = out.into_parts();
            report(format_args!("writing standard output: {e}"));
            ExitCode::from(1)
        }
    }
}
