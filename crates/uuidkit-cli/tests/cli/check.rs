//! `uuidkit check`: every valid form, every malformed one reported by its byte, from
//! arguments and standard input, and long inputs (quoted as excerpts, read in bounded
//! memory, reported in few writes).

use super::*;

// ---------------------------------------------------------------- check

#[test]
fn check_accepts_every_valid_form_in_both_cases() {
    let h = A1_V1;
    let simple = h.replace('-', "");
    let forms = [
        h.to_string(),
        simple.clone(),
        format!("{{{h}}}"),
        format!("urn:uuid:{h}"),
        "urn:UUID:c232ab00-9414-11ec-b3c8-9f6bdeced846".to_string(),
        "Urn:Uuid:C232ab00-9414-11ec-B3C8-9f6bdeced846".to_string(),
    ];
    let mut all: Vec<String> = Vec::new();
    for f in &forms {
        all.push(f.clone());
        all.push(f.to_uppercase());
        all.push(f.to_lowercase());
    }
    let args: Vec<&str> = std::iter::once("check")
        .chain(all.iter().map(String::as_str))
        .collect();
    uuidkit()
        .args(&args)
        .assert()
        .success()
        .stdout("")
        .stderr("");
    uuidkit().args(["check", NIL, MAX]).assert().success();
}

#[test]
fn check_rejects_malformed_with_byte_position() {
    let h = A1_V1;
    let simple = h.replace('-', "");
    let bad: Vec<(String, usize)> = vec![
        (String::new(), 0),
        (format!(" {h}"), 0),
        (format!("{h} "), 36),
        (format!("\t{h}"), 0),
        (format!("0x{simple}"), 1),
        (format!("{{{simple}}}"), 9),
        (format!("urn:uuid:{{{h}}}"), 9),
        ("c232ab00-9414-11ec-b3c8-9f6bdeced84\u{e9}".to_string(), 35),
        ("\u{ff10}232ab00-9414-11ec-b3c8-9f6bdeced846".to_string(), 0),
        (h[..35].to_string(), 35),
        (format!("{h}0"), 36),
        (simple[..31].to_string(), 31),
        (format!("{simple}0"), 32),
        ("c232ab00_9414-11ec-b3c8-9f6bdeced846".to_string(), 8),
        ("c232ab00-9414-11ec-b3c89f6bdeced846".to_string(), 23),
        ("c232-ab00-9414-11ec-b3c8-9f6bdeced846".to_string(), 4),
        ("c232ab00-9414-11ec-b3c8-9f6bdeced84g".to_string(), 35),
        (format!("{{{h}"), 37),
        (format!("{{{h}}}}}"), 38),
        (format!("urn:uid:{h}"), 5),
        ("urn:uuid:".to_string(), 9),
        ("xyz".to_string(), 0),
        ("{}".to_string(), 1),
    ];
    for (input, at) in &bad {
        let err = fails(&["check", "--", input], 1);
        assert!(err.contains(&format!("at byte {at}:")), "{input:?}: {err}");
        assert!(err.contains("(argument 1)"), "{input:?}: {err}");
        assert!(err.contains("expected"), "{input:?}: {err}");
    }
}

#[test]
fn check_reports_every_bad_input() {
    let err = fails(&["check", A1_V1, "xyz", A6_V7, "", "0x00"], 1);
    assert!(
        err.contains("uuidkit: invalid UUID \"xyz\" (argument 2): at byte 0: expected"),
        "{err}"
    );
    assert!(err.contains("\"\" (argument 4): at byte 0"), "{err}");
    assert!(err.contains("\"0x00\" (argument 5): at byte 1"), "{err}");
    assert_eq!(err.lines().count(), 3, "{err}");
}

#[test]
fn check_reads_stdin_lines() {
    uuidkit()
        .arg("check")
        .write_stdin(format!("{A1_V1}\n{A6_V7}\r\n{NIL}"))
        .assert()
        .success()
        .stderr("");
    uuidkit().arg("check").write_stdin("").assert().success();
    let out = uuidkit()
        .arg("check")
        .write_stdin(format!("{A1_V1}\r\n{A6_V7} \n\n{A6_V7}\r\r\nxyz\n{MAX}\n"))
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("(line 2): at byte 36"), "{err}");
    assert!(err.contains("\"\" (line 3): at byte 0"), "{err}");
    assert!(err.contains("(line 4): at byte 36"), "{err}");
    assert!(err.contains("\"xyz\" (line 5): at byte 0"), "{err}");
    assert_eq!(err.lines().count(), 4, "{err}");
}

#[test]
fn check_non_utf8_stdin_reports_the_byte() {
    let mut input = A1_V1.as_bytes().to_vec();
    input[10] = 0xff;
    input.push(b'\n');
    let out = uuidkit()
        .arg("check")
        .write_stdin(input)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("(line 1): at byte 10"), "{err}");
    assert!(err.contains("0xff"), "{err}");
    assert!(!err.to_lowercase().contains("utf-8"), "{err}");
}

#[test]
fn check_non_utf8_argument_reports_the_byte() {
    use std::os::unix::ffi::OsStrExt;
    let mut input = A1_V1.as_bytes().to_vec();
    input[3] = 0xfe;
    let out = uuidkit()
        .arg("check")
        .arg(std::ffi::OsStr::from_bytes(&input))
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("(argument 1): at byte 3"), "{err}");
}

// ---------------------------------------------------------------- long inputs

#[test]
fn check_long_line_is_quoted_as_an_excerpt_with_its_length() {
    let out = uuidkit()
        .arg("check")
        .write_stdin(vec![b'a'; 50_000_000])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.len() < 1024, "{} bytes: {}", err.len(), &err[..1024]);
    let a48 = "a".repeat(48);
    assert_eq!(
        err,
        format!(
            "uuidkit: invalid UUID \"{a48}\"… (line 1, 50000000 bytes): at byte 32: expected \
             the end of the input, found 'a' (the input is 50000000 bytes; a UUID is 32, 36, \
             38 or 45)\n"
        )
    );
}

/// With `--from`, a line longer than the encoding gets the same message whether it came
/// whole in one read or was cut (the last line, without its line end, is kept as its
/// first bytes), and that message names the byte at fault.
#[test]
fn check_from_an_encoding_reports_a_long_line_alike_however_read() {
    for (from, line) in [
        ("base32", "x".repeat(300)),
        (
            "base58",
            format!("1BihbxwwQ4NZZpKRH9JDCz{}", "0".repeat(300)),
        ),
    ] {
        let stderr = |input: String| {
            let out = uuidkit()
                .args(["check", "--from", from])
                .write_stdin(input)
                .assert()
                .code(1)
                .get_output()
                .clone();
            String::from_utf8(out.stderr).unwrap()
        };
        let whole = stderr(format!("{line}\n"));
        assert_eq!(stderr(line.clone()), whole, "{from}");
        assert!(whole.contains(": at byte "), "{from}: {whole}");
    }
}

#[test]
fn check_long_lines_between_valid_ones_keep_their_numbers_and_line_ends() {
    let long = format!("{A1_V1}{}", "0".repeat(200_000));
    let input = format!(
        "{A1_V1}\n{long}\r\n{A6_V7}\r\n{}\n{NIL}",
        "x".repeat(70_000)
    );
    let out = uuidkit()
        .arg("check")
        .write_stdin(input)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(
        err.contains("(line 2, 200036 bytes): at byte 36: expected the end of the input"),
        "{err}"
    );
    assert!(err.contains("the input is 200036 bytes"), "{err}");
    assert!(err.contains("(line 4, 70000 bytes): at byte 0:"), "{err}");
}

#[test]
fn check_long_argument_is_quoted_as_an_excerpt() {
    use std::os::unix::ffi::OsStrExt;
    let arg = vec![0xffu8; 100_000];
    let out = uuidkit()
        .arg("check")
        .arg(std::ffi::OsStr::from_bytes(&arg))
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.len() < 1024, "{} bytes", err.len());
    assert!(
        err.contains(&format!(
            "\"{}\"… (argument 1, 100000 bytes): at byte 0",
            "\\xff".repeat(48)
        )),
        "{err}"
    );
}

/// Reading a line longer than the memory allowed must not need to keep it: under a
/// 200 MB address-space limit, a 300 MB line is still reported (not an allocation
/// failure).
#[test]
fn check_reads_a_long_line_in_bounded_memory() {
    let (code, err) =
        sh("ulimit -v 200000 && head -c 300000000 /dev/zero | \"$0\" check; echo \"exit $?\" >&2");
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.ends_with(
            "(line 1, 300000000 bytes): at byte 0: expected a hex digit (0-9, a-f, \
                       A-F), found the control byte 0x00\nexit 1\n"
        ),
        "{err}"
    );
}

/// Runs `uuidkit ARGS` with `stdin` as its standard input and standard error in a file;
/// returns the exit status, the standard error and how many `write` calls the process
/// made (from /proc, read after it exits and before it is reaped).
#[cfg(target_os = "linux")]
fn writes_of(args: &[&str], stdin: &[u8]) -> (Option<i32>, String, u64) {
    use std::process::{Command as Std, Stdio};
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let name = format!("writes-{}-{}", std::process::id(), args.join("-"));
    let (input, errors) = (
        dir.join(format!("{name}.in")),
        dir.join(format!("{name}.err")),
    );
    std::fs::write(&input, stdin).unwrap();
    let mut child = Std::new(bin())
        .args(args)
        .stdin(std::fs::File::open(&input).unwrap())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&errors).unwrap())
        .spawn()
        .unwrap();
    let proc = std::path::PathBuf::from(format!("/proc/{}", child.id()));
    // Until it is reaped, an exited process keeps its counters.
    loop {
        let stat = std::fs::read_to_string(proc.join("stat")).unwrap();
        let state = stat.rsplit(')').next().unwrap().trim_start();
        if state.starts_with('Z') {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let io = std::fs::read_to_string(proc.join("io")).unwrap();
    let syscw = io
        .lines()
        .find_map(|l| l.strip_prefix("syscw: "))
        .unwrap()
        .parse()
        .unwrap();
    let status = child.wait().unwrap();
    let err = std::fs::read_to_string(&errors).unwrap();
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&errors);
    (status.code(), err, syscw)
}

/// Error messages are buffered: 100,000 invalid lines are 100,000 messages in a few
/// hundred writes, not one write or more each.
#[cfg(target_os = "linux")]
#[test]
fn check_buffers_its_error_messages() {
    let (code, err, writes) = writes_of(&["check"], &[b'\n'; 100_000]);
    assert_eq!(code, Some(1));
    assert_eq!(err.lines().count(), 100_000);
    assert!(
        err.lines()
            .last()
            .unwrap()
            .starts_with("uuidkit: invalid UUID \"\" (line 100000): at byte 0"),
        "{}",
        err.lines().last().unwrap()
    );
    assert!(writes < 1_000, "{writes} writes");
    // One long non-UTF-8 line: one short message, a write or two.
    let mut line = vec![0xfeu8; 100_000];
    line.push(b'\n');
    let (code, err, writes) = writes_of(&["check"], &line);
    assert_eq!(code, Some(1));
    assert!(err.len() < 1024, "{err}");
    assert!(writes < 10, "{writes} writes");
}
