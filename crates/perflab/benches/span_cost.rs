//! What one span costs on this machine, beside the bare cost of two clock
//! reads and beside hotpath (crates.io), single-threaded and on two threads,
//! and whether memory grows with the number of calls.
//!
//! Run: `cargo bench -p perflab --bench span_cost`
//!
//! Every case runs the same loop of `OPS` calls; the cases take turns, one
//! repetition each, `REPS` times, so that drift of the machine falls on all
//! of them; the table shows the median (and range) of the repetitions.

use std::hint::black_box;
use std::sync::Barrier;
use std::time::{Duration, Instant};

const OPS: u64 = 2_000_000;
const REPS: usize = 9;
const MEMORY_CALLS: u64 = 5_000_000;

#[inline(never)]
fn plain_call() {
    black_box(());
}

#[inline(never)]
fn perflab_span() {
    let _span = perflab::span!("bench_span");
    black_box(());
}

#[perflab::measure(name = "bench_measure")]
#[inline(never)]
fn perflab_measure() {
    black_box(());
}

#[hotpath::measure]
#[inline(never)]
fn hotpath_measure() {
    black_box(());
}

#[inline(never)]
fn two_quanta_reads(clock: &quanta::Clock) {
    let start = clock.raw();
    let end = clock.raw();
    black_box(clock.delta_as_nanos(start, end));
}

#[inline(never)]
fn two_instant_reads() {
    let start = Instant::now();
    black_box(start.elapsed());
}

/// A call under measurement.
type Call = fn(&quanta::Clock);

/// One kind of call, run by one or two threads at once.
struct Case {
    name: &'static str,
    threads: usize,
    call: Call,
    samples: Vec<f64>,
}

fn case(name: &'static str, threads: usize, call: Call) -> Case {
    Case {
        name,
        threads,
        call,
        samples: Vec::new(),
    }
}

/// Nanoseconds per call, each of `threads` threads making `OPS` calls at
/// the same time (mean of the threads' own rates).
fn run(call: Call, threads: usize, clock: &quanta::Clock) -> f64 {
    let one_thread = |barrier: Option<&Barrier>| {
        if let Some(barrier) = barrier {
            barrier.wait();
        }
        let start = Instant::now();
        for _ in 0..OPS {
            call(clock);
        }
        start.elapsed().as_nanos() as f64 / OPS as f64
    };
    if threads == 1 {
        return one_thread(None);
    }
    let barrier = Barrier::new(threads);
    let rates: Vec<f64> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| scope.spawn(|| one_thread(Some(&barrier))))
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap())
            .collect()
    });
    rates.iter().sum::<f64>() / threads as f64
}

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
    let clock = quanta::Clock::new();
    let session = perflab::Session::builder()
        .name("span_cost")
        .print_table(false)
        .no_profile_file()
        .start();
    let hotpath_guard = hotpath::HotpathGuardBuilder::new("span_cost")
        .format(hotpath::Format::None)
        .build();

    println!("span_cost: {OPS} calls per case and repetition, {REPS} repetitions taking turns");
    println!("machine at start: {}", machine());
    let mut cases = vec![
        case("plain call (loop baseline)", 1, |_| plain_call()),
        case("two quanta clock reads (raw)", 1, two_quanta_reads),
        case("two Instant::now()", 1, |_| two_instant_reads()),
        case("perflab span!", 1, |_| perflab_span()),
        case("perflab #[measure] fn", 1, |_| perflab_measure()),
        case("hotpath #[measure] fn", 1, |_| hotpath_measure()),
        case("two quanta clock reads (raw)", 2, two_quanta_reads),
        case("perflab span!", 2, |_| perflab_span()),
        case("hotpath #[measure] fn", 2, |_| hotpath_measure()),
    ];
    // One untimed pass: thread tables, slots, hotpath's workers all set up.
    for case in &cases {
        (case.call)(&clock);
    }
    for _ in 0..REPS {
        for case in cases.iter_mut() {
            let rate = run(case.call, case.threads, &clock);
            case.samples.push(rate);
        }
    }

    let baseline = median(&cases[0].samples);
    println!();
    println!(
        "{:<30} {:>7} {:>9} {:>9} {:>9} {:>14}",
        "case", "threads", "ns/call", "min", "max", "minus baseline"
    );
    for case in &cases {
        let mid = median(&case.samples);
        let min = case.samples.iter().copied().fold(f64::INFINITY, f64::min);
        let max = case.samples.iter().copied().fold(0.0, f64::max);
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
    let rate = |name: &str, threads: usize| {
        cases
            .iter()
            .find(|case| case.name == name && case.threads == threads)
            .map(|case| median(&case.samples))
            .unwrap_or(f64::NAN)
    };
    let span_one = rate("perflab span!", 1);
    let span_two = rate("perflab span!", 2);
    let reads_one = rate("two quanta clock reads (raw)", 1);
    let hotpath_one = rate("hotpath #[measure] fn", 1);
    println!();
    println!(
        "perflab span!, 1 thread: {span_one:.2} ns (target <= 25 ns); two clock reads: {reads_one:.2} ns; span / clock reads = {:.2}",
        span_one / reads_one
    );
    let reads_two = rate("two quanta clock reads (raw)", 2);
    println!(
        "perflab span!, 2 threads / 1 thread = {:.2} (target <= 1.20); two clock reads, 2 threads / 1 thread = {:.2} (the machine's own ratio)",
        span_two / span_one,
        reads_two / reads_one
    );
    println!(
        "hotpath / perflab, 1 thread = {:.1}x",
        hotpath_one / span_one
    );

    println!();
    println!("memory: resident set growth over {MEMORY_CALLS} further calls on one thread");
    let memory_cases: [(&str, Call); 3] = [
        ("plain call (loop baseline)", |_| plain_call()),
        ("perflab span!", |_| perflab_span()),
        ("hotpath #[measure] fn", |_| hotpath_measure()),
    ];
    for (name, call) in memory_cases {
        let before = rss_bytes().unwrap_or(0) as i64;
        for _ in 0..MEMORY_CALLS {
            call(&clock);
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

    println!("machine at end: {}", machine());
    let profile = session.finish();
    drop(hotpath_guard);
    if let Some(profile) = profile {
        let span = profile.span("bench_span");
        println!();
        println!(
            "perflab's own start-up estimate of one span: {:.2} ns (timer {}); bench_span recorded {} calls on {} threads",
            profile.timer.span_cost_ns,
            profile.timer.name,
            span.map_or(0, |span| span.calls),
            span.map_or(0, |span| span.threads),
        );
    }
}
