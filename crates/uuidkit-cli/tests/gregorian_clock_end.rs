//! The system clock past the end of the 60-bit Gregorian timestamp (5236-03-31): `gen
//! v1`, `gen v6` and `gen v2` exit 1 with the message that says so, rather than wrap to
//! 1582, with and without a state file. `--time` past the end is a usage error (exit 2,
//! tested in cli.rs); this is the clock itself, set with libfaketime, whose years past
//! 2038 are checked first.

use crate::state_common;

use state_common::{TempDir, faked, libfaketime, run, stderr, uuidkit, uuids};
use uuidkit::time::GregorianTimestamp;

const PAST_THE_END: &str = "@5236-04-01 00:00:00";

/// `gen VERSION -n 3` with `extra`, under `FAKETIME=faketime`.
fn gen_at(version: &str, extra: &[&str], faketime: &str) -> std::process::Output {
    let mut c = uuidkit();
    c.args(["gen", version, "-n", "3"]).args(extra);
    if version == "v2" {
        c.args(["--local-id", "1"]);
    }
    faked(&mut c, faketime);
    run(&mut c)
}

#[test]
fn libfaketime_reaches_the_year_5236() {
    // Without this, the test below could pass on a clock that never got there.
    let out = gen_at("v7", &["--no-state"], PAST_THE_END);
    assert!(out.status.success(), "{}", stderr(&out));
    let u = uuids(&out.stdout)[0];
    let time = u.timestamp().expect("v7").rfc3339().to_string();
    assert!(
        time.starts_with("5236-04-01T00:0"),
        "gen v7 under FAKETIME={PAST_THE_END} wrote {u} ({time}): does libfaketime ({}) \
         handle years past 2038?",
        libfaketime().display()
    );
    // Just before the end the Gregorian versions still work: what fails below is the
    // end of the field, not the faked clock.
    let out = gen_at("v6", &["--no-state"], "@5236-03-31 21:00:00");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(uuids(&out.stdout).len(), 3);
}

#[test]
fn a_clock_past_5236_ends_v1_v2_v6_with_exit_status_1() {
    let dir = TempDir::new("gregorian-clock-end");
    for version in ["v1", "v2", "v6"] {
        let state = dir.join(&format!("state-{version}"));
        let state_arg = state.to_str().unwrap();
        for extra in [&["--no-state"][..], &["--state", state_arg][..]] {
            let out = gen_at(version, extra, PAST_THE_END);
            let err = stderr(&out);
            assert_eq!(
                out.status.code(),
                Some(1),
                "gen {version} {extra:?} with the clock past 5236: {err}"
            );
            assert!(
                err.starts_with(
                    "uuidkit: the 60-bit Gregorian timestamp is used up to its last tick, \
                     5236-03-31T21:21:00.6846975Z: no later v1/v2/v6 UUID can be made (is \
                     the clock set past the year 5236?)"
                ),
                "gen {version} {extra:?}: {err}"
            );
            assert!(!err.contains("panicked"), "{err}");
            // What was made before the end is written: at most the field's last tick,
            // never a timestamp wrapped to 1582. (v2 keeps only the top 28 bits of it.)
            let made = uuids(&out.stdout);
            assert!(made.len() < 3, "gen {version} {extra:?}: {made:?}");
            for u in made {
                let ticks = u.timestamp().expect("a Gregorian UUID").raw();
                let expected = match version {
                    "v2" => GregorianTimestamp::MAX.ticks() & !0xffff_ffff,
                    _ => GregorianTimestamp::MAX.ticks(),
                };
                assert_eq!(ticks, expected, "gen {version} {extra:?}: {u}");
            }
        }
    }
}
