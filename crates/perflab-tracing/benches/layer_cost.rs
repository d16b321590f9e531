//! What one `tracing` span costs through perflab's layer, beside the same
//! span under a registry without the layer and beside `perflab::span!`,
//! measured in one run.
//!
//! Run: `cargo bench -p perflab-tracing --bench layer_cost`
//!
//! With `PERFLAB_LAYER_COST_CASE=N` it measures case `N` (numbered from 0
//! in the table's order) once and prints its ns per call alone, so that two
//! builds can be compared case by case in an interleaved `perflab ab`, or
//! counted by instructions under callgrind.
//!
//! One span here is the whole life of a `tracing` span: created, entered,
//! exited and closed (`info_span!(..).entered()` dropped), which is what
//! `#[tracing::instrument]` on a sync function does per call. The cases take
//! turns, one repetition each, `REPS` times, so that drift of the machine
//! falls on all of them; the table shows the median (and range).
//!
//! A registry with no layer never frees its closed spans (each span takes a
//! new slot, so that case also pays for the registry's growth), and any
//! layer makes `tracing-subscriber` free them through its close guard. So
//! the layer's cost is shown twice: over the registry alone, and over the
//! registry with a layer that does nothing, which is the part perflab's
//! layer can change.

use std::hint::black_box;
use std::time::Instant;

use tracing_subscriber::layer::SubscriberExt;

const OPS: u32 = 1_000_000;
const REPS: usize = 11;

#[inline(never)]
fn plain_call() {
    black_box(());
}

#[inline(never)]
fn perflab_span() {
    let _span = perflab::span!("bench_span");
    black_box(());
}

#[inline(never)]
fn tracing_span() {
    let _span = tracing::info_span!("bench_tracing_span").entered();
    black_box(());
}

/// A layer that does nothing: the cost of `tracing-subscriber`'s layering
/// itself.
struct NoLayer;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for NoLayer {}

/// A case: its name, the call, and the subscriber it runs under (if any).
type Case = (&'static str, fn(), Option<fn() -> tracing::Dispatch>);

/// Nanoseconds per call of `call`, run `OPS` times under `subscriber` (if any).
fn ns_per_call(call: fn(), subscriber: Option<tracing::Dispatch>) -> f64 {
    let run = || {
        let start = Instant::now();
        for _ in 0..OPS {
            call();
        }
        start.elapsed().as_nanos() as f64 / f64::from(OPS)
    };
    match subscriber {
        Some(dispatch) => tracing::dispatcher::with_default(&dispatch, run),
        None => run(),
    }
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() {
    let session = perflab::Session::builder()
        .name("layer_cost")
        .print_table(false)
        .no_profile_file()
        .start();
    let registry = || tracing::Dispatch::new(tracing_subscriber::registry());
    let with_no_layer = || tracing::Dispatch::new(tracing_subscriber::registry().with(NoLayer));
    let with_layer =
        || tracing::Dispatch::new(tracing_subscriber::registry().with(perflab_tracing::layer()));
    let cases: [Case; 5] = [
        ("plain call (loop baseline)", plain_call, None),
        ("perflab span!", perflab_span, None),
        ("tracing span, registry only", tracing_span, Some(registry)),
        (
            "tracing span, registry + a layer doing nothing",
            tracing_span,
            Some(with_no_layer),
        ),
        (
            "tracing span, registry + perflab layer",
            tracing_span,
            Some(with_layer),
        ),
    ];
    if let Some(index) = std::env::var("PERFLAB_LAYER_COST_CASE")
        .ok()
        .and_then(|case| case.parse::<usize>().ok())
    {
        let (_, call, subscriber) = cases[index];
        println!("{}", ns_per_call(call, subscriber.map(|make| make())));
        drop(session);
        return;
    }
    println!("layer_cost: {OPS} calls per case and repetition, {REPS} repetitions taking turns");
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at start: {}", load.trim());
    let mut samples = vec![Vec::new(); cases.len()];
    for _ in 0..REPS {
        for (index, (_, call, subscriber)) in cases.iter().enumerate() {
            samples[index].push(ns_per_call(*call, subscriber.map(|make| make())));
        }
    }
    let baseline = median(&mut samples[0].clone());
    println!();
    println!(
        "{:<48} {:>9} {:>9} {:>9} {:>14}",
        "case", "ns/call", "min", "max", "minus baseline"
    );
    let mut medians = Vec::new();
    for ((name, _, _), samples) in cases.iter().zip(samples.iter_mut()) {
        let mid = median(samples);
        medians.push(mid);
        println!(
            "{:<48} {:>9.2} {:>9.2} {:>9.2} {:>14.2}",
            name,
            mid,
            samples[0],
            samples[samples.len() - 1],
            mid - baseline
        );
    }
    println!();
    let span_cost = medians[1] - baseline;
    println!(
        "perflab layer adds {:.1} ns per span to a registry ({:.1}x perflab span!)",
        medians[4] - medians[2],
        (medians[4] - medians[2]) / span_cost
    );
    println!(
        "perflab layer adds {:.1} ns per span to a registry with a layer ({:.1}x perflab span!)",
        medians[4] - medians[3],
        (medians[4] - medians[3]) / span_cost
    );
    let profile = session.finish();
    if let Some(profile) = profile {
        let recorded = profile
            .span("bench_tracing_span")
            .map_or(0, |span| span.calls);
        let expected = u64::from(OPS) * REPS as u64;
        println!("the layer recorded {recorded} spans of {expected} entered with it");
        assert_eq!(
            recorded, expected,
            "every span through the layer is recorded"
        );
    }
    println!(
        "load average at end: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
}
