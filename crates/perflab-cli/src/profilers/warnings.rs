//! What a profile will lack or cannot support, said before the user reads
//! it: functions without names (a stripped binary), stacks that cannot be
//! unwound, too few samples for the shares shown, too few off-CPU intervals
//! or events perf lost.

use std::path::Path;

use perflab_format::sampling::{FunctionShare, OffCpuProfile};

use super::perf::CallGraph;
use super::shares::{FunctionCounts, precision_warning};
use super::symbols;

/// Share of samples without a function name above which the user is told.
const UNKNOWN_WARNING: f64 = 0.10;

/// What the executable's sections say the profile will lack.
pub fn symbol_warnings(program: &str, path: &Path, call_graph: CallGraph) -> Vec<String> {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let Some(info) = symbols::inspect(&real) else {
        return Vec::new();
    };
    let mut warnings = Vec::new();
    if !info.symtab {
        warnings.push(format!(
            "{program} has no symbol table (it was stripped): unless perf finds its symbols \
             elsewhere (a debug file in /usr/lib/debug, its build-id cache), the samples in its own \
             functions will show as [{}] in the table and the flame graph, without function names; \
             calls into shared libraries keep theirs. Rebuild it without stripping (no `strip`, no \
             `-s`; for Rust, `strip = false` in the profile) to see its functions",
            real.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
        ));
    }
    if call_graph == CallGraph::Dwarf && !info.unwind_tables {
        warnings.push(format!(
            "{program} has no unwind tables (.eh_frame or .debug_frame), so --call-graph dwarf \
             cannot walk its stacks: callers will be missing. Rebuild it with unwind tables, or use \
             --call-graph fp with frame pointers"
        ));
    }
    warnings
}

/// Too few samples, or too many without a name; `prefix` names the profile
/// when there are two.
pub fn profile_warnings(
    prefix: &str,
    counts: &FunctionCounts,
    functions: &[FunctionShare],
    frequency: u32,
    confidence: f64,
) -> Vec<String> {
    let mut warnings = Vec::new();
    if counts.total == 0 {
        warnings.push(format!(
            "{prefix}no samples were taken: the program used less CPU time than one sampling period \
             ({:.1} ms at {} Hz); run it longer or raise --frequency",
            1000.0 / frequency as f64,
            frequency
        ));
        return warnings;
    }
    if let Some(w) = precision_warning(counts.total, functions, confidence) {
        warnings.push(format!("{prefix}{w}"));
    }
    let unknown = counts.unknown as f64 / counts.total as f64;
    if unknown > UNKNOWN_WARNING {
        warnings.push(format!(
            "{prefix}{:.0}% of the samples are in code perf could not name (shown as [unknown] or \
             [object]): a stripped binary, JIT-compiled code, or a library without symbols",
            unknown * 100.0
        ));
    }
    warnings
}

/// Fewer off-CPU intervals than this describe a few waits, not a pattern.
pub const FEW_OFF_CPU_INTERVALS: u64 = 20;

/// Too few off-CPU intervals, or events perf lost; `prefix` names the
/// profile when there are two.
pub fn off_cpu_warnings(prefix: &str, profile: &OffCpuProfile) -> Vec<String> {
    let mut warnings = Vec::new();
    if profile.intervals < FEW_OFF_CPU_INTERVALS {
        warnings.push(format!(
            "{prefix}only {} off-CPU intervals were recorded (fewer than {FEW_OFF_CPU_INTERVALS}): \
             the off-CPU figures describe a few waits of this one run, not where it usually waits; \
             profile a longer run",
            profile.intervals
        ));
    }
    if profile.lost_events > 0 {
        warnings.push(format!(
            "{prefix}perf lost {} events (its buffers overflowed): the off-CPU intervals they held \
             are missing from the figures; profile with a lower --frequency or a shorter run",
            profile.lost_events
        ));
    }
    warnings
}
