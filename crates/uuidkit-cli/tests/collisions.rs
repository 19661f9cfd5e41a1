//! `uuidkit collisions`: the library's figures for a fleet, as text and JSON, and usage
//! errors that name the flag at fault.

use std::process::{Command, Output};

use serde_json::Value;

fn uuidkit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_uuidkit"))
        .arg("collisions")
        .args(args)
        .output()
        .unwrap()
}

fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = uuidkit(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a / b - 1.0).abs() < 1e-6
}

#[test]
fn v4_is_the_birthday_bound_for_the_readme_fleets() {
    // n = H·R·Y·31,557,600; E = n(n − 1)/2 / 2^122.
    for (h, r, y) in [(10.0, 1e3, 1.0), (1e3, 1e6, 10.0), (1e6, 100.0, 10.0)] {
        let (hs, rs, ys) = (h.to_string(), r.to_string(), y.to_string());
        let j = json(&[
            "--version",
            "v4",
            "--hosts",
            &hs,
            "--rate",
            &rs,
            "--years",
            &ys,
        ]);
        let n: f64 = h * r * y * 31_557_600.0;
        let e = n * (n - 1.0) / 2.0 / 2f64.powi(122);
        assert!(close(j["expected_pairs"].as_f64().unwrap(), e), "{j}");
        assert!(
            close(j["probability"].as_f64().unwrap(), -(-e).exp_m1()),
            "{j}"
        );
        assert_eq!(j["hosts"].as_f64(), Some(h));
    }
}

#[test]
fn text_output_is_scientific_and_never_rounds_a_tiny_probability_to_zero() {
    let out = uuidkit(&[
        "--version",
        "v4",
        "--hosts",
        "2",
        "--rate",
        "1",
        "--years",
        "0.001",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().find(|l| l.starts_with("probability")).unwrap();
    let p: f64 = line.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(p > 0.0 && p < 1e-20, "{text}");
    assert!(line.contains("e-"), "{text}");
}

#[test]
fn huge_fleets_give_one_not_nan() {
    let j = json(&[
        "--version",
        "v1",
        "--node",
        "random",
        "--hosts",
        "1e9",
        "--rate",
        "1e7",
        "--years",
        "100",
    ]);
    assert_eq!(j["probability"].as_f64(), Some(1.0));
    assert!(j["expected_pairs"].as_f64().unwrap().is_finite());
}

#[test]
fn assigned_machine_ids_take_v7_to_zero_and_hashed_ones_do_not() {
    let base = [
        "--version",
        "v7",
        "--hosts",
        "1000",
        "--rate",
        "1e6",
        "--years",
        "10",
    ];
    let plain = json(&base);
    assert!(plain["expected_pairs"].as_f64().unwrap() > 1.0, "{plain}");
    let mut assigned = base.to_vec();
    assigned.extend(["--machine-id-bits", "10"]);
    assert_eq!(json(&assigned)["probability"].as_f64(), Some(0.0));
    let mut hashed = assigned.clone();
    hashed.extend(["--machine-id", "hash"]);
    assert_eq!(json(&hashed)["expected_pairs"], plain["expected_pairs"]);
}

#[test]
fn every_mode_answers() {
    let fleet = ["--hosts", "100", "--rate", "1000", "--years", "1"];
    let modes: &[&[&str]] = &[
        &["--version", "v4"],
        &["--version", "v1", "--node", "static"],
        &["--version", "v6", "--node", "random"],
        &["--version", "v1", "--node", "hash"],
        &["--version", "v1", "--node", "mac"],
        &["--version", "v7", "--method", "counter"],
        &["--version", "v7", "--method", "random"],
        &["--version", "v7", "--method", "precision"],
        &["--version", "v8"],
        &["--version", "v8", "--layout", "draft-v7-us"],
        &[
            "--version",
            "v8",
            "--layout",
            "draft-v8-60",
            "--machine-id-bits",
            "8",
        ],
    ];
    for m in modes {
        let mut args = m.to_vec();
        args.extend(fleet);
        let j = json(&args);
        let p = j["probability"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&p), "{m:?}: {j}");
    }
}

#[test]
fn bad_input_is_a_usage_error_naming_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--version",
                "v4",
                "--hosts",
                "-1",
                "--rate",
                "1",
                "--years",
                "1",
            ],
            "--hosts",
        ),
        (
            &[
                "--version",
                "v4",
                "--hosts",
                "1",
                "--rate",
                "fast",
                "--years",
                "1",
            ],
            "--rate",
        ),
        (
            &[
                "--version",
                "v4",
                "--hosts",
                "1",
                "--rate",
                "1",
                "--years",
                "inf",
            ],
            "--years",
        ),
        (
            &[
                "--version",
                "v4",
                "--method",
                "counter",
                "--hosts",
                "1",
                "--rate",
                "1",
                "--years",
                "1",
            ],
            "--method",
        ),
        (
            &[
                "--version",
                "v7",
                "--node",
                "mac",
                "--hosts",
                "1",
                "--rate",
                "1",
                "--years",
                "1",
            ],
            "--node",
        ),
        (
            &[
                "--version",
                "v9",
                "--hosts",
                "1",
                "--rate",
                "1",
                "--years",
                "1",
            ],
            "--version",
        ),
        (
            &[
                "--version",
                "v1",
                "--hosts",
                "2",
                "--rate",
                "2e7",
                "--years",
                "1",
            ],
            "10,000,000",
        ),
        (
            &[
                "--version",
                "v7",
                "--machine-id-bits",
                "4",
                "--hosts",
                "17",
                "--rate",
                "1",
                "--years",
                "1",
            ],
            "machine IDs",
        ),
    ];
    for (args, needle) in cases {
        let out = uuidkit(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

/// `--machine-id leased` gives 0 only where the fleet makes the UUIDs counted: a version
/// it stamps, a width it leases, a rate one holder keeps up, years inside the layout's
/// range. Elsewhere it is an error saying which, not a 0 for UUIDs nobody makes.
#[test]
fn leased_ids_refuse_figures_the_fleet_cannot_make() {
    let run = |args: &[&str]| {
        let mut all = vec!["--machine-id", "leased", "--hosts", "10"];
        all.extend(args);
        uuidkit(&all)
    };
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--version",
                "v8",
                "--machine-id-bits",
                "8",
                "--rate",
                "1",
                "--years",
                "1",
            ],
            "not b1",
        ),
        (
            &[
                "--version",
                "v7",
                "--machine-id-bits",
                "32",
                "--rate",
                "1",
                "--years",
                "1",
            ],
            "1 to 31 bits, not 32",
        ),
        (
            &[
                "--version",
                "v8",
                "--layout",
                "draft-v8-32",
                "--machine-id-bits",
                "8",
                "--rate",
                "1e6",
                "--years",
                "1",
            ],
            "at most 4096 UUIDs a second",
        ),
        (
            &[
                "--version",
                "v8",
                "--layout",
                "draft-v8-32",
                "--machine-id-bits",
                "8",
                "--rate",
                "1",
                "--years",
                "100",
            ],
            "2106-02-07T06:28:15Z",
        ),
        (
            &[
                "--version",
                "v7",
                "--machine-id-bits",
                "8",
                "--rate",
                "1",
                "--years",
                "9000",
            ],
            "10889-08-02T05:31:50Z",
        ),
        (
            &[
                "--version",
                "v7",
                "--machine-id-bits",
                "8",
                "--rate",
                "1e30",
                "--years",
                "1",
            ],
            "at most 2.199e15 UUIDs a second",
        ),
    ];
    for (args, says) in cases {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("leased from etcd cannot give these figures"),
            "{args:?}: {err}"
        );
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // Inside every limit it is still 0.
    let j = json(&[
        "--version",
        "v8",
        "--layout",
        "draft-v8-32",
        "--machine-id-bits",
        "8",
        "--machine-id",
        "leased",
        "--hosts",
        "10",
        "--rate",
        "4096",
        "--years",
        "50",
    ]);
    assert_eq!(j["expected_pairs"].as_f64(), Some(0.0), "{j}");
}
