//! Where `inspect`, `check`, `convert` and `format` get their UUIDs: the arguments, or
//! one a line from standard input (`lines`), each an [`Input`] with where it came from
//! for error messages, parsed in the form `--from` names (`parse`).

mod blocks;
mod lines;
mod parse;

#[cfg(test)]
pub(crate) use blocks::{ReadAt, Stdin};
#[cfg(test)]
pub(crate) use lines::for_each_line;
pub use lines::{Item, LineCursor, Need, for_each};
pub use parse::{Described, Input, parse_or_report, set_from};
