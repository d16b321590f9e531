//! The adapters of external profilers, for programs that are not
//! instrumented:
//! sampling profiles through `perf record` (folded stacks, shares with
//! intervals, flame graphs, differential profiles) and instruction counts
//! per function from valgrind's callgrind.

pub mod diff;
pub mod flamegraph;
pub mod folded;
pub mod instructions;
pub mod perf;
pub mod render;
pub mod shares;
pub mod symbols;
pub mod warnings;

pub use folded::FoldedStacks;
pub use perf::{CallGraph, Perf};
pub use shares::FunctionCounts;
