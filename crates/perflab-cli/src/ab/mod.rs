//! A/B experiments: A and B interleaved in randomised blocks until the
//! decision is reached, a run limit or the time limit; and suites, every
//! candidate against the baseline in every scenario.
//!
//! [`driver`] makes the runs of an A/B experiment, [`suite`] those of a
//! suite; both make each run with [`measure`], which stores it as it
//! finishes. They ask [`crate::decide`] (an A/B) or perflab-stats' suite
//! procedure after every block whether to stop; the outcome becomes a
//! document in [`crate::result_document`] or [`crate::suite_document`].

pub mod driver;
pub mod duet;
pub mod measure;
pub mod suite;

pub use driver::{
    AbRun, StopReason, annotate, begin_ab, failed_run, keep_finished_runs, profile_dir, run_ab,
};
pub use suite::{SuiteRun, run_suite};
