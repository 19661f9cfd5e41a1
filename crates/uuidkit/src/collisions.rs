//! How likely two hosts are to make the same UUID: the expected number of colliding
//! pairs and the probability of at least one, for a fleet of `H` hosts each making `R`
//! UUIDs a second for `Y` years, for each way uuidkit generates.
//!
//! On one host uuidkit's generators never repeat (the guarantees of [`crate::generator`]
//! and [`crate::store`]). Between hosts nothing is coordinated, so what keeps them apart
//! is the bits each host draws at random. Every mode reduces to one of three models
//! ([`Model`]), with `T` the fleet's lifetime in seconds (`Y` × 31,557,600) and
//! `C(H, 2) = H(H − 1)/2` the pairs of hosts:
//!
//! - **Birthday** (v4): `n = H·R·T` UUIDs, each 122 random bits:
//!   `E = n(n − 1)/2 / 2^122`.
//! - **Per unit of time** (v7, time-based v8, v1/v6 with a random node per UUID): two
//!   UUIDs collide only if they carry the same time unit (length `u`) and the same `b`
//!   random bits; UUIDs of one host never collide (its generator is monotonic). In each
//!   unit a pair of hosts makes `(R·u)²` pairs of UUIDs, so
//!   `E = C(H, 2) · (T/u) · (R·u)² / 2^b = C(H, 2) · T · u · R² / 2^b`.
//! - **Sequence from zero** (the 2021 draft's layouts): the sequence restarts at 0 in
//!   each unit, so two hosts in one unit share `min(k_A, k_B)` sequence values, and only
//!   the `b` random (node) bits after it keep those apart. With `k = R·u` UUIDs a unit:
//!   `E = C(H, 2) · (T/u) · m(k) / 2^b`, with `m(k) = k` when `k ≥ 1` and `k²` below (a
//!   host then uses a fraction `k` of the units, one UUID each).
//! - **Host identity** (v1/v6 with a node fixed per generator): a host's UUIDs all carry
//!   its identity, node and clock sequence (`b` bits). Two hosts clash only if their
//!   identities are equal (probability `2^−b` a pair), and then at every 100 ns tick both
//!   use: `T · R² · 10^−7` pairs (at most one UUID a tick per identity). The expected
//!   count is `C(H, 2) · T · R² · 10^−7 / 2^b` — the per-unit formula with the same bits —
//!   but the collisions come all together or not at all, so the probability is that of
//!   a shared identity: `1 − exp(−C(H, 2) · 2^−b · q)`, with `q` the chance that two
//!   hosts with one identity clash at all, `1 − exp(−T · R² · 10^−7)`.
//!
//! Otherwise `P = 1 − exp(−E)` (a Poisson count of rare, nearly independent collisions),
//! computed as `−expm1(−E)` so that a tiny probability is not rounded to 0.
//!
//! Machine-ID bits ([`MachineId`]) take the most significant random bits for an ID of
//! the host: IDs handed out distinct make collisions between hosts impossible (there
//! are `2^m` of them); IDs hashed from the host leave the expected count as it was (a
//! pair shares an ID with probability `2^−m`, and then has `b − m` random bits).
//!
//! ```
//! use uuidkit::collisions::{estimate, Fleet, Mode};
//! let fleet = Fleet { hosts: 10.0, rate: 1000.0, years: 1.0 };
//! let e = estimate(&Mode::V4, &fleet)?;
//! assert!(e.expected_pairs > 9.3e-15 && e.expected_pairs < 9.4e-15);
//! assert!((e.probability / e.expected_pairs - 1.0).abs() < 1e-12); // P ≈ E when E is tiny
//! # Ok::<(), uuidkit::collisions::CollisionError>(())
//! ```

use core::fmt;

use crate::generator::v7::V7Method;
use crate::layout::Layout;
use crate::layout::draft::{Precision, V8Timestamp};

/// Seconds in a Julian year (365.25 days), the year of the figures.
pub const SECONDS_PER_YEAR: f64 = 31_557_600.0;

/// One 100 ns tick of v1 and v6, in seconds.
const TICK: f64 = 1e-7;

/// A fleet: how many hosts, each making how many UUIDs a second, for how long.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fleet {
    /// Hosts generating at once (each with its own generator state).
    pub hosts: f64,
    /// UUIDs a second per host, evenly spread.
    pub rate: f64,
    /// Years of generation.
    pub years: f64,
}

impl Fleet {
    /// The fleet's lifetime in seconds.
    pub fn seconds(&self) -> f64 {
        self.years * SECONDS_PER_YEAR
    }

    /// UUIDs the whole fleet makes.
    pub fn uuids(&self) -> f64 {
        self.hosts * self.rate * self.seconds()
    }
}

/// How a host gets its machine ID ([`Mode`]s that have one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MachineId {
    /// `bits` bits, handed out distinct to every host (by whoever runs the fleet).
    Assigned {
        /// Width of the ID.
        bits: u32,
    },
    /// `bits` bits of a hash of the host (as the node `hash` strategy is).
    Hashed {
        /// Width of the ID.
        bits: u32,
    },
    /// `bits` bits leased from etcd ([`crate::fleet`], feature `etcd`): distinct among
    /// live hosts, and a host that takes over an ID starts above its previous holder's
    /// high-water mark. Like [`Assigned`](MachineId::Assigned), it needs no more hosts at
    /// once than there are IDs.
    Leased {
        /// Width of the ID.
        bits: u32,
    },
}

impl MachineId {
    fn bits(self) -> u32 {
        match self {
            MachineId::Assigned { bits }
            | MachineId::Hashed { bits }
            | MachineId::Leased { bits } => bits,
        }
    }
}

/// How a v1/v6 generator picks its node (the strategies of
/// [`NodeStrategy`](crate::node::NodeStrategy) that matter here).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    /// Random, once per generator (uuidkit's default, `static`).
    Static,
    /// Random, for every UUID.
    Random,
    /// A hash of the host's name and addresses, once per host.
    Hash,
    /// The host's MAC address.
    Mac,
}

/// A way uuidkit generates, as far as collisions between hosts go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// v4: 122 random bits.
    V4,
    /// v7 with an RFC 9562 §6.2 method, and optionally a machine ID in `rand_b` after
    /// the counter (in place of random bits).
    V7 {
        /// The method.
        method: V7Method,
        /// The machine ID, if any.
        machine_id: Option<MachineId>,
    },
    /// v1 or v6 (the same fields) with a node strategy.
    Gregorian {
        /// How the node is chosen.
        node: Node,
    },
    /// Time-based v8 (RFC 9562 Appendix B.1: 10 ns units, a 30-bit counter and 32
    /// random bits), optionally with a machine ID in place of random bits.
    V8 {
        /// The machine ID, if any.
        machine_id: Option<MachineId>,
    },
    /// One of the 2021 draft's layouts ([`Layout::DraftV7`] or [`Layout::DraftV8`];
    /// [`Layout::B1`] is [`Mode::V8`]), optionally with a machine ID in its random bits.
    Draft {
        /// The layout.
        layout: Layout,
        /// The machine ID, if any.
        machine_id: Option<MachineId>,
    },
}

/// What a mode reduces to; see the [module](self) for the formulas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Model {
    /// Independent random values of `bits` bits.
    Birthday {
        /// Random bits per UUID.
        bits: f64,
    },
    /// Collisions only within one time unit of `unit` seconds, `bits` random bits per
    /// UUID (seeds and random tails together).
    PerUnit {
        /// The time unit, in seconds.
        unit: f64,
        /// Random bits that must match.
        bits: f64,
    },
    /// A sequence from 0 in each unit of `unit` seconds, then `bits` random bits.
    Sequenced {
        /// The time unit, in seconds.
        unit: f64,
        /// Random bits after the sequence.
        bits: f64,
    },
    /// A fixed identity of `bits` bits per host, one UUID per 100 ns tick.
    HostIdentity {
        /// Random bits of the identity (node and clock sequence).
        bits: f64,
    },
    /// Hosts never collide (distinct MAC addresses or assigned machine IDs).
    Distinct,
}

/// The figures for a mode and a fleet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The expected number of colliding pairs of UUIDs.
    pub expected_pairs: f64,
    /// The probability of at least one collision.
    pub probability: f64,
    /// The model the figures come from.
    pub model: Model,
}

/// A mode and fleet the figures cannot be given for.
#[derive(Clone, Debug, PartialEq)]
pub enum CollisionError {
    /// A figure is negative, not a number, or infinite.
    BadFigure {
        /// `hosts`, `rate` or `years`.
        field: &'static str,
        /// Its value.
        value: f64,
    },
    /// A v1/v6 host makes at most one UUID per 100 ns tick per node and clock sequence.
    RateAboveGregorianCap {
        /// The rate asked for.
        rate: f64,
    },
    /// More hosts than distinct machine IDs of the width.
    TooFewMachineIds {
        /// Hosts.
        hosts: f64,
        /// ID width.
        bits: u32,
    },
    /// A machine ID wider than the random bits it replaces.
    MachineIdTooWide {
        /// ID width.
        bits: u32,
        /// Random bits there are to replace.
        max: u32,
    },
    /// [`MachineId::Leased`] where the fleet leases no ID, or cannot make what the
    /// figures ask: a version it does not stamp, a width it does not lease, a rate above
    /// what one holder makes, years past the layout's range. The figures would count
    /// UUIDs the fleet never makes.
    NotLeasable {
        /// Why, in words.
        reason: String,
    },
}

impl fmt::Display for CollisionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CollisionError::BadFigure { field, value } => {
                write!(f, "{field} must be a finite number at least 0, not {value}")
            }
            CollisionError::RateAboveGregorianCap { rate } => write!(
                f,
                "a v1 or v6 generator makes at most 10,000,000 UUIDs a second (one per 100 ns \
                 tick per node and clock sequence), not {rate}"
            ),
            CollisionError::TooFewMachineIds { hosts, bits } => write!(
                f,
                "{hosts} hosts cannot have distinct {bits}-bit machine IDs (there are {})",
                2f64.powi(*bits as i32)
            ),
            CollisionError::MachineIdTooWide { bits, max } => {
                write!(
                    f,
                    "a {bits}-bit machine ID is wider than the {max} random bits it replaces"
                )
            }
            CollisionError::NotLeasable { reason } => {
                write!(
                    f,
                    "machine IDs leased from etcd cannot give these figures: {reason}"
                )
            }
        }
    }
}

impl std::error::Error for CollisionError {}

/// The random bits that keep hosts apart in `mode`, before any machine ID, and their
/// time unit; the table in docs/collisions.md derives each.
///
/// ```
/// use uuidkit::collisions::{model, Mode, Model};
/// assert_eq!(model(&Mode::V4)?, Model::Birthday { bits: 122.0 });
/// # Ok::<(), uuidkit::collisions::CollisionError>(())
/// ```
///
/// # Errors
///
/// [`CollisionError::MachineIdTooWide`] when the machine ID is wider than the mode's
/// random bits take.
pub fn model(mode: &Mode) -> Result<Model, CollisionError> {
    let with_id = |unit: f64, bits: u32, max_id: u32, id: Option<MachineId>| match id {
        None => Ok(Model::PerUnit {
            unit,
            bits: bits.into(),
        }),
        Some(m) if m.bits() > max_id => Err(CollisionError::MachineIdTooWide {
            bits: m.bits(),
            max: max_id,
        }),
        Some(MachineId::Assigned { .. } | MachineId::Leased { .. }) => Ok(Model::Distinct),
        // A shared ID (2^−m) times the bits left (b − m): as without one.
        Some(MachineId::Hashed { .. }) => Ok(Model::PerUnit {
            unit,
            bits: bits.into(),
        }),
    };
    Ok(match *mode {
        Mode::V4 => Model::Birthday { bits: 122.0 },
        // Method 1: a 42-bit counter seeded with 41 random bits each millisecond (top bit
        // clear), then 32 random bits. Two hosts in one millisecond with k UUIDs each
        // overlap in about k²/2^41 counter values, each matching in its tail with 2^−32.
        Mode::V7 {
            method: V7Method::Counter,
            machine_id,
        } => with_id(1e-3, 73, 32, machine_id)?,
        // Method 2: a 74-bit value seeded with 73 random bits each millisecond, stepping
        // by 1 to 2^32 at random: each value is spread over 2^73 as a seed is.
        Mode::V7 {
            method: V7Method::Random,
            machine_id,
        } => with_id(1e-3, 73, 32, machine_id)?,
        // Method 3: 12 bits of sub-millisecond fraction (units of 1/4096 ms), a 30-bit
        // counter seeded with 29 random bits, then 32 random bits.
        Mode::V7 {
            method: V7Method::Precision,
            machine_id,
        } => with_id(1e-3 / 4096.0, 61, 32, machine_id)?,
        // Appendix B.1: 10 ns units, a 30-bit counter seeded with 29 random bits, then 32.
        Mode::V8 { machine_id }
        | Mode::Draft {
            layout: Layout::B1,
            machine_id,
        } => with_id(1e-8, 61, 32, machine_id)?,
        // `b2` is name-based: the same name gives the same UUID on every host, by design;
        // different names collide as SHA-256 truncated to 122 bits does.
        Mode::Draft {
            layout: Layout::B2, ..
        } => Model::Birthday { bits: 122.0 },
        Mode::Draft { layout, machine_id } => {
            let unit = match layout {
                Layout::DraftV7(Precision::Millis) | Layout::DraftV8(V8Timestamp::Millis48) => 1e-3,
                Layout::DraftV7(Precision::Micros) => 1e-6,
                Layout::DraftV7(Precision::Nanos) => 1e-9,
                Layout::DraftV8(V8Timestamp::Secs32) => 1.0,
                Layout::DraftV8(V8Timestamp::Gregorian60) => TICK,
                Layout::DraftV8(V8Timestamp::Nanos64) => 16e-9,
                Layout::B1 | Layout::B2 => unreachable!("matched above"),
            };
            let bits = layout.random_bits();
            match machine_id {
                // At least one random bit stays, so that the node is never all zero.
                Some(m) if m.bits() >= bits => {
                    return Err(CollisionError::MachineIdTooWide {
                        bits: m.bits(),
                        max: bits - 1,
                    });
                }
                Some(MachineId::Assigned { .. } | MachineId::Leased { .. }) => Model::Distinct,
                None | Some(MachineId::Hashed { .. }) => Model::Sequenced {
                    unit,
                    bits: bits.into(),
                },
            }
        }
        // A node drawn per UUID: 47 random bits (the multicast bit is set) in every
        // UUID, beside the host's random 14-bit clock sequence: per 100 ns tick.
        Mode::Gregorian { node: Node::Random } => Model::PerUnit {
            unit: TICK,
            bits: 61.0,
        },
        // A node per generator, random or hashed from the host: 47 + 14 bits of identity.
        Mode::Gregorian {
            node: Node::Static | Node::Hash,
        } => Model::HostIdentity { bits: 61.0 },
        // A MAC address is the host's own: hosts never share one (unless cloned).
        Mode::Gregorian { node: Node::Mac } => Model::Distinct,
    })
}

/// The expected number of colliding pairs and the probability of at least one collision
/// for `mode` in `fleet`.
///
/// ```
/// use uuidkit::collisions::{estimate, Fleet, Mode, MachineId};
/// use uuidkit::generator::v7::V7Method;
/// // 1,000 hosts at a million a second for 10 years: v7's 73 random bits a millisecond
/// // are not enough (about 17 colliding pairs expected), v4's 122 bits are (about 0.01).
/// let fleet = Fleet { hosts: 1000.0, rate: 1e6, years: 10.0 };
/// let v7 = estimate(&Mode::V7 { method: V7Method::Counter, machine_id: None }, &fleet)?;
/// assert!(v7.expected_pairs > 16.0 && v7.expected_pairs < 18.0);
/// assert!(estimate(&Mode::V4, &fleet)?.expected_pairs < 0.01);
/// let assigned = Mode::V7 { method: V7Method::Counter, machine_id: Some(MachineId::Assigned { bits: 10 }) };
/// assert_eq!(estimate(&assigned, &fleet)?.probability, 0.0);
/// # Ok::<(), uuidkit::collisions::CollisionError>(())
/// ```
///
/// # Errors
///
/// [`CollisionError::BadFigure`] for a figure that is negative, not a number or infinite,
/// [`CollisionError::RateAboveGregorianCap`] for a v1/v6 rate above one UUID a tick, and
/// [`CollisionError::TooFewMachineIds`] for more hosts than machine IDs; and those of
/// [`model`].
pub fn estimate(mode: &Mode, fleet: &Fleet) -> Result<Estimate, CollisionError> {
    for (field, value) in [
        ("hosts", fleet.hosts),
        ("rate", fleet.rate),
        ("years", fleet.years),
    ] {
        if !value.is_finite() || value < 0.0 {
            return Err(CollisionError::BadFigure { field, value });
        }
    }
    if matches!(mode, Mode::Gregorian { .. }) && fleet.rate > 1.0 / TICK {
        return Err(CollisionError::RateAboveGregorianCap { rate: fleet.rate });
    }
    let id = match mode {
        Mode::V7 { machine_id, .. } | Mode::V8 { machine_id } | Mode::Draft { machine_id, .. } => {
            *machine_id
        }
        _ => None,
    };
    if let Some(MachineId::Assigned { bits } | MachineId::Leased { bits }) = id
        && fleet.hosts > 2f64.powi(bits as i32)
    {
        return Err(CollisionError::TooFewMachineIds {
            hosts: fleet.hosts,
            bits,
        });
    }
    if let Some(MachineId::Leased { bits }) = id {
        leasable(mode, bits, fleet, crate::time::UnixTime::now())
            .map_err(|reason| CollisionError::NotLeasable { reason })?;
    }
    Ok(model(mode)?.estimate(fleet))
}

/// `Ok` if a fleet of leased IDs ([`crate::fleet`]) makes what `fleet` asks of `mode`,
/// its years counted from `now`; else why not. The fleet stamps v7 and the draft's
/// time-based layouts only, leases 1 to 31 bits, keeps each holder within a time-to-live
/// of its clock (so a layout's sequence caps its rate), and makes nothing past the end
/// of a layout's range.
fn leasable(
    mode: &Mode,
    bits: u32,
    fleet: &Fleet,
    now: crate::time::UnixTime,
) -> Result<(), String> {
    use crate::store::GeneratorKind;
    const MAX_BITS: u32 = 31; // the fleet's (`fleet::MAX_BITS`, behind the `etcd` feature)
    let kind = match *mode {
        Mode::V7 { .. } => GeneratorKind::V7,
        Mode::Draft { layout, .. } if !matches!(layout, Layout::B1 | Layout::B2) => {
            GeneratorKind::Draft(layout)
        }
        Mode::Draft { layout, .. } => {
            return Err(format!(
                "the fleet stamps v7 and the 2021 draft's time-based layouts, not {}",
                layout.name()
            ));
        }
        _ => {
            return Err(
                "the fleet stamps v7 and the 2021 draft's time-based layouts, not b1".into(),
            );
        }
    };
    if bits > MAX_BITS {
        return Err(format!(
            "the fleet leases IDs of 1 to {MAX_BITS} bits, not {bits}"
        ));
    }
    // A draft layout's sequence in a second; v7's counter (every method) leaves at least
    // 2^41 values a millisecond above its seed.
    let per_second = match kind {
        GeneratorKind::V7 => 1000.0 * 2f64.powi(41),
        _ => kind.draft_second() as f64,
    };
    if fleet.rate > per_second {
        // Whole numbers as they are, the huge in scientific notation.
        let figure = |v: f64| {
            if v < 1e9 && v.fract() == 0.0 {
                format!("{v}")
            } else {
                format!("{v:.3e}")
            }
        };
        return Err(format!(
            "a holder of {kind} makes at most {} UUIDs a second (past that it waits for its \
             clock, never more than a time-to-live ahead), not {}",
            figure(per_second),
            figure(fleet.rate)
        ));
    }
    if let Some((end, _)) = kind.position_time(kind.max_position()) {
        let left = (end.secs() - now.secs()) as f64 / SECONDS_PER_YEAR;
        if fleet.years > left {
            return Err(format!(
                "{kind}'s time ends at {} ({left:.1} years from now), and the fleet makes \
                 nothing past it, not {} years",
                end.to_rfc3339(0),
                fleet.years
            ));
        }
    }
    Ok(())
}

impl Model {
    /// The figures this model gives for `fleet` (not checked: [`estimate`] checks the
    /// figures and the mode first).
    ///
    /// ```
    /// use uuidkit::collisions::{Fleet, Model};
    /// // 2 hosts, one UUID each in each of 2^20 units, 20 bits: 2^20 / 2^20 = 1 pair.
    /// let fleet = Fleet { hosts: 2.0, rate: 1.0, years: 1048576.0 / 31_557_600.0 };
    /// let e = Model::PerUnit { unit: 1.0, bits: 20.0 }.estimate(&fleet);
    /// assert!((e.expected_pairs - 1.0).abs() < 1e-9);
    /// ```
    pub fn estimate(self, fleet: &Fleet) -> Estimate {
        let t = fleet.seconds();
        let r = fleet.rate;
        let host_pairs = fleet.hosts * (fleet.hosts - 1.0).max(0.0) / 2.0;
        // Each figure as exp(ln …): products of huge and tiny factors stay in range.
        let (expected_pairs, probability) = match self {
            Model::Birthday { bits } => {
                let n = fleet.uuids();
                let e = exp_of_ln(&[n, (n - 1.0).max(0.0), 0.5], bits);
                (e, -(-e).exp_m1())
            }
            Model::PerUnit { unit, bits } => {
                let e = exp_of_ln(&[host_pairs, t, unit, r, r], bits);
                (e, -(-e).exp_m1())
            }
            Model::Sequenced { unit, bits } => {
                let k = r * unit;
                // (T/u)·m(k): k ≥ 1 gives T·R, below it T·R²·u.
                let e = if k >= 1.0 {
                    exp_of_ln(&[host_pairs, t, r], bits)
                } else {
                    exp_of_ln(&[host_pairs, t, unit, r, r], bits)
                };
                (e, -(-e).exp_m1())
            }
            Model::HostIdentity { bits } => {
                let e = exp_of_ln(&[host_pairs, t, TICK, r, r], bits);
                let q = -(-(t * r * r * TICK)).exp_m1();
                let shared = exp_of_ln(&[host_pairs, q], bits);
                (e, -(-shared).exp_m1())
            }
            Model::Distinct => (0.0, 0.0),
        };
        Estimate {
            expected_pairs,
            probability,
            model: self,
        }
    }
}

/// The product of `factors` divided by 2^`bits`, through logarithms; 0 when a factor is.
fn exp_of_ln(factors: &[f64], bits: f64) -> f64 {
    if factors.iter().any(|&f| f <= 0.0) {
        return 0.0;
    }
    let ln: f64 = factors.iter().map(|f| f.ln()).sum::<f64>() - bits * core::f64::consts::LN_2;
    ln.exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fleet(hosts: f64, rate: f64, years: f64) -> Fleet {
        Fleet { hosts, rate, years }
    }

    #[test]
    fn v4_is_the_birthday_bound() {
        // 2^61 UUIDs among 2^122 values: E = 2^61(2^61 − 1)/2 / 2^122 ≈ 1/2.
        let n = 2f64.powi(61);
        let e = estimate(&Mode::V4, &fleet(1.0, n / SECONDS_PER_YEAR, 1.0)).unwrap();
        assert!(
            (e.expected_pairs - 0.5).abs() < 1e-9,
            "{}",
            e.expected_pairs
        );
        assert!((e.probability - (1.0 - (-0.5f64).exp())).abs() < 1e-12);
    }

    #[test]
    fn tiny_probabilities_are_not_zero_and_huge_fleets_give_one() {
        let e = estimate(&Mode::V4, &fleet(2.0, 1.0, 1e-6)).unwrap();
        assert!(
            e.probability > 0.0 && e.probability < 1e-30,
            "{}",
            e.probability
        );
        let e = estimate(&Mode::V4, &fleet(1e12, 1e12, 1e3)).unwrap();
        assert_eq!(e.probability, 1.0);
        assert!(e.expected_pairs.is_finite() || e.expected_pairs == f64::INFINITY);
        let e = estimate(
            &Mode::Gregorian { node: Node::Static },
            &fleet(1e9, 1e7, 100.0),
        )
        .unwrap();
        assert!(e.probability > 0.0 && e.probability <= 1.0 && !e.probability.is_nan());
    }

    #[test]
    fn one_host_or_no_time_never_collides_across_hosts() {
        for mode in [
            Mode::V7 {
                method: V7Method::Counter,
                machine_id: None,
            },
            Mode::V8 { machine_id: None },
            Mode::Gregorian { node: Node::Static },
        ] {
            assert_eq!(
                estimate(&mode, &fleet(1.0, 1e6, 10.0))
                    .unwrap()
                    .expected_pairs,
                0.0
            );
            assert_eq!(
                estimate(&mode, &fleet(100.0, 1e6, 0.0))
                    .unwrap()
                    .probability,
                0.0
            );
        }
    }

    #[test]
    fn bad_figures_are_errors_naming_them() {
        let e = estimate(&Mode::V4, &fleet(-1.0, 1.0, 1.0)).unwrap_err();
        assert_eq!(
            e,
            CollisionError::BadFigure {
                field: "hosts",
                value: -1.0
            }
        );
        assert!(matches!(
            estimate(&Mode::V4, &fleet(1.0, f64::NAN, 1.0)),
            Err(CollisionError::BadFigure { field: "rate", .. })
        ));
        assert!(matches!(
            estimate(&Mode::Gregorian { node: Node::Mac }, &fleet(1.0, 2e7, 1.0)),
            Err(CollisionError::RateAboveGregorianCap { .. })
        ));
        let too_many = Mode::V8 {
            machine_id: Some(MachineId::Assigned { bits: 4 }),
        };
        assert!(matches!(
            estimate(&too_many, &fleet(17.0, 1.0, 1.0)),
            Err(CollisionError::TooFewMachineIds { bits: 4, .. })
        ));
        let wide = Mode::V8 {
            machine_id: Some(MachineId::Hashed { bits: 40 }),
        };
        assert!(matches!(
            estimate(&wide, &fleet(2.0, 1.0, 1.0)),
            Err(CollisionError::MachineIdTooWide { bits: 40, max: 32 })
        ));
    }

    #[test]
    fn hashed_machine_ids_leave_the_expectation_and_assigned_ones_remove_it() {
        let f = fleet(1000.0, 1e5, 10.0);
        let plain = estimate(
            &Mode::V7 {
                method: V7Method::Counter,
                machine_id: None,
            },
            &f,
        )
        .unwrap();
        let hashed = Mode::V7 {
            method: V7Method::Counter,
            machine_id: Some(MachineId::Hashed { bits: 16 }),
        };
        assert_eq!(
            estimate(&hashed, &f).unwrap().expected_pairs,
            plain.expected_pairs
        );
        let assigned = Mode::V7 {
            method: V7Method::Counter,
            machine_id: Some(MachineId::Assigned { bits: 16 }),
        };
        assert_eq!(estimate(&assigned, &f).unwrap().expected_pairs, 0.0);
    }

    #[test]
    fn a_fixed_identity_clusters_its_collisions() {
        // Same expected count per node strategy; a fixed identity's probability is that
        // of two hosts sharing it, far below the count once they make many UUIDs.
        let f = fleet(1e6, 1e6, 10.0);
        let fixed = estimate(&Mode::Gregorian { node: Node::Static }, &f).unwrap();
        let per_uuid = estimate(&Mode::Gregorian { node: Node::Random }, &f).unwrap();
        assert!((fixed.expected_pairs / per_uuid.expected_pairs - 1.0).abs() < 1e-9);
        assert!(fixed.probability < per_uuid.probability);
        let host_pairs = 1e6 * (1e6 - 1.0) / 2.0;
        assert!((fixed.probability / (host_pairs / 2f64.powi(61)) - 1.0).abs() < 1e-3);
    }
}
