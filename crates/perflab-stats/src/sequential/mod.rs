//! Sequential decisions: the A/B procedure that adds one interleaved pair of
//! runs at a time and stops as soon as its interval decides, for one
//! comparison or for every cell of a suite, and the contention rule that
//! measures again a block in which a run waited for a CPU.
//!
//! Method: confidence sequences, intervals valid at every look: the
//! asymptotic sequence for a mean (Waudby-Smith, Arbour, Sinha, Kennedy &
//! Ramdas, Annals of Statistics 2024) and Lai's sequence (Annals of
//! Statistics 1976; Wang & Ramdas 2025) for the Huber location of the pairs'
//! log gains, the one the decision takes. Assumptions: the pairs are i.i.d.
//! and both variants' run-to-run noise has the same distribution; validity is
//! asymptotic, which is why a minimum number of pairs is kept and
//! `benches/decision_simulation.rs` measures the error rates at the sizes used.

pub mod confidence_sequence;
pub mod config;
pub mod contention;
pub mod paired;
pub mod pairs_for_power;
pub mod procedure;
pub mod robust_sequence;
pub mod runs_needed;
pub mod suite;
