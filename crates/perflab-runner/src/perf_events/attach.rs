//! Attaching counters to a child between fork and exec: the child sends
//! its pid through one pipe and waits on another while a helper thread
//! opens the counters on it (`Command::spawn` returns only after exec, so
//! the spawning thread cannot be the one that attaches).

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::thread::JoinHandle;

use super::{PerfEvent, PerfEventSet, open};
use crate::error::{Error, Result};

impl PerfEventSet {
    /// Makes `command` wait before exec until the counters are attached to
    /// it; call [`Attaching::attached`] after `spawn` returns.
    pub(crate) fn attach_to(&self, command: &mut Command) -> Result<Attaching> {
        let (ready_read, ready_write) = pipe()?;
        let (go_read, go_write) = pipe()?;
        let counters = self.counters.clone();
        let flags = self.flags;
        // The child closes its copies of the helper's ends, so that if the
        // helper is gone the child sees end-of-file instead of waiting forever.
        let helper_ends = [ready_read.as_raw_fd(), go_write.as_raw_fd()];
        let helper = std::thread::spawn(move || {
            let mut pid_bytes = [0u8; 4];
            // SAFETY: reading into a local buffer from a pipe we own.
            let got =
                unsafe { libc::read(ready_read.as_raw_fd(), pid_bytes.as_mut_ptr().cast(), 4) };
            if got != 4 {
                return Vec::new(); // the child never got to exec
            }
            let pid = libc::pid_t::from_ne_bytes(pid_bytes);
            let opened: Vec<(PerfEvent, OwnedFd)> = counters
                .iter()
                .filter_map(|c| open(c, flags, pid).ok().map(|fd| (*c, fd)))
                .collect();
            // SAFETY: one byte to a pipe we own; the child then execs.
            unsafe { libc::write(go_write.as_raw_fd(), [1u8].as_ptr().cast(), 1) };
            opened
        });
        let (ready_w, go_r) = (ready_write.as_raw_fd(), go_read.as_raw_fd());
        // SAFETY: the closure runs in the child between fork and exec and
        // only makes async-signal-safe system calls on inherited descriptors.
        unsafe {
            command.pre_exec(move || {
                for fd in helper_ends {
                    libc::close(fd);
                }
                let pid = libc::getpid().to_ne_bytes();
                libc::write(ready_w, pid.as_ptr().cast(), 4);
                let mut byte = [0u8; 1];
                libc::read(go_r, byte.as_mut_ptr().cast(), 1);
                Ok(())
            });
        }
        Ok(Attaching {
            helper: Some(helper),
            parent_ends: Some((ready_write, go_read)),
        })
    }
}

/// Counters being attached to a child that is being spawned.
pub struct Attaching {
    helper: Option<JoinHandle<Vec<(PerfEvent, OwnedFd)>>>,
    parent_ends: Option<(OwnedFd, OwnedFd)>,
}

impl Attaching {
    /// After `spawn` (successful or not): the counters attached to the child.
    pub fn attached(mut self) -> Attached {
        self.parent_ends = None; // closing the write end lets a waiting helper see end-of-file
        let fds = self
            .helper
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        Attached { fds }
    }
}

impl Drop for Attaching {
    fn drop(&mut self) {
        self.parent_ends = None;
        if let Some(helper) = self.helper.take() {
            let _ = helper.join();
        }
    }
}

/// Counters attached to a running child.
pub struct Attached {
    fds: Vec<(PerfEvent, OwnedFd)>,
}

impl Attached {
    /// The final values, after the child was reaped, scaled for the time a
    /// counter was not scheduled (multiplexing). Task clock is in seconds.
    pub fn read(&self) -> Vec<(&'static str, f64)> {
        let mut values = Vec::new();
        for (counter, fd) in &self.fds {
            let mut buf = [0u64; 3];
            // SAFETY: the kernel writes value, time enabled, time running.
            let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), 24) };
            if n != 24 {
                continue;
            }
            let [value, enabled, running] = buf;
            let mut v = value as f64;
            if running > 0 && running < enabled {
                v *= enabled as f64 / running as f64;
            }
            if counter.metric == "perf.task-clock" {
                v /= 1e9;
            }
            values.push((counter.metric, v));
        }
        values
    }
}

fn pipe() -> Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills two descriptors on success.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(Error::Tool {
            tool: "perf_event_open".into(),
            message: format!(
                "a pipe could not be made: {}",
                std::io::Error::last_os_error()
            ),
        });
    }
    // SAFETY: both descriptors are new and ours.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}
