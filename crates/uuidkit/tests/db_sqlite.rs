//! uuidkit's `Uuid` through the SQLite drivers (`rusqlite`, `sqlx`, `diesel`), against
//! SQLite itself: 16-byte blobs that round-trip every version, sort as the UUIDs do, and
//! text forms read back; values that are not UUIDs are decode errors naming them.

#![cfg(all(feature = "rusqlite", feature = "sqlx", feature = "diesel"))]

use crate::db_common;

use db_common::every_version;
use uuidkit::Uuid;

#[test]
fn rusqlite_round_trips_every_version_as_a_16_byte_blob() {
    let db = rusqlite::Connection::open_in_memory().unwrap();
    db.execute("CREATE TABLE t (id BLOB PRIMARY KEY, n INTEGER)", [])
        .unwrap();
    let ids = every_version();
    for (n, u) in ids.iter().enumerate() {
        db.execute("INSERT INTO t VALUES (?1, ?2)", rusqlite::params![u, n])
            .unwrap();
    }
    let (kind, len): (String, i64) = db
        .query_row("SELECT typeof(id), length(id) FROM t LIMIT 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((kind.as_str(), len), ("blob", 16));
    // SQLite compares blobs with memcmp: its ORDER BY is uuidkit's Ord.
    let mut stmt = db.prepare("SELECT id FROM t ORDER BY id").unwrap();
    let read: Vec<Uuid> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(read, sorted);
    let one: Uuid = db
        .query_row("SELECT id FROM t WHERE id = ?1", [&ids[8]], |r| r.get(0))
        .unwrap();
    assert_eq!(one, ids[8]);
}

#[test]
fn rusqlite_reads_text_and_names_what_is_not_a_uuid() {
    let db = rusqlite::Connection::open_in_memory().unwrap();
    let u: Uuid = db
        .query_row(
            "SELECT 'urn:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(u.to_string(), "f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
    let err = db
        .query_row("SELECT zeroblob(15)", [], |r| r.get::<_, Uuid>(0))
        .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("15-byte value 0x000000"), "{msg}");
    let err = db
        .query_row("SELECT 'f81d4fae-7dec-11d0-a765-00a0c91e6bfx'", [], |r| {
            r.get::<_, Uuid>(0)
        })
        .unwrap_err();
    assert!(err.to_string().contains("at byte 35"), "{err}");
    let err = db
        .query_row("SELECT 42", [], |r| r.get::<_, Uuid>(0))
        .unwrap_err();
    assert!(
        matches!(err, rusqlite::Error::InvalidColumnType(..)),
        "{err:?}"
    );
}

#[test]
fn sqlx_round_trips_every_version_and_reads_text() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use sqlx::Connection;
        let mut db = sqlx::SqliteConnection::connect("sqlite::memory:")
            .await
            .unwrap();
        sqlx::query("CREATE TABLE t (id BLOB PRIMARY KEY)")
            .execute(&mut db)
            .await
            .unwrap();
        let ids = every_version();
        for u in &ids {
            sqlx::query("INSERT INTO t VALUES (?)")
                .bind(u)
                .execute(&mut db)
                .await
                .unwrap();
        }
        let read: Vec<(Uuid,)> = sqlx::query_as("SELECT id FROM t ORDER BY id")
            .fetch_all(&mut db)
            .await
            .unwrap();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(read.into_iter().map(|r| r.0).collect::<Vec<_>>(), sorted);
        let len: (i64,) = sqlx::query_as("SELECT length(id) FROM t LIMIT 1")
            .fetch_one(&mut db)
            .await
            .unwrap();
        assert_eq!(len.0, 16);

        let (text,): (Uuid,) = sqlx::query_as("SELECT 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6'")
            .fetch_one(&mut db)
            .await
            .unwrap();
        assert_eq!(text.to_string(), "f81d4fae-7dec-11d0-a765-00a0c91e6bf6");
        let err = sqlx::query_as::<_, (Uuid,)>("SELECT zeroblob(15)")
            .fetch_one(&mut db)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("15-byte value"), "{err}");
    });
}

mod diesel_schema {
    diesel::table! {
        t (id) {
            id -> Binary,
            n -> Integer,
        }
    }
}

#[test]
fn diesel_round_trips_every_version_as_binary() {
    use diesel::prelude::*;
    use diesel_schema::t;

    let mut db = SqliteConnection::establish(":memory:").unwrap();
    diesel::sql_query("CREATE TABLE t (id BLOB PRIMARY KEY, n INTEGER NOT NULL)")
        .execute(&mut db)
        .unwrap();
    let ids = every_version();
    for (n, u) in ids.iter().enumerate() {
        diesel::insert_into(t::table)
            .values((t::id.eq(u), t::n.eq(n as i32)))
            .execute(&mut db)
            .unwrap();
    }
    let read: Vec<Uuid> = t::table.select(t::id).order(t::id).load(&mut db).unwrap();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(read, sorted);
    let n: i32 = t::table
        .filter(t::id.eq(ids[3]))
        .select(t::n)
        .first(&mut db)
        .unwrap();
    assert_eq!(n, 3);

    diesel::sql_query("INSERT INTO t VALUES (zeroblob(15), 99)")
        .execute(&mut db)
        .unwrap();
    let err = t::table
        .filter(t::n.eq(99))
        .select(t::id)
        .first::<Uuid>(&mut db)
        .unwrap_err();
    let chain = db_common::error_chain(&err);
    assert!(chain.contains("15-byte value"), "{chain}");
}
