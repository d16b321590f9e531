//! Starting perflab's measured runs: the [`Executor`] trait with a real,
//! process-based implementation ([`ProcessExecutor`]) and a deterministic
//! fake for tests ([`FakeExecutor`]), the capture of output and metric
//! extraction, resource usage from `wait4` and from the run's cgroups (its
//! whole tree's peak memory charge where a memory cgroup holds it,
//! [`PeakMemorySource`]), performance counters, instruction
//! counts under valgrind ([`InstructionExecutor`]) and the interleaving
//! [`Schedule`].
//!
//! Runs are started through `perflab-exec` where it is installed next to the
//! running program: its code is [`exec`], its conversation with perflab
//! [`protocol`]. The perflab command builds it as its `perflab-exec` binary.
//! The ways of starting a run, and which is used when, are described in the
//! `start` module.
#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod callgrind;
mod capture;
mod containment;
mod cpu_set;
pub mod error;
mod fake;
mod interrupt;
mod memory_peak;
mod metrics;
mod perf_events;
mod pidfd;
mod profile_watch;
pub mod protocol;
mod schedule;
mod seqpacket;
mod si_number;
mod start;
mod streams;
pub mod tools;
mod valgrind;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use capture::Answer;
pub use containment::NO_CGROUP_VARIABLE;
pub use cpu_set::{CpuListError, CpuSet};
pub use error::{Error, Result};
pub use fake::FakeExecutor;
pub use interrupt::{install_interrupt_handler, interrupted};
pub use metrics::{COUNT_UNIT, MetricExtractor, builtin_metric};
pub use perf_events::{Attached, Attaching, PerfEvent, PerfEventSet, perf_event_metric};
pub use perflab_format::vocabulary::PeakMemorySource;
pub use schedule::Schedule;
pub use si_number::{NumberProblem, parse_si_number, read_si_number};
pub use start::perflab_exec as exec;
pub use start::process_executor::ProcessExecutor;
pub use valgrind::{CountedRun, FIXED_PATH, INSTRUCTIONS, InstructionExecutor};

/// How a command is started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandLine {
    /// Through `sh -c`, so that pipes, globs and `&&` work.
    Shell(String),
    /// Directly, with these arguments (the first is the program).
    Direct(Vec<String>),
}

impl CommandLine {
    /// Builds the command line from the text the user gave. Without a shell
    /// the text is split into arguments as `sh` would split it (quotes and
    /// backslashes group and escape, nothing is expanded), so that
    /// `prog 'a b'` passes the one argument `a b`; an unclosed quote is a
    /// usage error naming the command.
    pub fn new(text: &str, shell: bool) -> Result<Self> {
        if shell {
            return Ok(CommandLine::Shell(text.to_string()));
        }
        shell_words::split(text)
            .map(CommandLine::Direct)
            .map_err(|_| {
                Error::usage(
                    "-N/--no-shell",
                    format!(
                        "the command `{text}` has a quote that is never closed, so it cannot be split into arguments; close the quote, or escape it with a backslash"
                    ),
                )
            })
    }

    /// The command as the user wrote it. Without a shell, an argument that
    /// holds a space, a quote or a backslash, or is empty, is quoted, so the
    /// text splits back into the same arguments.
    pub fn display(&self) -> String {
        match self {
            CommandLine::Shell(s) => s.clone(),
            CommandLine::Direct(args) => args
                .iter()
                .map(|arg| {
                    let plain = !arg.is_empty()
                        && !arg
                            .chars()
                            .any(|c| c.is_whitespace() || "'\"\\".contains(c));
                    if plain {
                        arg.clone()
                    } else {
                        shell_words::quote(arg).into_owned()
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// Where a run's stdout and stderr go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Output {
    /// To perflab through pipes, read as fast as they fill: metric lines,
    /// the answer check and the end of the output for error messages.
    #[default]
    Pipe,
    /// To /dev/null, unread: the cheapest for the run, but no metric lines,
    /// no answer check, no output in error messages.
    Null,
    /// To perflab's own stdout and stderr, unread.
    Inherit,
    /// To this file, written anew by each run, unread.
    File(PathBuf),
}

impl Output {
    /// Reads `--output`: `pipe`, `null`, `inherit`, or a file's path.
    pub fn parse(text: &str) -> Self {
        match text {
            "" | "pipe" => Output::Pipe,
            "null" => Output::Null,
            "inherit" => Output::Inherit,
            path => Output::File(PathBuf::from(path)),
        }
    }

    /// A file's path read from an experiment file, taken relative to the
    /// file's folder; the words stay as they are.
    pub fn relative_to(self, base: &std::path::Path) -> Self {
        match self {
            Output::File(path) => Output::File(base.join(path)),
            other => other,
        }
    }

    /// The word `--output` takes for this, or the file's path.
    pub fn describe(&self) -> String {
        match self {
            Output::Pipe => "pipe".into(),
            Output::Null => "null".into(),
            Output::Inherit => "inherit".into(),
            Output::File(path) => path.display().to_string(),
        }
    }
}

/// Everything needed to start one run.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// What to start.
    pub command: CommandLine,
    /// Environment variables set on top of perflab's own environment.
    pub env: Vec<(String, String)>,
    /// Working directory, if not the current one.
    pub cwd: Option<PathBuf>,
    /// Kill the run after this long.
    pub timeout: Option<Duration>,
    /// Which metrics to look for in the output.
    pub extractor: Arc<MetricExtractor>,
    /// Where the run's instrumentation library should write its profile;
    /// the executor reads it into the outcome's `profile_json` and removes
    /// the file.
    pub profile_path: Option<PathBuf>,
    /// The CPUs the run is pinned to (its whole process tree), if any.
    pub cpus: Option<CpuSet>,
    /// Leave the processes the command started and left running when it
    /// returned, instead of ending them (they are counted either way).
    pub keep_children: bool,
    /// Where its stdout and stderr go.
    pub output: Output,
}

impl RunSpec {
    /// A run of `command` with nothing else asked of it: perflab's own
    /// environment and folder, no timeout, no metric patterns, no profile,
    /// any CPU, what it leaves running ended, its output piped to perflab.
    pub fn new(command: CommandLine) -> Self {
        Self {
            command,
            env: Vec::new(),
            cwd: None,
            timeout: None,
            extractor: Arc::new(MetricExtractor::default()),
            profile_path: None,
            cpus: None,
            keep_children: false,
            output: Output::Pipe,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitState {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it.
    Signal(i32),
    /// perflab killed it at its timeout.
    TimedOut,
    /// perflab killed it because the user pressed Ctrl-C.
    Interrupted,
}

impl ExitState {
    /// True for exit code 0.
    pub fn success(&self) -> bool {
        matches!(self, ExitState::Code(0))
    }

    /// A short description for messages.
    pub fn describe(&self) -> String {
        match self {
            ExitState::Code(c) => format!("exited with code {c}"),
            ExitState::Signal(s) => format!("was killed by signal {s}"),
            ExitState::TimedOut => "was killed at its timeout".to_string(),
            ExitState::Interrupted => "was stopped by Ctrl-C".to_string(),
        }
    }
}

/// A metric value found in a run's output, with its unit if one was given.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricValue {
    /// The value, with K/M/G suffixes applied.
    pub value: f64,
    /// The unit printed after the value (`PERFLAB_METRIC` lines), or empty.
    pub unit: String,
}

/// What one run measured.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// Wall-clock time from start to exit, in seconds.
    pub wall_s: f64,
    /// User CPU time of the process tree, in seconds.
    pub user_s: f64,
    /// System CPU time of the process tree, in seconds.
    pub sys_s: f64,
    /// Peak memory in KiB: the peak charge of the run's memory cgroup
    /// (its whole tree) where it had one, else the peak resident set of
    /// the largest process of the tree; `containment.peak_memory_source`
    /// says which.
    pub peak_memory_kib: f64,
    /// How it ended.
    pub exit: ExitState,
    /// Metrics found in the output.
    pub metrics: BTreeMap<String, MetricValue>,
    /// Metrics whose line was in the output but whose value could not be
    /// read (`inf`, `1,5`), with what was wrong: such a value is left out,
    /// and said so, rather than taken as a metric missing or as another
    /// number.
    pub unreadable_metrics: BTreeMap<String, String>,
    /// The last lines of stdout and stderr, for error messages.
    pub output_tail: String,
    /// The profile the run wrote, as JSON text, if any.
    pub profile_json: Option<String>,
    /// Its stdout apart from metric lines (see `LineScanner`), where the
    /// runner read the output.
    pub answer: Option<Answer>,
    /// What containing the run showed: how its CPU wait and its peak
    /// memory were measured and the processes it left behind.
    pub containment: Containment,
}

/// The name of the metric holding the time a run's tasks were runnable but
/// waiting for a CPU ("some" CPU pressure of its cgroup, or the run delay of
/// its own process where no cgroup could hold it), in seconds.
pub const CPU_WAIT: &str = "cpu-wait";

/// The name of the metric holding the time all of a run's tasks waited for a
/// CPU at once ("full" CPU pressure of its cgroup), in seconds.
pub const CPU_WAIT_FULL: &str = "cpu-wait-full";

/// How a run's CPU wait was measured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WaitSource {
    /// Not at all: read back from a store, imported, or neither a cgroup nor
    /// `/proc/PID/schedstat` was available.
    #[default]
    NotMeasured,
    /// From the run's own cgroup v2 (`cpu.pressure`): every process of the
    /// tree, and `cpu.stat` for their CPU time.
    Cgroup,
    /// From `/proc/PID/schedstat` of the command's own process: its
    /// children's waits are not counted.
    Schedstat,
}

/// What containing one run showed besides its timings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Containment {
    /// How the `cpu-wait` metric was measured.
    pub wait_source: WaitSource,
    /// Processes still running in the run's cgroup when its command
    /// returned; perflab ended them unless `keep_children` was set.
    pub left_running: usize,
    /// Where `peak_memory_kib` was read; `None` where nobody knows (a
    /// scripted run, an import, a run stored before it was recorded).
    pub peak_memory_source: Option<PeakMemorySource>,
}

impl RunOutcome {
    /// The share of the run's wall time its tasks spent waiting for a CPU,
    /// where that was measured.
    pub fn cpu_wait_share(&self) -> Option<f64> {
        let wait = self.metrics.get(CPU_WAIT)?.value;
        (self.wall_s > 0.0).then(|| wait / self.wall_s)
    }

    /// The value of a metric: `wall`, `cpu`, `user`, `sys`, `peak-memory` or an extracted one.
    pub fn metric(&self, name: &str) -> Option<f64> {
        match name {
            "wall" => Some(self.wall_s),
            "cpu" => Some(self.user_s + self.sys_s),
            "user" => Some(self.user_s),
            "sys" => Some(self.sys_s),
            "peak-memory" => Some(self.peak_memory_kib),
            other => self.metrics.get(other).map(|m| m.value),
        }
    }
}

/// Quotes program output for an error message, one `  | ` line per line,
/// or `  (no output)` when there is none.
///
/// Control characters other than tab are written as escapes (`\u{1b}`):
/// the output is the program's, and an escape sequence in it would
/// otherwise reach the terminal and could clear the screen, move the
/// cursor over perflab's own message or set the window title.
pub fn quote_output(text: &str) -> String {
    if text.trim().is_empty() {
        return "  (no output)".to_string();
    }
    text.lines()
        .map(|l| format!("  | {}", escape_control(l)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` with every control character but tab escaped as Rust writes it
/// (`\u{1b}`, `\r`), the rest as it is.
pub fn escape_control(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && c != '\t') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() && c != '\t' {
            escaped.extend(c.escape_default());
        } else {
            escaped.push(c);
        }
    }
    std::borrow::Cow::Owned(escaped)
}

/// Something that can perform a run: real processes, or a script in tests.
pub trait Executor {
    /// Performs one run. Errors are for runs that could not be started at all.
    fn execute(&mut self, spec: &RunSpec) -> Result<RunOutcome>;

    /// Performs one run as [`Executor::execute`] does, and calls `beside`
    /// once: the caller's work that need not come between two runs (the
    /// store's write of the runs made so far), so that it leaves the path
    /// from one run's end to the next run's start. The process executor
    /// calls it while the command runs where the machine has several CPUs
    /// and no other run goes on beside this one (the condition under which
    /// it polls for the run's end), as it does its own such work, and the
    /// last run wrote little to its output pipes (at most 16 KiB: a command
    /// writing more could fill its pipe while perflab is busy); else once
    /// the run is over (also when the command could not be started). This
    /// default calls it once the run is over.
    fn execute_beside(&mut self, spec: &RunSpec, beside: &mut dyn FnMut()) -> Result<RunOutcome> {
        let outcome = self.execute(spec);
        beside();
        outcome
    }

    /// Gets ready for the first run (the process executor makes its cgroups
    /// and starts its fork server), so that what takes time there overlaps
    /// the caller's own preparations. Optional: the first run does what was
    /// not done; what fails here is tried again, and reported, there.
    fn prepare(&mut self) {}

    /// Whether the runs happen on this machine, so that its state (load,
    /// steal time) bears on them; a script in tests does not.
    fn runs_on_this_machine(&self) -> bool {
        true
    }

    /// A second executor of the same kind, for a run made on another
    /// thread at the same time as one of this executor's (duet mode);
    /// `None` when this executor cannot make two runs at once. From then
    /// on this executor also knows that its runs may have company.
    fn duet_partner(&mut self) -> Option<Box<dyn Executor + Send>> {
        None
    }
}

/// An executor lent: a command given `&mut` of an executor that outlives
/// it (made and ended by its caller) uses it as its own.
impl<E: Executor + ?Sized> Executor for &mut E {
    fn execute(&mut self, spec: &RunSpec) -> Result<RunOutcome> {
        (**self).execute(spec)
    }

    fn execute_beside(&mut self, spec: &RunSpec, beside: &mut dyn FnMut()) -> Result<RunOutcome> {
        (**self).execute_beside(spec, beside)
    }

    fn prepare(&mut self) {
        (**self).prepare();
    }

    fn runs_on_this_machine(&self) -> bool {
        (**self).runs_on_this_machine()
    }

    fn duet_partner(&mut self) -> Option<Box<dyn Executor + Send>> {
        (**self).duet_partner()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_without_a_shell_splits_on_quotes_and_backslashes_as_sh_does() {
        let command = CommandLine::new(r#"prog 'a b' "c  d" e\ f"#, false).unwrap();
        let args = ["prog", "a b", "c  d", "e f"].map(String::from).to_vec();
        assert_eq!(command, CommandLine::Direct(args));
    }

    #[test]
    fn a_command_without_a_shell_displays_as_text_that_splits_back_into_its_arguments() {
        let command = CommandLine::new(r#"prog --n=3 'a b' "" it\'s"#, false).unwrap();
        assert_eq!(command.display(), r#"prog --n=3 'a b' '' 'it'\''s'"#);
        assert_eq!(
            CommandLine::new(&command.display(), false).unwrap(),
            command
        );
    }

    #[test]
    fn an_unclosed_quote_is_a_usage_error_naming_the_command() {
        let error = CommandLine::new("prog 'a b", false).unwrap_err();
        assert!(matches!(error, Error::Usage { .. }), "{error:?}");
        assert!(error.to_string().contains("`prog 'a b`"), "{error}");
    }

    #[test]
    fn a_command_for_the_shell_is_kept_as_written() {
        let command = CommandLine::new("prog 'a b", true).unwrap();
        assert_eq!(command, CommandLine::Shell("prog 'a b".into()));
    }

    #[test]
    fn quoted_output_shows_escape_sequences_instead_of_sending_them_to_the_terminal() {
        let quoted = quote_output("\u{1b}[2J\u{1b}]0;owned\u{7}title\n\tindented");
        assert_eq!(
            quoted,
            "  | \\u{1b}[2J\\u{1b}]0;owned\\u{7}title\n  | \tindented"
        );
        assert!(!quoted.contains('\u{1b}'));
    }
}
