//! The sessions that are running, and the generation number that tells every
//! thread, with one relaxed load per probe, that it must look again.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use perflab_format::profile::SessionScope;

use crate::imp::thread_table::ThreadTable;

/// Incremented (release) whenever a session starts or ends. A thread whose
/// binding carries an older generation rebinds on its next probe.
pub(crate) static GENERATION: AtomicU64 = AtomicU64::new(FIRST_GENERATION);

/// Generation numbers start here; 0 marks a thread that never bound.
pub(crate) const FIRST_GENERATION: u64 = 1;

/// Running sessions in start order.
static ACTIVE: Mutex<Vec<Arc<SessionShared>>> = Mutex::new(Vec::new());

static NEXT_SESSION_ID: AtomicU64 = AtomicU64::new(1);

/// How a session reports when it ends.
#[derive(Debug, Clone)]
pub(crate) struct SessionConfig {
    pub(crate) name: String,
    pub(crate) scope: SessionScope,
    pub(crate) print_table: bool,
    pub(crate) profile_path: Option<PathBuf>,
    /// Where the timeline goes; none when the session does not trace.
    pub(crate) trace_path: Option<PathBuf>,
    pub(crate) trace_events_per_thread: usize,
    pub(crate) unattributed_threshold: f64,
}

impl SessionConfig {
    /// Events each thread's timeline holds: 0 when the session does not trace.
    pub(crate) fn trace_events(&self) -> usize {
        if self.trace_path.is_some() {
            self.trace_events_per_thread
        } else {
            0
        }
    }
}

/// A session as threads and the exit hook see it.
pub(crate) struct SessionShared {
    pub(crate) id: u64,
    pub(crate) config: SessionConfig,
    /// Program file name, taken at start (arguments may be gone at exit).
    pub(crate) program: std::ffi::OsString,
    pub(crate) start_ticks: u64,
    pub(crate) start_process_cpu_ns: Option<u64>,
    pub(crate) started_unix_ms: u64,
    /// Tables of every thread that recorded into the session, ended threads included.
    pub(crate) tables: Mutex<Vec<Arc<ThreadTable>>>,
    pub(crate) finished: AtomicBool,
}

impl SessionShared {
    pub(crate) fn new(config: SessionConfig, start_ticks: u64) -> Self {
        let program = std::env::args_os()
            .next()
            .map(|arg0| {
                std::path::Path::new(&arg0)
                    .file_name()
                    .map(|name| name.to_os_string())
                    .unwrap_or(arg0)
            })
            .unwrap_or_default();
        let started_unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|since| since.as_millis() as u64)
            .unwrap_or(0);
        SessionShared {
            id: NEXT_SESSION_ID.fetch_add(1, Ordering::Relaxed),
            config,
            program,
            start_ticks,
            start_process_cpu_ns: crate::imp::cpu_time::process_ns(),
            started_unix_ms,
            tables: Mutex::new(Vec::new()),
            finished: AtomicBool::new(false),
        }
    }

    pub(crate) fn is_finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }

    /// The tables, locked. A panic elsewhere must not stop the report, so a
    /// poisoned lock is taken over rather than propagated.
    pub(crate) fn lock_tables(&self) -> MutexGuard<'_, Vec<Arc<ThreadTable>>> {
        self.tables
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn lock_active() -> MutexGuard<'static, Vec<Arc<SessionShared>>> {
    ACTIVE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Makes a session visible to every thread.
pub(crate) fn register(session: Arc<SessionShared>) {
    lock_active().push(session);
    GENERATION.fetch_add(1, Ordering::Release);
}

/// Removes a finished session; threads bound to it let go on their next probe.
pub(crate) fn unregister(id: u64) {
    lock_active().retain(|session| session.id != id);
    GENERATION.fetch_add(1, Ordering::Release);
}

/// The session a thread not bound to any session records into: the most
/// recently started process-wide session still running.
pub(crate) fn default_session() -> Option<Arc<SessionShared>> {
    lock_active()
        .iter()
        .rev()
        .find(|session| session.config.scope == SessionScope::Process && !session.is_finished())
        .cloned()
}

/// Every running session, oldest first (for the exit hook).
pub(crate) fn active_sessions() -> Vec<Arc<SessionShared>> {
    lock_active().clone()
}
