//! On-disk formats shared by the perflab instrumentation library and the CLI.
//!
//! Every document carries a `format` field naming its kind and version
//! (`perflab-profile/1`, `perflab-result/1`, `perflab-sampling/1`,
//! `perflab-instructions/1`) so that readers can refuse a
//! document they do not understand instead of misreading it.
#![deny(missing_docs)]

pub mod instructions;
pub mod profile;
pub mod result;
pub mod sampling;
