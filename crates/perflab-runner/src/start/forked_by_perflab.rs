//! Runs that perflab forks itself: through a one-shot `perflab-exec` that
//! reports through a pipe, or directly when `perflab-exec` is not
//! installed. The fork server cannot attach performance counters between
//! fork and exec, so runs with counters take this path too, as does a
//! request too large for the server.

use std::ffi::{CStr, CString};
use std::os::fd::{OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::RunSpec;
use crate::cpu_set::pin_to;
use crate::error::{Error, Result};
use crate::perf_events::{Attached, PerfEventSet};
use crate::pidfd;
use crate::protocol::ExecReport;
use crate::start::one_shot_exec::{ReportPipe, installed_perflab_exec};
use crate::start::run_stdio::RunStdio;
use crate::start::spawn_error::spawn_error;

/// A run forked by perflab, not yet reaped.
pub(crate) struct LocalRun {
    /// Its process id, also its process group.
    pub pid: libc::pid_t,
    pidfd: Option<OwnedFd>,
    report: Option<ReportPipe>,
    started: Instant,
    /// Read its run delay before reaping it (it has no cgroup of its own).
    run_delay: bool,
    /// The counters attached to it, if any.
    pub counters: Option<Attached>,
}

impl LocalRun {
    /// Starts `argv`, in the cgroup whose `cgroup.procs` is given if any,
    /// and in the v1 memory cgroup whose `tasks` file is `memory_tasks`
    /// if any; returns the run and the read ends of its stdout and stderr.
    pub(crate) fn spawn(
        spec: &RunSpec,
        argv: &[String],
        counters: Option<&PerfEventSet>,
        cgroup_procs: Option<&CStr>,
        memory_tasks: Option<&CStr>,
        stdio: RunStdio,
    ) -> Result<(Self, Vec<OwnedFd>)> {
        let mut report = match installed_perflab_exec() {
            Some(_) => Some(ReportPipe::new().map_err(|source| Error::Io {
                path: "pipe".into(),
                source,
            })?),
            None => None,
        };
        let report_fd = report.as_ref().map(ReportPipe::write_fd);
        let [stdout, stderr] = stdio.write;
        let mut command = build_command(spec, argv, report_fd, cgroup_procs, memory_tasks);
        command.stdout(stdout).stderr(stderr);
        let attaching = counters
            .map(|set| set.attach_to(&mut command))
            .transpose()?;
        let started = Instant::now();
        let spawned = command.spawn();
        drop(command); // its copies of our descriptors
        if let Some(r) = report.as_mut() {
            r.close_write();
        }
        let counters = attaching.map(|a| a.attached());
        let child = spawned.map_err(|e| spawn_error(spec, e))?;
        let pid = child.id() as libc::pid_t;
        let pipes = stdio.read;
        drop(child); // reaped below with wait4, which std's Child would not report rusage for
        let run = Self {
            pid,
            pidfd: pidfd::open(pid),
            report,
            started,
            run_delay: cgroup_procs.is_none(),
            counters,
        };
        Ok((run, pipes))
    }

    /// Readable once the run exited, where the kernel has pidfds (5.3+).
    pub(crate) fn end_fd(&self) -> Option<RawFd> {
        self.pidfd.as_ref().map(std::os::fd::AsRawFd::as_raw_fd)
    }

    /// Reaps the run if it has ended: `perflab-exec`'s report when there is
    /// one, else what perflab's own `wait4` saw.
    pub(crate) fn try_end(&mut self) -> Result<Option<ExecReport>> {
        if !exited(self.pid)? {
            return Ok(None);
        }
        let wall_ns = self.started.elapsed().as_nanos() as u64;
        // Read while the process is a zombie, before wait4 removes it;
        // perflab-exec's report carries its command's own.
        let run_delay_ns = (self.run_delay && self.report.is_none())
            .then(|| run_delay_of(self.pid))
            .flatten();
        let Some((status, usage)) = try_reap(self.pid)? else {
            return Ok(None);
        };
        if let Some(report) = self.report.as_ref().and_then(ReportPipe::read) {
            return Ok(Some(report));
        }
        Ok(Some(ExecReport {
            run_delay_ns,
            ..ExecReport::from_wait4(wall_ns, &usage, status, 0)
        }))
    }
}

/// Whether the child has exited, without reaping it.
fn exited(pid: libc::pid_t) -> Result<bool> {
    loop {
        // SAFETY: waitid on our own child, into a zeroed siginfo.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        if unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) } == 0 {
            // SAFETY: waitid filled the siginfo; si_pid is 0 when nothing exited.
            return Ok(unsafe { info.si_pid() } != 0);
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

/// The run delay of an exited, not yet reaped child.
fn run_delay_of(pid: libc::pid_t) -> Option<u64> {
    let text = std::fs::read(format!("/proc/{pid}/schedstat")).ok()?;
    crate::containment::parse_run_delay(&text)
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

/// The command to spawn: through `perflab-exec` when there is a report to
/// write (it moves the command into the cgroup), else directly (then peak
/// memory, where rusage gives it, includes perflab's own size at the fork,
/// a Linux accounting effect, and the command moves itself into the
/// cgroup). Either process enters the v1 memory cgroup whose `tasks` file
/// is `memory_tasks` before its exec (it has one thread, so that moves the
/// process; see the `memory_peak` module): a one-shot `perflab-exec` there
/// forks the command into it outside the run's wall time, and its own
/// pages count with the run's; a command forked directly pays for its move
/// in its wall time.
fn build_command(
    spec: &RunSpec,
    argv: &[String],
    report: Option<RawFd>,
    cgroup_procs: Option<&CStr>,
    memory_tasks: Option<&CStr>,
) -> Command {
    let mut enters_cgroup = None;
    let mut command = match (installed_perflab_exec(), report) {
        (Some(exec), Some(report)) => {
            let mut c = Command::new(exec);
            c.arg(report.to_string());
            if let Some(procs) = cgroup_procs {
                c.arg("--cgroup")
                    .arg(std::ffi::OsStr::from_bytes(procs.to_bytes()));
            }
            c.arg("--").args(argv);
            c
        }
        _ => {
            enters_cgroup = cgroup_procs.map(CStr::to_owned);
            let mut c = Command::new(&argv[0]);
            c.args(&argv[1..]);
            c
        }
    };
    command
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        // Its own process group: a timeout or Ctrl-C can then stop the whole
        // tree, and the terminal's Ctrl-C reaches perflab, not the run.
        .process_group(0);
    if let Some(path) = &spec.profile_path {
        command.env("PERFLAB_PROFILE", path);
    }
    if let Some(dir) = &spec.cwd {
        command.current_dir(dir);
    }
    if let Some(cpus) = &spec.cpus {
        let mask = cpus.mask();
        // SAFETY: the hook makes one async-signal-safe system call on a
        // mask prepared before the fork; perflab-exec and the command it
        // starts inherit the pin.
        unsafe {
            command.pre_exec(move || pin_to(&mask));
        }
    }
    for file in enters_cgroup
        .into_iter()
        .chain(memory_tasks.map(CStr::to_owned))
    {
        // SAFETY: the hook makes async-signal-safe system calls on a path
        // prepared before the fork.
        unsafe {
            command.pre_exec(move || enter_cgroup(&file));
        }
    }
    command
}

/// Moves the calling process into the cgroup whose `cgroup.procs` `file`
/// is, or whose v1 `tasks` file it is where the process has one thread.
fn enter_cgroup(file: &CString) -> std::io::Result<()> {
    // SAFETY: open, write and close of a NUL-terminated path and a static byte.
    unsafe {
        let fd = libc::open(file.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let written = libc::write(fd, b"0".as_ptr().cast(), 1);
        let error = std::io::Error::last_os_error();
        libc::close(fd);
        if written != 1 {
            return Err(error);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;
    use crate::{CommandLine, CpuSet};

    /// What `Cpus_allowed_list` a run started by perflab itself shows, for
    /// itself and for a child of its shell.
    fn cpus_seen_by_a_local_run(cpus: Option<CpuSet>) -> Vec<String> {
        let text = "grep Cpus_allowed_list /proc/self/status; sh -c 'grep Cpus_allowed_list /proc/$$/status'";
        let spec = RunSpec {
            cpus,
            ..RunSpec::new(CommandLine::Shell(text.into()))
        };
        let argv = ["sh".to_string(), "-c".into(), text.into()];
        let (mut run, mut pipes) = LocalRun::spawn(
            &spec,
            &argv,
            None,
            None,
            None,
            RunStdio::open(&spec.output).unwrap(),
        )
        .unwrap();
        let mut out = String::new();
        std::fs::File::from(pipes.remove(0))
            .read_to_string(&mut out)
            .unwrap();
        while run.try_end().unwrap().is_none() {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        out.lines()
            .map(|l| l.split_whitespace().nth(1).unwrap_or("").to_string())
            .collect()
    }

    #[test]
    fn a_pinned_run_and_its_children_see_only_the_pinned_cpus() {
        let allowed = CpuSet::allowed().unwrap();
        let last = allowed.cpus().last().unwrap().to_string();
        let seen = cpus_seen_by_a_local_run(Some(CpuSet::parse(&last).unwrap()));
        assert_eq!(seen, [last.clone(), last]);
        let unpinned = cpus_seen_by_a_local_run(None);
        assert_eq!(unpinned, [allowed.to_string(), allowed.to_string()]);
    }
}
