//! Listening sockets: created with their final permissions before anyone can connect,
//! or adopted from systemd.

use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

/// A listener and the path to remove at exit (`None` for one systemd passed: systemd
/// owns that file).
pub struct Listener {
    pub listener: UnixListener,
    pub created: Option<PathBuf>,
    pub name: String,
}

/// Binds `path` with permissions `mode`.
///
/// The socket is bound under a temporary name in the same directory, given its mode,
/// then renamed into place: a client never finds the path with broader permissions than
/// asked for (binding in place would leave it, for a moment, with the umask's). A socket
/// already at `path` that accepts connections belongs to a running daemon, and is left
/// alone; one that refuses them is a leftover of a daemon that was killed, and is
/// replaced. Anything else at `path` is not ours to remove.
pub fn bind(path: &Path, mode: u32) -> Result<Listener, String> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| format!("{}: not a file path", path.display()))?;
    if !parent.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(parent)
            .map_err(|e| format!("cannot create directory {}: {e}", parent.display()))?;
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_socket() => {
            if UnixStream::connect(path).is_ok() {
                return Err(format!(
                    "{}: another daemon is listening there",
                    path.display()
                ));
            }
            std::fs::remove_file(path)
                .map_err(|e| format!("cannot remove stale socket {}: {e}", path.display()))?;
        }
        Ok(_) => {
            return Err(format!(
                "{}: exists and is not a socket; not replacing it",
                path.display()
            ));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("cannot inspect {}: {e}", path.display())),
    }
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = parent.join(tmp_name);
    let _ = std::fs::remove_file(&tmp);
    let listener =
        UnixListener::bind(&tmp).map_err(|e| format!("cannot bind {}: {e}", tmp.display()))?;
    let placed = std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(mode))
        .map_err(|e| format!("cannot set the mode of {}: {e}", tmp.display()))
        .and_then(|()| {
            std::fs::rename(&tmp, path)
                .map_err(|e| format!("cannot move {} to {}: {e}", tmp.display(), path.display()))
        });
    if let Err(e) = placed {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(Listener {
        listener,
        created: Some(path.to_path_buf()),
        name: path.display().to_string(),
    })
}

/// Adopts a descriptor passed by systemd; an error if it is not a listening Unix
/// stream socket.
pub fn adopt(fd: std::os::fd::OwnedFd, name: &str) -> Result<Listener, String> {
    let listener = UnixListener::from(fd);
    let addr = listener
        .local_addr()
        .map_err(|e| format!("passed descriptor {name}: not a Unix socket: {e}"))?;
    let shown = addr
        .as_pathname()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| name.to_string());
    Ok(Listener {
        listener,
        created: None,
        name: shown,
    })
}
