//! Where a run's stdout and stderr go ([`Output`]), made ready for
//! whichever process forks the run: the two descriptors the command gets
//! as its stdout and stderr, and the read ends perflab keeps (pipes only).

use std::os::fd::{AsFd, FromRawFd, OwnedFd};

use crate::Output;
use crate::error::{Error, Result};

/// A run's stdout and stderr, before the fork.
#[derive(Debug)]
pub(crate) struct RunStdio {
    /// What the command gets as its stdout and its stderr.
    pub write: [OwnedFd; 2],
    /// The read ends perflab reads, stdout's first; empty unless piped.
    pub read: Vec<OwnedFd>,
}

impl RunStdio {
    /// Opens what `output` asks for.
    pub(crate) fn open(output: &Output) -> Result<Self> {
        let io = |path: &str| {
            let path = path.to_string();
            move |source| Error::Io {
                path: path.into(),
                source,
            }
        };
        let same_twice = |fd: OwnedFd, path: &str| -> Result<Self> {
            let copy = fd.try_clone().map_err(io(path))?;
            Ok(RunStdio {
                write: [fd, copy],
                read: Vec::new(),
            })
        };
        match output {
            Output::Pipe => {
                let (out_read, out_write) = pipe().map_err(io("pipe"))?;
                let (err_read, err_write) = pipe().map_err(io("pipe"))?;
                Ok(RunStdio {
                    write: [out_write, err_write],
                    read: vec![out_read, err_read],
                })
            }
            Output::Null => {
                let null = std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/null")
                    .map_err(io("/dev/null"))?;
                same_twice(null.into(), "/dev/null")
            }
            Output::Inherit => {
                let out = std::io::stdout().as_fd().try_clone_to_owned();
                let err = std::io::stderr().as_fd().try_clone_to_owned();
                let (out, err) = (out.map_err(io("stdout"))?, err.map_err(io("stderr"))?);
                Ok(RunStdio {
                    write: [out, err],
                    read: Vec::new(),
                })
            }
            Output::File(path) => {
                let file = std::fs::File::create(path).map_err(|source| {
                    Error::usage(
                        "--output",
                        format!(
                            "cannot write the runs' output to {}: {source}; give a file in a folder that exists and can be written",
                            path.display()
                        ),
                    )
                })?;
                same_twice(file.into(), &path.display().to_string())
            }
        }
    }
}

/// A pipe, both ends close-on-exec: the write end reaches the run as its
/// stdout or stderr, never by inheritance.
fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills two descriptors on success.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors are new and ours.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}
