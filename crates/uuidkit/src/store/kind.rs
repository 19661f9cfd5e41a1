//! Generator kinds and their position arithmetic: what a position is for each kind, the
//! clock's position, a position's instant, the last position and the write-ahead window.

use core::fmt;

use crate::node::NodeId;

/// A generator whose positions the store hands out; each has its own entry in the file.
///
/// A *position* is a number ordered like the UUIDs it stands for:
/// - `Gregorian(node)`: 100 ns ticks since 1582-10-15 (60 bits), shared by v1, v2 and v6
///   of that node ID (they take their timestamps from one clock and one clock sequence).
/// - `V7`: the first 90 payload bits of a v7 UUID, `unix_ms (48) << 42 | x (42)`.
/// - `V8`: `steps_10ns (60) << 30 | counter (30)`.
///
/// ```
/// use uuidkit::store::GeneratorKind;
/// assert_eq!(GeneratorKind::V7.max_position(), (1 << 90) - 1);
/// assert_eq!(GeneratorKind::V8.write_ahead_window(), 500_000_000 << 30); // 5 s
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GeneratorKind {
    /// v1, v2 and v6 of one node ID.
    Gregorian(NodeId),
    /// v7.
    V7,
    /// Time-based v8.
    V8,
    /// One of the 2021 draft's layouts ([`Layout::DraftV7`](crate::layout::Layout) or
    /// `DraftV8`; `b1` is `V8`, `b2` has no state). Its position is
    /// `timestamp << sequence_bits | sequence`, the timestamp in the layout's finest unit
    /// (milli-, micro-, nanoseconds, seconds, 100 ns ticks or 16 ns units).
    Draft(crate::layout::Layout),
}

impl GeneratorKind {
    /// The units of a draft layout's positions.
    pub(crate) const fn draft_units(self) -> Option<crate::layout::draft::Units> {
        match self {
            GeneratorKind::Draft(l) => crate::layout::draft::Units::of(l),
            _ => None,
        }
    }

    /// One second of a draft layout's positions (0 for the other kinds).
    ///
    /// ```
    /// use uuidkit::store::GeneratorKind;
    /// assert_eq!(GeneratorKind::Draft("draft-v8-32".parse().unwrap()).draft_second(), 1 << 12);
    /// ```
    pub const fn draft_second(self) -> u128 {
        match self.draft_units() {
            Some(u) => (u.per_second as u128) << u.sequence_bits,
            None => 0,
        }
    }

    /// Bits of the counter in a position (`None` for Gregorian).
    ///
    /// ```
    /// use uuidkit::store::GeneratorKind;
    /// assert_eq!(GeneratorKind::V7.counter_bits(), Some(42));
    /// let k = GeneratorKind::Draft("draft-v8-48".parse().unwrap());
    /// assert_eq!(k.counter_bits(), Some(12));
    /// ```
    pub const fn counter_bits(self) -> Option<u32> {
        match self {
            GeneratorKind::Gregorian(_) => None,
            GeneratorKind::V7 => Some(42),
            GeneratorKind::V8 => Some(30),
            GeneratorKind::Draft(_) => match self.draft_units() {
                Some(u) => Some(u.sequence_bits),
                None => Some(0),
            },
        }
    }

    /// The position the clock reads at `now` (counter 0).
    ///
    /// ```
    /// use uuidkit::{store::GeneratorKind, time::UnixTime};
    /// let k = GeneratorKind::Draft("draft-v8-32".parse().unwrap());
    /// assert_eq!(k.clock_position(UnixTime::new(5, 0)), 5 << 12);
    /// ```
    pub fn clock_position(self, now: crate::time::UnixTime) -> u128 {
        match self {
            GeneratorKind::Gregorian(_) => crate::time::GregorianTimestamp::from_unix_clamped(now)
                .ticks()
                .into(),
            GeneratorKind::V7 => u128::from(now.millis_since_epoch()) << 42,
            GeneratorKind::V8 => u128::from(now.nanos_since_epoch() / 10) << 30,
            GeneratorKind::Draft(_) => match self.draft_units() {
                Some(u) => (u.at(now) as u128) << u.sequence_bits,
                None => 0,
            },
        }
    }

    /// The instant of a position and the fractional digits its unit has; `None` past the
    /// kind's range.
    ///
    /// ```
    /// use uuidkit::store::GeneratorKind;
    /// let k = GeneratorKind::Draft("draft-v8-48".parse().unwrap());
    /// let (t, digits) = k.position_time((1_645_557_742_000 << 12) | 5).unwrap();
    /// assert_eq!(t.to_rfc3339(digits), "2022-02-22T19:22:22.000Z");
    /// ```
    pub fn position_time(self, pos: u128) -> Option<(crate::time::UnixTime, usize)> {
        use crate::time::{GregorianTimestamp, UnixTime};
        if pos > self.max_position() {
            return None;
        }
        Some(match self {
            GeneratorKind::Gregorian(_) => {
                (GregorianTimestamp::from_ticks(pos as u64)?.to_unix(), 7)
            }
            GeneratorKind::V7 => (UnixTime::from_millis((pos >> 42) as u64), 3),
            GeneratorKind::V8 => (UnixTime::from_nanos((pos >> 30) as i128 * 10), 8),
            GeneratorKind::Draft(l) => {
                let u = self.draft_units()?;
                (u.to_unix((pos >> u.sequence_bits) as u64), l.time_digits()?)
            }
        })
    }

    /// The last position: 2^60 − 1 for Gregorian, 2^90 − 1 for v7 and v8.
    ///
    /// ```
    /// use uuidkit::{store::GeneratorKind, NodeId};
    /// let g = GeneratorKind::Gregorian(NodeId::from_bytes([1, 0, 0, 0, 0, 0]));
    /// assert_eq!(g.max_position(), (1 << 60) - 1);
    /// ```
    pub const fn max_position(self) -> u128 {
        match self {
            GeneratorKind::Gregorian(_) => (1 << 60) - 1,
            GeneratorKind::V7 | GeneratorKind::V8 => (1 << 90) - 1,
            GeneratorKind::Draft(_) => match self.draft_units() {
                Some(u) => ((u.max as u128 + 1) << u.sequence_bits) - 1,
                None => 0,
            },
        }
    }

    /// How far above a lease's end the write-ahead mark is set: five seconds of the
    /// kind's time. A larger window means fewer `fsync`s; a smaller one that a reboot
    /// skips fewer positions.
    ///
    /// ```
    /// use uuidkit::store::GeneratorKind;
    /// assert_eq!(GeneratorKind::V7.write_ahead_window(), 5000 << 42); // 5000 ms
    /// ```
    pub const fn write_ahead_window(self) -> u128 {
        match self {
            GeneratorKind::Gregorian(_) => 50_000_000,
            GeneratorKind::V7 => 5000 << 42,
            GeneratorKind::V8 => 500_000_000 << 30,
            GeneratorKind::Draft(_) => 5 * self.draft_second(),
        }
    }

    /// The order of entries in the file: Gregorian by node ID, then v7, then v8.
    pub(super) fn sort_key(self) -> (u8, u64) {
        match self {
            GeneratorKind::Gregorian(n) => (0, n.as_u64()),
            GeneratorKind::V7 => (1, 0),
            GeneratorKind::V8 => (2, 0),
            GeneratorKind::Draft(l) => {
                let mut i = 0;
                while i < crate::layout::Layout::ALL.len() {
                    if crate::layout::Layout::ALL[i].name() == l.name() {
                        break;
                    }
                    i += 1;
                }
                (3, i as u64)
            }
        }
    }
}

impl fmt::Display for GeneratorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GeneratorKind::Gregorian(n) => write!(f, "gregorian node={n}"),
            GeneratorKind::V7 => f.write_str("v7"),
            GeneratorKind::V8 => f.write_str("v8"),
            GeneratorKind::Draft(l) => f.write_str(l.name()),
        }
    }
}
