//! Tests and intervals for samples that already exist, of fixed size: the
//! decision on two independent samples, a rank test, the drift of one series
//! over its run order and intervals for proportions.
//!
//! Method: distribution-free rank methods (Hodges-Lehmann shift with the
//! Moses interval, Mann-Whitney U, Spearman's rank correlation with the
//! Theil-Sen slope) and Wilson's score interval; each file names its
//! reference. Assumptions: the values of each sample are i.i.d. and the
//! samples independent of each other, and nobody looked at the data to
//! decide when to stop: under optional stopping use [`crate::sequential`].

pub mod decision;
pub mod hodges_lehmann;
pub mod mann_whitney;
pub mod mann_whitney_null;
pub(crate) mod pairwise;
pub mod proportion;
pub mod run_order_trend;
pub mod runs_needed;
