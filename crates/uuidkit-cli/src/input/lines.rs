//! Reading the inputs: the operands, or every line of standard input, in bounded
//! memory whatever the input: standard input is read a fixed block at a time (by other
//! threads, while the lines of the block before are handled: see
//! [`blocks`](super::blocks)), and of a line longer than any UUID only the first
//! [`KEEP`] bytes are kept (for the message); the rest is counted and dropped. Runs of
//! lines that are UUIDs are parsed a batch at a time, or only checked when the command
//! needs no more ([`Need`]).

use std::ffi::OsString;
use std::io::{self, Write};

use uuidkit::{Uuid, text};

use super::blocks::{Block, Blocks, FRONT, Stdin};
use super::parse::{Input, KEEP, Origin, from};
use crate::failure::Failure;
use crate::stdio;

/// The most a read of standard input takes. Large, because a block handed from a reading
/// thread wakes this one, and on a virtual machine that costs some 30 µs (with one
/// reading thread, blocks of 64 KiB made `check` 0.26× as fast as reading on this thread,
/// and blocks of 1 MiB 1.1-1.2× as fast: see docs/performance.md, run W).
const READ_BUFFER: usize = 1024 * 1024;

/// The first bytes and the length of a line that did not fit in one read.
struct Partial {
    kept: [u8; KEEP],
    kept_len: usize,
    len: u64,
    last: u8,
}

impl Partial {
    fn new() -> Partial {
        Partial {
            kept: [0; KEEP],
            kept_len: 0,
            len: 0,
            last: 0,
        }
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds the next bytes of the line: kept while there is room, counted always.
    fn push(&mut self, bytes: &[u8]) {
        let room = (KEEP - self.kept_len).min(bytes.len());
        self.kept[self.kept_len..self.kept_len + room].copy_from_slice(&bytes[..room]);
        self.kept_len += room;
        self.len += bytes.len() as u64;
        if let Some(&b) = bytes.last() {
            self.last = b;
        }
    }

    /// The line as an input; `ended` when a `\n` followed it, so that a `\r` before
    /// that is part of the line end.
    fn input(&self, ended: bool, origin: Origin) -> Input<'_> {
        let len = self.len - u64::from(ended && self.last == b'\r');
        let kept = usize::try_from(len).map_or(self.kept_len, |n| n.min(self.kept_len));
        Input {
            bytes: &self.kept[..kept],
            len,
            origin,
        }
    }

    fn clear(&mut self) {
        self.kept_len = 0;
        self.len = 0;
    }
}

/// UUIDs a batch of [`Item::Uuids`]: a few kilobytes of stack, and a call of `each` spread
/// over many lines.
const BATCH: usize = 256;

/// What a command needs of the lines of standard input that are UUIDs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Their UUIDs: runs of them come parsed, as [`Item::Uuids`].
    Uuids,
    /// Nothing: they are only counted (checked with [`text::check_lines`], which does not
    /// decode them), and the command sees every other input, numbered as ever.
    OnlyOthers,
}

/// What [`for_each`] hands a command: a run of lines that are all UUIDs, or one input.
#[derive(Clone, Copy, Debug)]
pub enum Item<'a> {
    /// Consecutive lines of standard input, each a UUID: `uuids[i]` is line `first + i`,
    /// and `text` is exactly those lines with their line ends.
    Uuids(Batch<'a>),
    /// Any other input: an operand, or a line of standard input that is not a UUID, or
    /// that was not taken with its neighbours (cut across reads, the last line).
    Input(&'a Input<'a>),
}

/// Lines of standard input that are all UUIDs; see [`Item::Uuids`].
#[derive(Clone, Copy, Debug)]
pub struct Batch<'a> {
    /// The number of the first line.
    pub first: u64,
    /// The UUID of each line.
    pub uuids: &'a [Uuid],
    /// The lines, line ends included.
    pub text: &'a [u8],
}

/// Where the lines of a [`Batch`] are, found only when asked for (see
/// [`Batch::input`]): the next line's index and where it starts in the text.
#[derive(Default)]
pub struct LineCursor {
    index: usize,
    start: usize,
}

impl<'a> Batch<'a> {
    /// Line `i` of the batch as an input (for a message about it); `cursor` must be a new
    /// one for each batch and `i` never less than at the call before, so that each line
    /// end of the batch is searched for once.
    pub fn input(&self, i: usize, cursor: &mut LineCursor) -> Input<'a> {
        debug_assert!(i >= cursor.index && i < self.uuids.len());
        let line_at = |start: usize| {
            // Every line of a batch ends with `\n`: parse_lines takes only whole lines.
            let end =
                memchr::memchr(b'\n', &self.text[start..]).map_or(self.text.len(), |e| start + e);
            (start, end)
        };
        let (mut start, mut end) = line_at(cursor.start);
        for _ in cursor.index..i {
            (start, end) = line_at(end + 1);
        }
        cursor.index = i + 1;
        cursor.start = end + 1;
        let line = strip_line_end(&self.text[start..(end + 1).min(self.text.len())]);
        Input {
            bytes: line,
            len: line.len() as u64,
            origin: Origin::Line(self.first + i as u64),
        }
    }
}

/// Calls `each` with every input: the operands if there are any, otherwise every line of
/// standard input with its line end (`\n` or `\r\n`) removed and nothing else. A last
/// line without a line end still counts; the empty text after a final line end does not.
/// Runs of lines that are UUIDs come parsed, as [`Item::Uuids`], or with
/// [`Need::OnlyOthers`] not at all.
///
/// `out` is where the command writes: it is flushed when standard input has nothing more
/// to read at the moment (see [`for_each_line`]).
pub fn for_each<W: Write>(
    operands: &[OsString],
    out: &mut W,
    need: Need,
    mut each: impl FnMut(&mut W, Item<'_>) -> Result<(), Failure>,
) -> Result<(), Failure> {
    if !operands.is_empty() {
        for (i, op) in operands.iter().enumerate() {
            let bytes = op.as_encoded_bytes();
            each(
                out,
                Item::Input(&Input {
                    bytes,
                    len: bytes.len() as u64,
                    origin: Origin::Argument(i + 1),
                }),
            )?;
        }
        return Ok(());
    }
    let file = stdio::stdin().map_err(reading_failed)?;
    for_each_line(Stdin::of(file), READ_BUFFER, out, need, each)
}

fn reading_failed(e: io::Error) -> Failure {
    Failure::Message(format!("reading standard input: {e}"))
}

/// Calls `each` with every line of `stdin`, read `len` bytes at a time at most, by other
/// threads while this one handles the lines (see [`blocks`](super::blocks); and
/// [`for_each`]).
///
/// Lines wholly inside a read are used where they are, without a copy, and runs of them
/// are parsed a batch at a time ([`text::parse_lines`]). The start of a line that a read
/// cut is copied in front of the next read's bytes, when it is short (a UUID is at most
/// 47 bytes with its line end); a longer line goes on as a [`Partial`], so that memory
/// stays bounded whatever the line length: at most four blocks of `len` bytes.
///
/// Before each block: the messages so far go out, so that someone typing UUIDs, or a
/// pipe fed slowly (`tail -f log | uuidkit check`), gets each verdict before the next
/// input arrives (at most one write a read of `len` bytes, so a flood of invalid lines
/// still costs few writes). And after a read that returned less than it could have, `out`
/// is flushed too: then the writer on the other side had nothing more, and the next read
/// may wait, so the output so far is what the user is waiting for. A file, or a pipe kept
/// full, gives full reads and no extra writes; and since what is flushed when depends on
/// the reads alone, not on which thread gets there first, output and messages sent to one
/// file interleave alike in every run.
pub(crate) fn for_each_line<W: Write>(
    stdin: Stdin,
    len: usize,
    out: &mut W,
    need: Need,
    mut each: impl FnMut(&mut W, Item<'_>) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let mut blocks = Blocks::new(stdin, len)?;
    let mut partial = Partial::new();
    let mut number = 0u64;
    let mut uuids = [Uuid::NIL; BATCH];
    // The start of a line begun in an earlier read, to go in front of the next read's bytes.
    let mut carry = [0u8; FRONT];
    let mut carried = 0;
    // With `--from`, hex lines are not UUIDs: every line goes through `each` alone.
    let hex = from().is_none();
    loop {
        stdio::flush_errors();
        if blocks.waiting {
            out.flush()?;
        }
        let Block { mut buf, got } = blocks.next()?;
        let n = match got {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => return Err(reading_failed(e)),
        };
        let first = FRONT - carried;
        buf[first..FRONT].copy_from_slice(&carry[..carried]);
        let chunk = &buf[first..FRONT + n];
        let mut pos = 0;
        if !partial.is_empty() {
            // A long line begun in an earlier read: finish it, or keep counting.
            let Some(end) = memchr::memchr(b'\n', chunk) else {
                partial.push(chunk);
                blocks.give_back(buf);
                continue;
            };
            partial.push(&chunk[..end]);
            number += 1;
            each(out, Item::Input(&partial.input(true, Origin::Line(number))))?;
            partial.clear();
            pos = end + 1;
        }
        loop {
            let taken = match (hex, need) {
                (false, _) => text::ParsedLines::default(),
                (true, Need::Uuids) => text::parse_lines(&chunk[pos..], &mut uuids),
                // Every UUID line up to the next other line in one call: nothing is kept.
                (true, Need::OnlyOthers) => text::check_lines(&chunk[pos..], usize::MAX),
            };
            if taken.uuids > 0 {
                if need == Need::Uuids {
                    let batch = Batch {
                        first: number + 1,
                        uuids: &uuids[..taken.uuids],
                        text: &chunk[pos..pos + taken.bytes],
                    };
                    each(out, Item::Uuids(batch))?;
                }
                number += taken.uuids as u64;
                pos += taken.bytes;
            }
            if need == Need::Uuids && taken.uuids == BATCH {
                continue;
            }
            // The next line is not a UUID, or not complete in this read.
            let Some(end) = memchr::memchr(b'\n', &chunk[pos..]) else {
                break;
            };
            let line = strip_line_end(&chunk[pos..=pos + end]);
            number += 1;
            each(
                out,
                Item::Input(&Input {
                    bytes: line,
                    len: line.len() as u64,
                    origin: Origin::Line(number),
                }),
            )?;
            pos += end + 1;
        }
        let tail = &chunk[pos..];
        if tail.len() <= FRONT {
            carry[..tail.len()].copy_from_slice(tail);
            carried = tail.len();
        } else {
            partial.push(tail);
            carried = 0;
        }
        blocks.give_back(buf);
    }
    if carried > 0 {
        number += 1;
        let line = &carry[..carried];
        each(
            out,
            Item::Input(&Input {
                bytes: line,
                len: line.len() as u64,
                origin: Origin::Line(number),
            }),
        )?;
    } else if !partial.is_empty() {
        number += 1;
        each(
            out,
            Item::Input(&partial.input(false, Origin::Line(number))),
        )?;
    }
    Ok(())
}

/// The line without its `\n` or `\r\n`.
fn strip_line_end(line: &[u8]) -> &[u8] {
    match line {
        [rest @ .., b'\r', b'\n'] => rest,
        [rest @ .., b'\n'] => rest,
        _ => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::ReadAt;
    use std::io::Read;
    use std::sync::{Arc, Mutex};

    #[test]
    fn strips_only_the_line_end() {
        assert_eq!(strip_line_end(b"ab\n"), b"ab");
        assert_eq!(strip_line_end(b"ab\r\n"), b"ab");
        assert_eq!(strip_line_end(b"ab \n"), b"ab ");
        assert_eq!(strip_line_end(b"ab\r"), b"ab\r");
        assert_eq!(strip_line_end(b"ab"), b"ab");
        assert_eq!(strip_line_end(b"\n"), b"");
    }

    #[test]
    fn partial_lines_keep_their_start_and_count_the_rest() {
        let mut p = Partial::new();
        p.push(&[b'a'; 40]);
        p.push(&[b'b'; 40]);
        p.push(b"\r");
        let input = p.input(true, Origin::Line(1));
        assert_eq!(input.len, 80);
        assert_eq!(&input.bytes[..40], &[b'a'; 40]);
        assert_eq!(&input.bytes[40..], &[b'b'; KEEP - 40]);
        // Without a line end the '\r' is part of the line.
        assert_eq!(p.input(false, Origin::Line(1)).len, 81);
        p.clear();
        p.push(b"ab\r");
        let input = p.input(true, Origin::Line(2));
        assert_eq!((input.bytes, input.len), (&b"ab"[..], 2));
    }

    /// A reader that hands out at most `step` bytes a read.
    struct Trickle {
        data: Vec<u8>,
        at: usize,
        step: usize,
    }

    impl Trickle {
        fn new(data: &[u8], step: usize) -> Trickle {
            Trickle {
                data: data.to_vec(),
                at: 0,
                step,
            }
        }
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let rest = &self.data[self.at..];
            let n = self.step.min(buf.len()).min(rest.len());
            buf[..n].copy_from_slice(&rest[..n]);
            self.at += n;
            Ok(n)
        }
    }

    /// A file whose reads at a place hand out at most `step` bytes; its text starts after
    /// [`PREFIX`] (as standard input opened after a shell read some of it).
    struct TrickleAt {
        data: Vec<u8>,
        step: usize,
        stopped: Mutex<Option<u64>>,
    }

    /// The bytes in front of the text a [`TrickleAt`] reads from.
    const PREFIX: &[u8] = b"not read\n";

    impl ReadAt for TrickleAt {
        fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
            let rest = &self.data[usize::try_from(offset).unwrap().min(self.data.len())..];
            let n = self.step.min(buf.len()).min(rest.len());
            buf[..n].copy_from_slice(&rest[..n]);
            Ok(n)
        }

        fn stopped_at(&self, offset: u64) {
            *self.stopped.lock().unwrap() = Some(offset);
        }
    }

    /// The ways standard input is read.
    #[derive(Clone, Copy, Debug)]
    enum Way {
        /// A stream, on this thread.
        Here,
        /// A stream, by a thread of its own.
        Ahead,
        /// A file, by two threads.
        Striped,
    }

    const WAYS: [Way; 3] = [Way::Here, Way::Ahead, Way::Striped];

    /// `data` read `step` bytes at most at a time, in `way`; and for a file, a check that
    /// at the end its position is after the text.
    fn stdin_of(data: &[u8], step: usize, way: Way) -> (Stdin, Option<Arc<TrickleAt>>) {
        match way {
            Way::Here | Way::Ahead => {
                let reader = Box::new(Trickle::new(data, step));
                let ahead = matches!(way, Way::Ahead);
                (Stdin::Stream { reader, ahead }, None)
            }
            Way::Striped => {
                let file = Arc::new(TrickleAt {
                    data: [PREFIX, data].concat(),
                    step,
                    stopped: Mutex::new(None),
                });
                let stdin = Stdin::File {
                    file: file.clone(),
                    start: PREFIX.len() as u64,
                };
                (stdin, Some(file))
            }
        }
    }

    /// Every line as (its kept bytes, its length, its number, its UUID when it came in a
    /// batch).
    fn lines_of(data: &[u8], step: usize, buf_len: usize) -> Vec<(Vec<u8>, u64, Origin)> {
        lines_and_uuids(data, step, buf_len)
            .into_iter()
            .map(|(bytes, len, origin, _)| (bytes, len, origin))
            .collect()
    }

    type Seen = (Vec<u8>, u64, Origin, Option<Uuid>);

    /// What the reader gives with [`Need::Uuids`], reading on this thread; checks on the
    /// way that every other way of reading gives the same, and that with
    /// [`Need::OnlyOthers`] each gives exactly the inputs that did not come parsed.
    fn lines_and_uuids(data: &[u8], step: usize, buf_len: usize) -> Vec<Seen> {
        let seen = seen_with(data, step, buf_len, Way::Here, Need::Uuids);
        let others: Vec<Seen> = seen.iter().filter(|s| s.3.is_none()).cloned().collect();
        let context = format!("step {step}, buffer {buf_len}");
        for way in WAYS {
            // Here with `Need::Uuids` is `seen` itself.
            if !matches!(way, Way::Here) {
                assert_eq!(
                    seen_with(data, step, buf_len, way, Need::Uuids),
                    seen,
                    "{context}, {way:?}"
                );
            }
            assert_eq!(
                seen_with(data, step, buf_len, way, Need::OnlyOthers),
                others,
                "{context}, {way:?}"
            );
        }
        seen
    }

    fn seen_with(data: &[u8], step: usize, len: usize, way: Way, need: Need) -> Vec<Seen> {
        let mut seen = Vec::new();
        let (stdin, file) = stdin_of(data, step, way);
        for_each_line(stdin, len, &mut io::sink(), need, |_, item| {
            match item {
                Item::Uuids(batch) => {
                    let mut cursor = LineCursor::default();
                    for (i, u) in batch.uuids.iter().enumerate() {
                        let input = batch.input(i, &mut cursor);
                        seen.push((input.bytes.to_vec(), input.len, input.origin, Some(*u)));
                    }
                }
                Item::Input(i) => seen.push((i.bytes.to_vec(), i.len, i.origin, None)),
            }
            Ok(())
        })
        .unwrap_or_else(|_| panic!("read failed"));
        if let Some(file) = file {
            // Read to the end: the file's position is there.
            let end = (PREFIX.len() + data.len()) as u64;
            assert_eq!(*file.stopped.lock().unwrap(), Some(end), "{way:?}");
        }
        seen
    }

    /// Reading allocates its buffer (and, reading ahead, its thread, channels and
    /// buffers) once, and nothing a line or a read, for 1 and for 10 copies of a text of
    /// every kind of line.
    #[test]
    fn reading_lines_allocates_nothing_a_line() {
        use crate::platform::counting::allocations;
        let mut text = Vec::new();
        for i in 0..5000u32 {
            match i % 7 {
                0 => text.extend_from_slice(b"not a uuid\n"),
                1 => text.extend_from_slice(b"F81D4FAE7DEC11D0A76500A0C91E6BF6\r\n"),
                2 => {
                    text.extend_from_slice(&[b'x'; 300]);
                    text.push(b'\n');
                }
                _ => text.extend_from_slice(b"f81d4fae-7dec-11d0-a765-00a0c91e6bf6\n"),
            }
        }
        for way in WAYS {
            for need in [Need::Uuids, Need::OnlyOthers] {
                let mut counts = Vec::new();
                for copies in [1, 10] {
                    let (stdin, _) = stdin_of(&text.repeat(copies), 1000, way);
                    let (mut uuids, mut others) = (0, 0);
                    let before = allocations();
                    for_each_line(stdin, 4096, &mut io::sink(), need, |_, item| {
                        match item {
                            Item::Uuids(b) => uuids += b.uuids.len(),
                            Item::Input(_) => others += 1,
                        }
                        Ok(())
                    })
                    .unwrap_or_else(|_| panic!("read failed"));
                    counts.push(allocations() - before);
                    if need == Need::Uuids {
                        assert_eq!(uuids + others, 5000 * copies);
                        // Five lines in seven are UUIDs; those that a read cut come as inputs.
                        let most = 5 * 5000 * copies / 7 + 1;
                        assert!(uuids > 3000 * copies && uuids <= most, "{uuids}");
                    } else {
                        // One line in seven is not a UUID, one in seven too long, and some
                        // UUID lines were cut by a read.
                        assert!(others >= 2 * 5000 * copies / 7, "{others}");
                    }
                }
                if let Way::Here = way {
                    // The buffer alone.
                    assert_eq!(counts, [1, 1], "{need:?}");
                } else {
                    // The threads, the channels and the buffers, and what the channels
                    // allocate for their first waits (which a race decides): a few,
                    // where the larger text takes some 2,000 reads and 50,000 lines.
                    assert!(
                        counts.iter().all(|&c| c <= 32),
                        "{counts:?}, {way:?}, {need:?}"
                    );
                }
            }
        }
    }

    /// What the reader must give for each kind of line, however the reads cut the text:
    /// every line's number, bytes (a long one's first KEEP at least) and length, and a
    /// parsed UUID exactly for the UUID lines.
    #[test]
    fn edge_cases_give_the_lines_of_a_plain_split() {
        // CRLF, empty lines, a lone `\r`, `\r\r\n`, a line longer than the 64 KiB read
        // buffer, every form, a trailing space, and a last line without a line end.
        let u = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6";
        let long = "y".repeat(70_000);
        let text = format!(
            "{u}\r\n\n{u}\n\r\n{u}\r\r\n{long}\n{u}\n{}\n{u} \nURN:UUID:{u}\r\n{{{u}}}\n{u}",
            "F".repeat(32)
        );
        for (buf_len, step) in [
            (64 * 1024, 64 * 1024),
            (4096, 4096),
            (4096, 37),
            (100, 1),
            (64 * 1024, 13),
        ] {
            let got = lines_and_uuids(text.as_bytes(), step, buf_len);
            assert_plain_split(&text, &got, &format!("buffer {buf_len}, step {step}"));
            // With whole reads, every complete UUID line comes parsed.
            if step == buf_len && buf_len > 200 {
                let parsed: Vec<usize> = got
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| g.3.is_some())
                    .map(|(i, _)| i + 1)
                    .collect();
                assert_eq!(parsed, [1, 3, 7, 8, 10, 11], "buffer {buf_len}");
            }
        }
    }

    /// Checks what the reader gave for `text` against a plain split at `\n` (one `\r`
    /// before it removed, the empty text after a final `\n` not a line).
    fn assert_plain_split(text: &str, got: &[Seen], context: &str) {
        let mut reference: Vec<&str> = text.split('\n').collect();
        if text.is_empty() || text.ends_with('\n') {
            reference.pop();
        }
        assert_eq!(got.len(), reference.len(), "{context}");
        for (n, ((bytes, len, origin, uuid), line)) in got.iter().zip(&reference).enumerate() {
            let ended = n + 1 < reference.len() || text.ends_with('\n');
            let line = if ended {
                line.strip_suffix('\r').unwrap_or(line)
            } else {
                line
            };
            assert_eq!(*origin, Origin::Line(n as u64 + 1), "{context}");
            assert_eq!(*len, line.len() as u64, "{context}, line {}", n + 1);
            assert!(bytes.len() >= KEEP.min(line.len()), "{context}");
            assert_eq!(&line.as_bytes()[..bytes.len()], &bytes[..], "{context}");
            if let Some(uuid) = uuid {
                assert_eq!(Ok(*uuid), Uuid::parse_ascii(line.as_bytes()), "{context}");
            }
        }
    }

    #[test]
    fn mixed_lines_come_out_as_a_plain_split() {
        let u = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6";
        let long = "z".repeat(100);
        let pieces = [
            u.to_string(),
            u.to_uppercase().replace('-', ""),
            format!("{{{u}}}"),
            format!("urn:uuid:{u}"),
            String::new(),
            "\r".to_string(),
            format!("{u}\r"),
            format!("{u}x"),
            "bad".to_string(),
            long,
        ];
        // xorshift: a fixed, reproducible sequence.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for round in 0..300 {
            let mut text = String::new();
            for _ in 0..next(40) {
                // Mostly plain UUID lines, as real input is.
                let piece = if next(2) == 0 { 0 } else { next(pieces.len()) };
                text.push_str(&pieces[piece]);
                text.push_str(if next(4) == 0 { "\r\n" } else { "\n" });
            }
            if next(3) == 0 {
                text.push_str(&pieces[next(pieces.len())]);
            }
            let buf_len = [1, 7, 64, 100, 256, 4096][next(6)];
            let step = 1 + next(300);
            let got = lines_and_uuids(text.as_bytes(), step, buf_len);
            assert_plain_split(
                &text,
                &got,
                &format!("round {round}, buffer {buf_len}, step {step}"),
            );
        }
    }

    #[test]
    fn lines_come_out_the_same_however_the_reads_cut_them() {
        let long = "L".repeat(150);
        let text = format!(
            "c232ab00-9414-11ec-b3c8-9f6bdeced846\r\n\n{long}\r\nab\r\r\n{long}\nx\r\n\r\nlast\r"
        );
        let expected: Vec<(Vec<u8>, u64, Origin)> = [
            ("c232ab00-9414-11ec-b3c8-9f6bdeced846", 36),
            ("", 0),
            (&long[..], 150),
            ("ab\r", 3),
            (&long[..], 150),
            ("x", 1),
            ("", 0),
            ("last\r", 5),
        ]
        .iter()
        .enumerate()
        .map(|(i, (t, len))| (t.as_bytes().to_vec(), *len, Origin::Line(i as u64 + 1)))
        .collect();
        for buf_len in [1, 2, 3, 7, 64, 65, 100, 4096] {
            for step in 1..=text.len() {
                let got = lines_of(text.as_bytes(), step, buf_len);
                assert_eq!(got.len(), expected.len(), "step {step}, buffer {buf_len}");
                for (g, e) in got.iter().zip(&expected) {
                    // A long line is whole when it fits one read, its first bytes otherwise.
                    assert_eq!((g.1, g.2), (e.1, e.2), "step {step}, buffer {buf_len}");
                    assert!(g.0.len() >= KEEP.min(e.0.len()), "step {step}");
                    assert_eq!(&e.0[..g.0.len()], &g.0[..], "step {step}, buffer {buf_len}");
                }
            }
        }
    }
}
