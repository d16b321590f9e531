//! `perflab-exec`: starts measured runs for perflab, in one of two modes.
//!
//! - `perflab-exec --serve FD [--cgroup TASKS]`: a fork server. perflab
//!   starts it once and sends it one request per run over the Unix socket
//!   FD; see [`crate::protocol`]. With `--cgroup`, it first moves itself
//!   into the v1 memory cgroup whose `tasks` file is TASKS, so that the
//!   runs it starts are born there.
//! - `perflab-exec FD [--cgroup PROCS] -- PROGRAM [ARGS...]`: starts one run
//!   (moved into the cgroup whose `cgroup.procs` file is PROCS, if given)
//!   and writes what `wait4` says of it to the inherited file descriptor FD
//!   (a pipe). perflab
//!   uses this when it attaches performance counters between fork and exec,
//!   or when a request is too large for the server.
//!
//! Why a separate, small program: Linux keeps a process's memory high-water
//! mark across `exec` (a forked child starts from its parent's resident
//! size), so a command forked straight from perflab would report perflab's
//! own resident size (several MiB, more with a large store) as its peak
//! memory. Forked from this program, whose resident size is about that of
//! `true`, the peak is the command's own. Timing the run here also leaves
//! perflab's own work out of the wall time.
//!
//! The report is one line, [`crate::protocol::ExecReport`].
//!
//! The perflab command's `perflab-exec` binary is [`main`] and nothing else:
//! it links only the code this module reaches (std, libc and the protocol),
//! none of perflab's, so its resident size stays that of a small C program.

mod fork_server;
mod program_path;
mod spawn;

use std::ffi::{CString, OsString};
use std::os::unix::ffi::OsStringExt;

/// The whole of `perflab-exec`: reads its command line and runs one mode.
pub fn main() -> ! {
    let mut args = std::env::args_os().skip(1);
    let (Some(first), Some(second)) = (args.next(), args.next()) else {
        usage();
    };
    if first == "--serve" {
        let memory_tasks = match (args.next(), args.next()) {
            (None, _) => None,
            (Some(flag), Some(tasks)) if flag == "--cgroup" => Some(tasks),
            _ => usage(),
        };
        fork_server::serve(descriptor(second), memory_tasks);
    }
    let cgroup_procs = match second.to_str() {
        Some("--") => None,
        Some("--cgroup") => {
            let procs = args.next().unwrap_or_else(|| usage());
            if args.next().is_none_or(|dashes| dashes != "--") {
                usage();
            }
            Some(CString::new(procs.into_vec()).unwrap_or_else(|_| usage()))
        }
        _ => usage(),
    };
    once(descriptor(first), cgroup_procs, args.collect());
}

/// One run, reported to the pipe `report_fd`; exits as the command did.
fn once(report_fd: libc::c_int, cgroup_procs: Option<CString>, args: Vec<OsString>) -> ! {
    // The command must not inherit the report pipe.
    // SAFETY: fcntl on a descriptor number given by perflab.
    if unsafe { libc::fcntl(report_fd, libc::F_SETFD, libc::FD_CLOEXEC) } != 0 {
        fail("the report descriptor is not open");
    }
    let argv: Vec<CString> = args
        .into_iter()
        .map(|a| CString::new(a.into_vec()).unwrap_or_else(|_| usage()))
        .collect();
    if argv.is_empty() {
        usage();
    }
    // perflab already put this process in the run's own group, set the
    // environment, the directory and the output pipes.
    let launch = spawn::Launch {
        argv: &argv,
        program: None,
        env: None,
        cwd: None,
        stdio: None,
        own_group: false,
        // perflab pinned this process already, and the pin is inherited.
        cpus: None,
        cgroup_procs: cgroup_procs.as_deref(),
        run_delay: cgroup_procs.is_none(),
    };
    let running = spawn::Spawner::new()
        .start(&launch, false)
        .unwrap_or_else(|_| fail("cannot fork"));
    if !running.exits_before_perflab(report_fd) {
        running.end_orphaned(cgroup_procs.as_deref());
        std::process::exit(125);
    }
    let report = running.wait().unwrap_or_else(|_| fail("wait4 failed"));
    let line = report.exec_report().line();
    // SAFETY: writing a local buffer to the report pipe.
    let written = unsafe { libc::write(report_fd, line.as_ptr().cast(), line.len()) };
    if written != line.len() as isize {
        fail("cannot write the report");
    }
    let status = report.status;
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    std::process::exit(code);
}

/// A descriptor number given on the command line.
fn descriptor(arg: OsString) -> libc::c_int {
    arg.to_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| usage())
}

fn usage() -> ! {
    eprintln!(
        "perflab-exec: perflab's run starter; usage: perflab-exec FD [--cgroup PROCS] -- PROGRAM \
         [ARGS...] or perflab-exec --serve FD [--cgroup TASKS]"
    );
    std::process::exit(2);
}

/// Gives up with a message naming the last system error.
fn fail(what: &str) -> ! {
    eprintln!("perflab-exec: {what}: {}", std::io::Error::last_os_error());
    std::process::exit(125);
}
