//! Instrumentation for Rust programs.
#![deny(missing_docs)]
