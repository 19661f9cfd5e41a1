//! `kill -9` of the daemon in the middle of a bulk load, then a restart on the same state
//! file: every v6 and v7 UUID served after is greater than every one served before, and
//! no v1 UUID repeats. SIGTERM removes the socket; a socket left by a killed daemon is
//! replaced at the next start.

use crate::common;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use common::{Daemon, TempDir};
use uuidkit::Uuid;
use uuidkit::generator::gregorian::GregorianGenerator;
use uuidkit::generator::v7::{V7Generator, V7Method};
use uuidkit::node::NodeStrategy;
use uuidkit::service::client::DaemonClient;

/// One node for every v1 and v6 client: the daemon's guarantees are per generator kind,
/// and a Gregorian kind is a node.
fn node() -> uuidkit::NodeId {
    "02:00:5e:00:00:09".parse().unwrap()
}

/// Generates version `v` through the daemon until the daemon stops answering (the
/// generator then falls back to memory and reports it: that UUID is not the daemon's and
/// is dropped) or `limit` UUIDs are made.
fn client(path: std::path::PathBuf, v: u8, limit: usize) -> Vec<Uuid> {
    let daemon = Arc::new(DaemonClient::new(path));
    let mut out = Vec::new();
    match v {
        7 => {
            let mut g = V7Generator::new(V7Method::Counter).with_store(daemon);
            while out.len() < limit {
                let u = g.next();
                if !g.take_store_warnings().is_empty() {
                    break;
                }
                out.push(u);
            }
        }
        _ => {
            let g = if v == 1 {
                GregorianGenerator::v1()
            } else {
                GregorianGenerator::v6()
            };
            let mut g = g.with_node(NodeStrategy::Fixed(node())).with_store(daemon);
            while out.len() < limit {
                let u = g.next().unwrap();
                if !g.take_store_warnings().is_empty() {
                    break;
                }
                out.push(u);
            }
        }
    }
    out
}

fn load(path: &std::path::Path, limit: usize) -> Vec<(u8, Vec<Uuid>)> {
    let hs: Vec<_> = (0..9)
        .map(|i| {
            let v = [1u8, 6, 7][i % 3];
            let p = path.to_path_buf();
            (v, std::thread::spawn(move || client(p, v, limit)))
        })
        .collect();
    hs.into_iter()
        .map(|(v, h)| (v, h.join().unwrap()))
        .collect()
}

#[test]
fn kill_9_then_restart_never_reuses_or_reorders() {
    let dir = TempDir::new("restart");
    let mut d = Daemon::start(&dir.0, &[], None);
    let path = d.socket.clone();
    let loader = {
        let p = path.clone();
        std::thread::spawn(move || load(&p, usize::MAX))
    };
    std::thread::sleep(Duration::from_millis(400));
    d.kill9();
    let before = loader.join().unwrap();
    assert!(path.exists(), "kill -9 leaves the socket behind");

    let mut d = Daemon::start(&dir.0, &[], None);
    let after = load(&path, 20_000);

    let mut v1 = HashSet::new();
    for v in [6u8, 7] {
        let max_before = before
            .iter()
            .filter(|(x, _)| *x == v)
            .flat_map(|(_, u)| u)
            .max();
        let min_after = after
            .iter()
            .filter(|(x, _)| *x == v)
            .flat_map(|(_, u)| u)
            .min();
        let (max_before, min_after) = (max_before.unwrap(), min_after.unwrap());
        assert!(
            min_after > max_before,
            "v{v}: {min_after} after {max_before}"
        );
    }
    for (v, uuids) in before.iter().chain(after.iter()) {
        assert!(!uuids.is_empty(), "a v{v} client got nothing");
        if *v == 1 {
            for u in uuids {
                assert!(v1.insert(*u), "v1 {u} repeats");
            }
        }
    }
    assert!(d.terminate().success());
    assert!(!path.exists(), "SIGTERM removes the socket");
}
