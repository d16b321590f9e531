//! Reporting when the program calls `std::process::exit`.
//!
//! `exit` runs no destructors, so a session guard on main's stack never
//! drops. An `atexit` handler ends every session still running instead. It
//! also runs after a normal return from `main`, when guards have normally
//! finished their sessions already and it finds nothing to do.

use std::sync::Once;

use perflab_format::profile::SessionEnd;

static INSTALL: Once = Once::new();

/// Registers the handler once per process.
pub(crate) fn install() {
    INSTALL.call_once(|| {
        #[cfg(unix)]
        {
            // SAFETY: registering a plain `extern "C" fn()` with the C runtime.
            let status = unsafe { libc::atexit(end_sessions_at_exit) };
            if status != 0 {
                eprintln!(
                    "perflab: could not register the exit hook; a session still running when the program calls std::process::exit will not be reported. Let the session guard drop before exiting."
                );
            }
        }
    });
}

#[cfg(unix)]
extern "C" fn end_sessions_at_exit() {
    // A panic must not cross into C (it would abort the exit).
    let _ = std::panic::catch_unwind(|| {
        for session in crate::registry::active_sessions().iter().rev() {
            crate::session::finish_shared(session, SessionEnd::ProcessExit);
        }
    });
}
