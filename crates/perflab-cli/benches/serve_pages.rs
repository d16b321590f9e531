//! How long `perflab serve` takes to build its two heaviest pages on a
//! store of a team's size: 10,000 experiments, among them one series of
//! 1,000 commits × 5 runs. Times the home page (the change points of every
//! series, a page of experiments) and the series page (its history, change
//! points and a page of commits), server-side: reading the store and
//! rendering the HTML, without the network. Memory: the store is read
//! through one connection; a page holds one page of experiments and the
//! series it draws.
//!
//! Run with `cargo bench -p perflab-cli --bench serve_pages`;
//! `PERFLAB_BENCH_EXPERIMENTS` and `PERFLAB_BENCH_COMMITS` make the store
//! smaller (e.g. 300 and 40 to check that it runs).

use std::time::Instant;

use perflab_cli::commands::CommandSource;
use perflab_format::vocabulary::{ExperimentKind, ResultStatus};
use perflab_runner::FakeExecutor;
use perflab_serve::render::{home_page, series_page};
use perflab_serve::{HomeQuery, SeriesQuery, Site};
use perflab_store::provenance::Provenance;
use perflab_store::{Location, Store, VariantRecord};

const REPETITIONS: usize = 7;
/// Runs per commit of the series.
const RUNS_PER_COMMIT: usize = 5;
/// Names the other experiments are spread over (each a series of its own).
const OTHER_NAMES: usize = 100;

fn size(variable: &str, default: usize) -> usize {
    std::env::var(variable)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One stored experiment of `name` at commit `commit` with `runs` runs of
/// `level` seconds (±1%).
fn experiment(
    store: &Store,
    name: &str,
    commit: usize,
    e: usize,
    runs: usize,
    level: f64,
    rng: &mut fastrand::Rng,
) {
    let provenance = Provenance {
        git_commit: Some(format!("{:040x}", 0xc0ffee_u64 + commit as u64)),
        git_dirty: Some(false),
        host: "bench".into(),
        started_at: format!(
            "2026-01-01T{:02}:{:02}:{:02}.{:06}Z",
            e / 360_000 % 24,
            e / 6000 % 60,
            e / 100 % 60,
            e % 100
        ),
        ..Default::default()
    };
    let variant = VariantRecord {
        name: "run",
        command: "./bench",
        env: &[],
        cwd: None,
    };
    let (id, ids) = store
        .begin_experiment(
            ExperimentKind::Run,
            Some(name),
            Some("wall"),
            &provenance,
            "{}",
            &[variant],
        )
        .expect("begin");
    for i in 0..runs {
        let run = FakeExecutor::outcome(level * (1.0 + 0.02 * (rng.f64() - 0.5)));
        store
            .record_run(id, ids[0], i, i, false, &run)
            .expect("run");
    }
    store
        .finish_experiment(id, ResultStatus::Complete, None, None, None)
        .expect("finish");
}

fn fill(store: &Store, experiments: usize, commits: usize) {
    let mut rng = fastrand::Rng::with_seed(42);
    let others = experiments.saturating_sub(commits);
    let per_name = others.div_ceil(OTHER_NAMES).max(1);
    let mut e = 0;
    // Other series first, then the long one, whose newest commit is the host's newest.
    for k in 0..others {
        let (name, commit) = (format!("bench-{}", k / per_name), k % per_name);
        let level = 0.01
            * (1.0 + (k / per_name) as f64 / 10.0)
            * if commit > per_name / 2 { 1.1 } else { 1.0 };
        experiment(store, &name, commit, e, 2, level, &mut rng);
        e += 1;
    }
    for commit in 0..commits {
        let level = if commit < commits * 4 / 5 { 0.1 } else { 0.12 };
        experiment(
            store,
            "insert-10K",
            commits + commit,
            e,
            RUNS_PER_COMMIT,
            level,
            &mut rng,
        );
        e += 1;
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
        "{label}: median {:.1} ms (min {:.1}, max {:.1}) over {REPETITIONS} repetitions, {} KiB of HTML",
        seconds[REPETITIONS / 2] * 1e3,
        seconds[0] * 1e3,
        seconds[REPETITIONS - 1] * 1e3,
        bytes / 1024
    );
}

fn main() {
    let experiments = size("PERFLAB_BENCH_EXPERIMENTS", 10_000);
    let commits = size("PERFLAB_BENCH_COMMITS", 1_000).min(experiments);
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("perflab.db");
    let started = Instant::now();
    fill(&Store::open(&path).expect("store"), experiments, commits);
    println!(
        "store of {experiments} experiments, a series of {commits} commits × {RUNS_PER_COMMIT} runs, filled in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let store = Store::open_read_only(&Location::File(path.clone()), "--store").expect("store");
    let site = Site::new(store, CommandSource::default(), None);
    time("home page", || {
        let data = site.home(&HomeQuery::default()).expect("home");
        home_page(&site, &data).into_string().len()
    });
    let query = SeriesQuery {
        name: Some("insert-10K".into()),
        metric: Some("wall".into()),
        variant: Some("run".into()),
        host: Some("bench".into()),
        page: None,
    };
    time("series page", || {
        let data = site.series(&query).expect("series");
        series_page(&site, &data).into_string().len()
    });
}
