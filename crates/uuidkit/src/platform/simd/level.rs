//! Which implementation of the codec runs: [`Level`], and [`level`], the best this CPU
//! supports, found once. A leaf, so that the entry points in `mod.rs` and `batch.rs`
//! both take it from here.

/// An implementation of the codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    not(any(test, all(target_arch = "x86_64", not(miri)))),
    allow(dead_code)
)]
pub(super) enum Level {
    /// The `const fn` reference in [`scalar`]. Only the tests name it: the entry
    /// points call the scalar code directly where no kernel applies.
    #[cfg_attr(not(test), allow(dead_code))]
    Scalar,
    /// x86-64 baseline.
    Sse2,
    /// x86-64 with SSSE3.
    Ssse3,
    /// x86-64 with AVX2.
    Avx2,
}

impl Level {
    /// Every level, worst first.
    #[cfg(test)]
    pub(super) const ALL: [Level; 4] = [Level::Scalar, Level::Sse2, Level::Ssse3, Level::Avx2];

    /// Whether this CPU can run this level (asks the CPU; not cached).
    #[cfg_attr(not(any(test, target_arch = "x86_64")), allow(dead_code))]
    pub(super) fn supported(self) -> bool {
        match self {
            Level::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Level::Sse2 => true,
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            Level::Ssse3 => std::is_x86_feature_detected!("ssse3"),
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            Level::Avx2 => std::is_x86_feature_detected!("avx2"),
            // Without `std` there is no run-time detection: what the build enables.
            #[cfg(all(target_arch = "x86_64", not(feature = "std")))]
            Level::Ssse3 => cfg!(target_feature = "ssse3"),
            #[cfg(all(target_arch = "x86_64", not(feature = "std")))]
            Level::Avx2 => cfg!(target_feature = "avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }
}

/// The level the entry points use: the best this CPU supports, found once.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
pub(super) fn level() -> Level {
    use core::sync::atomic::{AtomicU8, Ordering};

    /// 0 until detected, then `Level as u8 + 1`.
    static DETECTED: AtomicU8 = AtomicU8::new(0);

    #[cold]
    #[inline(never)]
    fn detect() -> Level {
        let best = if Level::Avx2.supported() {
            Level::Avx2
        } else if Level::Ssse3.supported() {
            Level::Ssse3
        } else {
            Level::Sse2
        };
        // Racing threads all store the same value.
        DETECTED.store(best as u8 + 1, Ordering::Relaxed);
        best
    }

    if cfg!(target_feature = "avx2") {
        return Level::Avx2;
    }
    // AVX2 first: the branch the hot paths take is then a single compare.
    let detected = DETECTED.load(Ordering::Relaxed);
    if detected == Level::Avx2 as u8 + 1 {
        return Level::Avx2;
    }
    match detected {
        3 => Level::Ssse3,
        2 => Level::Sse2,
        _ => detect(),
    }
}
