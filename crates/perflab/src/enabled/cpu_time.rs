//! CPU time of threads and of the process, read from the operating system.
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
}
