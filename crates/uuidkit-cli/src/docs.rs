//! `uuidkit completions` and `uuidkit man`: shell completion scripts and man pages, made
//! from the clap definitions in `args.rs`, so they never disagree with `--help`.

use std::io::Write;
use std::path::Path;

use clap::CommandFactory;

use crate::args::{Cli, CompletionsArgs, ManArgs};
use crate::failure::{Failure, Status};

/// Prints the completion script for the shell asked for.
pub fn completions(a: &CompletionsArgs, out: &mut impl Write) -> Result<Status, Failure> {
    let mut cmd = Cli::command();
    clap_complete::generate(a.shell, &mut cmd, "uuidkit", out);
    Ok(Status::Ok)
}

/// Prints uuidkit(1), or writes every page into `--dir`.
pub fn man(a: &ManArgs, out: &mut impl Write) -> Result<Status, Failure> {
    let mut cmd = Cli::command();
    cmd.build();
    let Some(dir) = &a.dir else {
        clap_mangen::Man::new(cmd).render(out)?;
        return Ok(Status::Ok);
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::Message(format!("creating {}: {e}", dir.display())))?;
    write_pages(&cmd, "uuidkit", dir)?;
    Ok(Status::Ok)
}

/// Writes `name.1` for `cmd` and, for each subcommand, `name-sub.1`, recursively (so
/// `uuidkit-state-show.1` too), as git and cargo name theirs.
fn write_pages(cmd: &clap::Command, name: &str, dir: &Path) -> Result<(), Failure> {
    let page = cmd.clone().name(name.to_owned());
    let path = dir.join(format!("{name}.1"));
    let mut text = Vec::new();
    clap_mangen::Man::new(page).render(&mut text)?;
    std::fs::write(&path, text)
        .map_err(|e| Failure::Message(format!("writing {}: {e}", path.display())))?;
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        write_pages(sub, &format!("{name}-{}", sub.get_name()), dir)?;
    }
    Ok(())
}
