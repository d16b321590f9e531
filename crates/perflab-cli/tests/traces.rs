//! Timelines (`perflab-trace/1`) written by the Rust crate and the Python
//! package match their JSON Schema and the rules of the Chrome trace event
//! format (checked from the JSON itself, see `common::traces`), and
//! `perflab ab --trace` leaves one per run. perflab.h's are checked in
//! tests/c_header.rs.

mod common;

use std::path::{Path, PathBuf};
use std::pin::pin;
use std::process::Command;
use std::task::{Context, Poll, Waker};

use common::Scratch;
use common::traces::{counter_values, read_checked, slices};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Pending once, then ready: a future with two polls.
struct YieldOnce(bool);

impl std::future::Future for YieldOnce {
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

#[perflab::measure(name = "fetch")]
async fn fetch() {
    YieldOnce(false).await;
}

#[test]
fn a_rust_programs_trace_matches_the_schema_and_the_trace_event_format() {
    let scratch = Scratch::new();
    let path = scratch.path("trace.json");
    let session = perflab::Session::builder()
        .this_thread_only()
        .print_table(false)
        .no_profile_file()
        .trace_path(&path)
        .start();
    let handle = session.handle();
    {
        let _outer = perflab::span!("outer");
        for depth in 0..3 {
            let _inner = perflab::span!("inner");
            perflab::count!("records", 2);
            perflab::gauge!("depth", depth);
        }
        let mut future = pin!(fetch());
        let mut context = Context::from_waker(Waker::noop());
        while future.as_mut().poll(&mut context).is_pending() {}
    }
    std::thread::Builder::new()
        .name("worker".into())
        .spawn(move || {
            let _attached = handle.attach();
            let _span = perflab::span!("worker_span");
            perflab::count!("records", 1);
        })
        .unwrap()
        .join()
        .unwrap();
    session.finish();
    let trace = read_checked(&path);
    assert_eq!(slices(&trace, "outer").len(), 1);
    assert_eq!(slices(&trace, "inner").len(), 3);
    assert_eq!(slices(&trace, "fetch").len(), 2);
    assert_eq!(slices(&trace, "worker_span").len(), 1);
    assert_eq!(counter_values(&trace, "records"), [2.0, 4.0, 6.0, 7.0]);
    assert_eq!(counter_values(&trace, "depth"), [0.0, 1.0, 2.0]);
}

#[test]
fn a_python_programs_trace_matches_the_schema_and_the_trace_event_format() {
    native_python_required();
    let scratch = Scratch::new();
    let program = scratch.path("traced.py");
    std::fs::write(
        &program,
        "import asyncio, threading, perflab\n\
         @perflab.measure\n\
         async def fetch():\n    await asyncio.sleep(0.001)\n\
         with perflab.span('outer'):\n\
         \x20   for i in range(3):\n\
         \x20       with perflab.span('inner'):\n\
         \x20           perflab.count('records', 2)\n\
         \x20           perflab.gauge('depth', i)\n\
         asyncio.run(fetch())\n\
         worker = threading.Thread(target=lambda: perflab.count('records', 1))\n\
         worker.start()\n\
         worker.join()\n",
    )
    .unwrap();
    let path = scratch.path("trace.json");
    let output = Command::new("python3")
        .arg(&program)
        .env("PYTHONPATH", repository().join("python/src"))
        .env("PERFLAB_TRACE", &path)
        .env_remove("PERFLAB_PROFILE")
        .env_remove("PERFLAB_TABLE")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let trace = read_checked(&path);
    assert_eq!(slices(&trace, "inner").len(), 3);
    assert_eq!(slices(&trace, "fetch").len(), 2);
    assert_eq!(counter_values(&trace, "records"), [2.0, 4.0, 6.0, 7.0]);
}

#[test]
fn perflab_ab_with_trace_leaves_one_checked_trace_per_run_of_each_variant() {
    native_python_required();
    let scratch = Scratch::new();
    std::fs::write(
        scratch.path("work.py"),
        "import os, perflab\n\
         for _ in range(int(os.environ['ROUNDS'])):\n\
         \x20   with perflab.span('step'):\n\
         \x20       sum(range(1000))\n",
    )
    .unwrap();
    let python_path = repository().join("python/src");
    let output = scratch
        .perflab()
        .args(["ab", "--min-runs", "2", "--max-runs", "2", "--warmup", "0"])
        .args(["--max-cpu-wait", "off", "--quiet", "--trace", "traces"])
        .args(["--env-a", "ROUNDS=2", "--env-b", "ROUNDS=3"])
        .arg(format!(
            "PYTHONPATH={} python3 work.py",
            python_path.display()
        ))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("4 traces in traces"), "{stderr}");
    for (variant, rounds) in [("A", 2), ("B", 3)] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(scratch.path("traces"))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| {
                path.file_name().is_some_and(|name| {
                    name.to_string_lossy()
                        .starts_with(&format!("{variant}-run-"))
                })
            })
            .collect();
        files.sort();
        assert_eq!(files.len(), 2, "{files:?}");
        for file in files {
            let trace = read_checked(&file);
            assert_eq!(slices(&trace, "step").len(), rounds, "{}", file.display());
        }
    }
}

#[test]
fn a_trace_folder_that_cannot_be_made_is_bad_input_named_by_its_flag() {
    let scratch = Scratch::new();
    std::fs::write(scratch.path("taken"), "a file, not a folder").unwrap();
    let output = scratch
        .perflab()
        .args(["run", "-r", "1", "--trace", "taken/traces", "true"])
        .output()
        .unwrap();
    common::assert_exit(&output, 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--trace") && stderr.contains("taken/traces"),
        "{stderr}"
    );
}

#[test]
fn a_program_that_is_not_instrumented_leaves_no_trace_and_is_told_so() {
    let scratch = Scratch::new();
    let output = scratch
        .perflab()
        .args(["run", "-r", "1", "--trace", "traces", "true"])
        .output()
        .unwrap();
    common::assert_exit(&output, 0);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no run wrote a trace"), "{stderr}");
}

fn native_python_required() {
    let found = Command::new("python3").arg("--version").output().is_ok();
    assert!(
        found,
        "python3 is not installed, and this test needs it: run scripts/install-test-deps.sh"
    );
}
