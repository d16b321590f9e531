//! The real executor: one process (group) per run, reaped with `wait4` so
//! that CPU time and peak memory cover the whole process tree.
//!
//! Runs are forked by the fork server (`perflab-exec --serve`, see
//! [`fork_server_client`](super::fork_server_client)) when perflab-exec is
//! installed, so that their peak memory is their own; by perflab itself
//! ([`forked_by_perflab`](super::forked_by_perflab)) when counters must be
//! attached between fork and exec, or when perflab-exec is missing.
//!
//! Each run is contained in the executor's cgroup (see the `containment`
//! module): its CPU wait and the CPU time of its whole tree are read from
//! it, and what the command leaves running is ended (or, with
//! `keep_children`, moved out) the moment the command is reaped, so that
//! a child holding the output pipes does not hold up the run either. Its
//! peak memory is its memory cgroup's peak charge where it has one (see
//! the `memory_peak` module), else rusage's.
//!
//! One thread does everything: it polls the two output pipes and one
//! descriptor that becomes readable when the run ends (the server's socket,
//! or a pidfd), so a run costs perflab no thread creation, the end is seen
//! the moment it happens, and the timeout and Ctrl-C are checked between
//! wake-ups. A run through the server is also watched through its pidfd:
//! once its command exited, perflab reads what the command left behind
//! (its cgroup's counters, its memory peak, the processes it left running)
//! while the server reaps it, and the server's report is then due within
//! microseconds: perflab polls for it without sleeping (see
//! [`crate::protocol::SPIN_FOR`]) where it may.

use std::collections::BTreeMap;
use std::ffi::CStr;
use std::os::fd::{OwnedFd, RawFd};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::containment::{Readings, RunCgroup};
use crate::error::{Error, Result};
use crate::interrupt::interrupted;
use crate::memory_peak::MemoryCgroup;
use crate::perf_events::{PerfEventSet, perf_event_metric};
use crate::profile_watch::ProfileWatch;
use crate::protocol::ExecReport;
use crate::start::fork_server_client::{ForkServer, ServedRun};
use crate::start::fork_server_request;
use crate::start::forked_by_perflab::LocalRun;
use crate::start::one_shot_exec::installed_perflab_exec;
use crate::start::run_stdio::RunStdio;
use crate::start::spawn_error::spawn_error;
use crate::streams::{Stream, poll_once};
use crate::{
    CPU_WAIT, CPU_WAIT_FULL, CommandLine, Containment, Executor, ExitState, MetricValue, Output,
    PeakMemorySource, RunOutcome, RunSpec, WaitSource,
};

/// How often the loop wakes up to look at the timeout and the Ctrl-C flag.
const WATCH_INTERVAL_MS: i32 = 20;
/// How long to wait for output after the run exited, in case a grandchild
/// still holds the pipes open.
const DRAIN_GRACE: Duration = Duration::from_secs(2);
/// How long a killed run may take to be reaped before perflab gives up on it.
const KILL_GRACE: Duration = Duration::from_secs(10);

/// Starts real processes, optionally with performance counters attached.
#[derive(Debug, Default)]
pub struct ProcessExecutor {
    counters: Option<PerfEventSet>,
    /// Started on the first run that can use it.
    server: Option<ForkServer>,
    /// The memory cgroup whose peak is every run's peak memory, found or
    /// made on the first run; `Some(None)` where there is none. After
    /// `server`, which may live in it and must be gone before it is
    /// removed, and before `cgroup`, whose files it may hold open.
    memory: Option<Option<MemoryCgroup>>,
    /// The cgroup every run is contained in, made on the first run;
    /// `Some(None)` where none can be made here.
    cgroup: Option<Option<RunCgroup>>,
    /// Its counters after the last run: the cgroup is empty between runs,
    /// so they are the next run's counters before it, read once.
    last_readings: Option<Readings>,
    /// Another executor may run at the same time as this one (duet mode):
    /// neither perflab nor the server then polls without sleeping between
    /// runs, which would take a CPU from the other run.
    beside_another: bool,
    /// The next run's output pipes, made while the last run ran
    /// ([`Output::Pipe`] only), so that making them is off the path from
    /// one run to the next. Only where perflab may work beside a run
    /// without taking its CPU (the condition under which it polls).
    next_pipes: Option<RunStdio>,
    /// The last run's pipes and pidfd, closed once the next run started,
    /// for the same reason and on the same condition.
    retired: Vec<OwnedFd>,
    /// How many bytes the last run's command wrote to its pipes; `None`
    /// before a run with piped output (see [`QUIET_OUTPUT_BYTES`]).
    last_output_bytes: Option<u64>,
    /// The folder the runs' profiles go to, watched so that a run's profile
    /// is looked for only where one was written (see the `profile_watch`
    /// module); `None` where no run has a profile path or no watch can be had.
    profiles: Option<ProfileWatch>,
}

impl ProcessExecutor {
    /// An executor that reads these counters of every run (`perf.*` metrics).
    pub fn with_perf_events(counters: PerfEventSet) -> Self {
        Self {
            counters: Some(counters),
            ..Self::default()
        }
    }
}

/// The executor's run cgroup and memory cgroup, made on first use (`None`
/// where none can be made here); free of `self` so that the fork server
/// stays borrowable beside them.
fn cgroups<'a>(
    cgroup: &'a mut Option<Option<RunCgroup>>,
    memory: &'a mut Option<Option<MemoryCgroup>>,
) -> (Option<&'a RunCgroup>, Option<&'a MemoryCgroup>) {
    let cgroup = cgroup.get_or_insert_with(RunCgroup::create).as_ref();
    let memory = memory
        .get_or_insert_with(|| MemoryCgroup::for_runs(cgroup.map(RunCgroup::dir)))
        .as_ref();
    (cgroup, memory)
}

/// The most output the executor's last run may have written to its pipes
/// for the caller's work to be done beside the next run
/// ([`Executor::execute_beside`]): a quarter of a pipe's default 64 KiB,
/// so that the command does not wait on a full pipe while perflab, busy
/// beside it, does not read. After a run that wrote more, or before the
/// first, that work is done once the run is over.
const QUIET_OUTPUT_BYTES: u64 = 16 * 1024;

/// Whether perflab and the server may poll for each other's messages
/// without sleeping (see [`crate::protocol::SPIN_FOR`]): not when they
/// share a single CPU, where the poller would hold up the process it
/// waits for.
fn several_cpus() -> bool {
    static SEVERAL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SEVERAL.get_or_init(|| crate::CpuSet::allowed().is_ok_and(|cpus| cpus.len() > 1))
}

/// How a run is started: in the cgroup whose `cgroup.procs` is
/// `cgroup_procs`, if any, and in the v1 memory cgroup whose `tasks`
/// file is `memory_tasks`, if any; `peak_memory_from_cgroup`
/// says that its peak memory is read from a memory cgroup, `poll` that
/// perflab and the server may poll for each other's messages without
/// sleeping.
struct Placement<'c> {
    cgroup_procs: Option<&'c CStr>,
    memory_tasks: Option<&'c CStr>,
    peak_memory_from_cgroup: bool,
    poll: bool,
}

/// Starts the run with `stdio` as its stdout and stderr, through the fork
/// server where it can, placed as `placement` says.
fn start<'s>(
    server: &'s mut Option<ForkServer>,
    counters: Option<&PerfEventSet>,
    spec: &RunSpec,
    argv: &[String],
    placement: &Placement,
    stdio: RunStdio,
) -> Result<(Started<'s>, Vec<OwnedFd>)> {
    let Placement {
        cgroup_procs,
        memory_tasks,
        peak_memory_from_cgroup,
        poll,
    } = *placement;
    let local = |counters, stdio| {
        let (run, pipes) =
            LocalRun::spawn(spec, argv, counters, cgroup_procs, memory_tasks, stdio)?;
        Ok((Started::Local(run), pipes))
    };
    let exec = match (installed_perflab_exec(), counters) {
        (Some(exec), None) => exec,
        (_, counters) => return local(counters, stdio),
    };
    let Some(request) =
        fork_server_request::request(spec, argv, cgroup_procs, peak_memory_from_cgroup, poll)?
    else {
        return local(None, stdio);
    };
    if server.as_ref().is_some_and(ForkServer::broken) {
        *server = None;
    }
    let server = match server {
        Some(server) => server,
        empty => empty.insert(ForkServer::start(exec, memory_tasks)?),
    };
    let (run, pipes) = server.launch(spec, &request, stdio, poll)?;
    Ok((Started::Served(run), pipes))
}

/// A started run, whichever process forked it.
enum Started<'a> {
    Local(LocalRun),
    Served(ServedRun<'a>),
}

impl Started<'_> {
    fn pid(&self) -> libc::pid_t {
        match self {
            Started::Local(run) => run.pid,
            Started::Served(run) => run.pid,
        }
    }

    fn end_fd(&self) -> Option<RawFd> {
        match self {
            Started::Local(run) => run.end_fd(),
            Started::Served(run) => Some(run.end_fd()),
        }
    }

    /// Readable once the command exited, where that comes before its end
    /// (a served run's report).
    fn exit_fd(&self) -> Option<RawFd> {
        match self {
            Started::Local(_) => None,
            Started::Served(run) => run.exit_fd(),
        }
    }

    fn try_end(&mut self) -> Result<Option<ExecReport>> {
        match self {
            Started::Local(run) => run.try_end(),
            Started::Served(run) => run.try_end(),
        }
    }
}

impl Executor for ProcessExecutor {
    /// A plain executor with its own fork server: two runs started at once
    /// must not wait for each other at one server. Counters are not given
    /// to it (the duet mode refuses them).
    fn duet_partner(&mut self) -> Option<Box<dyn Executor + Send>> {
        self.counters.is_none().then(|| {
            self.beside_another = true;
            let partner = ProcessExecutor {
                beside_another: true,
                ..ProcessExecutor::default()
            };
            Box::new(partner) as Box<dyn Executor + Send>
        })
    }

    /// Makes the cgroups and starts the fork server (where runs go through
    /// one), so that the server's start passes while perflab prepares the
    /// experiment.
    fn prepare(&mut self) {
        let (_, memory) = cgroups(&mut self.cgroup, &mut self.memory);
        let exec = installed_perflab_exec().filter(|_| self.counters.is_none());
        if let (Some(exec), None) = (exec, &self.server) {
            self.server = ForkServer::start(exec, memory.and_then(MemoryCgroup::tasks)).ok();
        }
    }

    fn execute(&mut self, spec: &RunSpec) -> Result<RunOutcome> {
        self.execute_beside(spec, &mut || {})
    }

    fn execute_beside(&mut self, spec: &RunSpec, beside: &mut dyn FnMut()) -> Result<RunOutcome> {
        let profile_dir = spec.profile_path.as_deref().and_then(Path::parent);
        if let Some(dir) = profile_dir
            && self.profiles.as_ref().is_none_or(|w| w.dir() != dir)
        {
            self.profiles = ProfileWatch::new(dir);
        }
        let (cgroup, memory) = cgroups(&mut self.cgroup, &mut self.memory);
        let last = self.last_readings.take();
        let before = cgroup.map(|c| last.unwrap_or_else(|| c.readings()));
        let memory_reset = memory.filter(|m| m.reset());
        let started_at = Instant::now();
        let poll = !self.beside_another && several_cpus();
        let placement = Placement {
            cgroup_procs: cgroup.map(RunCgroup::procs),
            memory_tasks: memory.and_then(MemoryCgroup::tasks),
            peak_memory_from_cgroup: memory_reset.is_some(),
            poll,
        };
        let next_pipes = self.next_pipes.take();
        let started = argv(spec).and_then(|argv| {
            let stdio = match next_pipes {
                Some(pipes) if spec.output == Output::Pipe => pipes,
                _ => RunStdio::open(&spec.output)?,
            };
            start(
                &mut self.server,
                self.counters.as_ref(),
                spec,
                &argv,
                &placement,
                stdio,
            )
        });
        let (mut run, pipes) = match started {
            Ok(started) => started,
            Err(e) => {
                beside();
                return Err(e);
            }
        };
        // While the command runs, where that takes no CPU from it: the last
        // run's descriptors are closed, the next run's pipes made (a
        // failure to make them is met, and reported, at the next run) and
        // the caller's work beside the run done.
        self.retired.clear();
        if poll && spec.output == Output::Pipe {
            self.next_pipes = RunStdio::open(&Output::Pipe).ok();
        }
        let beside_the_run = poll
            && (spec.output != Output::Pipe
                || self
                    .last_output_bytes
                    .is_some_and(|bytes| bytes <= QUIET_OUTPUT_BYTES));
        if beside_the_run {
            beside();
        }
        let mut streams: Vec<Stream> = pipes.into_iter().map(Stream::new).collect();
        let watched = watch(
            &mut run,
            &mut streams,
            spec,
            started_at,
            Settle {
                cgroup,
                memory: memory_reset,
                profiles: self.profiles.as_ref(),
                poll,
            },
        );
        let counters = match run {
            Started::Local(run) => run.counters,
            Started::Served(run) => {
                self.retired.extend(run.into_pidfd());
                None
            }
        };
        if spec.output == Output::Pipe {
            self.last_output_bytes = Some(streams.iter().map(|s| s.bytes).sum());
        }
        if !beside_the_run {
            beside();
        }
        let (report, killed_for, settled) = watched?;
        let Settled {
            left_running,
            after,
            memory_peak_kib,
            profile_json,
        } = settled;
        if report.exec_errno < 0 {
            return Err(Error::Run {
                run: format!("command '{}'", spec.command.display()),
                message: format!(
                    "it could not be moved into its own cgroup: {}. Set {}=1 to measure \
                     without one (CPU wait is then the command's own run delay)",
                    std::io::Error::from_raw_os_error(-report.exec_errno),
                    crate::NO_CGROUP_VARIABLE
                ),
            });
        }
        if report.exec_errno != 0 {
            let e = std::io::Error::from_raw_os_error(report.exec_errno);
            return Err(spawn_error(spec, e));
        }
        self.last_readings = after;
        let contained = before
            .zip(after)
            .map(|(before, after)| before.until(&after));
        let status = report.status;
        let exit = match killed_for {
            Some(reason) => reason,
            None if libc::WIFSIGNALED(status) => ExitState::Signal(libc::WTERMSIG(status)),
            None => ExitState::Code(libc::WEXITSTATUS(status)),
        };
        let mut metrics = BTreeMap::new();
        let mut unreadable_metrics = BTreeMap::new();
        let mut tail = Vec::new();
        // The first stream is stdout: results go there, logs to stderr.
        let mut answer = None;
        for stream in streams {
            let (scanner, pipe) = stream.finish(&spec.extractor);
            self.retired.push(pipe);
            answer.get_or_insert_with(|| scanner.answer.clone());
            metrics.extend(scanner.metrics);
            unreadable_metrics.extend(scanner.unreadable);
            tail.extend(scanner.tail);
        }
        if !poll {
            // Closed now: the next run may share this CPU.
            self.retired.clear();
        }
        // A value read on either stream wins over an unreadable one.
        unreadable_metrics.retain(|name: &String, _| !metrics.contains_key(name));
        for (name, value) in counters.iter().flat_map(|c| c.read()) {
            let unit = perf_event_metric(name).map_or("", |(_, unit)| unit);
            let unit = unit.to_string();
            metrics.insert(name.to_string(), MetricValue { value, unit });
        }
        let wait_source = record_cpu_wait(&mut metrics, contained.as_ref(), &report);
        // The cgroup's CPU time covers every process of the tree, also
        // those nobody waited for; wait4's only those that were reaped.
        let cpu_us = |cgroup: Option<u64>, wait4: i64| cgroup.map_or(wait4 as f64, |us| us as f64);
        let contained = contained.unwrap_or_default();
        Ok(RunOutcome {
            wall_s: report.wall_ns as f64 / 1e9,
            user_s: cpu_us(contained.user_us, report.user_us) / 1e6,
            sys_s: cpu_us(contained.system_us, report.sys_us) / 1e6,
            peak_memory_kib: memory_peak_kib.unwrap_or(report.peak_memory_kib as f64),
            exit,
            metrics,
            unreadable_metrics,
            output_tail: tail.join("\n"),
            profile_json,
            answer,
            containment: Containment {
                wait_source,
                left_running,
                peak_memory_source: Some(if memory_peak_kib.is_some() {
                    PeakMemorySource::Cgroup
                } else {
                    PeakMemorySource::Rusage
                }),
            },
        })
    }
}

/// Puts the run's CPU wait into its metrics: from its cgroup's pressure
/// where it had one, else the run delay perflab-exec read; says which.
fn record_cpu_wait(
    metrics: &mut BTreeMap<String, MetricValue>,
    contained: Option<&Readings>,
    report: &ExecReport,
) -> WaitSource {
    let seconds = |value: f64| MetricValue {
        value,
        unit: "s".to_string(),
    };
    if let Some(some_us) = contained.and_then(|c| c.wait_some_us) {
        metrics.insert(CPU_WAIT.to_string(), seconds(some_us as f64 / 1e6));
        if let Some(full_us) = contained.and_then(|c| c.wait_full_us) {
            metrics.insert(CPU_WAIT_FULL.to_string(), seconds(full_us as f64 / 1e6));
        }
        return WaitSource::Cgroup;
    }
    match report.run_delay_ns {
        Some(ns) => {
            metrics.insert(CPU_WAIT.to_string(), seconds(ns as f64 / 1e9));
            WaitSource::Schedstat
        }
        None => WaitSource::NotMeasured,
    }
}

/// Where a run's command leaves what perflab reads after it: the run's
/// cgroup, its memory cgroup (reset before the run), the watch on the
/// folder of its profile (where there is one), and whether perflab may
/// poll for the run's end without sleeping.
struct Settle<'c> {
    cgroup: Option<&'c RunCgroup>,
    memory: Option<&'c MemoryCgroup>,
    profiles: Option<&'c ProfileWatch>,
    poll: bool,
}

/// What perflab reads once the run's command is gone: how many processes
/// it left running (ended, or moved out with `keep_children`), then its
/// cgroup's counters, its memory peak and the profile it wrote.
struct Settled {
    left_running: usize,
    after: Option<Readings>,
    memory_peak_kib: Option<f64>,
    profile_json: Option<String>,
}

impl Settle<'_> {
    /// Reads all of it. Final once the command exited: an exited process
    /// is out of its cgroup (not listed, not charged) even before it is
    /// reaped, and it wrote its profile before it exited.
    fn now(&self, spec: &RunSpec) -> Settled {
        let left_running = match self.cgroup {
            Some(cgroup) if spec.keep_children => cgroup.release_all(),
            Some(cgroup) => cgroup.end_all(),
            None => 0,
        };
        Settled {
            left_running,
            after: self.cgroup.map(RunCgroup::readings),
            memory_peak_kib: self.memory.and_then(MemoryCgroup::peak_kib),
            profile_json: spec
                .profile_path
                .as_ref()
                .filter(|_| {
                    self.profiles
                        .is_none_or(ProfileWatch::written_since_last_look)
                })
                .and_then(|p| read_profile(p)),
        }
    }
}

/// The profile at `path`, read and then removed, so that its folder holds
/// only profiles not yet read. A run that wrote none costs nothing more:
/// only a file that was read is removed (one that could not be read goes
/// with its folder).
fn read_profile(path: &Path) -> Option<String> {
    let profile = std::fs::read_to_string(path).ok()?;
    let _ = std::fs::remove_file(path);
    Some(profile)
}

/// Reads the run's output until it ended and its pipes closed (or the
/// drain grace passed); kills its process group at the timeout or on
/// Ctrl-C. What the command left behind is read as soon as it is gone
/// ([`Settle::now`]): where perflab watches the command's exit (a run
/// through the server), while the server reaps it and reports, so that
/// this work is off the path from one run to the next; else once the run
/// ended. With `settle.poll`, once the command exited, the end is looked
/// for without sleeping for a while. Returns the report, why perflab
/// killed it, if it did, and what was read after it.
fn watch(
    run: &mut Started,
    streams: &mut [Stream],
    spec: &RunSpec,
    started_at: Instant,
    settle: Settle,
) -> Result<(ExecReport, Option<ExitState>, Settled)> {
    // Read once the command is gone: at its exit, where that is seen before
    // the run's end, else at the end.
    let mut settled: Option<Settled> = None;
    let mut ended: Option<ExecReport> = None;
    let mut killed: Option<(ExitState, Instant)> = None;
    let mut drain_deadline = None;
    // Looking for the end costs system calls (a receive, a poll); a wake-up
    // for output alone, or the run just started, is no reason to look. The
    // first poll returns at once if the run is over already.
    let mut look_for_end = run.end_fd().is_none();
    // The command's exit is watched until it is seen (and what it left is
    // read), then the end is polled for; a pidfd stays readable, so it
    // leaves the poll after that.
    let mut exited = false;
    loop {
        if ended.is_none() && look_for_end {
            ended = run.try_end()?;
            if ended.is_none() && exited && settled.is_none() {
                settled = Some(settle.now(spec));
                // The server reaps the command and reports within
                // microseconds, sooner than a sleeping perflab would wake.
                if settle.poll {
                    ended = crate::protocol::poll_briefly(|| run.try_end())?;
                }
            }
            if ended.is_some() {
                drain_deadline = Some(Instant::now() + DRAIN_GRACE);
                if settled.is_none() {
                    settled = Some(settle.now(spec));
                }
            }
        }
        if let Some(report) = ended {
            let open = streams.iter().any(|s| s.open);
            if !open || drain_deadline.is_some_and(|d| Instant::now() >= d) {
                let settled = settled.take().unwrap_or_else(|| settle.now(spec));
                return Ok((report, killed.map(|(reason, _)| reason), settled));
            }
        } else if let Some((_, at)) = killed {
            if at.elapsed() >= KILL_GRACE {
                return Err(Error::Run {
                    run: format!("command '{}'", spec.command.display()),
                    message: format!(
                        "it was killed but had not ended {} s later; perflab gives up on it",
                        KILL_GRACE.as_secs()
                    ),
                });
            }
        } else {
            let reason = if interrupted() {
                Some(ExitState::Interrupted)
            } else if spec.timeout.is_some_and(|t| started_at.elapsed() >= t) {
                Some(ExitState::TimedOut)
            } else {
                None
            };
            if let Some(reason) = reason {
                // SAFETY: kill(2) on the run's own process group, not yet
                // reported as reaped.
                unsafe { libc::kill(-run.pid(), libc::SIGKILL) };
                killed = Some((reason, Instant::now()));
            }
        }
        let end_fd = run.end_fd().filter(|_| ended.is_none());
        let exit_fd = run
            .exit_fd()
            .filter(|_| ended.is_none() && settled.is_none());
        let wait_ms = match (ended.is_some(), end_fd) {
            (false, None) => 1, // no pidfd: look for the exit often
            _ => WATCH_INTERVAL_MS,
        };
        let wake = poll_once(streams, end_fd, exit_fd, wait_ms, &spec.extractor);
        (look_for_end, exited) = (wake.look_for_end, wake.exited);
    }
}

/// The program and its arguments.
fn argv(spec: &RunSpec) -> Result<Vec<String>> {
    match &spec.command {
        CommandLine::Shell(text) => Ok(vec!["sh".into(), "-c".into(), text.clone()]),
        CommandLine::Direct(args) if args.is_empty() => Err(Error::usage(
            "CMD",
            "the command is empty; give the program to run",
        )),
        CommandLine::Direct(args) => Ok(args.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_executor_that_made_a_duet_partner_knows_that_its_runs_have_company() {
        let mut executor = ProcessExecutor::default();
        assert!(!executor.beside_another);
        let partner = executor.duet_partner();
        assert!(partner.is_some());
        assert!(executor.beside_another);
    }
}
