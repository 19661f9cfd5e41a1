//! Standard input, output and error, so that no failure to read or write goes unnoticed.
//!
//! Rust's runtime, before `main`, reopens a closed descriptor 0, 1 or 2 on `/dev/null`
//! (so that no file opened later can land there by accident). After that, reading a
//! closed standard input sees an empty input and writing a closed standard output
//! succeeds into nothing: `uuidkit gen v4 >&-` would exit 0 having written nothing, and
//! `uuidkit check <&-` would pass having checked nothing. A constructor that runs before
//! the runtime ([`crate::platform`]) records which of the three descriptors were closed;
//! input and output here then fail with "Bad file descriptor" instead.
//!
//! Standard output and input are used through duplicates of their descriptors, as plain
//! files: every error of `write` and `read` comes back as it is (the standard library's
//! handles treat a closed descriptor as success and add a line buffer of their own).
//! Standard error is buffered: a message costs no system call of its own, so a million
//! invalid lines cost a few hundred writes, not a million or more.

use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::fd::AsFd;
use std::sync::Mutex;

use crate::platform::closed_at_start;

/// The error of using a descriptor that is not open.
fn bad_descriptor() -> io::Error {
    io::Error::from_raw_os_error(libc::EBADF)
}

/// Whether standard output was closed when the process started.
pub fn stdout_closed() -> bool {
    closed_at_start(1)
}

/// Standard input as a file, or why it cannot be read.
pub fn stdin() -> io::Result<File> {
    if closed_at_start(0) {
        return Err(bad_descriptor());
    }
    Ok(File::from(io::stdin().as_fd().try_clone_to_owned()?))
}

/// Standard output: a file whose every error is reported, or the error that every write
/// returns.
#[derive(Debug)]
pub struct Stdout {
    file: Result<File, i32>,
}

impl Stdout {
    /// Standard output as a file; if it was closed (or cannot be duplicated), every
    /// write fails with that error.
    pub fn new() -> Stdout {
        let file = if stdout_closed() {
            Err(libc::EBADF)
        } else {
            io::stdout()
                .as_fd()
                .try_clone_to_owned()
                .map(File::from)
                .map_err(|e| e.raw_os_error().unwrap_or(libc::EBADF))
        };
        Stdout { file }
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Ok(f) => f.write(buf),
            Err(code) => Err(io::Error::from_raw_os_error(*code)),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.file {
            Ok(f) => f.write_all(buf),
            Err(code) => Err(io::Error::from_raw_os_error(*code)),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Size of the buffer in front of standard error.
const STDERR_BUFFER: usize = 64 * 1024;

/// Messages waiting for standard error (created by the first one).
static ERRORS: Mutex<Option<BufWriter<io::Stderr>>> = Mutex::new(None);

/// Appends `uuidkit: MESSAGE` and a line end to the messages for standard error. Write
/// errors are ignored: standard error is where they would be reported.
pub fn report(message: fmt::Arguments<'_>) {
    let mut errors = ERRORS.lock().unwrap_or_else(|e| e.into_inner());
    let w = errors.get_or_insert_with(|| BufWriter::with_capacity(STDERR_BUFFER, io::stderr()));
    let _ = writeln!(w, "uuidkit: {message}");
}

/// Writes out the messages reported so far. Must run before the process exits, and
/// before anything else writes to standard error.
pub fn flush_errors() {
    let mut errors = ERRORS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(w) = errors.as_mut() {
        let _ = w.flush();
    }
}
