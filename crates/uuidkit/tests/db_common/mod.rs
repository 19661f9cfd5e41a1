//! What the database tests share: a UUID of every version, and a PostgreSQL server of
//! their own.

#![allow(dead_code)] // each test file uses a part

use std::path::{Path, PathBuf};
use std::process::Command;

use uuidkit::{Uuid, Version, namespace};

/// Nil, Max, and one UUID of each version 1 to 8 (v8 both time-based and SHA-256).
pub fn every_version() -> Vec<Uuid> {
    vec![
        Uuid::NIL,
        Uuid::MAX,
        uuidkit::v1(),
        uuidkit::v1().with_version(Version::V2),
        uuidkit::v3(&namespace::DNS, b"example.com"),
        uuidkit::v4(),
        uuidkit::v5(&namespace::DNS, b"example.com"),
        uuidkit::v6(),
        uuidkit::v7(),
        uuidkit::v8(),
        uuidkit::v8_sha256(&namespace::DNS, b"example.com"),
    ]
}

/// An error and every error below it, as one line: drivers wrap ours in their own.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        out.push_str(": ");
        out.push_str(&s.to_string());
        next = s.source();
    }
    out
}

const PG_BIN: &str = "/usr/lib/postgresql/15/bin";

/// A PostgreSQL 15 server in a fresh directory, listening only on a Unix socket in that
/// directory, with `trust` authentication for the `postgres` role; stopped and removed
/// on drop. As root, it runs as the `postgres` user (PostgreSQL refuses to run as root).
/// `None`, with a message, where PostgreSQL 15 is not installed.
pub struct Postgres {
    dir: PathBuf,
    as_postgres: bool,
}

impl Postgres {
    pub fn start(name: &str) -> Option<Postgres> {
        if !Path::new(PG_BIN).join("initdb").exists() {
            eprintln!("PostgreSQL 15 is not installed ({PG_BIN}): skipping");
            return None;
        }
        let dir = std::env::temp_dir().join(format!("uuidkit-pg-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let as_postgres = uuidkit_is_root();
        if as_postgres {
            let ok = Command::new("chown")
                .arg("postgres:postgres")
                .arg(&dir)
                .status()
                .unwrap();
            assert!(ok.success(), "chown {}", dir.display());
        }
        let pg = Postgres { dir, as_postgres };
        let data = pg.dir.join("data");
        pg.run(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        let opts = format!(
            "-k {} -c listen_addresses='' -c fsync=off",
            pg.dir.display()
        );
        pg.run(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-o",
                &opts,
                "-l",
                pg.dir.join("log").to_str().unwrap(),
                "-w",
                "start",
            ],
        );
        Some(pg)
    }

    fn run(&self, program: &str, args: &[&str]) {
        let path = Path::new(PG_BIN).join(program);
        let out = if self.as_postgres {
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(&path)
                .args(args)
                .output()
        } else {
            Command::new(&path).args(args).output()
        }
        .unwrap();
        assert!(
            out.status.success(),
            "{program} {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The socket directory, as a libpq `host`.
    pub fn host(&self) -> &Path {
        &self.dir
    }

    /// A `postgres`/`tokio-postgres` connection string.
    pub fn conninfo(&self) -> String {
        format!("host={} user=postgres dbname=postgres", self.dir.display())
    }

    /// A URL for sqlx and diesel (the socket directory percent-encoded as the host).
    pub fn url(&self) -> String {
        let host: String = self
            .dir
            .to_str()
            .unwrap()
            .bytes()
            .map(|b| {
                if b == b'/' {
                    "%2F".to_string()
                } else {
                    (b as char).to_string()
                }
            })
            .collect();
        format!("postgresql://postgres@{host}/postgres")
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        let path = Path::new(PG_BIN).join("pg_ctl");
        let args = ["-D", data.to_str().unwrap(), "-m", "immediate", "stop"];
        let _ = if self.as_postgres {
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(&path)
                .args(args)
                .output()
        } else {
            Command::new(&path).args(args).output()
        };
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn uuidkit_is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.starts_with(b"0\n"))
        .unwrap_or(false)
}
