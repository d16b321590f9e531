//! How long `perflab report` takes on a store of realistic size: 100 A/B
//! experiments of one benchmark at 100 commits, 10,000 measured runs (the
//! newest experiment's runs carry span profiles). Times reading the store,
//! the history over all commits, and writing both the Markdown and the HTML,
//! for the default report (the newest experiment) and for one page holding
//! all 100 experiments.
//!
//! Run with `cargo bench -p perflab-cli --bench report_generation`.

use perflab_format::vocabulary::ResultStatus;
use std::time::Instant;

use perflab_cli::ab::{AbRun, begin_ab};
use perflab_cli::decide::evaluate;
use perflab_cli::engine::{OutcomeHeader, StopReason};
use perflab_cli::experiment::settings::VariantSettings;
use perflab_cli::experiment::{Experiment, Settings};
use perflab_cli::gather::gather;
use perflab_cli::result_document::ab_document;
use perflab_report::html::report_html;
use perflab_report::markdown::report_markdown;
use perflab_runner::{FakeExecutor, RunOutcome};
use perflab_store::Store;
use perflab_store::provenance::Provenance;

const EXPERIMENTS: usize = 100;
const RUNS_PER_VARIANT: usize = 50;
const REPETITIONS: usize = 15;

fn experiment() -> Experiment {
    Settings {
        name: Some("parse".into()),
        variants: ["./parse --baseline", "./parse"]
            .iter()
            .enumerate()
            .map(|(i, c)| VariantSettings {
                name: Some(["baseline", "candidate"][i].into()),
                command: Some(c.to_string()),
                ..Default::default()
            })
            .collect(),
        seed: Some(1),
        ..Default::default()
    }
    .into_experiment()
    .expect("valid experiment")
}

/// A complete `perflab-profile/1` document: three spans on one thread.
fn profile(wall_ns: u64) -> String {
    let span = |name: &str, calls: u64, self_ns: u64| {
        serde_json::json!({
            "name": name, "kind": "span", "file": "src/main.rs", "line": 1, "calls": calls,
            "inclusive_ns": self_ns, "self_ns": self_ns, "mean_ns": (self_ns / calls) as f64,
            "min_ns": self_ns / calls, "p50_ns": self_ns / calls, "p95_ns": self_ns / calls,
            "p99_ns": self_ns / calls, "max_ns": self_ns / calls, "threads": 1, "unwound": 0
        })
    };
    serde_json::json!({
        "format": "perflab-profile/1", "program": "parse", "pid": 1,
        "session": {"name": "parse", "scope": "process", "wall_ns": wall_ns, "cpu_ns": wall_ns,
                    "ended_by": "finished", "started_unix_ms": 0, "unattributed_threshold": 0.1},
        "timer": {"name": "tsc", "span_cost_ns": 20.0, "percentile_relative_error": 0.015625,
                  "instrumentation_ns": 18040},
        "spans": [span("read", 1, wall_ns / 5), span("parse", 900, wall_ns / 2), span("write", 1, wall_ns / 5)],
        "threads": [{"id": 1, "wall_ns": wall_ns, "attributed_ns": wall_ns * 9 / 10,
                     "unattributed_ns": wall_ns / 10, "ended": false}],
        "counters": [], "gauges": [], "warnings": []
    })
    .to_string()
}

fn fill(store: &Store) {
    let exp = experiment();
    let mut rng = fastrand::Rng::with_seed(42);
    for e in 0..EXPERIMENTS {
        let provenance = Provenance {
            git_commit: Some(format!("{:040x}", 0xc0ffee_u64 + e as u64)),
            git_dirty: Some(false),
            host: "bench".into(),
            started_at: format!("2026-01-01T00:{:02}:{:02}Z", e / 60, e % 60),
            ..Default::default()
        };
        let (id, ids) = begin_ab(store, &exp, &provenance, "{}").expect("begin");
        let level = 0.1 * (1.0 - 0.003 * e as f64);
        let mut runs: [Vec<RunOutcome>; 2] = [Vec::new(), Vec::new()];
        for i in 0..RUNS_PER_VARIANT {
            for (side, factor) in [(0, 1.0), (1, 0.97)] {
                let wall = level * factor * (1.0 + 0.02 * (rng.f64() - 0.5));
                let mut run = FakeExecutor::outcome(wall);
                if e == EXPERIMENTS - 1 {
                    run.profile_json = Some(profile((wall * 1e9) as u64));
                }
                store
                    .record_run(id, ids[side], 2 * i + side, i, false, &run)
                    .expect("run");
                runs[side].push(run);
            }
        }
        let evaluation = evaluate(&exp, [&runs[0], &runs[1]]).expect("evaluation");
        let ab = AbRun {
            runs,
            evaluation: Some(evaluation),
            header: OutcomeHeader {
                stop: StopReason::Decided,
                experiment_id: Some(id),
                seed: 1,
                provenance,
                machine: None,
                contention: None,
            },
            duet: None,
        };
        let doc = ab_document(&exp, &ab).expect("document");
        let change = doc.decision.as_ref().map(|d| (d.change, d.ci[0], d.ci[1]));
        let json = serde_json::to_string(&doc).expect("json");
        store
            .finish_experiment(id, ResultStatus::Complete, doc.verdict, change, Some(json))
            .expect("finish");
    }
}

fn time(label: &str, mut work: impl FnMut() -> usize) {
    let mut seconds = Vec::new();
    let mut bytes = 0;
    for _ in 0..REPETITIONS {
        let started = Instant::now();
        bytes = work();
        seconds.push(started.elapsed().as_secs_f64());
    }
    seconds.sort_by(f64::total_cmp);
    println!(
        "{label}: median {:.1} ms (min {:.1}, max {:.1}) over {REPETITIONS} repetitions, {} KiB written",
        seconds[REPETITIONS / 2] * 1e3,
        seconds[0] * 1e3,
        seconds[REPETITIONS - 1] * 1e3,
        bytes / 1024
    );
}

fn main() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("perflab.db");
    let started = Instant::now();
    fill(&Store::open(&path).expect("store"));
    let store = Store::open(&path).expect("store");
    let runs: i64 = (1..=EXPERIMENTS as i64)
        .map(|id| store.count_runs(id).unwrap_or(0))
        .sum();
    println!(
        "store: {EXPERIMENTS} experiments, {runs} runs, filled in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let newest = gather(&store, &[], true).expect("gather");
    assert!(
        !newest.experiments[0].spans.is_empty() && newest.experiments[0].warnings.is_empty(),
        "the newest experiment's profiles are read into a span breakdown"
    );
    time(
        "report of the newest experiment (store read, history over 100 commits, Markdown + HTML)",
        || {
            let data = gather(&store, &[], true).expect("gather");
            report_markdown(&data).len() + report_html(&data).len()
        },
    );
    let all: Vec<String> = (1..=EXPERIMENTS).map(|id| id.to_string()).collect();
    time(
        "report of all 100 experiments on one page (each with its history)",
        || {
            let data = gather(&store, &all, true).expect("gather");
            report_markdown(&data).len() + report_html(&data).len()
        },
    );
}
