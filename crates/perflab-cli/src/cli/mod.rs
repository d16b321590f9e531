//! Command-line definitions, and their conversion into the settings that
//! `experiment` and `sweep` validate (which know nothing of clap).

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};

use crate::error::Error;

mod ab;
mod contention;
mod defaults;
mod machine;
mod profile;
mod system;

pub use machine::MachineArgs;
pub use system::{SystemAction, SystemArgs, SystemCheckArgs, SystemShowArgs};

pub use profile::ProfileArgs;
mod decision;
mod history;
mod import;
mod report;
mod revisions;
mod serve;
mod store;
mod sweep;
mod transfer;

pub use contention::ContentionArgs;
pub use decision::DecisionArgs;
pub use history::HistoryArgs;
pub use import::ImportArgs;
pub use report::ReportArgs;
pub use revisions::{BisectArgs, CleanArgs};
pub use serve::{ServeArgs, serve_error};
pub use store::{StoreAction, StoreArgs, StoreBackupArgs};
pub use sweep::SweepArgs;
pub use transfer::{PullArgs, PushArgs, SelectionArgs};

/// perflab: measure, compare and decide, with statistics that do not lie quietly.
#[derive(Debug, Parser)]
#[command(name = "perflab", version, about, long_about = None)]
#[command(
    after_help = "Exit codes: 0 GO / NEUTRAL / plain measurement, 1 perflab failed, \
2 bad usage or input, 3 NO-GO, 4 INCONCLUSIVE, 130 interrupted (finished runs are kept)."
)]
pub struct Cli {
    /// The store: a SQLite file, or a `postgres://USER@HOST[:PORT]/DATABASE` URL for a store
    /// shared between machines (password, host, TLS as for psql: PGPASSWORD or ~/.pgpass, PGHOST,
    /// ?sslmode=...; see docs/store.md) [default: .perflab/perflab.db, or $PERFLAB_STORE].
    #[arg(long, global = true, value_name = "PATH|URL")]
    pub store: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compare a baseline (A) and a candidate (B), interleaved, until the statistics decide.
    #[command(after_help = "Examples:\n  perflab ab './old' './new'\n  \
perflab ab './prog' --env-b FAST=1\n  perflab ab -f perflab.toml\n  \
perflab ab --rev main --rev HEAD --build 'cargo build --release' -- ./target/release/app\n  \
perflab ab -f suite.toml --scenario mixed   (a suite: every candidate against the baseline in every scenario)\n  \
perflab ab './a' './b' --measure throughput --metric 'throughput=([0-9.]+[KMG]?) ops/s' --better higher")]
    Ab(Box<AbArgs>),
    /// Decide on samples that already exist (numbers, a perflab JSON result, a hyperfine JSON
    /// export, criterion, Google Benchmark, pytest-benchmark or go test -bench results).
    #[command(
        after_help = "Each input is a PATH, optionally followed by #SELECTOR to pick one variant \
of a perflab JSON result or one command of a hyperfine export (by name or 0-based index).\n\
A text file holds one number per line (K/M/G suffixes allowed, # starts a comment).\n\
Results of many benchmarks (criterion's target/criterion#BASELINE, Google Benchmark JSON with \
--benchmark_repetitions, pytest-benchmark --benchmark-json or a run saved with --benchmark-save-data, \
go test -bench -count N) \
are compared benchmark by benchmark, matched by name, with one confidence level for all of them.\n\
Examples:\n  perflab compare target/criterion#before target/criterion#after\n  \
perflab compare old.txt new.txt --format go --measure allocs/op"
    )]
    Compare(CompareArgs),
    /// Measure one command (no decision).
    Run(RunArgs),
    /// Store a benchmark harness's results (criterion, Google Benchmark, pytest-benchmark,
    /// go test -bench, hyperfine) under a name, for `perflab history` and `perflab report`.
    #[command(
        after_help = "Examples:\n  perflab import target/criterion#new --name parser\n  \
perflab import gbench.json --name codec       (run with --benchmark_format=json --benchmark_repetitions=10)\n  \
go test -run '^$' -bench . -count 10 > go.txt && perflab import go.txt --name sort\n  \
perflab history --metric wall --name parser   (each benchmark over the imports)"
    )]
    Import(ImportArgs),
    /// List past experiments, or with --metric the history of a metric over commits.
    #[command(after_help = "Examples:\n  perflab history\n  \
perflab history --metric wall --name parse-bench\n  \
perflab history --metric cost --better lower --variant 'hamt n=10000' --markdown history.md\n  \
perflab history --metric wall --confirm --build 'cargo build --release'\n  \
perflab history --changes --confirm   (in CI, after each commit's measurement)\n\
With --metric, the exit code is 3 when the newest change point of a variant is a regression \
(NO-GO); with --confirm, only when an interleaved A/B of its two commits confirmed it.")]
    History(HistoryArgs),
    /// Sample where the CPU time of a program goes (perf record), with a flame graph.
    #[command(after_help = "Examples:\n  perflab profile -- ./prog --size 1000\n  \
perflab profile --call-graph dwarf -- ./prog\n  \
perflab profile --baseline './old 1000' -- ./new 1000\n\n\
Shares are fractions of all samples, each with a Wilson interval; a function's self share \
counts samples in its own code, its inclusive share samples anywhere under it.")]
    Profile(ProfileArgs),
    /// Run commands over a grid of parameters (sizes, threads, ...), each point until precise.
    #[command(
        after_help = "Examples:\n  perflab sweep -p n=1K..100K:x10 './bench {n}'\n  \
perflab sweep -p n=1000,10000,50000,100000 './hamt {n}' --reference './libhamt {n}'\n  \
perflab sweep -p batch=10,100,1000 -p partitions=1..8:x2 './job --batch {batch} --partitions {partitions}'\n\
{NAME} in a command (or an --env value) is replaced by the parameter's value; ${VAR}, {{ and }} are left to the shell."
    )]
    Sweep(Box<SweepArgs>),
    /// Write a report of experiments from the store (the newest only, unless named): Markdown for a pull request, one self-contained HTML page.
    #[command(
        after_help = "Examples:\n  perflab report                      (the newest experiment, Markdown on stdout)\n  \
perflab report 12 --html report.html --markdown report.md\n  \
perflab report hamt-sweep parse-ab --html report.html   (several experiments on one page)"
    )]
    Report(ReportArgs),
    /// Find the first commit at which a command got slower, by binary search of A/B experiments.
    #[command(
        after_help = "Examples:\n  perflab bisect --good v1.2 --bad main --build 'cargo build --release' -- ./target/release/app\n  \
perflab bisect --good HEAD~20 --bad HEAD --measure work --better lower --json bisect.json -- ./bench.sh\n\
Each step is an A/B against GOOD; the confidence holds for the whole search. Exit codes: 0 found, \
4 the evidence did not decide (the range left is printed), 2 bad input."
    )]
    Bisect(Box<BisectArgs>),
    /// Remove the worktrees perflab made for revisions (.perflab/worktrees of the repository).
    Clean(CleanArgs),
    /// Copy experiments from the store into another one (a shared PostgreSQL store, a SQLite file).
    #[command(
        after_help = "Examples:\n  perflab push --to postgres://ci@perf-db/perflab\n  \
perflab push --to postgres://me@perf-db/perflab --name parser --experiment 12\n\
Experiments and runs the other store has already are not copied again."
    )]
    Push(PushArgs),
    /// Copy experiments from another store (a shared PostgreSQL store, a SQLite file) into the store.
    #[command(
        after_help = "Examples:\n  perflab pull --from postgres://me@perf-db/perflab --name nightly\n  \
perflab --store ci.db pull --from postgres://me@perf-db/perflab\n\
--experiment takes ids of the store pulled from. Experiments and runs already here are not copied again."
    )]
    Pull(PullArgs),
    /// What helps or hurts measurements on this machine (show), and the settings that can
    /// safely be changed for them (tune, as root), saved first and put back by reset.
    #[command(after_help = "Examples:\n  perflab system show\n  \
perflab system show --json system.json\n  \
sudo perflab system tune      (then sudo perflab system reset)")]
    System(SystemArgs),
    /// Look after the store file: check it for damage, or copy it while experiments write to it.
    #[command(after_help = "Examples:\n  perflab store check\n  \
perflab store backup backups/perflab-$(date +%F).db\n  \
perflab --store ci.db store check")]
    Store(StoreArgs),
    /// Serve the store as web pages with a JSON API, read-only: regressions, series,
    /// experiments, comparisons.
    #[command(
        after_help = "Examples:\n  perflab serve                                   (http://127.0.0.1:8080/)\n  \
perflab --store postgres://viewer@perf-db/perflab serve --commit-url 'https://github.com/OWNER/REPO/commit/{commit}'\n  \
perflab serve --listen 0.0.0.0:8443 --token \"$(cat token)\" --tls-cert cert.pem --tls-key key.pem\n\
Pages: / (regressions, experiments, series that changed most), /series, /experiments/ID, /compare; \
each has its JSON twin under /api (see docs/guide/serve.md)."
    )]
    Serve(ServeArgs),
}

impl Command {
    /// The folder whose checkout state the command's experiment records
    /// (the runs' working directory as the command line gives it), for
    /// commands that measure; read ahead of the experiment (see
    /// `engine::start_reading_checkout`).
    pub fn checkout_dir(&self) -> Option<&Path> {
        let cwd = match self {
            Command::Run(args) => &args.run.cwd,
            Command::Ab(args) => &args.run.cwd,
            Command::Sweep(args) => &args.run.cwd,
            Command::Profile(args) => &args.cwd,
            _ => return None,
        };
        Some(cwd.as_deref().unwrap_or(Path::new(".")))
    }

    /// Whether the command makes runs as soon as its input is read (`run`,
    /// `ab` and its suites, `sweep`), so that its executor is made ready
    /// while the store opens (see `engine::executor_slot`). Not for runs
    /// that read perf events, whose executor is another.
    pub fn makes_runs_at_once(&self) -> bool {
        match self {
            Command::Run(args) => !args.run.perf_events,
            Command::Ab(args) => !args.run.perf_events,
            Command::Sweep(_) => true,
            _ => false,
        }
    }

    /// Whether the command only reads the store: it then creates none, and
    /// works on one it cannot write (see `Store::open_for_reading`).
    pub fn only_reads_the_store(&self) -> bool {
        match self {
            Command::History(args) => !args.confirm && args.notify.is_none(),
            Command::Report(_) | Command::Push(_) | Command::Store(_) | Command::Serve(_) => true,
            _ => false,
        }
    }
}

/// Options shared by every command that runs processes.
#[derive(Debug, Args, Clone, Default)]
pub struct RunOptions {
    /// Extract a metric from the output: NAME=REGEX, the first capture group (or the whole match)
    /// is the value; K/M/G suffixes are understood. Repeatable.
    #[arg(long = "metric", value_name = "NAME=REGEX")]
    pub metrics: Vec<String>,
    /// Runs of each variant before measuring (not counted) [default: 1; 0 for `perflab run` and
    /// for runs counted under --measure instructions].
    #[arg(long, value_name = "N")]
    pub warmup: Option<usize>,
    /// Kill a run that takes longer than this (e.g. 30s, 2m); a counted run under valgrind
    /// (--measure instructions) gets 100 times as long [default: no limit].
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
    /// Run the command directly instead of through `sh -c` (split into
    /// arguments as sh splits them: quotes group, nothing is expanded).
    #[arg(short = 'N', long)]
    pub no_shell: bool,
    /// Keep measuring when a run exits with a non-zero status.
    #[arg(long)]
    pub ignore_failure: bool,
    /// Leave running the processes a command started and did not wait
    /// for, instead of ending them when it returns (they are counted and
    /// reported either way; kept ones may run beside later runs).
    #[arg(long)]
    pub keep_children: bool,
    /// Where the runs' stdout and stderr go: `pipe` (read by perflab for
    /// metric lines, the answer check and error messages, as fast as the
    /// pipe fills), `null` (/dev/null, unread: no metric lines), `inherit`
    /// (perflab's own terminal, unread), or a FILE each run writes anew.
    #[arg(long, value_name = "pipe|null|inherit|FILE", default_value = "pipe")]
    pub output: String,
    /// Working directory of the runs.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Write the result as JSON.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Write the result as a Markdown table.
    #[arg(long, value_name = "PATH")]
    pub markdown: Option<PathBuf>,
    /// Do not show the progress display.
    #[arg(long)]
    pub quiet: bool,
    /// With --measure instructions: pass this variable from perflab's environment to the counted
    /// runs, whose environment is otherwise cleared (PATH is fixed to /usr/local/bin:/usr/bin:/bin
    /// unless kept). Repeatable.
    #[arg(long = "keep-env", value_name = "NAME")]
    pub keep_env: Vec<String>,
    /// Read perf events of every run (perf_event_open): task clock, context switches,
    /// page faults, CPU migrations, and cycles, instructions, branch and cache misses where the
    /// machine has hardware counters. Reported as metrics named perf.*.
    #[arg(long)]
    pub perf_events: bool,
    /// Have instrumented programs (the perflab crate, perflab.h, the Python package) record a
    /// timeline of their spans, polls, lock waits, counters and gauges, one trace per run in DIR
    /// (VARIANT-run-N.json, the Chrome trace event format: opens in ui.perfetto.dev) [default: no
    /// traces].
    #[arg(long, value_name = "DIR")]
    pub trace: Option<PathBuf>,
}

impl RunOptions {
    /// Where the runs' output goes, from `--output`.
    pub fn output(&self) -> perflab_runner::Output {
        perflab_runner::Output::parse(&self.output)
    }
}

/// `perflab ab`.
#[derive(Debug, Args, Default)]
pub struct AbArgs {
    /// Baseline command (A), and candidate command (B). With one command, use --env-a/--env-b.
    #[arg(value_name = "CMD", num_args = 0..=2)]
    pub commands: Vec<String>,
    /// The one command as several arguments after `--` (`-- ./app --input big.txt`),
    /// instead of CMD; quoted for the shell.
    #[arg(last = true, value_name = "CMD ARGS")]
    pub after_dashes: Vec<String>,
    /// Experiment file (perflab.toml); flags given here override it.
    #[arg(short = 'f', long = "file", value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// Environment override for A: KEY=VALUE. Repeatable.
    #[arg(long = "env-a", value_name = "KEY=VALUE")]
    pub env_a: Vec<String>,
    /// Environment override for B: KEY=VALUE. Repeatable.
    #[arg(long = "env-b", value_name = "KEY=VALUE")]
    pub env_b: Vec<String>,
    /// Name of the experiment, for `perflab history` and reports.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Name of the baseline variant.
    #[arg(long, value_name = "NAME")]
    pub name_a: Option<String>,
    /// Name of the candidate variant.
    #[arg(long, value_name = "NAME")]
    pub name_b: Option<String>,
    /// The metric the decision rests on: wall, cpu, peak-memory, instructions (counted under
    /// valgrind's callgrind; exact when the counts repeat, then 2 runs per variant decide), or a
    /// metric name [default: wall].
    #[arg(long, value_name = "METRIC")]
    pub measure: Option<String>,
    /// Whether higher or lower values of the metric are better [default: lower for the built-in
    /// metrics; an extracted metric needs it].
    #[arg(long, value_name = "higher|lower")]
    pub better: Option<String>,
    /// A metric that may veto a GO: METRIC:LIMIT[+FLOOR], e.g. peak-memory:5% (may not grow by
    /// more than 5%) or peak-memory:10%+8MiB (may grow by 10% or 8 MiB, whichever is larger; the
    /// floor in B/KiB/MiB/GiB for memory, ns/µs/ms/s for times) [default: no guard]. Repeatable.
    #[arg(long = "guard", value_name = "METRIC:LIMIT[+FLOOR]")]
    pub guards: Vec<String>,
    /// Thresholds and confidence.
    #[command(flatten)]
    pub decision: DecisionArgs,
    /// Runs per variant before the first decision.
    #[arg(long, value_name = "N", help = defaults::ab_min_runs())]
    pub min_runs: Option<usize>,
    /// Runs per variant at most.
    #[arg(long, value_name = "N", help = defaults::ab_max_runs())]
    pub max_runs: Option<usize>,
    /// Stop deciding after this long (e.g. 10m); the verdict may then be INCONCLUSIVE
    /// [default: no limit].
    #[arg(long, value_name = "DURATION")]
    pub max_time: Option<String>,
    /// Seed for the order of A and B within each block (for reproducing a schedule)
    /// [default: random, printed in the result].
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// A git revision to check out, build and run: give it twice, baseline first
    /// (--rev main --rev HEAD); each runs in its worktree under .perflab/worktrees.
    #[arg(long = "rev", value_name = "REV")]
    pub revs: Vec<String>,
    /// The command that builds a revision in its worktree (built once per commit and command).
    #[arg(long, value_name = "CMD")]
    pub build: Option<String>,
    /// Run the working tree as it is (uncommitted changes included) for a revision naming HEAD.
    #[arg(long)]
    pub allow_dirty: bool,
    /// Pin every run (its whole process tree) to these CPUs, e.g. 2-3 or 1,3, so that the
    /// scheduler does not move it between CPUs; CPUs from those perflab may use (see
    /// Cpus_allowed_list in /proc/self/status).
    #[arg(long, value_name = "CPUS")]
    pub pin: Option<String>,
    /// Duet runs: each block starts A and B at the same moment, each pinned to a CPU of its
    /// own (two of --pin's or of the allowed CPUs, swapped every block), so that both see the
    /// same interference; for single-threaded programs that do not saturate memory bandwidth.
    #[arg(long)]
    pub duet: bool,
    /// --shield and --wait-quiet.
    #[command(flatten)]
    pub machine: MachineArgs,
    /// With a suite file (-f with `[[scenario]]` tables): run only this scenario. Repeatable.
    #[arg(long = "scenario", value_name = "NAME")]
    pub scenarios: Vec<String>,
    /// The contention rule.
    #[command(flatten)]
    pub contention: ContentionArgs,
    /// The shared run options.
    #[command(flatten)]
    pub run: RunOptions,
}

/// `perflab compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Baseline samples: PATH[#SELECTOR].
    pub baseline: String,
    /// Candidate samples: PATH[#SELECTOR].
    pub candidate: String,
    /// Whether higher or lower values are better [default: as the harness says (higher for
    /// JMH's throughput), else lower].
    #[arg(long, value_name = "higher|lower")]
    pub better: Option<String>,
    /// Thresholds and confidence.
    #[command(flatten)]
    pub decision: DecisionArgs,
    /// The metric to compare [default: the input's own: wall for times per iteration,
    /// throughput for JMH's thrpt mode]. Imports give wall, cpu (Google Benchmark), B/op and
    /// allocs/op (go test -benchmem), JMH's secondary metrics by name (gc.alloc.rate.norm).
    #[arg(long, value_name = "METRIC")]
    pub measure: Option<String>,
    /// The inputs' format, when detection from their content is not wanted: text, perflab,
    /// hyperfine, criterion, google-benchmark, pytest-benchmark, go, jmh, mitata or tinybench
    /// [default: detected from the content].
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// Write the result as JSON.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Write the result as a Markdown table.
    #[arg(long, value_name = "PATH")]
    pub markdown: Option<PathBuf>,
}

/// Takes a command given as several arguments after `--` (`-- ./app --input
/// big.txt`, as `perf record -- CMD ARGS` takes it) into the command
/// arguments, joined and quoted for the shell with `shell_words::join`; a
/// command given both ways is a usage error.
pub fn take_commands_after_dashes(command: &mut Command) -> Result<(), Error> {
    let (given, after) = match command {
        Command::Ab(a) => (&mut a.commands, &mut a.after_dashes),
        Command::Sweep(s) => (&mut s.commands, &mut s.after_dashes),
        Command::Run(r) => {
            let mut given: Vec<String> = r.command.take().into_iter().collect();
            join_after_dashes(&mut given, &mut r.after_dashes)?;
            r.command = given.pop();
            return Ok(());
        }
        Command::Bisect(b) => {
            let mut given: Vec<String> = b.command.take().into_iter().collect();
            join_after_dashes(&mut given, &mut b.after_dashes)?;
            b.command = given.pop();
            return Ok(());
        }
        _ => return Ok(()),
    };
    join_after_dashes(given, after)
}

fn join_after_dashes(given: &mut Vec<String>, after: &mut Vec<String>) -> Result<(), Error> {
    if after.is_empty() {
        return Ok(());
    }
    let joined = shell_words::join(after.iter());
    if !given.is_empty() {
        return Err(Error::usage(
            "--",
            format!(
                "the command is given twice: as {} and after -- as '{joined}'; give it one way",
                given
                    .iter()
                    .map(|c| format!("'{c}'"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        ));
    }
    after.clear();
    given.push(joined);
    Ok(())
}

impl RunArgs {
    /// The command to measure, however it was given (see [`take_commands_after_dashes`]).
    pub fn command_line(&self) -> &str {
        self.command.as_deref().unwrap_or_default()
    }
}

/// `perflab run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The command to measure, as one string; or after `--` as several arguments
    /// (`-- ./app --input big.txt`), quoted for the shell.
    #[arg(value_name = "CMD", required_unless_present = "after_dashes")]
    pub command: Option<String>,
    /// The command as several arguments after `--`.
    #[arg(last = true, value_name = "CMD ARGS")]
    pub after_dashes: Vec<String>,
    /// Number of measured runs [default: 10].
    #[arg(short = 'r', long, value_name = "N")]
    pub runs: Option<usize>,
    /// Environment override: KEY=VALUE. Repeatable.
    #[arg(long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// Name shown for the command.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// The metric summarised: wall, cpu, peak-memory, instructions (counted under valgrind's
    /// callgrind: each run is made natively and counted), or an extracted metric [default: wall].
    #[arg(long, value_name = "METRIC")]
    pub measure: Option<String>,
    /// The shared run options.
    #[command(flatten)]
    pub run: RunOptions,
}
