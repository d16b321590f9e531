//! What one span costs on this machine, beside the bare cost of two clock
//! reads and beside hotpath (crates.io), single-threaded and on two threads,
//! and whether memory grows with the number of calls.
//!
//! Run: `cargo bench -p perflab --bench span_cost`
//!
//! Every case runs the same loop of `OPS` calls per thread, in a process of
//! its own (see `isolation`) on threads pinned to CPUs of their own (see
//! `workers`). The cases take turns, one repetition each, `REPS` times, so
//! that drift of the machine falls on all of them; the table shows the
//! median (and range) of the repetitions.

mod calls;
mod isolation;
mod workers;

use std::time::Duration;

use calls::{
    CASES, CLOCK_READS, HOTPATH, PERFLAB_MUTEX, PERFLAB_SPAN, PERFLAB_SPAN_TRACED, PLAIN, STD_MUTEX,
};

const OPS: u64 = 5_000_000;
const REPS: usize = 15;
const MEMORY_CALLS: u64 = 5_000_000;

fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// Resident set size of this process, from /proc/self/status.
fn rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn megabytes(bytes: i64) -> String {
    format!("{:+.1} MB", bytes as f64 / 1e6)
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split(':').nth(1))
                .map(|model| model.trim().to_string())
        })
        .unwrap_or_else(|| "unknown cpu".to_string());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    format!("{cpu}, {cores} cores, load average {load}")
}

fn main() {
    if let Some(index) = isolation::child_case() {
        isolation::measure_here(index, OPS);
        return;
    }
    println!(
        "span_cost: {OPS} calls per thread, case and repetition, {REPS} repetitions taking turns"
    );
    println!("machine at start: {}", machine());
    let mut samples = vec![Vec::new(); CASES.len()];
    let mut two_thread_placement = String::new();
    for _ in 0..REPS {
        for (index, case) in CASES.iter().enumerate() {
            let measured = isolation::measure_in_child(index, OPS);
            if case.threads == 2 {
                two_thread_placement = measured.placement;
            }
            samples[index].push(measured.ns_per_call);
        }
    }
    println!("two-thread cases ran on: {two_thread_placement}");

    let of = |name: &str, threads: usize| {
        let index = CASES
            .iter()
            .position(|case| case.name == name && case.threads == threads)
            .expect("every case named here is in CASES");
        &samples[index]
    };
    let rate = |name: &str, threads: usize| median(of(name, threads));
    let baseline = rate(PLAIN, 1);
    println!();
    println!(
        "{:<30} {:>7} {:>9} {:>9} {:>9} {:>14}",
        "case", "threads", "ns/call", "min", "max", "minus baseline"
    );
    for (case, samples) in CASES.iter().zip(&samples) {
        let mid = median(samples);
        let min = samples.iter().copied().fold(f64::INFINITY, f64::min);
        let max = samples.iter().copied().fold(0.0, f64::max);
        println!(
            "{:<30} {:>7} {:>9.2} {:>9.2} {:>9.2} {:>14.2}",
            case.name,
            case.threads,
            mid,
            min,
            max,
            mid - baseline
        );
    }
    let span_one = rate(PERFLAB_SPAN, 1);
    let reads_one = rate(CLOCK_READS, 1);
    let hotpath_one = rate(HOTPATH, 1);
    let span_ratio = paired_ratio(of(PERFLAB_SPAN, 1), of(PERFLAB_SPAN, 2));
    let reads_ratio = paired_ratio(of(CLOCK_READS, 1), of(CLOCK_READS, 2));
    println!();
    println!(
        "perflab span!, 1 thread: {span_one:.2} ns (target <= 25 ns); two clock reads: {reads_one:.2} ns; span / clock reads = {:.2}",
        span_one / reads_one
    );
    println!(
        "perflab span!, 2 threads / 1 thread = {:.2} paired median, {:.2} of minimums (target <= 1.20)",
        span_ratio.paired_median, span_ratio.of_minimums
    );
    println!(
        "two clock reads, 2 threads / 1 thread = {:.2} paired median, {:.2} of minimums (the machine's own ratio)",
        reads_ratio.paired_median, reads_ratio.of_minimums
    );
    let traced_ratio = paired_ratio(of(PERFLAB_SPAN, 1), of(PERFLAB_SPAN_TRACED, 1));
    println!(
        "perflab span! traced / untraced, 1 thread = {:.2} paired median, {:.2} of minimums (target <= 1.50)",
        traced_ratio.paired_median, traced_ratio.of_minimums
    );
    println!(
        "hotpath / perflab, 1 thread = {:.1}x",
        hotpath_one / span_one
    );
    println!(
        "perflab::sync::Mutex adds {:.2} ns to an uncontended std Mutex lock and unlock ({:.2} ns)",
        rate(PERFLAB_MUTEX, 1) - rate(STD_MUTEX, 1),
        rate(STD_MUTEX, 1) - baseline
    );
    memory_growth();
    println!("machine at end: {}", machine());
}

/// How much one case costs against another (two threads against one, traced against not).
struct PairedRatio {
    /// Median over repetitions of each repetition's own ratio: the two
    /// cases of a repetition run minutes apart at most, so drift of the
    /// machine cancels within each pair, as in perflab's A/B decisions.
    paired_median: f64,
    /// Ratio of the fastest repetitions: interference from other work on a
    /// shared host only ever adds time, so the minimum is the estimate least
    /// touched by it (Chen and Revels, "Robust benchmarking in noisy
    /// environments", 2016).
    of_minimums: f64,
}

fn paired_ratio(one: &[f64], two: &[f64]) -> PairedRatio {
    let ratios: Vec<f64> = one.iter().zip(two).map(|(one, two)| two / one).collect();
    let minimum = |samples: &[f64]| samples.iter().copied().fold(f64::INFINITY, f64::min);
    PairedRatio {
        paired_median: median(&ratios),
        of_minimums: minimum(two) / minimum(one),
    }
}

/// Resident-set growth over `MEMORY_CALLS` calls on one thread, and
/// perflab's own start-up estimate of a span's cost.
fn memory_growth() {
    let (session, hotpath_guard) = calls::start_libraries(false);
    println!();
    println!("memory: resident set growth over {MEMORY_CALLS} further calls on one thread");
    let memory_cases: [(&str, fn()); 3] = [
        (PLAIN, calls::plain_call),
        (PERFLAB_SPAN, calls::perflab_span),
        (HOTPATH, calls::hotpath_measure),
    ];
    for (name, call) in memory_cases {
        // The first call sets up the thread's table and slot.
        call();
        let before = rss_bytes().unwrap_or(0) as i64;
        for _ in 0..MEMORY_CALLS {
            call();
        }
        let right_after = rss_bytes().unwrap_or(0) as i64;
        // Background workers (hotpath's) may still be draining a queue.
        std::thread::sleep(Duration::from_millis(300));
        let settled = rss_bytes().unwrap_or(0) as i64;
        println!(
            "{:<30} {:>12} right after, {:>12} 300 ms later",
            name,
            megabytes(right_after - before),
            megabytes(settled - before)
        );
    }
    let profile = session.finish();
    drop(hotpath_guard);
    if let Some(profile) = profile {
        let span = profile.span("bench_span");
        println!();
        println!(
            "perflab's own start-up estimate of one span: {:.2} ns (timer {}); bench_span recorded {} calls",
            profile.timer.span_cost_ns,
            profile.timer.name,
            span.map_or(0, |span| span.calls),
        );
    }
}
