//! Generation: one SQL function per version, each a call into the `uuidkit` library.
//!
//! The time-based generators (v1, v6, v7, v8) keep their state in the backend: each
//! function's UUIDs strictly increase within a session. They are `PARALLEL RESTRICTED`
//! so that PostgreSQL runs them in the session's own backend, never in a parallel worker
//! with a state of its own, which would break that order. v4 and the name-based
//! functions have no state and are `PARALLEL SAFE`; the name-based ones are `IMMUTABLE`.

use std::sync::Mutex;

use pgrx::prelude::*;
use uuidkit::generator::v7::{V7Generator, V7Method};
use uuidkit::layout;
use uuidkit::random::{Csprng, RngCore};

use crate::{from_pg, or_raise, quoted, raise, to_pg};

/// A time-based v1 UUID (RFC 9562 §5.1): 100 ns timestamp, clock sequence, random node.
///
/// ```sql
/// SELECT uuidkit_v1();   -- e.g. 7d444840-9dc0-11d1-b245-5ffdce74fad2
/// ```
#[pg_extern(volatile, parallel_restricted)]
pub fn uuidkit_v1() -> pgrx::Uuid {
    to_pg(or_raise(
        uuidkit::try_v1(),
        PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
        || "uuidkit_v1".into(),
    ))
}

/// A random v4 UUID (RFC 9562 §5.4) from the library's CSPRNG.
///
/// ```sql
/// SELECT uuidkit_v4();   -- e.g. 919108f7-52d1-4320-9bac-f847db4148a8
/// ```
#[pg_extern(volatile, parallel_safe)]
pub fn uuidkit_v4() -> pgrx::Uuid {
    to_pg(uuidkit::v4())
}

/// A v6 UUID (RFC 9562 §5.6): v1's fields reordered so that text and bytes sort by time.
///
/// ```sql
/// SELECT uuidkit_v6();   -- e.g. 1ec9414c-232a-6b00-b3c8-9f6bdeced846
/// ```
#[pg_extern(volatile, parallel_restricted)]
pub fn uuidkit_v6() -> pgrx::Uuid {
    to_pg(or_raise(
        uuidkit::try_v6(),
        PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
        || "uuidkit_v6".into(),
    ))
}

/// A v7 UUID (RFC 9562 §5.7): Unix milliseconds, a 42-bit counter (§6.2 Method 1) and
/// random bits; strictly increasing within the session.
///
/// ```sql
/// CREATE TABLE events (id uuid PRIMARY KEY DEFAULT uuidkit_v7(), body text);
/// ```
#[pg_extern(volatile, parallel_restricted)]
pub fn uuidkit_v7() -> pgrx::Uuid {
    to_pg(uuidkit::v7())
}

// One generator per §6.2 method, for the session (a backend is one thread).
static COUNTER: Mutex<V7Generator> = Mutex::new(V7Generator::new(V7Method::Counter));
static RANDOM: Mutex<V7Generator> = Mutex::new(V7Generator::new(V7Method::Random));
static PRECISION: Mutex<V7Generator> = Mutex::new(V7Generator::new(V7Method::Precision));

/// A v7 UUID made with a chosen method of RFC 9562 §6.2: `'counter'` (Method 1, a 42-bit
/// counter), `'random'` (Method 2, a monotonic random increment) or `'precision'`
/// (Method 3, 12 more bits of sub-millisecond time and a 30-bit counter). Each method's
/// UUIDs strictly increase within the session.
///
/// Not named `uuidkit_v7(text)`: a quoted literal passed to `uuidkit_v7` would then be
/// read as a method name rather than as a `timestamptz`.
///
/// ```sql
/// SELECT uuidkit_v7_method('precision');
/// ```
#[pg_extern(volatile, parallel_restricted)]
pub fn uuidkit_v7_method(method: &str) -> pgrx::Uuid {
    let generator = match method.parse::<V7Method>() {
        Ok(V7Method::Counter) => &COUNTER,
        Ok(V7Method::Random) => &RANDOM,
        Ok(V7Method::Precision) => &PRECISION,
        Err(_) => raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!(
                "uuidkit_v7_method: unknown method {}: expected 'counter', 'random' or 'precision'",
                quoted(method)
            ),
        ),
    };
    // A poisoned lock only means an earlier call panicked (an SQL error) with the state
    // consistent: the generator updates it in one assignment.
    let mut g = generator.lock().unwrap_or_else(|e| e.into_inner());
    to_pg(g.next())
}

/// The Unix milliseconds of a `timestamptz`, for the 48-bit field of v7.
fn v7_millis(function: &str, at: TimestampWithTimeZone) -> u64 {
    if !at.is_finite() {
        raise(
            PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
            format!("{function}: a v7 timestamp cannot be infinite"),
        );
    }
    let unix_micros = i128::from(at.into_inner()) + i128::from(crate::read::PG_EPOCH_UNIX_MICROS);
    let ms = unix_micros.div_euclid(1000);
    if !(0..1i128 << 48).contains(&ms) {
        raise(
            PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW,
            format!(
                "{function}: {at} is outside v7's range, 1970-01-01 00:00:00 UTC to \
                 10889-08-02 05:31:50.655 UTC (48 bits of milliseconds)"
            ),
        );
    }
    ms as u64
}

/// A v7 UUID for a given time, with 74 random bits: for back-filling keys of past rows.
/// Not ordered among UUIDs of the same millisecond.
///
/// ```sql
/// SELECT uuidkit_v7('2022-02-22 19:22:22+00');   -- 017f22e2-79b0-7…
/// ```
#[pg_extern(name = "uuidkit_v7", volatile, parallel_safe)]
pub fn uuidkit_v7_at(at: TimestampWithTimeZone) -> pgrx::Uuid {
    let ms = v7_millis("uuidkit_v7", at);
    // 74 random bits from one draw of 16 bytes (one visit to the random stream).
    let mut random = [0u8; 16];
    Csprng.fill_bytes(&mut random);
    let r = u128::from_be_bytes(random);
    let fields = layout::v7::Fields {
        unix_ts_ms: ms,
        rand_a: (r >> 116) as u16,
        rand_b: (r >> 2) as u64 & ((1 << 62) - 1),
    };
    to_pg(layout::v7::encode(&fields).expect("fields within their widths"))
}

/// The smallest (`lower` true) or largest (`lower` false) v7 UUID of the millisecond of
/// `at` (rounded down): bounds for a primary-key range scan over v7 keys.
///
/// ```sql
/// -- Every row created in March 2026 (UTC), as an index range on the key:
/// SELECT * FROM events
///  WHERE id >= uuidkit_v7_bound('2026-03-01 00:00+00', true)
///    AND id <  uuidkit_v7_bound('2026-04-01 00:00+00', true);
/// ```
#[pg_extern(immutable, parallel_safe)]
pub fn uuidkit_v7_bound(at: TimestampWithTimeZone, lower: bool) -> pgrx::Uuid {
    let ms = v7_millis("uuidkit_v7_bound", at);
    let fields = if lower {
        layout::v7::Fields {
            unix_ts_ms: ms,
            rand_a: 0,
            rand_b: 0,
        }
    } else {
        layout::v7::Fields {
            unix_ts_ms: ms,
            rand_a: 0xfff,
            rand_b: (1 << 62) - 1,
        }
    };
    to_pg(layout::v7::encode(&fields).expect("fields within their widths"))
}

/// A time-based v8 UUID in the layout of RFC 9562 Appendix B.1 (60 bits of 10 ns steps,
/// then a counter and random bits); strictly increasing within the session.
///
/// ```sql
/// SELECT uuidkit_v8();
/// ```
#[pg_extern(volatile, parallel_restricted)]
pub fn uuidkit_v8() -> pgrx::Uuid {
    to_pg(uuidkit::v8())
}

/// The v3 (MD5) UUID of a name in a namespace; equal to `uuid-ossp`'s
/// `uuid_generate_v3`.
///
/// ```sql
/// SELECT uuidkit_v3('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com');
/// -- 5df41881-3aed-3515-88a7-2f4a814cf09e
/// ```
#[pg_extern(immutable, parallel_safe)]
pub fn uuidkit_v3(namespace: pgrx::Uuid, name: &str) -> pgrx::Uuid {
    to_pg(uuidkit::v3(&from_pg(namespace), name.as_bytes()))
}

/// [`uuidkit_v3`] of a binary name.
///
/// ```sql
/// SELECT uuidkit_v3(uuidkit_v4(), '\x00ff'::bytea);
/// ```
#[pg_extern(name = "uuidkit_v3", immutable, parallel_safe)]
pub fn uuidkit_v3_bytea(namespace: pgrx::Uuid, name: &[u8]) -> pgrx::Uuid {
    to_pg(uuidkit::v3(&from_pg(namespace), name))
}

/// The v5 (SHA-1) UUID of a name in a namespace; equal to `uuid-ossp`'s
/// `uuid_generate_v5`.
///
/// ```sql
/// SELECT uuidkit_v5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com');
/// -- 2ed6657d-e927-568b-95e1-2665a8aea6a2
/// ```
#[pg_extern(immutable, parallel_safe)]
pub fn uuidkit_v5(namespace: pgrx::Uuid, name: &str) -> pgrx::Uuid {
    to_pg(uuidkit::v5(&from_pg(namespace), name.as_bytes()))
}

/// [`uuidkit_v5`] of a binary name.
///
/// ```sql
/// SELECT uuidkit_v5(uuidkit_v4(), '\x00ff'::bytea);
/// ```
#[pg_extern(name = "uuidkit_v5", immutable, parallel_safe)]
pub fn uuidkit_v5_bytea(namespace: pgrx::Uuid, name: &[u8]) -> pgrx::Uuid {
    to_pg(uuidkit::v5(&from_pg(namespace), name))
}

/// The name-based v8 UUID of RFC 9562 Appendix B.2: as v5, with SHA-256.
///
/// ```sql
/// SELECT uuidkit_v8_sha256('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com');
/// -- 5c146b14-3c52-8afd-938a-375d0df1fbf6
/// ```
#[pg_extern(immutable, parallel_safe)]
pub fn uuidkit_v8_sha256(namespace: pgrx::Uuid, name: &str) -> pgrx::Uuid {
    to_pg(uuidkit::v8_sha256(&from_pg(namespace), name.as_bytes()))
}

/// [`uuidkit_v8_sha256`] of a binary name.
///
/// ```sql
/// SELECT uuidkit_v8_sha256(uuidkit_v4(), '\x00ff'::bytea);
/// ```
#[pg_extern(name = "uuidkit_v8_sha256", immutable, parallel_safe)]
pub fn uuidkit_v8_sha256_bytea(namespace: pgrx::Uuid, name: &[u8]) -> pgrx::Uuid {
    to_pg(uuidkit::v8_sha256(&from_pg(namespace), name))
}
