//! What perflab and `perflab-exec` say to each other, defined once for both
//! ends: the fork server's requests and replies, and the report line of a
//! run (written by the server and by the one-shot mode alike).
//!
//! The fork server (`perflab-exec --serve FD`) talks over a `SOCK_SEQPACKET`
//! Unix socket (one message per request or reply, so no framing), one run
//! at a time:
//!
//! - request: [`VERSION`], then fields, each ended by a NUL byte and
//!   starting with a tag: `A` an argument (the first is the program, looked
//!   up in PATH), `E` a `KEY=VALUE` to set on top of the server's
//!   environment (which is perflab's), `D` the working directory (a relative
//!   one is resolved against the server's, which is perflab's), `C` the
//!   CPUs to pin the command to, as a CPU list (`0-1,4`), `G` the
//!   `cgroup.procs` file of the run's own cgroup, which the command enters
//!   before its exec (without it, the server reads the command's run delay
//!   from `/proc/PID/schedstat` before reaping it), `M` (empty) when perflab
//!   reads the run's peak memory from a cgroup, not from rusage, so that the
//!   server may start the command sharing its memory until the exec, as
//!   vfork does (without it, the server forks; see `spawn::Spawner::start`), `S`
//!   (empty) when the server, once it has reported on the run, is to look
//!   for the next request without sleeping for up to [`SPIN_FOR`] (see
//!   below). Three
//!   descriptors ride along (SCM_RIGHTS): the command's stdin, stdout,
//!   stderr. At most [`MAX_REQUEST`] bytes.
//! - reply `perflab-exec/4 pid PID`: the command runs in its own process
//!   group PID (perflab kills it there at a timeout or on Ctrl-C), then,
//!   once it is reaped, the [`ExecReport`] line.
//! - or reply `perflab-exec/4 error ERRNO`: nothing was started.
//!
//! Waking a sleeping process on another CPU takes tens of microseconds on
//! a virtual machine (an interrupt to the other CPU, which the hypervisor
//! delivers, and whose sending holds up the sender's CPU), and a run
//! through the server has three such wake-ups that a loop forking its runs
//! itself does not: the server's on a request, and perflab's on the reply
//! `pid` and on a report. Both sides therefore poll without sleeping, for
//! up to [`SPIN_FOR`], where the other's message is due within that time
//! and the run is not yet, or no longer, its command: the server for the
//! next request after a report (`S`), perflab for the reply `pid` (sent
//! once the command was exec'd, on the CPU where it then waits for the
//! server) and for the report once the run has exited. Neither side
//! polls on a single CPU (the poller would hold up the very
//! process it waits for) or while another run may be going on beside this
//! one (the poller would take a CPU from it). Between two looks the poller
//! yields its CPU (`sched_yield`): with several CPUs the scheduler may
//! still wake the process it waits for on the poller's own CPU, and
//! without a yield that process would wait there until the polling ends.
//!
//! End of file on the socket (perflab exited) ends the server. A hang-up
//! during a run (perflab ended, even by `kill -9`) makes the server end
//! the run (its process group and everything in its cgroup) and exit, so
//! that nothing perflab started outlives it; the one-shot mode does the
//! same when the read end of its report pipe closes.

/// The first field of every request and the first word of every reply.
pub const VERSION: &str = "perflab-exec/4";

/// The longest either side polls for the other's message without sleeping
/// (see the module's documentation): a few times the time perflab takes
/// between a report and its next request, short beside a sleep's wake-up
/// when the message comes later after all.
pub const SPIN_FOR: std::time::Duration = std::time::Duration::from_micros(200);

/// Looks for the other side's message with `look` until it finds it (or
/// fails) or [`SPIN_FOR`] has passed; `Ok(None)` then. Between two looks
/// it gives this CPU to another process waiting for it, if any: on the
/// poller's CPU, the process whose message is awaited would otherwise wait
/// until the polling ends (a run's trace showed perflab, woken on the
/// server's CPU, waiting out the server's whole 200 µs).
pub(crate) fn poll_briefly<T, E>(
    mut look: impl FnMut() -> Result<Option<T>, E>,
) -> Result<Option<T>, E> {
    let until = std::time::Instant::now() + SPIN_FOR;
    loop {
        if let Some(found) = look()? {
            return Ok(Some(found));
        }
        if std::time::Instant::now() >= until {
            return Ok(None);
        }
        // SAFETY: sched_yield has no preconditions.
        unsafe { libc::sched_yield() };
    }
}

/// The first word of a report line.
pub(crate) const REPORT_VERSION: &str = "perflab-exec/1";

/// The largest request the server takes; perflab starts a run whose
/// request is larger (a huge command line) through the one-shot mode.
pub const MAX_REQUEST: usize = 64 * 1024;

/// A field of a request holds a NUL byte, which would end it early.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("it contains a NUL byte")]
pub struct NulByte;

/// One run asked of the fork server, its fields borrowed from the caller
/// (encoding) or from the received message (decoding).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request<'a> {
    /// The program and its arguments; never empty in a decoded request.
    pub argv: Vec<&'a [u8]>,
    /// `KEY=VALUE` pairs set on top of the server's environment, in order
    /// (a key given twice: the last one wins).
    pub env: Vec<&'a [u8]>,
    /// The working directory, if not the server's.
    pub cwd: Option<&'a [u8]>,
    /// The CPUs to pin the command to, as a CPU list, if any.
    pub cpus: Option<&'a [u8]>,
    /// The `cgroup.procs` file of the run's cgroup, if it has one.
    pub cgroup_procs: Option<&'a [u8]>,
    /// perflab reads the run's peak memory from a cgroup, not from rusage.
    pub peak_memory_from_cgroup: bool,
    /// Once it has reported on the run, the server polls for the next
    /// request without sleeping, for up to [`SPIN_FOR`].
    pub spin_for_next: bool,
}

impl<'a> Request<'a> {
    /// The message, or `None` when it is larger than [`MAX_REQUEST`].
    pub fn encode(&self) -> Result<Option<Vec<u8>>, NulByte> {
        let mut out = [VERSION.as_bytes(), b"\0"].concat();
        let tagged = self
            .argv
            .iter()
            .map(|a| (b'A', *a))
            .chain(self.env.iter().map(|e| (b'E', *e)))
            .chain(self.cwd.map(|d| (b'D', d)))
            .chain(self.cpus.map(|c| (b'C', c)))
            .chain(self.cgroup_procs.map(|g| (b'G', g)))
            .chain(self.peak_memory_from_cgroup.then_some((b'M', &b""[..])))
            .chain(self.spin_for_next.then_some((b'S', &b""[..])));
        for (tag, bytes) in tagged {
            if bytes.contains(&0) {
                return Err(NulByte);
            }
            out.push(tag);
            out.extend_from_slice(bytes);
            out.push(0);
        }
        Ok((out.len() <= MAX_REQUEST).then_some(out))
    }

    /// Reads a message; `None` when it is not a request of this version, has
    /// an unknown field, an `E` field without `=`, or no program.
    pub fn decode(bytes: &'a [u8]) -> Option<Self> {
        let mut fields = bytes.split(|&b| b == 0);
        if fields.next()? != VERSION.as_bytes() {
            return None;
        }
        let mut request = Request::default();
        for field in fields {
            match field.split_first() {
                Some((b'A', arg)) => request.argv.push(arg),
                Some((b'E', pair)) if pair.contains(&b'=') => request.env.push(pair),
                Some((b'D', dir)) => request.cwd = Some(dir),
                Some((b'C', cpus)) => request.cpus = Some(cpus),
                Some((b'G', procs)) => request.cgroup_procs = Some(procs),
                Some((b'M', [])) => request.peak_memory_from_cgroup = true,
                Some((b'S', [])) => request.spin_for_next = true,
                None => {} // after the last NUL
                Some(_) => return None,
            }
        }
        (!request.argv.is_empty()).then_some(request)
    }
}

/// The server's answer to a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reply {
    /// The run started, in its own process group of this id.
    Started {
        /// Its process id, also its process group.
        pid: i32,
    },
    /// Nothing was started, for this errno.
    Refused {
        /// Why, as an errno (e.g. ENOENT for a missing program).
        errno: i32,
    },
}

impl Reply {
    /// The message.
    pub(crate) fn line(&self) -> String {
        match self {
            Reply::Started { pid } => format!("{VERSION} pid {pid}"),
            Reply::Refused { errno } => format!("{VERSION} error {errno}"),
        }
    }

    /// Reads a message; `None` for anything else.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        let mut words = text.split_whitespace();
        if words.next()? != VERSION {
            return None;
        }
        let (kind, number) = (words.next()?, words.next()?.parse().ok()?);
        match (kind, words.next()) {
            ("pid", None) => Some(Reply::Started { pid: number }),
            ("error", None) => Some(Reply::Refused { errno: number }),
            _ => None,
        }
    }
}

/// What `perflab-exec` measured of one run: the report line
/// `perflab-exec/1 WALL_NS USER_US SYS_US MAXRSS_KIB WAIT_STATUS EXEC_ERRNO
/// RUN_DELAY_NS` (the last field -1 when not measured; a line without it,
/// from an older `perflab-exec`, reads as not measured).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecReport {
    /// Wall time from fork to reaping, nanoseconds.
    pub wall_ns: u64,
    /// User CPU time of the command's process tree, microseconds.
    pub user_us: i64,
    /// System CPU time, microseconds.
    pub sys_us: i64,
    /// Peak resident size of the largest process of the tree, KiB.
    pub peak_memory_kib: i64,
    /// The raw wait status.
    pub status: i32,
    /// Non-zero when the program could not be started: the errno of its
    /// exec, or the errno negated when it could not enter its cgroup.
    pub exec_errno: i32,
    /// The command's own run delay (`/proc/PID/schedstat`: time runnable
    /// but waiting for a CPU), nanoseconds, when it was asked for and the
    /// kernel keeps it.
    pub run_delay_ns: Option<u64>,
}

impl ExecReport {
    /// The report of a run reaped by `wait4`, from what it returned.
    pub(crate) fn from_wait4(
        wall_ns: u64,
        usage: &libc::rusage,
        status: i32,
        exec_errno: i32,
    ) -> Self {
        Self {
            wall_ns,
            user_us: micros(usage.ru_utime),
            sys_us: micros(usage.ru_stime),
            peak_memory_kib: wide(usage.ru_maxrss),
            status,
            exec_errno,
            run_delay_ns: None,
        }
    }

    /// The report line, ended by a newline.
    pub(crate) fn line(&self) -> String {
        format!(
            "{REPORT_VERSION} {} {} {} {} {} {} {}\n",
            self.wall_ns,
            self.user_us,
            self.sys_us,
            self.peak_memory_kib,
            self.status,
            self.exec_errno,
            self.run_delay_ns.map_or(-1, |ns| ns as i64)
        )
    }

    /// Reads a report line; `None` for anything else.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        let mut words = text.split_whitespace();
        if words.next()? != REPORT_VERSION {
            return None;
        }
        let mut next = || words.next()?.parse::<i64>().ok();
        let (wall_ns, user_us, sys_us) = (next()?, next()?, next()?);
        let (peak_memory_kib, status, exec_errno) = (next()?, next()?, next()?);
        let run_delay_ns = match words.next() {
            None => None,
            Some(word) => u64::try_from(word.parse::<i64>().ok()?).ok(),
        };
        Some(ExecReport {
            wall_ns: u64::try_from(wall_ns).ok()?,
            user_us,
            sys_us,
            peak_memory_kib,
            status: i32::try_from(status).ok()?,
            exec_errno: i32::try_from(exec_errno).ok()?,
            run_delay_ns,
        })
    }
}

fn micros(t: libc::timeval) -> i64 {
    wide(t.tv_sec) * 1_000_000 + wide(t.tv_usec)
}

/// The C integer types are i64 on 64-bit Linux, narrower on 32-bit.
#[allow(clippy::unnecessary_cast)]
fn wide(n: libc::c_long) -> i64 {
    n as i64
}

#[cfg(test)]
mod tests;
