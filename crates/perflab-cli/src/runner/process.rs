//! The real executor: one process (group) per run, reaped with `wait4` so
//! that CPU time and peak memory cover the whole process tree.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use super::capture::{Captured, capture};
use super::counters::CounterSet;
use super::interrupt::interrupted;
use super::{CommandLine, Executor, ExitState, RunOutcome, RunSpec};
use crate::error::{Error, Result};

/// How often the watchdog looks at the timeout and the Ctrl-C flag.
const WATCH_INTERVAL: Duration = Duration::from_millis(20);
/// How long to wait for output after the run exited, in case a grandchild
/// still holds the pipes open.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Starts real processes, optionally with performance counters attached.
#[derive(Debug, Default)]
pub struct ProcessExecutor {
    counters: Option<CounterSet>,
}

impl ProcessExecutor {
    /// An executor that reads these counters of every run (`counter.*` metrics).
    pub fn with_counters(counters: CounterSet) -> Self {
        Self {
            counters: Some(counters),
        }
    }
}

impl Executor for ProcessExecutor {
    fn execute(&mut self, spec: &RunSpec) -> Result<RunOutcome> {
        let mut command = build_command(spec)?;
        let attaching = match &self.counters {
            Some(set) => Some(set.attach_to(&mut command)?),
            None => None,
        };
        let started = Instant::now();
        let spawned = command.spawn();
        let counters = attaching.map(|a| a.attached());
        let mut child = spawned.map_err(|e| spawn_error(spec, e))?;
        let pid = child.id() as libc::pid_t;

        let (out_tx, out_rx) = mpsc::channel();
        for stream in [
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let extractor = Arc::clone(&spec.extractor);
            let tx = out_tx.clone();
            thread::spawn(move || {
                let _ = tx.send(capture(stream, extractor));
            });
        }
        drop(out_tx);

        let killed = Arc::new(AtomicBool::new(false));
        let (done_tx, watchdog) = start_watchdog(pid, spec.timeout, Arc::clone(&killed));
        let (status, usage) = wait_for(pid)?;
        let wall_s = started.elapsed().as_secs_f64();
        let _ = done_tx.send(());
        let by_watchdog = watchdog.join().unwrap_or(None);
        drop(child);

        let mut captured = Vec::new();
        let deadline = Instant::now() + DRAIN_GRACE;
        while captured.len() < 2 {
            let left = deadline.saturating_duration_since(Instant::now());
            match out_rx.recv_timeout(left) {
                Ok(c) => captured.push(c),
                Err(_) => break,
            }
        }

        let exit = match by_watchdog {
            Some(reason) => reason,
            None if libc::WIFSIGNALED(status) => ExitState::Signal(libc::WTERMSIG(status)),
            None => ExitState::Code(libc::WEXITSTATUS(status)),
        };
        let (mut metrics, output_tail) = merge(captured);
        for (name, value) in counters.iter().flat_map(|c| c.read()) {
            metrics.insert(
                name.to_string(),
                super::MetricValue {
                    value,
                    unit: super::counter_metric(name)
                        .map_or("", |(_, unit)| unit)
                        .to_string(),
                },
            );
        }
        let profile_json = spec
            .profile_path
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok());
        Ok(RunOutcome {
            wall_s,
            user_s: timeval_seconds(usage.ru_utime),
            sys_s: timeval_seconds(usage.ru_stime),
            max_rss_kib: usage.ru_maxrss as f64,
            exit,
            metrics,
            output_tail,
            profile_json,
        })
    }
}

fn build_command(spec: &RunSpec) -> Result<Command> {
    let mut command = match &spec.command {
        CommandLine::Shell(text) => {
            let mut c = Command::new("sh");
            c.arg("-c").arg(text);
            c
        }
        CommandLine::Direct(args) => {
            let Some((program, rest)) = args.split_first() else {
                return Err(Error::usage(
                    "CMD",
                    "the command is empty; give the program to run",
                ));
            };
            let mut c = Command::new(program);
            c.args(rest);
            c
        }
    };
    command
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group: a timeout or Ctrl-C can then stop the whole
        // tree, and the terminal's Ctrl-C reaches perflab, not the run.
        .process_group(0);
    if let Some(path) = &spec.profile_path {
        command.env("PERFLAB_PROFILE", path);
    }
    if let Some(dir) = &spec.cwd {
        command.current_dir(dir);
    }
    Ok(command)
}

fn spawn_error(spec: &RunSpec, e: std::io::Error) -> Error {
    let what = spec.command.display();
    let message = match (e.kind(), &spec.cwd) {
        (std::io::ErrorKind::NotFound, Some(dir)) if !dir.is_dir() => {
            format!(
                "the working directory {} does not exist; fix --cwd or the experiment file's cwd",
                dir.display()
            )
        }
        (std::io::ErrorKind::NotFound, _) => {
            "the program was not found; check the spelling and PATH, or give a path like ./prog"
                .to_string()
        }
        (std::io::ErrorKind::PermissionDenied, _) => {
            "the program is not executable; chmod +x it or run it through an interpreter"
                .to_string()
        }
        _ => format!("it could not be started: {e}"),
    };
    Error::Run {
        run: format!("command '{what}'"),
        message,
    }
}

/// Kills the run's process group at its timeout or on Ctrl-C, and says which.
fn start_watchdog(
    pid: libc::pid_t,
    timeout: Option<Duration>,
    killed: Arc<AtomicBool>,
) -> (mpsc::Sender<()>, thread::JoinHandle<Option<ExitState>>) {
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let started = Instant::now();
    let handle = thread::spawn(move || {
        loop {
            match done_rx.recv_timeout(WATCH_INTERVAL) {
                Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => return None,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            let reason = if interrupted() {
                Some(ExitState::Interrupted)
            } else if timeout.is_some_and(|t| started.elapsed() >= t) {
                Some(ExitState::TimedOut)
            } else {
                None
            };
            if let Some(reason) = reason {
                killed.store(true, Ordering::SeqCst);
                // SAFETY: kill(2) on our own child's process group.
                unsafe { libc::kill(-pid, libc::SIGKILL) };
                let _ = done_rx.recv();
                return Some(reason);
            }
        }
    });
    (done_tx, handle)
}

fn wait_for(pid: libc::pid_t) -> Result<(libc::c_int, libc::rusage)> {
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            return Ok((status, usage));
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(Error::Run {
                run: format!("process {pid}"),
                message: format!("waiting for it failed: {err}"),
            });
        }
    }
}

fn timeval_seconds(t: libc::timeval) -> f64 {
    t.tv_sec as f64 + t.tv_usec as f64 / 1e6
}

fn merge(
    captured: Vec<Captured>,
) -> (
    std::collections::BTreeMap<String, super::MetricValue>,
    String,
) {
    let mut metrics = std::collections::BTreeMap::new();
    let mut tail = Vec::new();
    for c in captured {
        metrics.extend(c.metrics);
        tail.extend(c.tail);
    }
    (metrics, tail.join("\n"))
}
