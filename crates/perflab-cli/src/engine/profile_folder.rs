//! The private folder the runs of an experiment write their profiles to
//! (`perflab-profiles-*` in the temporary folder), and the removal of
//! those that perflabs which were killed left behind.
//!
//! A folder is removed when its experiment ends, but a perflab killed by
//! SIGKILL (or the out-of-memory killer) ends no experiment, and its
//! folder, with any profiles in it, would stay until the machine is
//! restarted. So each perflab holds an exclusive `flock` on its own folder
//! for as long as it lives, and the kernel drops that lock when the
//! process ends, however it ends. A folder nobody holds a lock on is left
//! over, and the next perflab to finish with a folder of its own removes
//! it then, once its runs are over (not as it starts, where every
//! millisecond delays the first run).
//!
//! Why a lock, not the owner's process id written into the folder: a
//! process id says nothing in another PID namespace (a container sharing
//! the temporary folder), and is reused. A lock belongs to the open file,
//! which the process that holds it closes only by ending; the descriptor
//! is close-on-exec, so no run keeps it.
//!
//! A folder is made before it is locked, and a perflab of a version that
//! takes no lock leaves its folder unlocked while it works. Only folders
//! untouched for [`LEFT_OVER_AFTER`] are taken as left over: a lock
//! follows its folder's making within microseconds, and an older perflab
//! writing profiles keeps its folder young.

use std::fs::File;
use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::error::{Error, Result};

/// The start of every profile folder's name.
const PREFIX: &str = "perflab-profiles-";

/// How long an unlocked folder must have been untouched before it counts
/// as left over.
pub const LEFT_OVER_AFTER: Duration = Duration::from_secs(3600);

/// A private folder for the profiles that instrumented runs write, locked
/// while this process lives; when dropped, it is removed with the folders
/// that killed perflabs left beside it.
#[derive(Debug)]
pub struct ProfileFolder {
    folder: tempfile::TempDir,
    _lock: File,
}

impl ProfileFolder {
    /// Makes and locks a new folder in the temporary folder.
    pub fn create() -> Result<Self> {
        let temp = std::env::temp_dir();
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Io { path, source }
        };
        let folder = tempfile::Builder::new()
            .prefix(PREFIX)
            .tempdir()
            .map_err(io(&temp))?;
        let lock = File::open(folder.path()).map_err(io(folder.path()))?;
        flock(&lock, libc::LOCK_EX).map_err(io(folder.path()))?;
        Ok(Self {
            folder,
            _lock: lock,
        })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        self.folder.path()
    }
}

impl Drop for ProfileFolder {
    fn drop(&mut self) {
        if let Some(temp) = self.folder.path().parent() {
            remove_left_over(temp, self.folder.path(), SystemTime::now());
        }
    }
}

/// Removes the profile folders in `temp`, other than `own`, that no
/// process holds a lock on and that were untouched for
/// [`LEFT_OVER_AFTER`] at `now`. Best effort: a folder that cannot be
/// opened (another user's) or removed is left as it is.
fn remove_left_over(temp: &Path, own: &Path, now: SystemTime) {
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    let candidates = entries.flatten().filter(|entry| {
        entry.file_name().to_string_lossy().starts_with(PREFIX)
            && entry.file_type().is_ok_and(|kind| kind.is_dir())
    });
    for entry in candidates {
        let path = entry.path();
        if path == own {
            continue;
        }
        let untouched = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|modified| now.duration_since(modified).ok());
        if untouched.is_none_or(|age| age < LEFT_OVER_AFTER) {
            continue;
        }
        let Ok(folder) = File::open(&path) else {
            continue;
        };
        // Held until the folder is gone, so that no perflab could take it
        // meanwhile (none would: none locks a folder it did not make).
        if flock(&folder, libc::LOCK_EX | libc::LOCK_NB).is_ok() {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// `flock(2)` on `file` (std's `File::lock` is newer than perflab's
/// oldest supported Rust).
fn flock(file: &File, operation: libc::c_int) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor `file` owns.
    match unsafe { libc::flock(file.as_raw_fd(), operation) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder_in(temp: &Path, name: &str, untouched: Duration) -> std::path::PathBuf {
        let path = temp.join(name);
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("run-1.json"), "{}").unwrap();
        let modified = SystemTime::now() - untouched;
        File::open(&path).unwrap().set_modified(modified).unwrap();
        path
    }

    #[test]
    fn only_old_unlocked_profile_folders_other_than_its_own_are_removed() {
        let temp = tempfile::tempdir().unwrap();
        let old = LEFT_OVER_AFTER + Duration::from_secs(60);
        let left_over = folder_in(temp.path(), "perflab-profiles-left", old);
        let young = folder_in(temp.path(), "perflab-profiles-young", Duration::ZERO);
        let locked = folder_in(temp.path(), "perflab-profiles-locked", old);
        let own = folder_in(temp.path(), "perflab-profiles-own", old);
        let other = folder_in(temp.path(), "someone-else", old);
        let holder = File::open(&locked).unwrap();
        flock(&holder, libc::LOCK_EX).unwrap();
        remove_left_over(temp.path(), &own, SystemTime::now());
        assert!(!left_over.exists());
        for kept in [&young, &locked, &own, &other] {
            assert!(kept.exists(), "{} was removed", kept.display());
        }
        drop(holder);
        remove_left_over(temp.path(), &own, SystemTime::now());
        assert!(!locked.exists(), "a folder whose holder is gone stays");
    }

    #[test]
    fn a_profile_folder_is_locked_while_it_lives_and_removed_when_dropped() {
        let folder = ProfileFolder::create().unwrap();
        let path = folder.path().to_path_buf();
        let other = File::open(&path).unwrap();
        assert!(flock(&other, libc::LOCK_EX | libc::LOCK_NB).is_err());
        drop(folder);
        assert!(!path.exists());
    }
}
