//! The implementation with the `enabled` feature off: the same types and
//! methods as `enabled/`, holding nothing and doing nothing, so that every
//! probe compiles away. `tests/api/every_public_item.rs` uses the whole API
//! and is compiled against both.

mod macros;
pub mod span_life;

use std::marker::PhantomData;
use std::path::PathBuf;

use perflab_format::profile::Profile;

/// Whether probes record.
pub(crate) const ENABLED: bool = false;

/// A session (disabled build: records nothing, reports nothing).
#[must_use = "the session ends (and reports) when this value is dropped"]
pub struct Session {
    _not_send: PhantomData<*const ()>,
}

/// Options for a [`Session`] (disabled build: ignored).
#[derive(Debug, Clone, Default)]
pub struct SessionBuilder {}

impl SessionBuilder {
    /// Names the session.
    pub fn name(self, _name: impl Into<String>) -> Self {
        self
    }
    /// Collects only from this thread and threads that attach to the session.
    pub fn this_thread_only(self) -> Self {
        self
    }
    /// Whether to print the span table to stderr at the end.
    pub fn print_table(self, _print: bool) -> Self {
        self
    }
    /// Writes the profile to `path`.
    pub fn profile_path(self, _path: impl Into<PathBuf>) -> Self {
        self
    }
    /// Writes no profile file.
    pub fn no_profile_file(self) -> Self {
        self
    }
    /// Writes the session's timeline to `path`.
    pub fn trace_path(self, _path: impl Into<PathBuf>) -> Self {
        self
    }
    /// Writes no timeline.
    pub fn no_trace_file(self) -> Self {
        self
    }
    /// Warns about threads whose time outside spans exceeds this share.
    pub fn unattributed_threshold(self, _share: f64) -> Self {
        self
    }
    /// Starts the session.
    pub fn start(self) -> Session {
        Session {
            _not_send: PhantomData,
        }
    }
}

impl Session {
    /// Starts a process-wide session.
    pub fn start() -> Session {
        SessionBuilder::default().start()
    }
    /// Options for a session.
    pub fn builder() -> SessionBuilder {
        SessionBuilder::default()
    }
    /// A handle other threads can use to record into this session.
    pub fn handle(&self) -> SessionHandle {
        SessionHandle {}
    }
    /// Ends the session; there is no profile in a disabled build.
    pub fn finish(self) -> Option<Profile> {
        None
    }
}

/// Lets another thread record into a session (disabled build: does nothing).
#[derive(Debug, Clone, Default)]
pub struct SessionHandle {}

impl SessionHandle {
    /// Binds the calling thread to the session until the guard is dropped.
    pub fn attach(&self) -> AttachGuard {
        AttachGuard {
            _not_send: PhantomData,
        }
    }
}

/// Keeps a thread attached to a session.
#[must_use = "the thread is detached when this value is dropped"]
pub struct AttachGuard {
    _not_send: PhantomData<*const ()>,
}

/// Measures a span until dropped (disabled build: a zero-sized value).
#[must_use = "a span measures until its guard is dropped: bind it with `let _span = ...`, not `let _ = ...`"]
#[derive(Debug)]
pub struct SpanGuard {
    _not_send: PhantomData<*const ()>,
}

impl SpanGuard {
    /// Whether this guard is recording: never, in a disabled build.
    pub fn is_recording(&self) -> bool {
        false
    }
}

/// An amount a counter can add.
pub trait CountAmount {}
impl<T> CountAmount for T {}

/// A value a gauge can take.
pub trait GaugeValue {}
impl<T> GaugeValue for T {}

/// Items the macros (`macros.rs`) expand to.
pub mod macro_support {
    use super::SpanGuard;
    use std::marker::PhantomData;

    /// The guard of a span that records nothing.
    #[inline(always)]
    pub fn disabled_span() -> SpanGuard {
        SpanGuard {
            _not_send: PhantomData,
        }
    }
}
