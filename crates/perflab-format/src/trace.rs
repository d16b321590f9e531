//! Span timelines (`perflab-trace/1`): what an instrumented program did, in
//! order, written at exit to the path in `PERFLAB_TRACE` by the Rust
//! library, the C header and the Python package alike.
//!
//! The document is the Chrome trace event format's JSON object form
//! ("Trace Event Format", Google, 2016: `traceEvents`, `displayTimeUnit`,
//! `otherData`), which Perfetto's UI (ui.perfetto.dev) and `chrome://tracing`
//! open. perflab writes only these phases: `X` (a complete slice: a span's
//! call, or one poll of an async span, on its thread's track), `b`/`e` (an
//! async span's life from first poll to completion, as an async slice), `C`
//! (a counter's running total or a gauge's value) and `M` (process and thread
//! names). Times are microseconds from the session's start, with
//! nanosecond decimals. `otherData` carries perflab's own fields: the format
//! tag, and how many events did not fit in the per-thread buffers.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The format tag of this version, in `otherData.format`.
pub const TRACE_FORMAT: &str = "perflab-trace/1";

/// The environment variable naming the file an instrumented program writes its trace to.
pub const TRACE_ENV: &str = "PERFLAB_TRACE";

/// The environment variable setting how many events each thread's buffer holds.
pub const TRACE_EVENTS_ENV: &str = "PERFLAB_TRACE_EVENTS";

/// Events each thread's buffer holds unless `PERFLAB_TRACE_EVENTS` says otherwise.
pub const DEFAULT_TRACE_EVENTS: usize = 1_000_000;

/// A trace: every recorded event, and what perflab says about them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceDocument {
    /// The events, per thread in time order.
    pub trace_events: Vec<TraceEvent>,
    /// How viewers show times: always `ns`.
    pub display_time_unit: String,
    /// perflab's fields.
    pub other_data: TraceInfo,
}

impl TraceDocument {
    /// The trace as compact JSON (traces are large; viewers need no indentation).
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    /// Parses a trace, refusing another format with a message naming what was found.
    pub fn from_json_str(text: &str) -> Result<Self, String> {
        let document: Self = serde_json::from_str(text)
            .map_err(|e| format!("not a {TRACE_FORMAT} document: {e}"))?;
        if document.other_data.format != TRACE_FORMAT {
            return Err(format!(
                "the trace has format `{}`, not `{TRACE_FORMAT}`",
                document.other_data.format
            ));
        }
        Ok(document)
    }
}

/// perflab's fields of a trace.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TraceInfo {
    /// Always [`TRACE_FORMAT`].
    pub format: String,
    /// The session's name (the program's file name unless it was given one).
    pub session: String,
    /// Milliseconds since the Unix epoch when the session started (time 0 of the trace).
    pub started_unix_ms: u64,
    /// Events each thread's buffer held.
    pub events_per_thread: u64,
    /// Events that did not fit and are missing from the trace, over all threads.
    pub dropped_events: u64,
}

/// What an event is (the trace event format's `ph`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Phase {
    /// A complete slice with a duration.
    #[serde(rename = "X")]
    Complete,
    /// The start of an async slice.
    #[serde(rename = "b")]
    AsyncBegin,
    /// The end of an async slice.
    #[serde(rename = "e")]
    AsyncEnd,
    /// A counter's value.
    #[serde(rename = "C")]
    Counter,
    /// Metadata: a process's or a thread's name.
    #[serde(rename = "M")]
    Metadata,
}

/// One event.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TraceEvent {
    /// The span, counter or gauge; `thread_name` or `process_name` for metadata.
    pub name: String,
    /// `span`, `poll`, `async`, `counter` or `gauge`; none for metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cat: Option<String>,
    /// What the event is.
    pub ph: Phase,
    /// Microseconds since the session started.
    pub ts: f64,
    /// For a complete slice, its length in microseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dur: Option<f64>,
    /// The process id.
    pub pid: u64,
    /// The thread: the operating system's id where there is one, else perflab's number.
    pub tid: u64,
    /// For an async slice, the id its begin and end share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// A counter's or gauge's value under its name, a thread's or process's
    /// name under `name`, `unfinished: true` for a slice the trace ends inside.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub args: BTreeMap<String, serde_json::Value>,
}
