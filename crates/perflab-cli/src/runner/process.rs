//! The real executor: one process (group) per run, reaped with `wait4` so
//! that CPU time and peak memory cover the whole process tree.
//!
//! One thread does everything: it polls the two output pipes and a pidfd
//! of the child, so a run costs perflab no thread creation, the exit is
//! seen the moment it happens, and the timeout and Ctrl-C are checked
//! between wake-ups.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::capture::LineScanner;
use super::counters::CounterSet;
use super::interrupt::interrupted;
use super::trampoline::{ReportPipe, trampoline};
use super::{CommandLine, Executor, ExitState, RunOutcome, RunSpec};
use crate::error::{Error, Result};

/// How often the loop wakes up to look at the timeout and the Ctrl-C flag.
const WATCH_INTERVAL_MS: i32 = 20;
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
        let mut report = match trampoline() {
            Some(_) => Some(ReportPipe::new().map_err(|source| Error::Io {
                path: "pipe".into(),
                source,
            })?),
            None => None,
        };
        let mut command = build_command(spec, report.as_ref().map(ReportPipe::write_fd))?;
        let attaching = match &self.counters {
            Some(set) => Some(set.attach_to(&mut command)?),
            None => None,
        };
        let started = Instant::now();
        let spawned = command.spawn();
        drop(command); // its copies of our descriptors
        if let Some(r) = report.as_mut() {
            r.close_write();
        }
        let counters = attaching.map(|a| a.attached());
        let mut child = spawned.map_err(|e| spawn_error(spec, e))?;
        let pid = child.id() as libc::pid_t;
        let pipes: Vec<OwnedFd> = [
            child.stdout.take().map(OwnedFd::from),
            child.stderr.take().map(OwnedFd::from),
        ]
        .into_iter()
        .flatten()
        .collect();
        drop(child); // reaped below with wait4, which std's Child would not report rusage for
        let mut streams: Vec<Stream> = pipes.into_iter().map(Stream::new).collect();
        let pidfd = pidfd_open(pid);

        let mut ended: Option<(libc::c_int, libc::rusage, f64)> = None;
        let mut killed_for: Option<ExitState> = None;
        let mut drain_deadline = None;
        loop {
            if ended.is_none() {
                if let Some(reaped) = try_reap(pid)? {
                    ended = Some((reaped.0, reaped.1, started.elapsed().as_secs_f64()));
                    drain_deadline = Some(Instant::now() + DRAIN_GRACE);
                }
            }
            let open = streams.iter().any(|s| s.open);
            if ended.is_some() && (!open || drain_deadline.is_some_and(|d| Instant::now() >= d)) {
                break;
            }
            if ended.is_none() && killed_for.is_none() {
                killed_for = if interrupted() {
                    Some(ExitState::Interrupted)
                } else if spec.timeout.is_some_and(|t| started.elapsed() >= t) {
                    Some(ExitState::TimedOut)
                } else {
                    None
                };
                if killed_for.is_some() {
                    // SAFETY: kill(2) on our own child's process group.
                    unsafe { libc::kill(-pid, libc::SIGKILL) };
                }
            }
            let wait_ms = match (&pidfd, ended.is_some()) {
                (Some(_), false) | (_, true) => WATCH_INTERVAL_MS,
                (None, false) => 1, // no pidfd: poll for the exit often
            };
            poll_once(
                &mut streams,
                pidfd.as_ref().filter(|_| ended.is_none()),
                wait_ms,
                &spec.extractor,
            );
        }
        let Some((mut status, mut usage, mut wall_s)) = ended else {
            unreachable!("loop ends only after the child was reaped")
        };
        if let Some(r) = report.as_ref().and_then(ReportPipe::read) {
            if r.exec_errno != 0 {
                return Err(spawn_error(
                    spec,
                    std::io::Error::from_raw_os_error(r.exec_errno),
                ));
            }
            status = r.status;
            wall_s = r.wall_ns as f64 / 1e9;
            usage.ru_utime = micros_timeval(r.user_us);
            usage.ru_stime = micros_timeval(r.sys_us);
            usage.ru_maxrss = r.max_rss_kib as libc::c_long;
        }
        let exit = match killed_for {
            Some(reason) => reason,
            None if libc::WIFSIGNALED(status) => ExitState::Signal(libc::WTERMSIG(status)),
            None => ExitState::Code(libc::WEXITSTATUS(status)),
        };
        let mut metrics = std::collections::BTreeMap::new();
        let mut tail = Vec::new();
        for mut stream in streams {
            stream.scanner.finish(&spec.extractor);
            metrics.extend(stream.scanner.metrics);
            tail.extend(stream.scanner.tail);
        }
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
            output_tail: tail.join("\n"),
            profile_json,
        })
    }
}

/// One output pipe of the child.
struct Stream {
    fd: OwnedFd,
    open: bool,
    scanner: LineScanner,
}

impl Stream {
    fn new(fd: OwnedFd) -> Self {
        // SAFETY: fcntl on a pipe we own.
        unsafe {
            let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
            libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
        Self {
            fd,
            open: true,
            scanner: LineScanner::default(),
        }
    }

    /// Reads what is available; marks the stream closed at end of file.
    fn drain(&mut self, extractor: &super::MetricExtractor) {
        let mut buffer = [0u8; 16 * 1024];
        loop {
            // SAFETY: reading into a local buffer of the given length.
            let n = unsafe {
                libc::read(
                    self.fd.as_raw_fd(),
                    buffer.as_mut_ptr().cast(),
                    buffer.len(),
                )
            };
            match n {
                0 => {
                    self.open = false;
                    return;
                }
                n if n > 0 => self.scanner.feed(&buffer[..n as usize], extractor),
                _ => {
                    let err = std::io::Error::last_os_error();
                    if err.kind() != std::io::ErrorKind::Interrupted {
                        if err.kind() != std::io::ErrorKind::WouldBlock {
                            self.open = false;
                        }
                        return;
                    }
                }
            }
        }
    }
}

fn poll_once(
    streams: &mut [Stream],
    pidfd: Option<&OwnedFd>,
    timeout_ms: i32,
    extractor: &super::MetricExtractor,
) {
    let mut fds: Vec<libc::pollfd> = streams
        .iter()
        .filter(|s| s.open)
        .map(|s| libc::pollfd {
            fd: s.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    if let Some(p) = pidfd {
        fds.push(libc::pollfd {
            fd: p.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        });
    }
    if fds.is_empty() {
        std::thread::sleep(Duration::from_millis(timeout_ms as u64));
        return;
    }
    // SAFETY: fds is a valid array of pollfd of the given length.
    let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
    if ready <= 0 {
        return;
    }
    let readable: Vec<RawFd> = fds
        .iter()
        .filter(|f| f.revents != 0)
        .map(|f| f.fd)
        .collect();
    for stream in streams
        .iter_mut()
        .filter(|s| s.open && readable.contains(&s.fd.as_raw_fd()))
    {
        stream.drain(extractor);
    }
}

/// A pidfd for the child, so poll can wake the moment it exits (Linux 5.3+).
fn pidfd_open(pid: libc::pid_t) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    // SAFETY: a non-negative result is a fresh fd that we now own.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Reaps the child if it has exited.
fn try_reap(pid: libc::pid_t) -> Result<Option<(libc::c_int, libc::rusage)>> {
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            return Ok(Some((status, usage)));
        }
        if r == 0 {
            return Ok(None);
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

fn micros_timeval(us: i64) -> libc::timeval {
    libc::timeval {
        tv_sec: (us / 1_000_000) as libc::time_t,
        tv_usec: (us % 1_000_000) as libc::suseconds_t,
    }
}

/// The command to spawn: through `perflab-exec` when there is a report to
/// write, else directly (then peak memory includes perflab's own size at
/// the fork, a Linux accounting effect).
fn build_command(spec: &RunSpec, report: Option<RawFd>) -> Result<Command> {
    let argv: Vec<String> = match &spec.command {
        CommandLine::Shell(text) => vec!["sh".into(), "-c".into(), text.clone()],
        CommandLine::Direct(args) if args.is_empty() => {
            return Err(Error::usage(
                "CMD",
                "the command is empty; give the program to run",
            ));
        }
        CommandLine::Direct(args) => args.clone(),
    };
    let mut command = match (trampoline(), report) {
        (Some(exec), Some(report)) => {
            let mut c = Command::new(exec);
            c.arg(report.to_string()).arg("--").args(&argv);
            c
        }
        _ => {
            let mut c = Command::new(&argv[0]);
            c.args(&argv[1..]);
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

fn timeval_seconds(t: libc::timeval) -> f64 {
    t.tv_sec as f64 + t.tv_usec as f64 / 1e6
}
