//! Starting one run through a one-shot `perflab-exec FD -- PROGRAM`, the
//! small program installed next to `perflab` (see [`crate::exec`] for why):
//! finding it, and reading the report it writes to a pipe.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::protocol::ExecReport;

/// The `perflab-exec` next to the running perflab, if installed.
pub(crate) fn installed_perflab_exec() -> Option<&'static Path> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let exe = std::env::current_exe().ok()?;
            let candidate = exe.with_file_name("perflab-exec");
            if candidate.is_file() {
                return Some(candidate);
            }
            // Test binaries live in target/*/deps, one level below the binaries.
            let up = exe.parent()?.parent()?.join("perflab-exec");
            up.is_file().then_some(up)
        })
        .as_deref()
}

/// The pipe `perflab-exec` writes its report to: the read end stays with
/// perflab, the write end is inherited by `perflab-exec` only.
pub(crate) struct ReportPipe {
    read: OwnedFd,
    write: Option<OwnedFd>,
}

impl ReportPipe {
    /// A new pipe whose write end will be inherited by the next spawned process.
    pub(crate) fn new() -> std::io::Result<Self> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe2 fills two descriptors, both close-on-exec at first.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: both descriptors were just created and are owned here.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        // The write end must survive exec into perflab-exec. perflab starts
        // runs from one thread, so no other spawn can inherit it meanwhile.
        // SAFETY: clearing the close-on-exec flag of a descriptor we own.
        unsafe { libc::fcntl(write.as_raw_fd(), libc::F_SETFD, 0) };
        Ok(Self {
            read,
            write: Some(write),
        })
    }

    /// The descriptor number to give `perflab-exec`.
    pub(crate) fn write_fd(&self) -> RawFd {
        self.write.as_ref().map_or(-1, |w| w.as_raw_fd())
    }

    /// Closes perflab's copy of the write end (after the spawn).
    pub(crate) fn close_write(&mut self) {
        self.write = None;
    }

    /// Reads the report; `None` when there is none (the run was killed).
    pub(crate) fn read(&self) -> Option<ExecReport> {
        let mut buffer = [0u8; 256];
        // SAFETY: reading into a local buffer of the given length.
        let n = unsafe {
            libc::read(
                self.read.as_raw_fd(),
                buffer.as_mut_ptr().cast(),
                buffer.len(),
            )
        };
        let text = std::str::from_utf8(buffer.get(..usize::try_from(n).ok()?)?).ok()?;
        ExecReport::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_pipe_with_nothing_written_has_no_report() {
        let pipe = ReportPipe::new().unwrap();
        assert!(pipe.read().is_none(), "nothing written yet");
    }
}
