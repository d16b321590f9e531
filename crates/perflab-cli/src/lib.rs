//! The perflab command as a library.
#![deny(missing_docs)]
