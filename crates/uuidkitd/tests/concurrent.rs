//! 32 clients at once, each generating 100,000 UUIDs of v1, v6 and v7 through the
//! daemon: no UUID repeats, and each client's v6 and v7 UUIDs strictly increase.

use crate::common;

use std::collections::HashSet;
use std::sync::Arc;

use common::{Daemon, TempDir};
use uuidkit::Uuid;
use uuidkit::generator::gregorian::GregorianGenerator;
use uuidkit::generator::v7::{V7Generator, V7Method};
use uuidkit::node::NodeStrategy;
use uuidkit::service::client::DaemonClient;

const CLIENTS: usize = 32;
const PER_CLIENT: usize = 100_000;

/// Every client uses the same node ID: their v1 and v6 UUIDs then differ only if the
/// daemon's leases keep their timestamps apart.
fn node() -> uuidkit::NodeId {
    "02:00:5e:00:00:07".parse().unwrap()
}

fn run_clients(socket: &std::path::Path, version: u8) -> Vec<Vec<Uuid>> {
    let handles: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let socket = socket.to_path_buf();
            std::thread::spawn(move || {
                // Each client its own connection, as separate processes would have.
                let daemon = Arc::new(DaemonClient::connect(&socket).expect("connect"));
                let mut out = Vec::with_capacity(PER_CLIENT);
                match version {
                    7 => {
                        let mut g = V7Generator::new(V7Method::Counter).with_store(daemon);
                        out.extend((0..PER_CLIENT).map(|_| g.next()));
                        assert_eq!(g.take_store_warnings(), vec![]);
                    }
                    _ => {
                        let g = if version == 1 {
                            GregorianGenerator::v1()
                        } else {
                            GregorianGenerator::v6()
                        };
                        let mut g = g.with_node(NodeStrategy::Fixed(node())).with_store(daemon);
                        out.extend((0..PER_CLIENT).map(|_| g.next().unwrap()));
                        assert_eq!(g.take_store_warnings(), vec![]);
                    }
                }
                out
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

#[test]
fn thirty_two_clients_get_unique_ordered_uuids() {
    let dir = TempDir::new("concurrent");
    let mut d = Daemon::start(&dir.0, &[], None);
    for version in [1u8, 6, 7] {
        let per_client = run_clients(&d.socket, version);
        let mut all = HashSet::with_capacity(CLIENTS * PER_CLIENT);
        for (i, uuids) in per_client.iter().enumerate() {
            assert_eq!(uuids.len(), PER_CLIENT);
            if version != 1 {
                for w in uuids.windows(2) {
                    assert!(w[0] < w[1], "v{version} client {i}: {} then {}", w[0], w[1]);
                }
            }
            for u in uuids {
                assert_eq!(u.version_number(), version);
                if version != 7 {
                    assert_eq!(u.node(), Some(node()));
                }
                assert!(all.insert(u.as_u128()), "v{version}: {u} repeats");
            }
        }
        assert_eq!(all.len(), CLIENTS * PER_CLIENT);
    }
    let status = DaemonClient::new(&d.socket).status().unwrap();
    assert!(status.leases >= (3 * CLIENTS) as u64, "{status:?}");
    assert_eq!(status.pid, d.child.id());
    assert!(d.terminate().success());
    assert!(!d.socket.exists(), "the socket is removed at exit");
}
