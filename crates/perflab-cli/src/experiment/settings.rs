//! Settings as given (every field optional), merged from the experiment file
//! and the flags, then validated into an [`Experiment`] with defaults.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use perflab_runner::{CommandLine, INSTRUCTIONS, MetricExtractor};
use perflab_stats::{Better, Thresholds};
use regex::Regex;

use super::duet::duet_cpus;
use super::guard_spec::{GuardSettings, parse_limit};
use super::pin::{PinSetting, checked_pin};
use super::shielding::{QuietSetting, checked_wait_quiet, pin_within_shield};
use super::{
    COUNTED_MAX_RUNS, COUNTED_MIN_RUNS, DEFAULT_CONFIDENCE, DEFAULT_MAX_RUNS, DEFAULT_MIN_RUNS,
    Experiment, Guard, MaxCpuWait, MetricChoice, RunLimits, Variant,
};
use crate::error::{Error, Result};
use crate::expectations::Expectations;
use perflab_report::units::{format_percent, parse_duration, parse_percent};

/// A variant as given, before defaults.
#[derive(Debug, Clone, Default)]
pub struct VariantSettings {
    /// Name, if given.
    pub name: Option<String>,
    /// Command text.
    pub command: Option<String>,
    /// Environment overrides.
    pub env: Vec<(String, String)>,
    /// Working directory.
    pub cwd: Option<PathBuf>,
    /// The git revision to check out, build and run (its worktree becomes the working directory).
    pub rev: Option<String>,
    /// Where it was given (`file:line:column`), for errors.
    pub at: Option<String>,
}

/// A `[[scenario]]` of a suite file, as given.
#[derive(Debug, Clone, Default)]
pub struct ScenarioSettings {
    /// Its name in tables.
    pub name: String,
    /// Command for the variants that have none of their own.
    pub command: Option<String>,
    /// What `{args}` in a cell's command stands for.
    pub args: Option<String>,
    /// Environment of its runs (a variant's own is set on top).
    pub env: Vec<(String, String)>,
    /// What its runs must show (`expect = { ... }`), if given.
    pub expect: Option<Expectations>,
    /// Where it was given (`file:line:column`), for errors.
    pub at: String,
}

/// Settings from one source; `None` means "not said here".
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Experiment name.
    pub name: Option<String>,
    /// Metric name.
    pub measure: Option<String>,
    /// Direction of the metric.
    pub better: Option<Better>,
    /// GO threshold (fraction).
    pub go: Option<f64>,
    /// NO-GO threshold (fraction).
    pub nogo: Option<f64>,
    /// Confidence level.
    pub confidence: Option<f64>,
    /// Minimum runs per variant.
    pub min_runs: Option<usize>,
    /// Maximum runs per variant.
    pub max_runs: Option<usize>,
    /// Time limit for the experiment.
    pub max_time: Option<Duration>,
    /// Warm-up runs per variant.
    pub warmup: Option<usize>,
    /// Per-run timeout.
    pub timeout: Option<Duration>,
    /// Run through `sh -c`.
    pub shell: Option<bool>,
    /// Working directory for every variant without its own.
    pub cwd: Option<PathBuf>,
    /// Keep going on failed runs.
    pub ignore_failure: Option<bool>,
    /// Leave the processes a command left running.
    pub keep_children: Option<bool>,
    /// Where the runs' stdout and stderr go.
    pub output: Option<perflab_runner::Output>,
    /// Extracted metrics.
    pub metrics: Vec<(String, Regex)>,
    /// Guards as given.
    pub guards: Vec<GuardSettings>,
    /// The two variants (or none, if this source does not name them); a
    /// suite's two or more, the baseline first.
    pub variants: Vec<VariantSettings>,
    /// A suite's scenarios (none: a plain A/B experiment).
    pub scenarios: Vec<ScenarioSettings>,
    /// `--scenario`: run only these scenarios of a suite (none: all).
    pub only_scenarios: Vec<String>,
    /// Schedule seed.
    pub seed: Option<u64>,
    /// Read performance counters of every run.
    pub perf_events: Option<bool>,
    /// Variables passed to counted runs, whose environment is otherwise cleared.
    pub keep_env: Vec<String>,
    /// What every measured run must show (`expect = { ... }`).
    pub expect: Option<Expectations>,
    /// The command that builds a revision, in its worktree.
    pub build: Option<String>,
    /// The CPUs to pin runs to.
    pub pin: Option<PinSetting>,
    /// Start A and B together, each on a CPU of its own.
    pub duet: Option<bool>,
    /// The CPUs to shield for the runs.
    pub shield: Option<PinSetting>,
    /// Wait for a quiet machine before each block, below this CPU pressure.
    pub wait_quiet: Option<QuietSetting>,
    /// The contention rule's threshold, or off.
    pub max_cpu_wait: Option<MaxCpuWait>,
    /// Where instrumented runs write their traces (`--trace`).
    pub trace: Option<PathBuf>,
}

/// The thresholds and confidence level with their defaults, checked.
pub fn validated_decision(
    go: Option<f64>,
    nogo: Option<f64>,
    confidence: Option<f64>,
) -> Result<(Thresholds, f64)> {
    let defaults = Thresholds::default();
    let (go, nogo) = (go.unwrap_or(defaults.go), nogo.unwrap_or(defaults.nogo));
    // The statistics crate speaks in fractions; the user typed percentages.
    let thresholds = Thresholds::new(go, nogo).map_err(|_| {
        let stated = format!(
            "--go {} and --nogo {}",
            format_percent(go),
            format_percent(nogo)
        );
        let fix = if nogo <= -1.0 {
            "--nogo must be above -100% (a change cannot be worse than that)"
        } else {
            "--nogo must be below --go, for example --go 1% --nogo -0.5% (the defaults)"
        };
        Error::usage("--go/--nogo", format!("{stated}: {fix}"))
    })?;
    let confidence = confidence.unwrap_or(DEFAULT_CONFIDENCE);
    if !(confidence > 0.5 && confidence < 1.0) {
        return Err(Error::usage(
            "--confidence",
            format!("{confidence} is not a level between 0.5 and 1 (e.g. 0.95)"),
        ));
    }
    Ok((thresholds, confidence))
}

/// Parses `higher` or `lower`.
pub fn parse_better(text: &str, flag: &str) -> Result<Better> {
    match text.trim().to_ascii_lowercase().as_str() {
        "higher" | "high" | "more" => Ok(Better::Higher),
        "lower" | "low" | "less" => Ok(Better::Lower),
        other => Err(Error::usage(
            flag,
            format!("'{other}' is neither 'higher' nor 'lower'"),
        )),
    }
}

/// Parses `KEY=VALUE`.
pub fn parse_env(text: &str, flag: &str) -> Result<(String, String)> {
    match text.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(Error::usage(flag, format!("'{text}' is not KEY=VALUE"))),
    }
}

/// Parses a guard `METRIC:LIMIT[+FLOOR][:higher|lower]`, e.g.
/// `peak-memory:5%` or `peak-memory:10%+8MiB`.
///
/// # Errors
/// A usage error of `--guard` saying what is wrong, with an example.
pub fn parse_guard(text: &str) -> Result<GuardSettings> {
    let parts: Vec<&str> = text.split(':').collect();
    let (metric, limit, better) = match parts.as_slice() {
        [m, l] => (*m, *l, None),
        [m, l, b] => (*m, *l, Some(parse_better(b, "--guard")?)),
        _ => {
            return Err(Error::usage(
                "--guard",
                format!(
                    "'{text}' is not METRIC:LIMIT[+FLOOR]; write e.g. peak-memory:5% or peak-memory:10%+8MiB"
                ),
            ));
        }
    };
    if metric.is_empty() {
        return Err(Error::usage(
            "--guard",
            format!("'{text}' names no metric; write e.g. peak-memory:10%+8MiB"),
        ));
    }
    let (max_worsening, floor) = parse_limit(limit, metric)
        .map_err(|m| Error::usage("--guard", format!("'{text}': {m}")))?;
    Ok(GuardSettings {
        metric: metric.to_string(),
        max_worsening,
        floor,
        better,
    })
}

/// The value of a percentage flag, if given (`flag` names it in errors).
pub fn percent_flag(value: &Option<String>, flag: &str) -> Result<Option<f64>> {
    value
        .as_deref()
        .map(|v| parse_percent(v).map_err(|e| Error::usage(flag, e)))
        .transpose()
}

/// The value of a duration flag, if given (`flag` names it in errors).
pub fn duration_flag(value: &Option<String>, flag: &str) -> Result<Option<Duration>> {
    value
        .as_deref()
        .map(|v| parse_duration(v).map_err(|e| Error::usage(flag, e)))
        .transpose()
}

impl Settings {
    /// These settings with `over`'s given values taking precedence.
    pub fn overlay(mut self, over: Settings) -> Self {
        macro_rules! take {
            ($($field:ident),*) => { $( if over.$field.is_some() { self.$field = over.$field; } )* };
        }
        take!(
            name,
            measure,
            better,
            go,
            nogo,
            confidence,
            min_runs,
            max_runs,
            max_time,
            warmup,
            timeout,
            shell,
            cwd,
            ignore_failure,
            keep_children,
            output,
            seed,
            perf_events,
            expect,
            build,
            pin,
            duet,
            shield,
            wait_quiet,
            max_cpu_wait,
            trace
        );
        self.metrics.extend(over.metrics);
        self.keep_env.extend(over.keep_env);
        self.guards.extend(over.guards);
        self.scenarios.extend(over.scenarios);
        self.only_scenarios.extend(over.only_scenarios);
        if self.variants.is_empty() {
            self.variants = over.variants;
        } else {
            for (mine, theirs) in self.variants.iter_mut().zip(over.variants) {
                if theirs.name.is_some() {
                    mine.name = theirs.name;
                }
                if theirs.command.is_some() {
                    mine.command = theirs.command;
                }
                mine.env.extend(theirs.env);
                if theirs.cwd.is_some() {
                    mine.cwd = theirs.cwd;
                }
                if theirs.rev.is_some() {
                    mine.rev = theirs.rev;
                }
            }
        }
        self
    }

    /// Validates and fills in defaults.
    pub fn into_experiment(self) -> Result<Experiment> {
        if self.variants.len() != 2 || self.variants.iter().any(|v| v.command.is_none()) {
            return Err(Error::usage(
                "CMD",
                "perflab ab needs a baseline and a candidate: give two commands ('CMD_A' 'CMD_B'), \
                 one command with --env-a/--env-b, or -f perflab.toml with two [[variant]] tables",
            ));
        }
        if !self.only_scenarios.is_empty() {
            return Err(Error::usage(
                "--scenario",
                "this experiment has no [[scenario]] tables; --scenario picks scenarios of a suite file (-f suite.toml)",
            ));
        }
        let shell = self.shell.unwrap_or(true);
        let variants = self
            .variants
            .iter()
            .enumerate()
            .map(|(i, v)| {
                Ok(Variant {
                    name: v.name.clone().unwrap_or_else(|| ["A", "B"][i].to_string()),
                    command: CommandLine::new(v.command.as_deref().unwrap_or_default(), shell)?,
                    env: v.env.clone(),
                    cwd: v.cwd.clone().or_else(|| self.cwd.clone()),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        if variants[0].name == variants[1].name {
            return Err(Error::usage(
                "--name-a/--name-b",
                format!(
                    "both variants are named '{}'; give them different names",
                    variants[0].name
                ),
            ));
        }
        self.with_variants(variants)
    }

    /// Validates everything but the variants, fills in defaults, and makes
    /// the experiment of `variants` (already checked by the caller).
    pub fn with_variants(self, variants: Vec<Variant>) -> Result<Experiment> {
        let (thresholds, confidence) = validated_decision(self.go, self.nogo, self.confidence)?;
        // Instruction counts of a deterministic program repeat exactly: two
        // runs per variant show that they do (and then decide), one is
        // allowed when the user vouches for it. Runs under valgrind are
        // slow, so fewer are made at most.
        let counting = self.measure.as_deref() == Some(INSTRUCTIONS);
        let min_runs = self.min_runs.unwrap_or(if counting {
            COUNTED_MIN_RUNS
        } else {
            DEFAULT_MIN_RUNS
        });
        let max_runs = self.max_runs.unwrap_or(
            if counting {
                COUNTED_MAX_RUNS
            } else {
                DEFAULT_MAX_RUNS
            }
            .max(min_runs),
        );
        if min_runs < 2 && !(counting && min_runs == 1) {
            return Err(Error::usage(
                "--min-runs",
                "at least 2 runs per variant are needed to estimate the noise \
                 (1 is allowed only with --measure instructions, for a deterministic program)",
            ));
        }
        if max_runs < min_runs {
            return Err(Error::usage(
                "--max-runs",
                format!(
                    "{max_runs} is below --min-runs {min_runs}; raise --max-runs or lower --min-runs"
                ),
            ));
        }
        if min_runs == 1 && !self.guards.is_empty() {
            return Err(Error::usage(
                "--min-runs",
                "one run per variant cannot check a guard; use --min-runs 2 or more, or drop --guard",
            ));
        }
        let metric = MetricChoice::resolve(
            self.measure.as_deref().unwrap_or("wall"),
            self.better,
            "--better",
        )?;
        let guards = self
            .guards
            .into_iter()
            .map(|g| {
                Ok(Guard {
                    metric: MetricChoice::resolve(&g.metric, g.better, "--guard")?,
                    max_worsening: g.max_worsening,
                    floor: g.floor,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let counted = std::iter::once(&metric)
            .chain(guards.iter().map(|g| &g.metric))
            .any(|m| m.name == INSTRUCTIONS);
        if !counted && !self.keep_env.is_empty() {
            return Err(Error::usage(
                "--keep-env",
                "only counted runs have a cleared environment; add --measure instructions, or drop --keep-env",
            ));
        }
        let pin = self.pin.map(checked_pin).transpose()?;
        let shield = self.shield;
        let pin = match &shield {
            Some(shield) => Some(pin_within_shield(pin, shield)?),
            None => pin,
        };
        let wait_quiet = self.wait_quiet.map(checked_wait_quiet).transpose()?;
        let duet = match self.duet {
            Some(true) => Some(duet_cpus(
                pin.as_ref(),
                counted,
                self.perf_events == Some(true),
            )?),
            _ => None,
        };
        let output = self.output.unwrap_or_default();
        if output != perflab_runner::Output::Pipe {
            let printed = std::iter::once(&metric)
                .chain(guards.iter().map(|g| &g.metric))
                .find(|m| perflab_runner::builtin_metric(&m.name).is_none());
            if let Some(m) = printed {
                return Err(Error::usage(
                    "--output",
                    format!(
                        "'{}' is read from the runs' output, which --output {} leaves unread; \
                         keep --output pipe (the default) to measure it",
                        m.name,
                        output.describe()
                    ),
                ));
            }
        }
        Ok(Experiment {
            name: self.name,
            variants,
            metric,
            guards,
            thresholds,
            confidence,
            limits: RunLimits {
                min_runs,
                max_runs,
                max_time: self.max_time,
                warmup: self.warmup.unwrap_or(if counting { 0 } else { 1 }),
                timeout: self.timeout,
                // Instruction counts do not suffer from waiting for a CPU:
                // the rule is off for them unless asked for.
                max_cpu_wait: match self.max_cpu_wait {
                    None if counting => None,
                    setting => MaxCpuWait::threshold(setting),
                },
            },
            extractor: Arc::new(MetricExtractor::from_pairs(self.metrics)),
            planned_runs: None,
            ignore_failure: self.ignore_failure.unwrap_or(false),
            keep_children: self.keep_children.unwrap_or(false),
            output,
            seed: self.seed,
            perf_events: self.perf_events.unwrap_or(false),
            keep_env: self.keep_env,
            expect: self.expect.unwrap_or_default(),
            pin,
            duet,
            shield,
            wait_quiet,
            trace_dir: self.trace,
        })
    }
}
