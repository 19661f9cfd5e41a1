//! `uuidkit`: generate, inspect, check and convert UUIDs (RFC 9562).
//!
//! Exit status: 0 success (also when gen warned about its state file), 1 invalid input
//! (or a generation failure, a damaged or missing state file for `state check`, or a
//! uuidkitd that cannot be reached), 2 usage error.

// Only `platform` may use `unsafe`, and says why at each use.
#![deny(unsafe_code)]

mod args;
mod check;
mod collisions;
mod convert;
mod daemon;
mod docs;
mod failure;
mod format;
mod generate;
mod input;
mod inspect;
mod platform;
mod state;
mod state_choice;
mod stdio;

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};
use failure::{Failure, Status};
use stdio::report;

/// Size of the one buffer between the commands and standard output.
const STDOUT_BUFFER: usize = 64 * 1024;

fn run(cli: Cli, out: &mut impl Write) -> Result<Status, Failure> {
    match cli.command {
        Command::Gen(mut a) => {
            a.resolve();
            generate::run(&a, out)
        }
        Command::Inspect(a) => {
            input::set_from(a.from.and_then(|f| f.encoding()));
            inspect::run(&a, out)
        }
        Command::Check(a) => {
            input::set_from(a.from.and_then(|f| f.encoding()));
            check::run(&a)
        }
        Command::Convert(a) => {
            input::set_from(a.from.and_then(|f| f.encoding()));
            convert::run(&a, out)
        }
        Command::Format(a) => {
            input::set_from(a.from.and_then(|f| f.encoding()));
            format::run(&a, out)
        }
        Command::State(a) => state::run(&a, out),
        Command::Daemon(a) => daemon::run(&a, out),
        Command::Collisions(a) => collisions::run(&a, out),
        Command::Completions(a) => docs::completions(&a, out),
        Command::Man(a) => docs::man(&a, out),
    }
}

/// The message for a failed write to standard output, or `None` when the reader went
/// away (`uuidkit gen v4 -n 1000000 | head -1`): then nothing is wrong.
fn write_failure(e: &io::Error) -> Option<String> {
    (e.kind() != io::ErrorKind::BrokenPipe).then(|| format!("writing standard output: {e}"))
}

/// Ends on what clap made of the command line instead of a command: the help or the
/// version (on standard output; a failure to write them is an error like any other), or
/// a usage error (on standard error, exit status 2).
fn clap_exit(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if !matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        stdio::flush_errors();
        let _ = e.print();
        return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
    }
    let written = if stdio::stdout_closed() {
        Err(io::Error::from_raw_os_error(libc::EBADF))
    } else {
        e.print().and_then(|()| io::stdout().flush())
    };
    match written.as_ref().map_err(write_failure) {
        Ok(()) | Err(None) => ExitCode::SUCCESS,
        Err(Some(message)) => {
            report(format_args!("{message}"));
            ExitCode::from(1)
        }
    }
}

fn main() -> ExitCode {
    let code = run_main();
    stdio::flush_errors();
    code
}

fn run_main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e),
    };
    let mut out = BufWriter::with_capacity(STDOUT_BUFFER, stdio::Stdout::new());
    let result = run(cli, &mut out).and_then(|status| {
        out.flush()?;
        Ok(status)
    });
    // Whatever was made before a failure is still written; a failure to write it is
    // reported after the failure itself.
    let unwritten = match &result {
        Ok(_) | Err(Failure::Io(_)) => None,
        Err(_) => out.flush().err(),
    };
    // Drop the unwritten rest quietly: BufWriter's drop would try to write it again.
    let _ = out.into_parts();
    let code = match result {
        Ok(Status::Ok) => ExitCode::SUCCESS,
        Ok(Status::Invalid) => ExitCode::from(1),
        Err(Failure::Usage(e)) => clap_exit(&e),
        Err(Failure::Message(m)) => {
            report(format_args!("{m}"));
            ExitCode::from(1)
        }
        Err(Failure::Io(e)) => match write_failure(&e) {
            None => ExitCode::SUCCESS,
            Some(message) => {
                report(format_args!("{message}"));
                ExitCode::from(1)
            }
        },
    };
    // The status is already a failure's (1 or 2).
    if let Some(message) = unwritten.as_ref().and_then(write_failure) {
        report(format_args!("{message}"));
    }
    code
}
