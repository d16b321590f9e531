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
//! layer can change. A last case is a layer that only reads the clock on
//! entry and exit and adds the difference to its thread's total: the least
//! any layer timing spans pays for the two callbacks and their clock reads,
//! so that the table splits perflab's layer's cost into that floor and
//! the rest (finding the span's instance, recording it into the table).
//! The last case is a layer that opens a `perflab::span!` of one fixed site
//! at each entry and closes it at the exit: the least any layer pays that
//! records what `span!` records, whatever it does to tell spans apart.

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

/// The least a layer that times spans can do: read the clock when a span
/// is entered and when it is exited, and add the difference to its
/// thread's total. It knows no span (no identity, no table, no nesting),
/// so what perflab's layer adds beyond it is the price of telling spans
/// apart; what it adds itself is the floor any timing layer pays.
struct ClockOnlyLayer;

thread_local! {
    static ENTERED_AT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static TIMED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The clock perflab's spans read where they can: the time-stamp counter.
#[inline(always)]
fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `rdtsc` exists on every x86_64 CPU.
    unsafe {
        core::arch::x86_64::_rdtsc()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for ClockOnlyLayer {
    fn on_enter(&self, _id: &tracing::span::Id, _ctx: tracing_subscriber::layer::Context<'_, S>) {
        ENTERED_AT.set(ticks());
    }

    fn on_exit(&self, _id: &tracing::span::Id, _ctx: tracing_subscriber::layer::Context<'_, S>) {
        TIMED.set(
            TIMED
                .get()
                .wrapping_add(ticks().wrapping_sub(ENTERED_AT.get())),
        );
    }
}

/// The least a layer recording into perflab's span table pays: each
/// entry opens a `perflab::span!` of one fixed site, kept on the thread
/// until the exit closes it. It tells no span apart, so what perflab's
/// layer adds beyond it is the price of identity (which site, which
/// instance) and of the async accounting; what it adds itself is a whole
/// `span!` plus carrying its guard from one callback to the next, the floor
/// of any layer that records what `span!` records.
struct SpanBangLayer;

thread_local! {
    static OPEN_GUARDS: std::cell::RefCell<Vec<perflab::SpanGuard>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for SpanBangLayer {
    fn on_enter(&self, _id: &tracing::span::Id, _ctx: tracing_subscriber::layer::Context<'_, S>) {
        OPEN_GUARDS.with_borrow_mut(|open| open.push(perflab::span!("span_bang_layer_entry")));
    }

    fn on_exit(&self, _id: &tracing::span::Id, _ctx: tracing_subscriber::layer::Context<'_, S>) {
        OPEN_GUARDS.with_borrow_mut(|open| drop(open.pop()));
    }
}

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
    let with_clock_only =
        || tracing::Dispatch::new(tracing_subscriber::registry().with(ClockOnlyLayer));
    let with_span_bang =
        || tracing::Dispatch::new(tracing_subscriber::registry().with(SpanBangLayer));
    let cases: [Case; 7] = [
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
        (
            "tracing span, registry + clock-only layer",
            tracing_span,
            Some(with_clock_only),
        ),
        (
            "tracing span, registry + span!-per-entry layer",
            tracing_span,
            Some(with_span_bang),
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
    // Each line: "{what} N ns {against} (R x perflab span!){why}", N a
    // difference of medians.
    let with_a_layer = "per span to a registry with a layer";
    let (layer, clock_only, span_bang) = (medians[4], medians[5], medians[6]);
    let lines = [
        (
            "perflab layer adds",
            layer - medians[2],
            "per span to a registry",
            "",
        ),
        ("perflab layer adds", layer - medians[3], with_a_layer, ""),
        (
            "a layer that only reads the clock adds",
            clock_only - medians[3],
            with_a_layer,
            ": the floor of any timing layer",
        ),
        (
            "perflab layer adds",
            layer - clock_only,
            "beyond that floor",
            ": telling spans apart and recording them",
        ),
        (
            "a layer that opens one span! per entry adds",
            span_bang - medians[3],
            with_a_layer,
            ": the floor of any layer recording what span! records",
        ),
        (
            "perflab layer adds",
            layer - span_bang,
            "beyond that floor",
            ": telling spans and instances apart, and the async accounting",
        ),
    ];
    for (what, ns, against, why) in lines {
        println!(
            "{what} {ns:.1} ns {against} ({:.1}x perflab span!){why}",
            ns / span_cost
        );
    }
    black_box(TIMED.get());
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
