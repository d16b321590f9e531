//! `spans`: a small log-analytics program instrumented with perflab.
//!
//! It generates synthetic access-log lines, parses them, computes per-path
//! latency statistics on two worker threads, and writes a report. Run it
//! under `perflab run` (or with `PERFLAB_PROFILE=profile.json`) to get the
//! span table and profile.
//!
//! Environment:
//! - `SPANS_RECORDS`: number of log lines (default 200000).
//! - `SPANS_SLOW_PHASE`: `parse`, `compute` or `write` does its work twice,
//!   so that an A/B comparison on spans has a known difference to find.
#![warn(unreachable_pub)]

mod analysis;
mod input;
mod output;

use std::time::Duration;

#[cfg(feature = "alloc")]
#[global_allocator]
static ALLOCATOR: perflab::CountingAllocator<std::alloc::System> =
    perflab::CountingAllocator::new(std::alloc::System);

/// Which phase, if any, does its work twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlowPhase {
    None,
    Parse,
    Compute,
    Write,
}

impl SlowPhase {
    fn from_env() -> Result<SlowPhase, String> {
        match std::env::var("SPANS_SLOW_PHASE").as_deref() {
            Err(_) | Ok("") => Ok(SlowPhase::None),
            Ok("parse") => Ok(SlowPhase::Parse),
            Ok("compute") => Ok(SlowPhase::Compute),
            Ok("write") => Ok(SlowPhase::Write),
            Ok(other) => Err(format!(
                "SPANS_SLOW_PHASE={other} is not a phase; use parse, compute or write"
            )),
        }
    }

    /// How many times a phase runs its work.
    pub fn repeats(self, phase: SlowPhase) -> usize {
        if self == phase { 2 } else { 1 }
    }
}

fn records_from_env() -> Result<usize, String> {
    match std::env::var("SPANS_RECORDS") {
        Err(_) => Ok(200_000),
        Ok(text) => text.parse().map_err(|_| {
            format!(
                "SPANS_RECORDS={text} is not a number of records; use e.g. SPANS_RECORDS=200000"
            )
        }),
    }
}

fn main() {
    // Settings are checked before the session starts: a usage error is not a run.
    match records_from_env().and_then(|records| Ok((records, SlowPhase::from_env()?))) {
        Ok((records, slow)) => run(records, slow),
        Err(message) => {
            eprintln!("spans: {message}");
            std::process::exit(2);
        }
    }
}

/// The instrumented program: one session from here to the end of the run.
#[perflab::main(name = "spans")]
fn run(records: usize, slow: SlowPhase) {
    let lines = perflab::span!("generate", { input::generate(records) });
    let parsed = perflab::span!("parse", {
        let mut parsed = Vec::new();
        for _ in 0..slow.repeats(SlowPhase::Parse) {
            parsed = input::parse_all(&lines);
        }
        parsed
    });
    let stats = perflab::span!("compute", {
        let mut stats = Vec::new();
        for _ in 0..slow.repeats(SlowPhase::Compute) {
            stats = analysis::compute(&parsed);
        }
        stats
    });
    let written = perflab::span!("write", {
        let mut written = 0;
        for _ in 0..slow.repeats(SlowPhase::Write) {
            written = output::write_report(&stats);
        }
        written
    });
    let flushed = output::block_on(output::flush_in_chunks(written, Duration::from_millis(2)));
    println!(
        "spans: {} lines, {} parsed, {} paths, report {} bytes, flushed in {} chunks",
        lines.len(),
        parsed.len(),
        stats.len(),
        written,
        flushed
    );
}
