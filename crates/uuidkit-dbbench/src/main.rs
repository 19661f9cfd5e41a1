//! `uuidkit-dbbench`: how each kind of primary key inserts into PostgreSQL and SQLite —
//! an integer sequence, v1, v4, v6, v7 (each RFC 9562 §6.2 method) and time-based v8 —
//! measured as rows per second over time, table and index size, index leaf density, and
//! WAL (full-page images) or bytes written.
//!
//! ```sh
//! uuidkit-dbbench --engine postgres,sqlite --rows 5000000 --connections 1,4 --out docs/dbbench
//! ```
//!
//! Writes `DIR/results.csv` (header: `engine,key,rows,connections,seconds,rows_per_sec,
//! table_bytes,index_bytes,leaf_density,wal_bytes,fpi`; a figure an engine cannot give
//! is empty), `DIR/results.md` (the table it prints) and `DIR/chart.svg`.

mod keys;
mod pg;
mod report;
mod run;
mod sqlite;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use keys::Key;

/// Insert locality of every UUID version against integer keys, in PostgreSQL and SQLite.
#[derive(Debug, Parser)]
#[command(name = "uuidkit-dbbench", version)]
struct Args {
    /// The engines: postgres, sqlite, or both (comma-separated). SQLite is measured
    /// twice: a rowid table with a unique index on the key, and a WITHOUT ROWID table.
    #[arg(long, value_name = "ENGINES", value_parser = parse_engines)]
    engine: Engines,
    /// Rows to insert per key kind.
    #[arg(long, value_name = "N")]
    rows: u64,
    /// Key kinds, comma-separated: serial, v1, v4, v6, v7 (all three methods),
    /// v7-counter, v7-random, v7-precision, v8.
    #[arg(long, value_name = "LIST", default_value = "serial,v1,v4,v6,v7,v8", value_parser = parse_key_list)]
    keys: KeyList,
    /// Connections inserting at once, comma-separated to run several (1,4).
    #[arg(long, value_name = "C", default_value = "1", value_delimiter = ',')]
    connections: Vec<usize>,
    /// PostgreSQL connection string (libpq key=value form); default: from PGHOST,
    /// PGPORT, PGUSER, PGDATABASE, PGPASSWORD, else the local socket.
    #[arg(long, value_name = "CONNINFO")]
    postgres: Option<String>,
    /// The SQLite database file to create (and remove after each run); default
    /// DIR/bench.sqlite.
    #[arg(long, value_name = "PATH")]
    sqlite: Option<PathBuf>,
    /// Where to write results.csv, results.md and chart.svg.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

#[derive(Clone, Debug)]
struct KeyList(Vec<Key>);

fn parse_key_list(s: &str) -> Result<KeyList, String> {
    keys::parse_keys(s).map(KeyList)
}

#[derive(Clone, Debug, Default)]
struct Engines {
    postgres: bool,
    sqlite: bool,
}

fn parse_engines(s: &str) -> Result<Engines, String> {
    let mut e = Engines::default();
    for w in s.split(',').map(str::trim) {
        match w {
            "postgres" => e.postgres = true,
            "sqlite" => e.sqlite = true,
            _ => {
                return Err(format!(
                    "unknown engine '{w}' (expected postgres or sqlite)"
                ));
            }
        }
    }
    Ok(e)
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("uuidkit-dbbench: {e}");
            ExitCode::from(1)
        }
    }
}

fn run(a: &Args) -> Result<(), String> {
    if a.rows == 0 {
        return Err("--rows must be at least 1".into());
    }
    if a.connections.contains(&0) {
        return Err("--connections must be at least 1".into());
    }
    std::fs::create_dir_all(&a.out).map_err(|e| format!("creating {}: {e}", a.out.display()))?;
    let pg_info = pg::conninfo(a.postgres.as_deref());
    if a.engine.postgres {
        // Fail before any work when the server cannot be reached.
        pg::connect(&pg_info)?;
    }
    let sqlite_path = a
        .sqlite
        .clone()
        .unwrap_or_else(|| a.out.join("bench.sqlite"));
    let mut results = Vec::new();
    for &conns in &a.connections {
        for &key in &a.keys.0 {
            if a.engine.postgres {
                results.push(pg::run(&pg_info, key, a.rows, conns)?);
            }
            if a.engine.sqlite {
                for layout in sqlite::Layout::ALL {
                    results.push(sqlite::run(&sqlite_path, layout, key, a.rows, conns)?);
                }
            }
        }
    }
    results.sort_by_key(|r| (r.engine.clone(), r.connections));
    let write = |name: &str, text: &str| {
        let p = a.out.join(name);
        std::fs::write(&p, text).map_err(|e| format!("writing {}: {e}", p.display()))
    };
    write("results.csv", &report::csv(&results))?;
    let table = report::table(&results);
    write("results.md", &table)?;
    report::chart(&results, &a.out.join("chart.svg"))?;
    print!("{table}");
    Ok(())
}
