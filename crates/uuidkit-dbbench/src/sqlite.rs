//! SQLite: each key kind into a fresh database file in WAL mode, twice: a rowid table
//! whose UUID column has a unique index (`sqlite-rowid`), and a `WITHOUT ROWID` table
//! clustered on the key (`sqlite-without-rowid`). Then the file's size, the key B-tree's
//! size and leaf density (the `dbstat` table), and the bytes SQLite wrote.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use rusqlite::{Connection, ToSql, params_from_iter};

use crate::keys::Key;
use crate::run::{self, Inserter, Outcome, Sizes};

/// The two table layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Rowid,
    WithoutRowid,
}

impl Layout {
    pub const ALL: [Layout; 2] = [Layout::Rowid, Layout::WithoutRowid];

    pub fn engine(self) -> &'static str {
        match self {
            Layout::Rowid => "sqlite-rowid",
            Layout::WithoutRowid => "sqlite-without-rowid",
        }
    }
}

fn open(path: &Path) -> Result<Connection, String> {
    let c = Connection::open(path).map_err(|e| format!("opening {}: {e}", path.display()))?;
    c.busy_timeout(std::time::Duration::from_secs(120))
        .map_err(|e| e.to_string())?;
    c.pragma_update(None, "journal_mode", "WAL")
        .map_err(|e| e.to_string())?;
    c.pragma_update(None, "synchronous", "NORMAL")
        .map_err(|e| e.to_string())?;
    Ok(c)
}

/// Bytes this process has written with `write(2)` so far (`wchar` in `/proc/self/io`).
fn bytes_written() -> Option<u64> {
    let io = std::fs::read_to_string("/proc/self/io").ok()?;
    io.lines()
        .find_map(|l| l.strip_prefix("wchar: "))
        .and_then(|v| v.trim().parse().ok())
}

pub fn run(
    path: &Path,
    layout: Layout,
    key: Key,
    rows: u64,
    connections: usize,
) -> Result<Outcome, String> {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(with_suffix(path, suffix));
    }
    let admin = open(path)?;
    let create = match (layout, key) {
        (Layout::Rowid, Key::Serial) => {
            "CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"
        }
        (Layout::Rowid, _) => {
            "CREATE TABLE t (rid INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE, n INTEGER NOT NULL)"
        }
        (Layout::WithoutRowid, Key::Serial) => {
            "CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID"
        }
        (Layout::WithoutRowid, _) => {
            "CREATE TABLE t (id BLOB PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID"
        }
    };
    admin
        .execute_batch(create)
        .map_err(|e| format!("{create}: {e}"))?;
    let written0 = bytes_written();

    // WITHOUT ROWID has no rowid to count for it: the serial keys come from here.
    let serial = Arc::new(AtomicI64::new(1));
    let mut inserters: Vec<Inserter> = Vec::new();
    for _ in 0..connections {
        let c = open(path)?;
        let mut source = key.source();
        let serial = serial.clone();
        let explicit_serial = layout == Layout::WithoutRowid && key == Key::Serial;
        inserters.push(Box::new(move |first, count| {
            let mut values: Vec<Box<dyn ToSql>> = Vec::with_capacity(2 * count as usize);
            for n in first..first + count {
                match &mut source {
                    Some(s) => values.push(Box::new(s.next())),
                    None if explicit_serial => {
                        values.push(Box::new(serial.fetch_add(1, Ordering::Relaxed)))
                    }
                    None => {}
                }
                values.push(Box::new(n as i64));
            }
            let with_id = source.is_some() || explicit_serial;
            let sql = statement(with_id, count);
            let err = |e: rusqlite::Error| format!("insert into SQLite: {e}");
            c.execute_batch("BEGIN IMMEDIATE").map_err(err)?;
            let mut stmt = c.prepare_cached(&sql).map_err(err)?;
            stmt.execute(params_from_iter(values.iter())).map_err(err)?;
            c.execute_batch("COMMIT").map_err(err)
        }));
    }
    let label = format!("{} {key} ×{connections}", layout.engine());
    let (seconds, curve) = run::insert_all(&label, rows, inserters)?;

    admin
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .map_err(|e| e.to_string())?;
    let written = bytes_written().zip(written0).map(|(a, b)| a - b);
    let file = std::fs::metadata(path).map(|m| m.len()).ok();
    // The key's B-tree: the unique index of a rowid table, the table itself otherwise.
    let tree = match (layout, key) {
        (Layout::Rowid, Key::Serial) | (Layout::WithoutRowid, _) => "t",
        (Layout::Rowid, _) => "sqlite_autoindex_t_1",
    };
    let stat = admin.query_row(
        "SELECT sum(pgsize), sum(CASE WHEN pagetype = 'leaf' THEN pgsize END), \
         sum(CASE WHEN pagetype = 'leaf' THEN unused END) FROM dbstat WHERE name = ?1",
        [tree],
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        },
    );
    let (index_bytes, leaf_density) = match stat {
        Ok((all, leaf, unused)) if leaf > 0 => {
            (Some(all as u64), Some(1.0 - unused as f64 / leaf as f64))
        }
        _ => (None, None),
    };
    drop(admin);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(with_suffix(path, suffix));
    }
    Ok(Outcome {
        engine: layout.engine().into(),
        key,
        rows,
        connections,
        seconds,
        sizes: Sizes {
            table_bytes: file,
            index_bytes,
            leaf_density,
            wal_bytes: written,
            fpi: None,
        },
        curve,
    })
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

fn statement(with_id: bool, rows: u64) -> String {
    let one = if with_id { "(?, ?)" } else { "(?)" };
    let cols = if with_id { "(id, n)" } else { "(n)" };
    let values = vec![one; rows as usize].join(",");
    format!("INSERT INTO t {cols} VALUES {values}")
}
