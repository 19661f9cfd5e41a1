//! The layouts of the April 2021 draft that introduced v6, v7 and v8
//! (draft-peabody-dispatch-new-uuid-format-01), which RFC 9562 replaced: its UUIDv7 (36-bit
//! Unix seconds and a binary sub-second fraction) and its UUIDv8 (a 32-, 48-, 60- or
//! 64-bit timestamp, a sequence and a node). Libraries shipped the draft's v7 with version
//! nibble 7, so such UUIDs exist; RFC 9562's v7 decoder reads them as nonsense times.
//!
//! Both are *v8 layouts* here: [`encode_v7`] and [`encode_v8`] write version 8, since RFC
//! 9562 gives 7 another meaning. [`decode_v7`] accepts version 7 or 8.
//!
//! # The draft's UUIDv7
//! ```text
//!  unixts (36) · subsec_a (12) · ver (4) · subsec_b (12) · var (2) · subsec_seq_node (62)
//! ```
//! The 86 bits after `unixts`, skipping `ver` and `var`, are one field: first the
//! sub-second fraction *in binary* (its first bit is one half second, the next one quarter,
//! …), then the sequence counter, then random bits ([`Precision`] gives the widths of
//! the draft's Figures 3–5). Taking the first N bits as a fraction of 2^N gives the time
//! at whatever precision the reader wants; a reader recovers the time at the lesser of
//! its precision and the writer's.
//!
//! Rounding (the draft leaves it open): the encoder stores the *smallest* fraction at or
//! above the value (`ceil(subsec × 2^N / units)`), and the decoder rounds down
//! (`floor(fraction × units / 2^N)`). Since 2^N exceeds the units of a second at each
//! precision (4096 > 1000, 2^24 > 10^6, 2^38 > 10^9), that round trip is exact: a
//! microsecond UUID decodes to its microsecond. A reader at a coarser precision than the
//! writer's gets its own unit rounded down, or one unit below that (the fraction's first
//! bits are a truncation).
//!
//! # The draft's UUIDv8
//! ```text
//!  timestamp_32 (32) · timestamp_48 (16) · ver (4) · time_or_seq (12) · var (2) ·
//!  seq_or_node (8) · node (54)
//! ```
//! See [`V8Timestamp`] for what each timestamp width puts where.
//!
//! Where the draft contradicts itself this module decides:
//! - Field names: the algorithm steps say `time_or_node` for the 12 bits after the
//!   version; the figure and the prose say `time_or_seq`. They are one field, called
//!   `time_or_seq` here.
//! - The 60-bit steps call the sequence in `seq_or_node` "12-bit"; `seq_or_node` is bits
//!   66–73 in the figure, 8 bits, and the prose says "8-bit clock sequence using
//!   seq_or_node". It is 8 bits.
//! - "allows for 4095 UUIDs per clock tick" (and 255 for 8 bits): a 12-bit sequence
//!   starting at 0 counts 0 to 4095, which is 4096 UUIDs a tick (256 for 8 bits). The
//!   generators use every value.
//! - The steps read "if the saved timestamp is less than or equal to the current,
//!   increment the sequence", which would never reset it; the prose says the sequence
//!   starts at 0 on each new timestamp and never rolls over. The prose wins: a later
//!   timestamp restarts at 0, the same (or an earlier clock reading) counts on.
//! - The 48-bit step puts "the 32 most significant bits" in `timestamp_32` and "the 16
//!   least significant" in `timestamp_48`: the timestamp is big-endian across both.
//! - The node (and the draft v7's random bits) "MUST NOT be all 0s": [`encode_v7`] and
//!   [`encode_v8`] refuse an all-zero one.

use super::bits::check_width;
use super::error::LayoutError;
use crate::uuid::{Uuid, Variant, Version};

/// The precision of a draft v7 UUID: the widths of fraction, sequence and random bits in
/// the draft's Figures 3 (milliseconds), 4 (microseconds) and 5 (nanoseconds).
///
/// | precision | fraction | sequence | random |
/// |---|---|---|---|
/// | `Millis` | 12 (`subsec_a`) | 12 (`subsec_b`) | 62 |
/// | `Micros` | 24 (`subsec_a`, `subsec_b`) | 14 | 48 |
/// | `Nanos` | 38 (`subsec_a`, `subsec_b`, 14 of `subsec_seq_node`) | 8 | 40 |
///
/// ```
/// use uuidkit::layout::draft::Precision;
/// let p = Precision::Micros;
/// assert_eq!(p.fraction_bits() + p.sequence_bits() + p.random_bits(), 86);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    /// Milliseconds.
    Millis,
    /// Microseconds.
    Micros,
    /// Nanoseconds.
    Nanos,
}

impl Precision {
    /// Bits of the binary sub-second fraction: 12, 24 or 38.
    pub const fn fraction_bits(self) -> u32 {
        match self {
            Precision::Millis => 12,
            Precision::Micros => 24,
            Precision::Nanos => 38,
        }
    }

    /// Bits of the sequence counter right after the fraction: 12, 14 or 8.
    pub const fn sequence_bits(self) -> u32 {
        match self {
            Precision::Millis => 12,
            Precision::Micros => 14,
            Precision::Nanos => 8,
        }
    }

    /// Random bits after the sequence: 62, 48 or 40.
    pub const fn random_bits(self) -> u32 {
        86 - self.fraction_bits() - self.sequence_bits()
    }

    /// Units in a second: 10^3, 10^6 or 10^9.
    pub const fn units_per_second(self) -> u64 {
        match self {
            Precision::Millis => 1_000,
            Precision::Micros => 1_000_000,
            Precision::Nanos => 1_000_000_000,
        }
    }

    /// Fractional digits of a time at this precision: 3, 6 or 9.
    pub const fn digits(self) -> usize {
        match self {
            Precision::Millis => 3,
            Precision::Micros => 6,
            Precision::Nanos => 9,
        }
    }

    /// The binary fraction (of [`fraction_bits`](Self::fraction_bits) bits) that stands
    /// for `subsec` units: the smallest at or above it, so that [`subsec`](Self::subsec)
    /// gives `subsec` back. `subsec` must be below [`units_per_second`](Self::units_per_second).
    ///
    /// ```
    /// use uuidkit::layout::draft::Precision;
    /// assert_eq!(Precision::Millis.fraction(500), 2048);
    /// assert_eq!(Precision::Millis.subsec(Precision::Millis.fraction(999)), 999);
    /// ```
    pub const fn fraction(self, subsec: u64) -> u64 {
        // subsec × 2^n / 10^k = subsec × 2^(n−k) / 5^k: in 64 bits (below 2^59 at every
        // precision), without a 128-bit division.
        let (five, shift) = self.five_and_shift();
        (subsec << shift).div_ceil(five)
    }

    /// The units of a second that `fraction` (of this precision's width) stands for,
    /// rounded down.
    pub const fn subsec(self, fraction: u64) -> u64 {
        let (five, shift) = self.five_and_shift();
        (fraction * five) >> shift
    }

    /// 5^k and n − k, where 10^k is the units of a second and n the fraction's bits.
    const fn five_and_shift(self) -> (u64, u32) {
        match self {
            Precision::Millis => (125, 12 - 3),
            Precision::Micros => (15_625, 24 - 6),
            Precision::Nanos => (1_953_125, 38 - 9),
        }
    }
}

/// The fields of a draft v7 UUID at one precision.
///
/// ```
/// use uuidkit::layout::draft::{self, Precision, V7Fields};
/// let f = V7Fields { precision: Precision::Micros, unix_seconds: 1_645_557_742,
///                    subsec: 123_456, sequence: 7, random: 0xABCDEF };
/// let u = draft::encode_v7(&f)?;
/// assert_eq!(u.version(), uuidkit::Version::V8);
/// assert_eq!(draft::decode_v7(&u, Precision::Micros)?, f);
/// # Ok::<(), uuidkit::layout::LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct V7Fields {
    /// The precision, which sets the widths of the other fields.
    pub precision: Precision,
    /// Seconds since 1970-01-01 (`unixts`), 36 bits: up to the year 4147.
    pub unix_seconds: u64,
    /// Milli-, micro- or nanoseconds past the second, below 10^3, 10^6 or 10^9.
    pub subsec: u64,
    /// The sequence counter, [`Precision::sequence_bits`] wide.
    pub sequence: u16,
    /// The random bits, [`Precision::random_bits`] wide; not all zero.
    pub random: u64,
}

/// Packs the 86 bits after `unixts` into a draft v7 UUID of `version`.
const fn pack_v7(unix_seconds: u64, rest: u128, version: u8) -> Uuid {
    let subsec_a = (rest >> 74) as u64 & 0xfff;
    let subsec_b = (rest >> 62) as u64 & 0xfff;
    let high = (unix_seconds << 28) | (subsec_a << 16) | ((version as u64) << 12) | subsec_b;
    let low = (rest as u64 & ((1 << 62) - 1)) | (1 << 63);
    Uuid::from_u64_pair(high, low)
}

/// Packs the fields into a version 8 UUID; an error naming the first field too wide for
/// its bits, or an all-zero random field.
///
/// # Errors
///
/// [`LayoutError::FieldTooWide`] naming the first field too wide for its bits,
/// [`LayoutError::FieldTooLarge`] for a fraction at or above one second, and
/// [`LayoutError::AllZero`] for an all-zero random field.
pub const fn encode_v7(f: &V7Fields) -> Result<Uuid, LayoutError> {
    let p = f.precision;
    if let Err(e) = check_width("unixts", 36, f.unix_seconds) {
        return Err(e);
    }
    if f.subsec >= p.units_per_second() {
        return Err(LayoutError::FieldTooLarge {
            field: "subsec",
            max: p.units_per_second() - 1,
            value: f.subsec,
        });
    }
    if let Err(e) = check_width("seq", p.sequence_bits(), f.sequence as u64) {
        return Err(e);
    }
    if let Err(e) = check_width("rand", p.random_bits(), f.random) {
        return Err(e);
    }
    if f.random == 0 {
        return Err(LayoutError::AllZero { field: "rand" });
    }
    Ok(pack_v7_fields(
        p,
        f.unix_seconds,
        f.subsec,
        f.sequence as u64,
        f.random,
    ))
}

/// Packs fields known to fit (as the generators make them).
pub(crate) const fn pack_v7_fields(
    p: Precision,
    unix_seconds: u64,
    subsec: u64,
    sequence: u64,
    random: u64,
) -> Uuid {
    let rest = ((p.fraction(subsec) as u128) << (86 - p.fraction_bits()))
        | ((sequence as u128) << p.random_bits())
        | random as u128;
    pack_v7(unix_seconds, rest, 8)
}

/// The time of a draft v7 UUID, read without knowing its precision: `unixts` and the
/// first 38 bits after it (the most any of the draft's precisions uses).
///
/// ```
/// use uuidkit::layout::draft::{self, Precision};
/// // The draft's example: the first 16 fraction bits 0101 0101 0101 0101 are 0.3333282 s.
/// let u = uuidkit::uuid!("00000000-1555-7555-8000-000000000000");
/// let t = draft::decode_v7_time(&u)?;
/// assert_eq!(t.subsec(Precision::Millis), 333);
/// assert_eq!(t.subsec(Precision::Micros), 333_333);
/// # Ok::<(), uuidkit::layout::LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct V7Time {
    /// `unixts`: seconds since 1970-01-01.
    pub unix_seconds: u64,
    /// The first 38 bits of the sub-second fraction.
    pub fraction38: u64,
}

impl V7Time {
    /// The units of `precision` past the second: the fraction's first bits for that
    /// precision, rounded down.
    pub const fn subsec(&self, precision: Precision) -> u64 {
        precision.subsec(self.fraction38 >> (38 - precision.fraction_bits()))
    }

    /// The instant at `precision`.
    pub const fn to_unix(&self, precision: Precision) -> crate::time::UnixTime {
        let nanos = self.subsec(precision) * (1_000_000_000 / precision.units_per_second());
        crate::time::UnixTime::new(self.unix_seconds as i64, nanos as u32)
    }
}

/// Checks the RFC variant and version 7 or 8.
const fn expect_v7_or_v8(u: &Uuid) -> Result<(), LayoutError> {
    let variant = u.variant();
    let found = u.version();
    if matches!(variant, Variant::Rfc9562) && matches!(found.number(), 7 | 8) {
        Ok(())
    } else {
        Err(LayoutError::WrongVersion {
            expected: Version::V8,
            found,
            variant,
        })
    }
}

/// The 86 bits after `unixts`, without version and variant.
const fn rest_v7(u: &Uuid) -> u128 {
    let (high, low) = u.as_u64_pair();
    (((high >> 16) & 0xfff) as u128) << 74
        | ((high & 0xfff) as u128) << 62
        | (low & ((1 << 62) - 1)) as u128
}

/// Reads the time of a draft v7 UUID (version 7 or 8), whatever its precision.
///
/// # Errors
///
/// [`LayoutError::WrongVersion`] when `u` is not an RFC 9562 UUID of version 7 or 8.
pub const fn decode_v7_time(u: &Uuid) -> Result<V7Time, LayoutError> {
    if let Err(e) = expect_v7_or_v8(u) {
        return Err(e);
    }
    Ok(V7Time {
        unix_seconds: u.as_u64_pair().0 >> 28,
        fraction38: (rest_v7(u) >> 48) as u64,
    })
}

/// Reads a draft v7 UUID (version 7 or 8) at `precision`: its fields as a UUID written
/// at that precision holds them.
///
/// # Errors
///
/// [`LayoutError::WrongVersion`] when `u` is not an RFC 9562 UUID of version 7 or 8.
pub const fn decode_v7(u: &Uuid, precision: Precision) -> Result<V7Fields, LayoutError> {
    let t = match decode_v7_time(u) {
        Ok(t) => t,
        Err(e) => return Err(e),
    };
    let rest = rest_v7(u);
    let rb = precision.random_bits();
    Ok(V7Fields {
        precision,
        unix_seconds: t.unix_seconds,
        subsec: t.subsec(precision),
        sequence: ((rest >> rb) & ((1 << precision.sequence_bits()) - 1)) as u16,
        random: (rest & ((1 << rb) - 1)) as u64,
    })
}

/// The timestamp of a draft v8 layout.
///
/// | timestamp | in | unit | sequence | node |
/// |---|---|---|---|---|
/// | `Secs32` | `timestamp_32` (`timestamp_48` zero) | Unix seconds (to 2106) | 12 bits, `time_or_seq` | 62 bits, `seq_or_node` + `node` |
/// | `Millis48` | `timestamp_32`, `timestamp_48` | Unix milliseconds (to 10889) | 12 bits, `time_or_seq` | 62 bits |
/// | `Gregorian60` | `timestamp_32`, `timestamp_48`, `time_or_seq` | 100 ns since 1582-10-15, as v1/v6 (to 5236) | 8 bits, `seq_or_node` | 54 bits, `node` |
/// | `Nanos64` | the same 60 bits | the 60 most significant bits of 64-bit Unix nanoseconds: 16 ns units (to 2554) | 8 bits | 54 bits |
///
/// ```
/// use uuidkit::layout::draft::V8Timestamp;
/// assert_eq!(V8Timestamp::Nanos64.sequence_bits(), 8);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum V8Timestamp {
    /// 32-bit Unix seconds.
    Secs32,
    /// 48-bit Unix milliseconds.
    Millis48,
    /// 60-bit Gregorian 100 ns ticks.
    Gregorian60,
    /// 64-bit Unix nanoseconds, stored as its 60 most significant bits.
    Nanos64,
}

impl V8Timestamp {
    /// Bits of the stored timestamp field: 32, 48, 60 or 60.
    pub const fn timestamp_bits(self) -> u32 {
        match self {
            V8Timestamp::Secs32 => 32,
            V8Timestamp::Millis48 => 48,
            V8Timestamp::Gregorian60 | V8Timestamp::Nanos64 => 60,
        }
    }

    /// Bits of the sequence: 12 in `time_or_seq` or 8 in `seq_or_node`.
    pub const fn sequence_bits(self) -> u32 {
        match self {
            V8Timestamp::Secs32 | V8Timestamp::Millis48 => 12,
            _ => 8,
        }
    }

    /// Bits of the node: 62 or 54.
    pub const fn node_bits(self) -> u32 {
        match self {
            V8Timestamp::Secs32 | V8Timestamp::Millis48 => 62,
            _ => 54,
        }
    }
}

/// The fields of a draft v8 UUID.
///
/// ```
/// use uuidkit::layout::draft::{self, V8Fields, V8Timestamp};
/// let f = V8Fields { timestamp_kind: V8Timestamp::Millis48, timestamp: 0x017F22E279B0,
///                    sequence: 1, node: 0x2A };
/// let u = draft::encode_v8(&f)?;
/// assert_eq!(u.to_string(), "017f22e2-79b0-8001-8000-00000000002a");
/// assert_eq!(draft::decode_v8(&u, V8Timestamp::Millis48)?, f);
/// # Ok::<(), uuidkit::layout::LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct V8Fields {
    /// Which timestamp, and so the widths of the other fields.
    pub timestamp_kind: V8Timestamp,
    /// The stored timestamp field (for `Nanos64`, the nanoseconds shifted right by 4).
    pub timestamp: u64,
    /// The sequence.
    pub sequence: u16,
    /// The node; not all zero.
    pub node: u64,
}

/// Packs fields known to fit.
pub(crate) const fn pack_v8_fields(
    k: V8Timestamp,
    timestamp: u64,
    sequence: u64,
    node: u64,
) -> Uuid {
    match k {
        V8Timestamp::Secs32 => super::v8::pack(timestamp << 16, sequence as u16, node),
        V8Timestamp::Millis48 => super::v8::pack(timestamp, sequence as u16, node),
        V8Timestamp::Gregorian60 | V8Timestamp::Nanos64 => super::v8::pack(
            timestamp >> 12,
            (timestamp & 0xfff) as u16,
            (sequence << 54) | node,
        ),
    }
}

/// Packs the fields into a version 8 UUID; an error naming the first field too wide, or
/// an all-zero node.
///
/// # Errors
///
/// [`LayoutError::FieldTooWide`] naming the first field too wide for its bits, and
/// [`LayoutError::AllZero`] for an all-zero node.
pub const fn encode_v8(f: &V8Fields) -> Result<Uuid, LayoutError> {
    let k = f.timestamp_kind;
    if let Err(e) = check_width("timestamp", k.timestamp_bits(), f.timestamp) {
        return Err(e);
    }
    let seq_field = if k.sequence_bits() == 12 {
        "time_or_seq"
    } else {
        "seq_or_node"
    };
    if let Err(e) = check_width(seq_field, k.sequence_bits(), f.sequence as u64) {
        return Err(e);
    }
    if let Err(e) = check_width("node", k.node_bits(), f.node) {
        return Err(e);
    }
    if f.node == 0 {
        return Err(LayoutError::AllZero { field: "node" });
    }
    Ok(pack_v8_fields(k, f.timestamp, f.sequence as u64, f.node))
}

/// Reads a version 8 UUID as the draft v8 layout with `kind`'s timestamp. For `Secs32`
/// the 16 bits of `timestamp_48` must be zero, as the draft requires.
///
/// # Errors
///
/// [`LayoutError::WrongVersion`] when `u` is not an RFC 9562 version 8 UUID, and
/// [`LayoutError::NotZero`] when a `Secs32` UUID's 16 low timestamp bits are not zero.
pub const fn decode_v8(u: &Uuid, kind: V8Timestamp) -> Result<V8Fields, LayoutError> {
    let f = match super::v8::decode(u) {
        Ok(f) => f,
        Err(e) => return Err(e),
    };
    let (timestamp, sequence, node) = match kind {
        V8Timestamp::Secs32 => {
            if f.custom_a & 0xffff != 0 {
                return Err(LayoutError::NotZero {
                    field: "timestamp_48",
                    value: f.custom_a & 0xffff,
                });
            }
            (f.custom_a >> 16, f.custom_b, f.custom_c)
        }
        V8Timestamp::Millis48 => (f.custom_a, f.custom_b, f.custom_c),
        V8Timestamp::Gregorian60 | V8Timestamp::Nanos64 => (
            (f.custom_a << 12) | f.custom_b as u64,
            (f.custom_c >> 54) as u16,
            f.custom_c & ((1 << 54) - 1),
        ),
    };
    Ok(V8Fields {
        timestamp_kind: kind,
        timestamp,
        sequence,
        node,
    })
}

/// How a generator counts time for a draft layout: the unit of its timestamp (the finest
/// the layout stores), the widths, and the last unit the layout holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Units {
    /// Bits the state machine gives the timestamp (enough for `max`).
    pub(crate) timestamp_bits: u32,
    /// The last unit the layout holds.
    pub(crate) max: u64,
    /// Bits of the sequence.
    pub(crate) sequence_bits: u32,
    /// Units in a second.
    pub(crate) per_second: u64,
    /// 100 ns ticks since 1582 rather than units since 1970.
    pub(crate) gregorian: bool,
}

impl Units {
    /// The unit `t` falls in, clamped to the layout's range (before 1970, or before
    /// 1582 for Gregorian ticks, counts as its start). Only the generators need it.
    #[cfg(feature = "std")]
    pub(crate) fn at(&self, t: crate::time::UnixTime) -> u64 {
        if self.gregorian {
            return crate::time::GregorianTimestamp::from_unix_clamped(t)
                .ticks()
                .min(self.max);
        }
        if t.secs() < 0 {
            return 0;
        }
        // Every unit divides a second into whole nanoseconds (1 s, 1 ms, 1 µs, 1 ns, 16
        // ns). A count past 64 bits saturates, and every layout's last unit is below
        // 2^64, so the clamp to it is exact.
        let ns_per_unit = 1_000_000_000 / self.per_second;
        (t.secs() as u64)
            .saturating_mul(self.per_second)
            .saturating_add(t.subsec_nanos() as u64 / ns_per_unit)
            .min(self.max)
    }

    /// The instant at the start of `units`.
    #[cfg(feature = "std")]
    pub(crate) fn to_unix(self, units: u64) -> crate::time::UnixTime {
        if self.gregorian {
            crate::time::GregorianTimestamp::from_ticks_masked(units).to_unix()
        } else {
            crate::time::UnixTime::from_nanos(
                units as i128 * 1_000_000_000 / self.per_second as i128,
            )
        }
    }
}
