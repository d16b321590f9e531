//! A validated sweep: its points, commands, metric, size parameter and
//! stopping rule, from the flags of `perflab sweep`.

use std::path::PathBuf;
use std::sync::Arc;

use perflab_runner::{CommandLine, MetricExtractor};

use super::params::{Parameter, Point, cross_product, parse_parameter};
use super::template::Template;
use crate::error::{Error, Result};
use crate::experiment::pin::PinSetting;
use crate::experiment::shielding::{checked_wait_quiet, parse_shield, parse_wait_quiet};
use crate::experiment::{MaxCpuWait, MetricChoice, RunLimits, parse_better, parse_env};
use perflab_report::units::{parse_duration, parse_percent};

/// The variant name of a command at a point, in messages and the store.
pub fn variant_name(command: &str, point_label: &str) -> String {
    format!("{command} {point_label}")
}

/// Default runs per command and point before a point may stop.
pub const DEFAULT_MIN_RUNS: usize = 5;
/// Default runs per command and point at most.
pub const DEFAULT_MAX_RUNS: usize = 30;

/// The settings of a sweep as given (texts not yet parsed, limits not yet
/// defaulted), from the flags of `perflab sweep` or built directly.
#[derive(Debug, Clone, Default)]
pub struct SweepSettings {
    /// Command templates run at every point.
    pub commands: Vec<String>,
    /// Parameters as NAME=VALUES.
    pub params: Vec<String>,
    /// The reference command template, if any.
    pub reference: Option<String>,
    /// Names of the commands, in order.
    pub command_names: Vec<String>,
    /// Name of the reference command.
    pub reference_name: String,
    /// Name of the sweep, for the history and reports.
    pub name: Option<String>,
    /// Environment templates as KEY=VALUE.
    pub env: Vec<String>,
    /// The metric measured.
    pub measure: String,
    /// `higher` or `lower`, if given.
    pub better: Option<String>,
    /// The size parameter, if given.
    pub size: Option<String>,
    /// The metric is already per item.
    pub per_item: bool,
    /// Target relative half-width, as a percentage text.
    pub precision: String,
    /// Cliff threshold, as a percentage text.
    pub cliff: String,
    /// Confidence level, if given.
    pub confidence: Option<f64>,
    /// Runs per command and point before a point may stop, if given.
    pub min_runs: Option<usize>,
    /// Runs per command and point at most, if given.
    pub max_runs: Option<usize>,
    /// Time limit of the whole sweep, as a duration text.
    pub max_time: Option<String>,
    /// Seed of the visiting order.
    pub seed: Option<u64>,
    /// The contention rule's threshold (`5%`, `off`), as given.
    pub max_cpu_wait: Option<String>,
    /// Where instrumented runs write their traces (`--trace`).
    pub trace: Option<PathBuf>,
    /// Warm-up runs, if given.
    pub warmup: Option<usize>,
    /// Per-run timeout, as a duration text.
    pub timeout: Option<String>,
    /// Metric patterns as NAME=REGEX.
    pub metrics: Vec<String>,
    /// Keep going when a run fails.
    pub ignore_failure: bool,
    /// Leave the processes a command left running instead of ending them.
    pub keep_children: bool,
    /// Where the runs' stdout and stderr go.
    pub output: perflab_runner::Output,
    /// Run commands directly instead of through `sh -c`.
    pub no_shell: bool,
    /// Working directory of the runs.
    pub cwd: Option<PathBuf>,
    /// The CPUs to shield for the runs, as a CPU list.
    pub shield: Option<String>,
    /// Wait for CPU pressure below this percentage before each block.
    pub wait_quiet: Option<String>,
}

/// One command run at every point.
#[derive(Debug, Clone)]
pub struct SweepCommand {
    /// Its name in tables.
    pub name: String,
    /// Its template.
    pub template: Template,
    /// True for the reference the others are compared with.
    pub is_reference: bool,
}

/// Everything `perflab sweep` needs to run.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// Name of the sweep, for the history and reports, if given.
    pub name: Option<String>,
    /// The parameters, in the order given.
    pub parameters: Vec<Parameter>,
    /// Their cross product.
    pub points: Vec<Point>,
    /// The commands; the reference, if any, is last.
    pub commands: Vec<SweepCommand>,
    /// Environment templates for every run.
    pub env: Vec<(String, Template)>,
    /// The metric measured.
    pub metric: MetricChoice,
    /// The size parameter, if any.
    pub size: Option<String>,
    /// The metric is already per item.
    pub per_item: bool,
    /// Target relative half-width of every interval of a point.
    pub precision: f64,
    /// Smallest jump (beyond the trend) reported as a cliff, as a fraction.
    pub cliff: f64,
    /// Confidence level.
    pub confidence: f64,
    /// Runs per command and point before a point may stop and at most, the
    /// time limit of the whole sweep, unmeasured runs per command at each
    /// point's first visit, and the per-run timeout.
    pub limits: RunLimits,
    /// Metric patterns.
    pub extractor: Arc<MetricExtractor>,
    /// Keep going when a run fails.
    pub ignore_failure: bool,
    /// Leave the processes a command left running instead of ending them.
    pub keep_children: bool,
    /// Where the runs' stdout and stderr go.
    pub output: perflab_runner::Output,
    /// Run through `sh -c`.
    pub shell: bool,
    /// Working directory of the runs.
    pub cwd: Option<PathBuf>,
    /// Seed of the visiting order.
    pub seed: Option<u64>,
    /// The CPUs shielded for the runs (`--shield`), which the runs are pinned to.
    pub shield: Option<PinSetting>,
    /// Before each block, wait until the machine's CPU pressure is below
    /// this fraction (`--wait-quiet`).
    pub wait_quiet: Option<f64>,
    /// Where instrumented runs write their traces, one file per run (`--trace`).
    pub trace_dir: Option<PathBuf>,
}

impl Sweep {
    /// The reference command's index, if there is one.
    pub fn reference(&self) -> Option<usize> {
        self.commands.iter().position(|c| c.is_reference)
    }

    /// Validates the settings of a sweep (errors name the flag at fault).
    pub fn from_settings(args: &SweepSettings) -> Result<Self> {
        let mut parameters: Vec<Parameter> = Vec::new();
        for spec in &args.params {
            let parameter = parse_parameter(spec)?;
            if parameters.iter().any(|p| p.name == parameter.name) {
                return Err(Error::usage(
                    format!("-p {spec}"),
                    format!(
                        "'{}' is given twice; give each parameter once",
                        parameter.name
                    ),
                ));
            }
            parameters.push(parameter);
        }
        let points = cross_product(&parameters)?;
        let known: Vec<&str> = parameters.iter().map(|p| p.name.as_str()).collect();
        let commands = commands(args)?;
        for command in &commands {
            command.template.check("CMD", &known)?;
        }
        let mut env = Vec::new();
        for text in &args.env {
            let (key, value) = parse_env(text, "--env")?;
            let template = Template::parse(&value);
            template.check("--env", &known)?;
            env.push((key, template));
        }
        for name in &known {
            let used = commands.iter().any(|c| c.template.names().contains(name))
                || env.iter().any(|(_, t)| t.names().contains(name));
            if !used {
                return Err(Error::usage(
                    format!("-p {name}"),
                    format!(
                        "no command uses {{{name}}}, so every value of '{name}' would run the same thing; add {{{name}}} to the command (or to an --env value) or drop -p {name}"
                    ),
                ));
            }
        }
        let size = size_parameter(args.size.as_deref(), &parameters)?;
        let better = args
            .better
            .as_deref()
            .map(|b| parse_better(b, "--better"))
            .transpose()?;
        let metric = MetricChoice::resolve(&args.measure, better, "--better")?;
        let percent = |text: &str, flag: &str| -> Result<f64> {
            let value = parse_percent(text).map_err(|e| Error::usage(flag, e))?;
            if value <= 0.0 {
                return Err(Error::usage(flag, format!("'{text}' must be above 0%")));
            }
            Ok(value)
        };
        let confidence = args.confidence.unwrap_or(perflab_stats::DEFAULT_CONFIDENCE);
        if !(0.5..1.0).contains(&confidence) || confidence <= 0.5 {
            return Err(Error::usage(
                "--confidence",
                format!("{confidence} is not a level between 0.5 and 1 (e.g. 0.95)"),
            ));
        }
        let min_runs = args.min_runs.unwrap_or(DEFAULT_MIN_RUNS);
        let max_runs = args.max_runs.unwrap_or(DEFAULT_MAX_RUNS.max(min_runs));
        if min_runs < 2 {
            return Err(Error::usage(
                "--min-runs",
                "at least 2 runs per point are needed to estimate the noise",
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
        let duration = |value: &Option<String>, flag: &str| {
            value
                .as_deref()
                .map(|v| parse_duration(v).map_err(|e| Error::usage(flag, e)))
                .transpose()
        };
        Ok(Sweep {
            name: args.name.clone(),
            parameters,
            points,
            commands,
            env,
            metric,
            size,
            per_item: args.per_item,
            precision: percent(&args.precision, "--precision")?,
            cliff: percent(&args.cliff, "--cliff")?,
            confidence,
            limits: RunLimits {
                min_runs,
                max_runs,
                max_time: duration(&args.max_time, "--max-time")?,
                warmup: args.warmup.unwrap_or(1),
                timeout: duration(&args.timeout, "--timeout")?,
                max_cpu_wait: MaxCpuWait::threshold(
                    args.max_cpu_wait
                        .as_deref()
                        .map(|text| MaxCpuWait::parse(text, "--max-cpu-wait"))
                        .transpose()?,
                ),
            },
            extractor: Arc::new(MetricExtractor::from_definitions(&args.metrics)?),
            ignore_failure: args.ignore_failure,
            keep_children: args.keep_children,
            output: args.output.clone(),
            shell: !args.no_shell,
            cwd: args.cwd.clone(),
            seed: args.seed,
            shield: args
                .shield
                .as_deref()
                .map(|s| parse_shield(s, "--shield"))
                .transpose()?,
            wait_quiet: args
                .wait_quiet
                .as_deref()
                .map(|t| checked_wait_quiet(parse_wait_quiet(t, "--wait-quiet")?))
                .transpose()?,
            trace_dir: args.trace.clone(),
        })
    }
}

fn commands(args: &SweepSettings) -> Result<Vec<SweepCommand>> {
    if args.command_names.len() > args.commands.len() {
        return Err(Error::usage(
            "--command-name",
            format!(
                "{} names for {} commands; give one --command-name per command, in order \
                 (--name names the whole sweep)",
                args.command_names.len(),
                args.commands.len()
            ),
        ));
    }
    let mut commands: Vec<SweepCommand> = args
        .commands
        .iter()
        .enumerate()
        .map(|(i, text)| SweepCommand {
            name: args
                .command_names
                .get(i)
                .cloned()
                .unwrap_or_else(|| program_name(text, i)),
            template: Template::parse(text),
            is_reference: false,
        })
        .collect();
    // Default names that clash (two commands starting with `sh`) fall back to numbers.
    let clashing: Vec<usize> = (args.command_names.len()..commands.len())
        .filter(|&i| {
            commands
                .iter()
                .enumerate()
                .any(|(j, c)| j != i && c.name == commands[i].name)
                || (args.reference.is_some() && commands[i].name == args.reference_name)
        })
        .collect();
    for i in clashing {
        commands[i].name = format!("command {}", i + 1);
    }
    if args.no_shell {
        // Checked before the sweep starts; each run splits its expanded text again.
        for text in args.commands.iter().chain(&args.reference) {
            CommandLine::new(text, false)?;
        }
    }
    if let Some(text) = &args.reference {
        commands.push(SweepCommand {
            name: args.reference_name.clone(),
            template: Template::parse(text),
            is_reference: true,
        });
    }
    for (i, command) in commands.iter().enumerate() {
        if command.name.trim().is_empty() {
            return Err(Error::usage("--name", "a command name is empty"));
        }
        if commands[..i].iter().any(|c| c.name == command.name) {
            let clash = if command.is_reference {
                "--reference-name"
            } else {
                "--name"
            };
            return Err(Error::usage(
                clash,
                format!(
                    "two commands are named '{}'; give each its own name with --name (in order) or --reference-name",
                    command.name
                ),
            ));
        }
    }
    Ok(commands)
}

/// The first word's file name (`./target/release/bench {n}` gives `bench`),
/// when the first word is a plain path; otherwise `command N`.
fn program_name(text: &str, index: usize) -> String {
    text.split_whitespace()
        .next()
        .filter(|w| {
            w.chars()
                .all(|c| c.is_alphanumeric() || "./_-+".contains(c))
        })
        .and_then(|w| w.rsplit('/').next())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| format!("command {}", index + 1))
}

fn size_parameter(flag: Option<&str>, parameters: &[Parameter]) -> Result<Option<String>> {
    match flag {
        Some(name) => {
            let Some(parameter) = parameters.iter().find(|p| p.name == name) else {
                return Err(Error::usage(
                    "--size",
                    format!("'{name}' is not a parameter; give it with -p {name}=VALUES"),
                ));
            };
            if !parameter.is_positive_numeric() {
                return Err(Error::usage(
                    "--size",
                    format!(
                        "the values of '{name}' are not all numbers above 0, so they cannot be a size"
                    ),
                ));
            }
            Ok(Some(name.to_string()))
        }
        None => Ok(parameters
            .iter()
            .find(|p| (p.name == "n" || p.name == "size") && p.is_positive_numeric())
            .map(|p| p.name.clone())),
    }
}
