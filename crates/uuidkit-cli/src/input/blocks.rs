//! Standard input's bytes, a block at a time, for [`super::lines`]: read while the lines
//! of the block before are handled. A regular file is read by two threads at once, each
//! every other block at its place in the file (two cores share the reading, which is most
//! of `check`'s time); a stream (a pipe, a terminal) by one thread, in order. Where no
//! thread or no memory for the blocks can be had, this thread reads, one block at a time.
//!
//! Every way gives the same blocks' bytes in the same order: a file's blocks are read
//! whole until one comes short (its end, or a read that returned less), and from there on
//! the file is read in order on this thread, as a stream would be, so that a file that
//! grows while it is read (a log being appended to) is read as `read` would read it. A
//! file rewritten in place while it is read gives a mix of its versions to any reader;
//! read by two threads, the mix can hold a later version's block before an earlier
//! one's, which a reader in order could not give. And a thread that stops without a word
//! (it could not get the memory to start) leaves its blocks to this thread.

use std::io::{self, Read, Seek, SeekFrom};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};

use super::parse::KEEP;
use crate::failure::Failure;

/// Room in front of each block for the start of a line that the read before cut: at most
/// [`KEEP`] bytes, copied there so that the line is whole in front of the next read's
/// bytes without moving them.
pub(super) const FRONT: usize = KEEP;

/// Blocks a reading thread has: one it reads into while the other is handled.
const PER_THREAD: usize = 2;

/// The stack of a reading thread.
const READING_STACK: usize = 64 * 1024;

/// What a read takes when a full block's memory cannot be had.
const SMALL_READ: usize = 4096;

/// One read: its bytes are `buf[FRONT..FRONT + n]` when `got` is `Ok(n)`.
pub(super) struct Block {
    pub buf: Vec<u8>,
    pub got: io::Result<usize>,
}

/// A file read at a place: what lets two threads read one file at once.
pub(crate) trait ReadAt: Send + Sync + 'static {
    /// Reads into `buf` from `offset`, as `pread` does.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;

    /// Reading stopped at `offset` (the end of the input, or a read that failed there):
    /// leaves the file's own position there, where reading it in order would have left it
    /// (for a shell that reads on: `{ uuidkit check; cat; } < file`).
    fn stopped_at(&self, offset: u64);
}

impl ReadAt for std::fs::File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(self, buf, offset)
    }

    fn stopped_at(&self, offset: u64) {
        // Nothing is lost if this fails: the bytes were read; only a later reader of the
        // same open file would start elsewhere.
        let _ = (&mut &*self).seek(SeekFrom::Start(offset));
    }
}

/// The first `len` bytes of `buf`, or fewer so that a read at `offset` does not pass the
/// largest file offset (2^63 - 1), where `pread` fails with EINVAL rather than reading
/// less: a read in order would read up to it.
fn within_offsets(buf: &mut [u8], offset: u64) -> &mut [u8] {
    let room = (i64::MAX as u64).saturating_sub(offset);
    let n = usize::try_from(room).unwrap_or(usize::MAX).min(buf.len());
    &mut buf[..n]
}

/// Where block `k` of a file read from `start` in blocks of `len` bytes begins; `None` past
/// 2^64.
fn block_at(start: u64, k: u64, len: usize) -> Option<u64> {
    k.checked_mul(len as u64)?.checked_add(start)
}

/// Where standard input's bytes come from.
pub(crate) enum Stdin {
    /// A stream, read in order: by a thread of its own if `ahead`.
    Stream {
        reader: Box<dyn Read + Send>,
        ahead: bool,
    },
    /// A regular file from `start`: read by two threads at once.
    File { file: Arc<dyn ReadAt>, start: u64 },
}

impl Stdin {
    /// Standard input, as a file when it is a regular one.
    pub(crate) fn of(file: std::fs::File) -> Stdin {
        let regular = file.metadata().is_ok_and(|m| m.file_type().is_file());
        let start = if regular {
            (&mut &file).stream_position().ok()
        } else {
            None
        };
        match start {
            Some(start) => Stdin::File {
                file: Arc::new(file),
                start,
            },
            None => Stdin::Stream {
                reader: Box::new(file),
                ahead: true,
            },
        }
    }
}

/// Where the blocks come from now.
enum Source {
    /// One thread reading a stream ahead.
    Ahead {
        full: Receiver<Block>,
        free: SyncSender<Vec<u8>>,
    },
    /// Two threads reading a file, block `k` by thread `k % 2`; `next` is the next block's
    /// number.
    Striped {
        full: [Receiver<Block>; 2],
        free: [SyncSender<Vec<u8>>; 2],
        next: u64,
        file: Arc<dyn ReadAt>,
        start: u64,
    },
    /// This thread, reading a stream.
    Here {
        reader: Box<dyn Read + Send>,
        buf: Option<Vec<u8>>,
    },
    /// This thread, reading a file in order from `offset`.
    HereAt {
        file: Arc<dyn ReadAt>,
        offset: u64,
        buf: Option<Vec<u8>>,
    },
}

/// The blocks of standard input, and whether the last was short.
pub(super) struct Blocks {
    source: Source,
    /// The bytes a read asks for.
    len: usize,
    /// The last read returned less than it asked for: the writer on the other side had
    /// nothing more at that moment, so the next read may wait.
    pub waiting: bool,
}

/// A read's block of `len` bytes after the [`FRONT`]; `None` when the memory cannot be had.
fn block(len: usize) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    buf.try_reserve_exact(FRONT + len).ok()?;
    buf.resize(FRONT + len, 0);
    Some(buf)
}

/// `n` blocks of `len` bytes, or `None`.
fn blocks(n: usize, len: usize) -> Option<Vec<Vec<u8>>> {
    (0..n).map(|_| block(len)).collect()
}

/// A block of `len` bytes, or fewer if that much memory cannot be had.
fn some_block(len: usize) -> Result<Vec<u8>, Failure> {
    block(len)
        .or_else(|| block(SMALL_READ.min(len)))
        .ok_or_else(|| Failure::Message("reading standard input: out of memory".into()))
}

/// A thread that takes free blocks from `free`, fills each with `read` (given the block's
/// number among this thread's reads) and sends it on `full`, until a read fails or finds
/// the end (or, with `whole`, comes short of `len`), or the other side is gone. The
/// channels' other ends, or `None` if the thread cannot be started.
fn reading_thread(
    bufs: Vec<Vec<u8>>,
    mut read: impl FnMut(&mut [u8], u64) -> io::Result<usize> + Send + 'static,
    len: usize,
    whole: bool,
) -> Option<(Receiver<Block>, SyncSender<Vec<u8>>)> {
    let (full_tx, full) = sync_channel::<Block>(bufs.len());
    let (free, free_rx) = sync_channel::<Vec<u8>>(bufs.len());
    for buf in bufs {
        free.send(buf)
            .expect("the receiver is alive and the channel has room");
    }
    let started = std::thread::Builder::new()
        .name("read".into())
        // It only reads: a small stack leaves more of a tight memory limit to the blocks.
        .stack_size(READING_STACK)
        .spawn(move || {
            // Ends at a short read (the end of the input, for a file), a read error, or
            // when the lines' side is gone (it stopped early): nothing waits for it then.
            let mut i = 0;
            while let Ok(mut buf) = free_rx.recv() {
                let got = retrying(|| read(&mut buf[FRONT..], i));
                let last = match got {
                    Ok(n) => n == 0 || (whole && n < len),
                    Err(_) => true,
                };
                if full_tx.send(Block { buf, got }).is_err() || last {
                    return;
                }
                i += 1;
            }
        });
    started.ok().map(|_| (full, free))
}

/// A read, again after an interruption by a signal.
fn retrying(mut read: impl FnMut() -> io::Result<usize>) -> io::Result<usize> {
    loop {
        match read() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            got => return got,
        }
    }
}

impl Blocks {
    /// Reads of at most `len` bytes from `stdin`.
    pub(super) fn new(stdin: Stdin, len: usize) -> Result<Blocks, Failure> {
        let source = match stdin {
            Stdin::File { file, start } => Self::striped(file, start, len)?,
            Stdin::Stream {
                reader,
                ahead: true,
            } => Self::ahead(reader, len)?,
            Stdin::Stream { reader, .. } => Source::Here {
                reader,
                buf: Some(some_block(len)?),
            },
        };
        Ok(Blocks {
            source,
            len,
            waiting: false,
        })
    }

    /// One thread reading `reader` ahead, or this thread if it cannot be had.
    fn ahead(reader: Box<dyn Read + Send>, len: usize) -> Result<Source, Failure> {
        // The reader goes to the thread, and comes back if the thread cannot start.
        let shared = Arc::new(Mutex::new(Some(reader)));
        if let Some(bufs) = blocks(PER_THREAD, len) {
            let theirs = Arc::clone(&shared);
            let mut reader = None;
            let read = move |buf: &mut [u8], _| {
                let r = reader.get_or_insert_with(|| {
                    theirs
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .take()
                        .expect("the reader is handed over once")
                });
                r.read(buf)
            };
            if let Some((full, free)) = reading_thread(bufs, read, len, false) {
                return Ok(Source::Ahead { full, free });
            }
        }
        let reader = shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .expect("a thread that never started never took the reader");
        Ok(Source::Here {
            reader,
            buf: Some(some_block(len)?),
        })
    }

    /// Two threads reading `file` from `start`, or this thread if they cannot be had.
    fn striped(file: Arc<dyn ReadAt>, start: u64, len: usize) -> Result<Source, Failure> {
        let thread = |which: u64| {
            let bufs = blocks(PER_THREAD, len)?;
            let file = Arc::clone(&file);
            // This thread's `i`-th read is block `2 i + which`.
            let read = move |buf: &mut [u8], i: u64| {
                let at = block_at(start, 2 * i + which, len)
                    .ok_or_else(|| io::Error::other("offset past 2^64"))?;
                file.read_at(within_offsets(buf, at), at)
            };
            reading_thread(bufs, read, len, true)
        };
        // If only the first thread starts, it ends when its channels close, here.
        if let Some((full0, free0)) = thread(0)
            && let Some((full1, free1)) = thread(1)
        {
            return Ok(Source::Striped {
                full: [full0, full1],
                free: [free0, free1],
                next: 0,
                file,
                start,
            });
        }
        Ok(Source::HereAt {
            file,
            offset: start,
            buf: Some(some_block(len)?),
        })
    }

    /// The next block.
    pub(super) fn next(&mut self) -> Result<Block, Failure> {
        let len = self.len;
        let mut switch = None;
        let block = match &mut self.source {
            Source::Ahead { full, .. } => full.recv().map_err(|_| gone())?,
            Source::Striped {
                full,
                next,
                file,
                start,
                ..
            } => {
                let k = *next;
                // Past 2^64 the thread sent an error, and no byte was read there.
                let at = block_at(*start, k, len).unwrap_or(u64::MAX);
                let Ok(block) = full[(k % 2) as usize].recv() else {
                    // The thread stopped without a word (it could not start its
                    // runtime: memory): this thread reads on from block `k`.
                    self.source = Source::HereAt {
                        file: Arc::clone(file),
                        offset: at,
                        buf: Some(some_block(len)?),
                    };
                    return self.next();
                };
                *next += 1;
                if !matches!(block.got, Ok(n) if n == len) {
                    // A short block: from its end on, this thread reads in order (see
                    // the module's comment), into this block once it is handed back.
                    let n = *block.got.as_ref().unwrap_or(&0) as u64;
                    if !matches!(block.got, Ok(n) if n > 0) {
                        file.stopped_at(at + n);
                    }
                    switch = Some(Source::HereAt {
                        file: Arc::clone(file),
                        offset: at + n,
                        buf: None,
                    });
                }
                block
            }
            Source::Here { reader, buf } => {
                let mut buf = buf
                    .take()
                    .expect("each block is given back before the next");
                let got = retrying(|| reader.read(&mut buf[FRONT..]));
                Block { buf, got }
            }
            Source::HereAt { file, offset, buf } => {
                let mut buf = buf
                    .take()
                    .expect("each block is given back before the next");
                let got =
                    retrying(|| file.read_at(within_offsets(&mut buf[FRONT..], *offset), *offset));
                match got {
                    Ok(0) | Err(_) => file.stopped_at(*offset),
                    Ok(n) => *offset += n as u64,
                }
                Block { buf, got }
            }
        };
        if let Some(source) = switch {
            // The reading threads end as their channels close, here.
            self.source = source;
        }
        self.waiting = matches!(block.got, Ok(n) if n < block.buf.len() - FRONT);
        Ok(block)
    }

    /// Hands `buf` back for a later read.
    pub(super) fn give_back(&mut self, buf: Vec<u8>) {
        match &mut self.source {
            // A thread that has ended (at the end of the input) needs no more blocks.
            Source::Ahead { free, .. } => drop(free.send(buf)),
            Source::Striped { free, next, .. } => {
                // The block just handled was block `next - 1`, of thread `(next - 1) % 2`.
                drop(free[((*next + 1) % 2) as usize].send(buf))
            }
            Source::Here { buf: slot, .. } | Source::HereAt { buf: slot, .. } => *slot = Some(buf),
        }
    }
}

/// The reading thread ended without saying why: it cannot, since it sends the end of the
/// input and every error before ending, unless it panicked.
fn gone() -> Failure {
    Failure::Message("reading standard input: the reading thread stopped".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_stop_at_the_largest_file_offset() {
        let mut buf = [0u8; 10];
        let max = i64::MAX as u64;
        assert_eq!(within_offsets(&mut buf, 0).len(), 10);
        assert_eq!(within_offsets(&mut buf, max - 10).len(), 10);
        assert_eq!(within_offsets(&mut buf, max - 3).len(), 3);
        assert_eq!(within_offsets(&mut buf, max).len(), 0);
        assert_eq!(within_offsets(&mut buf, u64::MAX).len(), 0);
    }
}
