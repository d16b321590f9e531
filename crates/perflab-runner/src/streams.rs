//! A run's stdout and stderr as perflab reads them: non-blocking pipes
//! polled together with one more descriptor that becomes readable when the
//! run ends (a pidfd, or the fork server's socket), from a single thread.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::time::Duration;

use crate::MetricExtractor;
use crate::capture::LineScanner;

/// One output pipe of the run.
pub(crate) struct Stream {
    fd: OwnedFd,
    /// False once the pipe reached end of file (or failed).
    pub open: bool,
    /// How many bytes were read from it.
    pub bytes: u64,
    /// Its lines, scanned for metrics.
    pub scanner: LineScanner,
}

impl Stream {
    /// Takes the read end of a pipe.
    pub(crate) fn new(fd: OwnedFd) -> Self {
        // The read end of a pipe just made has none of the flags F_SETFL
        // changes, so they need not be read first: one system call per
        // pipe and run fewer.
        // SAFETY: fcntl on a pipe we own.
        unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
        Self {
            fd,
            open: true,
            bytes: 0,
            scanner: LineScanner::default(),
        }
    }

    /// Its scanner, the stream's end given (a last line without a
    /// newline counted), and the pipe, to close when that costs the next
    /// run nothing.
    pub(crate) fn finish(mut self, extractor: &MetricExtractor) -> (LineScanner, OwnedFd) {
        self.scanner.finish(extractor);
        (self.scanner, self.fd)
    }

    /// Reads what is available; marks the stream closed at end of file.
    fn drain(&mut self, extractor: &MetricExtractor) {
        // As large as a pipe's default capacity: one read empties it. Left
        // uninitialised: zeroing 64 KiB at every call (two or more per run)
        // cost more than the rest of reading a quiet run's output, and
        // filled the CPU's first-level cache with zeros.
        let mut buffer = [std::mem::MaybeUninit::<u8>::uninit(); 64 * 1024];
        loop {
            // SAFETY: reading into a local buffer of the given length.
            let n = unsafe {
                libc::read(
                    self.fd.as_raw_fd(),
                    buffer.as_mut_ptr().cast(),
                    buffer.len(),
                )
            };
            match n {
                0 => {
                    self.open = false;
                    return;
                }
                n if n > 0 => {
                    // SAFETY: read(2) initialised its first n bytes.
                    let read = unsafe {
                        std::slice::from_raw_parts(buffer.as_ptr().cast::<u8>(), n as usize)
                    };
                    self.bytes += n as u64;
                    self.scanner.feed(read, extractor)
                }
                _ => {
                    let err = std::io::Error::last_os_error();
                    if err.kind() != std::io::ErrorKind::Interrupted {
                        if err.kind() != std::io::ErrorKind::WouldBlock {
                            self.open = false;
                        }
                        return;
                    }
                }
            }
        }
    }
}

/// Why [`poll_once`] returned.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wake {
    /// False when it woke for output alone: then the run's end is known
    /// not to have come, and there is no need to look for it.
    pub look_for_end: bool,
    /// The descriptor that shows the command's exit was readable.
    pub exited: bool,
}

/// Waits up to `timeout_ms` for output, for `end` (readable when the run
/// ends) or for `exit` (readable when its command exits, where that comes
/// before the end) to become readable, and reads the output that arrived.
/// Returns early on a signal (Ctrl-C).
pub(crate) fn poll_once(
    streams: &mut [Stream],
    end: Option<RawFd>,
    exit: Option<RawFd>,
    timeout_ms: i32,
    extractor: &MetricExtractor,
) -> Wake {
    let mut fds: Vec<libc::pollfd> = streams
        .iter()
        .filter(|s| s.open)
        .map(|s| s.fd.as_raw_fd())
        .chain(end)
        .chain(exit)
        .map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let unknown = Wake {
        look_for_end: true,
        exited: false,
    };
    if fds.is_empty() {
        std::thread::sleep(Duration::from_millis(timeout_ms as u64));
        return unknown;
    }
    // SAFETY: fds is a valid array of pollfd of the given length.
    let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
    if ready <= 0 {
        return unknown;
    }
    let readable: Vec<RawFd> = fds
        .iter()
        .filter(|f| f.revents != 0)
        .map(|f| f.fd)
        .collect();
    let woke_by = |fd: Option<RawFd>| fd.is_some_and(|fd| readable.contains(&fd));
    let wake = Wake {
        look_for_end: (end.is_none() && exit.is_none()) || woke_by(end) || woke_by(exit),
        exited: woke_by(exit),
    };
    for stream in streams
        .iter_mut()
        .filter(|s| s.open && readable.contains(&s.fd.as_raw_fd()))
    {
        stream.drain(extractor);
    }
    wake
}
