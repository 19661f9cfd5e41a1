//! The crate's errors for text it is given: [`ParseError`], for a text that is not a UUID,
//! a compact encoding of one or a node ID, and [`UnknownName`], for a name that is not
//! one of a fixed list (an encoding, a layout, …).
//!
//! Both are plain values: a `ParseError` of UUID text holds no heap memory, so the
//! benchmarked text parsers (and the `const` one behind [`uuid!`](crate::uuid!)) pay
//! nothing for it until the message is written. What the messages say is built apart, in
//! `messages`, from the few facts the parsers record.

mod messages;
mod parse;
mod unknown;

pub use parse::{Expected, InputKind, ParseError};
pub(crate) use parse::{NodeForm, RangeRule, Subject};
pub use unknown::UnknownName;
