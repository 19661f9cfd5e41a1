//! How a command ends: a [`Failure`] that stopped it early, or the [`Status`] of a run
//! to its end. In a module of its own so that every command and `main.rs`, which turns
//! them into exit statuses, import them from below instead of the commands importing
//! from the `main.rs` that dispatches to them.

use std::io;

use clap::CommandFactory;

use crate::args::Cli;

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

/// A usage error of `gen` (see [`usage_error`]).
pub fn gen_usage(kind: clap::error::ErrorKind, message: impl std::fmt::Display) -> Failure {
    usage_error("gen", kind, message)
}
