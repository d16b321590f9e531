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
            scanner: LineScanner::default(),
        }
    }

    /// Reads what is available; marks the stream closed at end of file.
    fn drain(&mut self, extractor: &MetricExtractor) {
        // As large as a pipe's default capacity: one read empties it.
        let mut buffer = [0u8; 64 * 1024];
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
                n if n > 0 => self.scanner.feed(&buffer[..n as usize], extractor),
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

/// Waits up to `timeout_ms` for output or for `end` to become readable,
/// and reads the output that arrived. Returns early on a signal (Ctrl-C).
///
/// True unless it woke for output alone: then `end` is known not to be
/// readable, and there is no need to look for the run's end.
pub(crate) fn poll_once(
    streams: &mut [Stream],
    end: Option<RawFd>,
    timeout_ms: i32,
    extractor: &MetricExtractor,
) -> bool {
    let mut fds: Vec<libc::pollfd> = streams
        .iter()
        .filter(|s| s.open)
        .map(|s| s.fd.as_raw_fd())
        .chain(end)
        .map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    if fds.is_empty() {
        std::thread::sleep(Duration::from_millis(timeout_ms as u64));
        return true;
    }
    // SAFETY: fds is a valid array of pollfd of the given length.
    let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
    if ready <= 0 {
        return true;
    }
    let end_readable = end.is_some_and(|end| fds.iter().any(|f| f.fd == end && f.revents != 0));
    let readable: Vec<RawFd> = fds
        .iter()
        .filter(|f| f.revents != 0)
        .map(|f| f.fd)
        .collect();
    for stream in streams
        .iter_mut()
        .filter(|s| s.open && readable.contains(&s.fd.as_raw_fd()))
    {
        stream.drain(extractor);
    }
    end.is_none() || end_readable
}
