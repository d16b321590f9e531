//! Reporting when the program calls `std::process::exit`.
//!
//! `exit` runs no destructors, so a session guard on main's stack never
//! drops. An `atexit` handler ends every session still running instead. It
//! also runs after a normal return from `main`, when guards have normally
//! finished their sessions already and it finds nothing to do.

use std::sync::Once;

static INSTALL: Once = Once::new();

/// Registers `end_sessions` to run at exit, once per process. The caller
/// passes it in so that this module knows nothing of sessions.
pub(crate) fn install(end_sessions: extern "C" fn()) {
    INSTALL.call_once(|| {
        #[cfg(not(unix))]
        let _ = end_sessions;
        #[cfg(unix)]
        {
            // SAFETY: registering a plain `extern "C" fn()` with the C runtime.
            let status = unsafe { libc::atexit(end_sessions) };
            if status != 0 {
                eprintln!(
                    "perflab: could not register the exit hook; a session still running when the program calls std::process::exit will not be reported. Let the session guard drop before exiting."
                );
            }
        }
    });
}
