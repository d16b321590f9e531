//! `perflab profile` flags (clap only).

use std::path::PathBuf;

use clap::Args;

/// `perflab profile`.
#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// The program to profile and its arguments, after `--`; run directly, not through a shell
    /// (write `-- sh -c '...'` for a pipeline).
    #[arg(
        value_name = "CMD",
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub command: Vec<String>,
    /// Profile this baseline command too (one string, split on white space) and show which
    /// functions' shares moved from it to CMD, with a differential flame graph.
    #[arg(long, value_name = "CMD_A")]
    pub baseline: Option<String>,
    /// Also record where the threads were off the CPU: every switch off and back on a CPU,
    /// with the stack it left from, as preempted (still runnable) or blocked (sleep, I/O,
    /// locks, channels); the flame graph then shows wall time, on- and off-CPU apart. Needs
    /// root, or kernel.perf_event_paranoid=-1 and a readable tracefs.
    #[arg(long)]
    pub off_cpu: bool,
    /// Samples per second of CPU time.
    #[arg(short = 'F', long, value_name = "HZ", default_value_t = 999)]
    pub frequency: u32,
    /// Stack unwinding: fp (frame pointers: cheap, needs code built with them, e.g. C with
    /// -fno-omit-frame-pointer, Rust with -C force-frame-pointers=yes; the caller of a leaf
    /// function that sets up no frame of its own is skipped) or dwarf (works without frame
    /// pointers and sees inlined frames; larger and slower).
    #[arg(long, value_name = "fp|dwarf", default_value = "fp")]
    pub call_graph: String,
    /// Functions shown, by self and by inclusive share.
    #[arg(long, value_name = "N", default_value_t = 15)]
    pub top: usize,
    /// Confidence level of the intervals.
    #[arg(long, value_name = "LEVEL", default_value_t = perflab_stats::DEFAULT_CONFIDENCE)]
    pub confidence: f64,
    /// The flame graph SVG [default: flamegraph.svg, or flamegraph-diff.svg with --baseline].
    #[arg(long, value_name = "PATH")]
    pub svg: Option<PathBuf>,
    /// Do not write a flame graph.
    #[arg(long, conflicts_with = "svg")]
    pub no_svg: bool,
    /// Also write the profile for speedscope (speedscope.app; the Firefox Profiler imports it):
    /// each profiled command's stacks, in samples, or in microseconds of wall time with --off-cpu.
    #[arg(long, value_name = "PATH")]
    pub speedscope: Option<PathBuf>,
    /// Also write the folded stacks (of CMD) to this file.
    #[arg(long, value_name = "PATH")]
    pub folded: Option<PathBuf>,
    /// Environment override: KEY=VALUE. Repeatable.
    #[arg(long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// A name for the history.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Kill a profiled run that takes longer than this (e.g. 30s, 2m) [default: no limit].
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
    /// Working directory of the runs.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Keep the profile of a run that exits with a non-zero status.
    #[arg(long)]
    pub ignore_failure: bool,
    /// Write the result as JSON.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
}
