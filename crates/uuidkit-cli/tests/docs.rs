//! `uuidkit completions` and `uuidkit man`, generated from the command's own definitions.

use std::process::{Command, Output};

fn uuidkit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_uuidkit"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn every_shell_gets_a_script_that_knows_the_subcommands() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = uuidkit(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).unwrap();
        for word in ["gen", "inspect", "check", "convert", "no-state"] {
            assert!(script.contains(word), "{shell} script lacks {word}");
        }
    }
}

#[test]
fn the_bash_script_is_valid_bash() {
    let out = uuidkit(&["completions", "bash"]);
    let path = std::env::temp_dir().join(format!("uuidkit-completion-{}.bash", std::process::id()));
    std::fs::write(&path, &out.stdout).unwrap();
    let check = Command::new("bash").arg("-n").arg(&path).output().unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let out = uuidkit(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tcsh"));
}

#[test]
fn man_prints_uuidkit_1_and_writes_a_page_per_subcommand() {
    let out = uuidkit(&["man"]);
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH uuidkit 1"), "{page}");

    let dir = std::env::temp_dir().join(format!("uuidkit-man-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = uuidkit(&["man", "--dir", dir.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in [
        "uuidkit",
        "uuidkit-gen",
        "uuidkit-inspect",
        "uuidkit-state-show",
    ] {
        let text = std::fs::read_to_string(dir.join(format!("{name}.1"))).unwrap();
        assert!(text.contains(&format!(".TH {name} 1")), "{name}");
    }
    // The gen page carries gen's long help, options included.
    let gen_page = std::fs::read_to_string(dir.join("uuidkit-gen.1")).unwrap();
    assert!(gen_page.contains("\\-\\-no\\-state") || gen_page.contains("--no-state"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn man_into_an_unwritable_place_is_an_error() {
    let out = uuidkit(&["man", "--dir", "/proc/uuidkit-man"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/proc/uuidkit-man"), "{err}");
}

/// Every "see NAME below" in `gen --help` names a section (a line `NAME:`) that follows.
#[test]
fn gen_help_names_only_sections_it_has() {
    let out = uuidkit(&["gen", "--help"]);
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    let mut seen = 0;
    for (at, _) in help.match_indices("(see ") {
        let rest = &help[at + "(see ".len()..];
        let Some(name) = rest
            .split(" below")
            .next()
            .filter(|_| rest.contains(" below"))
        else {
            continue;
        };
        if !name.chars().all(|c| c.is_ascii_uppercase() || c == ' ') {
            continue;
        }
        seen += 1;
        let heading = format!("\n{name}:\n");
        assert!(
            help[at..].contains(&heading),
            "gen --help says \"see {name} below\" but has no section {name}:"
        );
    }
    assert!(seen >= 1, "no \"see … below\" found in gen --help");
}
