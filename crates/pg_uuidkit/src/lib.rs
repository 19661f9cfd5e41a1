//! # pg_uuidkit
//!
//! uuidkit inside PostgreSQL: every UUID version of RFC 9562 as SQL functions, built
//! with pgrx. This crate is thin: each function converts between PostgreSQL's types and
//! the library's, and turns the library's typed errors into SQL errors. The generators,
//! layouts and text codec are the `uuidkit` library's.
//!
//! - [`generate`]: `uuidkit_v1()` … `uuidkit_v8()`, the name-based versions, v7 at a
//!   given time and v7 range bounds.
//! - [`read`]: version, variant, time, clock sequence and node of a UUID.
//! - [`text`]: v1↔v6 conversion, text forms and strict parsing.
//!
//! ```sql
//! CREATE EXTENSION pg_uuidkit;
//! SELECT uuidkit_v7();                -- 019a…-7…: strictly increasing in this session
//! ```
//!
//! ## Backends and `fork`
//! PostgreSQL forks a backend per connection. Each backend has its own generator state
//! (the library's process-wide generators and the per-method v7 generators here), and the
//! library rekeys its random stream in a child after `fork`, so no two backends share
//! random bits even when the library was loaded into the postmaster before it forked
//! (`shared_preload_libraries`). The tests run that way.

use pgrx::prelude::*;

pub mod generate;
pub mod read;
pub mod text;

#[cfg(any(test, feature = "pg_test"))]
mod sql_tests;

::pgrx::pg_module_magic!(name, version);

/// Runs when a process loads the library: nothing to set up, since every generator is
/// keyed on first use. Under test, the library is preloaded into the postmaster and draws
/// from its random stream here, so that every backend is forked from a process whose
/// stream is already keyed: the tests then check the library's rekeying after `fork`
/// (no duplicates across backends), not only fresh processes.
#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    #[cfg(feature = "pg_test")]
    {
        let _ = uuidkit::v4();
        let _ = uuidkit::v7();
    }
}

/// The library's value of a PostgreSQL `uuid`.
pub(crate) fn from_pg(u: pgrx::Uuid) -> uuidkit::Uuid {
    uuidkit::Uuid::from_bytes(*u.as_bytes())
}

/// A PostgreSQL `uuid` of the library's value.
pub(crate) fn to_pg(u: uuidkit::Uuid) -> pgrx::Uuid {
    pgrx::Uuid::from_bytes(u.into_bytes())
}

/// Raises an SQL `ERROR` with `code`; the transaction aborts, the backend goes on.
pub(crate) fn raise(code: PgSqlErrorCode, message: String) -> ! {
    ereport!(ERROR, code, message);
}

/// The value of `result`, or an SQL `ERROR` with `code` whose message is `context`, a
/// colon and the library's error: every fallible call here reports the same way.
pub(crate) fn or_raise<T, E: std::fmt::Display>(
    result: Result<T, E>,
    code: PgSqlErrorCode,
    context: impl FnOnce() -> String,
) -> T {
    match result {
        Ok(v) => v,
        Err(e) => raise(code, format!("{}: {e}", context())),
    }
}

/// `text` quoted for an error message, cut at 64 characters so that a huge input cannot
/// make a huge message.
pub(crate) fn quoted(text: &str) -> String {
    const MAX: usize = 64;
    match text.char_indices().nth(MAX) {
        None => format!("{text:?}"),
        Some((end, _)) => format!("{:?}… ({} bytes)", &text[..end], text.len()),
    }
}

/// This module is required by `cargo pgrx test` invocations: the settings of the server
/// the tests start.
#[cfg(test)]
pub mod pg_test {
    /// Nothing to do once.
    pub fn setup(_options: Vec<&str>) {}

    /// Preload the extension into the postmaster, so that backends are forked from a
    /// process that has used the library (see `_PG_init`).
    #[must_use]
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec!["shared_preload_libraries = 'pg_uuidkit'"]
    }
}
