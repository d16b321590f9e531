//! Process file descriptors (Linux 5.3+): a descriptor that becomes
//! readable the moment a process exits, so one poll can wait for a run's
//! end together with its output, whoever forked it.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// A pidfd for the process, so poll can wake the moment it exits (Linux 5.3+).
pub(crate) fn open(pid: libc::pid_t) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // SAFETY: a non-negative result is a fresh fd that we now own.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// True when `fd` is readable now.
pub(crate) fn readable(fd: &OwnedFd) -> bool {
    let mut entry = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, no waiting.
    unsafe { libc::poll(&mut entry, 1, 0) == 1 }
}
