//! Where the fleet speaks etcd: one claim transaction, the fenced mark write, lease
//! renewal and revocation. Every call is bounded by a timeout, so that a silent cluster
//! is an error, never a hang.
//!
//! etcd's gRPC API, called through `tonic` with the message types `etcdv3client` ships
//! already generated: building the fleet (and so the command and the service) needs
//! no protocol compiler, only Rust.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use etcdv3client::pb::{
    Compare, DeleteRangeRequest, LeaseGrantRequest, LeaseGrantResponse, LeaseKeepAliveRequest,
    LeaseKeepAliveResponse, LeaseRevokeRequest, LeaseRevokeResponse, PutRequest, RangeRequest,
    RangeResponse, RequestOp, TxnRequest, TxnResponse,
    compare::{CompareResult, CompareTarget, TargetUnion},
    request_op::Request,
};
use tokio_stream::StreamExt as _;
use tonic::client::Grpc;
use tonic::codec::ProstCodec;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::metadata::MetadataValue;
use tonic::transport::{Channel, Endpoint};

use super::config::FleetConfig;
use super::error::FleetError;
use super::keys::{self, Entry};

/// A connection to the fleet's etcd cluster.
pub(crate) struct Etcd {
    /// One channel per member, in the order given.
    members: Vec<Member>,
    /// The member the last call went through: calls stay with it while it answers.
    current: AtomicUsize,
    endpoints: String,
    fleet: String,
    /// The bound on each call.
    timeout: Duration,
}

/// What the fleet's keys say: the IDs with a live holder, and each ID's mark.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// The fleet's geometry as written, and the revision it was written at.
    pub(crate) geometry: Option<(String, i64)>,
    /// The geometries live holders wrote into their keys (`… bits=B place=P`): the
    /// fleet's, even with its geometry key deleted.
    pub(crate) held_geometries: BTreeSet<String>,
    pub(crate) held: BTreeSet<u64>,
    /// Each ID's mark (Unix ms) and the revision it was written at.
    pub(crate) marks: BTreeMap<u64, (u64, i64)>,
}

/// One member of the cluster: its endpoint as given, and a channel to it.
struct Member {
    url: String,
    grpc: Grpc<Channel>,
}

/// Whether a failed call may be tried on another member: the member could not be
/// reached or did not answer, or it is cut off from its quorum (`hasleader`). Any other
/// status is etcd's answer to the request, the same from every member.
fn fails_over(status: &tonic::Status) -> bool {
    use tonic::Code;
    matches!(
        status.code(),
        Code::Unavailable
            | Code::Unknown
            | Code::Internal
            | Code::Cancelled
            | Code::DeadlineExceeded
    )
}

/// An endpoint as the user gave it: `host:port`, or a URL (`http://host:port`).
fn endpoint(text: &str, timeout: Duration) -> Result<Endpoint, String> {
    let url = if text.contains("://") {
        text.to_string()
    } else {
        format!("http://{text}")
    };
    Endpoint::from_shared(url)
        .map(|e| e.connect_timeout(timeout).timeout(timeout))
        .map_err(|e| format!("'{text}' is not an endpoint: {e}"))
}

/// The key range etcd calls "every key with this prefix": from the prefix up to, not
/// including, the prefix with its last byte below 0xff raised by one.
/// Keys a page of the fleet's scan holds: each a few dozen bytes, and a holder's value
/// (its host name) at most a few hundred, so a page stays well under the 4 MiB a gRPC
/// message may hold.
const SCAN_PAGE: i64 = 2_000;

fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    // All 0xff (or empty): every key from the prefix on.
    vec![0]
}

/// A comparison of `key`'s `target` with `value`, for equality.
fn equal(key: String, target: CompareTarget, value: TargetUnion) -> Compare {
    Compare {
        result: CompareResult::Equal as i32,
        target: target as i32,
        key: key.into_bytes(),
        range_end: Vec::new(),
        target_union: Some(value),
    }
}

fn put(key: String, value: String, lease: i64) -> RequestOp {
    RequestOp {
        request: Some(Request::RequestPut(PutRequest {
            key: key.into_bytes(),
            value: value.into_bytes(),
            lease,
            ..PutRequest::default()
        })),
    }
}

fn delete(key: String) -> RequestOp {
    RequestOp {
        request: Some(Request::RequestDeleteRange(DeleteRangeRequest {
            key: key.into_bytes(),
            ..DeleteRangeRequest::default()
        })),
    }
}

impl Etcd {
    /// Connects to the first member that answers, within `timeout`; the others are
    /// connected when a call needs them. Each call later waits at most `timeout`, going
    /// on to the next member when one cannot be reached or does not answer, so a
    /// cluster with a majority up keeps the fleet going whichever members are down.
    pub(crate) async fn connect(cfg: &FleetConfig, timeout: Duration) -> Result<Etcd, FleetError> {
        let endpoints = cfg.endpoints_text();
        let mut list = Vec::with_capacity(cfg.endpoints().len());
        for text in cfg.endpoints() {
            let e = endpoint(text, timeout).map_err(|m| etcd_error("connecting", &endpoints, m))?;
            list.push((text.clone(), e));
        }
        let deadline = Instant::now() + timeout;
        let mut first = None;
        let mut failures = Vec::new();
        for (i, (url, e)) in list.iter().enumerate() {
            // Each member gets an even share of the time left, so that a silent one
            // leaves time for the rest.
            let share = share(deadline, list.len() - i);
            match tokio::time::timeout(share, e.connect()).await {
                Ok(Ok(channel)) => {
                    first = Some((i, channel));
                    break;
                }
                Ok(Err(err)) => failures.push(format!("{url}: {}", chain(&err))),
                Err(_) => failures.push(format!("{url}: {}", timed_out(share))),
            }
        }
        let Some((up, channel)) = first else {
            return Err(etcd_error("connecting", &endpoints, failures.join("; ")));
        };
        let mut channel = Some(channel);
        let members = list
            .into_iter()
            .enumerate()
            .map(|(i, (url, e))| {
                let ch = match channel.take_if(|_| i == up) {
                    Some(ch) => ch,
                    None => e.connect_lazy(),
                };
                Member {
                    url,
                    grpc: Grpc::new(ch),
                }
            })
            .collect();
        Ok(Etcd {
            members,
            current: AtomicUsize::new(up),
            endpoints,
            fleet: cfg.fleet().to_string(),
            timeout,
        })
    }

    fn error(&self, doing: &'static str, message: String) -> FleetError {
        etcd_error(doing, &self.endpoints, message)
    }

    /// A request as the fleet sends every one: `hasleader` set, so that a member cut off
    /// from its quorum answers at once with an error instead of holding the call, and the
    /// call goes on to another member.
    fn request<M>(message: M) -> tonic::Request<M> {
        let mut req = tonic::Request::new(message);
        req.metadata_mut()
            .insert("hasleader", MetadataValue::from_static("true"));
        req
    }

    /// Runs `call` on the member the last call went through, and on the next ones in
    /// turn while a member cannot be reached or does not answer; the whole within the
    /// timeout. etcd's own answers (an error included) end it at once.
    async fn call<T, F, Fut>(&self, doing: &'static str, call: F) -> Result<T, FleetError>
    where
        F: Fn(Grpc<Channel>) -> Fut,
        Fut: Future<Output = Result<T, tonic::Status>>,
    {
        let deadline = Instant::now() + self.timeout;
        let n = self.members.len();
        let from = self.current.load(Ordering::Relaxed);
        let mut failures = Vec::new();
        for i in 0..n {
            let k = (from + i) % n;
            let member = &self.members[k];
            let share = share(deadline, n - i);
            if share.is_zero() {
                break;
            }
            let mut grpc = member.grpc.clone();
            let attempt = async {
                grpc.ready()
                    .await
                    .map_err(|e| tonic::Status::unavailable(chain(&e)))?;
                call(grpc).await
            };
            match tokio::time::timeout(share, attempt).await {
                Ok(Ok(t)) => {
                    self.current.store(k, Ordering::Relaxed);
                    return Ok(t);
                }
                Ok(Err(status)) if !fails_over(&status) => {
                    return Err(self.error(doing, format!("{}: {}", member.url, describe(&status))));
                }
                Ok(Err(status)) => failures.push(format!("{}: {}", member.url, describe(&status))),
                Err(_) => failures.push(format!("{}: {}", member.url, timed_out(share))),
            }
        }
        if failures.is_empty() {
            failures.push(timed_out(self.timeout));
        }
        Err(self.error(doing, failures.join("; ")))
    }

    /// One unary call of etcd's API (`path`: `/etcdserverpb.Service/Method`).
    async fn unary<M, R>(
        &self,
        doing: &'static str,
        path: &'static str,
        message: M,
    ) -> Result<R, FleetError>
    where
        M: prost::Message + Clone + Send + Sync + 'static,
        R: prost::Message + Default + Send + Sync + 'static,
    {
        self.call(doing, |mut grpc| {
            let message = message.clone();
            async move {
                let codec = ProstCodec::<M, R>::default();
                let path = PathAndQuery::from_static(path);
                Ok(grpc
                    .unary(Self::request(message), path, codec)
                    .await?
                    .into_inner())
            }
        })
        .await
    }

    /// Runs a transaction: whether its comparisons held (and its operations were done).
    async fn txn(
        &self,
        doing: &'static str,
        compare: Vec<Compare>,
        success: Vec<RequestOp>,
    ) -> Result<bool, FleetError> {
        let txn = TxnRequest {
            compare,
            success,
            failure: Vec::new(),
        };
        let resp: TxnResponse = self.unary(doing, "/etcdserverpb.KV/Txn", txn).await?;
        Ok(resp.succeeded)
    }

    /// Reads every key of the fleet, a page at a time, all at the revision of the first
    /// page (one snapshot however many IDs were ever used); any key that uuidkit did not
    /// write is an error naming it.
    pub(crate) async fn scan(&mut self, ids: u64) -> Result<Scan, FleetError> {
        let prefix = keys::fleet_prefix(&self.fleet);
        let end = prefix_end(prefix.as_bytes());
        let mut from = prefix.clone().into_bytes();
        let mut revision = 0;
        let mut scan = Scan::default();
        loop {
            let range = RangeRequest {
                key: from,
                range_end: end.clone(),
                limit: SCAN_PAGE,
                revision,
                ..RangeRequest::default()
            };
            let resp: RangeResponse = self
                .unary("reading the fleet's keys", "/etcdserverpb.KV/Range", range)
                .await?;
            if revision == 0 {
                revision = resp.header.as_ref().map_or(0, |h| h.revision);
            }
            self.take_page(&resp, ids, &mut scan)?;
            match resp.kvs.last() {
                Some(kv) if resp.more => {
                    // The next page starts just after this one's last key.
                    from = kv.key.clone();
                    from.push(0);
                }
                _ => return Ok(scan),
            }
        }
    }

    /// One page of [`scan`](Self::scan) into `scan`; a key of an ID at or past `ids`
    /// (the fleet's width does not reach it) is not one uuidkit wrote.
    fn take_page(&self, resp: &RangeResponse, ids: u64, scan: &mut Scan) -> Result<(), FleetError> {
        for kv in &resp.kvs {
            let entry = keys::parse_fleet(&self.fleet, &kv.key, &kv.value)?;
            // Beyond the width; or a mark or geometry on a lease (uuidkit writes them with
            // none, so that they outlive every holder).
            let beyond = matches!(entry, Entry::Holder(n) | Entry::Mark(n, _) if n >= ids);
            let leased = kv.lease != 0 && !matches!(entry, Entry::Holder(_));
            if beyond || leased {
                return Err(keys::garbage(&kv.key, &kv.value));
            }
            match entry {
                Entry::Geometry(g) => scan.geometry = Some((g, kv.mod_revision)),
                // Not one of ours, and not harmless: nothing would ever free the ID.
                Entry::Holder(_) if kv.lease == 0 => {
                    return Err(FleetError::Unleased {
                        key: String::from_utf8_lossy(&kv.key).escape_debug().to_string(),
                    });
                }
                Entry::Holder(n) => {
                    scan.held.insert(n);
                    if let Some(g) = keys::holder_geometry(&kv.value) {
                        scan.held_geometries.insert(g);
                    }
                }
                Entry::Mark(n, ms) => {
                    scan.marks.insert(n, (ms, kv.mod_revision));
                }
            }
        }
        Ok(())
    }

    /// A new lease of `ttl` (whole seconds).
    pub(crate) async fn grant(&mut self, ttl: Duration) -> Result<i64, FleetError> {
        let grant = LeaseGrantRequest {
            ttl: ttl.as_secs() as i64,
            id: 0,
        };
        let resp: LeaseGrantResponse = self
            .unary("granting a lease", "/etcdserverpb.Lease/LeaseGrant", grant)
            .await?;
        if !resp.error.is_empty() {
            return Err(self.error("granting a lease", escaped(&resp.error)));
        }
        Ok(resp.id)
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
        geometry: (&str, Option<i64>),
    ) -> Result<bool, FleetError> {
        let holder = keys::holder(&self.fleet, n);
        let mark = keys::mark(&self.fleet, n);
        let (ours, scanned_geometry) = geometry;
        let geometry_key = keys::geometry(&self.fleet);
        let mut compare = vec![
            equal(
                holder.clone(),
                CompareTarget::Create,
                TargetUnion::CreateRevision(0),
            ),
            // A missing key compares as revision 0.
            equal(
                mark.clone(),
                CompareTarget::Mod,
                TargetUnion::ModRevision(scanned.unwrap_or(0)),
            ),
        ];
        let mut success = vec![
            put(holder, who.to_string(), lease),
            put(mark, first_mark.to_string(), 0),
        ];
        // The geometry the scan found (the caller checked it is ours) is still there,
        // unchanged; or there was none, and this claim writes it, unless another got
        // there first (then look again, and compare with what it wrote).
        compare.push(equal(
            geometry_key.clone(),
            CompareTarget::Mod,
            TargetUnion::ModRevision(scanned_geometry.unwrap_or(0)),
        ));
        if scanned_geometry.is_none() {
            success.push(put(geometry_key, ours.to_string(), 0));
        }
        self.txn("claiming an ID", compare, success).await
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
            ops.push(put(keys::mark(&self.fleet, n), ms.to_string(), 0));
        }
        ops.push(delete(holder.clone()));
        let held = equal(holder, CompareTarget::Lease, TargetUnion::Lease(lease));
        self.txn("giving the ID back", vec![held], ops).await
    }

    /// Writes ID `n`'s mark as `ms` if `lease` still holds the ID: `false` when it does
    /// not (the lease expired and the ID may be another's).
    pub(crate) async fn write_mark(
        &mut self,
        n: u64,
        lease: i64,
        ms: u64,
    ) -> Result<bool, FleetError> {
        let held = equal(
            keys::holder(&self.fleet, n),
            CompareTarget::Lease,
            TargetUnion::Lease(lease),
        );
        let write = put(keys::mark(&self.fleet, n), ms.to_string(), 0);
        self.txn("writing the high-water mark", vec![held], vec![write])
            .await
    }

    /// Renews `lease` once: its new time-to-live, or `None` if etcd no longer has it.
    pub(crate) async fn renew(&mut self, lease: i64) -> Result<Option<Duration>, FleetError> {
        let answer = self
            .call("renewing the lease", |mut grpc| async move {
                // One request on the stream, which stays open until the answer is read
                // (as a keep-alive stream does), then is dropped with the call.
                let requests = tokio_stream::once(LeaseKeepAliveRequest { id: lease })
                    .chain(tokio_stream::pending());
                let codec = ProstCodec::<LeaseKeepAliveRequest, LeaseKeepAliveResponse>::default();
                let path = PathAndQuery::from_static("/etcdserverpb.Lease/LeaseKeepAlive");
                let mut answers = grpc
                    .streaming(Self::request(requests), path, codec)
                    .await?
                    .into_inner();
                answers.message().await
            })
            .await?;
        match answer {
            Some(r) if r.ttl > 0 => Ok(Some(Duration::from_secs(r.ttl as u64))),
            Some(_) => Ok(None),
            None => Err(self.error("renewing the lease", "the stream closed".into())),
        }
    }

    /// Revokes `lease`: its holder key goes at once, so the ID is free for the next
    /// claim (its mark stays).
    pub(crate) async fn revoke(&mut self, lease: i64) -> Result<(), FleetError> {
        let revoke = LeaseRevokeRequest { id: lease };
        let _: LeaseRevokeResponse = self
            .unary(
                "revoking the lease",
                "/etcdserverpb.Lease/LeaseRevoke",
                revoke,
            )
            .await?;
        Ok(())
    }
}

fn etcd_error(doing: &'static str, endpoints: &str, message: String) -> FleetError {
    FleetError::Etcd {
        doing,
        endpoints: endpoints.to_string(),
        message,
    }
}

/// The deepest cause under `e` (the operating system's word, such as "Connection
/// refused"), not the whole chain of wrappers.
fn deepest_cause(e: &dyn std::error::Error) -> Option<String> {
    let mut cause = e.source();
    let mut deepest = None;
    while let Some(c) = cause {
        deepest = Some(c.to_string());
        cause = c.source();
    }
    deepest
}

/// An error in a line: itself and its deepest cause.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    match deepest_cause(e) {
        Some(d) => format!("{e} ({d})"),
        None => e.to_string(),
    }
}

/// A gRPC status as its code and message and the deepest cause.
fn describe(s: &tonic::Status) -> String {
    match deepest_cause(s) {
        Some(d) => format!("{}: {} ({})", s.code(), escaped(s.message()), escaped(&d)),
        None => format!("{}: {}", s.code(), escaped(s.message())),
    }
}

/// An even share of the time left before `deadline` for each of `n` attempts.
fn share(deadline: Instant, n: usize) -> Duration {
    deadline.saturating_duration_since(Instant::now()) / n.max(1) as u32
}

/// Text a peer chose, with control characters escaped: it goes into one line of a
/// message on a terminal.
fn escaped(text: &str) -> String {
    text.escape_debug().to_string()
}

fn timed_out(t: Duration) -> String {
    format!("no answer in {:.1} s", t.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::prefix_end;

    #[test]
    fn a_prefix_range_ends_past_its_last_byte() {
        assert_eq!(prefix_end(b"/uuidkit/f/"), b"/uuidkit/f0".to_vec());
        assert_eq!(prefix_end(b"a\xff"), b"b".to_vec());
        assert_eq!(prefix_end(b"\xff\xff"), vec![0]);
    }
}
