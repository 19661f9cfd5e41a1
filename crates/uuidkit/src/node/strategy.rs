//! How a generator chooses its node ID ([`NodeStrategy`], `UUIDKIT_NODE`) and the
//! node IDs it makes (random, host hash): `std` only.

use core::fmt;
use core::str::FromStr;
use std::ffi::{OsStr, OsString};

use super::id::NodeId;
use crate::error::{Expected, NodeForm, ParseError};

/// How a v1 or v6 generator chooses its node ID (RFC 9562 §6.10; uuid-creator's
/// strategies). Chosen in the API, by the `UUIDKIT_NODE` environment variable
/// ([`NodeStrategy::from_env`]) or by the command's `--node` flag, with the same words.
///
/// | word | meaning |
/// |---|---|
/// | `static` (default) | a random 47-bit number with the multicast bit set, chosen once per generator (and again in a child after `fork`); a generator with a state file or the service takes the host's `hash` node instead, so that the processes sharing it share one node and clock sequence |
/// | `random` | a new random node ID, multicast bit set, for every UUID |
/// | `mac` | the MAC address of a physical, up, non-loopback interface; without one, `static` and a [warning](crate::generator::gregorian::GregorianGenerator::node_warning) |
/// | `hash` | SHA-256 over the host name, the MAC addresses and the IP addresses, first 6 bytes, multicast bit set: stable on one host |
/// | a value | that node ID, in hex: 12 hex digits, `0x` and 1 to 12 hex digits, or six 2-digit octets separated by `:` or `-` ([`NodeId::from_str`]) |
///
/// The words are lowercase. A value is always hex, whatever its length: `123456789012`
/// is the node ID `0x123456789012`, and a decimal number is an error.
///
/// ```
/// use uuidkit::{node::NodeStrategy, NodeId};
/// assert_eq!("mac".parse::<NodeStrategy>()?, NodeStrategy::Mac);
/// assert_eq!(
///     "0x0123".parse::<NodeStrategy>()?,
///     NodeStrategy::Fixed(NodeId::from_u64(0x0123).unwrap())
/// );
/// let err = "bogus".parse::<NodeStrategy>().unwrap_err();
/// assert!(err.to_string().starts_with(
///     "invalid node ID \"bogus\": at byte 0, expected static, random, mac, hash or a node ID"
/// ));
/// # Ok::<(), uuidkit::ParseError>(())
/// ```
#[derive(Clone, Default)]
pub enum NodeStrategy {
    /// Random, once per generator.
    #[default]
    Static,
    /// Random, for every UUID.
    Random,
    /// The host's MAC address.
    Mac,
    /// A hash of host name, MAC and IP addresses.
    Hash,
    /// A given node ID.
    Fixed(NodeId),
    /// A user-supplied function, called for every UUID.
    Function(std::sync::Arc<dyn Fn() -> NodeId + Send + Sync>),
}

impl PartialEq for NodeStrategy {
    fn eq(&self, other: &NodeStrategy) -> bool {
        use NodeStrategy::*;
        match (self, other) {
            (Static, Static) | (Random, Random) | (Mac, Mac) | (Hash, Hash) => true,
            (Fixed(a), Fixed(b)) => a == b,
            (Function(a), Function(b)) => std::sync::Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl fmt::Debug for NodeStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeStrategy::Static => f.write_str("Static"),
            NodeStrategy::Random => f.write_str("Random"),
            NodeStrategy::Mac => f.write_str("Mac"),
            NodeStrategy::Hash => f.write_str("Hash"),
            NodeStrategy::Fixed(n) => write!(f, "Fixed({n})"),
            NodeStrategy::Function(_) => f.write_str("Function(..)"),
        }
    }
}

impl FromStr for NodeStrategy {
    type Err = ParseError;

    /// A word of the table above, or a node ID ([`NodeId::from_str`]). A text that
    /// starts like no node ID (empty, or not with a hex digit) or is a word that cannot
    /// be one (letters only, one of them beyond `f`) is reported at byte 0 as expecting
    /// a word or a node ID; anything else gets the node ID parser's error.
    ///
    /// ```
    /// use uuidkit::{node::NodeStrategy, Expected};
    /// assert_eq!("hash".parse::<NodeStrategy>()?, NodeStrategy::Hash);
    /// let err = "MAC".parse::<NodeStrategy>().unwrap_err();
    /// assert_eq!((err.index(), err.expected()), (0, Expected::StrategyOrNode));
    /// let err = "0x".parse::<NodeStrategy>().unwrap_err();
    /// assert_eq!((err.index(), err.expected()), (2, Expected::HexDigitAfter0x));
    /// # Ok::<(), uuidkit::ParseError>(())
    /// ```
    fn from_str(s: &str) -> Result<NodeStrategy, ParseError> {
        Ok(match s {
            "static" => NodeStrategy::Static,
            "random" => NodeStrategy::Random,
            "mac" => NodeStrategy::Mac,
            "hash" => NodeStrategy::Hash,
            _ => NodeStrategy::Fixed(s.parse().map_err(|e: ParseError| {
                let b = s.as_bytes();
                let word = b.first().is_none_or(|c| !c.is_ascii_hexdigit())
                    || (b.iter().all(u8::is_ascii_alphabetic)
                        && b.iter().any(|c| !c.is_ascii_hexdigit()));
                if word {
                    ParseError::node(s, 0, Expected::StrategyOrNode, NodeForm::Word)
                } else {
                    e
                }
            })?),
        })
    }
}

impl NodeStrategy {
    /// The name of the environment variable [`from_env`](Self::from_env) reads.
    ///
    /// ```
    /// assert_eq!(uuidkit::node::NodeStrategy::ENV, "UUIDKIT_NODE");
    /// ```
    pub const ENV: &'static str = "UUIDKIT_NODE";

    /// The strategy `UUIDKIT_NODE` names ([`from_env_value`](Self::from_env_value) of its
    /// value): `Ok(None)` when it is unset or empty, an error naming the variable when it
    /// is malformed or not UTF-8.
    ///
    /// ```
    /// use uuidkit::node::NodeStrategy;
    /// match NodeStrategy::from_env() {
    ///     Ok(strategy) => println!("{strategy:?}"),
    ///     Err(e) => assert_eq!(e.variable(), NodeStrategy::ENV),
    /// }
    /// ```
    ///
    /// # Errors
    ///
    /// A [`NodeEnvError`] naming the variable when its value is not UTF-8 or not a
    /// strategy.
    pub fn from_env() -> Result<Option<NodeStrategy>, NodeEnvError> {
        match std::env::var_os(Self::ENV) {
            Some(v) => Self::from_env_value(&v),
            None => Ok(None),
        }
    }

    /// The strategy a value of `UUIDKIT_NODE` names: `Ok(None)` when it is empty (as if
    /// unset), an error naming the variable when it is not UTF-8 or not a strategy. The
    /// error's byte index counts within the value.
    ///
    /// ```
    /// use std::ffi::OsStr;
    /// use uuidkit::node::NodeStrategy;
    /// assert_eq!(NodeStrategy::from_env_value(OsStr::new("random"))?, Some(NodeStrategy::Random));
    /// assert_eq!(NodeStrategy::from_env_value(OsStr::new(""))?, None);
    /// let err = NodeStrategy::from_env_value(OsStr::new("bogus")).unwrap_err();
    /// assert_eq!((err.variable(), err.index()), ("UUIDKIT_NODE", 0));
    /// assert!(err.to_string().starts_with(
    ///     "invalid UUIDKIT_NODE value \"bogus\": at byte 0, expected static, random, mac, \
    ///      hash or a node ID"
    /// ));
    /// # Ok::<(), uuidkit::node::NodeEnvError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`NodeEnvError`] naming [`ENV`](Self::ENV) when `value` is not UTF-8 or not a
    /// strategy (its [`parse_error`](NodeEnvError::parse_error) says why).
    pub fn from_env_value(value: &OsStr) -> Result<Option<NodeStrategy>, NodeEnvError> {
        if value.is_empty() {
            return Ok(None);
        }
        let fail = |cause| NodeEnvError {
            variable: Self::ENV,
            value: value.to_os_string(),
            cause,
        };
        // The OS's bytes (Unix) or their WTF-8 encoding (Windows); either is UTF-8
        // exactly when the value is Unicode.
        match core::str::from_utf8(value.as_encoded_bytes()) {
            Err(e) => Err(fail(EnvCause::NotUtf8(e.valid_up_to()))),
            Ok(s) => s.parse().map(Some).map_err(|e| fail(EnvCause::Invalid(e))),
        }
    }

    /// The node ID for a generator starting now, and a warning when the strategy could
    /// not be followed (`mac` on a host without a usable interface).
    ///
    /// ```
    /// use uuidkit::{node::NodeStrategy, random::Csprng};
    /// let (node, warning) = NodeStrategy::Static.resolve(&mut Csprng);
    /// assert!(node.is_multicast() && warning.is_none());
    /// ```
    pub fn resolve(&self, rng: &mut impl rand_core::RngCore) -> (NodeId, Option<String>) {
        match self {
            NodeStrategy::Static | NodeStrategy::Random => (random_node(rng), None),
            NodeStrategy::Mac => match crate::host::primary_mac() {
                Some(mac) => (NodeId::from_bytes(mac), None),
                None => (
                    random_node(rng),
                    Some(
                        "no up, non-loopback network interface with a MAC address was found; \
                         using a random node ID (strategy 'static') instead"
                            .to_string(),
                    ),
                ),
            },
            NodeStrategy::Hash => (host_hash_node(), None),
            NodeStrategy::Fixed(n) => (*n, None),
            NodeStrategy::Function(f) => (f(), None),
        }
    }
}

/// A malformed node-strategy environment variable (`UUIDKIT_NODE`): the variable's name
/// and its value, kept apart, and why the value is not a strategy.
///
/// ```
/// use std::ffi::OsStr;
/// use uuidkit::node::NodeStrategy;
/// let err = NodeStrategy::from_env_value(OsStr::new("mac:1")).unwrap_err();
/// assert_eq!(err.variable(), "UUIDKIT_NODE");
/// assert_eq!(err.value(), OsStr::new("mac:1"));
/// assert_eq!(err.index(), 0);
/// assert!(err.parse_error().is_some());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeEnvError {
    variable: &'static str,
    value: OsString,
    cause: EnvCause,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum EnvCause {
    /// Not UTF-8 from this byte index on.
    NotUtf8(usize),
    Invalid(ParseError),
}

impl NodeEnvError {
    /// The variable's name.
    ///
    /// ```
    /// # use uuidkit::node::NodeStrategy;
    /// let err = NodeStrategy::from_env_value("x".as_ref()).unwrap_err();
    /// assert_eq!(err.variable(), NodeStrategy::ENV);
    /// ```
    pub fn variable(&self) -> &'static str {
        self.variable
    }

    /// The variable's whole value.
    ///
    /// ```
    /// # use uuidkit::node::NodeStrategy;
    /// let err = NodeStrategy::from_env_value("x".as_ref()).unwrap_err();
    /// assert_eq!(err.value(), "x");
    /// ```
    pub fn value(&self) -> &OsStr {
        &self.value
    }

    /// Byte index, within the value, of the first offending byte (the value's length if
    /// it ended early).
    ///
    /// ```
    /// # use uuidkit::node::NodeStrategy;
    /// let err = NodeStrategy::from_env_value("0x12g".as_ref()).unwrap_err();
    /// assert_eq!(err.index(), 4);
    /// ```
    pub fn index(&self) -> usize {
        match &self.cause {
            EnvCause::NotUtf8(i) => *i,
            EnvCause::Invalid(e) => e.index(),
        }
    }

    /// Why the value is not a strategy, or `None` when it is not UTF-8.
    ///
    /// ```
    /// # use uuidkit::{node::NodeStrategy, Expected};
    /// let err = NodeStrategy::from_env_value("0x".as_ref()).unwrap_err();
    /// assert_eq!(err.parse_error().unwrap().expected(), Expected::HexDigitAfter0x);
    /// ```
    pub fn parse_error(&self) -> Option<&ParseError> {
        match &self.cause {
            EnvCause::NotUtf8(_) => None,
            EnvCause::Invalid(e) => Some(e),
        }
    }
}

impl fmt::Display for NodeEnvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `OsStr`'s Debug quotes the value like a `str`'s and writes bytes that are not
        // UTF-8 as \xNN escapes.
        write!(f, "invalid {} value {:?}: ", self.variable, self.value)?;
        match &self.cause {
            EnvCause::Invalid(e) => e.fmt_detail(f),
            EnvCause::NotUtf8(i) => {
                write!(f, "at byte {i}, expected UTF-8 text")?;
                if let Some(b) = self.value.as_encoded_bytes().get(*i) {
                    write!(f, ", found the byte 0x{b:02x}")?;
                }
                f.write_str(
                    " (the value is static, random, mac, hash or a node ID such as \
                     9f6bdeced846, 0x9f6bdeced846 or 9f:6b:de:ce:d8:46)",
                )
            }
        }
    }
}

impl core::error::Error for NodeEnvError {}

/// A random node ID with the multicast bit set (RFC 9562 §6.10): 47 random bits.
///
/// ```
/// assert!(uuidkit::node::random_node(&mut uuidkit::random::Csprng).is_multicast());
/// ```
pub fn random_node(rng: &mut impl rand_core::RngCore) -> NodeId {
    NodeId::from_u64_masked(rng.next_u64()).with_multicast()
}

/// SHA-256 over the host name, the MAC addresses and the IP addresses of this host, first
/// 6 bytes, multicast bit set: the same on every call on one host (while its addresses
/// stay), different across hosts.
///
/// ```
/// assert_eq!(uuidkit::node::host_hash_node(), uuidkit::node::host_hash_node());
/// ```
pub fn host_hash_node() -> NodeId {
    let d = host_digest(b"");
    NodeId::from_bytes([d[0], d[1], d[2], d[3], d[4], d[5]]).with_multicast()
}

/// SHA-256 over `label`, then this host's name, MAC addresses and IP addresses: what the
/// `hash` node (no label) and a hashed machine ID (a label of its own, so that it is not
/// the node's first bits) are taken from.
pub(crate) fn host_digest(label: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(label);
    h.update(crate::host::hostname().as_bytes());
    for i in crate::host::interfaces() {
        h.update(i.mac);
    }
    for a in crate::host::ip_addresses() {
        h.update(a.to_string().as_bytes());
    }
    h.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_strategy_words_and_values() {
        use NodeStrategy::*;
        for (s, want) in [
            ("static", Static),
            ("random", Random),
            ("mac", Mac),
            ("hash", Hash),
            (
                "123456789012",
                Fixed(NodeId::from_u64(0x1234_5678_9012).unwrap()),
            ),
            ("0xa", Fixed(NodeId::from_u64(10).unwrap())),
        ] {
            assert_eq!(s.parse::<NodeStrategy>(), Ok(want), "{s}");
        }
        // Words that are not strategies are reported at byte 0, as words.
        for s in [
            "", "bogus", "MAC", "Static", "static ", " mac", "-1", "zz", "macs",
        ] {
            let e = s.parse::<NodeStrategy>().expect_err(s);
            assert_eq!(
                (e.index(), e.expected()),
                (0, Expected::StrategyOrNode),
                "{s}"
            );
            assert!(
                e.to_string().contains(
                    "expected static, random, mac, hash or a node ID (the words are lowercase"
                ),
                "{e}"
            );
        }
        // Text that starts like a node ID gets the node ID's error.
        for (s, at) in [
            ("0x", 2),
            ("deadbeef", 8),
            ("01:02:03:04:05", 14),
            ("12345", 5),
        ] {
            let e = s.parse::<NodeStrategy>().expect_err(s);
            assert_eq!(e, s.parse::<NodeId>().expect_err(s), "{s}");
            assert_eq!(e.index(), at, "{s}");
        }
    }

    /// The variable is named apart from its value and the index counts within the
    /// value.
    #[test]
    fn node_env_value_names_the_variable_and_indexes_the_value() {
        let e = NodeStrategy::from_env_value(OsStr::new("bogus")).unwrap_err();
        assert_eq!(e.variable(), "UUIDKIT_NODE");
        assert_eq!(e.value(), OsStr::new("bogus"));
        assert_eq!(e.index(), 0);
        let m = e.to_string();
        assert!(
            m.starts_with(
                "invalid UUIDKIT_NODE value \"bogus\": at byte 0, expected static, random, mac, \
                 hash or a node ID"
            ),
            "{m}"
        );
        assert!(!m.contains("UUIDKIT_NODE="), "{m}");
        let e = NodeStrategy::from_env_value(OsStr::new("0x12g")).unwrap_err();
        assert_eq!(e.index(), 4);
        assert_eq!(e.parse_error().map(ParseError::index), Some(4));
        assert_eq!(NodeStrategy::from_env_value(OsStr::new("")), Ok(None));
        assert_eq!(
            NodeStrategy::from_env_value(OsStr::new("9f:6b:de:ce:d8:46")),
            Ok(Some(NodeStrategy::Fixed(
                NodeId::from_u64(0x9f6bdeced846).unwrap()
            )))
        );
    }

    /// A value that is not UTF-8 is an error, not "unset".
    #[cfg(unix)]
    #[test]
    fn node_env_value_not_utf8_is_an_error() {
        use std::os::unix::ffi::OsStrExt;
        for (bytes, at, shown) in [
            (&b"\xff\xfe"[..], 0, r#""\xFF\xFE""#),
            (b"mac\xff", 3, r#""mac\xFF""#),
        ] {
            let e = NodeStrategy::from_env_value(OsStr::from_bytes(bytes)).unwrap_err();
            assert_eq!((e.index(), e.parse_error()), (at, None));
            let m = e.to_string();
            assert!(
                m.starts_with(&format!(
                    "invalid UUIDKIT_NODE value {shown}: at byte {at}, expected UTF-8 text, \
                     found the byte 0x{:02x}",
                    bytes[at]
                )),
                "{m}"
            );
        }
    }
}
