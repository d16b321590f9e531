//! The adapters of external profilers, for programs that are not
//! instrumented:
//! sampling profiles through `perf record` (folded stacks, shares with
//! intervals, flame graphs, differential profiles) and instruction counts
//! per function from valgrind's callgrind. The folded stacks, flame graphs
//! and text of a sampling profile are perflab-report's (`sampling`).

pub mod diff;
pub mod instructions;
pub mod perf;
pub mod shares;
pub mod symbols;
pub mod warnings;

pub use perf::{CallGraph, Perf, Recording};
pub use shares::FunctionCounts;
