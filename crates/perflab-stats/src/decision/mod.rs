//! The decision rule: turning an interval for a relative change into a
//! verdict, the guards that may veto a GO, and the projection of how many
//! more runs an undecided comparison would need (shared by the sequential
//! and the fixed-sample procedures, which each project their own interval).
//!
//! Method: interval inclusion against the GO and NO-GO thresholds (two
//! one-sided tests; Schuirmann 1987) for the verdict, and against one
//! boundary for a guard. Assumptions: the interval comes from a method valid
//! for how the runs were collected: a confidence sequence
//! ([`crate::sequential`]) for interleaved runs that may stop early, a
//! distribution-free fixed-sample interval ([`crate::fixed_sample`]) for
//! samples that already exist. The words (`Verdict`, `GuardStatus`) are
//! perflab-format's vocabulary, so documents carry them as they are.

pub mod guard;
pub mod rule;
pub mod runs_needed;
