//! Node IDs: the 48-bit `node` field of v1, v2 and v6 (RFC 9562 §5.1, §6.10).

use core::fmt;
use core::str::FromStr;

/// A 48-bit node ID, most significant octet first.
///
/// The least significant bit of the first octet is the IEEE 802 multicast bit: RFC 9562
/// §6.10 sets it in random node IDs so they can never equal a real network card's
/// address.
///
/// ```
/// use uuidkit::NodeId;
/// let n: NodeId = "9F:6B:DE:CE:D8:46".parse()?;
/// assert!(n.is_multicast());
/// assert_eq!(n.to_string(), "9f6bdeced846");
/// assert_eq!(n.as_u64(), 0x9F6BDECED846);
/// # Ok::<(), uuidkit::node::NodeParseError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct NodeId([u8; 6]);

impl NodeId {
    /// From six octets.
    pub const fn from_bytes(b: [u8; 6]) -> NodeId {
        NodeId(b)
    }

    /// The six octets.
    pub const fn as_bytes(&self) -> &[u8; 6] {
        &self.0
    }

    /// From the low 48 bits of a number; `None` if any higher bit is set.
    ///
    /// ```
    /// assert!(uuidkit::NodeId::from_u64(1 << 48).is_none());
    /// ```
    pub const fn from_u64(v: u64) -> Option<NodeId> {
        if v >> 48 != 0 {
            return None;
        }
        Some(NodeId::from_u64_masked(v))
    }

    pub(crate) const fn from_u64_masked(v: u64) -> NodeId {
        let b = v.to_be_bytes();
        NodeId([b[2], b[3], b[4], b[5], b[6], b[7]])
    }

    /// The node ID as a 48-bit number.
    pub const fn as_u64(&self) -> u64 {
        let b = self.0;
        u64::from_be_bytes([0, 0, b[0], b[1], b[2], b[3], b[4], b[5]])
    }

    /// True when the multicast bit (least significant bit of the first octet) is set.
    pub const fn is_multicast(&self) -> bool {
        self.0[0] & 1 == 1
    }

    /// The same ID with the multicast bit set, as §6.10 asks of random node IDs.
    ///
    /// ```
    /// assert!(uuidkit::NodeId::from_bytes([0; 6]).with_multicast().is_multicast());
    /// ```
    pub const fn with_multicast(self) -> NodeId {
        let mut b = self.0;
        b[0] |= 1;
        NodeId(b)
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NodeId({self})")
    }
}

/// A node ID text that is not 12 hex digits (optionally `0x`-prefixed, or with `:` or `-`
/// between every octet) nor a decimal number below 2^48.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeParseError {
    input: String,
    index: usize,
    expected: &'static str,
}

impl NodeParseError {
    /// Byte index of the first offending byte.
    pub fn index(&self) -> usize {
        self.index
    }
}

impl fmt::Display for NodeParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid node ID {:?}: at byte {}, expected {} (a node ID is 12 hex digits, \
             optionally 0x-prefixed or with ':' or '-' between octets, or a decimal number below 2^48)",
            self.input, self.index, self.expected
        )
    }
}

impl std::error::Error for NodeParseError {}

impl FromStr for NodeId {
    type Err = NodeParseError;

    /// Accepts `9f6bdeced846`, `0x9F6BDECED846`, `9f:6b:de:ce:d8:46`, `9f-6b-de-ce-d8-46`
    /// or a decimal number such as `175285648414790`. Twelve digits that are all decimal
    /// are read as hex, the form users copy from `ip link`.
    fn from_str(s: &str) -> Result<NodeId, NodeParseError> {
        let bytes = s.as_bytes();
        let fail = |index: usize, expected: &'static str| NodeParseError {
            input: s.to_string(),
            index,
            expected,
        };
        let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u64);
        if bytes.len() == 17 && (bytes[2] == b':' || bytes[2] == b'-') {
            let sep = bytes[2];
            let mut v = 0u64;
            for (i, &c) in bytes.iter().enumerate() {
                if i % 3 == 2 {
                    if c != sep {
                        return Err(fail(i, "the same separator between every octet"));
                    }
                } else {
                    v = v << 4 | hex(c).ok_or_else(|| fail(i, "a hex digit"))?;
                }
            }
            return Ok(NodeId::from_u64_masked(v));
        }
        let (start, is_hex) = if bytes.len() > 2 && (s.starts_with("0x") || s.starts_with("0X")) {
            (2, true)
        } else {
            (0, bytes.len() == 12)
        };
        if is_hex {
            if bytes.len() - start != 12 {
                let at = if bytes.len() - start > 12 {
                    start + 12
                } else {
                    bytes.len()
                };
                return Err(fail(at, "exactly 12 hex digits"));
            }
            let mut v = 0u64;
            for (i, &c) in bytes.iter().enumerate().skip(start) {
                v = v << 4 | hex(c).ok_or_else(|| fail(i, "a hex digit"))?;
            }
            return Ok(NodeId::from_u64_masked(v));
        }
        if bytes.is_empty() {
            return Err(fail(0, "a node ID"));
        }
        let mut v = 0u64;
        for (i, &c) in bytes.iter().enumerate() {
            let d = match c {
                b'0'..=b'9' => (c - b'0') as u64,
                _ => return Err(fail(i, "a decimal digit")),
            };
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add(d))
                .filter(|v| v >> 48 == 0)
                .ok_or_else(|| fail(i, "a number below 2^48"))?;
        }
        Ok(NodeId::from_u64_masked(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_written_form() {
        let want = NodeId::from_u64(0x9f6bdeced846).unwrap();
        for s in [
            "9f6bdeced846",
            "9F6BDECED846",
            "0x9f6bdeced846",
            "0X9F6BDECED846",
            "9f:6b:de:ce:d8:46",
            "9F-6B-DE-CE-D8-46",
            "175285648414790",
        ] {
            assert_eq!(s.parse::<NodeId>(), Ok(want), "{s}");
        }
        assert_eq!(
            "000000000001".parse::<NodeId>().unwrap().as_u64(),
            1,
            "12 digits are hex"
        );
        assert_eq!("1".parse::<NodeId>().unwrap().as_u64(), 1);
    }

    #[test]
    fn rejects_malformed_with_position() {
        for (s, at) in [
            ("", 0),
            ("9f6bdeced84", 1),
            ("0x9f6bdeced84", 13),
            ("0x9f6bdeced8466", 14),
            ("9f:6b:de:ce:d8-46", 14),
            ("9f:6b:de:ce:d8:4g", 16),
            ("9f6bdeced84g", 11),
            ("281474976710656", 14),
            ("-1", 0),
        ] {
            let e = s.parse::<NodeId>().expect_err(s);
            assert_eq!(e.index(), at, "{s}: {e}");
        }
    }
}

/// How a v1 or v6 generator chooses its node ID (RFC 9562 §6.10; uuid-creator's
/// strategies). Chosen in the API, by the `UUIDKIT_NODE` environment variable
/// ([`NodeStrategy::from_env`]) or by the command's `--node` flag, with the same words.
///
/// | word | meaning |
/// |---|---|
/// | `static` (default) | a random 47-bit number with the multicast bit set, chosen once per generator (and again in a child after `fork`) |
/// | `random` | a new random node ID, multicast bit set, for every UUID |
/// | `mac` | the MAC address of a physical, up, non-loopback interface; without one, `static` and a [warning](crate::generator::gregorian::GregorianGenerator::node_warning) |
/// | `hash` | SHA-256 over the host name, the MAC addresses and the IP addresses, first 6 bytes, multicast bit set: stable on one host |
/// | a value | that node ID: 12 hex digits, `0x`-prefixed or with `:`/`-` separators, or a decimal number |
///
/// ```
/// use uuidkit::node::NodeStrategy;
/// assert_eq!("mac".parse::<NodeStrategy>()?, NodeStrategy::Mac);
/// assert!(matches!("0x0123456789ab".parse::<NodeStrategy>()?, NodeStrategy::Fixed(_)));
/// assert!("0x0123".parse::<NodeStrategy>().is_err());
/// # Ok::<(), uuidkit::node::NodeParseError>(())
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
    type Err = NodeParseError;
    fn from_str(s: &str) -> Result<NodeStrategy, NodeParseError> {
        Ok(match s {
            "static" => NodeStrategy::Static,
            "random" => NodeStrategy::Random,
            "mac" => NodeStrategy::Mac,
            "hash" => NodeStrategy::Hash,
            _ => NodeStrategy::Fixed(s.parse().map_err(|mut e: NodeParseError| {
                e.expected = match e.expected {
                    "a decimal digit" if e.index == 0 => "static, random, mac, hash or a node ID",
                    other => other,
                };
                e
            })?),
        })
    }
}

impl NodeStrategy {
    /// The name of the environment variable [`from_env`](Self::from_env) reads.
    pub const ENV: &'static str = "UUIDKIT_NODE";

    /// The strategy `UUIDKIT_NODE` names, `Ok(None)` when it is unset or empty, an error
    /// naming the variable when it is malformed.
    ///
    /// ```
    /// // Unset in doc tests.
    /// assert_eq!(uuidkit::node::NodeStrategy::from_env()?, None);
    /// # Ok::<(), uuidkit::node::NodeParseError>(())
    /// ```
    pub fn from_env() -> Result<Option<NodeStrategy>, NodeParseError> {
        match std::env::var(Self::ENV) {
            Ok(v) if !v.is_empty() => v.parse().map(Some).map_err(|mut e: NodeParseError| {
                e.input = format!("{}={}", Self::ENV, e.input);
                e.index += Self::ENV.len() + 1;
                e
            }),
            _ => Ok(None),
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
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(crate::host::hostname().as_bytes());
    for i in crate::host::interfaces() {
        h.update(i.mac);
    }
    for a in crate::host::ip_addresses() {
        h.update(a.to_string().as_bytes());
    }
    let d = h.finalize();
    NodeId::from_bytes([d[0], d[1], d[2], d[3], d[4], d[5]]).with_multicast()
}
