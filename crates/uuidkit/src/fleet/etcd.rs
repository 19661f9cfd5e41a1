//! Where the fleet speaks etcd: one claim transaction, the fenced mark write, lease
//! renewal and revocation. Every call is bounded by a timeout, so that a silent cluster
//! is an error, never a hang.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use etcd_client::{Client, Compare, CompareOp, ConnectOptions, GetOptions, Txn, TxnOp};

use super::config::FleetConfig;
use super::error::FleetError;
use super::keys::{self, Entry};

/// A connection to the fleet's etcd cluster.
pub(crate) struct Etcd {
    client: Client,
    endpoints: String,
    fleet: String,
    /// The bound on each call.
    timeout: Duration,
}

/// What the fleet's keys say: the IDs with a live holder, and each ID's mark.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    pub(crate) held: BTreeSet<u64>,
    /// Each ID's mark (Unix ms) and the revision it was written at.
    pub(crate) marks: BTreeMap<u64, (u64, i64)>,
}

impl Etcd {
    /// Connects; each call later waits at most `timeout`.
    pub(crate) async fn connect(cfg: &FleetConfig, timeout: Duration) -> Result<Etcd, FleetError> {
        // `require_leader`: a member cut off from its quorum answers at once with an
        // error instead of holding the call, so a renewal fails fast and is retried.
        let options = ConnectOptions::new()
            .with_connect_timeout(timeout)
            .with_timeout(timeout)
            .with_require_leader(true);
        let endpoints = cfg.endpoints_text();
        let connect = Client::connect(cfg.endpoints(), Some(options));
        let client = match tokio::time::timeout(timeout, connect).await {
            Ok(Ok(c)) => c,
            Ok(Err(e)) => return Err(etcd_error("connecting", &endpoints, describe(&e))),
            Err(_) => return Err(etcd_error("connecting", &endpoints, timed_out(timeout))),
        };
        Ok(Etcd {
            client,
            endpoints,
            fleet: cfg.fleet().to_string(),
            timeout,
        })
    }

    fn error(&self, doing: &'static str, message: String) -> FleetError {
        etcd_error(doing, &self.endpoints, message)
    }

    /// Runs one call under the timeout.
    async fn bounded<T>(
        &self,
        doing: &'static str,
        call: impl Future<Output = Result<T, etcd_client::Error>>,
    ) -> Result<T, FleetError> {
        match tokio::time::timeout(self.timeout, call).await {
            Ok(Ok(t)) => Ok(t),
            Ok(Err(e)) => Err(self.error(doing, describe(&e))),
            Err(_) => Err(self.error(doing, timed_out(self.timeout))),
        }
    }

    /// Runs a transaction: whether its comparisons held (and its operations were done).
    async fn txn(&self, doing: &'static str, txn: Txn) -> Result<bool, FleetError> {
        let mut kv = self.client.kv_client();
        Ok(self.bounded(doing, kv.txn(txn)).await?.succeeded())
    }

    /// Reads every key of the fleet; any that uuidkit did not write is an error naming it.
    pub(crate) async fn scan(&mut self) -> Result<Scan, FleetError> {
        let prefix = keys::prefix(&self.fleet);
        let mut kv = self.client.kv_client();
        let get = kv.get(prefix.clone(), Some(GetOptions::new().with_prefix()));
        let resp = self.bounded("reading the fleet's keys", get).await?;
        let mut scan = Scan::default();
        for kv in resp.kvs() {
            match keys::parse(&prefix, kv.key(), kv.value())? {
                Entry::Holder(n) => {
                    scan.held.insert(n);
                }
                Entry::Mark(n, ms) => {
                    scan.marks.insert(n, (ms, kv.mod_revision()));
                }
            }
        }
        Ok(scan)
    }

    /// A new lease of `ttl` (whole seconds).
    pub(crate) async fn grant(&mut self, ttl: Duration) -> Result<i64, FleetError> {
        let mut lease = self.client.lease_client();
        let ttl = ttl.as_secs() as i64;
        let resp = self
            .bounded("granting a lease", lease.grant(ttl, None))
            .await?;
        Ok(resp.id())
    }

    /// Takes ID `n` for `lease` and writes its first mark `first_mark`, in one
    /// transaction that succeeds only if nobody holds the ID and its mark is still the one
    /// the scan read (`scanned`: its revision, `None` for an ID never held). `false` when
    /// someone else was quicker (look again).
    pub(crate) async fn take(
        &mut self,
        n: u64,
        lease: i64,
        who: &str,
        scanned: Option<i64>,
        first_mark: u64,
    ) -> Result<bool, FleetError> {
        let holder = keys::holder(&self.fleet, n);
        let mark = keys::mark(&self.fleet, n);
        let txn = Txn::new()
            .when([
                Compare::create_revision(holder.clone(), CompareOp::Equal, 0),
                // A missing key compares as revision 0.
                Compare::mod_revision(mark.clone(), CompareOp::Equal, scanned.unwrap_or(0)),
            ])
            .and_then([
                TxnOp::put(
                    holder,
                    who,
                    Some(etcd_client::PutOptions::new().with_lease(lease)),
                ),
                TxnOp::put(mark, first_mark.to_string(), None),
            ]);
        self.txn("claiming an ID", txn).await
    }

    /// Gives ID `n` back, if `lease` still holds it: writes its final mark `last` (when
    /// given) and deletes the holder key, in one transaction, so the ID is free at once.
    /// The lease, with nothing left on it, runs out by itself.
    pub(crate) async fn give_back(
        &mut self,
        n: u64,
        lease: i64,
        last: Option<u64>,
    ) -> Result<bool, FleetError> {
        let holder = keys::holder(&self.fleet, n);
        let mut ops = Vec::with_capacity(2);
        if let Some(ms) = last {
            ops.push(TxnOp::put(keys::mark(&self.fleet, n), ms.to_string(), None));
        }
        ops.push(TxnOp::delete(holder.clone(), None));
        let txn = Txn::new()
            .when([Compare::lease(holder, CompareOp::Equal, lease)])
            .and_then(ops);
        self.txn("giving the ID back", txn).await
    }

    /// Writes ID `n`'s mark as `ms` if `lease` still holds the ID: `false` when it does
    /// not (the lease expired and the ID may be another's).
    pub(crate) async fn write_mark(
        &mut self,
        n: u64,
        lease: i64,
        ms: u64,
    ) -> Result<bool, FleetError> {
        let txn = Txn::new()
            .when([Compare::lease(
                keys::holder(&self.fleet, n),
                CompareOp::Equal,
                lease,
            )])
            .and_then([TxnOp::put(keys::mark(&self.fleet, n), ms.to_string(), None)]);
        self.txn("writing the high-water mark", txn).await
    }

    /// Renews `lease` once: its new time-to-live, or `None` if etcd no longer has it.
    pub(crate) async fn renew(&mut self, lease: i64) -> Result<Option<Duration>, FleetError> {
        let mut client = self.client.lease_client();
        let call = async {
            let (mut keeper, mut stream) = client.keep_alive(lease).await?;
            keeper.keep_alive().await?;
            stream.message().await
        };
        match self.bounded("renewing the lease", call).await? {
            Some(r) if r.ttl() > 0 => Ok(Some(Duration::from_secs(r.ttl() as u64))),
            Some(_) => Ok(None),
            None => Err(self.error("renewing the lease", "the stream closed".into())),
        }
    }

    /// Revokes `lease`: its holder key goes at once, so the ID is free for the next
    /// claim (its mark stays).
    pub(crate) async fn revoke(&mut self, lease: i64) -> Result<(), FleetError> {
        let mut client = self.client.lease_client();
        self.bounded("revoking the lease", client.revoke(lease))
            .await
            .map(drop)
    }
}

fn etcd_error(doing: &'static str, endpoints: &str, message: String) -> FleetError {
    FleetError::Etcd {
        doing,
        endpoints: endpoints.to_string(),
        message,
    }
}

/// The client's error in a line: a gRPC status as its code and message and the deepest
/// cause (the operating system's word, such as "Connection refused"), not the whole
/// chain of wrappers.
fn describe(e: &etcd_client::Error) -> String {
    match e {
        etcd_client::Error::GRpcStatus(s) => {
            let mut cause: Option<&dyn std::error::Error> = std::error::Error::source(s);
            let mut deepest = None;
            while let Some(c) = cause {
                deepest = Some(c.to_string());
                cause = c.source();
            }
            match deepest {
                Some(d) => format!("{}: {} ({d})", s.code(), s.message()),
                None => format!("{}: {}", s.code(), s.message()),
            }
        }
        other => other.to_string(),
    }
}

fn timed_out(t: Duration) -> String {
    format!("no answer in {:.1} s", t.as_secs_f64())
}
