//! Strategies shared by the property tests of the files in `time/`; a leaf of its own so
//! that those tests need not reach up into `mod.rs` for them.

use super::instant::UnixTime;

/// Instants for the property tests of every file here: the whole range, its ends, and
/// the years around 0000 and 9999.
pub(super) fn any_instant() -> impl proptest::strategy::Strategy<Value = UnixTime> {
    use proptest::prelude::*;

    prop_oneof![
        // The whole range...
        (any::<i64>(), 0..1_000_000_000u32).prop_map(|(s, n)| UnixTime::new(s, n)),
        // ...its ends...
        (0..100_000_000_000i64, 0..1_000_000_000u32)
            .prop_map(|(s, n)| UnixTime::new(i64::MAX - s, n)),
        (0..100_000_000_000i64, 0..1_000_000_000u32)
            .prop_map(|(s, n)| UnixTime::new(i64::MIN + s, n)),
        // ...and the years around 0000 and 9999, where the form of the year changes.
        (-63_000_000_000i64..-61_000_000_000, 0..1_000_000_000u32)
            .prop_map(|(s, n)| UnixTime::new(s, n)),
        (252_000_000_000i64..254_000_000_000, 0..1_000_000_000u32)
            .prop_map(|(s, n)| UnixTime::new(s, n)),
    ]
}
