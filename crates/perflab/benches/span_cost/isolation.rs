//! One process per case and repetition.
//!
//! hotpath hands every measurement to a background thread whose queue grows
//! by hundreds of megabytes; with all cases in one process, that thread and
//! the memory behind it slowed the cases that followed (the two-thread
//! perflab case read 1.17-1.26 times its one-thread cost that way, and 1.03
//! with hotpath left out). A fresh process per case and repetition, this
//! same benchmark binary started again, gives every case the same clean
//! start, and the cases still take turns within one run.

use std::process::Command;

use crate::calls::{self, CASES};
use crate::workers;

/// Names the case a child process measures.
const CHILD_CASE: &str = "PERFLAB_SPAN_COST_CASE";

/// One repetition of one case, as measured by its child process.
pub struct Measured {
    pub ns_per_call: f64,
    pub placement: String,
}

/// The case this process was started to measure, if it is a child.
pub fn child_case() -> Option<usize> {
    std::env::var(CHILD_CASE).ok()?.parse().ok()
}

/// Measures case `index` once in this process and prints the result for the
/// parent: the rate on one line, the threads' placement on the next.
pub fn measure_here(index: usize, ops: u64) {
    let case = &CASES[index];
    // Both libraries are set up in every child, whatever the case, so that
    // every case runs in the same kind of process.
    let (session, hotpath_guard) = calls::start_libraries(case.traced);
    let (rate, placement) = workers::run(case.call, case.threads, ops / 20, ops);
    println!("{rate}");
    println!("{placement}");
    if case.traced {
        // Writing millions of events is not what is measured: leave
        // without ending the session (no exit hooks run).
        use std::io::Write;
        let _ = std::io::stdout().flush();
        // SAFETY: _exit ends the process at once; nothing is left to run.
        unsafe { libc::_exit(0) };
    }
    drop(hotpath_guard);
    drop(session);
}

/// Starts this benchmark again to measure case `index` once, `ops` calls per thread.
pub fn measure_in_child(index: usize, ops: u64) -> Measured {
    let exe = std::env::current_exe().expect("the benchmark finds its own executable");
    // Room in each thread's timeline for every call, warm-up included, so
    // that a traced case measures recording, not dropping.
    let events = (ops + ops / 20 + 1000).to_string();
    let output = Command::new(exe)
        .env(CHILD_CASE, index.to_string())
        .env("PERFLAB_TRACE_EVENTS", events)
        .output()
        .expect("the benchmark starts a copy of itself");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut lines = stdout.lines();
    let ns_per_call = lines.next().and_then(|line| line.trim().parse().ok());
    match (output.status.success(), ns_per_call) {
        (true, Some(ns_per_call)) => Measured {
            ns_per_call,
            placement: lines.next().unwrap_or("").to_string(),
        },
        _ => panic!(
            "case {index} ({}) failed: {}\n{}",
            CASES[index].name,
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ),
    }
}
