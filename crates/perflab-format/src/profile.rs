//! The profile file written by the instrumentation library (`perflab-profile/1`).
//!
//! A program instrumented with `perflab` writes one [`Profile`] as JSON when
//! its session ends and the environment variable [`PROFILE_ENV`] names a
//! path. The CLI sets that variable for every run and reads the file back
//! with [`Profile::read`].
//!
//! Units: every `*_ns` field is a whole number of nanoseconds, converted from
//! the timer's ticks without truncation to coarser units. Percentiles come
//! from a log-linear histogram and are within
//! [`TimerInfo::percentile_relative_error`] of the exact nearest-rank value.
//!
//! Compatibility: readers ignore fields they do not know, so a later
//! `perflab-profile/1` writer may add fields; removing or changing the
//! meaning of one needs `perflab-profile/2`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The value of [`Profile::format`] for this version of the document.
pub const PROFILE_FORMAT: &str = "perflab-profile/1";

/// The environment variable that names the path a session writes its profile to.
pub const PROFILE_ENV: &str = "PERFLAB_PROFILE";

/// One session of an instrumented program: what ran, for how long, on which threads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Profile {
    /// Always [`PROFILE_FORMAT`]; [`Profile::from_json_str`] refuses anything else.
    pub format: String,
    /// File name of the program (lossily converted if it was not UTF-8; a
    /// [`WarningKind::InvalidUtf8`] warning says so).
    pub program: String,
    /// Process id of the program.
    pub pid: u32,
    /// The session: its name, scope, wall and CPU time.
    pub session: SessionInfo,
    /// The timer used and the measured cost of one span.
    pub timer: TimerInfo,
    /// Every span call site linked into the program, including those never entered.
    pub spans: Vec<SpanRecord>,
    /// Every thread that touched a probe during the session, including threads that ended.
    pub threads: Vec<ThreadRecord>,
    /// Every counter call site linked into the program, including those never incremented.
    pub counters: Vec<CounterRecord>,
    /// Every gauge call site linked into the program, including those never set.
    pub gauges: Vec<GaugeRecord>,
    /// Every `perflab::sync` lock the program created, by name and mode.
    /// Absent from documents of programs without such locks (and of
    /// writers older than locks), read as empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locks: Vec<LockRecord>,
    /// Problems a reader must know about before trusting the figures.
    pub warnings: Vec<Warning>,
}

/// The session a profile covers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SessionInfo {
    /// Name given to the session (the program name by default).
    pub name: String,
    /// Which threads the session collects from.
    pub scope: SessionScope,
    /// Wall time from session start to session end.
    pub wall_ns: u64,
    /// CPU time of the whole process (all threads) during the session, where the platform tells it.
    pub cpu_ns: Option<u64>,
    /// How the session ended.
    pub ended_by: SessionEnd,
    /// Session start as milliseconds since the Unix epoch (for ordering runs, not for durations).
    pub started_unix_ms: u64,
    /// Share of a thread's wall time above which unattributed time is warned about (0.10 = 10%).
    pub unattributed_threshold: f64,
}

/// Which threads a session collects from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SessionScope {
    /// The starting thread, threads attached to it, and every thread not bound to another session.
    Process,
    /// Only the starting thread and threads explicitly attached to the session.
    Thread,
}

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SessionEnd {
    /// The session guard was dropped or finished (normal return from main, end of a test).
    Finished,
    /// The program called `std::process::exit` (or returned from main) while the session ran.
    ProcessExit,
}

/// The clock behind every duration and what one measurement costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TimerInfo {
    /// `tsc` (x86 time-stamp counter), `cntvct` (ARM generic timer) or `clock_monotonic`.
    pub name: String,
    /// Cost of entering and leaving one span, measured on this machine when the first session started.
    pub span_cost_ns: f64,
    /// Bound on the relative error of `p50_ns`, `p95_ns` and `p99_ns` (0.015625 = 1/64).
    pub percentile_relative_error: f64,
    /// Estimated time the probes themselves took: total span calls times `span_cost_ns`.
    pub instrumentation_ns: u64,
}

/// What kind of code a span measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SpanKind {
    /// A function or method with `#[perflab::measure]`.
    Function,
    /// A block or phase wrapped with `perflab::span!`.
    Span,
    /// An async function with `#[perflab::measure]`: one call is first poll to completion.
    Async,
}

/// Figures of one span, summed over every thread of the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SpanRecord {
    /// Name of the span (for functions: `module::path::function` unless renamed).
    pub name: String,
    /// What kind of code the span measures.
    pub kind: SpanKind,
    /// Source file of the call site.
    pub file: String,
    /// Source line of the call site.
    pub line: u32,
    /// Further call sites with the same name and kind (`file:line`), merged into this record.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_at: Vec<String>,
    /// Completed calls (for async: futures that completed).
    pub calls: u64,
    /// Time inside the span including its children. Recursive calls are counted once,
    /// by their outermost call, so it never exceeds the wall time of one thread.
    pub inclusive_ns: u64,
    /// Time inside the span minus the time of spans entered within it on the same thread.
    pub self_ns: u64,
    /// Mean duration of one call (sum of call durations / calls; 0 when never called).
    pub mean_ns: f64,
    /// Shortest call (exact).
    pub min_ns: u64,
    /// Median call duration (histogram estimate).
    pub p50_ns: u64,
    /// 95th percentile of call duration (histogram estimate).
    pub p95_ns: u64,
    /// 99th percentile of call duration (histogram estimate).
    pub p99_ns: u64,
    /// Longest call (exact).
    pub max_ns: u64,
    /// Number of threads that entered the span.
    pub threads: u32,
    /// Calls that ended by a panic unwinding through the span (their time is included).
    pub unwound: u64,
    /// Async figures; present for [`SpanKind::Async`] only.
    #[serde(rename = "async", default, skip_serializing_if = "Option::is_none")]
    pub async_stats: Option<AsyncStats>,
    /// Allocation figures; present when the program counts allocations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alloc: Option<AllocStats>,
}

/// Figures only an async function has.
///
/// A completed future's lifetime (first poll to ready, the span's
/// `inclusive_ns`) is busy time, inside its polls, plus idle time, waiting
/// to be woken. A future that is mostly idle is not where the CPU goes; one
/// that is busy and polled many times per unit of work is spinning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AsyncStats {
    /// Number of times the future was polled.
    pub polls: u64,
    /// Busy time: time spent inside those polls (the rest of the wall time the future was waiting).
    pub poll_ns: u64,
    /// Futures dropped after their first poll and before completing.
    pub cancelled: u64,
    /// Polls after the first: each follows a wake-up (wake-ups the executor
    /// coalesced into one poll count once). Absent in older documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wakeups: Option<u64>,
    /// Idle time of the completed futures: their lifetimes minus their busy
    /// time, summed. Absent in older documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_ns: Option<u64>,
}

/// Whether a lock acquisition excludes every other holder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum LockMode {
    /// A `Mutex` lock or an `RwLock` write lock.
    Exclusive,
    /// An `RwLock` read lock.
    Shared,
    /// A mode this reader does not know (written by a later `perflab-profile/1` writer).
    #[serde(other)]
    Other,
}

/// One `perflab::sync` lock in one mode, summed over every thread.
///
/// An acquisition that finds the lock free is uncontended and waits
/// nothing; the wait figures are those of the contended acquisitions, which
/// also appear as a span named `<name> (lock wait)` (or `read wait`,
/// `write wait`) so that a thread's time blocked on the lock is attributed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LockRecord {
    /// Name given to the lock (its place of creation, `file:line`, unless named).
    pub name: String,
    /// Exclusive or shared acquisitions.
    pub mode: LockMode,
    /// Source file where the lock was created.
    pub file: String,
    /// Source line where the lock was created.
    pub line: u32,
    /// Acquisitions that were released (guards dropped).
    pub acquisitions: u64,
    /// Acquisitions that found the lock taken and had to wait.
    pub contended: u64,
    /// Total time waiting to acquire, over the contended acquisitions.
    pub wait_ns: u64,
    /// Median wait of a contended acquisition (histogram estimate).
    pub wait_p50_ns: u64,
    /// 99th percentile of the wait of a contended acquisition (histogram estimate).
    pub wait_p99_ns: u64,
    /// Longest wait (exact).
    pub wait_max_ns: u64,
    /// Total time held, from acquisition to release.
    pub hold_ns: u64,
    /// Median hold (histogram estimate).
    pub hold_p50_ns: u64,
    /// 99th percentile of holds (histogram estimate).
    pub hold_p99_ns: u64,
    /// Longest hold (exact).
    pub hold_max_ns: u64,
    /// Number of threads that acquired the lock.
    pub threads: u32,
}

/// Allocations made while a span was running, on the thread running it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AllocStats {
    /// Allocations made by the span itself, not by spans inside it.
    pub self_allocs: u64,
    /// Bytes requested by the span itself.
    pub self_bytes: u64,
    /// Allocations made by the span and every span inside it.
    pub inclusive_allocs: u64,
    /// Bytes requested by the span and every span inside it.
    pub inclusive_bytes: u64,
}

/// How one thread's time divides between spans and the rest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ThreadRecord {
    /// perflab's number for the thread, unique within the process (1 is the first thread seen).
    pub id: u64,
    /// The thread's name, if it has one.
    pub name: Option<String>,
    /// The operating system's thread id, where the platform has one.
    pub os_tid: Option<u64>,
    /// Wall time from the thread's first probe in the session (or session start,
    /// for the thread that started it) until the thread ended or the session did.
    pub wall_ns: u64,
    /// CPU time of the thread over the same interval, where the platform tells it.
    pub cpu_ns: Option<u64>,
    /// Part of `wall_ns` the thread was runnable but waiting for a CPU: taken
    /// off it by the scheduler for other threads, or woken and not yet run.
    /// From the scheduler's statistics (`/proc/thread-self/schedstat` on
    /// Linux); `None` where the system does not keep them (and in profiles
    /// written before the field existed, which it is left out of).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preempted_ns: Option<u64>,
    /// Part of `wall_ns` the thread was off the CPU and not runnable: sleeping,
    /// waiting for I/O, a lock or a channel. `wall_ns - cpu_ns - preempted_ns`
    /// (never below 0); `None` where `preempted_ns` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_ns: Option<u64>,
    /// Part of `wall_ns` inside top-level spans.
    pub attributed_ns: u64,
    /// `wall_ns - attributed_ns`: time no span covers.
    pub unattributed_ns: u64,
    /// Whether the thread ended before the session did.
    pub ended: bool,
}

/// An event counter (`perflab::count!`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CounterRecord {
    /// Name of the counter.
    pub name: String,
    /// Source file of the call site.
    pub file: String,
    /// Source line of the call site.
    pub line: u32,
    /// Further call sites with the same name (`file:line`), merged into this record.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_at: Vec<String>,
    /// Times the counter was reached; 0 means never incremented.
    pub events: u64,
    /// Sum of the amounts counted.
    pub total: u64,
    /// Number of threads that reached the counter.
    pub threads: u32,
}

/// A level sampled over time (`perflab::gauge!`): queue depth, pool utilisation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GaugeRecord {
    /// Name of the gauge.
    pub name: String,
    /// Source file of the call site.
    pub file: String,
    /// Source line of the call site.
    pub line: u32,
    /// Further call sites with the same name (`file:line`), merged into this record.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_at: Vec<String>,
    /// Number of values set; 0 means never set (and the other figures are 0).
    pub samples: u64,
    /// The most recently set value.
    pub last: f64,
    /// Smallest value set.
    pub min: f64,
    /// Largest value set.
    pub max: f64,
    /// Mean of the values set (per sample, not weighted by time).
    pub mean: f64,
}

/// Something a reader must know before trusting the figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Warning {
    /// What kind of problem it is.
    pub kind: WarningKind,
    /// The span, counter, gauge or thread concerned.
    pub subject: String,
    /// A sentence saying what is wrong and what to do about it.
    pub message: String,
}

/// Kinds of [`Warning`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// A span exists in the code but was never entered during the session.
    NeverEntered,
    /// A span was entered but its total time is zero.
    ZeroTime,
    /// A span's mean is within a few times the cost of one span: its figures are mostly probe cost.
    NearSpanCost,
    /// A thread's time outside top-level spans is above the session's threshold.
    Unattributed,
    /// Most of a thread's time inside spans was spent off the CPU (sleeping,
    /// blocked on I/O or a lock, preempted): its spans measured waiting.
    MostlyWaiting,
    /// The estimated cost of all probes is a noticeable share of the measured time.
    InstrumentationCost,
    /// A counter exists in the code but was never incremented.
    CounterNeverIncremented,
    /// A gauge exists in the code but was never set.
    GaugeNeverSet,
    /// A panic unwound through a span.
    Unwound,
    /// A name was not valid UTF-8 and was converted lossily.
    InvalidUtf8,
    /// A kind this reader does not know (written by a later `perflab-profile/1` writer).
    #[serde(other)]
    Other,
}

/// Why a profile could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The file could not be read.
    #[error(
        "cannot read the profile {path}: {source}; check that the program ran with {PROFILE_ENV} set to this path and that its session ended"
    )]
    Io {
        /// The file that could not be read.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The text is not JSON of the expected shape.
    #[error(
        "the profile {origin} is not a valid {PROFILE_FORMAT} document: {source}; the program may have been killed while writing it, run it again"
    )]
    Json {
        /// Where the text came from (a path, or `<string>`).
        origin: String,
        /// What the JSON parser said, with line and column.
        source: serde_json::Error,
    },
    /// The document is of another format or version.
    #[error(
        "the document {origin} has format `{found}`, not `{PROFILE_FORMAT}`; read it with the perflab version that wrote it, or rebuild the program against this version of perflab"
    )]
    WrongFormat {
        /// Where the text came from (a path, or `<string>`).
        origin: String,
        /// The `format` field found (`<missing>` if there was none).
        found: String,
    },
}

/// Only the `format` field, read first so that another format is refused by name
/// rather than by whichever field it lacks.
#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct FormatProbe {
    format: Option<serde_json::Value>,
}

impl Profile {
    /// Parses a profile from JSON text, refusing documents whose `format` is not [`PROFILE_FORMAT`].
    pub fn from_json_str(text: &str) -> Result<Profile, ProfileError> {
        Self::parse(text, "<string>")
    }

    /// Reads and parses the profile file at `path`.
    pub fn read(path: &Path) -> Result<Profile, ProfileError> {
        let text = std::fs::read_to_string(path).map_err(|source| ProfileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    fn parse(text: &str, origin: &str) -> Result<Profile, ProfileError> {
        let probe: FormatProbe =
            serde_json::from_str(text).map_err(|source| ProfileError::Json {
                origin: origin.to_string(),
                source,
            })?;
        match probe.format {
            Some(serde_json::Value::String(found)) if found == PROFILE_FORMAT => {}
            Some(serde_json::Value::String(found)) => {
                return Err(ProfileError::WrongFormat {
                    origin: origin.to_string(),
                    found,
                });
            }
            Some(other) => {
                return Err(ProfileError::WrongFormat {
                    origin: origin.to_string(),
                    found: other.to_string(),
                });
            }
            None => {
                return Err(ProfileError::WrongFormat {
                    origin: origin.to_string(),
                    found: "<missing>".to_string(),
                });
            }
        }
        serde_json::from_str(text).map_err(|source| ProfileError::Json {
            origin: origin.to_string(),
            source,
        })
    }

    /// The profile as pretty-printed JSON.
    ///
    /// # Errors
    /// The serialiser's error, should a value be one JSON cannot hold; the
    /// caller then writes nothing rather than an empty profile.
    pub fn to_json_pretty(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self)
    }

    /// The span record with this name, if any.
    pub fn span(&self, name: &str) -> Option<&SpanRecord> {
        self.spans.iter().find(|span| span.name == name)
    }

    /// The counter record with this name, if any.
    pub fn counter(&self, name: &str) -> Option<&CounterRecord> {
        self.counters.iter().find(|counter| counter.name == name)
    }

    /// The gauge record with this name, if any.
    pub fn gauge(&self, name: &str) -> Option<&GaugeRecord> {
        self.gauges.iter().find(|gauge| gauge.name == name)
    }

    /// The lock record with this name and mode, if any.
    pub fn lock(&self, name: &str, mode: LockMode) -> Option<&LockRecord> {
        self.locks
            .iter()
            .find(|lock| lock.name == name && lock.mode == mode)
    }

    /// Warnings of one kind.
    pub fn warnings_of(&self, kind: WarningKind) -> impl Iterator<Item = &Warning> {
        self.warnings
            .iter()
            .filter(move |warning| warning.kind == kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Profile {
        Profile {
            format: PROFILE_FORMAT.to_string(),
            program: "spans".to_string(),
            pid: 42,
            session: SessionInfo {
                name: "spans".to_string(),
                scope: SessionScope::Process,
                wall_ns: 1_000_000,
                cpu_ns: Some(900_000),
                ended_by: SessionEnd::Finished,
                started_unix_ms: 1,
                unattributed_threshold: 0.1,
            },
            timer: TimerInfo {
                name: "tsc".to_string(),
                span_cost_ns: 21.5,
                percentile_relative_error: 1.0 / 64.0,
                instrumentation_ns: 215,
            },
            spans: vec![SpanRecord {
                name: "parse".to_string(),
                kind: SpanKind::Span,
                file: "src/main.rs".to_string(),
                line: 10,
                also_at: vec![],
                calls: 10,
                inclusive_ns: 500_000,
                self_ns: 400_000,
                mean_ns: 50_000.0,
                min_ns: 40_000,
                p50_ns: 50_000,
                p95_ns: 60_000,
                p99_ns: 61_000,
                max_ns: 61_000,
                threads: 1,
                unwound: 0,
                async_stats: Some(AsyncStats {
                    polls: 3,
                    poll_ns: 10,
                    cancelled: 0,
                    wakeups: Some(2),
                    idle_ns: Some(490_000),
                }),
                alloc: None,
            }],
            threads: vec![ThreadRecord {
                id: 1,
                name: Some("main".to_string()),
                os_tid: Some(42),
                wall_ns: 1_000_000,
                cpu_ns: Some(900_000),
                preempted_ns: Some(30_000),
                blocked_ns: Some(70_000),
                attributed_ns: 500_000,
                unattributed_ns: 500_000,
                ended: false,
            }],
            counters: vec![],
            gauges: vec![],
            locks: vec![LockRecord {
                name: "queue".to_string(),
                mode: LockMode::Exclusive,
                file: "src/main.rs".to_string(),
                line: 3,
                acquisitions: 100,
                contended: 4,
                wait_ns: 4_000,
                wait_p50_ns: 900,
                wait_p99_ns: 1_500,
                wait_max_ns: 1_500,
                hold_ns: 50_000,
                hold_p50_ns: 480,
                hold_p99_ns: 900,
                hold_max_ns: 950,
                threads: 2,
            }],
            warnings: vec![Warning {
                kind: WarningKind::Unattributed,
                subject: "main".to_string(),
                message: "half".to_string(),
            }],
        }
    }

    #[test]
    fn a_profile_survives_writing_and_reading_back() {
        let profile = sample();
        let text = profile.to_json_pretty().unwrap();
        assert_eq!(Profile::from_json_str(&text).unwrap(), profile);
        assert!(
            text.contains("\"async\""),
            "async figures are under `async`"
        );
    }

    #[test]
    fn another_format_is_refused_by_name() {
        let text = sample()
            .to_json_pretty()
            .unwrap()
            .replace(PROFILE_FORMAT, "perflab-result/1");
        let error = Profile::from_json_str(&text).unwrap_err();
        assert!(
            matches!(&error, ProfileError::WrongFormat { found, .. } if found == "perflab-result/1")
        );
        assert!(error.to_string().contains("perflab-profile/1"));
    }

    #[test]
    fn a_document_without_format_is_refused() {
        let error = Profile::from_json_str("{\"spans\": []}").unwrap_err();
        assert!(matches!(error, ProfileError::WrongFormat { found, .. } if found == "<missing>"));
    }

    #[test]
    fn broken_json_names_its_origin() {
        let error = Profile::from_json_str("{\"format\": ").unwrap_err();
        assert!(matches!(error, ProfileError::Json { .. }));
        assert!(error.to_string().contains("<string>"));
    }

    #[test]
    fn unknown_fields_and_warning_kinds_are_tolerated() {
        let text = sample()
            .to_json_pretty()
            .unwrap()
            .replace("\"unattributed\"", "\"something_new\"")
            .replacen("\"pid\"", "\"extra\": 1, \"pid\"", 1);
        let profile = Profile::from_json_str(&text).unwrap();
        assert_eq!(profile.warnings[0].kind, WarningKind::Other);
    }

    /// A document written before wake-ups, idle time and locks were recorded.
    const DOCUMENT_WITHOUT_IDLE_OR_LOCKS: &str = r#"{
      "format": "perflab-profile/1", "program": "old", "pid": 7,
      "session": {"name": "old", "scope": "process", "wall_ns": 1000, "cpu_ns": 900,
                  "ended_by": "finished", "started_unix_ms": 1, "unattributed_threshold": 0.1},
      "timer": {"name": "tsc", "span_cost_ns": 20.0, "percentile_relative_error": 0.015625,
                "instrumentation_ns": 80},
      "spans": [{"name": "fetch", "kind": "async", "file": "src/main.rs", "line": 4,
                 "calls": 1, "inclusive_ns": 900, "self_ns": 300, "mean_ns": 900.0,
                 "min_ns": 900, "p50_ns": 900, "p95_ns": 900, "p99_ns": 900, "max_ns": 900,
                 "threads": 1, "unwound": 0,
                 "async": {"polls": 3, "poll_ns": 300, "cancelled": 0}}],
      "threads": [], "counters": [], "gauges": [], "warnings": []
    }"#;

    #[test]
    fn a_document_from_before_wakeups_idle_time_and_locks_still_reads() {
        let profile = Profile::from_json_str(DOCUMENT_WITHOUT_IDLE_OR_LOCKS).unwrap();
        let stats = profile.span("fetch").unwrap().async_stats.as_ref().unwrap();
        assert_eq!((stats.polls, stats.poll_ns), (3, 300));
        assert_eq!((stats.wakeups, stats.idle_ns), (None, None));
        assert!(profile.locks.is_empty());
        // Written back, it is the same document: nothing is invented for it.
        let again = Profile::from_json_str(&profile.to_json_pretty().unwrap()).unwrap();
        assert_eq!(again, profile);
        assert!(!profile.to_json_pretty().unwrap().contains("locks"));
    }

    #[test]
    fn a_missing_file_error_names_the_path() {
        let error = Profile::read(Path::new("/nonexistent/profile.json")).unwrap_err();
        assert!(error.to_string().contains("/nonexistent/profile.json"));
    }
}
