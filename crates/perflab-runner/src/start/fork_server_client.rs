//! perflab's side of the fork server, `perflab-exec --serve` (the protocol
//! is in [`crate::protocol`]). Started once per executor, on the first run,
//! it forks every run from a process about as small as `true`, so that the
//! run's peak memory is its own (Linux carries a parent's resident size
//! into a forked child's high-water mark), without paying for one more
//! process start per run as the one-shot `perflab-exec` does.
//!
//! Every wait on the server is bounded: a reply to a request must come
//! within [`ANSWER_WITHIN`], and the end of a run shows as the socket
//! becoming readable, with a report or with end of file when the server
//! died. A server that died or misbehaved is marked broken, the run fails
//! with an error saying so, and the next run starts a new server.

use std::ffi::CStr;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::RunSpec;
use crate::error::{Error, Result};
use crate::pidfd;
use crate::protocol::{ExecReport, Reply};
use crate::seqpacket::{self, Received};
use crate::start::run_stdio::RunStdio;
use crate::start::spawn_error::spawn_error;

/// How long the server may take to answer a request.
const ANSWER_WITHIN: Duration = Duration::from_secs(10);

/// A running `perflab-exec --serve` and perflab's end of its socket.
#[derive(Debug)]
pub(crate) struct ForkServer {
    process: Child,
    socket: OwnedFd,
    /// The runs' stdin, opened once.
    null: OwnedFd,
    broken: bool,
}

/// A run the server started and has not yet reported on.
pub(crate) struct ServedRun<'a> {
    server: &'a mut ForkServer,
    /// The run's process id, also its process group.
    pub pid: libc::pid_t,
    /// The command, for error messages.
    command: String,
    /// Readable once the run exited (not its child, so perflab cannot reap it).
    pidfd: Option<OwnedFd>,
    /// When the pidfd first showed the run had exited.
    exited_at: Option<Instant>,
}

impl ForkServer {
    /// Starts `exec --serve`, in the v1 memory cgroup whose `tasks` file is
    /// `memory_tasks`, if any: the runs it forks are then born there,
    /// without a move of their own (see the `memory_peak` module).
    pub(crate) fn start(exec: &Path, memory_tasks: Option<&CStr>) -> Result<Self> {
        let io = |source| Error::Io {
            path: exec.to_path_buf(),
            source,
        };
        let (ours, theirs) = seqpacket::pair().map_err(io)?;
        let null = std::fs::File::open("/dev/null").map_err(io)?.into();
        let mut command = Command::new(exec);
        // The server's end is its stdin: std moves it there in the child
        // alone, so the server starts by posix_spawn, as a vfork that copies
        // none of perflab's memory maps, where a descriptor passed by
        // number would need a fork (its close-on-exec flag cleared between
        // fork and exec) whose copy of the maps stalls perflab's other
        // threads.
        command
            .arg("--serve")
            .arg("0")
            .stdin(Stdio::from(theirs))
            .stdout(Stdio::null())
            // Out of the terminal's process group: Ctrl-C is perflab's to
            // handle, and must not kill the server under a run.
            .process_group(0);
        if let Some(tasks) = memory_tasks {
            command
                .arg("--cgroup")
                .arg(std::ffi::OsStr::from_bytes(tasks.to_bytes()));
        }
        let process = command.spawn().map_err(io)?;
        Ok(Self {
            process,
            socket: ours,
            null,
            broken: false,
        })
    }

    /// True once the server died or misbehaved; start a new one.
    pub(crate) fn broken(&self) -> bool {
        self.broken
    }

    /// Asks the server to start a run with `stdio` as its stdout and
    /// stderr; returns it and the read ends of its stdout and stderr. With
    /// `poll`, the reply is looked for without sleeping for a while first
    /// (see [`crate::protocol::SPIN_FOR`]): the server sends it once the
    /// command has been exec'd, and waking a sleeping perflab on another
    /// CPU would hold up the server's CPU, where the command then waits,
    /// for the interrupt's delivery (docs/guide/measuring.md: the server's
    /// work once the command released it fell from 42 to 20 µs).
    pub(crate) fn launch(
        &mut self,
        spec: &RunSpec,
        request: &[u8],
        stdio: RunStdio,
        poll: bool,
    ) -> Result<(ServedRun<'_>, Vec<OwnedFd>)> {
        let command = spec.command.display();
        let fds = [
            self.null.as_raw_fd(),
            stdio.write[0].as_raw_fd(),
            stdio.write[1].as_raw_fd(),
        ];
        if seqpacket::send_with_fds(&self.socket, request, &fds).is_err() {
            return Err(self.gone(&command, "before the run started"));
        }
        // The server and the run hold the write ends now.
        drop(stdio.write);
        let look = || match seqpacket::receive(&self.socket, Duration::ZERO) {
            Ok(Received::Nothing) => Ok(None),
            found => Ok::<_, std::convert::Infallible>(Some(found)),
        };
        let polled = match poll {
            true => crate::protocol::poll_briefly(look).unwrap_or_else(|never| match never {}),
            false => None,
        };
        let received = polled.unwrap_or_else(|| seqpacket::receive(&self.socket, ANSWER_WITHIN));
        let answer = match received {
            Ok(Received::Message(text)) => text,
            Ok(Received::Nothing) => {
                self.broken = true;
                return Err(failure(
                    &command,
                    format!("did not answer within {} s", ANSWER_WITHIN.as_secs()),
                ));
            }
            Ok(Received::Closed) | Err(_) => {
                return Err(self.gone(&command, "as the run was starting"));
            }
        };
        match Reply::parse(&answer) {
            Some(Reply::Started { pid }) => {
                let run = ServedRun {
                    server: self,
                    pid,
                    command,
                    // Fails only if the run is already reaped (its report
                    // is then on the way), or on kernels before 5.3.
                    pidfd: pidfd::open(pid),
                    exited_at: None,
                };
                Ok((run, stdio.read))
            }
            Some(Reply::Refused { errno }) => {
                Err(spawn_error(spec, std::io::Error::from_raw_os_error(errno)))
            }
            None => {
                self.broken = true;
                Err(failure(
                    &command,
                    format!("answered something unexpected: {answer:?}"),
                ))
            }
        }
    }

    /// The error for a server that is gone; it is reaped (briefly waited
    /// for) so that the message can say how it ended.
    fn gone(&mut self, command: &str, when: &str) -> Error {
        self.broken = true;
        let deadline = Instant::now() + Duration::from_secs(1);
        let status = loop {
            match self.process.try_wait() {
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Ok(status) => break status,
                Err(_) => break None,
            }
        };
        let how = match status {
            Some(s) if s.signal().is_some() => {
                format!("was killed by signal {}", s.signal().unwrap_or(0))
            }
            Some(s) => format!("exited with code {}", s.code().unwrap_or(-1)),
            None => "closed its connection".to_string(),
        };
        failure(
            command,
            format!(
                "{how} {when}; the run's measurement is lost and perflab stops here. \
                 If nobody stopped it on purpose, look for the out-of-memory killer \
                 in `dmesg`; then run perflab again"
            ),
        )
    }
}

impl ServedRun<'_> {
    /// Its pidfd, if one was opened, to close when that costs the next
    /// run nothing.
    pub(crate) fn into_pidfd(self) -> Option<OwnedFd> {
        self.pidfd
    }

    /// Readable when the server reports the end of the run (or died).
    pub(crate) fn end_fd(&self) -> RawFd {
        self.server.socket.as_raw_fd()
    }

    /// Readable once the run's command exited (its report is then due),
    /// where a pidfd could be opened.
    pub(crate) fn exit_fd(&self) -> Option<RawFd> {
        self.pidfd.as_ref().map(AsRawFd::as_raw_fd)
    }

    /// The server's report, once the run was reaped.
    pub(crate) fn try_end(&mut self) -> Result<Option<ExecReport>> {
        match seqpacket::receive(&self.server.socket, Duration::ZERO) {
            Ok(Received::Nothing) => self.check_overdue().map(|()| None),
            Ok(Received::Message(text)) => match ExecReport::parse(&text) {
                Some(report) => Ok(Some(report)),
                None => {
                    self.server.broken = true;
                    Err(failure(
                        &self.command,
                        format!("reported something unexpected: {text:?}"),
                    ))
                }
            },
            Ok(Received::Closed) | Err(_) => {
                // Nobody will reap the run now: stop it rather than leave it running.
                // SAFETY: kill(2) on the run's process group, whose leader
                // the server started and never reported as reaped.
                unsafe { libc::kill(-self.pid, libc::SIGKILL) };
                Err(self.server.gone(&self.command, "during the run"))
            }
        }
    }

    /// The server reaps a run and reports the moment it exits: a run that
    /// exited long ago without a report means the server is stuck (stopped,
    /// say), and perflab would otherwise wait forever.
    fn check_overdue(&mut self) -> Result<()> {
        if self.exited_at.is_none() && self.pidfd.as_ref().is_some_and(pidfd::readable) {
            self.exited_at = Some(Instant::now());
        }
        match self.exited_at {
            Some(at) if at.elapsed() >= ANSWER_WITHIN => {
                self.server.broken = true;
                Err(failure(
                    &self.command,
                    format!(
                        "did not report the end of the run within {} s of its exit; \
                         is it stopped? run perflab again",
                        ANSWER_WITHIN.as_secs()
                    ),
                ))
            }
            _ => Ok(()),
        }
    }
}

impl Drop for ForkServer {
    fn drop(&mut self) {
        // It holds nothing worth a graceful end, and between runs it is idle.
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// A run's error caused by the fork server.
fn failure(command: &str, what: String) -> Error {
    Error::Run {
        run: format!("command '{command}'"),
        message: format!("perflab-exec, the fork server that starts perflab's runs, {what}"),
    }
}
