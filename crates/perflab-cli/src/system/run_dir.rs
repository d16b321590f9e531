//! Where perflab keeps what it changed on the machine, so that it can be
//! undone: the values `perflab system tune` replaced (`tune.json`) and the
//! state of a CPU shield (`shield.json`), each written before anything is
//! changed.
//!
//! The folder is `/run/perflab`: both need root, which may always write
//! `/run`, and `/run` is a tmpfs emptied at boot, exactly when every
//! setting perflab changed (sysfs, procfs, cgroups) is back to the
//! machine's own; a state file never outlives what it describes.
//! `$PERFLAB_RUN_DIR` names another folder (tests use one of their own; a
//! system without `/run` needs one), and where `/run` does not exist the
//! folder is `perflab-run` under the temporary folder. A state file also
//! records the boot it was written in, so one that did survive a reboot is
//! recognised and only removed.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The variable that names another folder for perflab's state files.
pub const RUN_DIR_ENV: &str = "PERFLAB_RUN_DIR";

/// The folder of perflab's state files (not created here).
pub fn run_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(RUN_DIR_ENV).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if Path::new("/run").is_dir() {
        PathBuf::from("/run/perflab")
    } else {
        std::env::temp_dir().join("perflab-run")
    }
}

/// A process as the kernel tells it apart over time: its pid, the boot it
/// ran in, and its start time (a later process with the same pid has
/// another start time).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owner {
    /// Its process id.
    pub pid: u32,
    /// `/proc/sys/kernel/random/boot_id` when it ran.
    pub boot: String,
    /// Start time in clock ticks after boot (`/proc/PID/stat`, field 22).
    pub start_ticks: u64,
}

impl Owner {
    /// The calling process.
    pub fn this_process() -> Self {
        Self {
            pid: std::process::id(),
            boot: boot_id(),
            start_ticks: start_ticks("self").unwrap_or(0),
        }
    }

    /// True once the process has certainly ended: another boot, no such
    /// process, another process under its pid, or a zombie.
    pub fn has_ended(&self) -> bool {
        if self.boot != boot_id() {
            return true;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{}/stat", self.pid)) else {
            return true;
        };
        match parse_stat(&stat) {
            Some((state, ticks)) => ticks != self.start_ticks || matches!(state, 'Z' | 'X'),
            None => false,
        }
    }

    /// True when the kernel booted again since this process ran.
    pub fn from_another_boot(&self) -> bool {
        self.boot != boot_id()
    }
}

fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn start_ticks(pid: &str) -> Option<u64> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?).map(|(_, t)| t)
}

/// State and start time from a `/proc/PID/stat` line (see proc(5)); the
/// command name in parentheses may hold spaces and parentheses itself.
fn parse_stat(stat: &str) -> Option<(char, u64)> {
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    // `rest` starts at field 3 (state), so field 22 is 19 further.
    let ticks = fields.nth(18)?.parse().ok()?;
    Some((state, ticks))
}

/// Writes `value` as the state file `path`, whole or not at all (a
/// temporary file renamed over it, synced first), making the folder if
/// needed.
pub fn write_state(path: &Path, value: &impl Serialize) -> Result<()> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    create_run_dir(path)?;
    let json = crate::error::to_json_pretty("a state file", value)?;
    let temporary = path.with_extension("json.new");
    let mut file = std::fs::File::create(&temporary).map_err(io)?;
    file.write_all(json.as_bytes()).map_err(io)?;
    file.sync_all().map_err(io)?;
    std::fs::rename(&temporary, path).map_err(io)
}

/// Reads a state file; `None` when there is none.
pub fn read_state<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Option<T>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(Error::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    serde_json::from_str(&text).map(Some).map_err(|e| {
        Error::input(
            path,
            format!(
                "not a state file perflab wrote ({e}); if nothing of perflab's is in effect \
                 (no shield, no tuning), delete it"
            ),
        )
    })
}

/// Removes a state file; one already gone is fine.
pub fn remove_state(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(Error::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Makes the folder of the state file `path`. Anyone may read it (only
/// root writes there): a user who is not root then learns from any perflab
/// command that a shield left behind still confines the machine.
pub fn create_run_dir(path: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o755)
        .create(dir)
        .map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_another_start_time_or_boot_means_it_ended() {
        let me = Owner::this_process();
        assert!(!me.has_ended());
        assert!(
            Owner {
                start_ticks: me.start_ticks + 1,
                ..me.clone()
            }
            .has_ended()
        );
        let before_reboot = Owner {
            boot: "another boot".into(),
            ..me.clone()
        };
        assert!(before_reboot.has_ended() && before_reboot.from_another_boot());
    }

    #[test]
    fn a_state_file_is_written_whole_read_back_and_removed_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deeper/state.json");
        assert_eq!(read_state::<Owner>(&path).unwrap(), None);
        let me = Owner::this_process();
        write_state(&path, &me).unwrap();
        assert_eq!(read_state::<Owner>(&path).unwrap(), Some(me));
        remove_state(&path).unwrap();
        remove_state(&path).unwrap();
        std::fs::write(&path, "{").unwrap();
        let err = read_state::<Owner>(&path).unwrap_err().to_string();
        assert!(err.contains("not a state file perflab wrote"), "{err}");
    }
}
