//! CPU time of threads and of the process, and the time threads waited for
//! a CPU, read from the operating system.
//!
//! These are system calls, so they are only made on cold paths: when a thread
//! first touches a probe, when it ends, and when a session ends.

/// CPU time consumed so far by the calling thread.
pub(crate) fn this_thread_ns() -> Option<u64> {
    #[cfg(unix)]
    {
        clock_ns(libc::CLOCK_THREAD_CPUTIME_ID)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// CPU time consumed so far by every thread of the process.
pub(crate) fn process_ns() -> Option<u64> {
    #[cfg(unix)]
    {
        clock_ns(libc::CLOCK_PROCESS_CPUTIME_ID)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// A handle through which another thread can read this thread's CPU time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ThreadCpuClock {
    #[cfg(target_os = "linux")]
    clock: Option<libc::clockid_t>,
}

impl ThreadCpuClock {
    /// The calling thread's CPU clock.
    pub(crate) fn of_this_thread() -> Self {
        #[cfg(target_os = "linux")]
        {
            let mut clock: libc::clockid_t = 0;
            // SAFETY: pthread_self is always a valid thread; `clock` is a valid out pointer.
            let status = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
            ThreadCpuClock {
                clock: (status == 0).then_some(clock),
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            ThreadCpuClock {}
        }
    }

    /// CPU time of the thread, read from any thread.
    ///
    /// The caller must know that the thread has not ended: the session holds
    /// its lock while reading, and an ending thread takes that lock before
    /// it goes.
    pub(crate) fn read_ns(&self) -> Option<u64> {
        #[cfg(target_os = "linux")]
        {
            self.clock.and_then(clock_ns)
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }
}

/// A thread's total time waiting for a CPU while runnable, from the
/// scheduler's statistics.
///
/// Linux keeps, per thread, the time it ran and the time it sat on a run
/// queue, ready but not running (`/proc/<pid>/task/<tid>/schedstat`, fields 1
/// and 2, in nanoseconds; see the kernel's `Documentation/scheduler/sched-stats.rst`).
/// The second is what the thread lost to other threads (preempted, or woken
/// and not yet run); the rest of its time off the CPU it was not runnable:
/// blocked. The file exists when the kernel has `CONFIG_SCHED_INFO` (set by
/// every major distribution); where it is missing this is `None` and the
/// profile leaves the split out.
///
/// Reading it opens, reads and closes a small file (a few microseconds), so
/// it is done where CPU time is read: twice per thread and session, never
/// per span. Nothing is allocated: the path is built on the stack.
pub(crate) fn runnable_wait_ns(os_tid: Option<u64>) -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        use std::io::{Read, Write};
        let mut path = [0u8; 64];
        let length = {
            let mut cursor = std::io::Cursor::new(&mut path[..]);
            match os_tid {
                Some(tid) => write!(cursor, "/proc/self/task/{tid}/schedstat").ok()?,
                None => write!(cursor, "/proc/thread-self/schedstat").ok()?,
            }
            usize::try_from(cursor.position()).ok()?
        };
        let path = std::str::from_utf8(&path[..length]).ok()?;
        let mut text = [0u8; 96];
        let mut file = std::fs::File::open(path).ok()?;
        let mut filled = 0;
        while filled < text.len() {
            match file.read(&mut text[filled..]) {
                Ok(0) => break,
                Ok(read) => filled += read,
                Err(_) => return None,
            }
        }
        let text = std::str::from_utf8(&text[..filled]).ok()?;
        text.split_ascii_whitespace().nth(1)?.parse().ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = os_tid;
        None
    }
}

/// The operating system's id of the calling thread.
pub(crate) fn os_thread_id() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid takes no arguments and cannot fail.
        let tid = unsafe { libc::syscall(libc::SYS_gettid) };
        u64::try_from(tid).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

#[cfg(unix)]
fn clock_ns(clock: libc::clockid_t) -> Option<u64> {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid out pointer.
    let status = unsafe { libc::clock_gettime(clock, &mut time) };
    if status != 0 {
        return None;
    }
    let secs = u64::try_from(time.tv_sec).ok()?;
    let nanos = u64::try_from(time.tv_nsec).ok()?;
    Some(secs.saturating_mul(1_000_000_000).saturating_add(nanos))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn busy_work_shows_as_cpu_time_of_the_thread_and_the_process() {
        let thread_before = this_thread_ns().unwrap();
        let process_before = process_ns().unwrap();
        let clock = ThreadCpuClock::of_this_thread();
        let wall = std::time::Instant::now();
        let mut x = 1u64;
        while wall.elapsed() < std::time::Duration::from_millis(20) {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        assert!(this_thread_ns().unwrap() > thread_before);
        assert!(process_ns().unwrap() > process_before);
        assert!(clock.read_ns().unwrap() > thread_before);
        assert!(os_thread_id().is_some());
    }

    #[test]
    fn the_wait_for_a_cpu_reads_the_same_for_this_thread_by_either_path() {
        let own = runnable_wait_ns(None).unwrap();
        let by_id = runnable_wait_ns(os_thread_id()).unwrap();
        // The wait only grows; a reschedule between the two reads may add to it.
        assert!(by_id >= own, "{by_id} < {own}");
        assert_eq!(runnable_wait_ns(Some(u64::MAX)), None);
    }
}
