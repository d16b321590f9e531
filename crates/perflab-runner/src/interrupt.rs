//! Ctrl-C: a flag set by a signal handler and read between and during runs,
//! so that the runs already finished are stored before perflab stops.
//! SIGTERM and SIGHUP (a closed terminal, a dropped SSH session) stop
//! perflab the same way; after a hang-up, whatever perflab still prints to
//! the terminal that is gone goes to /dev/null instead of failing.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// /dev/null, opened before any hang-up, for the handler to put in place of
/// a terminal that is gone (-1 when it could not be opened).
static DEV_NULL: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_sigint(_signal: libc::c_int) {
    // Only an atomic store: anything more is not async-signal-safe.
    INTERRUPTED.store(true, Ordering::SeqCst);
}

extern "C" fn on_sighup(_signal: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    let null = DEV_NULL.load(Ordering::SeqCst);
    if null >= 0 {
        for fd in [1, 2] {
            // SAFETY: isatty and dup2 are async-signal-safe system calls on
            // descriptors this process owns.
            unsafe {
                if libc::isatty(fd) == 1 {
                    libc::dup2(null, fd);
                }
            }
        }
    }
}

/// Routes SIGINT, SIGTERM and SIGHUP to the interrupt flag instead of
/// killing perflab.
pub fn install_interrupt_handler() {
    // SAFETY: a NUL-terminated path; the descriptor is kept for the
    // process's life.
    let null = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    DEV_NULL.store(null, Ordering::SeqCst);
    // SAFETY: the handlers only perform atomic operations and
    // async-signal-safe system calls; sigaction is given a zeroed, then
    // filled, struct.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigint as *const () as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
        action.sa_sigaction = on_sighup as *const () as usize;
        libc::sigaction(libc::SIGHUP, &action, std::ptr::null_mut());
    }
}

/// True once the user pressed Ctrl-C.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
