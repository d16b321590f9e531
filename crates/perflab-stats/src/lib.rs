//! Pure statistics for perflab.
#![deny(missing_docs)]
