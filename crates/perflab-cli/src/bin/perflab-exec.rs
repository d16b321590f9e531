//! `perflab-exec FD -- PROGRAM [ARGS...]`: starts one measured run for
//! perflab and writes what `wait4` says of it to the inherited file
//! descriptor FD (a pipe: no file system is involved).
//!
//! Why a separate, small program: Linux keeps a process's memory high-water
//! mark across `exec`, so a command forked straight from perflab would
//! report perflab's own resident size (several MiB, more with a large
//! store) as its peak memory. Forked from this program, whose resident size
//! is about that of `true`, the peak is the command's own. Timing the run
//! here also leaves perflab's own process start-up out of the wall time.
//!
//! FD gets one line: `perflab-exec/1 WALL_NS USER_US SYS_US MAXRSS_KIB
//! WAIT_STATUS EXEC_ERRNO`, where EXEC_ERRNO is non-zero when the program
//! could not be started.

use std::ffi::CString;
use std::os::unix::ffi::OsStringExt;

fn main() {
    let mut args = std::env::args_os().skip(1);
    let (Some(report), Some(separator)) = (args.next(), args.next()) else {
        usage();
    };
    let report: libc::c_int = report
        .to_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| usage());
    if separator != "--" {
        usage();
    }
    // The command must not inherit the report pipe.
    // SAFETY: fcntl on a descriptor number given by perflab.
    if unsafe { libc::fcntl(report, libc::F_SETFD, libc::FD_CLOEXEC) } != 0 {
        fail("the report descriptor is not open");
    }
    let argv: Vec<CString> = args
        .map(|a| CString::new(a.into_vec()).unwrap_or_else(|_| usage()))
        .collect();
    if argv.is_empty() {
        usage();
    }
    let mut pointers: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    pointers.push(std::ptr::null());

    // The child reports a failed exec through this pipe (closed on a successful exec).
    let mut pipe = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills two descriptors.
    if unsafe { libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        fail("cannot create a pipe");
    }
    let started = now_ns();
    // SAFETY: the child only calls async-signal-safe functions before exec or _exit.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        fail("cannot fork");
    }
    if pid == 0 {
        unsafe {
            libc::execvp(pointers[0], pointers.as_ptr());
            let errno = *libc::__errno_location();
            libc::write(
                pipe[1],
                (&errno as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>(),
            );
            libc::_exit(127);
        }
    }
    unsafe { libc::close(pipe[1]) };
    let mut status: libc::c_int = 0;
    // SAFETY: plain data filled by wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            fail("wait4 failed");
        }
    }
    let wall_ns = now_ns().saturating_sub(started);
    let mut exec_errno: libc::c_int = 0;
    unsafe {
        libc::read(
            pipe[0],
            (&mut exec_errno as *mut libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>(),
        )
    };
    let micros = |t: libc::timeval| t.tv_sec * 1_000_000 + t.tv_usec;
    let line = format!(
        "perflab-exec/1 {wall_ns} {} {} {} {status} {exec_errno}\n",
        micros(usage.ru_utime),
        micros(usage.ru_stime),
        usage.ru_maxrss
    );
    // SAFETY: writing a local buffer to the report pipe.
    let written = unsafe { libc::write(report, line.as_ptr().cast(), line.len()) };
    if written != line.len() as isize {
        fail("cannot write the report");
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    std::process::exit(code);
}

fn now_ns() -> u64 {
    // SAFETY: clock_gettime fills a timespec.
    let mut t: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

fn usage() -> ! {
    eprintln!("perflab-exec: perflab's run starter; usage: perflab-exec FD -- PROGRAM [ARGS...]");
    std::process::exit(2);
}

fn fail(what: &str) -> ! {
    eprintln!("perflab-exec: {what}: {}", std::io::Error::last_os_error());
    std::process::exit(125);
}
