//! `uuid-peer`: what `uuidkit gen v4|v7 -n N` and `uuidkit check` do, written the plain
//! way on the `uuid` crate, as the baseline of the command's performance table
//! (docs/performance.md):
//!
//! ```text
//! uuid-peer gen v4 -n N    # N x Uuid::new_v4(), one a line
//! uuid-peer gen v7 -n N    # N x Uuid::now_v7()
//! uuid-peer check < FILE   # BufRead::read_line + Uuid::try_parse per line
//! ```
//!
//! Output goes through a 64 KiB `BufWriter`, each UUID encoded with
//! `hyphenated().encode_lower`. `check` exits 1 at the end if any line is not a UUID
//! (a line end `\n` or `\r\n` removed), naming each such line on standard error, as
//! `uuidkit check` does; 2 on a usage error.

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use uuid::Uuid;

const USAGE: &str = "usage: uuid-peer gen v4|v7 -n N | uuid-peer check < FILE";

fn gen_lines(version: &str, count: u64) -> io::Result<()> {
    let make: fn() -> Uuid = match version {
        "v4" => Uuid::new_v4,
        _ => Uuid::now_v7,
    };
    let mut out = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut buf = Uuid::encode_buffer();
    for _ in 0..count {
        let text = make().hyphenated().encode_lower(&mut buf);
        out.write_all(text.as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// Whether every line of standard input is a UUID.
fn check() -> io::Result<bool> {
    let mut input = io::stdin().lock();
    let mut errors = BufWriter::new(io::stderr().lock());
    let mut line = String::new();
    let mut number = 0u64;
    let mut ok = true;
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        number += 1;
        let text = line.strip_suffix('\n').unwrap_or(&line);
        let text = text.strip_suffix('\r').unwrap_or(text);
        if let Err(e) = Uuid::try_parse(text) {
            ok = false;
            writeln!(
                errors,
                "uuid-peer: invalid UUID {text:?} (line {number}): {e}"
            )?;
        }
    }
    errors.flush()?;
    Ok(ok)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["gen", v @ ("v4" | "v7"), "-n", n] => match n.parse() {
            Ok(count) => gen_lines(v, count).map(|()| true),
            Err(_) => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        },
        ["check"] => check(),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("uuid-peer: {e}");
            ExitCode::from(1)
        }
    }
}
