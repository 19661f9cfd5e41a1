//! `uuidkitd`: the host's UUID service.
//!
//! Serves uuidkit's own protocol (`docs/protocol.md`) on a Unix socket, and optionally
//! util-linux uuidd's on a second one, keeping every generator's state in a uuidkit
//! state file, so that UUIDs handed out after a crash or restart never repeat or go
//! back. See `dist/systemd/` for the units and `docs/daemon.md` for its use.

#![deny(unsafe_code)]

mod conn;
mod fleet;
mod lead;
mod listen;
mod man;
mod own;
mod platform;
mod server;
mod shared;
mod source;
mod uuidd;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use uuidkit::NodeId;
use uuidkit::store::{StateStore, StoreError};

use conn::Limits;
use listen::Listener;
use server::Protocol;
use shared::Shared;

/// The state file when run as root without `--state` (and without systemd's
/// `STATE_DIRECTORY`).
const SYSTEM_STATE: &str = "/var/lib/uuidkit/state";

#[derive(Parser, Debug)]
#[command(
    name = "uuidkitd",
    version,
    about = "The host's UUID service: leases of time-ordered UUID space, random UUIDs, \
             and util-linux uuidd's protocol for libuuid"
)]
struct Args {
    /// The socket of uuidkit's own protocol [default: $XDG_RUNTIME_DIR/uuidkit/uuidkitd.sock,
    /// or /run/uuidkit/uuidkitd.sock as root]. Ignored when systemd passes the socket.
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,

    /// Permissions of the sockets the daemon creates, in octal.
    #[arg(long, value_name = "MODE", default_value = "0660", value_parser = parse_mode)]
    socket_mode: u32,

    /// Also serve util-linux uuidd's protocol here (libuuid asks /run/uuidd/request).
    #[arg(long, value_name = "PATH")]
    uuidd_socket: Option<PathBuf>,

    /// Permissions of the uuidd socket, in octal: any user's libuuid may ask uuidd.
    #[arg(long, value_name = "MODE", default_value = "0666", value_parser = parse_mode)]
    uuidd_socket_mode: u32,

    /// The state file [default: $STATE_DIRECTORY/state under systemd,
    /// /var/lib/uuidkit/state as root, else $XDG_STATE_HOME/uuidkit/state].
    #[arg(long, value_name = "PATH")]
    state: Option<PathBuf>,

    /// The node ID of the v1 UUIDs made for uuidd clients [default: a hash of the host's
    /// names and addresses, the same at every start].
    #[arg(long, value_name = "NODE")]
    node: Option<NodeId>,

    /// Connections served at once; more are refused until some close.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    max_connections: usize,

    /// Seconds a connection may wait between requests before it is closed.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    idle_timeout: f64,

    /// Seconds a request may take to arrive once begun, and a reply to be read.
    #[arg(long, value_name = "SECS", default_value_t = 2.0)]
    request_timeout: f64,

    /// Seconds of a kind's time that the positions granted may run ahead of the daemon's
    /// reference time (its clock, or after the clock was set back, where the kind was,
    /// carried on at real speed); a request that would need more is told to wait
    /// (uuidd's protocol: its connection is closed, and libuuid makes its UUID itself).
    #[arg(long, value_name = "SECS", default_value_t = lead::DEFAULT_BOUND.as_secs_f64())]
    max_lead: f64,

    /// Where the machine ID stamped into every v7 and draft-layout lease comes from:
    /// `etcd`, the only source, leases one of the fleet's IDs (needs --etcd, --fleet and
    /// --machine-id-bits). Without it, leases carry no machine ID.
    #[arg(
        long,
        value_name = "SOURCE",
        value_parser = ["etcd"],
        requires_all = ["etcd", "fleet", "machine_id_bits"]
    )]
    machine_id: Option<String>,

    /// etcd endpoints, comma-separated `http://HOST:PORT` (with --machine-id etcd).
    #[arg(long, value_name = "URL[,URL…]", requires = "machine_id")]
    etcd: Option<String>,

    /// The fleet's name: the daemons that share one space of machine IDs (1 to 64 of
    /// a-z A-Z 0-9 - _ .).
    #[arg(long, value_name = "NAME", requires = "machine_id")]
    fleet: Option<String>,

    /// Bits of the machine ID (1 to 31): the fleet has 2^B of them, one per daemon.
    #[arg(long, value_name = "B", requires = "machine_id")]
    machine_id_bits: Option<u32>,

    /// Seconds the etcd lease lives without a renewal (2 to 3600): a daemon that stops
    /// frees its ID this long after its last renewal, and one cut off from etcd stops
    /// stamping before then.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 10,
        requires = "machine_id"
    )]
    lease_ttl: u64,

    /// Seconds to wait for a free machine ID when every one is held, instead of exiting
    /// at once.
    #[arg(long, value_name = "SECS", requires = "machine_id")]
    claim_wait: Option<f64>,

    /// Print the man page uuidkitd(8), made from these definitions, and exit (for
    /// packaging: scripts/package).
    #[arg(long, hide = true)]
    man: bool,
}

fn parse_mode(s: &str) -> Result<u32, String> {
    let digits = s.strip_prefix("0o").unwrap_or(s);
    match u32::from_str_radix(digits, 8) {
        Ok(m) if m <= 0o777 => Ok(m),
        _ => Err(format!("{s:?} is not an octal mode from 0 to 0777")),
    }
}

fn seconds(field: &str, v: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(v)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("--{field}: {v} is not a positive number of seconds"))
}

fn is_root() -> bool {
    // The service's own euid, without unsafe: /proc/self belongs to it.
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

fn default_state() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("STATE_DIRECTORY") {
        // systemd may pass several, separated by ':'; the first is ours.
        let first = d.to_string_lossy().split(':').next().map(PathBuf::from);
        if let Some(p) = first.filter(|p| p.is_absolute()) {
            return Some(p.join("state"));
        }
    }
    if is_root() {
        return Some(PathBuf::from(SYSTEM_STATE));
    }
    uuidkit::store::default_path()
}

fn main() {
    // Before any thread exists, so that every thread inherits the mask and only the
    // signal thread takes them.
    if let Err(e) = uuidkit::signals::block_termination() {
        fail(&format!("cannot block signals: {e}"));
    }
    let args = Args::parse();
    if args.man {
        if let Err(e) = man::print::<Args>() {
            fail(&e);
        }
        return;
    }
    if let Err(e) = run(args) {
        fail(&e);
    }
}

fn fail(message: &str) -> ! {
    eprintln!("uuidkitd: {message}");
    std::process::exit(1);
}

fn run(args: Args) -> Result<(), String> {
    let limits = Limits {
        max_connections: args.max_connections.max(1),
        idle_timeout: seconds("idle-timeout", args.idle_timeout)?,
        request_timeout: seconds("request-timeout", args.request_timeout)?,
    };
    let state = match args.state.clone().or_else(default_state) {
        Some(p) => p,
        None => return Err("no state file: give --state PATH (HOME is not set)".into()),
    };
    let max_lead = seconds("max-lead", args.max_lead)?;
    refuse_newer_format(&state)?;
    let node = args.node.unwrap_or_else(uuidkit::node::host_hash_node);
    platform::raise_open_file_limit();
    // Signals are taken by a thread from here: one that comes while the machine ID is
    // being claimed (a claim may wait for a free ID) ends the daemon at once, as the
    // signal would, since nothing is served or held yet; later ones are passed on to the
    // shutdown below.
    let claimed = Arc::new(AtomicBool::new(false));
    let (signalled, signals) = std::sync::mpsc::channel();
    {
        let claimed = Arc::clone(&claimed);
        std::thread::Builder::new()
            .name("uuidkitd-signals".into())
            .spawn(move || {
                let sig = uuidkit::signals::wait_for_termination();
                if !claimed.load(Ordering::SeqCst) {
                    eprintln!("uuidkitd: signal {sig} before serving: exiting");
                    uuidkit::signals::die_of(sig);
                }
                let _ = signalled.send(sig);
            })
            .map_err(|e| format!("cannot start a thread: {e}"))?;
    }
    // The machine ID before any socket: a daemon that cannot hold one does not serve.
    let fleet = claim_fleet(&args)?.map(Arc::new);
    claimed.store(true, Ordering::SeqCst);

    let (own, uuidd) = listeners(&args)?;
    let created: Vec<PathBuf> = own
        .iter()
        .chain(uuidd.iter())
        .filter_map(|l| l.created.clone())
        .collect();

    let shared = Arc::new(Shared {
        source: source::Source::with_bound(StateStore::open(&state), max_lead),
        node,
        state_path: state.display().to_string(),
        limits,
        started: Instant::now(),
        shutting_down: AtomicBool::new(false),
        active: AtomicUsize::new(0),
        connections: AtomicU64::new(0),
        leases: AtomicU64::new(0),
        random: AtomicU64::new(0),
        uuidd_requests: AtomicU64::new(0),
        fleet: fleet.clone(),
    });
    if let Some(f) = &fleet {
        if let Some(floor) = f.floor_ms() {
            shared.source.lead.set_fleet_floor(floor);
        }
        let (f, shared) = (Arc::clone(f), Arc::clone(&shared));
        std::thread::Builder::new()
            .name("uuidkitd-fleet".into())
            .spawn(move || f.watch(|floor| shared.source.lead.set_fleet_floor(floor)))
            .map_err(|e| format!("cannot start a thread: {e}"))?;
    }

    for (l, protocol) in own
        .into_iter()
        .map(|l| (l, Protocol::Own))
        .chain(uuidd.into_iter().map(|l| (l, Protocol::Uuidd)))
    {
        eprintln!(
            "uuidkitd: serving {} on {}",
            match protocol {
                Protocol::Own => "uuidkit's protocol",
                Protocol::Uuidd => "uuidd's protocol",
            },
            l.name
        );
        let shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("uuidkitd-accept".into())
            .spawn(move || server::accept_loop(l.listener, protocol, shared))
            .map_err(|e| format!("cannot start a thread: {e}"))?;
    }
    eprintln!(
        "uuidkitd: state file {}, node {node}, pid {}",
        state.display(),
        std::process::id()
    );

    // The signal thread passes its signal on before it ends (15, SIGTERM, should it
    // somehow end without one).
    let sig = signals.recv().unwrap_or(15);
    shared.shutting_down.store(true, Ordering::Release);
    // Wait for a lease being written to finish: the file is then complete and holds every
    // position granted.
    drop(
        shared
            .source
            .gate
            .write()
            .unwrap_or_else(|p| p.into_inner()),
    );
    shared.source.sync();
    // After the state is saved: the machine ID is free for the next holder at once.
    if let Some(f) = &shared.fleet {
        f.release();
    }
    for p in &created {
        let _ = std::fs::remove_file(p);
    }
    eprintln!("uuidkitd: signal {sig}: state saved, exiting");
    std::process::exit(0);
}

/// Fleet mode: checks the flags (nothing reaches etcd when one is wrong) and claims a
/// machine ID, logging it. `None` without `--machine-id`.
fn claim_fleet(args: &Args) -> Result<Option<fleet::Fleet>, String> {
    let (Some(_), Some(endpoints), Some(name), Some(bits)) = (
        &args.machine_id,
        &args.etcd,
        &args.fleet,
        args.machine_id_bits,
    ) else {
        return Ok(None);
    };
    let flag = |flag: &str, e: uuidkit::fleet::FleetError| format!("{flag}: {e}");
    let mut cfg = uuidkit::fleet::FleetConfig::new(endpoints, name, bits).map_err(|e| {
        let which = match e {
            uuidkit::fleet::FleetError::BadFleet { .. } => "--fleet",
            uuidkit::fleet::FleetError::BadBits { .. } => "--machine-id-bits",
            _ => "--etcd",
        };
        flag(which, e)
    })?;
    // Its clients choose their methods: a fleet of services only (docs/daemon.md).
    cfg = cfg
        .with_ttl(Duration::from_secs(args.lease_ttl))
        .map_err(|e| flag("--lease-ttl", e))?
        .with_placement(uuidkit::fleet::Placement::Service);
    if let Some(w) = args.claim_wait {
        cfg = cfg.with_wait(seconds("claim-wait", w)?);
    }
    let f = fleet::Fleet::claim(cfg.clone()).map_err(|e| format!("--machine-id etcd: {e}"))?;
    if let Some(id) = f.current() {
        fleet::log_held(&id, &cfg);
    }
    Ok(Some(f))
}

/// Refuses to start on a state file in a newer format, before any socket is bound.
///
/// The file holds a newer uuidkit's high-water marks and the store will not touch it, so
/// every lease would be refused: a daemon that served anyway would only answer errors
/// (or, through uuidd's protocol, closed connections that send libuuid to make its
/// UUIDs alone). Refusing says at once, where the service manager shows it, that this
/// uuidkitd is older than the file. Anything else about the file (missing, damaged,
/// unreadable) is for the leases to handle and report, as before.
fn refuse_newer_format(state: &std::path::Path) -> Result<(), String> {
    match uuidkit::store::read_state(state) {
        Err(e @ StoreError::NewerFormat { .. }) => Err(format!(
            "{e}: a newer uuidkit keeps its state there; not starting (run the newer \
             uuidkitd, or give another --state)"
        )),
        _ => Ok(()),
    }
}

/// The listeners: systemd's if it passed any (named `uuidd` for the uuidd protocol, the
/// others for uuidkit's; unnamed, the second is uuidd's), else the sockets asked for.
fn listeners(args: &Args) -> Result<(Vec<Listener>, Vec<Listener>), String> {
    let passed = platform::listen_fds();
    if !passed.is_empty() {
        let mut own = Vec::new();
        let mut uuidd = Vec::new();
        let named = passed.iter().any(|(_, n)| n.is_some());
        for (i, (fd, name)) in passed.into_iter().enumerate() {
            let is_uuidd = if named {
                name.as_deref() == Some("uuidd")
            } else {
                i == 1
            };
            let l = listen::adopt(fd, name.as_deref().unwrap_or("LISTEN_FDS"))?;
            if is_uuidd { &mut uuidd } else { &mut own }.push(l);
        }
        if own.is_empty() && uuidd.is_empty() {
            return Err("systemd passed no usable socket".into());
        }
        return Ok((own, uuidd));
    }
    let path = match &args.socket {
        Some(p) => p.clone(),
        None => {
            let dir = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from);
            uuidkit::service::default_socket_path_for(is_root(), dir.as_deref()).ok_or(
                "no socket path: give --socket PATH (XDG_RUNTIME_DIR is not set)".to_string(),
            )?
        }
    };
    let own = listen::bind(&path, args.socket_mode)?;
    let uuidd = match &args.uuidd_socket {
        Some(p) => match listen::bind(p, args.uuidd_socket_mode) {
            Ok(l) => vec![l],
            Err(e) => {
                if let Some(c) = &own.created {
                    let _ = std::fs::remove_file(c);
                }
                return Err(e);
            }
        },
        None => Vec::new(),
    };
    Ok((vec![own], uuidd))
}
