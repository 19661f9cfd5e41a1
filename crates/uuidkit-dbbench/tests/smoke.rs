//! The benchmark end to end at a small size, against a PostgreSQL 15 server started for
//! the test and SQLite: every output file written and well formed. The real runs (5
//! million rows a key kind and more) are in docs/databases.md, not here.

#[path = "../../uuidkit/tests/db_common/mod.rs"]
mod db_common;

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_uuidkit-dbbench");

#[test]
fn a_small_run_writes_csv_table_and_chart() {
    let Some(pg) = db_common::Postgres::start("dbbench") else {
        return;
    };
    let out = std::env::temp_dir().join(format!("uuidkit-dbbench-smoke-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let run = Command::new(BIN)
        .args([
            "--engine",
            "postgres,sqlite",
            "--rows",
            "3000",
            "--keys",
            "serial,v4,v7-counter,v8",
        ])
        .args([
            "--connections",
            "1,2",
            "--postgres",
            &pg.conninfo(),
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "engine,key,rows,connections,seconds,rows_per_sec,table_bytes,index_bytes,leaf_density,wal_bytes,fpi"
        )
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // 3 engines (postgres, sqlite-rowid, sqlite-without-rowid) × 4 keys × 2 connection counts.
    assert_eq!(rows.len(), 24);
    for r in &rows {
        assert_eq!(r.len(), 11, "{r:?}");
        assert_eq!(r[2], "3000");
        assert!(r[5].parse::<f64>().unwrap() > 0.0, "{r:?}");
        assert!(r[6].parse::<u64>().unwrap() > 0, "table bytes {r:?}");
        let density: f64 = r[8].parse().unwrap();
        assert!((0.0..=1.0).contains(&density), "{r:?}");
        // PostgreSQL gives full-page images; SQLite cannot, and leaves the field empty.
        assert_eq!(r[10].is_empty(), r[0] != "postgres", "{r:?}");
    }
    let table = String::from_utf8(run.stdout).unwrap();
    assert_eq!(
        table,
        std::fs::read_to_string(out.join("results.md")).unwrap()
    );
    assert!(table.contains("| postgres | v7-counter | 2 |"), "{table}");
    let svg = std::fs::read_to_string(out.join("chart.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    for key in ["serial", "v4", "v7-counter", "v8"] {
        assert!(svg.contains(key), "the chart's legend lacks {key}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn an_unreachable_server_says_where_and_how_to_start_one() {
    let out = std::env::temp_dir().join(format!("uuidkit-dbbench-none-{}", std::process::id()));
    let run = Command::new(BIN)
        .args([
            "--engine",
            "postgres",
            "--rows",
            "10",
            "--postgres",
            "host=/nonexistent user=postgres",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("host=/nonexistent") && err.contains("pg_ctlcluster"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_arguments_are_usage_errors() {
    for args in [
        &["--engine", "mysql", "--rows", "1", "--out", "/tmp/x"][..],
        &[
            "--engine", "sqlite", "--rows", "1", "--keys", "v9", "--out", "/tmp/x",
        ][..],
        &["--engine", "sqlite", "--rows", "-5", "--out", "/tmp/x"][..],
    ] {
        let run = Command::new(BIN).args(args).output().unwrap();
        assert_eq!(run.status.code(), Some(2), "{args:?}");
    }
}
