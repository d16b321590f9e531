//! Forking one command and reaping it, for both modes of perflab-exec.
//!
//! Between fork and exec the child only makes async-signal-safe system
//! calls on memory prepared before the fork: it must not allocate, and its
//! resident size at exec is what the command's peak memory starts from.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;

use crate::protocol::ExecReport;

unsafe extern "C" {
    /// The environment `execvp` passes on and looks PATH up in.
    static mut environ: *const *const libc::c_char;
}

/// What to start, and how.
pub(crate) struct Launch<'a> {
    /// The program (looked up in PATH) and its arguments.
    pub argv: &'a [CString],
    /// Where the program was found in PATH before the start, if it was
    /// looked up there (see the `program_path` module): exec'd first,
    /// `argv[0]` unchanged, with `execvp`'s search of `argv[0]` should
    /// that fail.
    pub program: Option<&'a CStr>,
    /// The whole environment: pointers to `KEY=VALUE` strings that outlive
    /// the start, the last one null; `None` keeps this process's.
    pub env: Option<&'a [*const libc::c_char]>,
    /// The directory to change to first.
    pub cwd: Option<&'a CStr>,
    /// The command's stdin, stdout and stderr; all above 2, so that moving
    /// one onto 0, 1 or 2 cannot overwrite another.
    pub stdio: Option<[RawFd; 3]>,
    /// A process group of its own, so that perflab can stop the whole tree.
    pub own_group: bool,
    /// The CPUs to pin the command to (inherited by its whole tree).
    pub cpus: Option<libc::cpu_set_t>,
    /// The `cgroup.procs` file of the run's own cgroup, which the command
    /// enters before its exec (see the `containment` module).
    pub cgroup_procs: Option<&'a CStr>,
    /// Read the command's run delay (`/proc/PID/schedstat`) before reaping
    /// it: its CPU wait where it has no cgroup of its own.
    pub run_delay: bool,
}

/// The stack a child started by [`start_sharing_memory`] runs on until its
/// exec, mapped once per process and grown when a command has more
/// arguments than it holds room for. Below it is a page no access is
/// allowed to, so that a child that outgrew it dies of SIGSEGV instead of
/// writing into this process's memory, which it shares.
pub(super) struct ChildStack {
    /// The mapping (guard page first), or null before the first use.
    base: *mut libc::c_void,
    len: usize,
}

impl ChildStack {
    /// Room for `exec_child`'s few frames and execvp's copies of a PATH
    /// entry (at most PATH_MAX) and the program's name; execvp also copies
    /// the argument pointers for a script without `#!`, which come on top.
    const ROOM: usize = 64 * 1024;

    /// No stack yet: it is mapped on first use.
    pub(super) fn new() -> Self {
        Self {
            base: std::ptr::null_mut(),
            len: 0,
        }
    }

    /// The lowest and highest usable addresses of a stack with room for
    /// `argc` arguments, mapped anew if the current one is smaller; `None`
    /// when the memory cannot be mapped. Only the pages the child touches
    /// become resident.
    fn ready(&mut self, argc: usize) -> Option<(usize, usize)> {
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
        let needed = (Self::ROOM + 8 * (argc + 2)).div_ceil(page) * page + page;
        if self.len < needed {
            self.unmap();
            // SAFETY: a new private anonymous mapping; its first page is
            // then made inaccessible, as a guard.
            unsafe {
                let base = libc::mmap(
                    std::ptr::null_mut(),
                    needed,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                    -1,
                    0,
                );
                if base == libc::MAP_FAILED {
                    return None;
                }
                self.base = base;
                self.len = needed;
                if libc::mprotect(base, page, libc::PROT_NONE) != 0 {
                    self.unmap();
                    return None;
                }
            }
        }
        let base = self.base as usize;
        Some((base + page, base + self.len))
    }

    fn unmap(&mut self) {
        if !self.base.is_null() {
            // SAFETY: the mapping made in `ready`, unused by any child now.
            unsafe { libc::munmap(self.base, self.len) };
        }
        self.base = std::ptr::null_mut();
        self.len = 0;
    }
}

impl Drop for ChildStack {
    fn drop(&mut self) {
        self.unmap();
    }
}

/// A started command, not yet reaped.
pub(super) struct Running {
    /// Its process id (and process group id, with `own_group`).
    pub pid: libc::pid_t,
    started_ns: u64,
    exec_errno: ExecErrno,
    run_delay: bool,
}

/// Why the command's exec failed, if it did.
enum ExecErrno {
    /// Known when the command started: a child sharing this process's
    /// memory wrote it into a variable of ours before it exited, and the
    /// clone returned only after its exec or exit (CLONE_VFORK). 0 after a
    /// successful exec.
    Known(libc::c_int),
    /// A forked child writes it into this pipe; end of file after a
    /// successful exec (the child's end is close-on-exec).
    Pipe(OwnedFd),
}

/// Where the child reports why its exec failed.
#[derive(Clone, Copy)]
enum ErrnoTo {
    /// The write end of the pipe of [`ExecErrno::Pipe`].
    Pipe(RawFd),
    /// The variable of [`ExecErrno::Known`], in the memory the child shares.
    Shared(*mut libc::c_int),
}

/// Starts commands: the stack a child sharing this process's memory runs
/// on, and the directory of the cgroup the last command was started in,
/// kept open for the next (a fork server starts every run in the same
/// cgroup, and opening it is a path walk on each run's way to its start).
pub(super) struct Spawner {
    stack: ChildStack,
    cgroup_dir: Option<(CString, OwnedFd)>,
}

/// How a command ended, as `wait4` saw it.
pub(super) struct Report {
    wall_ns: u64,
    usage: libc::rusage,
    /// The raw wait status.
    pub status: libc::c_int,
    exec_errno: libc::c_int,
    run_delay_ns: Option<u64>,
}

impl Spawner {
    /// Nothing mapped or opened yet.
    pub(super) fn new() -> Self {
        Self {
            stack: ChildStack::new(),
            cgroup_dir: None,
        }
    }

    /// The directory of the cgroup whose `cgroup.procs` is `procs`, opened
    /// once while the same cgroup is asked for.
    fn cgroup_dir(&mut self, procs: &CStr) -> Option<&OwnedFd> {
        if self
            .cgroup_dir
            .as_ref()
            .is_none_or(|(known, _)| known.as_c_str() != procs)
        {
            self.cgroup_dir = cgroup_dir_of(procs).map(|dir| (procs.to_owned(), dir));
        }
        self.cgroup_dir.as_ref().map(|(_, dir)| dir)
    }

    /// Forks and execs the command.
    ///
    /// With `share_memory`, the child runs on this spawner's stack sharing
    /// this process's memory until its exec (as vfork and posix_spawn do),
    /// which skips copying the page tables; used where the run's peak
    /// memory is read from a cgroup and not from rusage (see the fork
    /// below for why rusage needs a fork). Where that is not available,
    /// the child is forked.
    pub(super) fn start(&mut self, launch: &Launch, share_memory: bool) -> io::Result<Running> {
        let argv = pointers(launch.argv);
        let env = launch.env;
        // Into a cgroup, the child is born there (clone3 with
        // CLONE_INTO_CGROUP, otherwise a fork like any other): a process
        // that moves itself by writing cgroup.procs takes the cgroups'
        // write lock, which waits for an RCU grace period, 10 to 15 ms on
        // this project's VM when runs are tens of milliseconds apart, and
        // that wait fell inside the run's wall time. The write is kept for
        // kernels without clone3 (before 5.7).
        let cgroup_dir = match launch.cgroup_procs {
            Some(procs) => self.cgroup_dir(procs).map(|dir| dir.as_raw_fd()),
            None => None,
        };
        if share_memory {
            let mut exec_errno: libc::c_int = 0;
            let child = ChildArgs {
                launch,
                argv: &argv,
                env,
                errno_to: ErrnoTo::Shared(&raw mut exec_errno),
            };
            let started_ns = now_ns();
            if let Some(pid) = start_sharing_memory(&mut self.stack, cgroup_dir, &child) {
                // SAFETY: a local, written by the child (if at all) before
                // its exec or exit, which the clone waited for. The child
                // set its own process group before its exec, so the
                // parent's setpgid of the fork below is not needed.
                let exec_errno = unsafe { std::ptr::read_volatile(&raw const exec_errno) };
                return Ok(Running {
                    pid,
                    started_ns,
                    exec_errno: ExecErrno::Known(exec_errno),
                    run_delay: launch.run_delay,
                });
            }
        }
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe2 fills two descriptors, close-on-exec so that a
        // successful exec closes the child's end.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both descriptors were just created and are owned here.
        let (errno_read, errno_write) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        let started_ns = now_ns();
        // Fork, not vfork or posix_spawn, though those skip copying the
        // page tables: at exec the kernel carries the old address space's
        // high-water mark into the command's rusage peak memory, and a
        // vforked child's old address space is this whole process (its
        // mapped binary and libraries included, about 2 MiB), while a
        // forked copy starts with little more than the pages this process
        // wrote (heap and stack, about 150 KiB). A cgroup's peak charge has
        // no such floor.
        // SAFETY: this process is single-threaded, and the child only runs
        // `exec_child`, which makes async-signal-safe calls and never returns.
        let (pid, enter_in_child) = match cgroup_dir {
            Some(dir) => match clone_into(dir) {
                Ok(pid) => (pid, None),
                Err(_) => (unsafe { libc::fork() }, launch.cgroup_procs),
            },
            None => (unsafe { libc::fork() }, None),
        };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            // SAFETY: in the child, with argv and env prepared before the fork.
            unsafe {
                exec_child(
                    launch,
                    enter_in_child,
                    &argv,
                    env,
                    ErrnoTo::Pipe(errno_write.as_raw_fd()),
                )
            }
        }
        if launch.own_group {
            // Also from this side (as shells do), so that the group exists by
            // the time perflab is told the pid, whichever process runs first.
            // After the child's exec this fails with EACCES, harmlessly: it
            // did it itself.
            // SAFETY: setpgid on our own child.
            unsafe { libc::setpgid(pid, pid) };
        }
        Ok(Running {
            pid,
            started_ns,
            exec_errno: ExecErrno::Pipe(errno_read),
            run_delay: launch.run_delay,
        })
    }
}

/// The child's side: set up, exec, or report why exec failed.
///
/// # Safety
/// Only to be called in a freshly forked child of a single-threaded process.
unsafe fn exec_child(
    launch: &Launch,
    enter_cgroup: Option<&CStr>,
    argv: &[*const libc::c_char],
    env: Option<&[*const libc::c_char]>,
    errno_to: ErrnoTo,
) -> ! {
    // SAFETY (whole body): async-signal-safe system calls on descriptors and
    // memory that were valid at the fork.
    unsafe {
        let report = |errno: libc::c_int| -> ! {
            match errno_to {
                ErrnoTo::Pipe(fd) => {
                    libc::write(fd, (&errno as *const libc::c_int).cast(), 4);
                }
                ErrnoTo::Shared(variable) => variable.write_volatile(errno),
            }
            libc::_exit(127)
        };
        let fail = || -> ! { report(*libc::__errno_location()) };
        if launch.own_group {
            libc::setpgid(0, 0);
        }
        if let Some(procs) = enter_cgroup {
            // Writing 0 moves the writing process; all it starts follows.
            let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                report(-*libc::__errno_location());
            }
            libc::close(fd);
        }
        if let Some(mask) = &launch.cpus {
            let size = std::mem::size_of::<libc::cpu_set_t>();
            if libc::sched_setaffinity(0, size, mask) != 0 {
                fail();
            }
        }
        if let Some(dir) = launch.cwd {
            if libc::chdir(dir.as_ptr()) != 0 {
                fail();
            }
        }
        if let Some(stdio) = launch.stdio {
            for (target, fd) in stdio.into_iter().enumerate() {
                if libc::dup2(fd, target as RawFd) < 0 {
                    fail();
                }
            }
        }
        // Rust's runtime ignores SIGPIPE in this process; an ignored signal
        // stays ignored across exec, which would change how a command like
        // `yes | head` ends. Start the command with defaults, as std does.
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        if let Some(env) = env {
            // As std does: execvp then both passes this environment on and
            // looks the program up in its PATH.
            environ = env.as_ptr();
        }
        if let Some(program) = launch.program {
            // A path with a `/`: no search, and a script without `#!` still
            // runs with /bin/sh, as execvp does.
            libc::execvp(program.as_ptr(), argv.as_ptr());
        }
        libc::execvp(argv[0], argv.as_ptr());
        fail()
    }
}

impl Running {
    /// Blocks until the command exits (true), or until `perflab_end`, this
    /// process's end of a socket or pipe whose other end only perflab
    /// holds, shows that perflab is gone (false): a hang-up or an error on
    /// it, which the kernel reports however perflab ended, `kill -9`
    /// included. Without pidfds (Linux before 5.3) it only says true, and
    /// `wait` then blocks as before.
    pub(crate) fn exits_before_perflab(&self, perflab_end: RawFd) -> bool {
        let Some(pidfd) = crate::pidfd::open(self.pid) else {
            return true;
        };
        loop {
            let mut fds = [
                libc::pollfd {
                    fd: pidfd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                },
                // Hang-ups and errors are reported whatever is asked for.
                libc::pollfd {
                    fd: perflab_end,
                    events: 0,
                    revents: 0,
                },
            ];
            // SAFETY: two valid pollfds, waiting without a limit.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) };
            if n < 0 {
                if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return true;
            }
            if fds[0].revents != 0 {
                return true;
            }
            if fds[1].revents & (libc::POLLHUP | libc::POLLERR) != 0 {
                return false;
            }
        }
    }

    /// Ends a run whose perflab is gone: its process group, everything in
    /// its cgroup (whose `cgroup.procs` is given), then reaps it and
    /// removes the cgroup, so that nothing perflab started outlives it.
    pub(crate) fn end_orphaned(self, cgroup_procs: Option<&CStr>) {
        // SAFETY: kill(2) of the run's own process group.
        unsafe { libc::kill(-self.pid, libc::SIGKILL) };
        let dir = cgroup_procs.and_then(|procs| {
            let procs = std::path::Path::new(std::ffi::OsStr::from_bytes(procs.to_bytes()));
            let _ = std::fs::write(procs.with_file_name("cgroup.kill"), "1");
            procs.parent().map(std::path::Path::to_path_buf)
        });
        let _ = self.wait();
        if let Some(dir) = dir {
            // The killed processes leave the cgroup as they exit.
            for _ in 0..100 {
                if std::fs::remove_dir(&dir).is_ok() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
    }

    /// Waits for the command to end, then reads whether its exec failed.
    pub(super) fn wait(self) -> io::Result<Report> {
        let run_delay_ns = if self.run_delay {
            self.run_delay_at_exit()?
        } else {
            None
        };
        let mut status: libc::c_int = 0;
        // SAFETY: plain data filled by wait4.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        loop {
            // SAFETY: wait4 on our own child with valid out-pointers.
            if unsafe { libc::wait4(self.pid, &mut status, 0, &mut usage) } == self.pid {
                break;
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                return Err(err);
            }
        }
        let wall_ns = now_ns().saturating_sub(self.started_ns);
        let exec_errno = match &self.exec_errno {
            ExecErrno::Known(errno) => *errno,
            ExecErrno::Pipe(pipe) => {
                let mut errno: libc::c_int = 0;
                // SAFETY: reading at most one int into a local; every writer
                // is gone, so this returns at once.
                unsafe {
                    libc::read(
                        pipe.as_raw_fd(),
                        (&mut errno as *mut libc::c_int).cast(),
                        std::mem::size_of::<libc::c_int>(),
                    )
                };
                errno
            }
        };
        Ok(Report {
            wall_ns,
            usage,
            status,
            exec_errno,
            run_delay_ns,
        })
    }

    /// Waits for the command to exit without reaping it, then reads its run
    /// delay while its /proc entry still exists.
    fn run_delay_at_exit(&self) -> io::Result<Option<u64>> {
        loop {
            // SAFETY: waitid on our own child, into a zeroed siginfo.
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            let flags = libc::WEXITED | libc::WNOWAIT;
            if unsafe { libc::waitid(libc::P_PID, self.pid as libc::id_t, &mut info, flags) } == 0 {
                break;
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::Interrupted {
                return Err(err);
            }
        }
        let path = format!("/proc/{}/schedstat\0", self.pid);
        let mut buffer = [0u8; 128];
        // SAFETY: open, read into a local buffer, close; the path is NUL-ended.
        let n = unsafe {
            let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
            if fd < 0 {
                return Ok(None);
            }
            let n = libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len());
            libc::close(fd);
            n
        };
        let read = usize::try_from(n).ok().and_then(|n| buffer.get(..n));
        Ok(read.and_then(crate::containment::parse_run_delay))
    }
}

impl Report {
    /// What perflab is told of the run.
    pub(crate) fn exec_report(&self) -> ExecReport {
        ExecReport {
            run_delay_ns: self.run_delay_ns,
            ..ExecReport::from_wait4(self.wall_ns, &self.usage, self.status, self.exec_errno)
        }
    }
}

/// What a child started by [`start_sharing_memory`] needs to exec: all
/// prepared before it starts, since it must not allocate.
struct ChildArgs<'a> {
    launch: &'a Launch<'a>,
    argv: &'a [*const libc::c_char],
    env: Option<&'a [*const libc::c_char]>,
    errno_to: ErrnoTo,
}

/// Where a child started by [`start_sharing_memory`] begins, on its own
/// stack.
extern "C" fn shared_child_entry(data: *mut libc::c_void) -> ! {
    // SAFETY: `data` is the ChildArgs on the parent's stack, which stays as
    // it is while the parent is suspended until this child's exec or exit
    // (CLONE_VFORK); the child is born already in its cgroup.
    unsafe {
        let child = &*(data as *const ChildArgs);
        exec_child(child.launch, None, child.argv, child.env, child.errno_to)
    }
}

/// Starts the child on `stack`, sharing this process's memory until its
/// exec, in the cgroup `cgroup_dir` if given (clone3 with CLONE_VM,
/// CLONE_VFORK and CLONE_INTO_CGROUP). Written by hand because neither std
/// nor libc offers a vfork into a cgroup: posix_spawn cannot place the
/// child in a cgroup, and moving it there by writing cgroup.procs costs an
/// RCU grace period (see `start`). `None` where that is not available (an
/// architecture other than x86-64, a kernel before 5.7), and the caller
/// forks instead.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn start_sharing_memory(
    stack: &mut ChildStack,
    cgroup_dir: Option<RawFd>,
    child: &ChildArgs,
) -> Option<libc::pid_t> {
    let (base, top) = stack.ready(child.argv.len())?;
    // The x86-64 ABI wants the stack 16-byte aligned at a call.
    let top = top & !15;
    let args = CloneArgs {
        flags: libc::CLONE_VM as u64
            | libc::CLONE_VFORK as u64
            | cgroup_dir.map_or(0, |_| CLONE_INTO_CGROUP),
        exit_signal: libc::SIGCHLD as u64,
        stack: base as u64,
        stack_size: (top - base) as u64,
        cgroup: cgroup_dir.map_or(0, |dir| dir as u64),
        ..CloneArgs::default()
    };
    // SAFETY: all signals are blocked around the clone, as posix_spawn does,
    // so that no handler runs in the child on the memory it shares; the
    // child unblocks them just before its exec. The child may set `environ`
    // (shared memory), so the parent puts its own back; this process is
    // single-threaded, and the parent does not run until the child has
    // exec'd or exited.
    let result = unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut previous: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut previous);
        let own_environment = environ;
        let result = clone3_on_stack(
            &args,
            shared_child_entry,
            (child as *const ChildArgs).cast_mut().cast(),
        );
        environ = own_environment;
        libc::pthread_sigmask(libc::SIG_SETMASK, &previous, std::ptr::null_mut());
        result
    };
    (result > 0).then_some(result as libc::pid_t)
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
fn start_sharing_memory(
    _stack: &mut ChildStack,
    _cgroup_dir: Option<RawFd>,
    _child: &ChildArgs,
) -> Option<libc::pid_t> {
    None
}

/// clone3 whose child starts on the stack `args` gives and calls `entry`
/// with `data` there; returns the child's pid, or a negative errno. The
/// child cannot return from the system call as the parent does, since the
/// parent's frames are not on its stack.
///
/// # Safety
/// `args` must ask for a stack, `entry` must never return, and the child
/// may only use what `data` points to while the parent waits for it.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
unsafe fn clone3_on_stack(
    args: &CloneArgs,
    entry: extern "C" fn(*mut libc::c_void) -> !,
    data: *mut libc::c_void,
) -> libc::c_long {
    let result: libc::c_long;
    // SAFETY: the system call's contract above; r12 and r13 survive the
    // system call into the child, which calls `entry` and never comes back.
    unsafe {
        std::arch::asm!(
            "syscall",
            "test rax, rax",
            "jnz 2f",
            "mov rdi, r13",
            "call r12",
            "ud2",
            "2:",
            inlateout("rax") libc::SYS_clone3 => result,
            in("rdi") args as *const CloneArgs,
            in("rsi") std::mem::size_of::<CloneArgs>(),
            in("r12") entry,
            in("r13") data,
            lateout("rcx") _,
            lateout("r11") _,
        );
    }
    result
}

/// The flag of clone3 that starts the child in the cgroup `cgroup` names
/// (Linux 5.7); written here because the libc crate's constant is not
/// defined alike on every target.
const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;

/// clone3's arguments (`struct clone_args`, include/uapi/linux/sched.h),
/// up to the `cgroup` field that came with CLONE_INTO_CGROUP.
#[repr(C)]
#[derive(Default)]
struct CloneArgs {
    flags: u64,
    pidfd: u64,
    child_tid: u64,
    parent_tid: u64,
    exit_signal: u64,
    stack: u64,
    stack_size: u64,
    tls: u64,
    set_tid: u64,
    set_tid_size: u64,
    cgroup: u64,
}

/// A fork whose child starts in the cgroup `dir`: the child's pid, 0 in
/// the child, or the error (ENOSYS and the like on older kernels).
fn clone_into(dir: RawFd) -> io::Result<libc::pid_t> {
    let args = CloneArgs {
        flags: CLONE_INTO_CGROUP,
        exit_signal: libc::SIGCHLD as u64,
        cgroup: dir as u64,
        ..CloneArgs::default()
    };
    // SAFETY: clone3 without CLONE_VM behaves as fork: the child gets a copy
    // of this single-threaded process and runs on from here; the arguments
    // live on this stack for the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_clone3,
            &args as *const CloneArgs,
            std::mem::size_of::<CloneArgs>(),
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(r as libc::pid_t)
}

/// The directory of a cgroup, opened from the path of its cgroup.procs.
fn cgroup_dir_of(procs: &CStr) -> Option<OwnedFd> {
    let path = std::path::Path::new(std::ffi::OsStr::from_bytes(procs.to_bytes())).parent()?;
    let dir = CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: a NUL-terminated path; the descriptor is new and ours.
    let fd = unsafe {
        libc::open(
            dir.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

/// A null-terminated array of pointers into `strings`, for exec.
fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

fn now_ns() -> u64 {
    // SAFETY: clock_gettime fills a timespec.
    let mut t: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c_strings(items: &[&str]) -> Vec<CString> {
        items.iter().map(|s| CString::new(*s).unwrap()).collect()
    }

    fn launch<'a>(argv: &'a [CString], env: Option<&'a [*const libc::c_char]>) -> Launch<'a> {
        Launch {
            argv,
            program: None,
            env,
            cwd: None,
            stdio: None,
            own_group: false,
            cpus: None,
            cgroup_procs: None,
            run_delay: false,
        }
    }

    #[test]
    fn a_command_started_sharing_memory_runs_and_ends_with_its_own_exit_code() {
        let argv = c_strings(&["sh", "-c", "exit 3"]);
        let mut spawner = Spawner::new();
        let report = spawner
            .start(&launch(&argv, None), true)
            .unwrap()
            .wait()
            .unwrap();
        assert!(libc::WIFEXITED(report.status));
        assert_eq!(libc::WEXITSTATUS(report.status), 3);
        assert_eq!(report.exec_errno, 0);
        // The same stack serves the next command.
        let argv = c_strings(&["true"]);
        let report = spawner
            .start(&launch(&argv, None), true)
            .unwrap()
            .wait()
            .unwrap();
        assert_eq!(libc::WEXITSTATUS(report.status), 0);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn on_x86_64_a_command_is_started_sharing_memory_and_not_by_the_fork_fallback() {
        let argv = c_strings(&["true"]);
        let pointers = pointers(&argv);
        let child = ChildArgs {
            launch: &launch(&argv, None),
            argv: &pointers,
            env: None,
            errno_to: ErrnoTo::Pipe(-1),
        };
        let pid = start_sharing_memory(&mut ChildStack::new(), None, &child)
            .expect("clone3 with CLONE_VM (Linux 5.3 and later)");
        let mut status = 0;
        // SAFETY: waiting for our own child.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    }

    #[test]
    fn a_script_without_a_shebang_and_many_arguments_started_sharing_memory_runs() {
        // execvp runs such a script with /bin/sh, copying every argument
        // pointer onto the child's stack: 20,000 of them need 160 KB.
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("no-shebang");
        std::fs::write(&script, "exit 7\n").unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let mut args = vec![script.to_str().unwrap().to_string()];
        args.extend(std::iter::repeat_n("x".to_string(), 20_000));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let argv = c_strings(&args);
        let mut spawner = Spawner::new();
        let report = spawner
            .start(&launch(&argv, None), true)
            .unwrap()
            .wait()
            .unwrap();
        assert!(libc::WIFEXITED(report.status), "status {}", report.status);
        assert_eq!(libc::WEXITSTATUS(report.status), 7);
        assert!(spawner.stack.len > ChildStack::ROOM + 8 * 20_000);
    }

    #[test]
    fn a_spawner_opens_a_cgroup_directory_once_while_the_same_one_is_asked_for() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        let procs =
            |d: &std::path::Path| CString::new(d.join("cgroup.procs").to_str().unwrap()).unwrap();
        let inode = |fd: RawFd| {
            // SAFETY: fstat of a descriptor the spawner holds, into a local.
            let mut stat: libc::stat = unsafe { std::mem::zeroed() };
            assert_eq!(unsafe { libc::fstat(fd, &mut stat) }, 0);
            stat.st_ino
        };
        let mut spawner = Spawner::new();
        let first = spawner.cgroup_dir(&procs(&a)).unwrap().as_raw_fd();
        assert_eq!(inode(first), std::fs::metadata(&a).unwrap().ino());
        // The same cgroup again: the same descriptor, not a new one.
        assert_eq!(spawner.cgroup_dir(&procs(&a)).unwrap().as_raw_fd(), first);
        let other = spawner.cgroup_dir(&procs(&b)).unwrap().as_raw_fd();
        assert_eq!(inode(other), std::fs::metadata(&b).unwrap().ino());
        assert!(
            spawner
                .cgroup_dir(&procs(&dir.path().join("gone")))
                .is_none()
        );
    }

    #[test]
    fn a_missing_program_started_sharing_memory_reports_why_its_exec_failed() {
        let argv = c_strings(&["/nonexistent/perflab-test-program"]);
        let report = Spawner::new()
            .start(&launch(&argv, None), true)
            .unwrap()
            .wait()
            .unwrap();
        assert_eq!(report.exec_errno, libc::ENOENT);
        assert_eq!(libc::WEXITSTATUS(report.status), 127);
    }

    #[test]
    fn a_command_started_sharing_memory_gets_its_environment_and_path_and_leaves_ours_alone() {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("perflab-test-only-here");
        std::fs::write(&program, "#!/bin/sh\n[ \"$PERFLAB_SPAWN_TEST\" = given ]\n").unwrap();
        std::fs::set_permissions(
            &program,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        // Found only through the PATH given to the command, as std's
        // Command does with an environment of its own.
        let path = format!("PATH={}:/usr/bin:/bin", dir.path().display());
        let env = c_strings(&[&path, "PERFLAB_SPAWN_TEST=given"]);
        let env = pointers(&env);
        let argv = c_strings(&["perflab-test-only-here"]);
        let report = Spawner::new()
            .start(&launch(&argv, Some(&env)), true)
            .unwrap()
            .wait()
            .unwrap();
        assert_eq!(report.exec_errno, 0);
        assert_eq!(libc::WEXITSTATUS(report.status), 0);
        assert!(std::env::var_os("PERFLAB_SPAWN_TEST").is_none());
        assert_ne!(
            std::env::var("PATH").ok().as_deref(),
            Some(&path["PATH=".len()..])
        );
    }

    /// The exit codes of `argv` started with `program` as the path found
    /// before the start, sharing memory and forked.
    fn exit_codes_with_program_found(program: &CStr, argv: &[&str]) -> [i32; 2] {
        let argv = c_strings(argv);
        [true, false].map(|share_memory| {
            let launch = Launch {
                program: Some(program),
                ..launch(&argv, None)
            };
            let report = Spawner::new()
                .start(&launch, share_memory)
                .unwrap()
                .wait()
                .unwrap();
            assert_eq!(report.exec_errno, 0);
            libc::WEXITSTATUS(report.status)
        })
    }

    #[test]
    fn a_program_found_before_the_start_runs_under_the_name_it_was_given() {
        let argv = ["sh", "-c", "[ \"$0\" = sh ] && exit 5"];
        assert_eq!(exit_codes_with_program_found(c"/bin/sh", &argv), [5, 5]);
    }

    #[test]
    fn a_program_found_before_the_start_that_went_away_is_searched_for_again() {
        let gone = c"/nonexistent-perflab-test/sh";
        assert_eq!(
            exit_codes_with_program_found(gone, &["sh", "-c", "exit 6"]),
            [6, 6]
        );
    }
}
