//! `uuidkitd --man`: the man page uuidkitd(8), made from the same clap definitions as
//! `--help`, so the packaged page never disagrees with the binary (scripts/package
//! installs it). The option is hidden, and so absent from the page itself.

use std::io::Write;

use clap_mangen::roff::{Roff, bold, roman};

/// The page's FILES section, beyond what `--help` says: where the package puts the
/// units, and what they set up.
const FILES: &[(&str, &str)] = &[
    (
        "/usr/lib/systemd/system/uuidkitd.socket",
        "The service's socket, /run/uuidkit/uuidkitd.sock (mode 0660, group uuidkit); \
         enable it with: systemctl enable --now uuidkitd.socket",
    ),
    (
        "/usr/lib/systemd/system/uuidkitd.service",
        "The service, started by its sockets, as the user uuidkit, with the state file \
         /var/lib/uuidkit/state (StateDirectory=uuidkit).",
    ),
    (
        "/usr/lib/systemd/system/uuidkitd-uuidd.socket",
        "util-linux uuidd's socket, /run/uuidd/request, for libuuid's clients; it \
         conflicts with uuidd.socket: only one of the two can be active.",
    ),
    (
        "/usr/lib/sysusers.d/uuidkit.conf",
        "The user and group uuidkit; members of the group may use the service's socket.",
    ),
    (
        "/usr/share/doc/uuidkit/docs/daemon.md, protocol.md",
        "The service, and the protocol it speaks.",
    ),
];

/// Writes uuidkitd(8), in section 8 (system administration), to standard output.
pub fn print<C: clap::CommandFactory>() -> Result<(), String> {
    render::<C>()
        .and_then(|page| std::io::stdout().lock().write_all(&page))
        .map_err(|e| format!("cannot write the man page: {e}"))
}

fn render<C: clap::CommandFactory>() -> std::io::Result<Vec<u8>> {
    let man = clap_mangen::Man::new(C::command()).section("8");
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    let mut files = Roff::new();
    files.control("SH", ["FILES"]);
    for (path, what) in FILES {
        files
            .control("TP", [])
            .text([bold(*path)])
            .text([roman(*what)]);
    }
    files.to_writer(&mut page)?;
    man.render_version_section(&mut page)?;
    Ok(page)
}
