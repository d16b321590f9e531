//! Describing one sample: location, spread, quantiles and a one-call summary
//! with outlier fences.
//!
//! Method: the textbook estimators (mean, sd with Bessel's correction,
//! Hyndman & Fan type 7 quantiles, Hampel's raw MAD, Tukey's fences); each
//! file names its reference. Assumptions: none about the distribution: these
//! describe, they do not infer. Values may be in any order, negative or zero;
//! they must be finite (a [`crate::sample::Sample`]).

pub mod location_and_spread;
pub mod summary;
