//! `perflab sweep` flags.

use clap::Args;

use super::{MachineArgs, RunOptions};
use crate::error::Result;
use crate::sweep::Sweep;
use crate::sweep::config::SweepSettings;

/// `perflab sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Command templates run at every point; `{NAME}` is replaced by the parameter's value.
    /// One command may instead follow `--` as several arguments, quoted for the shell.
    #[arg(value_name = "CMD", required_unless_present = "after_dashes")]
    pub commands: Vec<String>,
    /// One command template as several arguments after `--`.
    #[arg(last = true, value_name = "CMD ARGS")]
    pub after_dashes: Vec<String>,
    /// A parameter and its values: a list (n=1000,10000 or mode=fast,slow) or a range
    /// (n=1K..100K:x10 geometric, t=1..8 or t=1..8:+2 arithmetic). Repeatable: several
    /// parameters give their cross product.
    #[arg(
        short = 'p',
        long = "param",
        value_name = "NAME=VALUES",
        required = true
    )]
    pub params: Vec<String>,
    /// A reference command template (e.g. another library running the same workload):
    /// every point shows each command's ratio to it, with its interval.
    #[arg(long, value_name = "CMD")]
    pub reference: Option<String>,
    /// Names of the commands, in order (repeatable) [default: the program's name].
    #[arg(long = "command-name", value_name = "NAME")]
    pub command_names: Vec<String>,
    /// Name of the reference command.
    #[arg(long, value_name = "NAME", default_value = "reference")]
    pub reference_name: String,
    /// Name of the sweep, for `perflab history` and reports.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Environment for every run: KEY=VALUE, where VALUE may use {NAME}. Repeatable.
    #[arg(long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// The metric measured at each point: wall, cpu, peak-memory, or a metric name.
    #[arg(long, value_name = "METRIC", default_value = "wall")]
    pub measure: String,
    /// Whether higher or lower values of the metric are better (needed for extracted metrics)
    /// [default: lower for the built-in metrics].
    #[arg(long, value_name = "higher|lower")]
    pub better: Option<String>,
    /// The parameter that is the size of the work, for the per-item cost, the growth
    /// exponent and cliffs [default: a parameter named n or size].
    #[arg(long, value_name = "NAME")]
    pub size: Option<String>,
    /// The metric is already per item (e.g. ns/op): do not divide it by the size.
    #[arg(long)]
    pub per_item: bool,
    /// Stop a point once every interval shown for it is this narrow (relative half-width).
    #[arg(long, value_name = "PERCENT", default_value = "2%")]
    pub precision: String,
    /// Flag a cliff where the per-item cost jumps by more than this beyond the curve's trend,
    /// after allowing for both points' intervals.
    #[arg(long, value_name = "PERCENT", default_value = "25%")]
    pub cliff: String,
    /// Confidence level of the intervals.
    #[arg(long, value_name = "LEVEL", help = super::defaults::sweep_confidence())]
    pub confidence: Option<f64>,
    /// Runs of each command at each point before a point may stop.
    #[arg(long, value_name = "N", help = super::defaults::sweep_min_runs())]
    pub min_runs: Option<usize>,
    /// Runs of each command at each point at most.
    #[arg(long, value_name = "N", help = super::defaults::sweep_max_runs())]
    pub max_runs: Option<usize>,
    /// Stop the whole sweep after this long (e.g. 10m), once every point has its --min-runs;
    /// points still imprecise are marked so [default: no limit].
    #[arg(long, value_name = "DURATION")]
    pub max_time: Option<String>,
    /// Seed of the visiting order (for reproducing a schedule) [default: random, printed in the
    /// result].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// The contention rule: a block is a point's commands, run once each.
    #[command(flatten)]
    pub contention: super::ContentionArgs,
    /// The shared run options.
    #[command(flatten)]
    pub run: RunOptions,
    /// --shield and --wait-quiet.
    #[command(flatten)]
    pub machine: MachineArgs,
}

impl From<&SweepArgs> for SweepSettings {
    fn from(args: &SweepArgs) -> Self {
        SweepSettings {
            commands: args.commands.clone(),
            params: args.params.clone(),
            reference: args.reference.clone(),
            command_names: args.command_names.clone(),
            reference_name: args.reference_name.clone(),
            name: args.name.clone(),
            env: args.env.clone(),
            measure: args.measure.clone(),
            better: args.better.clone(),
            size: args.size.clone(),
            per_item: args.per_item,
            precision: args.precision.clone(),
            cliff: args.cliff.clone(),
            confidence: args.confidence,
            min_runs: args.min_runs,
            max_runs: args.max_runs,
            max_time: args.max_time.clone(),
            seed: args.seed,
            max_cpu_wait: args.contention.max_cpu_wait.clone(),
            trace: args.run.trace.clone(),
            warmup: args.run.warmup,
            timeout: args.run.timeout.clone(),
            metrics: args.run.metrics.clone(),
            ignore_failure: args.run.ignore_failure,
            keep_children: args.run.keep_children,
            output: args.run.output(),
            no_shell: args.run.no_shell,
            cwd: args.run.cwd.clone(),
            shield: args.machine.shield.clone(),
            wait_quiet: args.machine.wait_quiet.clone().map(|threshold| {
                threshold.unwrap_or_else(|| {
                    format!(
                        "{}%",
                        100.0 * crate::machine::pressure::DEFAULT_QUIET_PRESSURE
                    )
                })
            }),
        }
    }
}

impl SweepArgs {
    /// The validated sweep these flags describe.
    pub fn sweep(&self) -> Result<Sweep> {
        Sweep::from_settings(&SweepSettings::from(self))
    }
}
