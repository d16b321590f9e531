//! Whether a run may have written its profile, told by inotify on the
//! folder the profiles go to, so that perflab looks for the file only then.
//!
//! Why: a run's profile (the `perflab-profile/1` document an instrumented
//! program writes to `PERFLAB_PROFILE`) is read after the command exits,
//! on the path from one run to the next. Most commands write none, and
//! looking for a missing file costs a path lookup that goes to the file
//! system for every new name, about ten times what finding an inotify
//! descriptor empty costs (`scripts/bench-runner-floor.sh` times both;
//! docs/guide/measuring.md quotes it).
//!
//! Every way a file can appear in the folder queues an event before the
//! process that made it has exited (the kernel closes an exiting process's
//! files, with their `IN_CLOSE_WRITE`, before its parent can see it exit):
//! written there (`IN_CLOSE_WRITE`), renamed or linked into it
//! (`IN_MOVED_TO`, `IN_CREATE`). Any event at all, an overflowed queue
//! included, means "look". Where inotify cannot be had (its limits reached),
//! there is no watch and perflab always looks, as before.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// An inotify watch on one folder.
#[derive(Debug)]
pub(crate) struct ProfileWatch {
    dir: PathBuf,
    inotify: OwnedFd,
}

impl ProfileWatch {
    /// Watches `dir`; `None` where inotify cannot be had.
    pub(crate) fn new(dir: &Path) -> Option<Self> {
        let name = CString::new(dir.as_os_str().as_bytes()).ok()?;
        // SAFETY: inotify_init1 takes flags and returns a new descriptor or -1.
        let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        if fd < 0 {
            return None;
        }
        // SAFETY: a non-negative result is a fresh descriptor, now ours.
        let inotify = unsafe { OwnedFd::from_raw_fd(fd) };
        let events = libc::IN_CLOSE_WRITE | libc::IN_MOVED_TO | libc::IN_CREATE;
        // SAFETY: a valid inotify descriptor and a NUL-terminated path.
        let watch = unsafe { libc::inotify_add_watch(fd, name.as_ptr(), events) };
        (watch >= 0).then(|| Self {
            dir: dir.to_path_buf(),
            inotify,
        })
    }

    /// The folder watched.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// True when a file may have appeared in the folder since the last
    /// call (or the watch was made); takes every event queued so far.
    pub(crate) fn written_since_last_look(&self) -> bool {
        let mut written = false;
        // Room for many events at once: each is 16 bytes and a name.
        let mut buffer = [0u8; 4096];
        loop {
            // SAFETY: reading into a local buffer of the given length.
            let n = unsafe {
                libc::read(
                    self.inotify.as_raw_fd(),
                    buffer.as_mut_ptr().cast(),
                    buffer.len(),
                )
            };
            match n {
                n if n > 0 => written = true,
                // Empty (EAGAIN): every event was taken.
                _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::WouldBlock => {
                    return written;
                }
                // Any other failure: it cannot be told, so look.
                _ => return true,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_written_renamed_or_linked_into_the_folder_is_seen_once() {
        let dir = tempfile::tempdir().unwrap();
        let watch = ProfileWatch::new(dir.path()).expect("inotify is available");
        assert_eq!(watch.dir(), dir.path());
        assert!(!watch.written_since_last_look(), "nothing yet");

        std::fs::write(dir.path().join("run-1.json"), "{}").unwrap();
        assert!(watch.written_since_last_look(), "written there");
        assert!(!watch.written_since_last_look(), "each event is taken once");

        let elsewhere = tempfile::tempdir().unwrap();
        let made = elsewhere.path().join("run-2.json");
        std::fs::write(&made, "{}").unwrap();
        assert!(
            !watch.written_since_last_look(),
            "another folder is not watched"
        );
        std::fs::rename(&made, dir.path().join("run-2.json")).unwrap();
        assert!(watch.written_since_last_look(), "renamed into it");

        std::fs::write(&made, "{}").unwrap();
        std::fs::hard_link(&made, dir.path().join("run-3.json")).unwrap();
        assert!(watch.written_since_last_look(), "linked into it");

        std::fs::read_to_string(dir.path().join("run-3.json")).unwrap();
        assert!(!watch.written_since_last_look(), "reading writes nothing");
    }

    #[test]
    fn a_file_a_process_writes_and_leaves_open_is_seen_once_it_exited() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run-1.json");
        std::fs::write(&path, "").unwrap();
        let watch = ProfileWatch::new(dir.path()).expect("inotify is available");
        // The shell opens the file that is already there, writes it and
        // exits without closing it: the kernel closes it at the exit.
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "exec 3>>'{}'; echo '{{}}' >&3; exit 0",
                path.display()
            ))
            .status()
            .unwrap();
        assert!(status.success());
        assert!(watch.written_since_last_look());
    }
}
