//! The compact encodings against an independent implementation: Python's `base64`
//! module for base64url, and Python's big integers for base32 (Crockford), base58 and
//! base62, written out from the rules in `uuidkit::encoding`. Both directions: Python's
//! texts decode here to the same UUIDs. Skipped (with a message) where no `python3` is
//! installed; CI installs it.

use std::io::Write;
use std::process::{Command, Stdio};

use uuidkit::Uuid;
use uuidkit::encoding::Encoding;

const ENCODER: &str = r#"
import base64, sys, uuid

def number(v, alphabet, n):
    out = ""
    for _ in range(n):
        v, d = divmod(v, len(alphabet))
        out = alphabet[d] + out
    assert v == 0
    return out

for line in sys.stdin:
    u = uuid.UUID(line.strip())
    print(" ".join([
        str(u),
        number(u.int, "0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26),
        number(u.int, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz", 22),
        number(u.int, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 22),
        base64.urlsafe_b64encode(u.bytes).decode().rstrip("="),
    ]))
"#;

#[test]
fn python_encodes_every_form_as_uuidkit_does() {
    let mut uuids = vec![
        Uuid::NIL,
        Uuid::MAX,
        Uuid::from_u128(1),
        Uuid::from_u128(u128::MAX - 1),
    ];
    // Every power of two and its neighbours: each digit boundary of each base.
    for bit in 0..128 {
        let p = 1u128 << bit;
        uuids.extend([p - 1, p, p + 1].map(Uuid::from_u128));
    }
    uuids.extend((0..2000).map(|i| {
        if i % 2 == 0 {
            uuidkit::v4()
        } else {
            uuidkit::v7()
        }
    }));
    let input: String = uuids.iter().map(|u| format!("{u}\n")).collect();

    let child = Command::new("python3")
        .args(["-c", ENCODER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let Ok(mut child) = child else {
        eprintln!("python3 is not installed: skipping the cross-check");
        return;
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python3 failed");
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), uuids.len());
    for (u, line) in uuids.iter().zip(lines) {
        let cols: Vec<&str> = line.split(' ').collect();
        assert_eq!(cols[0], u.to_string());
        for (e, python) in Encoding::ALL.into_iter().zip(&cols[1..]) {
            assert_eq!(e.encode_to_string(u), *python, "{e} of {u}");
            assert_eq!(e.decode(python.as_bytes()), Ok(*u), "{e} {python}");
        }
    }
}
