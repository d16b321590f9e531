//! `perflab-exec --serve FD`: the fork server. perflab starts it once and
//! asks it for every run, so that a run costs one start and exec of the
//! command, not also one of perflab-exec, while the command still starts
//! from a process as small as this one (see the parent module for why that
//! matters). Where perflab reads the run's peak memory from a cgroup, the
//! command starts sharing this process's memory until its exec (see
//! `spawn::Spawner::start`).
//!
//! The protocol is [`crate::protocol`].

use std::ffi::{CString, OsString};
use std::os::fd::{FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;

use super::fail;
use super::program_path::ProgramPaths;
use super::spawn::{Launch, Spawner};
use crate::cpu_set::CpuSet;
use crate::protocol::{MAX_REQUEST, Reply, Request};

/// Answers requests until perflab closes its end of `socket`; first moves
/// into the v1 memory cgroup whose `tasks` file is `memory_tasks`, if
/// given.
pub(super) fn serve(socket: RawFd, memory_tasks: Option<OsString>) -> ! {
    // The commands must not inherit the socket.
    // SAFETY: fcntl on the descriptor number perflab gave.
    if unsafe { libc::fcntl(socket, libc::F_SETFD, libc::FD_CLOEXEC) } != 0 {
        fail("the socket descriptor is not open");
    }
    // This process has one thread, so moving the thread (the `tasks` file)
    // moves the process, without the wait of a `cgroup.procs` write (see
    // the `memory_peak` module). Requests wait in the socket meanwhile.
    if let Some(tasks) = memory_tasks {
        if std::fs::write(&tasks, "0").is_err() {
            fail(&format!(
                "cannot enter the memory cgroup of {}",
                std::path::Path::new(&tasks).display()
            ));
        }
    }
    // Reserved once, never initialised as a whole: only the bytes a request
    // fills are touched, so this process stays as small as at its start.
    let mut buffer: Vec<u8> = Vec::with_capacity(MAX_REQUEST);
    let mut server = Server {
        spawner: Spawner::new(),
        environment: Environment::of_this_process(),
        programs: ProgramPaths::new(),
    };
    let mut spin = false;
    loop {
        spin = match receive(socket, &mut buffer, spin) {
            None => std::process::exit(0),
            Some(Ok(stdio)) => run(socket, &buffer, stdio, &mut server),
            Some(Err(errno)) => {
                reply(socket, Reply::Refused { errno });
                false
            }
        }
    }
}

/// What the server keeps from one request to the next.
struct Server {
    spawner: Spawner,
    environment: Environment,
    programs: ProgramPaths,
}

/// Starts one request's command, tells perflab its pid, waits, reports.
/// The command starts through the server's spawner, sharing this process's
/// memory until its exec, where perflab reads its peak memory from a
/// cgroup. True when the run was reported on and perflab asked the server
/// to poll for the next request without sleeping.
fn run(socket: RawFd, request: &[u8], stdio: [OwnedFd; 3], server: &mut Server) -> bool {
    let Server {
        spawner,
        environment,
        programs,
    } = server;
    let Some(request) = Request::decode(request) else {
        reply(
            socket,
            Reply::Refused {
                errno: libc::EINVAL,
            },
        );
        return false;
    };
    // Fields are split at NUL bytes, so none holds one.
    let c_string = |bytes: &[u8]| CString::new(bytes).unwrap_or_default();
    let argv: Vec<CString> = request.argv.iter().map(|a| c_string(a)).collect();
    let cwd = request.cwd.map(c_string);
    let cgroup_procs = request.cgroup_procs.map(c_string);
    let env = (!request.env.is_empty()).then(|| environment.with(&request.env));
    let program = request
        .argv
        .first()
        .and_then(|name| programs.look_up(name, environment.path(&request.env)));
    let cpus = match request.cpus.map(cpu_mask) {
        None => None,
        Some(Some(mask)) => Some(mask),
        Some(None) => {
            let errno = libc::EINVAL;
            reply(socket, Reply::Refused { errno });
            return false;
        }
    };
    let fds = [0, 1, 2].map(|i| std::os::fd::AsRawFd::as_raw_fd(&stdio[i]));
    let launch = Launch {
        argv: &argv,
        program,
        env: env.as_ref().map(|env| env.pointers.as_slice()),
        cwd: cwd.as_deref(),
        stdio: Some(fds),
        own_group: true,
        cpus,
        cgroup_procs: cgroup_procs.as_deref(),
        run_delay: cgroup_procs.is_none(),
    };
    let started = spawner.start(&launch, request.peak_memory_from_cgroup);
    // Only the command may hold the pipes now: perflab sees end of file
    // on them when it (and whatever it started) is done.
    drop(stdio);
    let running = match started {
        Ok(running) => running,
        Err(e) => {
            let errno = e.raw_os_error().unwrap_or(libc::EIO);
            reply(socket, Reply::Refused { errno });
            return false;
        }
    };
    let pid = running.pid;
    if !reply(socket, Reply::Started { pid }) {
        // perflab is gone and cannot measure this run: stop it.
        // SAFETY: kill(2) on the process group of our own child.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
    if !running.exits_before_perflab(socket) {
        running.end_orphaned(cgroup_procs.as_deref());
        std::process::exit(0);
    }
    let report = running.wait().unwrap_or_else(|_| fail("wait4 failed"));
    send(socket, &report.exec_report().line()) && request.spin_for_next
}

/// The kernel's mask of a CPU list, built before the fork; `None` when the
/// list is not one.
fn cpu_mask(list: &[u8]) -> Option<libc::cpu_set_t> {
    let text = std::str::from_utf8(list).ok()?;
    CpuSet::parse(text).ok().map(|set| set.mask())
}

/// This process's environment as `KEY=VALUE` strings, read once when the
/// server starts (nothing changes it later): each request's overrides are
/// applied to it. Rebuilding it from `std::env::vars_os` for every request
/// took about 6 µs, on the way from perflab's request to the run's start.
struct Environment {
    pairs: Vec<CString>,
}

/// One run's environment, built before the fork because the child must
/// not allocate: the overrides' strings, and `pointers`, null-terminated
/// for exec, to those and to the inherited strings they leave in place.
struct RunEnvironment<'e> {
    _overrides: Vec<CString>,
    pointers: Vec<*const libc::c_char>,
    _inherited: std::marker::PhantomData<&'e Environment>,
}

impl Environment {
    fn of_this_process() -> Self {
        let pairs = std::env::vars_os()
            .filter_map(|(k, v)| CString::new([k.as_bytes(), b"=", v.as_bytes()].concat()).ok())
            .collect();
        Environment { pairs }
    }

    /// The PATH a run with `overrides` (`KEY=VALUE`) has: the last
    /// override's, else this process's.
    fn path<'a>(&'a self, overrides: &[&'a [u8]]) -> Option<&'a [u8]> {
        let path = |pair: &'a [u8]| pair.strip_prefix(b"PATH=");
        overrides
            .iter()
            .rev()
            .find_map(|pair| path(pair))
            .or_else(|| self.pairs.iter().find_map(|pair| path(pair.as_bytes())))
    }

    /// This environment with `overrides` (`KEY=VALUE`) applied: an
    /// override replaces the inherited variable, and of a key given twice
    /// the last one wins, as with std's Command.
    fn with(&self, overrides: &[&[u8]]) -> RunEnvironment<'_> {
        fn key(pair: &[u8]) -> &[u8] {
            pair.split(|&b| b == b'=').next().unwrap_or_default()
        }
        let keys: Vec<&[u8]> = overrides.iter().map(|o| key(o)).collect();
        let overrides: Vec<CString> = overrides
            .iter()
            .enumerate()
            .filter(|(i, _)| !keys[i + 1..].contains(&keys[*i]))
            .filter_map(|(_, o)| CString::new(*o).ok())
            .collect();
        let pointers = self
            .pairs
            .iter()
            .filter(|pair| !keys.contains(&key(pair.as_bytes())))
            .chain(&overrides)
            .map(|pair| pair.as_ptr())
            .chain(std::iter::once(std::ptr::null()))
            .collect();
        RunEnvironment {
            _overrides: overrides,
            pointers,
            _inherited: std::marker::PhantomData,
        }
    }
}

/// Receives the next request into `buffer` with its three descriptors,
/// polling for it without sleeping for up to [`crate::protocol::SPIN_FOR`]
/// first if `spin`.
/// `None` at end of file; `Some(Err(errno))` for a malformed message.
fn receive(socket: RawFd, buffer: &mut Vec<u8>, spin: bool) -> Option<Result<[OwnedFd; 3], i32>> {
    buffer.clear();
    let mut iov = libc::iovec {
        iov_base: buffer.as_mut_ptr().cast(),
        iov_len: buffer.capacity(),
    };
    // u64s, for the alignment cmsghdr needs; room for three descriptors.
    let mut control = [0u64; 8];
    // SAFETY: a zeroed msghdr is valid; the pointers set below outlive the call.
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &mut iov;
    message.msg_iovlen = 1;
    message.msg_control = control.as_mut_ptr().cast();
    let mut receive_with = |flags: libc::c_int| loop {
        message.msg_controllen = std::mem::size_of_val(&control) as _;
        // SAFETY: recvmsg writes at most the sizes given into buffers we own;
        // received descriptors are close-on-exec until handed to a command.
        let n = unsafe { libc::recvmsg(socket, &mut message, libc::MSG_CMSG_CLOEXEC | flags) };
        if n >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break n;
        }
    };
    let polled = if spin {
        crate::protocol::poll_briefly(|| match receive_with(libc::MSG_DONTWAIT) {
            n if n >= 0 => Ok(Some(n)),
            _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::WouldBlock => {
                Ok(None)
            }
            n => Err(n),
        })
    } else {
        Ok(None)
    };
    let n = match polled {
        Ok(Some(n)) | Err(n) => n,
        Ok(None) => receive_with(0),
    };
    if n <= 0 {
        return None; // perflab closed its end (or the socket broke: same)
    }
    // SAFETY: recvmsg initialised the first n bytes.
    unsafe { buffer.set_len(n as usize) };
    let mut fds = Vec::new();
    // SAFETY: walking the control messages recvmsg filled in, with libc's
    // own macros; each SCM_RIGHTS payload is an array of new descriptors.
    unsafe {
        let mut header = libc::CMSG_FIRSTHDR(&message);
        while !header.is_null() {
            if (*header).cmsg_level == libc::SOL_SOCKET && (*header).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(header).cast::<RawFd>();
                let count = ((*header).cmsg_len as usize - libc::CMSG_LEN(0) as usize) / 4;
                for i in 0..count {
                    fds.push(OwnedFd::from_raw_fd(data.add(i).read_unaligned()));
                }
            }
            header = libc::CMSG_NXTHDR(&message, header);
        }
    }
    let whole = message.msg_flags & (libc::MSG_TRUNC | libc::MSG_CTRUNC) == 0;
    // Above 2 so that moving them onto 0, 1 and 2 cannot overwrite each other;
    // this process's own 0, 1 and 2 are open, so received ones always are.
    let fds: Option<[OwnedFd; 3]> = fds.try_into().ok();
    Some(match fds {
        Some(fds) if whole && fds.iter().all(|fd| std::os::fd::AsRawFd::as_raw_fd(fd) > 2) => {
            Ok(fds)
        }
        _ => Err(libc::EINVAL),
    })
}

/// Sends one reply; false when perflab is gone.
fn reply(socket: RawFd, reply: Reply) -> bool {
    send(socket, &reply.line())
}

/// Sends one message; false when perflab is gone.
fn send(socket: RawFd, text: &str) -> bool {
    // SAFETY: sending a local buffer; MSG_NOSIGNAL turns a closed peer into
    // EPIPE instead of a signal.
    let sent = unsafe { libc::send(socket, text.as_ptr().cast(), text.len(), libc::MSG_NOSIGNAL) };
    sent == text.len() as isize
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsRawFd;
    use std::time::Duration;

    use super::*;
    use crate::seqpacket;

    /// Sends `request` with three descriptors of /dev/null, as perflab does
    /// with a run's stdin, stdout and stderr.
    fn send_request(socket: &OwnedFd, request: &[u8]) {
        let null: Vec<std::fs::File> = (0..3)
            .map(|_| std::fs::File::open("/dev/null").unwrap())
            .collect();
        let fds = [0, 1, 2].map(|i| null[i].as_raw_fd());
        seqpacket::send_with_fds(socket, request, &fds).unwrap();
    }

    #[test]
    fn a_request_waiting_when_the_server_polls_for_it_is_received_whole() {
        let (perflab, server) = seqpacket::pair().unwrap();
        send_request(&perflab, b"perflab-exec/4\0Atrue\0");
        let mut buffer = Vec::with_capacity(MAX_REQUEST);
        let received = receive(server.as_raw_fd(), &mut buffer, true);
        assert!(matches!(received, Some(Ok(_))), "{received:?}");
        assert_eq!(buffer, b"perflab-exec/4\0Atrue\0");
    }

    #[test]
    fn a_request_that_comes_after_the_polling_ended_is_still_received() {
        let (perflab, server) = seqpacket::pair().unwrap();
        let late = crate::protocol::SPIN_FOR * 50;
        let sender = std::thread::spawn(move || {
            std::thread::sleep(late);
            send_request(&perflab, b"perflab-exec/4\0Afalse\0");
            perflab
        });
        let mut buffer = Vec::with_capacity(MAX_REQUEST);
        let received = receive(server.as_raw_fd(), &mut buffer, true);
        assert!(matches!(received, Some(Ok(_))), "{received:?}");
        assert_eq!(buffer, b"perflab-exec/4\0Afalse\0");
        drop(sender.join().unwrap());
    }

    #[test]
    fn perflab_closing_its_end_while_the_server_polls_ends_the_server_s_wait() {
        let (perflab, server) = seqpacket::pair().unwrap();
        drop(perflab);
        let mut buffer = Vec::with_capacity(MAX_REQUEST);
        assert!(receive(server.as_raw_fd(), &mut buffer, true).is_none());
        let (perflab, server) = seqpacket::pair().unwrap();
        let closer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            drop(perflab);
        });
        assert!(receive(server.as_raw_fd(), &mut buffer, true).is_none());
        closer.join().unwrap();
    }

    #[test]
    fn a_run_s_path_is_its_last_override_s_or_else_the_server_s() {
        let environment = Environment {
            pairs: vec![c"HOME=/root".into(), c"PATH=/usr/bin:/bin".into()],
        };
        assert_eq!(environment.path(&[]), Some(&b"/usr/bin:/bin"[..]));
        let overrides: [&[u8]; 3] = [b"PATH=/a", b"PATHS=/x", b"PATH=/b"];
        assert_eq!(environment.path(&overrides), Some(&b"/b"[..]));
        let none = Environment { pairs: Vec::new() };
        assert_eq!(none.path(&[b"HOME=/root"]), None);
    }

    #[test]
    fn an_override_replaces_the_inherited_variable_and_the_last_of_two_wins() {
        let inherited = std::env::vars_os().next();
        let mut overrides: Vec<Vec<u8>> = vec![b"PERFLAB_EXEC_TEST=1".to_vec()];
        if let Some((key, _)) = &inherited {
            overrides.push([key.as_bytes(), b"=replaced"].concat());
        }
        overrides.push(b"PERFLAB_EXEC_TEST=2".to_vec());
        let overrides: Vec<&[u8]> = overrides.iter().map(Vec::as_slice).collect();
        let environment = Environment::of_this_process();
        let run = environment.with(&overrides);
        assert!(run.pointers.last().is_some_and(|last| last.is_null()));
        // SAFETY: the pointers before the last are to the NUL-ended strings
        // `run` and `environment` hold.
        let env: Vec<&[u8]> = run.pointers[..run.pointers.len() - 1]
            .iter()
            .map(|&pointer| unsafe { std::ffi::CStr::from_ptr(pointer) }.to_bytes())
            .collect();
        let with = |prefix: &[u8]| {
            env.iter()
                .filter(|pair| pair.starts_with(prefix))
                .map(|pair| pair.to_vec())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            with(b"PERFLAB_EXEC_TEST="),
            [b"PERFLAB_EXEC_TEST=2".to_vec()]
        );
        if let Some((key, _)) = inherited {
            let prefix = [key.as_bytes(), b"="].concat();
            assert_eq!(with(&prefix), [[prefix.as_slice(), b"replaced"].concat()]);
        }
        assert_eq!(env.len(), std::env::vars_os().count() + 1);
    }
}
