//! Several decisions at once: one confidence level for a whole experiment
//! (a suite's cells, a bisection's steps) and the conclusions drawn from many
//! cells together.
//!
//! Method: Bonferroni's split of the error rate, which needs no assumption
//! about how the decisions depend on each other; the summary of a
//! candidate's cells is the geometric mean of their intervals' ends at the
//! confidence that Bonferroni's inequality leaves. Assumptions: each
//! interval holds at its own level.

pub mod bonferroni;
pub mod suite_summary;
