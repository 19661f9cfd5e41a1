//! The CPU's time-stamp counter, as a tick source for the process-wide v7 generator's
//! clock gate (see [`crate::generator::v7`](mod@crate::generator::v7)): reading it costs a
//! few nanoseconds where a system clock read costs 25, and it tells whether the
//! millisecond of the last clock reading can have ended.
//!
//! It is used only where it is trustworthy: x86-64 with an *invariant* TSC (CPUID leaf
//! 0x8000_0007, EDX bit 8: constant rate, runs in every power state), readable from user
//! space (`prctl(PR_GET_TSC)` on Linux), and not under Miri. Its rate is measured once
//! per process against `CLOCK_MONOTONIC` (which a clock set back or forward does not
//! move), over at least 2^24 ticks and 2 ms, and rejected outside 100 MHz to 100 GHz.
//! Everywhere else [`CpuTicks::per_ms`] is `None` and the gate always reads the clock.

use core::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// A counter that only moves forward at a steady rate: what the v7 clock gate measures
/// elapsed time with. The process uses [`CpuTicks`]; tests drive a manual one.
pub(crate) trait TickSource {
    /// The counter now. Only called after [`per_ms`](Self::per_ms) returned `Some`.
    fn now(&self) -> u64;
    /// Counter ticks per millisecond, or `None` where the counter cannot be trusted (or
    /// its rate is not known yet): then the gate reads the clock every time.
    fn per_ms(&self) -> Option<u64>;
}

/// This CPU's time-stamp counter.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CpuTicks;

/// Ticks per millisecond once measured; 0 while not yet, `u64::MAX` for never (no
/// usable counter, or a rate out of bounds).
static PER_MS: AtomicU64 = AtomicU64::new(0);
/// Where the measurement started: `CLOCK_MONOTONIC` in the high half, the counter in the
/// low half; 0 while not started. One atomic, written once by the thread that wins the
/// compare-and-swap, so the two halves are always one pair.
static ANCHOR: portable_atomic::AtomicU128 = portable_atomic::AtomicU128::new(0);
/// Whether the counter is usable here: 0 not checked yet, 1 no, 2 yes.
static USABLE: AtomicU8 = AtomicU8::new(0);

/// The least measured span, in ticks (checked first: reading the counter is cheap) and
/// in nanoseconds. Each end is a counter reading between two clock readings at most
/// [`MAX_BRACKET_NS`] apart, so the measured rate is off by at most 2 × 20 µs / 5 ms =
/// 0.8%, within the 1/64 (1.6%) the gate takes off it.
const MIN_SPAN_TICKS: u64 = 1 << 25;
const MIN_SPAN_NS: u64 = 5_000_000;
const MAX_BRACKET_NS: u64 = 20_000;

impl TickSource for CpuTicks {
    #[inline(always)]
    fn now(&self) -> u64 {
        read()
    }

    #[inline]
    fn per_ms(&self) -> Option<u64> {
        match PER_MS.load(Ordering::Relaxed) {
            0 => calibrate(),
            u64::MAX => None,
            f => Some(f),
        }
    }
}

/// One step of measuring the rate, on a clock read that missed the gate: starts the
/// measurement, or finishes it once enough time has passed; cheap in between.
#[cold]
fn calibrate() -> Option<u64> {
    if !usable() {
        PER_MS.store(u64::MAX, Ordering::Relaxed);
        return None;
    }
    let packed = ANCHOR.load(Ordering::Acquire);
    if packed == 0 {
        let (ns, t) = pair()?;
        // A thread that lost the race leaves the winner's pair in place.
        let _ = ANCHOR.compare_exchange(
            0,
            (u128::from(ns) << 64) | u128::from(t.max(1)),
            Ordering::AcqRel,
            Ordering::Acquire,
        );
        return None;
    }
    let (ns0, anchor) = ((packed >> 64) as u64, packed as u64);
    let t = read();
    if t < anchor {
        // Behind the measurement's start: counters of different cores that disagree by
        // more than the time since. Not a counter to measure time with.
        return give_up();
    }
    if t - anchor < MIN_SPAN_TICKS {
        return None;
    }
    let (ns, t) = pair()?;
    let span = ns.checked_sub(ns0)?;
    if span < MIN_SPAN_NS || t <= anchor {
        return None;
    }
    let f = ((t - anchor) as u128 * 1_000_000 / span as u128) as u64;
    if !(100_000..=100_000_000).contains(&f) {
        return give_up();
    }
    PER_MS.store(f, Ordering::Relaxed);
    Some(f)
}

/// A counter reading and the monotonic clock at the same moment: the counter read
/// between two clock reads at most [`MAX_BRACKET_NS`] apart (a thread preempted in
/// between tries again), and the midpoint of the two. `None` after a few tries: the
/// next clock read that misses the gate tries again.
fn pair() -> Option<(u64, u64)> {
    for _ in 0..4 {
        let a = monotonic_ns()?;
        let t = read();
        let b = monotonic_ns()?;
        if b >= a && b - a <= MAX_BRACKET_NS {
            return Some((a + (b - a) / 2, t));
        }
    }
    None
}

fn give_up() -> Option<u64> {
    PER_MS.store(u64::MAX, Ordering::Relaxed);
    None
}

fn usable() -> bool {
    match USABLE.load(Ordering::Relaxed) {
        0 => {
            let ok = check_usable();
            USABLE.store(if ok { 2 } else { 1 }, Ordering::Relaxed);
            ok
        }
        v => v == 2,
    }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
fn check_usable() -> bool {
    use core::arch::x86_64::__cpuid;
    // The highest extended leaf must include 0x8000_0007 before it can be asked.
    if __cpuid(0x8000_0000).eax < 0x8000_0007 {
        return false;
    }
    let invariant = __cpuid(0x8000_0007).edx & (1 << 8) != 0;
    invariant && readable_from_user_space()
}

#[cfg(not(all(target_arch = "x86_64", not(miri))))]
fn check_usable() -> bool {
    false
}

/// Whether `rdtsc` is allowed in this process: Linux can make it fault
/// (`PR_SET_TSC`), as some sandboxes do.
#[cfg(all(target_arch = "x86_64", target_os = "linux", not(miri)))]
fn readable_from_user_space() -> bool {
    let mut mode: libc::c_int = 0;
    // SAFETY: PR_GET_TSC writes one `int` through the pointer, which points at `mode`,
    // alive for the call.
    let rc = unsafe { libc::prctl(libc::PR_GET_TSC, &mut mode as *mut libc::c_int) };
    rc == 0 && mode == libc::PR_TSC_ENABLE
}

#[cfg(all(target_arch = "x86_64", not(target_os = "linux"), not(miri)))]
fn readable_from_user_space() -> bool {
    true
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
fn read() -> u64 {
    // SAFETY: `rdtsc` reads a register and touches no memory. It is only executed after
    // `usable()` confirmed that this process may (`per_ms` returns `Some` only then, and
    // `now` is only called after that).
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(all(target_arch = "x86_64", not(miri))))]
#[inline(always)]
fn read() -> u64 {
    0
}

/// `CLOCK_MONOTONIC` in nanoseconds: steady, not moved when the clock is set.
#[cfg(unix)]
fn monotonic_ns() -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` through the pointer, which points at
    // `ts`, alive for the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    if rc != 0 {
        return None;
    }
    Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

#[cfg(not(unix))]
fn monotonic_ns() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a CPU with an invariant counter the rate is measured within a few
    /// milliseconds and agrees with the monotonic clock; elsewhere it is never used.
    #[test]
    fn rate_is_measured_or_refused() {
        let start = std::time::Instant::now();
        let f = loop {
            match CpuTicks.per_ms() {
                Some(f) => break Some(f),
                None if PER_MS.load(Ordering::Relaxed) == u64::MAX => break None,
                None if start.elapsed().as_secs() > 5 => panic!("never measured"),
                None => std::thread::sleep(std::time::Duration::from_millis(1)),
            }
        };
        assert_eq!(f.is_some(), usable());
        if let Some(f) = f {
            // 20 ms by the monotonic clock against the counter at the measured rate,
            // each end read as the measurement reads it (so a preempted reading is
            // retried, not taken).
            let pair = || loop {
                if let Some(p) = pair() {
                    break p;
                }
            };
            let (n0, t0) = pair();
            std::thread::sleep(std::time::Duration::from_millis(20));
            let (n1, t1) = pair();
            let by_ticks = (t1 - t0) as f64 / f as f64;
            let by_clock = (n1 - n0) as f64 / 1e6;
            assert!(
                (by_ticks / by_clock - 1.0).abs() < 0.02,
                "{by_ticks} ms by the counter, {by_clock} ms by the clock"
            );
        }
    }
}
