//! uuidkit's `Uuid` through the PostgreSQL drivers (`postgres`/`postgres-types`, `sqlx`,
//! `diesel`), against a real PostgreSQL 15 server that the test starts in a temporary
//! directory and stops after: every version round-trips as the native `uuid` type, the
//! server's comparison and `ORDER BY` agree with uuidkit's `Ord` and with generation
//! order for v6 and v7, and `uuid-ossp`'s `uuid_generate_v5` agrees with `uuidkit::v5`.
//! Skipped, with a message, where PostgreSQL 15 is not installed (CI installs it).

#![cfg(all(feature = "postgres-types", feature = "sqlx", feature = "diesel"))]

use crate::db_common;

use db_common::{Postgres, error_chain, every_version};
use uuidkit::{Uuid, namespace};

/// v6 and v7 UUIDs in generation order, and a shuffled copy to insert.
fn generated_in_order() -> (Vec<Uuid>, Vec<Uuid>) {
    let mut ids: Vec<Uuid> = (0..500).map(|_| uuidkit::v7()).collect();
    ids.extend((0..500).map(|_| uuidkit::v6()));
    // Shuffle with the library's own randomness (a Fisher–Yates pass).
    let mut shuffled = ids.clone();
    for i in (1..shuffled.len()).rev() {
        let j = (uuidkit::v4().as_u128() % (i as u128 + 1)) as usize;
        shuffled.swap(i, j);
    }
    (ids, shuffled)
}

#[test]
fn postgres_types_against_the_server() {
    let Some(pg) = Postgres::start("postgres-types") else {
        return;
    };
    let mut db = postgres::Client::connect(&pg.conninfo(), postgres::NoTls).unwrap();
    db.batch_execute("CREATE TABLE t (id uuid PRIMARY KEY, n int NOT NULL)")
        .unwrap();

    let ids = every_version();
    for (n, u) in ids.iter().enumerate() {
        db.execute("INSERT INTO t VALUES ($1, $2)", &[u, &(n as i32)])
            .unwrap();
    }
    // The server's text of each is uuidkit's text: it received the same 16 bytes.
    for row in db.query("SELECT id, id::text, n FROM t", &[]).unwrap() {
        let (u, text, n): (Uuid, String, i32) = (row.get(0), row.get(1), row.get(2));
        assert_eq!(u, ids[n as usize]);
        assert_eq!(text, u.to_string());
    }
    // The server's order is uuidkit's Ord, over every version and many random ones.
    let more: Vec<Uuid> = (0..2000).map(|_| uuidkit::v4()).collect();
    for u in &more {
        db.execute("INSERT INTO t VALUES ($1, -1)", &[u]).unwrap();
    }
    let read: Vec<Uuid> = db
        .query("SELECT id FROM t ORDER BY id", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut sorted: Vec<Uuid> = ids.iter().chain(&more).copied().collect();
    sorted.sort();
    assert_eq!(read, sorted);
    for w in sorted.windows(2).take(200) {
        let lt: bool = db
            .query_one("SELECT $1::uuid < $2::uuid", &[&w[0], &w[1]])
            .unwrap()
            .get(0);
        assert!(lt, "{} < {}", w[0], w[1]);
    }

    // v6 and v7 inserted shuffled come back by ORDER BY in generation order.
    let (in_order, shuffled) = generated_in_order();
    db.batch_execute("CREATE TABLE g (id uuid PRIMARY KEY)")
        .unwrap();
    for u in &shuffled {
        db.execute("INSERT INTO g VALUES ($1)", &[u]).unwrap();
    }
    let v7: Vec<Uuid> = db
        .query(
            "SELECT id FROM g WHERE substr(id::text, 15, 1) = '7' ORDER BY id",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let v6: Vec<Uuid> = db
        .query(
            "SELECT id FROM g WHERE substr(id::text, 15, 1) = '6' ORDER BY id",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(v7, in_order[..500]);
    assert_eq!(v6, in_order[500..]);

    // uuid-ossp's v5 is uuidkit's v5, for every namespace and a few names.
    db.batch_execute("CREATE EXTENSION IF NOT EXISTS \"uuid-ossp\"")
        .unwrap();
    for ns in [
        namespace::DNS,
        namespace::URL,
        namespace::OID,
        namespace::X500,
    ] {
        for name in [
            "",
            "example.com",
            "www.example.com/ü",
            "a much longer name than any before it",
        ] {
            let theirs: Uuid = db
                .query_one("SELECT uuid_generate_v5($1, $2)", &[&ns, &name])
                .unwrap()
                .get(0);
            assert_eq!(theirs, uuidkit::v5(&ns, name.as_bytes()), "{ns} {name:?}");
            let md5: Uuid = db
                .query_one("SELECT uuid_generate_v3($1, $2)", &[&ns, &name])
                .unwrap()
                .get(0);
            assert_eq!(md5, uuidkit::v3(&ns, name.as_bytes()), "{ns} {name:?}");
        }
    }

    // Only uuid columns are accepted: reading text as a Uuid is a type error, not a panic.
    let err = db
        .query_one("SELECT 'not a uuid'::text", &[])
        .unwrap()
        .try_get::<_, Uuid>(0)
        .unwrap_err();
    assert!(
        err.to_string().contains("uuid") || error_chain(&err).contains("Uuid"),
        "{}",
        error_chain(&err)
    );
    // A value of the wrong length is a decode error naming its bytes.
    let err = <Uuid as postgres_types::FromSql>::from_sql(&postgres_types::Type::UUID, &[0xab; 15])
        .unwrap_err();
    assert!(err.to_string().contains("15-byte value 0xabab"), "{err}");
}

#[test]
fn sqlx_against_the_server() {
    let Some(pg) = Postgres::start("sqlx") else {
        return;
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use sqlx::Connection;
        let mut db = sqlx::PgConnection::connect(&pg.url()).await.unwrap();
        sqlx::query("CREATE TABLE t (id uuid PRIMARY KEY)")
            .execute(&mut db)
            .await
            .unwrap();
        let ids = every_version();
        for u in &ids {
            sqlx::query("INSERT INTO t VALUES ($1)")
                .bind(u)
                .execute(&mut db)
                .await
                .unwrap();
        }
        let read: Vec<(Uuid, String)> =
            sqlx::query_as("SELECT id, id::text AS text FROM t ORDER BY id")
                .fetch_all(&mut db)
                .await
                .unwrap();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(read.iter().map(|r| r.0).collect::<Vec<_>>(), sorted);
        assert!(read.iter().all(|(u, text)| u.to_string() == *text));
        // Arrays of UUIDs too.
        let (arr,): (Vec<Uuid>,) = sqlx::query_as("SELECT $1::uuid[]")
            .bind(&ids)
            .fetch_one(&mut db)
            .await
            .unwrap();
        assert_eq!(arr, ids);

        let (in_order, shuffled) = generated_in_order();
        sqlx::query("CREATE TABLE g (id uuid PRIMARY KEY)")
            .execute(&mut db)
            .await
            .unwrap();
        for u in &shuffled {
            sqlx::query("INSERT INTO g VALUES ($1)")
                .bind(u)
                .execute(&mut db)
                .await
                .unwrap();
        }
        let v7: Vec<(Uuid,)> =
            sqlx::query_as("SELECT id FROM g WHERE substr(id::text, 15, 1) = '7' ORDER BY id")
                .fetch_all(&mut db)
                .await
                .unwrap();
        assert_eq!(
            v7.into_iter().map(|r| r.0).collect::<Vec<_>>(),
            in_order[..500]
        );

        let err = sqlx::query_as::<_, (Uuid,)>("SELECT 'x'::text")
            .fetch_one(&mut db)
            .await
            .unwrap_err();
        assert!(matches!(err, sqlx::Error::ColumnDecode { .. }), "{err:?}");
    });
}

mod diesel_schema {
    diesel::table! {
        t (id) {
            id -> Uuid,
            n -> Integer,
        }
    }
}

#[test]
fn diesel_against_the_server() {
    use diesel::prelude::*;
    use diesel_schema::t;

    let Some(pg) = Postgres::start("diesel") else {
        return;
    };
    let mut db = PgConnection::establish(&pg.url()).unwrap();
    diesel::sql_query("CREATE TABLE t (id uuid PRIMARY KEY, n int NOT NULL)")
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
        .filter(t::id.eq(ids[8]))
        .select(t::n)
        .first(&mut db)
        .unwrap();
    assert_eq!(n, 8);
    let (in_order, shuffled) = generated_in_order();
    for (i, u) in shuffled.iter().enumerate() {
        diesel::insert_into(t::table)
            .values((t::id.eq(u), t::n.eq(1000 + i as i32)))
            .execute(&mut db)
            .unwrap();
    }
    let all: Vec<Uuid> = t::table
        .select(t::id)
        .filter(t::n.ge(1000))
        .order(t::id)
        .load(&mut db)
        .unwrap();
    let v7: Vec<Uuid> = all
        .iter()
        .copied()
        .filter(|u| u.version_number() == 7)
        .collect();
    assert_eq!(v7, in_order[..500]);
}
