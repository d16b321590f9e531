//! Writing the report, and an async flush polled by a tiny executor.

use std::fmt::Write as _;
use std::future::Future;
use std::io::Write as _;
use std::pin::{Pin, pin};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::analysis::PathStats;

/// Formats the report and writes it to a file in the temporary directory
/// (removed again); returns its size in bytes.
pub(crate) fn write_report(stats: &[PathStats]) -> usize {
    let mut text = String::new();
    for _ in 0..200 {
        for path in stats {
            let _ = writeln!(
                text,
                "{:<16} {:>8} requests {:>6} errors p50 {:>6} us p99 {:>6} us score {:>14.1}",
                path.path, path.requests, path.errors, path.p50_us, path.p99_us, path.score
            );
        }
    }
    let file = std::env::temp_dir().join(format!("spans-report-{}.txt", std::process::id()));
    let written = std::fs::File::create(&file).and_then(|mut out| {
        out.write_all(text.as_bytes())?;
        out.sync_all()
    });
    if written.is_err() {
        perflab::count!("report_write_failures");
    }
    let _ = std::fs::remove_file(&file);
    text.len()
}

/// Flushes `bytes` in chunks, waiting `pause` between them without blocking
/// the thread (the future is pending until the pause has passed).
#[perflab::measure]
pub(crate) async fn flush_in_chunks(bytes: usize, pause: Duration) -> usize {
    let chunks = bytes.div_ceil(64 * 1024).max(1);
    for _ in 0..chunks {
        Pause::until(Instant::now() + pause).await;
    }
    chunks
}

/// Pending until a deadline.
struct Pause {
    deadline: Instant,
}

impl Pause {
    fn until(deadline: Instant) -> Pause {
        Pause { deadline }
    }
}

impl Future for Pause {
    type Output = ();
    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<()> {
        if Instant::now() >= self.deadline {
            Poll::Ready(())
        } else {
            context.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// Polls `future` to completion, sleeping briefly while it is pending.
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut context) {
            return value;
        }
        perflab::count!("executor_idle_sleeps");
        std::thread::sleep(Duration::from_micros(200));
    }
}
