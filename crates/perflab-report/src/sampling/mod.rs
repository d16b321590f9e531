//! Sampling profiles as the reports show them: folded stacks (`folded`),
//! their flame graphs (`flamegraph`), off-CPU intervals from perf's
//! scheduler records (`off_cpu`), speedscope files (`speedscope`) and the
//! text of a profile's top functions and moved shares (`render`).

pub mod flamegraph;
pub mod folded;
pub mod off_cpu;
pub mod render;
pub mod speedscope;

pub use folded::FoldedStacks;

/// Fewer samples than this in a function make its share a guess.
pub(crate) const FEW_SAMPLES: u64 = 10;
