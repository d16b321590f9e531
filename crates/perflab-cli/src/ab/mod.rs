//! A/B experiments: A and B interleaved in randomised blocks until the
//! decision is reached, a run limit or the time limit.
//!
//! [`driver`] makes the runs, stores each as it finishes and asks
//! [`crate::decide`] after every block whether to stop; the experiment's
//! outcome becomes a document in [`crate::result_document`].

pub mod driver;

pub use driver::{AbRun, StopReason, begin_ab, failed_run, profile_dir, run_ab};
