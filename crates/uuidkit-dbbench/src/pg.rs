//! PostgreSQL: each key kind into a fresh table (`bigserial` or `uuid` primary key and a
//! `bigint`), then its size, its index's leaf density (`pgstattuple`) and the WAL it
//! wrote (bytes, and full-page images from `pg_stat_wal`).

use postgres::types::ToSql;
use postgres::{Client, NoTls};

use crate::keys::Key;
use crate::run::{self, BATCH, Inserter, Outcome, Sizes};

/// Where to connect: `--postgres`, else the `PG*` variables libpq reads.
pub fn conninfo(arg: Option<&str>) -> String {
    if let Some(a) = arg {
        return a.to_string();
    }
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let mut parts = vec![format!(
        "host={}",
        var("PGHOST").unwrap_or_else(|| "/var/run/postgresql".into())
    )];
    if let Some(p) = var("PGPORT") {
        parts.push(format!("port={p}"));
    }
    let user = var("PGUSER")
        .or_else(|| var("USER"))
        .unwrap_or_else(|| "postgres".into());
    parts.push(format!("user={user}"));
    parts.push(format!(
        "dbname={}",
        var("PGDATABASE").unwrap_or_else(|| user.clone())
    ));
    if let Some(p) = var("PGPASSWORD") {
        parts.push(format!("password={p}"));
    }
    parts.join(" ")
}

pub fn connect(info: &str) -> Result<Client, String> {
    Client::connect(info, NoTls).map_err(|e| {
        let mut why = e.to_string();
        let mut next = std::error::Error::source(&e);
        while let Some(s) = next {
            why = format!("{why}: {s}");
            next = s.source();
        }
        format!(
            "cannot connect to PostgreSQL at '{}': {why}\n\
             Start a server (as root: pg_ctlcluster 15 main start) and name it with \
             --postgres 'host=/var/run/postgresql user=postgres' or the PG* variables \
             (PGHOST, PGPORT, PGUSER, PGDATABASE).",
            without_password(info)
        )
    })
}

fn without_password(info: &str) -> String {
    info.split(' ')
        .map(|p| {
            if p.starts_with("password=") {
                "password=…"
            } else {
                p
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

const TABLE: &str = "uuidkit_dbbench";

pub fn run(info: &str, key: Key, rows: u64, connections: usize) -> Result<Outcome, String> {
    let mut admin = connect(info)?;
    let sql = |c: &mut Client, q: &str| c.batch_execute(q).map_err(|e| format!("{q}: {e}"));
    sql(&mut admin, &format!("DROP TABLE IF EXISTS {TABLE}"))?;
    let id = if key == Key::Serial {
        "bigserial"
    } else {
        "uuid"
    };
    sql(
        &mut admin,
        &format!("CREATE TABLE {TABLE} (id {id} PRIMARY KEY, n bigint NOT NULL)"),
    )?;
    // Stats start from a checkpoint, so that every run pays for its own full-page images.
    sql(&mut admin, "CHECKPOINT")?;
    let wal_at = |c: &mut Client| -> Result<(String, i64), String> {
        let r = c
            .query_one(
                "SELECT pg_current_wal_lsn()::text, (SELECT wal_fpi FROM pg_stat_wal)",
                &[],
            )
            .map_err(|e| format!("reading pg_stat_wal: {e}"))?;
        Ok((r.get(0), r.get(1)))
    };
    let (lsn0, fpi0) = wal_at(&mut admin)?;

    let mut inserters: Vec<Inserter> = Vec::new();
    for _ in 0..connections {
        let mut c = connect(info)?;
        let mut source = key.source();
        let full = c
            .prepare(&statement(key, BATCH))
            .map_err(|e| e.to_string())?;
        inserters.push(Box::new(move |first, count| {
            let ids: Vec<uuidkit::Uuid> = match &mut source {
                Some(s) => (0..count).map(|_| s.next()).collect(),
                None => Vec::new(),
            };
            let ns: Vec<i64> = (first..first + count).map(|n| n as i64).collect();
            let mut params: Vec<&(dyn ToSql + Sync)> = Vec::with_capacity(2 * count as usize);
            for i in 0..count as usize {
                if source.is_some() {
                    params.push(&ids[i]);
                }
                params.push(&ns[i]);
            }
            let r = if count == BATCH {
                c.execute(&full, &params)
            } else {
                c.execute(statement(key, count).as_str(), &params)
            };
            r.map(|_| ())
                .map_err(|e| format!("insert into PostgreSQL: {e}"))
        }));
    }
    let label = format!("postgres {key} ×{connections}");
    let (seconds, curve) = run::insert_all(&label, rows, inserters)?;

    // The inserting connections have closed, so their WAL statistics are in.
    let (lsn1, fpi1) = wal_at(&mut admin)?;
    let wal_bytes: i64 = admin
        .query_one(
            "SELECT pg_wal_lsn_diff($1::text::pg_lsn, $2::text::pg_lsn)::bigint",
            &[&lsn1, &lsn0],
        )
        .map_err(|e| e.to_string())?
        .get(0);
    let size =
        |c: &mut Client, q: &str| -> Option<i64> { c.query_one(q, &[]).ok().map(|r| r.get(0)) };
    let table_bytes = size(&mut admin, &format!("SELECT pg_relation_size('{TABLE}')"));
    let index_bytes = size(&mut admin, &format!("SELECT pg_indexes_size('{TABLE}')"));
    let leaf_density = admin
        .batch_execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
        .ok()
        .and_then(|()| {
            admin
                .query_one(
                    &format!("SELECT avg_leaf_density FROM pgstatindex('{TABLE}_pkey')"),
                    &[],
                )
                .ok()
        })
        .map(|r| r.get::<_, f64>(0) / 100.0);
    sql(&mut admin, &format!("DROP TABLE {TABLE}"))?;
    Ok(Outcome {
        engine: "postgres".into(),
        key,
        rows,
        connections,
        seconds,
        sizes: Sizes {
            table_bytes: table_bytes.map(|v| v as u64),
            index_bytes: index_bytes.map(|v| v as u64),
            leaf_density,
            wal_bytes: Some(wal_bytes as u64),
            fpi: Some((fpi1 - fpi0) as u64),
        },
        curve,
    })
}

fn statement(key: Key, rows: u64) -> String {
    let mut s = if key == Key::Serial {
        format!("INSERT INTO {TABLE} (n) VALUES ")
    } else {
        format!("INSERT INTO {TABLE} (id, n) VALUES ")
    };
    let mut p = 1;
    for i in 0..rows {
        if i > 0 {
            s.push(',');
        }
        if key == Key::Serial {
            s.push_str(&format!("(${p})"));
            p += 1;
        } else {
            s.push_str(&format!("(${}, ${})", p, p + 1));
            p += 2;
        }
    }
    s
}
