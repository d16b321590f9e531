//! Sessions: the span of a program's life whose probes are collected and reported.
//!
//! Several sessions may run at once (parallel tests); each span records into
//! exactly one of them, chosen per thread (see [`crate::imp::binding`]), so their
//! data never mix. A session reports when it is finished or dropped, and, if
//! the program calls `std::process::exit` first, from an exit hook.

use std::io::Write;
use std::marker::PhantomData;
use std::path::PathBuf;
use std::sync::{Arc, Weak};

use perflab_format::profile::{PROFILE_ENV, Profile, SessionEnd, SessionScope};
use perflab_format::trace::{DEFAULT_TRACE_EVENTS, TRACE_ENV, TRACE_EVENTS_ENV};

use crate::imp::binding;
use crate::imp::clock::timer;
use crate::imp::registry::{self, SessionConfig, SessionShared};
use crate::output::write_profile;
use crate::{DEFAULT_UNATTRIBUTED_THRESHOLD, TABLE_ENV};

/// A running session. Dropping it (or calling [`Session::finish`]) ends it:
/// the span table is printed to stderr and the profile written to the path
/// in `PERFLAB_PROFILE`, unless the builder said otherwise.
///
/// The thread that starts a session always records into it. A process-wide
/// session ([`Session::start`]) also collects from every thread that is not
/// bound to another session; a thread-only session
/// ([`SessionBuilder::this_thread_only`]) collects from its thread and from
/// threads that [attach](SessionHandle::attach) to it.
#[must_use = "the session ends (and reports) when this value is dropped"]
pub struct Session {
    shared: Option<Arc<SessionShared>>,
    /// A session is bound to the thread that started it.
    _not_send: PhantomData<*const ()>,
}

/// Options for a [`Session`].
#[derive(Debug, Clone)]
pub struct SessionBuilder {
    name: Option<String>,
    scope: SessionScope,
    print_table: Option<bool>,
    profile_path: Option<Option<PathBuf>>,
    trace_path: Option<Option<PathBuf>>,
    unattributed_threshold: f64,
}

impl SessionBuilder {
    /// Names the session in the table and the profile (default: the program's file name).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Collects only from this thread and threads that attach to the session.
    pub fn this_thread_only(mut self) -> Self {
        self.scope = SessionScope::Thread;
        self
    }

    /// Whether to print the span table to stderr at the end (default: yes,
    /// unless `PERFLAB_TABLE=0`).
    pub fn print_table(mut self, print: bool) -> Self {
        self.print_table = Some(print);
        self
    }

    /// Writes the profile to `path` (default: the path in `PERFLAB_PROFILE`, if set).
    pub fn profile_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.profile_path = Some(Some(path.into()));
        self
    }

    /// Writes no profile file, whatever `PERFLAB_PROFILE` says.
    pub fn no_profile_file(mut self) -> Self {
        self.profile_path = Some(None);
        self
    }

    /// Records the session's timeline (every span's call, poll, counter and
    /// gauge, with its time) and writes it to `path` in the Chrome trace
    /// event format, which Perfetto's UI opens (default: the path in
    /// `PERFLAB_TRACE`, if set; each thread keeps up to `PERFLAB_TRACE_EVENTS`
    /// events, a million unless set, in 16 bytes each; a counter or gauge
    /// takes the room of two).
    pub fn trace_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.trace_path = Some(Some(path.into()));
        self
    }

    /// Records no timeline, whatever `PERFLAB_TRACE` says.
    pub fn no_trace_file(mut self) -> Self {
        self.trace_path = Some(None);
        self
    }

    /// Warns about threads whose time outside spans exceeds this share of their wall time.
    pub fn unattributed_threshold(mut self, share: f64) -> Self {
        self.unattributed_threshold = share;
        self
    }

    /// Starts the session.
    pub fn start(self) -> Session {
        // Measured before the session's clock starts, so that its few
        // milliseconds are not charged to the session.
        crate::imp::calibrate::span_cost_ns();
        crate::imp::exit_hook::install(end_sessions_at_exit);
        let config = SessionConfig {
            name: self.name.unwrap_or_else(default_name),
            scope: self.scope,
            print_table: self
                .print_table
                .unwrap_or_else(|| std::env::var_os(TABLE_ENV).is_none_or(|value| value != "0")),
            profile_path: self
                .profile_path
                .unwrap_or_else(|| std::env::var_os(PROFILE_ENV).map(PathBuf::from)),
            trace_path: self
                .trace_path
                .unwrap_or_else(|| std::env::var_os(TRACE_ENV).map(PathBuf::from)),
            trace_events_per_thread: trace_events_per_thread(),
            unattributed_threshold: self.unattributed_threshold,
        };
        let shared = Arc::new(SessionShared::new(config, timer().ticks()));
        registry::register(shared.clone());
        binding::bind(&shared);
        Session {
            shared: Some(shared),
            _not_send: PhantomData,
        }
    }
}

/// `PERFLAB_TRACE_EVENTS`, or the default when it is unset; a value that is
/// not a positive whole number is said once on stderr and the default used.
fn trace_events_per_thread() -> usize {
    let Some(text) = std::env::var_os(TRACE_EVENTS_ENV) else {
        return DEFAULT_TRACE_EVENTS;
    };
    match text
        .to_str()
        .and_then(|text| text.trim().parse::<usize>().ok())
    {
        Some(events) if events > 0 => events,
        _ => {
            eprintln!(
                "perflab: {TRACE_EVENTS_ENV}={} is not a positive whole number of events; each thread keeps up to {DEFAULT_TRACE_EVENTS}",
                text.to_string_lossy()
            );
            DEFAULT_TRACE_EVENTS
        }
    }
}

fn default_name() -> String {
    std::env::args_os()
        .next()
        .and_then(|arg0| {
            std::path::Path::new(&arg0)
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "session".to_string())
}

impl Session {
    /// Starts a process-wide session with default options.
    pub fn start() -> Session {
        Session::builder().start()
    }

    /// Options for a session.
    pub fn builder() -> SessionBuilder {
        SessionBuilder {
            name: None,
            scope: SessionScope::Process,
            print_table: None,
            profile_path: None,
            trace_path: None,
            unattributed_threshold: DEFAULT_UNATTRIBUTED_THRESHOLD,
        }
    }

    /// A handle other threads can use to record into this session.
    pub fn handle(&self) -> SessionHandle {
        SessionHandle {
            shared: self.shared.as_ref().map(Arc::downgrade).unwrap_or_default(),
        }
    }

    /// Ends the session, reports it, and returns its profile. `None` if the
    /// session had already been ended by the exit hook.
    pub fn finish(mut self) -> Option<Profile> {
        self.end()
    }

    fn end(&mut self) -> Option<Profile> {
        let shared = self.shared.take()?;
        binding::unbind(&shared);
        finish_shared(&shared, SessionEnd::Finished)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.end();
    }
}

/// Ends a session once: collects, prints, writes. Safe to call from any
/// thread and from the exit hook; later calls return `None`.
pub(crate) fn finish_shared(shared: &Arc<SessionShared>, ended_by: SessionEnd) -> Option<Profile> {
    if shared
        .finished
        .swap(true, std::sync::atomic::Ordering::AcqRel)
    {
        return None;
    }
    let end_ticks = timer().ticks();
    let end_process_cpu_ns = crate::imp::cpu_time::process_ns();
    registry::unregister(shared.id);
    let profile =
        crate::imp::collect::build_profile(shared, end_ticks, end_process_cpu_ns, ended_by);
    emit(&profile, &shared.config);
    if let Some(path) = &shared.config.trace_path {
        write_trace_of(shared, path);
    }
    Some(profile)
}

/// Prints and writes a finished session's profile as its configuration says.
///
/// Nothing here may take the program down: a profile that cannot be written
/// is one message on stderr naming the path and the fix, and the program
/// carries on.
fn emit(profile: &Profile, config: &SessionConfig) {
    if config.print_table {
        let table = crate::session_table::render_table(profile);
        // One write, so that the table is not interleaved with other output.
        let _ = std::io::stderr().lock().write_all(table.as_bytes());
    }
    if let Some(path) = &config.profile_path {
        if let Err(error) = write_profile(path, profile) {
            eprintln!(
                "perflab: could not write the profile to {}: {error}. The program carries on without it; point {} at a writable file whose directory exists.",
                path.display(),
                PROFILE_ENV,
            );
        }
    }
}

/// Writes the session's timeline to `path`, saying on stderr how many
/// events did not fit; as for the profile, a failure is a message, not a crash.
fn write_trace_of(shared: &Arc<SessionShared>, path: &std::path::Path) {
    let trace = crate::imp::trace_document::build_trace(shared);
    let dropped = trace.other_data.dropped_events;
    if dropped > 0 {
        eprintln!(
            "perflab: the trace in {} is missing {dropped} events that did not fit in the threads' buffers ({} events each); it holds the start of the run: set {TRACE_EVENTS_ENV} higher to keep more",
            path.display(),
            trace.other_data.events_per_thread,
        );
    }
    if let Err(error) = crate::output::write_trace(path, &trace) {
        eprintln!(
            "perflab: could not write the trace to {}: {error}. The program carries on without it; point {TRACE_ENV} at a writable file whose directory exists.",
            path.display(),
        );
    }
}

/// Lets another thread record into a session (clone it into the thread).
#[derive(Debug, Clone, Default)]
pub struct SessionHandle {
    shared: Weak<SessionShared>,
}

impl SessionHandle {
    /// Binds the calling thread to the session until the guard is dropped.
    /// Does nothing if the session has ended.
    pub fn attach(&self) -> AttachGuard {
        let shared = self.shared.upgrade().filter(|shared| !shared.is_finished());
        if let Some(shared) = &shared {
            binding::bind(shared);
        }
        AttachGuard {
            shared,
            _not_send: PhantomData,
        }
    }
}

impl std::fmt::Debug for SessionShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .field("name", &self.config.name)
            .finish()
    }
}

/// Keeps a thread attached to a session; see [`SessionHandle::attach`].
#[must_use = "the thread is detached when this value is dropped"]
pub struct AttachGuard {
    shared: Option<Arc<SessionShared>>,
    _not_send: PhantomData<*const ()>,
}

impl Drop for AttachGuard {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.take() {
            binding::unbind(&shared);
        }
    }
}

/// Ends every session still running when the program calls `exit`
/// (see [`crate::imp::exit_hook`]).
extern "C" fn end_sessions_at_exit() {
    // A panic must not cross into C (it would abort the exit).
    let _ = std::panic::catch_unwind(|| {
        for session in crate::imp::registry::active_sessions().iter().rev() {
            finish_shared(session, SessionEnd::ProcessExit);
        }
    });
}
