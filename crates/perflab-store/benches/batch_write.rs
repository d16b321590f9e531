//! What writing a batch of runs costs in a store that already holds many:
//! a store file in a temporary folder is filled with `FILL` runs (300,000
//! unless `PERFLAB_BATCH_WRITE_FILL` says otherwise), written as perflab
//! writes them, then `BATCHES` batches of 64 runs are added one after the
//! other and each batch's write is timed. Prints the median, 90th
//! percentile and largest write, and the median per run.
//!
//! Run: `cargo bench -p perflab-store --bench batch_write`
//!
//! Why a full store: a batch's cost depends on the pages its rows touch,
//! and the store's indexes grow with every run it keeps. A long-lived store
//! holds hundreds of thousands of runs.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use perflab_format::vocabulary::ExperimentKind;
use perflab_runner::{ExitState, MetricValue, RunOutcome};
use perflab_store::provenance::Provenance;
use perflab_store::{RunBatch, RunPlace, Store, VariantRecord};

/// Runs in a batch: as many as `RunBatch` holds before it writes them.
const BATCH: usize = 64;
const BATCHES: usize = 40;

/// A run as a fast command's: its wall, CPU and memory, and two metrics.
fn outcome(sequence: usize) -> RunOutcome {
    let metric = |value: f64, unit: &str| MetricValue {
        value,
        unit: unit.to_string(),
    };
    let metrics = BTreeMap::from([
        ("cpu-wait".to_string(), metric(1e-5, "s")),
        ("cpu-wait-full".to_string(), metric(2e-6, "s")),
    ]);
    RunOutcome {
        wall_s: 0.0007 + (sequence % 7) as f64 * 1e-6,
        user_s: 0.0002,
        sys_s: 0.0003,
        peak_memory_kib: 880.0,
        exit: ExitState::Code(0),
        unreadable_metrics: BTreeMap::new(),
        metrics,
        output_tail: String::new(),
        profile_json: None,
        answer: None,
        containment: Default::default(),
    }
}

/// An experiment of one variant whose runs go into `batch`.
struct Experiment<'s> {
    id: i64,
    variant: i64,
    batch: RunBatch<'s>,
}

impl<'s> Experiment<'s> {
    fn begin(store: &'s Store, name: &str) -> Self {
        let variant = VariantRecord {
            name: "a",
            command: "true",
            env: &[],
            cwd: None,
        };
        let provenance = Provenance::collect(Path::new("."));
        let (id, variants) = store
            .begin_experiment(
                ExperimentKind::Run,
                Some(name),
                None,
                &provenance,
                "{}",
                &[variant],
            )
            .expect("the experiment begins");
        Self {
            id,
            variant: variants[0],
            batch: RunBatch::new(store),
        }
    }

    /// Adds its run `sequence` (from 0); the batch is written when full.
    fn add(&mut self, sequence: usize) {
        let place = RunPlace {
            experiment_id: self.id,
            variant_id: self.variant,
            sequence: sequence + 1,
            iteration: sequence,
            warmup: false,
        };
        self.batch
            .add(place, &outcome(sequence))
            .expect("the run is stored");
    }
}

fn main() {
    let fill: usize = std::env::var("PERFLAB_BATCH_WRITE_FILL")
        .ok()
        .map(|n| {
            n.parse()
                .expect("PERFLAB_BATCH_WRITE_FILL is a number of runs")
        })
        .unwrap_or(300_000);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("perflab.db");
    let started = Instant::now();
    {
        let store = Store::open(&path).expect("the store opens");
        let mut experiment = Experiment::begin(&store, "fill");
        for sequence in 0..fill {
            experiment.add(sequence);
        }
        experiment.batch.write().expect("the runs are stored");
    }
    eprintln!(
        "filled the store with {fill} runs in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // Opened again, as the next perflab command opens it: nothing of the
    // store in SQLite's own cache.
    let store = Store::open(&path).expect("the store opens again");
    let mut experiment = Experiment::begin(&store, "timed");
    let mut writes: Vec<Duration> = Vec::with_capacity(BATCHES);
    for round in 0..BATCHES {
        let first = round * BATCH;
        for sequence in first..first + BATCH - 1 {
            experiment.add(sequence);
        }
        // The batch's last run: adding it writes the batch, as a run that
        // fills it does in perflab.
        let start = Instant::now();
        experiment.add(first + BATCH - 1);
        writes.push(start.elapsed());
    }
    writes.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let median = writes[BATCHES / 2];
    let size_mib = std::fs::metadata(&path).map_or(0.0, |m| m.len() as f64 / (1 << 20) as f64);
    println!(
        "batch write: {BATCH} runs into a store of {fill} runs ({size_mib:.0} MiB): median {:.0} µs \
         ({:.1} µs a run), 90th percentile {:.0} µs, largest {:.0} µs ({BATCHES} batches)",
        us(median),
        us(median) / BATCH as f64,
        us(writes[BATCHES * 9 / 10]),
        us(writes[BATCHES - 1]),
    );
}
