//! Batch kernels: many UUIDs in one call of a `#[target_feature]` function, so that the
//! per-UUID kernels of [`super::kernels`] are inlined into the loop instead of called once a UUID.
//!
//! Encoding writes each UUID straight into its line of the caller's buffer: the buffer is
//! cut into `LINE`-byte arrays (`LINE` a constant, so every store has a fixed size and
//! offset, checked at compile time as in [`super::kernels`]). Parsing takes lines of the common
//! shape, 36 bytes then `\n`, four at a time (four compares, then the hyphenated kernel
//! four times), a single such line (or one ended by `\r\n`) with one compare, and any
//! other line through the same form dispatch as the one-UUID parser.

use super::kernels::{Check, Decode, Kernel, Take, parse_forms, sub, sub_mut};
use crate::codec::form::Case;
use crate::uuid::Uuid;

/// The line end `end` (one or two bytes: `LINE - TEXT`) after the text of a line.
#[inline(always)]
fn line_end<const TEXT: usize, const LINE: usize>(slot: &mut [u8; LINE], end: &[u8; 2]) {
    const {
        assert!(
            TEXT < LINE && LINE - TEXT <= 2,
            "a line end is one or two bytes"
        )
    };
    slot[TEXT..].copy_from_slice(&end[..LINE - TEXT]);
}

/// `out` cut into lines of `LINE` bytes, one for each of `uuids` (the caller sized `out`).
#[inline(always)]
fn lines<'a, const LINE: usize>(
    uuids: &'a [Uuid],
    out: &'a mut [u8],
) -> impl Iterator<Item = (&'a [u8; 16], &'a mut [u8; LINE])> {
    uuids
        .iter()
        .zip(out.chunks_exact_mut(LINE))
        .map(|(u, slot)| {
            let slot: &mut [u8; LINE] = slot.try_into().expect("chunks_exact_mut gives LINE bytes");
            (u.as_bytes(), slot)
        })
}

/// The hyphenated form, then the line end.
///
/// # Safety
/// The CPU supports `K`'s level.
#[inline(always)]
pub(super) unsafe fn hyphenated<K: Kernel, const UPPER: bool, const LINE: usize>(
    uuids: &[Uuid],
    out: &mut [u8],
    end: &[u8; 2],
) {
    let case = if UPPER { Case::Upper } else { Case::Lower };
    for (bytes, slot) in lines::<LINE>(uuids, out) {
        // SAFETY: forwarded: the caller guarantees the CPU supports `K`'s level.
        unsafe { K::write_hyphenated(bytes, case, sub_mut::<0, 36, LINE>(slot)) };
        line_end::<36, LINE>(slot, end);
    }
}

/// The simple form, then the line end.
///
/// # Safety
/// The CPU supports `K`'s level.
#[inline(always)]
pub(super) unsafe fn simple<K: Kernel, const UPPER: bool, const LINE: usize>(
    uuids: &[Uuid],
    out: &mut [u8],
    end: &[u8; 2],
) {
    let case = if UPPER { Case::Upper } else { Case::Lower };
    for (bytes, slot) in lines::<LINE>(uuids, out) {
        // SAFETY: forwarded: the caller guarantees the CPU supports `K`'s level.
        unsafe { K::write_simple(bytes, case, sub_mut::<0, 32, LINE>(slot)) };
        line_end::<32, LINE>(slot, end);
    }
}

/// The braced form, then the line end.
///
/// # Safety
/// The CPU supports `K`'s level.
#[inline(always)]
pub(super) unsafe fn braced<K: Kernel, const UPPER: bool, const LINE: usize>(
    uuids: &[Uuid],
    out: &mut [u8],
    end: &[u8; 2],
) {
    let case = if UPPER { Case::Upper } else { Case::Lower };
    for (bytes, slot) in lines::<LINE>(uuids, out) {
        slot[0] = b'{';
        // SAFETY: forwarded: the caller guarantees the CPU supports `K`'s level.
        unsafe { K::write_hyphenated(bytes, case, sub_mut::<1, 36, LINE>(slot)) };
        slot[37] = b'}';
        line_end::<38, LINE>(slot, end);
    }
}

/// The URN form (prefix always lowercase, as the scalar reference writes it), then the
/// line end.
///
/// # Safety
/// The CPU supports `K`'s level.
#[inline(always)]
pub(super) unsafe fn urn<K: Kernel, const UPPER: bool, const LINE: usize>(
    uuids: &[Uuid],
    out: &mut [u8],
    end: &[u8; 2],
) {
    let case = if UPPER { Case::Upper } else { Case::Lower };
    for (bytes, slot) in lines::<LINE>(uuids, out) {
        *sub_mut::<0, 9, LINE>(slot) = *b"urn:uuid:";
        // SAFETY: forwarded: the caller guarantees the CPU supports `K`'s level.
        unsafe { K::write_hyphenated(bytes, case, sub_mut::<9, 36, LINE>(slot)) };
        line_end::<45, LINE>(slot, end);
    }
}

/// The longest line that can hold a UUID: the URN form (45 bytes) and `\r\n`.
const LONGEST_LINE: usize = 47;

/// Parses lines of `text` into `out` until a line is not a UUID (of any form, its `\n`
/// or `\r\n` removed), the text has no further complete line, or `out` is full; returns
/// the lines taken and their bytes. `T` says what each line gives: its UUID, or with
/// [`Check`] nothing (`out` a slice of `()`, which stores nothing), only its count.
///
/// # Safety
/// The CPU supports `K`'s level.
#[inline(always)]
pub(super) unsafe fn parse<K: Kernel, T: Take>(text: &[u8], out: &mut [T::Out]) -> (usize, usize) {
    /// Four common lines, 36 bytes and `\n` each.
    const FOUR: usize = 4 * 37;
    let mut pos = 0;
    let mut done = 0;
    while done < out.len() {
        let rest = &text[pos..];
        // Four common lines at once: their four `\n` are checked with loads that do not
        // wait for each other, so the next position does not wait on each line's end.
        if let (Some(block), Some(slots)) = (
            rest.first_chunk::<FOUR>(),
            out[done..].first_chunk_mut::<4>(),
        ) && (block[36] == b'\n')
            & (block[73] == b'\n')
            & (block[110] == b'\n')
            & (block[147] == b'\n')
        {
            // SAFETY: forwarded: the caller guarantees the CPU supports `K`'s level.
            let parsed = unsafe {
                [
                    T::hyphenated::<K>(sub::<0, 36, FOUR>(block)),
                    T::hyphenated::<K>(sub::<37, 36, FOUR>(block)),
                    T::hyphenated::<K>(sub::<74, 36, FOUR>(block)),
                    T::hyphenated::<K>(sub::<111, 36, FOUR>(block)),
                ]
            };
            if let [Some(a), Some(b), Some(c), Some(d)] = parsed {
                *slots = [a, b, c, d];
                pos += FOUR;
                done += 4;
                continue;
            }
            // One of them is not a UUID: the lines one at a time find which.
        }
        // The common line: 36 bytes and `\n`, or 36 bytes and `\r\n`.
        if let Some(head) = rest.first_chunk::<38>() {
            let end = match (head[36], head[37]) {
                (b'\n', _) => 37,
                (b'\r', b'\n') => 38,
                _ => 0,
            };
            if end != 0 {
                // SAFETY: forwarded: the caller guarantees the CPU supports `K`'s level.
                let taken =
                    unsafe { T::hyphenated::<K>(head.first_chunk::<36>().expect("38 >= 36")) };
                if let Some(taken) = taken {
                    out[done] = taken;
                    pos += end;
                    done += 1;
                    continue;
                }
                // Not a hyphenated UUID, which a 36-byte line must be; but the line may be
                // shorter (a `\n` among the 36 bytes), and a UUID in another form: the
                // search below finds its end.
            }
        }
        // Any other line: its end is within the longest line a UUID can take, or it is
        // not a UUID (or not complete in `text`).
        let window = &rest[..rest.len().min(LONGEST_LINE)];
        let Some(end) = window.iter().position(|&b| b == b'\n') else {
            break;
        };
        let line = match &rest[..end] {
            [line @ .., b'\r'] => line,
            line => line,
        };
        // SAFETY: forwarded: the caller guarantees the CPU supports `K`'s level.
        match unsafe { parse_forms::<K, T>(line) } {
            Some(taken) => {
                out[done] = taken;
                pos += end + 1;
                done += 1;
            }
            None => break,
        }
    }
    (done, pos)
}

/// Generates one level's batch entry points, compiled with its target feature, in a
/// module named after the level. Every function is `unsafe` with one condition: the CPU
/// supports `$feature`. The encoders write `uuids.len()` lines of `LINE` bytes into the
/// front of `out`, which the caller sized for them.
macro_rules! batch_entry_points {
    ($level:ident, $kernel:ident, $feature:literal) => {
        #[doc = concat!("Batch entry points compiled with `", $feature, "`.")]
        ///
        /// # Safety
        #[doc = concat!("Each function requires a CPU with `", $feature, "`.")]
        pub(crate) mod $level {
            // Named in full rather than `super`, which here (a module generated one level
            // down) is easily misread as the file's parent, x86.rs.
            use crate::platform::simd::x86::batch::*;
            use crate::platform::simd::x86::kernels::$kernel as K;

            /// Hyphenated lines.
            #[target_feature(enable = $feature)]
            pub(crate) unsafe fn hyphenated_lines<const UPPER: bool, const LINE: usize>(
                uuids: &[Uuid],
                out: &mut [u8],
                end: &[u8; 2],
            ) {
                // SAFETY: this function's caller guarantees the target feature.
                unsafe { hyphenated::<K, UPPER, LINE>(uuids, out, end) }
            }

            /// Simple lines.
            #[target_feature(enable = $feature)]
            pub(crate) unsafe fn simple_lines<const UPPER: bool, const LINE: usize>(
                uuids: &[Uuid],
                out: &mut [u8],
                end: &[u8; 2],
            ) {
                // SAFETY: this function's caller guarantees the target feature.
                unsafe { simple::<K, UPPER, LINE>(uuids, out, end) }
            }

            /// Braced lines.
            #[target_feature(enable = $feature)]
            pub(crate) unsafe fn braced_lines<const UPPER: bool, const LINE: usize>(
                uuids: &[Uuid],
                out: &mut [u8],
                end: &[u8; 2],
            ) {
                // SAFETY: this function's caller guarantees the target feature.
                unsafe { braced::<K, UPPER, LINE>(uuids, out, end) }
            }

            /// URN lines.
            #[target_feature(enable = $feature)]
            pub(crate) unsafe fn urn_lines<const UPPER: bool, const LINE: usize>(
                uuids: &[Uuid],
                out: &mut [u8],
                end: &[u8; 2],
            ) {
                // SAFETY: this function's caller guarantees the target feature.
                unsafe { urn::<K, UPPER, LINE>(uuids, out, end) }
            }

            /// Parses lines; see [`parse`](super::parse).
            #[target_feature(enable = $feature)]
            pub(crate) unsafe fn parse_lines(text: &[u8], out: &mut [Uuid]) -> (usize, usize) {
                // SAFETY: this function's caller guarantees the target feature.
                unsafe { parse::<K, Decode>(text, out) }
            }

            /// Counts the lines `parse_lines` would take, up to `out.len()`.
            #[target_feature(enable = $feature)]
            pub(crate) unsafe fn check_lines(text: &[u8], out: &mut [()]) -> (usize, usize) {
                // SAFETY: this function's caller guarantees the target feature.
                unsafe { parse::<K, Check>(text, out) }
            }
        }
    };
}

batch_entry_points!(sse2, Sse2, "sse2");
batch_entry_points!(ssse3, Ssse3, "ssse3");
batch_entry_points!(avx2, Avx2, "avx2");
