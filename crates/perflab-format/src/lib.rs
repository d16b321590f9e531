//! On-disk formats shared by the perflab instrumentation library and the CLI.
//!
//! Every document carries a `format` field naming its kind and version
//! (`perflab-profile/1`, `perflab-result/1`, `perflab-sampling/1`,
//! `perflab-instructions/1`, `perflab-history/1`, `perflab-system/1`;
//! `perflab-trace/1` in its `otherData`) so
//! that readers can refuse a document they do not understand instead of
//! misreading it. A sweep's
//! result is a `perflab-result/1` document with a section of its own
//! ([`sweep`]), and so is a suite's ([`suite`]). Closed sets of words (kinds, statuses, verdicts) are enums
//! ([`vocabulary`]) that serialise as the words documents have always carried.
//! With the feature `schema`, the `schema` module gives the JSON Schema of every
//! document (kept in `docs/schema/`).
#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod change_words;
pub mod contention;
pub mod duet;
pub mod history;
pub mod instructions;
pub mod interval;
pub mod machine;
pub mod profile;
pub mod result;
pub mod sampling;
#[cfg(feature = "schema")]
pub mod schema;
pub mod suite;
pub mod sweep;
pub mod system;
pub mod trace;
pub mod vocabulary;
