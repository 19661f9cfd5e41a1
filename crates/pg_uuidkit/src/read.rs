//! Reading a UUID back: version, variant, time, clock sequence and node. Each returns
//! `NULL` where the UUID has no such field, as PostgreSQL 17's `uuid_extract_version`
//! and `uuid_extract_timestamp` do.

use pgrx::prelude::*;
use uuidkit::time::UnixTime;
use uuidkit::{Variant, Version, layout};

use crate::from_pg;

/// Microseconds from 1970-01-01 to 2000-01-01, PostgreSQL's epoch.
pub(crate) const PG_EPOCH_UNIX_MICROS: i64 = 946_684_800_000_000;

/// The version number of an RFC 9562 UUID (1–8, or an unassigned 0 or 9–15); `NULL` for
/// the other variants (so for the Nil and Max UUIDs).
///
/// ```sql
/// SELECT uuidkit_version('017f22e2-79b0-7cc3-98c4-dc0c0c07398f');   -- 7
/// ```
#[pg_extern(immutable, parallel_safe)]
pub fn uuidkit_version(u: pgrx::Uuid) -> Option<i16> {
    let u = from_pg(u);
    (u.variant() == Variant::Rfc9562).then(|| i16::from(u.version().number()))
}

/// The variant: `rfc9562`, `ncs`, `microsoft` or `future`.
///
/// ```sql
/// SELECT uuidkit_variant('00000000-0000-0000-0000-000000000000');   -- ncs
/// ```
#[pg_extern(immutable, parallel_safe)]
pub fn uuidkit_variant(u: pgrx::Uuid) -> &'static str {
    from_pg(u).variant().name()
}

/// The time a v1, v6, v7 or time-based v8 (Appendix B.1) UUID holds, to the
/// microsecond, the finest `timestamptz` keeps: v1 and v6 store 100 ns ticks and v8 10 ns
/// steps, both rounded down to microseconds; v7 stores milliseconds. `NULL` for other
/// versions. Nothing in a v8 UUID says which layout it has: this reads any v8 as B.1.
///
/// ```sql
/// SELECT uuidkit_time('c232ab00-9414-11ec-b3c8-9f6bdeced846');
/// -- 2022-02-22 19:22:22+00
/// ```
#[pg_extern(immutable, parallel_safe)]
pub fn uuidkit_time(u: pgrx::Uuid) -> Option<TimestampWithTimeZone> {
    let u = from_pg(u);
    let t: UnixTime = match u.rfc_version()? {
        Version::V1 | Version::V6 | Version::V7 => u.timestamp()?.to_unix(),
        Version::V8 => {
            let steps = layout::v8::decode_time_based(&u).ok()?.timestamp;
            UnixTime::from_nanos(i128::from(steps) * 10)
        }
        _ => return None,
    };
    // Seconds and nanoseconds (0..1e9) to microseconds, rounded down.
    let unix_micros = i128::from(t.secs()) * 1_000_000 + i128::from(t.subsec_nanos() / 1000);
    let pg = i64::try_from(unix_micros - i128::from(PG_EPOCH_UNIX_MICROS)).ok()?;
    TimestampWithTimeZone::try_from(pg).ok()
}

/// The 14-bit clock sequence of a v1 or v6 UUID (6 bits for v2); `NULL` otherwise.
///
/// ```sql
/// SELECT uuidkit_clock_seq('1ec9414c-232a-6b00-b3c8-9f6bdeced846');   -- 13256
/// ```
#[pg_extern(immutable, parallel_safe)]
pub fn uuidkit_clock_seq(u: pgrx::Uuid) -> Option<i32> {
    from_pg(u).clock_seq().map(i32::from)
}

/// The node of a v1, v2 or v6 UUID as text in `macaddr`'s form (cast it with
/// `::macaddr`); `NULL` otherwise.
///
/// ```sql
/// SELECT uuidkit_node('1ec9414c-232a-6b00-b3c8-9f6bdeced846');   -- 9f:6b:de:ce:d8:46
/// ```
#[pg_extern(immutable, parallel_safe)]
pub fn uuidkit_node(u: pgrx::Uuid) -> Option<String> {
    let node = from_pg(u).node()?;
    let b = node.as_bytes();
    Some(format!(
        "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
        b[0], b[1], b[2], b[3], b[4], b[5]
    ))
}
