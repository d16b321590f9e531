//! Attribute macros for perflab.
#![deny(missing_docs)]
