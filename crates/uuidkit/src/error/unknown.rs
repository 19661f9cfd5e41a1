//! [`UnknownName`]: a name that is not one of a fixed list.

use alloc::string::String;
use core::fmt;

/// A name that is not one of those a parser knows: an [`Encoding`](crate::encoding::Encoding)
/// or a [`Layout`](crate::layout::Layout) by a name that has none. It keeps what was being
/// named, the name given and every name known, and says all three.
///
/// ```
/// use uuidkit::{encoding::Encoding, UnknownName};
/// let err: UnknownName = "base36".parse::<Encoding>().unwrap_err();
/// assert_eq!((err.what(), err.name()), ("encoding", "base36"));
/// assert_eq!(err.known(), ["base32", "base58", "base62", "base64url"]);
/// assert_eq!(err.to_string(),
///     "unknown encoding \"base36\": expected one of base32, base58, base62, base64url");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UnknownName {
    what: &'static str,
    name: String,
    known: &'static [&'static str],
}

impl UnknownName {
    /// `name`, given for a `what` (`"encoding"`, `"layout"`, …), is none of `known`.
    pub(crate) fn new(what: &'static str, name: &str, known: &'static [&'static str]) -> Self {
        UnknownName {
            what,
            name: name.into(),
            known,
        }
    }

    /// What the name was to name: `"encoding"`, `"layout"`, ….
    ///
    /// ```
    /// let err = "b3".parse::<uuidkit::layout::Layout>().unwrap_err();
    /// assert_eq!(err.what(), "layout");
    /// ```
    pub fn what(&self) -> &'static str {
        self.what
    }

    /// The name given.
    ///
    /// ```
    /// let err = "b3".parse::<uuidkit::layout::Layout>().unwrap_err();
    /// assert_eq!(err.name(), "b3");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every name known, in the order the type lists its values.
    ///
    /// ```
    /// let err = "b3".parse::<uuidkit::layout::Layout>().unwrap_err();
    /// assert_eq!(err.known()[..2], ["b1", "b2"]);
    /// ```
    pub fn known(&self) -> &'static [&'static str] {
        self.known
    }
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} {:?}: expected one of ", self.what, self.name)?;
        for (i, name) in self.known.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

impl core::error::Error for UnknownName {}
