//! Where the fork server finds a run's program: looked up in the run's
//! PATH once, before the experiment's first run of it, instead of by every
//! run's `execvp`.
//!
//! Why: `execvp` tries `DIR/PROGRAM` for each PATH entry in turn, each try
//! a failed `execve` (a path walk ending in ENOENT) made by the new
//! process before its exec, inside the run's wall time: about 1.4 µs each
//! on this project's VM, so 13 µs a run of `true` where nine PATH entries
//! come before `/usr/bin`, every run.
//!
//! The search is `execvp`'s: the first entry holding an executable regular
//! file wins, and a program named with a `/` is not looked up. Nothing is
//! resolved where an entry before the program's is empty or relative (the
//! run's directory, which may change between runs) or where PATH is unset:
//! `execvp` then searches as before. The child execs the path found, its
//! `argv[0]` left as given (as a shell's table of found commands does), and
//! where that exec fails (the file went away) it searches PATH again with
//! `execvp`, so a run fails only where `execvp`'s search would. What
//! changes: a program put earlier in PATH during an experiment is not seen
//! by its later runs, as with a shell's table.

use std::ffi::{CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The most programs remembered: an experiment runs a few; past this the
/// table starts again, so the server stays small whatever it is asked.
const REMEMBERED: usize = 64;

/// A program's name, the PATH it was looked up in, and what was found.
type Found = (Vec<u8>, Vec<u8>, Option<CString>);

/// The programs looked up so far. A list searched in order, not a map: an
/// experiment runs one or a few, and finding one allocates nothing.
pub(super) struct ProgramPaths {
    found: Vec<Found>,
}

impl ProgramPaths {
    /// Nothing found yet.
    pub(super) fn new() -> Self {
        Self { found: Vec::new() }
    }

    /// The path to exec for `program` where the run's PATH is `path`
    /// (`None`: unset), looked up the first time only; `None` where
    /// `execvp` is to search (see the module's documentation).
    pub(super) fn look_up(&mut self, program: &[u8], path: Option<&[u8]>) -> Option<&CStr> {
        let path = path?;
        if program.is_empty() || program.contains(&b'/') {
            return None;
        }
        let known = self
            .found
            .iter()
            .position(|(name, looked_in, _)| name == program && looked_in == path);
        let index = match known {
            Some(index) => index,
            None => {
                if self.found.len() >= REMEMBERED {
                    self.found.clear();
                }
                let found = search(program, path);
                self.found.push((program.to_vec(), path.to_vec(), found));
                self.found.len() - 1
            }
        };
        self.found[index].2.as_deref()
    }
}

/// `execvp`'s search for `program` in `path`, stopping at an entry that
/// depends on the working directory.
fn search(program: &[u8], path: &[u8]) -> Option<CString> {
    for dir in path.split(|&b| b == b':') {
        if !dir.starts_with(b"/") {
            return None;
        }
        let candidate = [dir, b"/", program].concat();
        if executable_file(&candidate) {
            return CString::new(candidate).ok();
        }
    }
    None
}

/// Whether `path` is a regular file (after links) this process may execute.
fn executable_file(path: &[u8]) -> bool {
    let is_file =
        std::fs::metadata(Path::new(std::ffi::OsStr::from_bytes(path))).is_ok_and(|m| m.is_file());
    let Ok(c_path) = CString::new(path) else {
        return false;
    };
    // SAFETY: access(2) on a NUL-terminated path.
    is_file && unsafe { libc::access(c_path.as_ptr(), libc::X_OK) } == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn program(dir: &Path, name: &str, mode: u32) {
        let file = dir.join(name);
        std::fs::write(&file, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_program_is_found_in_the_first_path_entry_that_holds_an_executable_file() {
        let (first, second, third) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        // Not executable, then a directory of the name: both passed over.
        program(first.path(), "prog", 0o644);
        std::fs::create_dir(second.path().join("prog")).unwrap();
        program(third.path(), "prog", 0o755);
        let path = format!(
            "{}:{}:{}",
            first.path().display(),
            second.path().display(),
            third.path().display()
        );
        let mut paths = ProgramPaths::new();
        let found = paths.look_up(b"prog", Some(path.as_bytes()));
        assert_eq!(
            found.map(|p| p.to_bytes()),
            Some(third.path().join("prog").as_os_str().as_bytes())
        );
        assert_eq!(paths.look_up(b"absent", Some(path.as_bytes())), None);
    }

    #[test]
    fn a_program_named_with_a_slash_or_behind_a_relative_entry_is_left_to_execvp() {
        let dir = tempfile::tempdir().unwrap();
        program(dir.path(), "prog", 0o755);
        let absolute = dir.path().display().to_string();
        let mut paths = ProgramPaths::new();
        for path in [
            format!(".:{absolute}"),
            format!(":{absolute}"),
            format!("bin:{absolute}"),
        ] {
            assert_eq!(
                paths.look_up(b"prog", Some(path.as_bytes())),
                None,
                "{path}"
            );
        }
        assert_eq!(paths.look_up(b"./prog", Some(absolute.as_bytes())), None);
        assert_eq!(paths.look_up(b"prog", None), None);
        assert_eq!(paths.look_up(b"", Some(absolute.as_bytes())), None);
        // A relative entry after the program's does not matter.
        let after = format!("{absolute}:.");
        assert!(paths.look_up(b"prog", Some(after.as_bytes())).is_some());
    }

    #[test]
    fn a_program_is_looked_up_once_per_path() {
        let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        program(second.path(), "prog", 0o755);
        let path = format!("{}:{}", first.path().display(), second.path().display());
        let mut paths = ProgramPaths::new();
        let before = paths
            .look_up(b"prog", Some(path.as_bytes()))
            .map(CStr::to_owned);
        // Put earlier in PATH afterwards: the first answer stays.
        program(first.path(), "prog", 0o755);
        let after = paths
            .look_up(b"prog", Some(path.as_bytes()))
            .map(CStr::to_owned);
        assert_eq!(before, after);
        // Another PATH is another look-up.
        let other = format!("{}", first.path().display());
        assert_eq!(
            paths
                .look_up(b"prog", Some(other.as_bytes()))
                .map(|p| p.to_bytes().to_vec()),
            Some(first.path().join("prog").as_os_str().as_bytes().to_vec())
        );
    }
}
