//! Starting runs through `perflab-exec`, the small program installed next to
//! `perflab` (see its source for why): finding it, and reading its report.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What `perflab-exec` measured of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecReport {
    /// Wall time from fork to reaping, nanoseconds.
    pub wall_ns: u64,
    /// User CPU time of the command's process tree, microseconds.
    pub user_us: i64,
    /// System CPU time, microseconds.
    pub sys_us: i64,
    /// Peak resident size of the largest process of the tree, KiB.
    pub max_rss_kib: i64,
    /// The raw wait status.
    pub status: i32,
    /// Non-zero when the program could not be executed.
    pub exec_errno: i32,
}

/// The `perflab-exec` next to the running perflab, if installed.
pub fn trampoline() -> Option<&'static Path> {
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
pub struct ReportPipe {
    read: OwnedFd,
    write: Option<OwnedFd>,
}

impl ReportPipe {
    /// A new pipe whose write end will be inherited by the next spawned process.
    pub fn new() -> std::io::Result<Self> {
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
    pub fn write_fd(&self) -> RawFd {
        self.write.as_ref().map_or(-1, |w| w.as_raw_fd())
    }

    /// Closes perflab's copy of the write end (after the spawn).
    pub fn close_write(&mut self) {
        self.write = None;
    }

    /// Reads the report; `None` when there is none (the run was killed).
    pub fn read(&self) -> Option<ExecReport> {
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
        parse_report(text)
    }
}

/// Parses a report line.
pub fn parse_report(text: &str) -> Option<ExecReport> {
    let mut words = text.split_whitespace();
    if words.next()? != "perflab-exec/1" {
        return None;
    }
    let mut next = || words.next()?.parse::<i64>().ok();
    Some(ExecReport {
        wall_ns: u64::try_from(next()?).ok()?,
        user_us: next()?,
        sys_us: next()?,
        max_rss_kib: next()?,
        status: i32::try_from(next()?).ok()?,
        exec_errno: i32::try_from(next()?).ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_line_is_read_back() {
        let r = parse_report("perflab-exec/1 1500 20 30 964 0 0\n").unwrap();
        assert_eq!(
            (
                r.wall_ns,
                r.user_us,
                r.sys_us,
                r.max_rss_kib,
                r.status,
                r.exec_errno
            ),
            (1500, 20, 30, 964, 0, 0)
        );
    }

    #[test]
    fn an_empty_or_foreign_report_is_none() {
        assert!(parse_report("").is_none());
        assert!(parse_report("something else").is_none());
        let pipe = ReportPipe::new().unwrap();
        assert!(pipe.read().is_none(), "nothing written yet");
    }
}
