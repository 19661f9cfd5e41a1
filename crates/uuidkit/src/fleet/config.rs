//! What a process needs to claim a machine ID: the etcd endpoints, the fleet, the width.

use std::time::Duration;

use super::error::FleetError;

/// The default lease time-to-live: a crashed holder's ID comes free this long after its
/// last renewal.
pub const DEFAULT_TTL: Duration = Duration::from_secs(10);

/// Where and how to claim a machine ID.
///
/// ```
/// use uuidkit::fleet::FleetConfig;
/// let c = FleetConfig::new("http://127.0.0.1:2379,http://127.0.0.1:22379", "web", 3)?;
/// assert_eq!(c.endpoints().len(), 2);
/// assert_eq!(c.ids(), 8);
/// assert!(FleetConfig::new("127.0.0.1:2379", "web", 3).is_err(), "no scheme");
/// assert!(FleetConfig::new("http://127.0.0.1:2379", "web", 0).is_err());
/// # Ok::<(), uuidkit::fleet::FleetError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FleetConfig {
    endpoints: Vec<String>,
    fleet: String,
    bits: u32,
    ttl: Duration,
    wait: Option<Duration>,
    last_ms: u64,
    placement: Placement,
}

/// Where the generators of a fleet put their machine IDs: with the width, the bits an ID
/// occupies. A fleet records it at its first claim (`/uuidkit/<fleet>/geometry`) and
/// every later claim must match it, so that no two holders' IDs can overlap (an ID of
/// one placement can equal the random bits of another).
///
/// ```
/// use uuidkit::fleet::Placement;
/// use uuidkit::generator::v7::V7Method;
/// assert_eq!(Placement::of_v7(V7Method::Precision), Placement::V7);
/// assert_eq!(Placement::of_v7(V7Method::Random).to_string(), "v7-random");
/// assert_eq!(Placement::Draft("draft-v7-us".parse().unwrap()).to_string(), "draft-v7-us");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// v7 Method 1 (`counter`) and Method 3 (`precision`): the head of the 32 random
    /// bits after the counter. The default.
    V7,
    /// v7 Method 2 (`random`): the last bits of `rand_b`.
    V7Random,
    /// A 2021 draft layout: the head of its random bits.
    Draft(crate::layout::Layout),
    /// A `uuidkitd` in fleet mode, whose clients choose their method: each puts the ID
    /// its leases bring in the last bits of the UUID, whatever the method or layout
    /// (see docs/daemon.md). A fleet of services only.
    Service,
}

impl Placement {
    /// Where a v7 generator of `method` puts the ID.
    pub fn of_v7(method: crate::generator::v7::V7Method) -> Placement {
        match method {
            crate::generator::v7::V7Method::Random => Placement::V7Random,
            _ => Placement::V7,
        }
    }
}

impl core::fmt::Display for Placement {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Placement::V7 => f.write_str("v7"),
            Placement::V7Random => f.write_str("v7-random"),
            Placement::Draft(l) => f.write_str(l.name()),
            Placement::Service => f.write_str("service"),
        }
    }
}

/// A fleet's geometry as its key holds it: `bits=<B> place=<placement>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Geometry;

impl Geometry {
    /// The text for width `bits` and `place`.
    pub(crate) fn text(bits: u32, place: Placement) -> String {
        format!("bits={bits} place={place}")
    }

    /// Whether `text` is a geometry uuidkit writes (any placement name of the right
    /// form, so that a newer placement is a mismatch, not garbage).
    pub(crate) fn parse(text: &str) -> Option<(u32, &str)> {
        let (digits, place) = text.strip_prefix("bits=")?.split_once(" place=")?;
        // Written as uuidkit writes it: no sign, no leading zero.
        let bits = digits
            .parse::<u32>()
            .ok()
            .filter(|b| (1..=MAX_BITS).contains(b) && b.to_string() == digits)?;
        let ok = !place.is_empty()
            && place.len() <= 32
            && place
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        ok.then_some((bits, place))
    }
}

/// The last Unix millisecond v7 can stamp (2^48 − 1, in the year 10889): no mark is ever
/// written past it, so every mark uuidkit writes is one it reads back.
pub const LAST_MARK_MS: u64 = (1 << 48) - 1;

/// How far ahead of this host's clock another holder's mark may be for its ID to be
/// claimed: 2 hours, twice the longest time-to-live. A holder on a sound clock leaves a
/// mark at most a time-to-live ahead of its clock; a mark further ahead was written by
/// a clock far ahead (or by hand), and its ID is skipped rather than run that far ahead.
pub const CLAIM_HORIZON: Duration = Duration::from_secs(2 * 3600);

/// The widest leased ID, in every layout: v7's 32 random bits after the counter, less one
/// that stays random.
pub const MAX_BITS: u32 = 31;

impl FleetConfig {
    /// Endpoints (comma-separated `http://HOST:PORT`; blanks around each, and empty
    /// ones, are ignored), a fleet name (1 to 64 of `a-z A-Z 0-9 - _ .`, not `.` or `..`:
    /// a key segment) and an ID width of 1 to 31 bits; the lease lives
    /// [`DEFAULT_TTL`], and a claim fails at once when every ID is held.
    ///
    /// # Errors
    ///
    /// [`FleetError::NoEndpoints`], [`FleetError::BadEndpoint`] naming the endpoint,
    /// [`FleetError::BadFleet`], or [`FleetError::BadBits`].
    pub fn new(endpoints: &str, fleet: &str, bits: u32) -> Result<FleetConfig, FleetError> {
        let endpoints = endpoints
            .split(',')
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(check_endpoint)
            .collect::<Result<Vec<_>, _>>()?;
        if endpoints.is_empty() {
            return Err(FleetError::NoEndpoints);
        }
        let name_ok = (1..=64).contains(&fleet.len())
            && fleet
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
            && fleet != "."
            && fleet != "..";
        if !name_ok {
            return Err(FleetError::BadFleet {
                fleet: fleet.to_string(),
            });
        }
        check_bits(bits, MAX_BITS, "a machine ID")?;
        Ok(FleetConfig {
            endpoints,
            fleet: fleet.to_string(),
            bits,
            ttl: DEFAULT_TTL,
            wait: None,
            last_ms: LAST_MARK_MS,
            placement: Placement::V7,
        })
    }

    /// The same for generators that put the ID at `placement` (by default
    /// [`Placement::V7`]: v7 `counter` and `precision`). The fleet's first claim records
    /// it with the width; a claim with another is refused
    /// ([`FleetError::Geometry`]), and a [`FleetGenerator`](super::FleetGenerator) of
    /// another placement cannot be built on the ID.
    ///
    /// ```
    /// use uuidkit::fleet::{FleetConfig, Placement};
    /// let c = FleetConfig::new("http://127.0.0.1:2379", "web", 3)?.with_placement(Placement::V7Random);
    /// assert_eq!(c.placement(), Placement::V7Random);
    /// # Ok::<(), uuidkit::fleet::FleetError>(())
    /// ```
    pub fn with_placement(mut self, placement: Placement) -> FleetConfig {
        self.placement = placement;
        self
    }

    /// Where the fleet's generators put the ID.
    pub fn placement(&self) -> Placement {
        self.placement
    }

    /// The same for generators whose layout ends before v7's: `last_ms` is the last Unix
    /// millisecond they can stamp (`draft-v8-32`'s is in 2106). A claim skips an ID
    /// whose floor leaves less than a time-to-live of that range, and no mark goes past
    /// it. Later than [`LAST_MARK_MS`] counts as it.
    ///
    /// ```
    /// let c = uuidkit::fleet::FleetConfig::new("http://127.0.0.1:2379", "web", 3)?
    ///     .with_last_millis(4_294_967_295_999);
    /// assert_eq!(c.last_millis(), 4_294_967_295_999);
    /// # Ok::<(), uuidkit::fleet::FleetError>(())
    /// ```
    pub fn with_last_millis(mut self, last_ms: u64) -> FleetConfig {
        self.last_ms = last_ms.min(LAST_MARK_MS);
        self
    }

    /// The last Unix millisecond the ID's generators can stamp ([`LAST_MARK_MS`] unless
    /// [`with_last_millis`](Self::with_last_millis) said earlier).
    pub fn last_millis(&self) -> u64 {
        self.last_ms
    }

    /// The latest mark a holder of this configuration writes or takes over: a
    /// time-to-live before [`last_millis`](Self::last_millis), so that a holder always
    /// has a time-to-live of the range left above its mark.
    pub(crate) fn max_mark_ms(&self) -> u64 {
        self.last_ms.saturating_sub(self.ttl.as_millis() as u64)
    }

    /// The same with a lease time-to-live of `ttl` (2 s to an hour, whole seconds:
    /// etcd's unit; a fraction is rounded up).
    ///
    /// ```
    /// use std::time::Duration;
    /// let c = uuidkit::fleet::FleetConfig::new("http://127.0.0.1:2379", "web", 3)?
    ///     .with_ttl(Duration::from_secs(5))?;
    /// assert_eq!(c.ttl(), Duration::from_secs(5));
    /// # Ok::<(), uuidkit::fleet::FleetError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FleetError::BadTtl`] outside 2 s to 3600 s.
    pub fn with_ttl(mut self, ttl: Duration) -> Result<FleetConfig, FleetError> {
        if ttl < Duration::from_secs(2) || ttl > Duration::from_secs(3600) {
            return Err(FleetError::BadTtl { ttl });
        }
        let secs = ttl.as_secs() + u64::from(ttl.subsec_nanos() > 0);
        self.ttl = Duration::from_secs(secs);
        Ok(self)
    }

    /// The same, but a claim that finds every ID held waits up to `wait` for one to come
    /// free instead of failing at once.
    ///
    /// ```
    /// use std::time::Duration;
    /// let c = uuidkit::fleet::FleetConfig::new("http://127.0.0.1:2379", "web", 3)?
    ///     .with_wait(Duration::from_secs(30));
    /// assert_eq!(c.wait(), Some(Duration::from_secs(30)));
    /// # Ok::<(), uuidkit::fleet::FleetError>(())
    /// ```
    pub fn with_wait(mut self, wait: Duration) -> FleetConfig {
        self.wait = Some(wait);
        self
    }

    /// The endpoints.
    pub fn endpoints(&self) -> &[String] {
        &self.endpoints
    }

    /// The fleet's name.
    pub fn fleet(&self) -> &str {
        &self.fleet
    }

    /// The ID width.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// How many IDs there are: 2^bits.
    pub fn ids(&self) -> u64 {
        1u64 << self.bits
    }

    /// The lease time-to-live.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// How long a claim waits for a free ID, if it waits.
    pub fn wait(&self) -> Option<Duration> {
        self.wait
    }

    /// The endpoints as given, comma-separated, for messages.
    pub(crate) fn endpoints_text(&self) -> String {
        self.endpoints.join(",")
    }
}

/// `bits` is 1 to `max`.
pub(crate) fn check_bits(bits: u32, max: u32, layout: &str) -> Result<(), FleetError> {
    if bits == 0 || bits > max {
        return Err(FleetError::BadBits {
            bits,
            max,
            layout: layout.to_string(),
        });
    }
    Ok(())
}

/// An endpoint is `http://HOST:PORT` (TLS is not built in); the host a name or an
/// address, the port 1 to 65535.
fn check_endpoint(e: &str) -> Result<String, FleetError> {
    let bad = |reason| FleetError::BadEndpoint {
        endpoint: e.to_string(),
        reason,
    };
    let rest = e.strip_prefix("http://").ok_or_else(|| {
        bad(if e.starts_with("https://") {
            "expected http://HOST:PORT (https is not supported)"
        } else {
            "expected http://HOST:PORT"
        })
    })?;
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if rest.contains(['/', '?', '#']) {
        return Err(bad("expected http://HOST:PORT: a path, query or fragment"));
    }
    let (host, port) = rest
        .rsplit_once(':')
        .ok_or_else(|| bad("expected http://HOST:PORT: no port"))?;
    let host_ok = !host.is_empty()
        && (host.starts_with('[') && host.ends_with(']')
            || host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b)));
    if !host_ok {
        return Err(bad(
            "expected http://HOST:PORT: the host is not a name or an address",
        ));
    }
    match port.parse::<u16>() {
        Ok(p) if p > 0 && port.bytes().all(|b| b.is_ascii_digit()) => {}
        _ => return Err(bad("expected http://HOST:PORT: the port is not 1 to 65535")),
    }
    Ok(format!("http://{rest}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_endpoints_fleets_and_widths_are_named() {
        for e in [
            "localhost:2379",
            "https://h:1",
            "unix:///x",
            "http://h:1/foo",
            "http://h:1?x",
            "http://h",
            "http://h:0",
            "http://h:70000",
            "http://:1",
            "http://h/x:1",
            "http://h:1x",
        ] {
            let err = FleetConfig::new(e, "f", 3).unwrap_err();
            assert!(matches!(err, FleetError::BadEndpoint { .. }), "{e}");
            assert!(err.to_string().contains(e), "{err}");
        }
        // Each says what is wrong with it, not another endpoint's fault.
        let why = |e: &str| FleetConfig::new(e, "f", 3).unwrap_err().to_string();
        assert!(why("https://h:1").contains("https is not supported"));
        assert!(!why("unix:///x").contains("https"), "{}", why("unix:///x"));
        assert!(
            why("http://h:1/foo").contains("a path"),
            "{}",
            why("http://h:1/foo")
        );
        assert_eq!(
            FleetConfig::new(" , ", "f", 3),
            Err(FleetError::NoEndpoints)
        );
        for f in ["", "a/b", "..", "a b", &"x".repeat(65)] {
            assert!(matches!(
                FleetConfig::new("http://h:1", f, 3),
                Err(FleetError::BadFleet { .. })
            ));
        }
        for b in [0, 32, 64] {
            assert!(matches!(
                FleetConfig::new("http://h:1", "f", b),
                Err(FleetError::BadBits { .. })
            ));
        }
        // A layout with no room for an ID says so, not "1 to 0 bits".
        let b1 = FleetError::BadBits {
            bits: 3,
            max: 0,
            layout: "b1".into(),
        };
        assert_eq!(b1.to_string(), "b1 takes no machine ID");
        let c = FleetConfig::new("http://[::1]:2379/, http://a.b:1", "f", 31).unwrap();
        assert_eq!(c.endpoints(), ["http://[::1]:2379", "http://a.b:1"]);
        assert!(c.clone().with_ttl(Duration::from_secs(1)).is_err());
        assert_eq!(
            c.with_ttl(Duration::from_millis(2500)).unwrap().ttl(),
            Duration::from_secs(3)
        );
    }
}
