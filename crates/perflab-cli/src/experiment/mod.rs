//! A validated experiment: the variants, the metric the decision rests on,
//! thresholds, guards and run limits, from flags, from `perflab.toml`, or
//! both (flags win).

pub mod duet;
mod file;
pub mod guard_spec;
pub mod limits;
pub mod pin;
pub mod settings;
pub mod shielding;
mod suite;

use std::path::PathBuf;
use std::sync::Arc;

use perflab_stats::{
    Better, ConfidenceSequence, GuardLimit, SequentialConfig, Thresholds, tuned_confidence_sequence,
};

pub use guard_spec::GuardSettings;
pub use limits::{MaxCpuWait, RunLimits};
pub use settings::{Settings, parse_better, parse_env, parse_guard, validated_decision};

use perflab_runner::{CommandLine, MetricExtractor, builtin_metric};

/// The decision defaults are perflab-stats' (the procedure the simulation
/// validates); instruction counts of a deterministic program repeat exactly,
/// so they take the defaults for exact measurements (slow under valgrind).
pub use perflab_stats::{
    DEFAULT_CONFIDENCE, DEFAULT_MAX_RUNS, DEFAULT_MIN_RUNS, EXACT_MAX_RUNS as COUNTED_MAX_RUNS,
    EXACT_MIN_RUNS as COUNTED_MIN_RUNS,
};

/// One side of a comparison.
#[derive(Debug, Clone)]
pub struct Variant {
    /// Its name in tables ("A", "baseline", ...).
    pub name: String,
    /// What to run.
    pub command: CommandLine,
    /// Environment variables set for its runs only.
    pub env: Vec<(String, String)>,
    /// Its working directory.
    pub cwd: Option<PathBuf>,
}

/// The metric a decision rests on, and which direction is better.
#[derive(Debug, Clone)]
pub struct MetricChoice {
    /// `wall`, `cpu`, `peak-memory` or an extracted metric's name.
    pub name: String,
    /// Whether higher or lower is better.
    pub better: Better,
    /// Unit for printing (`s`, `KiB`, or as the program printed it).
    pub unit: String,
}

impl MetricChoice {
    /// Resolves a metric name; extracted metrics must say which way is better.
    pub fn resolve(name: &str, better: Option<Better>, flag: &str) -> crate::Result<Self> {
        if let Some((_, unit)) = builtin_metric(name) {
            return Ok(Self {
                name: name.to_string(),
                better: better.unwrap_or(Better::Lower),
                unit: unit.to_string(),
            });
        }
        if let Some(builtin) = close_builtin(name) {
            return Err(crate::Error::usage(
                flag.replace("--better", "--measure"),
                format!(
                    "unknown metric '{name}'; did you mean '{builtin}'? Built in: wall, cpu, user, sys, peak-memory; \
                     any other name must come from PERFLAB_METRIC lines or a --metric pattern"
                ),
            ));
        }
        let Some(better) = better else {
            return Err(crate::Error::usage(
                flag,
                format!(
                    "metric '{name}' is not built in, so perflab cannot know which way is better; \
                     add --better higher (throughput) or --better lower (latency, size)"
                ),
            ));
        };
        Ok(Self {
            name: name.to_string(),
            better,
            unit: String::new(),
        })
    }

    /// A readable name with its direction, e.g. "wall time (lower is better)".
    pub fn describe(&self) -> String {
        let label = builtin_metric(&self.name).map_or(self.name.as_str(), |(label, _)| label);
        let direction = match self.better {
            Better::Higher => "higher",
            Better::Lower => "lower",
        };
        format!("{label} ({direction} is better)")
    }
}

/// A built-in metric name within two edits of `name`, for "did you mean".
fn close_builtin(name: &str) -> Option<&'static str> {
    ["wall", "cpu", "user", "sys", "peak-memory"]
        .into_iter()
        .find(|b| strsim::levenshtein(b, name) <= 2 && name.len() > 2)
}

/// A metric that may veto a GO if it worsens by more than a limit.
#[derive(Debug, Clone)]
pub struct Guard {
    /// The metric watched.
    pub metric: MetricChoice,
    /// The largest worsening allowed, as a fraction of the baseline's
    /// value (0.05 = 5%).
    pub max_worsening: f64,
    /// The absolute floor in the metric's unit, if any: the metric may
    /// worsen by the larger of the two allowances.
    pub floor: Option<f64>,
}

impl Guard {
    /// The guard as the decision procedure takes it.
    pub fn limit(&self) -> GuardLimit {
        GuardLimit {
            better: self.metric.better,
            max_worsening: self.max_worsening,
            floor: self.floor,
        }
    }
}

/// Everything `perflab ab` needs to run and decide.
#[derive(Debug, Clone)]
pub struct Experiment {
    /// A name for the history, if given.
    pub name: Option<String>,
    /// Baseline first, candidate second.
    pub variants: Vec<Variant>,
    /// The metric the decision rests on.
    pub metric: MetricChoice,
    /// Metrics that may veto a GO.
    pub guards: Vec<Guard>,
    /// GO and NO-GO thresholds.
    pub thresholds: Thresholds,
    /// Confidence level of the interval.
    pub confidence: f64,
    /// Runs per variant before the first decision and at most, the time
    /// limit, warm-up runs and the per-run timeout.
    pub limits: RunLimits,
    /// Metric patterns for the output.
    pub extractor: Arc<MetricExtractor>,
    /// Keep going when a run fails.
    pub ignore_failure: bool,
    /// Leave the processes a command left running instead of ending them.
    pub keep_children: bool,
    /// Where the runs' stdout and stderr go.
    pub output: perflab_runner::Output,
    /// Seed of the schedule.
    pub seed: Option<u64>,
    /// Read performance counters of every run (`perf.*` metrics).
    pub perf_events: bool,
    /// Variables passed to counted runs, whose environment is otherwise cleared.
    pub keep_env: Vec<String>,
    /// What every measured run must show; empty when nothing is expected.
    pub expect: crate::expectations::Expectations,
    /// The CPUs every run is pinned to (checked against the allowed ones;
    /// under a shield, the shielded CPUs unless `--pin` names some of them).
    pub pin: Option<perflab_runner::CpuSet>,
    /// The CPUs shielded for the runs (`--shield`), with where they were
    /// given; the command raises the shield around the runs.
    pub shield: Option<pin::PinSetting>,
    /// Before each block, wait until the machine's CPU pressure is below
    /// this fraction (`--wait-quiet`).
    pub wait_quiet: Option<f64>,
    /// Where instrumented runs write their traces, one file per run (`--trace`).
    pub trace_dir: Option<PathBuf>,
    /// In duet mode, the two CPUs A and B run on (swapped every block).
    pub duet: Option<[usize; 2]>,
    /// An A/B planned to decide by this many pairs, which goes on to the run
    /// limit only while its projection puts a verdict within it (the reach
    /// rule of perflab-stats' [`SequentialConfig::planned`]): a confirming
    /// A/B of `perflab history --confirm`. None for every other experiment.
    pub planned_runs: Option<usize>,
}

impl Experiment {
    /// The metrics every measured run must report: the decision's, then the guards'.
    pub fn measured_metrics(&self) -> impl Iterator<Item = &MetricChoice> {
        std::iter::once(&self.metric).chain(self.guards.iter().map(|g| &g.metric))
    }

    /// True when the decision or a guard rests on instruction counts: the
    /// runs then go under callgrind.
    pub fn counts_instructions(&self) -> bool {
        self.measured_metrics()
            .any(|m| m.name == perflab_runner::INSTRUCTIONS)
    }

    /// The sequential procedure this experiment decides with: perflab-stats'
    /// [`SequentialConfig::tuned`], the one the simulation benchmark validates,
    /// with the confidence sequence tightest at this experiment's run limit
    /// (or, for a planned A/B, [`SequentialConfig::planned`]: tightest at the
    /// plan, with the reach rule).
    /// `--min-runs 1` (exact counts) is handled before it, from 2 pairs on.
    pub fn sequential_config(&self) -> SequentialConfig {
        let min_runs = self.limits.min_runs.max(2);
        let config = SequentialConfig::tuned(
            self.metric.better,
            self.thresholds,
            self.confidence,
            min_runs,
            self.limits.max_runs.max(min_runs),
        );
        match self.planned_runs {
            Some(planned) => config.planned(planned),
            None => config,
        }
    }

    /// The confidence sequence of every interval of this experiment (the
    /// decision, its guards, span changes): tuned to its run limit.
    pub fn confidence_sequence(&self) -> crate::Result<ConfidenceSequence> {
        Ok(tuned_confidence_sequence(
            self.confidence,
            self.sequential_config().optimise_at,
        )?)
    }
}

pub use file::{parse_experiment, read_experiment_file};
pub use suite::{Scenario, Suite};
