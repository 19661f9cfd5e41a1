//! README.md's command examples, run: every ```` ```console ```` block of README.md is a
//! list of commands, each a line starting with `$ `, followed by the output README shows
//! for it. Each command runs in `sh` with the `uuidkit` built for these tests first on
//! `PATH`, in an empty directory with a `HOME` of its own (so `gen`'s default state file
//! is the test's), and must exit 0 and print what README shows:
//!
//! - exactly, by default (RFC 9562's vectors, `inspect`, `format`, `check`'s message);
//! - in shape, when the block is preceded by `<!-- output: shape -->`: as many lines, each
//!   as long, with the same punctuation where README has punctuation and letters or
//!   digits where it has them, and in every UUID README shows, the same version digit and
//!   variant (for generated UUIDs, which differ on every run).
//!
//! A block preceded by a comment starting `<!-- no-run` (a daemon, root, PostgreSQL) is
//! not run. A command of a block that is run must name `uuidkit`.

use std::path::{Path, PathBuf};
use std::process::Command;

const README: &str = include_str!("../../../README.md");

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    Exact,
    Shape,
    NoRun,
}

#[derive(Debug)]
struct Example {
    /// The line of README.md the command is on (1-based).
    line: usize,
    command: String,
    output: Vec<String>,
    mode: Mode,
}

/// Every command of every console block, with the output README shows for it.
fn examples(readme: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut marker: Option<&str> = None;
    let mut block: Option<Mode> = None;
    // Whether the open block has had a command yet.
    let mut has_command = false;
    for (i, line) in readme.lines().enumerate() {
        let line_no = i + 1;
        match block {
            None => {
                let t = line.trim();
                if t.starts_with("<!--") {
                    marker = Some(t);
                } else if t == "```console" {
                    let mode = match marker {
                        Some(m) if m.starts_with("<!-- no-run") => Mode::NoRun,
                        Some(m) if m.starts_with("<!-- output: shape") => Mode::Shape,
                        _ => Mode::Exact,
                    };
                    block = Some(mode);
                    has_command = false;
                    marker = None;
                } else if !t.is_empty() {
                    // A marker applies to the block right after it (blank lines aside).
                    marker = None;
                }
            }
            Some(mode) => {
                if line.trim_start().starts_with("```") {
                    block = None;
                } else if let Some(cmd) = line.strip_prefix("$ ") {
                    has_command = true;
                    out.push(Example {
                        line: line_no,
                        command: cmd.to_string(),
                        output: Vec::new(),
                        mode,
                    });
                } else {
                    assert!(
                        has_command,
                        "README.md:{line_no}: output before any `$ ` command of its block"
                    );
                    let last = out.last_mut().expect("a command of this block");
                    debug_assert_eq!(last.mode, mode);
                    last.output.push(line.to_string());
                }
            }
        }
    }
    assert!(block.is_none(), "README.md: a console block is not closed");
    out
}

/// Where each UUID in hyphenated form starts, in a line of ASCII text.
fn uuid_starts(s: &[u8]) -> Vec<usize> {
    let is_uuid = |t: &[u8]| {
        t.len() == 36
            && t.iter().enumerate().all(|(i, &c)| match i {
                8 | 13 | 18 | 23 => c == b'-',
                _ => c.is_ascii_hexdigit(),
            })
    };
    (0..s.len().saturating_sub(35))
        .filter(|&i| is_uuid(&s[i..i + 36]))
        .collect()
}

/// Whether `actual` has the shape of `expected` (see the module's doc).
fn same_shape(expected: &str, actual: &str) -> Result<(), String> {
    let (e, a) = (expected.as_bytes(), actual.as_bytes());
    if e.len() != a.len() {
        return Err(format!("{} characters, README shows {}", a.len(), e.len()));
    }
    for (i, (&x, &y)) in e.iter().zip(a).enumerate() {
        let ok = if x.is_ascii_alphanumeric() {
            y.is_ascii_alphanumeric()
        } else {
            x == y
        };
        if !ok {
            return Err(format!(
                "byte {i} is {:?}, README has {:?}",
                y as char, x as char
            ));
        }
    }
    for i in uuid_starts(e) {
        let (x, y) = (&e[i..i + 36], &a[i..i + 36]);
        if !uuid_starts(y).contains(&0) {
            return Err(format!("no UUID at byte {i}"));
        }
        if !x[14].eq_ignore_ascii_case(&y[14]) {
            return Err(format!(
                "version {}, README shows {}",
                y[14] as char, x[14] as char
            ));
        }
        let variant = |c: u8| u8::from_str_radix(&(c as char).to_string(), 16).unwrap() >> 2;
        if variant(x[19]) != variant(y[19]) {
            return Err(format!(
                "variant digit {}, README shows {}",
                y[19] as char, x[19] as char
            ));
        }
        let upper = |t: &[u8]| t.iter().any(u8::is_ascii_uppercase);
        let lower = |t: &[u8]| t.iter().any(u8::is_ascii_lowercase);
        if (upper(x) && lower(y)) || (lower(x) && upper(y)) {
            return Err("the UUID's case differs from README's".to_string());
        }
    }
    Ok(())
}

/// Runs one example; `Err` says what differs from README.
fn run(ex: &Example, bin_dir: &Path, home: &Path) -> Result<(), String> {
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg(&ex.command)
        .current_dir(home)
        .env("PATH", path)
        .env("HOME", home)
        .env_remove("XDG_STATE_HOME")
        .env_remove("UUIDKIT_STATE")
        .env_remove("UUIDKIT_DAEMON")
        .env_remove("UUIDKIT_NODE")
        .output()
        .map_err(|e| format!("cannot run sh: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{} (stderr: {})", out.status, stderr.trim()));
    }
    let actual: Vec<&str> = stdout.lines().collect();
    if actual.len() != ex.output.len() {
        return Err(format!(
            "{} lines of output, README shows {}:\n{stdout}",
            actual.len(),
            ex.output.len()
        ));
    }
    for (n, (e, a)) in ex.output.iter().zip(&actual).enumerate() {
        let r = match ex.mode {
            Mode::Exact if e != a => Err(format!("got {a:?}, README shows {e:?}")),
            Mode::Shape => same_shape(e, a),
            _ => Ok(()),
        };
        r.map_err(|why| format!("output line {}: {why}", n + 1))?;
    }
    Ok(())
}

/// Runs every runnable command of `text` (the file `name`), at least `min` of them.
fn run_examples(name: &str, text: &str, min: usize) {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_uuidkit"));
    let bin_dir = bin.parent().unwrap();
    let home = std::env::temp_dir().join(format!(
        "uuidkit-readme-test-{}-{}",
        std::process::id(),
        name.replace('/', "-")
    ));
    std::fs::create_dir_all(&home).unwrap();

    let all = examples(text);
    let to_run: Vec<&Example> = all.iter().filter(|e| e.mode != Mode::NoRun).collect();
    // A marker or fence typo must not quietly leave the file untested.
    assert!(
        to_run.len() >= min,
        "only {} runnable commands found in {name}",
        to_run.len()
    );
    let mut failures = Vec::new();
    for ex in &to_run {
        if !ex.command.contains("uuidkit") {
            failures.push(format!(
                "{name}:{}: `{}` does not run uuidkit (mark its block <!-- no-run: why -->)",
                ex.line, ex.command
            ));
            continue;
        }
        if let Err(why) = run(ex, bin_dir, &home) {
            failures.push(format!("{name}:{}: `{}`: {why}", ex.line, ex.command));
        }
    }
    let _ = std::fs::remove_dir_all(&home);
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn readme_command_examples_run_and_print_what_readme_shows() {
    assert!(examples(README).iter().any(|e| e.mode == Mode::Shape));
    run_examples("README.md", README, 10);
}

/// docs/fleet.md's `uuidkit collisions` example, which moved there from README.
#[test]
fn fleet_doc_command_examples_run_and_print_what_it_shows() {
    run_examples("docs/fleet.md", include_str!("../../../docs/fleet.md"), 1);
}

#[test]
fn the_parser_reads_markers_commands_and_outputs() {
    let text = "\
<!-- no-run: needs root -->
```console
$ uuidkitd &
```

<!-- output: shape -->

```console
$ uuidkit gen v7 -n 2
017f22e2-79b0-7cc3-98c4-dc0c0c07398f
017f22e2-79b0-7cc3-98c4-dc0c0c07398e
$ uuidkit gen v4
```
Some text.
```console
$ uuidkit inspect x
a
```
";
    let ex = examples(text);
    let got: Vec<(usize, &str, usize, Mode)> = ex
        .iter()
        .map(|e| (e.line, e.command.as_str(), e.output.len(), e.mode))
        .collect();
    assert_eq!(
        got,
        [
            (3, "uuidkitd &", 0, Mode::NoRun),
            (9, "uuidkit gen v7 -n 2", 2, Mode::Shape),
            (12, "uuidkit gen v4", 0, Mode::Shape),
            (16, "uuidkit inspect x", 1, Mode::Exact),
        ]
    );
}

#[test]
fn shapes_compare_version_variant_case_and_punctuation() {
    let v7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";
    assert!(same_shape(v7, "01a21970-7f89-765b-ba6c-74b8318322fa").is_ok());
    // Another version, another variant, a shorter line, a missing hyphen, upper case.
    assert!(same_shape(v7, "01a21970-7f89-465b-ba6c-74b8318322fa").is_err());
    assert!(same_shape(v7, "01a21970-7f89-765b-ca6c-74b8318322fa").is_err());
    assert!(same_shape(v7, "01a21970-7f89-765b-ba6c-74b8318322f").is_err());
    assert!(same_shape(v7, "01a21970-7f89-765b-ba6cx74b8318322fa").is_err());
    assert!(same_shape(v7, "01A21970-7F89-765B-BA6C-74B8318322FA").is_err());
    let urn = "urn:uuid:C41355CE-C2CF-40A0-8213-909F30D7572F";
    assert!(same_shape(urn, "urn:uuid:0AA1B2C3-D4E5-4F60-9213-909F30D7572F").is_ok());
    assert!(same_shape(urn, "urn:uuid:0aa1b2c3-d4e5-4f60-9213-909f30d7572f").is_err());
    assert!(same_shape("01M8CQ0ZYWEG7S3Q5MZ65074KC", "01M8CQ0ZYWEG7S3Q5MZ65074KD").is_ok());
}
