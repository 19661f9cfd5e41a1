//! The node ID value and its parser: no `std` needed.

use core::fmt;
use core::str::FromStr;

use crate::error::NodeForm as Form;
use crate::error::{Expected, ParseError};

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
/// # Ok::<(), uuidkit::ParseError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct NodeId([u8; 6]);

impl NodeId {
    /// From six octets.
    ///
    /// ```
    /// let n = uuidkit::NodeId::from_bytes([0x9f, 0x6b, 0xde, 0xce, 0xd8, 0x46]);
    /// assert_eq!(n.to_string(), "9f6bdeced846");
    /// ```
    pub const fn from_bytes(b: [u8; 6]) -> NodeId {
        NodeId(b)
    }

    /// The six octets.
    ///
    /// ```
    /// let n = uuidkit::NodeId::from_u64(0x0102_0304_0506).unwrap();
    /// assert_eq!(n.as_bytes(), &[1, 2, 3, 4, 5, 6]);
    /// ```
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
    ///
    /// ```
    /// let n = uuidkit::NodeId::from_bytes([0, 0, 0, 0, 1, 0]);
    /// assert_eq!(n.as_u64(), 0x100);
    /// ```
    pub const fn as_u64(&self) -> u64 {
        let b = self.0;
        u64::from_be_bytes([0, 0, b[0], b[1], b[2], b[3], b[4], b[5]])
    }

    /// True when the multicast bit (least significant bit of the first octet) is set.
    ///
    /// ```
    /// assert!(uuidkit::NodeId::from_bytes([0x01, 0, 0, 0, 0, 0]).is_multicast());
    /// assert!(!uuidkit::NodeId::from_bytes([0x02, 0, 0, 0, 0, 0]).is_multicast());
    /// ```
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

/// The value of an ASCII hex digit.
fn hex_value(c: u8) -> Option<u64> {
    (c as char).to_digit(16).map(u64::from)
}

impl FromStr for NodeId {
    type Err = ParseError;

    /// Reads a node ID written in hex, in one of three forms (hex digits in either case):
    ///
    /// | form | example |
    /// |---|---|
    /// | bare: exactly 12 hex digits | `9f6bdeced846`, `000000000001` |
    /// | `0x` or `0X` and 1 to 12 hex digits (a number, as Python's `hex()` writes it) | `0x9F6BDECED846`, `0x1` |
    /// | six octets of 2 hex digits, the same `:` or `-` between them (as `ip link` writes a MAC) | `9f:6b:de:ce:d8:46`, `9F-6B-DE-CE-D8-46` |
    ///
    /// Nothing else: no spaces, no single-digit octets, and no decimal numbers. Digits are
    /// hex digits at every length, so one text always means one number. A node ID is a
    /// MAC address by origin and is written in hex everywhere (`ip link`, `inspect`, this
    /// type's `Display`); were decimal read too, the bare form would make `123456789012`
    /// either a number that changes base with its length or, read as decimal, a trap for
    /// a MAC copied without colons that happens to hold no letter. A number held as an
    /// integer (Python's `uuid1(node=...)` takes one) is passed as `0x` and its hex
    /// digits, which Python's `hex()` writes; a decimal number is refused with its hex
    /// spelling in the message.
    ///
    /// ```
    /// use uuidkit::NodeId;
    /// assert_eq!("123456789012".parse::<NodeId>()?.as_u64(), 0x1234_5678_9012);
    /// assert_eq!("0x1".parse::<NodeId>()?.as_u64(), 1);
    /// let err = "175285648414790".parse::<NodeId>().unwrap_err();
    /// assert!(err.to_string().contains("175285648414790 in hex is 0x9f6bdeced846"));
    /// # Ok::<(), uuidkit::ParseError>(())
    /// ```
    ///
    /// The error's message ends with a hint in terms of the form the text was taken for:
    /// the length the form needs, and, for digits that look like a decimal number, that
    /// number in hex.
    ///
    /// ```
    /// use uuidkit::{Expected, NodeId};
    /// let err = "01:23:45:67:89:a".parse::<NodeId>().unwrap_err();
    /// assert_eq!((err.index(), err.expected(), err.found()), (16, Expected::OctetDigit, None));
    /// assert_eq!(err.to_string(),
    ///     "invalid node ID \"01:23:45:67:89:a\": at byte 16, expected the second hex digit \
    ///      of octet 6 (an octet is 2 hex digits), found the end of the input (with \
    ///      separators, a node ID is six octets of 2 hex digits with the same ':' or '-' \
    ///      between them: 17 bytes; this text is 16)");
    /// ```
    fn from_str(s: &str) -> Result<NodeId, ParseError> {
        let b = s.as_bytes();
        let prefixed = b.len() >= 2 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X');
        let form = if b.is_empty() {
            Form::Empty
        } else if prefixed {
            Form::Prefixed
        } else if b.iter().any(|&c| c == b':' || c == b'-') {
            Form::Separated
        } else {
            Form::Bare
        };
        let fail = |index: usize, expected: Expected| ParseError::node(s, index, expected, form);
        let mut v = 0u64;
        match form {
            Form::Empty | Form::Word => return Err(fail(0, Expected::HexDigit)),
            Form::Prefixed => {
                for (i, &c) in b.iter().enumerate().skip(2) {
                    if i == 2 + 12 {
                        return Err(fail(i, Expected::End));
                    }
                    v = v << 4 | hex_value(c).ok_or_else(|| fail(i, Expected::HexDigitAfter0x))?;
                }
                if b.len() == 2 {
                    return Err(fail(2, Expected::HexDigitAfter0x));
                }
            }
            Form::Separated => {
                let mut sep = None;
                // Position 3k and 3k+1 hold octet k, 3k+2 the separator after it.
                for i in 0..17 {
                    let c = b.get(i).copied();
                    if i % 3 == 2 {
                        match (c, sep) {
                            (Some(c @ (b':' | b'-')), None) => sep = Some(c),
                            (Some(c), Some(s)) if c == s => {}
                            _ => return Err(fail(i, Expected::Separator(sep.map(char::from)))),
                        }
                    } else {
                        let d = c.and_then(hex_value);
                        v = v << 4 | d.ok_or_else(|| fail(i, Expected::OctetDigit))?;
                    }
                }
                if b.len() > 17 {
                    return Err(fail(17, Expected::End));
                }
            }
            Form::Bare => {
                for (i, &c) in b.iter().enumerate() {
                    if i == 12 {
                        return Err(fail(i, Expected::End));
                    }
                    v = v << 4 | hex_value(c).ok_or_else(|| fail(i, Expected::HexDigit))?;
                }
                if b.len() < 12 {
                    return Err(fail(b.len(), Expected::HexDigit));
                }
            }
        }
        // At most 12 hex digits were read: v < 2^48.
        Ok(NodeId::from_u64_masked(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(s: &str) -> u64 {
        s.parse::<NodeId>()
            .unwrap_or_else(|e| panic!("{e}"))
            .as_u64()
    }

    fn error(s: &str) -> ParseError {
        s.parse::<NodeId>().expect_err(s)
    }

    #[test]
    fn node_parses_every_written_form() {
        for s in [
            "9f6bdeced846",
            "9F6BDECED846",
            "0x9f6bdeced846",
            "0X9F6BDECED846",
            "9f:6b:de:ce:d8:46",
            "9F-6B-DE-CE-D8-46",
        ] {
            assert_eq!(node(s), 0x9f6bdeced846, "{s}");
        }
        assert_eq!(node("000000000001"), 1);
        assert_eq!(node("0x1"), 1);
        assert_eq!(node("0x000000000001"), 1);
        assert_eq!(node("0xffffffffffff"), 0xffff_ffff_ffff);
        assert_eq!(node("ff:ff:ff:ff:ff:ff"), 0xffff_ffff_ffff);
    }

    /// A bare digit string is hex at every length, never decimal at some.
    #[test]
    fn node_digits_are_hex_whatever_their_length() {
        assert_eq!(node("123456789012"), 0x1234_5678_9012);
        for s in ["12345678901", "1234567890123", "1", "175285648414790"] {
            let e = error(s);
            let m = e.to_string();
            assert!(m.contains("decimal numbers are not accepted"), "{m}");
            assert!(!m.contains("decimal digit"), "{m}");
        }
        let m = error("175285648414790").to_string();
        assert!(
            m.contains("175285648414790 in hex is 0x9f6bdeced846"),
            "{m}"
        );
        let m = error("281474976710656").to_string();
        assert!(m.contains("281474976710656 is not below 2^48"), "{m}");
        let m = error("99999999999999999999999").to_string();
        assert!(m.contains("is not below 2^48"), "{m}");
        // A short hex text is pointed at the 0x form.
        let m = error("12345678901").to_string();
        assert!(m.contains("at byte 11, expected a hex digit"), "{m}");
        assert!(m.contains("write 0x12345678901"), "{m}");
        assert!(m.contains("12345678901 in hex is 0x2dfdc1c35"), "{m}");
    }

    #[test]
    fn node_rejects_malformed_with_position() {
        use Expected::*;
        for (s, at, expected) in [
            ("", 0, HexDigit),
            ("9f6bdeced84", 11, HexDigit),
            ("9f6bdeced84g", 11, HexDigit),
            ("9f6bdeced8466", 12, End),
            ("0x", 2, HexDigitAfter0x),
            ("0X", 2, HexDigitAfter0x),
            ("0x12g", 4, HexDigitAfter0x),
            ("0x9f6bdeced8466", 14, End),
            ("0x0000000000001", 14, End),
            ("9f:6b:de:ce:d8-46", 14, Separator(Some(':'))),
            ("9f:6b:de:ce:d8:4g", 16, OctetDigit),
            ("01:23:45:67:89:a", 16, OctetDigit),
            ("01:02:03:04:05", 14, Separator(Some(':'))),
            ("01:02:03:04:05:06:", 17, End),
            ("9:6b:de:ce:d8:46", 1, OctetDigit),
            ("9f.6b:de:ce:d8:46", 2, Separator(None)),
            ("-1", 0, OctetDigit),
            ("é:", 0, OctetDigit),
        ] {
            let e = error(s);
            assert_eq!((e.index(), e.expected()), (at, expected), "{s}: {e}");
            assert!(e.index() <= s.len());
            assert_eq!(e.found(), s.as_bytes().get(at).copied(), "{s}");
            assert_eq!(e.kind(), crate::error::InputKind::Node);
        }
    }

    /// The messages point at what the form needs, not at decimal digits.
    #[test]
    fn node_messages_name_the_form() {
        let m = error("01:23:45:67:89:a").to_string();
        assert_eq!(
            m,
            "invalid node ID \"01:23:45:67:89:a\": at byte 16, expected the second hex digit \
             of octet 6 (an octet is 2 hex digits), found the end of the input (with \
             separators, a node ID is six octets of 2 hex digits with the same ':' or '-' \
             between them: 17 bytes; this text is 16)"
        );
        let m = error("01:02:03:04:05").to_string();
        assert!(
            m.contains("at byte 14, expected ':' after octet 5, as after octet 1")
                && m.contains("this text is 14"),
            "{m}"
        );
        let m = error("0x").to_string();
        assert_eq!(
            m,
            "invalid node ID \"0x\": at byte 2, expected a hex digit after 0x, found the end \
             of the input (0x is followed by 1 to 12 hex digits)"
        );
        let m = error("9f6bdeced84 ").to_string();
        assert!(m.contains("found a space"), "{m}");
        for s in [
            "01:23:45:67:89:a",
            "01:02:03:04:05",
            "0x",
            "0x12g",
            "zz",
            "abc",
        ] {
            let m = error(s).to_string();
            assert!(!m.contains("decimal digit"), "{m}");
        }
    }

    #[test]
    fn node_display_parses_back() {
        for v in [0, 1, 0x9f6bdeced846, 0xffff_ffff_ffff] {
            let n = NodeId::from_u64(v).unwrap();
            assert_eq!(n.to_string().parse::<NodeId>(), Ok(n));
            assert_eq!(format!("0x{v:x}").parse::<NodeId>(), Ok(n));
        }
    }
}
