//! A/B experiments: A and B interleaved in randomised blocks until the
//! decision is reached, a run limit or the time limit; and suites, every
//! candidate against the baseline in every scenario.
//!
//! Both are configurations of [`crate::engine`]: [`driver`] makes the runs
//! of an A/B experiment, [`suite`] those of a suite, each through the
//! engine's session and run maker, which stores every run as it finishes.
//! They ask [`crate::decide`] (an A/B) or perflab-stats' suite procedure
//! after every block whether to stop; the outcome becomes a document in
//! [`crate::result_document`] or [`crate::suite_document`].

pub mod driver;
pub mod duet;
pub mod suite;

pub use driver::{AbRun, ab_config, begin_ab, decision_config, run_ab};
pub use suite::{SuiteRun, run_suite};
