//! The systemd units and the sysusers file in `dist/`, held against the binary and the
//! package, so that they cannot drift apart: the service's `ExecStart=` is run, with the
//! sockets, names and environment systemd would give it; the socket paths are the ones
//! clients and libuuid use; the user is the one sysusers makes; the man page, the docs
//! and the package's maintainer scripts name what the units are.
//! (scripts/package-test does the same with the installed package, as root.)

use crate::common;

use std::collections::BTreeMap;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{BIN, TempDir};
use uuidkit::generator::v7::{V7Generator, V7Method};
use uuidkit::service::client::{DaemonClient, with_daemon};

/// Where the package installs the binary (crates/uuidkit-cli/Cargo.toml).
const INSTALLED_BIN: &str = "/usr/bin/uuidkitd";
/// util-linux libuuid's compiled-in path to uuidd.
const LIBUUID_SOCKET: &str = "/run/uuidd/request";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    let p = root().join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A unit file: per section, each key's values in order. An empty assignment clears
/// the list before it, as in systemd.
struct Unit {
    name: String,
    sections: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

impl Unit {
    fn load(name: &str) -> Unit {
        let text = read(&format!("dist/systemd/{name}"));
        let mut sections: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
        let mut current = None;
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            let mut line = line.trim().to_string();
            while line.ends_with('\\') {
                line.pop();
                line.push(' ');
                line.push_str(lines.next().unwrap_or("").trim());
            }
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                current = Some(s.to_string());
                continue;
            }
            let section = current
                .clone()
                .unwrap_or_else(|| panic!("{name}: {line:?} outside a section"));
            let (k, v) = line
                .split_once('=')
                .unwrap_or_else(|| panic!("{name}: {line:?} is not KEY=VALUE"));
            let values = sections
                .entry(section)
                .or_default()
                .entry(k.trim().to_string())
                .or_default();
            match v.trim() {
                "" => values.clear(),
                v => values.push(v.to_string()),
            }
        }
        Unit {
            name: name.to_string(),
            sections,
        }
    }

    fn all(&self, section: &str, key: &str) -> Vec<String> {
        self.sections
            .get(section)
            .and_then(|s| s.get(key))
            .cloned()
            .unwrap_or_default()
    }

    fn get(&self, section: &str, key: &str) -> Option<String> {
        self.all(section, key).last().cloned()
    }

    fn one(&self, section: &str, key: &str) -> String {
        let v = self.all(section, key);
        assert_eq!(v.len(), 1, "{}: [{section}] {key}= {v:?}", self.name);
        v[0].clone()
    }

    /// Space-separated values (Requires=, After=, StateDirectory=), all assignments.
    fn words(&self, section: &str, key: &str) -> Vec<String> {
        self.all(section, key)
            .iter()
            .flat_map(|v| v.split_whitespace().map(str::to_string))
            .collect()
    }
}

/// Every unit file in dist/systemd, by name.
fn unit_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("dist/systemd"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// The socket units that start uuidkitd.service (`Service=`, or the same name).
fn service_sockets() -> Vec<Unit> {
    unit_names()
        .iter()
        .filter(|n| n.ends_with(".socket"))
        .map(|n| Unit::load(n))
        .filter(|u| {
            let implied = u.name.replace(".socket", ".service");
            u.get("Socket", "Service").unwrap_or(implied) == "uuidkitd.service"
        })
        .collect()
}

/// The users and groups dist/sysusers.d/uuidkit.conf makes: (type, name, home).
fn sysusers() -> Vec<(String, String, Option<String>)> {
    let text = read("dist/sysusers.d/uuidkit.conf");
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // Fields: type name id "gecos" home shell; the GECOS field may be quoted.
        let (kind, rest) = line.split_once(char::is_whitespace).unwrap();
        let (name, rest) = rest.trim().split_once(char::is_whitespace).unwrap();
        let (_id, rest) = rest
            .trim()
            .split_once(char::is_whitespace)
            .unwrap_or((rest, ""));
        let rest = rest.trim();
        let after_gecos = if let Some(q) = rest.strip_prefix('"') {
            q.split_once('"').map(|(_, r)| r).unwrap_or("")
        } else {
            rest.split_once(char::is_whitespace)
                .map(|(_, r)| r)
                .unwrap_or("")
        };
        let home = after_gecos
            .split_whitespace()
            .next()
            .filter(|h| *h != "-")
            .map(str::to_string);
        out.push((kind.to_string(), name.to_string(), home));
    }
    out
}

#[test]
fn exec_start_runs_as_systemd_would_start_it() {
    let service = Unit::load("uuidkitd.service");
    let sockets = service_sockets();
    assert!(
        sockets.len() >= 2,
        "uuidkitd.socket and uuidkitd-uuidd.socket"
    );

    let dir = TempDir::new("units");
    // StateDirectory= and RuntimeDirectory=: systemd makes them and names them in the
    // environment; here under the temporary directory.
    let state_dirs: Vec<PathBuf> = service
        .words("Service", "StateDirectory")
        .iter()
        .map(|d| dir.join("var-lib").join(d))
        .collect();
    let runtime_dirs: Vec<PathBuf> = service
        .words("Service", "RuntimeDirectory")
        .iter()
        .map(|d| dir.join("run").join(d))
        .collect();
    assert!(
        !state_dirs.is_empty(),
        "the service keeps its state in a StateDirectory="
    );
    for d in state_dirs.iter().chain(&runtime_dirs) {
        std::fs::create_dir_all(d).unwrap();
    }
    let join = |v: &[PathBuf]| {
        v.iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":")
    };
    let (state_env, runtime_env) = (join(&state_dirs), join(&runtime_dirs));

    // ExecStart=: one plain command line (no prefix, no quoting), the specifiers and
    // variables systemd would expand expanded.
    let exec = service.one("Service", "ExecStart");
    assert!(
        !exec.starts_with(['@', '-', ':', '+', '!']) && !exec.contains(['"', '\'', '\\']),
        "ExecStart={exec}: this test runs plain command lines only"
    );
    let exec = exec
        .replace("%%", "\u{1}")
        .replace("%S", &dir.join("var-lib").display().to_string())
        .replace("%t", &dir.join("run").display().to_string());
    assert!(
        !exec.contains('%'),
        "ExecStart={exec}: a specifier to expand"
    );
    let exec = exec
        .replace('\u{1}', "%")
        .replace("${STATE_DIRECTORY}", &state_env)
        .replace("$STATE_DIRECTORY", &state_env)
        .replace("${RUNTIME_DIRECTORY}", &runtime_env)
        .replace("$RUNTIME_DIRECTORY", &runtime_env);
    assert!(
        !exec.contains('$'),
        "ExecStart={exec}: a variable to expand"
    );
    let argv: Vec<&str> = exec.split_whitespace().collect();
    assert_eq!(argv[0], INSTALLED_BIN, "ExecStart runs the packaged binary");

    // The sockets, bound here at temporary paths, passed as systemd passes them: from
    // descriptor 3 on, named by FileDescriptorName=.
    let mut listeners = Vec::new();
    let mut names = Vec::new();
    for (i, s) in sockets.iter().enumerate() {
        let path = dir.join(&format!("{i}.sock"));
        listeners.push((UnixListener::bind(&path).unwrap(), path));
        names.push(
            s.get("Socket", "FileDescriptorName")
                .unwrap_or_else(|| s.name.clone()),
        );
    }
    let fds: Vec<i32> = listeners.iter().map(|(l, _)| l.as_raw_fd()).collect();
    let mut cmd = Command::new("sh");
    // LISTEN_PID must be the daemon's PID: the shell's, which `exec` keeps. The
    // environment is systemd's for a system service, nothing of this test's.
    cmd.arg("-c")
        .arg("LISTEN_PID=$$ exec \"$@\"")
        .arg("sh")
        .arg(BIN)
        .args(&argv[1..])
        .env_clear()
        .env("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin")
        .env("LISTEN_FDS", fds.len().to_string())
        .env("LISTEN_FDNAMES", names.join(":"))
        .env("STATE_DIRECTORY", &state_env)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if !runtime_env.is_empty() {
        cmd.env("RUNTIME_DIRECTORY", &runtime_env);
    }
    let n = fds.len() as i32;
    // SAFETY: between fork and exec only dup2, async-signal-safe, on descriptors that
    // stay open in the parent until the child has started. Each goes to a high number
    // first, since any of them may itself be 3, 4, ...
    unsafe {
        cmd.pre_exec(move || {
            for (i, &fd) in fds.iter().enumerate() {
                if libc::dup2(fd, 100 + i as i32) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            for i in 0..n {
                if libc::dup2(100 + i, 3 + i) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let child = cmd.spawn().unwrap();
    let own_path = listeners[sockets
        .iter()
        .position(|s| s.name == "uuidkitd.socket")
        .expect("uuidkitd.socket starts the service")]
    .1
    .clone();
    let uuidd_path = listeners[sockets
        .iter()
        .position(|s| s.name == "uuidkitd-uuidd.socket")
        .expect("uuidkitd-uuidd.socket starts the service")]
    .1
    .clone();
    let mut daemon = common::Daemon {
        child,
        socket: own_path.clone(),
        state: state_dirs[0].join("state"),
    };
    drop(listeners);

    // Its own protocol on uuidkitd.socket's descriptor, with the state file in the
    // first StateDirectory=.
    let client = DaemonClient::new(&own_path).with_timeout(Duration::from_secs(5));
    let mut status = None;
    for _ in 0..500 {
        match client.status() {
            Ok(s) => {
                status = Some(s);
                break;
            }
            Err(_) => {
                if let Ok(Some(st)) = daemon.child.try_wait() {
                    let mut err = String::new();
                    use std::io::Read;
                    daemon
                        .child
                        .stderr
                        .take()
                        .unwrap()
                        .read_to_string(&mut err)
                        .unwrap();
                    panic!("ExecStart={exec} exited ({st}): {err}");
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
    let status = status.expect("the daemon serves uuidkitd.socket's descriptor");
    assert_eq!(status.pid, daemon.child.id());
    assert_eq!(
        Path::new(&status.state),
        state_dirs[0].join("state"),
        "the state file is $STATE_DIRECTORY/state"
    );
    let mut v7 = V7Generator::new(V7Method::Counter).with_store(with_daemon(&own_path));
    let (a, b) = (v7.next(), v7.next());
    assert!(a < b && a.version_number() == 7, "{a} {b}");
    assert!(
        v7.take_store_warnings().is_empty(),
        "the v7 leases came from the daemon"
    );
    assert!(state_dirs[0].join("state").exists());

    // uuidd's protocol on the descriptor named for uuidkitd-uuidd.socket: get-max-op.
    {
        use std::io::{Read, Write};
        let mut s = std::os::unix::net::UnixStream::connect(&uuidd_path).unwrap();
        s.write_all(&[1]).unwrap();
        let mut reply = Vec::new();
        s.read_to_end(&mut reply).unwrap();
        assert_eq!(
            &reply[4..],
            b"5\0",
            "uuidd's protocol on {}",
            uuidd_path.display()
        );
    }

    assert!(daemon.terminate().success());
}

#[test]
fn the_sockets_are_where_clients_look() {
    let own = Unit::load("uuidkitd.socket");
    let uuidd = Unit::load("uuidkitd-uuidd.socket");
    assert_eq!(
        own.one("Socket", "ListenStream"),
        uuidkit::service::SYSTEM_SOCKET,
        "uuidkitd.socket listens where root's clients and the docs look"
    );
    assert_eq!(
        uuidd.one("Socket", "ListenStream"),
        LIBUUID_SOCKET,
        "uuidkitd-uuidd.socket listens where libuuid asks"
    );
    // The daemon serves uuidd's protocol on the descriptor named "uuidd", its own on
    // any other (main.rs, listeners).
    assert_eq!(
        uuidd.get("Socket", "FileDescriptorName").as_deref(),
        Some("uuidd")
    );
    assert_ne!(
        own.get("Socket", "FileDescriptorName").as_deref(),
        Some("uuidd")
    );
    assert_eq!(
        uuidd.get("Socket", "Service").as_deref(),
        Some("uuidkitd.service")
    );
    for conflict in ["uuidd.socket", "uuidd.service"] {
        assert!(
            uuidd
                .words("Unit", "Conflicts")
                .iter()
                .any(|c| c == conflict),
            "uuidkitd-uuidd.socket conflicts with util-linux's {conflict}"
        );
    }
    let service = Unit::load("uuidkitd.service");
    for key in ["Requires", "After"] {
        assert!(
            service
                .words("Unit", key)
                .iter()
                .any(|u| u == "uuidkitd.socket"),
            "uuidkitd.service {key}=uuidkitd.socket"
        );
    }
    // Each socket unit can be enabled; enabling the service enables its socket.
    for s in [&own, &uuidd] {
        assert!(
            s.get("Install", "WantedBy").is_some(),
            "{}: WantedBy=",
            s.name
        );
    }
    assert!(
        service
            .words("Install", "Also")
            .iter()
            .any(|u| u == "uuidkitd.socket")
    );
}

#[test]
fn the_user_is_the_one_sysusers_makes() {
    let users = sysusers();
    let service = Unit::load("uuidkitd.service");
    let user = service.one("Service", "User");
    let group = service
        .get("Service", "Group")
        .unwrap_or_else(|| user.clone());
    let (_, _, home) = users
        .iter()
        .find(|(kind, name, _)| kind == "u" && *name == user)
        .unwrap_or_else(|| panic!("dist/sysusers.d/uuidkit.conf makes no user {user}"));
    // `u NAME -` makes the group NAME too.
    assert!(
        users
            .iter()
            .any(|(kind, name, _)| (kind == "u" || kind == "g") && *name == group),
        "sysusers makes the group {group}"
    );
    let socket_group = Unit::load("uuidkitd.socket").one("Socket", "SocketGroup");
    assert_eq!(socket_group, group, "the socket's group is the service's");
    let state = service.words("Service", "StateDirectory");
    assert_eq!(
        home.as_deref(),
        Some(format!("/var/lib/{}", state[0]).as_str()),
        "the user's home is the state directory"
    );
    assert!(
        service.get("Service", "DynamicUser").is_none(),
        "a DynamicUser does not exist when the socket unit needs its group"
    );
}

#[test]
fn the_state_directory_is_the_daemons_own_default() {
    // As root without systemd, the daemon keeps its state in /var/lib/uuidkit/state:
    // the same file as under the unit ($STATE_DIRECTORY/state), so that a service run
    // by hand and by systemd continue each other.
    let out = Command::new(BIN).arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let state = Unit::load("uuidkitd.service").words("Service", "StateDirectory");
    let want = format!("/var/lib/{}/state as root", state[0]);
    assert!(help.contains(&want), "--help names {want}: {help}");
}

#[test]
fn the_man_page_and_docs_name_the_units() {
    let out = Command::new(BIN).arg("--man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH uuidkitd 8"), "{page}");
    // roff escapes '-' as '\-'.
    let plain = page.replace("\\-", "-");
    let help = String::from_utf8(Command::new(BIN).arg("--help").output().unwrap().stdout).unwrap();
    for option in help
        .split_whitespace()
        .filter(|w| w.starts_with("--"))
        .map(|w| w.trim_end_matches([',', '.', ']']))
    {
        assert!(plain.contains(option), "the man page lacks {option}");
    }
    assert!(
        !plain.contains("--man"),
        "the hidden --man is not on the page"
    );
    for name in unit_names() {
        let unit = Unit::load(&name);
        assert!(plain.contains(&name), "the man page's FILES lacks {name}");
        if let Some(path) = unit.get("Socket", "ListenStream") {
            assert!(plain.contains(&path), "the man page lacks {path} ({name})");
        }
        for doc in unit.words("Unit", "Documentation") {
            if let Some(file) = doc.strip_prefix("file:///usr/share/doc/uuidkit/docs/") {
                assert!(
                    root().join("docs").join(file).is_file(),
                    "{name}: {doc}: the package installs docs/*.md there, and docs/{file} \
                     does not exist"
                );
            } else if let Some(man) = doc.strip_prefix("man:") {
                assert_eq!(man, "uuidkitd(8)", "{name}: {doc}");
            } else {
                panic!("{name}: Documentation={doc}: not a page the package installs");
            }
        }
    }
}

#[test]
fn the_package_installs_and_removes_every_unit() {
    let manifest = read("crates/uuidkit-cli/Cargo.toml");
    for asset in [
        "\"../../dist/systemd/*\", \"usr/lib/systemd/system/\"",
        "\"../../dist/sysusers.d/uuidkit.conf\", \"usr/lib/sysusers.d/\"",
        "\"target/release/uuidkitd\", \"usr/bin/\"",
        "maintainer-scripts = \"../../dist/debian/\"",
    ] {
        assert!(
            manifest.contains(asset),
            "[package.metadata.deb] lacks {asset}"
        );
    }
    let postinst = read("dist/debian/postinst");
    assert!(
        postinst.contains("systemd-sysusers") && postinst.contains("uuidkit.conf"),
        "postinst makes the user before the service can start"
    );
    let prerm = read("dist/debian/prerm");
    let postrm = read("dist/debian/postrm");
    for name in unit_names() {
        assert!(prerm.contains(&name), "prerm does not stop {name}");
        assert!(
            postrm.contains(&format!("*.wants/{name}")),
            "postrm's purge does not remove the links `systemctl enable {name}` makes"
        );
    }
    let state = Unit::load("uuidkitd.service").words("Service", "StateDirectory");
    assert!(
        postrm.contains(&format!("rm -rf /var/lib/{}", state[0])),
        "postrm's purge removes the state directory"
    );
}
