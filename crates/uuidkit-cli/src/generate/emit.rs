//! Writing what a generator makes: UUIDs a batch at a time, each batch encoded straight
//! into its lines of one output buffer, and what a generator that stopped part-way
//! through a batch ([`Stopped`]) still has written before its failure.

use std::io::Write;

use uuidkit::encoding::Encoding;
use uuidkit::generator::GenError;
use uuidkit::text::{self, LineEnd};
use uuidkit::{Case, Format, Uuid};

use crate::failure::{Failure, Status};

/// What `gen` writes: how many UUIDs, and in which form.
pub(super) struct Output {
    /// How many UUIDs (`-n`).
    pub(super) count: u64,
    /// A hex form and its case, unless `encoding` is given.
    pub(super) format: Format,
    pub(super) case: Case,
    /// A compact encoding (`--format base32` …) instead of a hex form.
    pub(super) encoding: Option<Encoding>,
}

/// Writes `count` UUIDs from `next`, one a line (through the same batches as
/// [`emit_batches`]).
fn emit(
    a: &Output,
    out: &mut impl Write,
    mut next: impl FnMut() -> Result<Uuid, GenError>,
) -> Result<Status, Failure> {
    emit_batches(a, out, |batch| fill_each(batch, &mut next))
}

/// Fills `batch` from `next`, stopping at the first error.
pub(super) fn fill_each(
    batch: &mut [Uuid],
    mut next: impl FnMut() -> Result<Uuid, GenError>,
) -> Result<(), Stopped> {
    for (done, u) in batch.iter_mut().enumerate() {
        *u = next().map_err(|e| Stopped {
            done,
            failure: Failure::Message(e.to_string()),
        })?;
    }
    Ok(())
}

/// A batch that a generator could not finish: the first `done` UUIDs are to be written,
/// then the run ends with `failure`.
pub(super) struct Stopped {
    pub(super) done: usize,
    pub(super) failure: Failure,
}

impl Stopped {
    /// Nothing of the batch is to be written.
    pub(super) fn all(failure: Failure) -> Stopped {
        Stopped { done: 0, failure }
    }
}

/// UUIDs a batch: small enough that a batch takes microseconds (so one clock reading
/// per batch stays far inside the timestamp's millisecond), large enough that the clock
/// read is spread thin.
pub(super) const BATCH: usize = 256;

/// Batches a write: 2,048 lines are 64 KiB or more in every form (the simple form's
/// lines are 33 bytes), so that each write passes straight through the 64 KiB buffer in
/// front of standard output instead of being copied into it.
const BATCHES_A_WRITE: usize = 8;

/// Writes `count` UUIDs from `fill`, a batch at a time: each batch is encoded straight
/// into its lines of one output buffer (see [`uuidkit::text::encode_lines`]), which is
/// written whole when full. On an error, the UUIDs made before it are still written.
pub(super) fn emit_batches(
    a: &Output,
    out: &mut impl Write,
    mut fill: impl FnMut(&mut [Uuid]) -> Result<(), Stopped>,
) -> Result<Status, Failure> {
    if let Some(e) = a.encoding {
        return emit_encoded(a, out, e, fill);
    }
    let (format, case) = (a.format, a.case);
    let line = text::line_len(format, LineEnd::Lf);
    let mut uuids = [Uuid::NIL; BATCH];
    let mut lines = vec![0u8; BATCH * BATCHES_A_WRITE * line];
    let mut used = 0;
    let mut left = a.count;
    while left > 0 {
        let n = left.min(BATCH as u64) as usize;
        let (done, failure) = match fill(&mut uuids[..n]) {
            Ok(()) => (n, None),
            Err(Stopped { done, failure }) => (done, Some(failure)),
        };
        used += line
            * text::encode_lines(
                &uuids[..done],
                format,
                case,
                LineEnd::Lf,
                &mut lines[used..],
            );
        left -= n as u64;
        if failure.is_some() || left == 0 || lines.len() - used < BATCH * line {
            out.write_all(&lines[..used])?;
            used = 0;
        }
        if let Some(f) = failure {
            return Err(f);
        }
    }
    Ok(Status::Ok)
}

/// [`emit_batches`] for a compact encoding: each UUID encoded into its line of one
/// buffer, written a batch at a time.
fn emit_encoded(
    a: &Output,
    out: &mut impl Write,
    e: Encoding,
    mut fill: impl FnMut(&mut [Uuid]) -> Result<(), Stopped>,
) -> Result<Status, Failure> {
    let mut uuids = [Uuid::NIL; BATCH];
    let mut lines = Vec::with_capacity(BATCH * (Encoding::MAX_LEN + 1));
    let mut left = a.count;
    while left > 0 {
        let n = left.min(BATCH as u64) as usize;
        let (done, failure) = match fill(&mut uuids[..n]) {
            Ok(()) => (n, None),
            Err(Stopped { done, failure }) => (done, Some(failure)),
        };
        lines.clear();
        let mut buf = [0u8; Encoding::MAX_LEN];
        for u in &uuids[..done] {
            lines.extend_from_slice(e.encode(u, &mut buf).as_bytes());
            lines.push(b'\n');
        }
        out.write_all(&lines)?;
        left -= n as u64;
        if let Some(f) = failure {
            return Err(f);
        }
    }
    Ok(Status::Ok)
}

/// The same UUID `count` times (nil, max and the name-based versions).
pub(super) fn emit_constant(a: &Output, out: &mut impl Write, u: Uuid) -> Result<Status, Failure> {
    emit(a, out, || Ok(u))
}
