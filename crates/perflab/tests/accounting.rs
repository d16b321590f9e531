//! Accounting of time: self and inclusive, recursion, panics, threads,
//! never-entered call sites, counters and gauges, parallel sessions.

mod common;

use common::{quiet_session, rounding_ns, spin};
use perflab::profile::{Profile, SpanRecord, WarningKind};
use std::panic::{AssertUnwindSafe, catch_unwind};

fn span<'a>(profile: &'a Profile, name: &str) -> &'a SpanRecord {
    profile
        .span(name)
        .unwrap_or_else(|| panic!("no span `{name}` in {:#?}", profile.spans))
}

#[perflab::measure(name = "light")]
fn light() -> u64 {
    spin(1)
}

#[perflab::measure(name = "heavy")]
fn heavy() -> u64 {
    spin(4)
}

#[test]
fn nested_spans_give_self_and_inclusive_times_that_add_up() {
    let session = quiet_session();
    {
        let _outer = perflab::span!("outer");
        for _ in 0..20 {
            light();
            heavy();
        }
        spin(2);
    }
    let profile = session.finish().unwrap();
    let (outer, light, heavy) = (
        span(&profile, "outer"),
        span(&profile, "light"),
        span(&profile, "heavy"),
    );
    assert_eq!((outer.calls, light.calls, heavy.calls), (1, 20, 20));
    // Self time of the outer span is what its children did not take.
    let parts = outer.self_ns + light.inclusive_ns + heavy.inclusive_ns;
    assert!(
        outer.inclusive_ns.abs_diff(parts) <= rounding_ns(4),
        "{outer:?} {light:?} {heavy:?}"
    );
    // Leaf spans have no children.
    assert!(light.inclusive_ns.abs_diff(light.self_ns) <= rounding_ns(2));
    // Work of four units against work of one: the fastest calls, which no
    // preemption lengthened, keep the ratio well above two.
    assert!(
        heavy.min_ns > 2 * light.min_ns,
        "heavy {heavy:?} light {light:?}"
    );
    assert!(
        heavy.p50_ns > 2 * light.p50_ns,
        "heavy {heavy:?} light {light:?}"
    );
    // The thread's attributed time is the top-level span.
    let thread = &profile.threads[0];
    assert_eq!(profile.threads.len(), 1);
    assert!(thread.attributed_ns.abs_diff(outer.inclusive_ns) <= rounding_ns(2));
    assert_eq!(
        thread.attributed_ns + thread.unattributed_ns,
        thread.wall_ns
    );
    for record in [outer, light, heavy] {
        assert!(record.min_ns <= record.p50_ns && record.p50_ns <= record.p95_ns);
        assert!(record.p95_ns <= record.p99_ns && record.p99_ns <= record.max_ns);
        assert!(record.self_ns <= record.inclusive_ns);
    }
}

#[perflab::measure(name = "descend")]
fn descend(depth: u32) -> u64 {
    spin(1).wrapping_add(if depth > 0 { descend(depth - 1) } else { 0 })
}

#[test]
fn recursion_counts_inclusive_time_once() {
    let session = quiet_session();
    descend(5);
    let profile = session.finish().unwrap();
    let descend = span(&profile, "descend");
    assert_eq!(descend.calls, 6);
    // Inclusive time is the outermost call, which is also the longest.
    assert!(
        descend.inclusive_ns.abs_diff(descend.max_ns) <= rounding_ns(2),
        "{descend:?}"
    );
    // Self times of all levels add up to the same time.
    assert!(
        descend.self_ns.abs_diff(descend.inclusive_ns) <= rounding_ns(7),
        "{descend:?}"
    );
    // The mean is over call durations, nested ones included.
    assert!(descend.mean_ns * 6.0 > descend.inclusive_ns as f64 * 2.0);
}

#[perflab::measure(name = "fails")]
fn fails() {
    spin(1);
    panic!("planned failure inside a span");
}

#[test]
fn a_panic_unwinding_through_spans_is_recorded_and_the_rest_still_adds_up() {
    let session = quiet_session();
    {
        let _around = perflab::span!("around_panic");
        let result = catch_unwind(AssertUnwindSafe(fails));
        assert!(result.is_err());
        light();
    }
    let profile = session.finish().unwrap();
    let (around, failed) = (span(&profile, "around_panic"), span(&profile, "fails"));
    assert_eq!((failed.calls, failed.unwound), (1, 1));
    assert_eq!(around.unwound, 0);
    let parts = around.self_ns + failed.inclusive_ns + span(&profile, "light").inclusive_ns;
    assert!(around.inclusive_ns.abs_diff(parts) <= rounding_ns(4));
    assert!(
        profile
            .warnings_of(WarningKind::Unwound)
            .any(|w| w.subject == "fails")
    );
}

#[test]
fn a_thread_that_panics_inside_a_span_leaves_the_session_intact() {
    let session = quiet_session();
    let handle = session.handle();
    let worker = std::thread::spawn(move || {
        let _attached = handle.attach();
        let _doomed = perflab::span!("doomed");
        spin(1);
        panic!("planned failure in a worker thread");
    });
    assert!(worker.join().is_err());
    light();
    let profile = session.finish().unwrap();
    let doomed = span(&profile, "doomed");
    assert_eq!((doomed.calls, doomed.unwound, doomed.threads), (1, 1, 1));
    assert_eq!(span(&profile, "light").calls, 1);
    assert_eq!(profile.threads.len(), 2);
    assert!(profile.threads.iter().any(|thread| thread.ended));
}

#[test]
fn data_of_threads_that_end_before_the_session_are_kept() {
    let session = quiet_session();
    let handle = session.handle();
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let handle = handle.clone();
            std::thread::spawn(move || {
                let _attached = handle.attach();
                for _ in 0..4 {
                    light();
                }
                perflab::count!("worker_batches", 4u32);
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    let profile = session.finish().unwrap();
    let light = span(&profile, "light");
    assert_eq!((light.calls, light.threads), (12, 3));
    assert_eq!(
        profile.threads.iter().filter(|thread| thread.ended).count(),
        3
    );
    let batches = profile.counter("worker_batches").unwrap();
    assert_eq!((batches.events, batches.total, batches.threads), (3, 12, 3));
    for thread in profile.threads.iter().filter(|thread| thread.ended) {
        assert!(thread.attributed_ns <= thread.wall_ns);
        assert!(thread.cpu_ns.is_some());
    }
}

#[allow(dead_code)]
#[perflab::measure(name = "never_called")]
fn never_called() {
    perflab::count!("never_counted");
    perflab::gauge!("never_set", 1);
}

#[test]
fn a_span_counter_and_gauge_that_never_ran_are_reported_as_such() {
    let session = quiet_session();
    light();
    let profile = session.finish().unwrap();
    let never = span(&profile, "never_called");
    assert_eq!((never.calls, never.inclusive_ns), (0, 0));
    assert!(never.file.ends_with("accounting.rs") && never.line > 0);
    assert!(
        profile
            .warnings_of(WarningKind::NeverEntered)
            .any(|w| w.subject == "never_called")
    );
    assert_eq!(profile.counter("never_counted").unwrap().events, 0);
    assert!(
        profile
            .warnings_of(WarningKind::CounterNeverIncremented)
            .any(|w| w.subject == "never_counted")
    );
    assert_eq!(profile.gauge("never_set").unwrap().samples, 0);
    assert!(
        profile
            .warnings_of(WarningKind::GaugeNeverSet)
            .any(|w| w.subject == "never_set")
    );
}

#[test]
fn counters_and_gauges_record_events_totals_and_levels() {
    let session = quiet_session();
    for depth in [3, 9, 1, 4] {
        perflab::gauge!("queue_depth", depth);
        perflab::count!("retries");
    }
    perflab::count!("bytes", 1500usize);
    perflab::count!("bytes", -5);
    perflab::gauge!("queue_depth", f64::NAN);
    let profile = session.finish().unwrap();
    let retries = profile.counter("retries").unwrap();
    assert_eq!((retries.events, retries.total), (4, 4));
    let bytes = profile.counter("bytes").unwrap();
    assert_eq!((bytes.events, bytes.total), (2, 1500));
    let depth = profile.gauge("queue_depth").unwrap();
    assert_eq!(depth.samples, 4, "NaN is ignored");
    assert_eq!(
        (depth.last, depth.min, depth.max, depth.mean),
        (4.0, 1.0, 9.0, 4.25)
    );
}

#[test]
fn unattributed_time_is_reported_and_warned_about() {
    let session = perflab::Session::builder()
        .this_thread_only()
        .print_table(false)
        .no_profile_file()
        .unattributed_threshold(0.2)
        .start();
    light();
    spin(8);
    let profile = session.finish().unwrap();
    let thread = &profile.threads[0];
    assert!(thread.unattributed_ns > thread.attributed_ns, "{thread:?}");
    assert!(profile.warnings_of(WarningKind::Unattributed).count() == 1);
}

#[test]
fn spans_around_a_sleep_are_warned_about_as_waiting_and_busy_spans_are_not() {
    let session = quiet_session();
    {
        let _records = perflab::span!("process_records");
        spin(2);
        // The fixed pause that made a per-record cost mostly sleep.
        std::thread::sleep(std::time::Duration::from_millis(60));
    }
    let profile = session.finish().unwrap();
    let warnings: Vec<_> = profile.warnings_of(WarningKind::MostlyWaiting).collect();
    assert_eq!(warnings.len(), 1, "{:?}", profile.warnings);
    assert!(warnings[0].message.contains("off the CPU"), "{warnings:?}");

    let session = quiet_session();
    {
        let _records = perflab::span!("process_records");
        spin(20);
    }
    let profile = session.finish().unwrap();
    // Busy work is only warned about if the machine took the CPU away for
    // most of it, which the thread's own CPU time shows.
    let thread = &profile.threads[0];
    let ran = thread.cpu_ns.unwrap() * 2 > thread.attributed_ns;
    assert_eq!(
        profile.warnings_of(WarningKind::MostlyWaiting).count() == 0,
        ran,
        "{thread:?} {:?}",
        profile.warnings
    );
}

#[perflab::measure(name = "shared_work")]
fn shared_work() -> u64 {
    spin(1)
}

#[test]
fn parallel_sessions_do_not_mix_their_data() {
    let workers: Vec<_> = (1..=4u64)
        .map(|calls| {
            std::thread::spawn(move || {
                let session = quiet_session();
                for _ in 0..calls {
                    shared_work();
                }
                let nested = quiet_session();
                shared_work();
                let inner = nested.finish().unwrap();
                (calls, session.finish().unwrap(), inner)
            })
        })
        .collect();
    for worker in workers {
        let (calls, outer, inner) = worker.join().unwrap();
        assert_eq!(span(&outer, "shared_work").calls, calls);
        assert_eq!(span(&inner, "shared_work").calls, 1);
    }
}

#[test]
fn spans_outside_any_session_record_nothing() {
    let guard = perflab::span!("nowhere");
    assert!(!guard.is_recording());
    drop(guard);
    let session = quiet_session();
    let profile = session.finish().unwrap();
    assert_eq!(span(&profile, "nowhere").calls, 0);
}

#[test]
fn the_block_form_of_span_returns_the_value_of_its_block() {
    let session = quiet_session();
    let sum = perflab::span!("block_form", { (1..=10u32).sum::<u32>() });
    assert_eq!(sum, 55);
    let profile = session.finish().unwrap();
    assert_eq!(span(&profile, "block_form").calls, 1);
}

#[test]
fn a_finished_profile_reads_back_from_its_file() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("profile.json");
    let session = perflab::Session::builder()
        .this_thread_only()
        .print_table(false)
        .profile_path(&path)
        .name("read_back")
        .start();
    heavy();
    let profile = session.finish().unwrap();
    let read = Profile::read(&path).unwrap();
    // Floats are compared by their text: JSON keeps what was written.
    assert_eq!(read.spans, profile.spans);
    assert_eq!(read.threads, profile.threads);
    assert_eq!(read.warnings, profile.warnings);
    assert_eq!(read.session.name, "read_back");
    assert!(read.timer.span_cost_ns > 0.0);
    let table = perflab::render_table(&read);
    assert!(
        table.contains("heavy") && table.contains("can exceed 100%"),
        "{table}"
    );
}

struct Parser {
    seen: u64,
}

impl Parser {
    #[perflab::measure(name = "Parser::feed")]
    fn feed(&mut self, units: u32) -> u64 {
        self.seen += 1;
        spin(units)
    }

    #[perflab::measure]
    fn describe<T: std::fmt::Debug>(&self, value: T) -> String {
        format!("{value:?} after {}", self.seen)
    }
}

#[test]
fn measure_works_on_methods_and_generic_functions() {
    let session = quiet_session();
    let mut parser = Parser { seen: 0 };
    parser.feed(1);
    parser.feed(1);
    assert_eq!(parser.describe(7u8), "7 after 2");
    assert_eq!(parser.describe("x"), "\"x\" after 2");
    let profile = session.finish().unwrap();
    assert_eq!(span(&profile, "Parser::feed").calls, 2);
    // Unnamed: module path and function name; one site for every instantiation.
    let describe = span(&profile, "accounting::describe");
    assert_eq!(describe.calls, 2);
    assert_eq!(describe.kind, perflab::profile::SpanKind::Function);
}
