//! uuidkitd, the host's UUID service: its protocol and its client.
//!
//! The daemon (`uuidkitd`, its own crate) keeps the generators' state for every process
//! on the host. Its protocol is remote [`LeaseSource::lease`](crate::store::LeaseSource):
//! a client asks for a block of positions of a generator kind (v1/v2/v6 of a node, v7,
//! v8) and expands it locally, as it would a lease from the state file; for v4 it asks
//! for a batch of random UUIDs. [`protocol`] is the wire format (specified in
//! `docs/protocol.md`), [`client`] the client.
//!
//! ```no_run
//! use uuidkit::generator::gregorian::GregorianGenerator;
//! use uuidkit::service::{client::with_daemon, default_socket_path};
//!
//! let path = default_socket_path().expect("XDG_RUNTIME_DIR is not set");
//! let mut v6 = GregorianGenerator::v6().with_store(with_daemon(path));
//! let u = v6.next()?;
//! # Ok::<(), uuidkit::generator::GenError>(())
//! ```

pub mod client;
pub mod protocol;

use std::path::{Path, PathBuf};

/// The system-wide socket, where the daemon listens when run as root:
/// `/run/uuidkit/uuidkitd.sock`.
pub const SYSTEM_SOCKET: &str = "/run/uuidkit/uuidkitd.sock";

/// The name of the environment variable that names the daemon's socket to clients.
pub const DAEMON_ENV: &str = "UUIDKIT_DAEMON";

/// Where the daemon listens by default: [`SYSTEM_SOCKET`] for root, else
/// `$XDG_RUNTIME_DIR/uuidkit/uuidkitd.sock`; `None` when `XDG_RUNTIME_DIR` is unset or
/// not absolute.
///
/// ```
/// use std::path::Path;
/// use uuidkit::service::default_socket_path_for;
/// assert_eq!(default_socket_path_for(true, None).unwrap(), Path::new("/run/uuidkit/uuidkitd.sock"));
/// assert_eq!(
///     default_socket_path_for(false, Some(Path::new("/run/user/1000"))).unwrap(),
///     Path::new("/run/user/1000/uuidkit/uuidkitd.sock"),
/// );
/// assert_eq!(default_socket_path_for(false, Some(Path::new("relative"))), None);
/// ```
pub fn default_socket_path_for(root: bool, xdg_runtime_dir: Option<&Path>) -> Option<PathBuf> {
    if root {
        return Some(PathBuf::from(SYSTEM_SOCKET));
    }
    xdg_runtime_dir
        .filter(|p| p.is_absolute())
        .map(|d| d.join("uuidkit").join("uuidkitd.sock"))
}

/// [`default_socket_path_for`] this process: root when its effective user ID is 0.
///
/// ```
/// if let Some(p) = uuidkit::service::default_socket_path() {
///     assert!(p.ends_with("uuidkit/uuidkitd.sock"));
/// }
/// ```
pub fn default_socket_path() -> Option<PathBuf> {
    let dir = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from);
    default_socket_path_for(crate::platform::is_root(), dir.as_deref())
}
