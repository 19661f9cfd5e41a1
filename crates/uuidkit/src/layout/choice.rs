//! Layouts beyond RFC 9562's versions, by name: how to read a v8 UUID (or a draft v7)
//! whose bits follow a layout the UUID itself does not name.
//!
//! Nothing in a v8 UUID says which layout it follows, so decoding as a layout is always
//! the caller's explicit choice: [`decode_as`].

use alloc::string::String;
use core::fmt;
use core::str::FromStr;

use super::draft::{self, Precision, Units, V8Timestamp};
use super::error::LayoutError;
use crate::error::UnknownName;
use crate::time::{GregorianTimestamp, UnixTime};
use crate::uuid::Uuid;

/// A named layout.
///
/// | name | what | timestamp unit |
/// |---|---|---|
/// | `b1` | RFC 9562 Appendix B.1, time-based | 10 ns since 1970 (60 bits) |
/// | `b2` | RFC 9562 Appendix B.2, SHA-256 name-based | — |
/// | `draft-v7-ms` | the 2021 draft's v7, Figure 3 | Unix seconds (36 bits) + binary fraction, read to the ms |
/// | `draft-v7-us` | Figure 4 | … to the µs |
/// | `draft-v7-ns` | Figure 5 | … to the ns |
/// | `draft-v8-32` | the draft's v8, 32-bit timestamp | Unix seconds |
/// | `draft-v8-48` | 48-bit timestamp | Unix milliseconds |
/// | `draft-v8-60` | 60-bit timestamp | 100 ns since 1582-10-15, as v1/v6 |
/// | `draft-v8-64` | 64-bit timestamp, its 60 most significant bits stored | Unix nanoseconds / 16 |
///
/// ```
/// use uuidkit::layout::Layout;
/// let l: Layout = "draft-v7-us".parse()?;
/// assert_eq!(l.name(), "draft-v7-us");
/// assert_eq!(Layout::ALL.len(), 9);
/// # Ok::<(), uuidkit::UnknownName>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// RFC 9562 Appendix B.1.
    B1,
    /// RFC 9562 Appendix B.2.
    B2,
    /// The 2021 draft's v7 at a precision.
    DraftV7(Precision),
    /// The 2021 draft's v8 with a timestamp width.
    DraftV8(V8Timestamp),
}

impl Layout {
    /// Every layout, in the order of the table above.
    pub const ALL: [Layout; 9] = [
        Layout::B1,
        Layout::B2,
        Layout::DraftV7(Precision::Millis),
        Layout::DraftV7(Precision::Micros),
        Layout::DraftV7(Precision::Nanos),
        Layout::DraftV8(V8Timestamp::Secs32),
        Layout::DraftV8(V8Timestamp::Millis48),
        Layout::DraftV8(V8Timestamp::Gregorian60),
        Layout::DraftV8(V8Timestamp::Nanos64),
    ];

    /// Every layout's [`name`](Self::name), in the order of [`ALL`](Self::ALL).
    ///
    /// ```
    /// assert_eq!(uuidkit::layout::Layout::NAMES[8], "draft-v8-64");
    /// ```
    pub const NAMES: [&'static str; 9] = {
        let mut names = [""; 9];
        let mut i = 0;
        while i < names.len() {
            names[i] = Layout::ALL[i].name();
            i += 1;
        }
        names
    };

    /// The name, as [`FromStr`] takes it.
    pub const fn name(self) -> &'static str {
        match self {
            Layout::B1 => "b1",
            Layout::B2 => "b2",
            Layout::DraftV7(Precision::Millis) => "draft-v7-ms",
            Layout::DraftV7(Precision::Micros) => "draft-v7-us",
            Layout::DraftV7(Precision::Nanos) => "draft-v7-ns",
            Layout::DraftV8(V8Timestamp::Secs32) => "draft-v8-32",
            Layout::DraftV8(V8Timestamp::Millis48) => "draft-v8-48",
            Layout::DraftV8(V8Timestamp::Gregorian60) => "draft-v8-60",
            Layout::DraftV8(V8Timestamp::Nanos64) => "draft-v8-64",
        }
    }

    /// Whether the layout carries a time (all but `b2`).
    pub const fn is_time_based(self) -> bool {
        !matches!(self, Layout::B2)
    }

    /// Fractional digits of its time: the precision its timestamp carries (`None` for
    /// `b2`).
    ///
    /// ```
    /// use uuidkit::layout::Layout;
    /// assert_eq!(Layout::B1.time_digits(), Some(8));
    /// assert_eq!("draft-v8-32".parse::<Layout>().unwrap().time_digits(), Some(0));
    /// ```
    pub const fn time_digits(self) -> Option<usize> {
        match self {
            Layout::B1 => Some(8),
            Layout::B2 => None,
            Layout::DraftV7(p) => Some(p.digits()),
            Layout::DraftV8(V8Timestamp::Secs32) => Some(0),
            Layout::DraftV8(V8Timestamp::Millis48) => Some(3),
            Layout::DraftV8(V8Timestamp::Gregorian60) => Some(7),
            Layout::DraftV8(V8Timestamp::Nanos64) => Some(9),
        }
    }

    /// What [`Decoded::timestamp`] counts, in words.
    pub const fn timestamp_unit(self) -> &'static str {
        match self {
            Layout::B1 => "10 ns steps since 1970-01-01",
            Layout::B2 => "none",
            Layout::DraftV7(Precision::Millis) => "milliseconds since 1970-01-01",
            Layout::DraftV7(Precision::Micros) => "microseconds since 1970-01-01",
            Layout::DraftV7(Precision::Nanos) => "nanoseconds since 1970-01-01",
            Layout::DraftV8(V8Timestamp::Secs32) => "seconds since 1970-01-01",
            Layout::DraftV8(V8Timestamp::Millis48) => "milliseconds since 1970-01-01",
            Layout::DraftV8(V8Timestamp::Gregorian60) => "100 ns ticks since 1582-10-15",
            Layout::DraftV8(V8Timestamp::Nanos64) => {
                "16 ns units since 1970-01-01 (the top 60 bits of 64-bit nanoseconds)"
            }
        }
    }

    /// Bits of its sequence counter (`None` for `b1` and `b2`, which RFC 9562 gives none).
    pub const fn sequence_bits(self) -> Option<u32> {
        match self {
            Layout::B1 | Layout::B2 => None,
            Layout::DraftV7(p) => Some(p.sequence_bits()),
            Layout::DraftV8(k) => Some(k.sequence_bits()),
        }
    }

    /// Checks that the layout's timestamp can hold `t`: an error naming the layout's
    /// range otherwise (`b2` holds no time and takes any).
    ///
    /// ```
    /// use uuidkit::{layout::Layout, time::UnixTime};
    /// let l: Layout = "draft-v8-32".parse().unwrap();
    /// assert!(l.check_time(UnixTime::new(4_294_967_295, 0)).is_ok());
    /// assert!(l.check_time(UnixTime::new(4_294_967_296, 0)).is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// [`TimeError::OutOfRange`](crate::time::TimeError::OutOfRange) naming the layout's range
    /// when its timestamp cannot hold `t`.
    pub fn check_time(self, t: UnixTime) -> Result<(), crate::time::TimeError> {
        let Some(u) = draft::Units::of(self) else {
            return match self {
                Layout::B1 => crate::time::unix_10ns_60(t).map(drop),
                _ => Ok(()),
            };
        };
        let units = if u.gregorian {
            GregorianTimestamp::from_unix(t).map(|g| g.ticks() as i128)?
        } else {
            (t.as_nanos() * u.per_second as i128).div_euclid(1_000_000_000)
        };
        if (0..=u.max as i128).contains(&units) {
            return Ok(());
        }
        Err(crate::time::TimeError::OutOfRange {
            instant: t.to_rfc3339(9),
            field: match self {
                Layout::DraftV7(Precision::Millis) | Layout::DraftV7(Precision::Micros) => {
                    "a draft v7 timestamp (36-bit Unix seconds: 1970-01-01 to 4147-08-20)"
                }
                Layout::DraftV7(Precision::Nanos) => {
                    "a draft-v7-ns timestamp (63-bit Unix nanoseconds: 1970-01-01 to \
                     2262-04-11T23:47:16.854775807Z)"
                }
                Layout::DraftV8(V8Timestamp::Secs32) => {
                    "a draft-v8-32 timestamp (32-bit Unix seconds: 1970-01-01 to \
                     2106-02-07T06:28:15Z)"
                }
                Layout::DraftV8(V8Timestamp::Millis48) => {
                    "a draft-v8-48 timestamp (48-bit Unix milliseconds: 1970-01-01 to \
                     +010889-08-02T05:31:50.655Z)"
                }
                Layout::DraftV8(V8Timestamp::Gregorian60) => {
                    "a draft-v8-60 timestamp (60-bit 100 ns ticks: 1582-10-15 to \
                     5236-03-31T21:21:00.6846975Z)"
                }
                _ => {
                    "a draft-v8-64 timestamp (64-bit Unix nanoseconds: 1970-01-01 to \
                     2554-07-21T23:34:33.709551615Z)"
                }
            },
        })
    }

    /// Bits of its random (node) field, where a machine ID can take the first bits.
    pub const fn random_bits(self) -> u32 {
        match self {
            Layout::B1 => 62,
            Layout::B2 => 122,
            Layout::DraftV7(p) => p.random_bits(),
            Layout::DraftV8(k) => k.node_bits(),
        }
    }
}

// `Units::of` is here, not in draft.rs with the rest of `Units`, because it reads a
// `Layout`, and this file already imports draft.rs: draft.rs naming `Layout` would tie
// the two files in a loop.
impl Units {
    /// The units of a draft layout; `None` for `b1` and `b2`.
    pub(crate) const fn of(layout: Layout) -> Option<Units> {
        const fn u(timestamp_bits: u32, max: u64, sequence_bits: u32, per_second: u64) -> Units {
            Units {
                timestamp_bits,
                max,
                sequence_bits,
                per_second,
                gregorian: false,
            }
        }
        Some(match layout {
            Layout::B1 | Layout::B2 => return None,
            // 36-bit seconds: the year 4147.
            Layout::DraftV7(Precision::Millis) => u(46, (1 << 36) * 1_000 - 1, 12, 1_000),
            Layout::DraftV7(Precision::Micros) => u(56, (1 << 36) * 1_000_000 - 1, 14, 1_000_000),
            // A u64 of nanoseconds, less one bit for the state machine: 2262-04-11.
            Layout::DraftV7(Precision::Nanos) => u(63, (1 << 63) - 1, 8, 1_000_000_000),
            Layout::DraftV8(V8Timestamp::Secs32) => u(32, (1 << 32) - 1, 12, 1),
            Layout::DraftV8(V8Timestamp::Millis48) => u(48, (1 << 48) - 1, 12, 1_000),
            Layout::DraftV8(V8Timestamp::Gregorian60) => Units {
                gregorian: true,
                ..u(60, (1 << 60) - 1, 8, 10_000_000)
            },
            Layout::DraftV8(V8Timestamp::Nanos64) => u(60, (1 << 60) - 1, 8, 62_500_000),
        })
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Layout {
    type Err = UnknownName;

    /// The layout of a [`name`](Layout::name).
    ///
    /// ```
    /// use uuidkit::layout::Layout;
    /// assert_eq!("b1".parse::<Layout>()?, Layout::B1);
    /// let err = "b3".parse::<Layout>().unwrap_err();
    /// assert!(err.to_string().starts_with("unknown layout \"b3\": expected one of b1, b2, draft-v7-ms"));
    /// # Ok::<(), uuidkit::UnknownName>(())
    /// ```
    fn from_str(s: &str) -> Result<Layout, UnknownName> {
        Layout::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| UnknownName::new("layout", s, &Layout::NAMES))
    }
}

/// A UUID read as a named layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The layout it was read as.
    pub layout: Layout,
    /// The time, at the precision of the layout (`None` for `b2`).
    pub time: Option<UnixTime>,
    /// The timestamp field's value, in [`Layout::timestamp_unit`].
    pub timestamp: Option<u128>,
    /// The sequence counter.
    pub sequence: Option<u64>,
    /// The random (node) bits: the lowest [`random_bits`](Self::random_bits) bits.
    pub random: u128,
    /// How many bits `random` has.
    pub random_bits: u32,
}

impl Decoded {
    /// The time in RFC 3339, with as many fractional digits as the layout carries.
    pub fn time_rfc3339(&self) -> Option<String> {
        let digits = self.layout.time_digits()?;
        self.time.map(|t| t.to_rfc3339(digits))
    }

    /// The first `bits` random bits read as a machine ID, and the random bits after it
    /// (with their width); `None` when `bits` is 0 or not below the random field's width.
    ///
    /// ```
    /// use uuidkit::layout::{decode_as, Layout};
    /// let u = uuidkit::uuid!("017f22e2-79b0-8001-8000-00000000002a");
    /// let d = decode_as(&u, "draft-v8-48".parse()?)?;
    /// assert_eq!(d.machine_id(8), Some((0, 0x2a, 54)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn machine_id(&self, bits: u32) -> Option<(u64, u128, u32)> {
        if bits == 0 || bits >= self.random_bits || bits > 64 {
            return None;
        }
        let rest_bits = self.random_bits - bits;
        Some((
            (self.random >> rest_bits) as u64,
            self.random & ((1u128 << rest_bits) - 1),
            rest_bits,
        ))
    }
}

/// Reads `u` as `layout`: an error when the version is not the layout's (8; 7 or 8 for the
/// draft v7 layouts) or the bits cannot be the layout's.
///
/// ```
/// use uuidkit::layout::{decode_as, Layout};
/// let u = uuidkit::uuid!("2489e9ad-2ee2-8e00-8ec9-32d5f69181c0");
/// let d = decode_as(&u, Layout::B1)?;
/// assert_eq!(d.time_rfc3339().unwrap(), "2022-02-22T19:22:22.00000000Z");
/// # Ok::<(), uuidkit::layout::LayoutError>(())
/// ```
///
/// # Errors
///
/// [`LayoutError::WrongVersion`] when the version is not the layout's, and
/// [`LayoutError::NotZero`] when bits the layout keeps zero are not.
pub fn decode_as(u: &Uuid, layout: Layout) -> Result<Decoded, LayoutError> {
    let d = |time, timestamp, sequence, random, random_bits| Decoded {
        layout,
        time,
        timestamp,
        sequence,
        random,
        random_bits,
    };
    Ok(match layout {
        Layout::B1 => {
            let f = super::v8::decode_time_based(u)?;
            let time = UnixTime::from_nanos(f.timestamp as i128 * 10);
            d(
                Some(time),
                Some(f.timestamp as u128),
                None,
                f.rest as u128,
                62,
            )
        }
        Layout::B2 => {
            let f = super::v8::decode(u)?;
            let payload =
                (f.custom_a as u128) << 74 | (f.custom_b as u128) << 62 | f.custom_c as u128;
            d(None, None, None, payload, 122)
        }
        Layout::DraftV7(p) => {
            let f = draft::decode_v7(u, p)?;
            let t = draft::decode_v7_time(u)?.to_unix(p);
            let units = f.unix_seconds as u128 * p.units_per_second() as u128 + f.subsec as u128;
            d(
                Some(t),
                Some(units),
                Some(f.sequence as u64),
                f.random as u128,
                p.random_bits(),
            )
        }
        Layout::DraftV8(k) => {
            let f = draft::decode_v8(u, k)?;
            let time = match k {
                V8Timestamp::Secs32 => UnixTime::new(f.timestamp as i64, 0),
                V8Timestamp::Millis48 => UnixTime::from_millis(f.timestamp),
                V8Timestamp::Gregorian60 => {
                    GregorianTimestamp::from_ticks_masked(f.timestamp).to_unix()
                }
                V8Timestamp::Nanos64 => UnixTime::from_nanos((f.timestamp as i128) << 4),
            };
            d(
                Some(time),
                Some(f.timestamp as u128),
                Some(f.sequence as u64),
                f.node as u128,
                k.node_bits(),
            )
        }
    })
}
