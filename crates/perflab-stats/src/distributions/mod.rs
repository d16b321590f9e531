//! The reference distributions the tests and intervals use: the standard
//! normal and Student's t (cumulative distributions and quantiles), computed
//! here to keep the crate free of numeric dependencies. Each file names its
//! algorithm and its accuracy.

pub(crate) mod normal;
pub mod student_t;
