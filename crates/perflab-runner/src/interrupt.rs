//! Ctrl-C: a flag set by a signal handler and read between and during runs,
//! so that the runs already finished are stored before perflab stops.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_signal: libc::c_int) {
    // Only an atomic store: anything more is not async-signal-safe.
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Routes SIGINT and SIGTERM to the interrupt flag instead of killing perflab.
pub fn install_interrupt_handler() {
    // SAFETY: the handler only performs an atomic store, which is
    // async-signal-safe; sigaction is given a zeroed, then filled, struct.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigint as *const () as usize;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
    }
}

/// True once the user pressed Ctrl-C.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
