//! A program instrumented with `tracing` (`#[tracing::instrument]` on sync
//! and async functions) and perflab's locks, measured by `perflab run`:
//! the layer's spans get the right self and inclusive times, the async one
//! its busy and idle time, and the terminal shows futures and locks.
//!
//! The program is this test binary itself, started again by `perflab run`
//! with an environment variable that makes the test act as the program.

mod common;

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use common::Scratch;
use serde_json::Value;
use tracing_subscriber::layer::SubscriberExt;

/// Set in the environment of the program `perflab run` starts.
const ACT_AS_PROGRAM: &str = "PERFLAB_TEST_ACT_AS_TRACED_PROGRAM";
const TEST_NAME: &str =
    "a_traced_program_shows_self_and_inclusive_time_and_async_idle_time_through_perflab_run";
const CALLS: usize = 20;
const PAUSE: Duration = Duration::from_millis(2);

fn spin(units: u32) -> u64 {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..units * 20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x = black_box(x);
    }
    x
}

#[tracing::instrument]
fn parse(units: u32) -> u64 {
    spin(units)
}

#[tracing::instrument]
fn handle(units: u32) -> u64 {
    spin(units) ^ parse(2 * units)
}

/// Waits `polls` times, as a task waiting on a channel, parsing a little each time.
#[tracing::instrument]
async fn receive(polls: u32) -> u64 {
    let mut total = 0;
    for _ in 0..polls {
        total ^= parse(1);
        PendingOnce(false).await;
    }
    total
}

struct PendingOnce(bool);

impl Future for PendingOnce {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, context: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            context.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// An executor that sleeps `PAUSE` whenever the future is pending.
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut context) {
            return value;
        }
        std::thread::sleep(PAUSE);
    }
}

/// What the program does: sync and async instrumented calls, and a lock
/// two threads contend for.
fn traced_program() {
    let session = perflab::Session::builder().name("traced").start();
    let subscriber = tracing_subscriber::registry().with(perflab_tracing::layer());
    tracing::subscriber::with_default(subscriber, || {
        for _ in 0..CALLS {
            black_box(handle(1));
        }
        black_box(block_on(receive(4)));
    });
    let lock = Arc::new(perflab::sync::Mutex::named("batch queue", 0u64));
    let held = lock.lock().unwrap();
    let (asking_tx, asking_rx) = std::sync::mpsc::channel();
    let other = {
        let lock = lock.clone();
        std::thread::spawn(move || {
            asking_tx.send(()).unwrap();
            *lock.lock().unwrap() += 1
        })
    };
    // Held long after the other thread asks, so that it finds the lock taken.
    asking_rx.recv().unwrap();
    std::thread::sleep(Duration::from_millis(100));
    drop(held);
    other.join().unwrap();
    session.finish();
}

fn span<'a>(spans: &'a [Value], name: &str) -> &'a Value {
    let record = spans
        .iter()
        .find(|record| record["name"] == name)
        .unwrap_or_else(|| panic!("span `{name}` missing from {spans:?}"));
    &record["per_variant"][0]
}

#[test]
fn a_traced_program_shows_self_and_inclusive_time_and_async_idle_time_through_perflab_run() {
    if std::env::var_os(ACT_AS_PROGRAM).is_some() {
        traced_program();
        return;
    }
    let scratch = Scratch::new();
    let program = std::env::current_exe().unwrap();
    let command = format!(
        "{ACT_AS_PROGRAM}=1 {} --exact {TEST_NAME} --nocapture --test-threads=1",
        program.display()
    );
    let out = scratch
        .perflab()
        .args(["run", &command, "-r", "1", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let json = scratch.json("r.json");
    let spans = json["spans"]
        .as_array()
        .expect("a span table in the result");
    let (handle, parse, receive) = (
        span(spans, "handle"),
        span(spans, "parse"),
        span(spans, "receive"),
    );
    let figure = |stats: &Value, name: &str| stats[name].as_f64().unwrap();
    assert_eq!(figure(handle, "calls"), CALLS as f64);
    // `parse` is called by `handle` and, four times, inside the future.
    assert_eq!(figure(parse, "calls"), (CALLS + 4) as f64);
    assert_eq!(figure(receive, "calls"), 1.0);
    // The future: busy inside its polls, idle for the executor's pauses.
    let async_stats = &receive["async"];
    let idle = async_stats["idle_s"].as_f64().unwrap();
    let busy = async_stats["busy_s"].as_f64().unwrap();
    // One run, so the figures are that run's: `parse`'s time is all inside
    // `handle` or inside the future's polls, and is what their self time
    // leaves of them (within a nanosecond of rounding per figure).
    let (handle_self, handle_inclusive) = (figure(handle, "self_s"), figure(handle, "inclusive_s"));
    assert!(
        handle_self > 0.0 && handle_self < handle_inclusive,
        "{handle}"
    );
    let children = (handle_inclusive - handle_self) + (busy - figure(receive, "self_s"));
    assert!(
        (figure(parse, "inclusive_s") - children).abs() < 5e-9,
        "{handle} {parse} {receive}"
    );
    assert_eq!(figure(parse, "self_s"), figure(parse, "inclusive_s"));
    assert!(idle >= 4.0 * PAUSE.as_secs_f64(), "{receive}");
    assert!(
        (busy + idle - figure(receive, "inclusive_s")).abs() < 1e-6,
        "{receive}"
    );
    assert!(figure(receive, "self_s") <= busy, "{receive}");
    // The lock: two acquisitions, the second waited for the first.
    let lock = &json["locks"][0];
    assert_eq!(lock["name"], "batch queue");
    let lock = &lock["per_variant"][0];
    assert_eq!(
        (lock["acquisitions"].as_f64(), lock["contended"].as_f64()),
        (Some(2.0), Some(1.0))
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    for section in ["futures:", "locks:", "receive", "batch queue", "1 waited"] {
        assert!(
            stdout.contains(section),
            "`{section}` missing from\n{stdout}"
        );
    }
    // The report of the stored experiment shows them too.
    let report = scratch
        .perflab()
        .args(["report", "--html", "r.html"])
        .output()
        .unwrap();
    common::assert_exit(&report, 0);
    let markdown = scratch.perflab().arg("report").output().unwrap();
    let markdown = String::from_utf8_lossy(&markdown.stdout);
    let html = std::fs::read_to_string(scratch.path("r.html")).unwrap();
    for text in [&*markdown, &html] {
        assert!(
            text.contains("batch queue") && text.contains("1 waited"),
            "{text}"
        );
        assert!(
            text.contains("receive") && text.contains("wake-ups"),
            "{text}"
        );
    }
    assert!(html.contains("<h3>Futures and locks</h3>"));
}
