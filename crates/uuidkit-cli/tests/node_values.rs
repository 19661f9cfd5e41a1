//! End-to-end tests of node values: `--node VALUE` and `UUIDKIT_NODE`.

use crate::command_common;

use assert_cmd::Command;
use command_common::uuidkit;

/// `gen v1 ARGS`: the node field (last 12 hex digits) of the one UUID written.
fn node_of(c: &mut Command) -> String {
    let out = c.assert().success().get_output().stdout.clone();
    let out = String::from_utf8(out).unwrap();
    let uuid = out.trim_end();
    assert_eq!(uuid.len(), 36, "{out:?}");
    uuid[24..].to_string()
}

/// Runs `uuidkit ARGS`, expects the usage error status 2, returns stderr.
fn usage_error(c: &mut Command) -> String {
    let out = c.assert().code(2).get_output().stderr.clone();
    let err = String::from_utf8(out).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn twelve_digit_node_is_hex() {
    let node = node_of(uuidkit().args(["gen", "v1", "--node", "123456789012"]));
    assert_eq!(node, "123456789012");
    let node = node_of(
        uuidkit()
            .env("UUIDKIT_NODE", "123456789012")
            .args(["gen", "v6"]),
    );
    assert_eq!(node, "123456789012");
}

#[test]
fn documented_node_forms_still_work() {
    for value in [
        "9F:6B:DE:CE:D8:46",
        "9f6bdeced846",
        "0x9F6BDECED846",
        "9f-6b-de-ce-d8-46",
    ] {
        let node = node_of(uuidkit().args(["gen", "v1", "--node", value]));
        assert_eq!(node, "9f6bdeced846", "{value}");
    }
    let node = node_of(uuidkit().args(["gen", "v1", "--node", "0x1"]));
    assert_eq!(node, "000000000001");
}

#[test]
fn decimal_node_is_refused_with_its_hex_spelling() {
    // 11 digits used to be decimal and 12 hex; now every digit string is hex, and one of
    // the wrong length is an error that gives the hex spelling of the decimal reading.
    let err = usage_error(uuidkit().args(["gen", "v1", "--node", "12345678901"]));
    assert!(err.contains("--node"), "{err}");
    assert!(err.contains("at byte 11, expected a hex digit"), "{err}");
    assert!(err.contains("decimal numbers are not accepted"), "{err}");
    assert!(err.contains("12345678901 in hex is 0x2dfdc1c35"), "{err}");
    assert!(!err.contains("decimal digit"), "{err}");
    let err = usage_error(uuidkit().args(["gen", "v1", "--node", "175285648414790"]));
    assert!(
        err.contains("at byte 12, expected the end of the input"),
        "{err}"
    );
    assert!(err.contains("in hex is 0x9f6bdeced846"), "{err}");
}

#[test]
fn short_last_octet_names_the_octet_and_length() {
    let err = usage_error(uuidkit().args(["gen", "v1", "--node", "01:23:45:67:89:a"]));
    assert!(
        err.contains(
            "at byte 16, expected the second hex digit of octet 6 (an octet is 2 hex digits), \
             found the end of the input"
        ),
        "{err}"
    );
    assert!(err.contains("17 bytes; this text is 16"), "{err}");
    assert!(!err.contains("decimal digit"), "{err}");
}

#[test]
fn five_octets_ask_for_the_sixth() {
    let err = usage_error(uuidkit().args(["gen", "v1", "--node", "01:02:03:04:05"]));
    assert!(
        err.contains(
            "at byte 14, expected ':' after octet 5, as after octet 1, found the end of the input"
        ),
        "{err}"
    );
    assert!(err.contains("six octets"), "{err}");
    assert!(err.contains("this text is 14"), "{err}");
    assert!(!err.contains("decimal digit"), "{err}");
}

#[test]
fn bare_0x_asks_for_hex_digits() {
    let err = usage_error(uuidkit().args(["gen", "v1", "--node", "0x"]));
    assert!(
        err.contains("at byte 2, expected a hex digit after 0x, found the end of the input"),
        "{err}"
    );
    assert!(
        err.contains("0x is followed by 1 to 12 hex digits"),
        "{err}"
    );
    assert!(!err.contains("decimal digit"), "{err}");
}

#[test]
fn bogus_env_value_is_indexed_within_the_value() {
    let err = usage_error(uuidkit().env("UUIDKIT_NODE", "bogus").args(["gen", "v1"]));
    assert!(
        err.contains(
            "invalid UUIDKIT_NODE value \"bogus\": at byte 0, expected static, random, mac, \
             hash or a node ID"
        ),
        "{err}"
    );
    assert!(!err.contains("UUIDKIT_NODE=bogus"), "{err}");
    assert!(err.contains("--node overrides UUIDKIT_NODE"), "{err}");
    // An error deeper in the value counts from the value's first byte too.
    let err = usage_error(uuidkit().env("UUIDKIT_NODE", "0x12g").args(["gen", "v6"]));
    assert!(
        err.contains(
            "invalid UUIDKIT_NODE value \"0x12g\": at byte 4, expected a hex digit after 0x"
        ),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn non_utf8_env_value_is_a_usage_error() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    for (bytes, shown, at) in [
        (&b"\xff\xfe"[..], r#""\xFF\xFE""#, 0),
        (b"mac\xff", r#""mac\xFF""#, 3),
    ] {
        let err = usage_error(
            uuidkit()
                .env("UUIDKIT_NODE", OsStr::from_bytes(bytes))
                .args(["gen", "v1"]),
        );
        assert!(
            err.contains(&format!(
                "invalid UUIDKIT_NODE value {shown}: at byte {at}, expected UTF-8 text"
            )),
            "{err}"
        );
        assert!(err.contains("--node overrides UUIDKIT_NODE"), "{err}");
        // --node still overrides a variable that is not UTF-8.
        uuidkit()
            .env("UUIDKIT_NODE", OsStr::from_bytes(bytes))
            .args(["gen", "v1", "--node", "random"])
            .assert()
            .success();
    }
}

#[test]
fn help_states_the_hex_rule() {
    let out = uuidkit()
        .args(["gen", "--help"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let help = String::from_utf8(out).unwrap();
    assert!(!help.contains("decimal number < 2^48"), "{help}");
    assert!(help.contains("123456789012 is 0x123456789012"), "{help}");
    assert!(help.contains("decimal numbers are not accepted"), "{help}");
}
