//! Where each of `gen`'s optional flags applies: one table, [`GEN_FLAGS`], that both
//! the refusals (`generate/checks.rs`: a flag given where it does not apply is a usage
//! error) and `gen --help` (the note after each flag's help, and the FLAGS BY VERSION
//! section) are made from, so that what the help promises is what the command does.
//!
//! The table says which versions a flag is for and, for v8, which of its kinds
//! ([`V8Kind`]): a v8 UUID does not say its layout, so the flags choose it, and some
//! flags make sense in one layout only. Refusals that are about two flags together
//! (`--shards` with `--time`, `--machine-id etcd` with `--time`) are not the
//! table's: they stay with the checks.

use clap::Arg;
use clap::ValueEnum;
use uuidkit::layout::Layout;

use super::gen_args::{GEN_AFTER_LONG_HELP, GenArgs, GenVersion};
use super::values::FormatArg;

use GenVersion::*;

/// What `gen v8` writes, decided by its flags: raw fields when any `--custom-*` is
/// given, else the layout `--layout` names, else b2 with a name and b1 without.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum V8Kind {
    /// Layout b1: RFC 9562 Appendix B.1, time-based.
    B1,
    /// Layout b2: RFC 9562 Appendix B.2, SHA-256 name-based.
    B2,
    /// One of the 2021 draft's layouts (`--layout draft-*`).
    Draft,
    /// Raw fields (`--custom-a/-b/-c`).
    Raw,
}

impl V8Kind {
    /// Every kind, in the order the help names them.
    pub const ALL: [V8Kind; 4] = [V8Kind::B1, V8Kind::B2, V8Kind::Draft, V8Kind::Raw];

    /// The kind of v8 the command line asks for.
    pub fn of(a: &GenArgs) -> V8Kind {
        if a.custom_a.is_some() || a.custom_b.is_some() || a.custom_c.is_some() {
            return V8Kind::Raw;
        }
        match a.layout {
            Some(Layout::B1) => V8Kind::B1,
            Some(Layout::B2) => V8Kind::B2,
            Some(_) => V8Kind::Draft,
            None if a.namespace.is_some() || a.has_name() => V8Kind::B2,
            None => V8Kind::B1,
        }
    }

    /// The kind as the help names it.
    pub fn words(self) -> &'static str {
        match self {
            V8Kind::B1 => "b1",
            V8Kind::B2 => "b2",
            V8Kind::Draft => "draft layouts",
            V8Kind::Raw => "raw fields",
        }
    }
}

/// One optional flag of `gen` and where it applies.
#[derive(Debug)]
pub struct GenFlag {
    /// Its long name with the dashes, as messages and the help name it.
    pub long: &'static str,
    /// The flag as the refusals by v8 kind name it: `--name` for each of the three ways
    /// to give a name, the long name for the others.
    pub family: &'static str,
    /// Whether the command line gave it (for the flags with a default: whether it is
    /// not at its default; those apply everywhere, so it is never asked).
    pub given: fn(&GenArgs) -> bool,
    /// The versions it applies to.
    pub versions: &'static [GenVersion],
    /// The kinds of v8 it applies to, where v8 is among `versions`.
    pub v8: &'static [V8Kind],
    /// The versions in words: the refusal says "it is for {words}", the help
    /// "[applies to: {words}]".
    pub words: &'static str,
}

impl GenFlag {
    /// Whether the flag applies to version `v` (of v8, to some kind).
    pub fn applies_to(&self, v: GenVersion) -> bool {
        self.versions.contains(&v)
    }

    /// Whether the flag applies to gen v8 of kind `k`.
    pub fn applies_to_v8(&self, k: V8Kind) -> bool {
        self.applies_to(V8) && self.v8.contains(&k)
    }

    /// Whether it applies to every version and kind (then the help says nothing more).
    pub fn everywhere(&self) -> bool {
        self.versions.len() == GenVersion::value_variants().len() && self.v8 == V8Kind::ALL
    }

    /// The note after its help: the words, and the kinds of v8 where it is not all.
    pub fn note(&self) -> String {
        let mut note = format!("[applies to: {}", self.words);
        if self.applies_to(V8) && self.v8 != V8Kind::ALL {
            let kinds: Vec<_> = self.v8.iter().map(|k| k.words()).collect();
            note += &format!("; of v8: {}", kinds.join(", "));
        }
        note + "]"
    }
}

const ALL: &[GenVersion] = &[V1, V2, V3, V4, V5, V6, V7, V8, Nil, Max];
const NAMED: &[GenVersion] = &[V3, V5, V8];
const TIMED: &[GenVersion] = &[V1, V2, V6, V7, V8];
const GREGORIAN: &[GenVersion] = &[V1, V2, V6];
const NO_V8: &[V8Kind] = &[];
const TIME_BASED_V8: &[V8Kind] = &[V8Kind::B1, V8Kind::Draft];

/// Every optional flag of `gen`, in the order the refusals look at them (the first
/// that does not apply is the one named).
pub const GEN_FLAGS: &[GenFlag] = &[
    GenFlag {
        long: "--name-hex",
        family: "--name",
        given: |a| a.name_hex.is_some(),
        versions: NAMED,
        v8: &[V8Kind::B2],
        words: "v3, v5 and v8",
    },
    GenFlag {
        long: "--name-file",
        family: "--name",
        given: |a| a.name_file.is_some(),
        versions: NAMED,
        v8: &[V8Kind::B2],
        words: "v3, v5 and v8",
    },
    GenFlag {
        long: "--layout",
        family: "--layout",
        given: |a| a.layout.is_some(),
        versions: &[V8],
        v8: &[V8Kind::B1, V8Kind::B2, V8Kind::Draft],
        words: "v8",
    },
    GenFlag {
        long: "--custom-a",
        family: "--custom-a",
        given: |a| a.custom_a.is_some(),
        versions: &[V8],
        v8: &[V8Kind::Raw],
        words: "v8",
    },
    GenFlag {
        long: "--custom-b",
        family: "--custom-b",
        given: |a| a.custom_b.is_some(),
        versions: &[V8],
        v8: &[V8Kind::Raw],
        words: "v8",
    },
    GenFlag {
        long: "--custom-c",
        family: "--custom-c",
        given: |a| a.custom_c.is_some(),
        versions: &[V8],
        v8: &[V8Kind::Raw],
        words: "v8",
    },
    GenFlag {
        long: "--shards",
        family: "--shards",
        given: |a| a.shards.is_some(),
        versions: &[V1],
        v8: NO_V8,
        words: "v1",
    },
    GenFlag {
        long: "--machine-id",
        family: "--machine-id",
        given: |a| a.machine_id.is_some(),
        versions: &[V7, V8],
        v8: &[V8Kind::Draft],
        words: "v7 and gen v8 --layout draft-*",
    },
    GenFlag {
        long: "--machine-id-bits",
        family: "--machine-id-bits",
        given: |a| a.machine_id_bits.is_some(),
        versions: &[V7, V8],
        v8: &[V8Kind::Draft],
        words: "v7 and gen v8 --layout draft-*",
    },
    GenFlag {
        long: "--etcd",
        family: "--machine-id",
        given: |a| a.etcd.is_some(),
        versions: &[V7, V8],
        v8: &[V8Kind::Draft],
        words: "v7 and gen v8 --layout draft-*",
    },
    GenFlag {
        long: "--fleet",
        family: "--machine-id",
        given: |a| a.fleet.is_some(),
        versions: &[V7, V8],
        v8: &[V8Kind::Draft],
        words: "v7 and gen v8 --layout draft-*",
    },
    GenFlag {
        long: "--lease-ttl",
        family: "--machine-id",
        given: |a| a.lease_ttl.is_some(),
        versions: &[V7, V8],
        v8: &[V8Kind::Draft],
        words: "v7 and gen v8 --layout draft-*",
    },
    GenFlag {
        long: "--claim-wait",
        family: "--machine-id",
        given: |a| a.claim_wait.is_some(),
        versions: &[V7, V8],
        v8: &[V8Kind::Draft],
        words: "v7 and gen v8 --layout draft-*",
    },
    GenFlag {
        long: "--fence-wait",
        family: "--machine-id",
        given: |a| a.fence_wait.is_some(),
        versions: &[V7, V8],
        v8: &[V8Kind::Draft],
        words: "v7 and gen v8 --layout draft-*",
    },
    GenFlag {
        long: "--namespace",
        family: "--namespace",
        given: |a| a.namespace.is_some(),
        versions: NAMED,
        v8: &[V8Kind::B2],
        words: "v3, v5 and v8",
    },
    GenFlag {
        long: "--name",
        family: "--name",
        given: |a| a.name.is_some(),
        versions: NAMED,
        v8: &[V8Kind::B2],
        words: "v3, v5 and v8",
    },
    GenFlag {
        long: "--time",
        family: "--time",
        given: |a| a.time.is_some(),
        versions: TIMED,
        v8: TIME_BASED_V8,
        words: "v1, v2, v6, v7 and v8",
    },
    GenFlag {
        long: "--clock-seq",
        family: "--clock-seq",
        given: |a| a.clock_seq.is_some(),
        versions: GREGORIAN,
        v8: NO_V8,
        words: "v1, v2 and v6",
    },
    GenFlag {
        long: "--node",
        family: "--node",
        given: |a| a.node.is_some(),
        versions: GREGORIAN,
        v8: NO_V8,
        words: "v1, v2 and v6",
    },
    GenFlag {
        long: "--method",
        family: "--method",
        given: |a| a.method.is_some(),
        versions: &[V7],
        v8: NO_V8,
        words: "v7",
    },
    GenFlag {
        long: "--domain",
        family: "--domain",
        given: |a| a.domain.is_some(),
        versions: &[V2],
        v8: NO_V8,
        words: "v2",
    },
    GenFlag {
        long: "--local-id",
        family: "--local-id",
        given: |a| a.local_id.is_some(),
        versions: &[V2],
        v8: NO_V8,
        words: "v2",
    },
    GenFlag {
        long: "--state",
        family: "--state",
        given: |a| a.state.is_some(),
        versions: TIMED,
        v8: TIME_BASED_V8,
        words: "the time-based versions v1, v2, v6, v7 and v8",
    },
    GenFlag {
        long: "--daemon",
        family: "--daemon",
        given: |a| a.daemon.is_some(),
        versions: &[V1, V2, V4, V6, V7, V8],
        v8: TIME_BASED_V8,
        words: "v4 and the time-based versions v1, v2, v6, v7 and v8",
    },
    GenFlag {
        long: "--count",
        family: "--count",
        given: |a| a.count != 1,
        versions: ALL,
        v8: &V8Kind::ALL,
        words: "every version",
    },
    GenFlag {
        long: "--format",
        family: "--format",
        given: |a| a.format != FormatArg::Hyphenated,
        versions: ALL,
        v8: &V8Kind::ALL,
        words: "every version",
    },
    GenFlag {
        long: "--upper",
        family: "--upper",
        given: |a| a.upper,
        versions: ALL,
        v8: &V8Kind::ALL,
        words: "every version",
    },
    GenFlag {
        long: "--no-state",
        family: "--no-state",
        given: |a| a.no_state,
        versions: ALL,
        v8: &V8Kind::ALL,
        words: "every version",
    },
];

/// Adds the table's note to the help of each flag that does not apply everywhere (for
/// clap's `Command::mut_args`, on the `gen` subcommand).
pub(super) fn annotate(arg: Arg) -> Arg {
    let long = arg.get_long().map(|l| format!("--{l}"));
    let Some(flag) = GEN_FLAGS.iter().find(|f| long.as_deref() == Some(f.long)) else {
        return arg;
    };
    if flag.everywhere() {
        return arg;
    }
    // `-h` gets the words after the line; `--help` the whole note on a line of its own.
    let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
    let long_help = arg
        .get_long_help()
        .map(ToString::to_string)
        .unwrap_or_else(|| help.clone());
    let short = format!("{help} [applies to: {}]", flag.words);
    arg.help(short)
        .long_help(format!("{long_help}\n{}", flag.note()))
}

/// The help after gen's flags: FLAGS BY VERSION from the table, then the rest.
pub(super) fn after_long_help() -> String {
    flags_by_version() + "\n" + GEN_AFTER_LONG_HELP
}

/// Width of the help's lines, and where the flags of FLAGS BY VERSION start.
const WIDTH: usize = 88;
const INDENT: usize = 11;

/// The FLAGS BY VERSION section of `gen --help`: for each version (those with the
/// same flags on one line), the flags that apply to it alone or to a few, and for v8
/// each flag with the kinds it is for; then the flags for every version.
pub fn flags_by_version() -> String {
    let restricted = || GEN_FLAGS.iter().filter(|f| !f.everywhere());
    let mut rows: Vec<(String, String)> = Vec::new();
    for &v in GenVersion::value_variants() {
        let flags: Vec<_> = restricted().filter(|f| f.applies_to(v)).collect();
        if flags.is_empty() {
            continue;
        }
        let text = if v == V8 {
            by_kind(&flags)
        } else {
            let longs: Vec<_> = flags.iter().map(|f| f.long).collect();
            longs.join(", ")
        };
        match rows.iter_mut().find(|(_, t)| *t == text) {
            Some((label, _)) => *label += &format!(", {}", v.name()),
            None => rows.push((v.name().to_string(), text)),
        }
    }
    let everywhere: Vec<_> = GEN_FLAGS
        .iter()
        .filter(|f| f.everywhere())
        .map(|f| f.long)
        .collect();
    rows.push(("all".to_string(), everywhere.join(", ")));
    let mut out = String::from("FLAGS BY VERSION:\n");
    for (label, text) in rows {
        out += &wrap(&format!("  {label:<width$}", width = INDENT - 2), &text);
    }
    out + "For v8, the parentheses name the layouts (or the raw fields) a flag is for; a\n\
           flag given where it does not apply is a usage error.\n"
}

/// v8's flags, those for the same kinds together: `--time, --state (b1, draft layouts)`.
fn by_kind(flags: &[&GenFlag]) -> String {
    let mut groups: Vec<(&[V8Kind], Vec<&str>)> = Vec::new();
    for f in flags {
        match groups.iter_mut().find(|(kinds, _)| *kinds == f.v8) {
            Some((_, longs)) => longs.push(f.long),
            None => groups.push((f.v8, vec![f.long])),
        }
    }
    let parts: Vec<_> = groups
        .iter()
        .map(|(kinds, longs)| {
            let kinds: Vec<_> = kinds.iter().map(|k| k.words()).collect();
            format!("{} ({})", longs.join(", "), kinds.join(", "))
        })
        .collect();
    parts.join("; ")
}

/// `text` after `label`, its words wrapped at [`WIDTH`] under the first.
fn wrap(label: &str, text: &str) -> String {
    let mut out = String::new();
    let mut line = label.to_string();
    if line.len() > INDENT {
        out += &line;
        out.push('\n');
        line = " ".repeat(INDENT);
    }
    let mut empty = true;
    for word in text.split(' ') {
        if !empty && line.len() + 1 + word.len() > WIDTH {
            out += &line;
            out.push('\n');
            line = " ".repeat(INDENT);
            empty = true;
        }
        if empty {
            line = format!("{line:<INDENT$}{word}");
        } else {
            line = format!("{line} {word}");
        }
        empty = false;
    }
    out + &line + "\n"
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;
    use crate::args::Cli;

    /// The words of one entry of FLAGS BY VERSION, without the punctuation between.
    fn words(text: &str) -> Vec<&str> {
        text.split([' ', ',', ';', '(', ')'])
            .filter(|w| !w.is_empty())
            .collect()
    }

    /// `gen --help` says what the table says: each flag's help ends in its note, and
    /// FLAGS BY VERSION lists for each version exactly the flags that apply to it (for
    /// v8 with the kinds), and under "all" those that apply everywhere.
    #[test]
    fn help_follows_the_table() {
        let cmd = Cli::command();
        let mut gen_cmd = cmd.find_subcommand("gen").expect("gen").clone();
        for f in GEN_FLAGS {
            let arg = gen_cmd
                .get_arguments()
                .find(|a| a.get_long() == f.long.strip_prefix("--"))
                .unwrap_or_else(|| panic!("{} is in the table, not in gen", f.long));
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            let long_help = arg
                .get_long_help()
                .map(ToString::to_string)
                .unwrap_or_default();
            if f.everywhere() {
                assert!(!help.contains("[applies to"), "{}: {help}", f.long);
            } else {
                assert!(
                    help.ends_with(&format!("[applies to: {}]", f.words)),
                    "{}: {help}",
                    f.long
                );
                assert!(long_help.ends_with(&f.note()), "{}: {long_help}", f.long);
            }
        }
        // Every optional flag of gen is in the table.
        for arg in gen_cmd.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            let known = ["random", "time-based", "help"].contains(&long)
                || GEN_FLAGS
                    .iter()
                    .any(|f| f.long.strip_prefix("--") == Some(long));
            assert!(known, "--{long} is not in the table");
        }

        let help = gen_cmd.render_long_help().to_string();
        let section = help
            .split_once("FLAGS BY VERSION:\n")
            .expect("FLAGS BY VERSION")
            .1;
        let mut entries: Vec<(Vec<&str>, String)> = Vec::new();
        for line in section.lines().take_while(|l| l.starts_with("  ")) {
            let (label, text) = line.split_at(INDENT.min(line.len()));
            match label.trim() {
                "" => entries.last_mut().expect("an entry").1 += &format!(" {}", text.trim()),
                label => entries.push((label.split(", ").collect(), text.trim().to_string())),
            }
        }
        let entry = |name: &str| {
            entries
                .iter()
                .find(|(labels, _)| labels.contains(&name))
                .map(|(_, text)| text.as_str())
        };
        for &v in GenVersion::value_variants() {
            let text = entry(v.name()).unwrap_or("");
            let listed = words(text);
            for f in GEN_FLAGS.iter().filter(|f| !f.everywhere()) {
                assert_eq!(
                    listed.contains(&f.long),
                    f.applies_to(v),
                    "{} under {}: {text}",
                    f.long,
                    v.name()
                );
            }
            if v == GenVersion::V8 {
                for f in GEN_FLAGS
                    .iter()
                    .filter(|f| !f.everywhere() && f.applies_to(v))
                {
                    let kinds: Vec<_> = f.v8.iter().map(|k| k.words()).collect();
                    let group = text
                        .split("; ")
                        .find(|g| words(g).contains(&f.long))
                        .expect("its group");
                    assert!(
                        group.ends_with(&format!("({})", kinds.join(", "))),
                        "{}: {group}",
                        f.long
                    );
                }
            }
        }
        let all = words(entry("all").expect("the entry for all"));
        let everywhere: Vec<_> = GEN_FLAGS
            .iter()
            .filter(|f| f.everywhere())
            .map(|f| f.long)
            .collect();
        assert_eq!(all, everywhere);
    }
}
