//! Whether the process running an experiment is still there, so that an
//! experiment whose perflab was killed (`kill -9`, a crash, a reboot) is
//! marked `incomplete` instead of staying `running` for ever.
//!
//! The store records which process runs each experiment: its pid, the host
//! name, the boot id of the kernel, the pid namespace, and the process's
//! start time. Whoever opens the store later judges the experiments still
//! `running`:
//! - pid reuse: a new process with the same pid has another start time;
//! - a reboot on the same host: the boot id has changed, so every process
//!   of the old boot is gone;
//! - another host (or another container) sharing the file: its processes
//!   cannot be seen from here, so its experiments are left alone. (Should two
//!   machines share a host name, a live experiment may be marked
//!   `incomplete` too early; its own process sets its final status when it
//!   ends, so the mark does not stick.)
//!
//! Why not an advisory lock held by the running process: SQLite keeps its
//! own POSIX locks on the store file, which the kernel drops when *any*
//! descriptor of the process on that file is closed, so perflab cannot lock
//! the store file itself; a lock file per experiment would leave files next
//! to the store and relies on `flock` semantics that network file systems
//! only emulate, and neither would reach a store shared between hosts (the
//! design allows a PostgreSQL store). A record in the store needs none of
//! this, and the store keeps saying which process ran an experiment.

use perflab_format::vocabulary::ResultStatus;

use super::Store;
use super::sql::values;
use crate::error::Result;

/// A process as the kernel identifies it over time, on Linux.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ProcessIdentity {
    pub(super) pid: u32,
    pub(super) host: String,
    pub(super) boot: String,
    pub(super) pid_ns: String,
    /// Start time in clock ticks after boot (`/proc/PID/stat`, field 22).
    pub(super) start_ticks: i64,
}

/// What `/proc/PID/stat` says of a process still in the process table.
struct ProcessStat {
    state: char,
    start_ticks: i64,
}

impl ProcessIdentity {
    /// The calling process; `None` where `/proc` does not tell (then
    /// nothing is recorded and no experiment is judged).
    pub(super) fn of_this_process() -> Option<Self> {
        let pid = std::process::id();
        Some(Self {
            pid,
            host: read_trimmed("/proc/sys/kernel/hostname")?,
            boot: read_trimmed("/proc/sys/kernel/random/boot_id")?,
            pid_ns: std::fs::read_link("/proc/self/ns/pid")
                .ok()?
                .display()
                .to_string(),
            start_ticks: process_stat("self")?.start_ticks,
        })
    }

    /// Whether this process has certainly ended, judged by `here`, the
    /// process looking. Unknown counts as not ended.
    pub(super) fn has_ended(&self, here: &ProcessIdentity) -> bool {
        if self.host != here.host {
            return false;
        }
        if self.boot != here.boot {
            return true;
        }
        if self.pid_ns != here.pid_ns {
            return false;
        }
        match process_stat(&self.pid.to_string()) {
            None => true,
            // A zombie has ended; it only waits for its parent to notice.
            Some(stat) => stat.start_ticks != self.start_ticks || matches!(stat.state, 'Z' | 'X'),
        }
    }
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// State and start time of a process, from `/proc/PID/stat` (see proc(5)).
fn process_stat(pid: &str) -> Option<ProcessStat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

fn parse_stat(stat: &str) -> Option<ProcessStat> {
    // The command name (field 2) is in parentheses and may hold spaces or
    // parentheses itself; the fields after its last `)` are plain numbers.
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    // `rest` starts at field 3 (state), so field 22 is 19 further.
    let start_ticks = fields.nth(18)?.parse().ok()?;
    Some(ProcessStat { state, start_ticks })
}

/// The experiments of status `?1` that record their process (read through
/// the index of their status, schema version 8).
const RUNNING_WITH_OWNERS: &str =
    "SELECT id, owner_pid, owner_host, owner_boot, owner_pid_ns, owner_start_ticks
     FROM experiments WHERE status = ?1 AND owner_pid IS NOT NULL";

impl Store {
    /// Marks `incomplete` every `running` experiment whose process has
    /// ended, keeping its runs; its end is the time of its last stored run.
    pub(super) fn mark_ended_experiments_incomplete(&self) -> Result<()> {
        let Some(here) = ProcessIdentity::of_this_process() else {
            return Ok(());
        };
        let running = self.rows(RUNNING_WITH_OWNERS, values![ResultStatus::Running.as_str()])?;
        let ended: Vec<i64> = running
            .iter()
            .filter_map(|r| {
                let owner = ProcessIdentity {
                    pid: u32::try_from(r.i64(1).ok()?).ok()?,
                    host: r.text(2).ok()?,
                    boot: r.text(3).ok()?,
                    pid_ns: r.text(4).ok()?,
                    start_ticks: r.i64(5).ok()?,
                };
                Some((r.i64(0).ok()?, owner))
            })
            .filter(|(_, owner)| owner.has_ended(&here))
            .map(|(id, _)| id)
            .collect();
        for id in ended {
            // Still running is checked again: another process may have judged it,
            // or its own process finished it, since the query above.
            self.execute(
                "UPDATE experiments SET status = ?2,
                 finished_at = (SELECT MAX(finished_at) FROM runs WHERE experiment_id = ?1)
                 WHERE id = ?1 AND status = ?3",
                values![
                    id,
                    ResultStatus::Incomplete.as_str(),
                    ResultStatus::Running.as_str()
                ],
            )?;
        }
        Ok(())
    }

    /// Records the calling process as the one running experiment `id`.
    pub(super) fn record_owner(&self, id: i64) -> Result<()> {
        let Some(me) = ProcessIdentity::of_this_process() else {
            return Ok(());
        };
        self.execute(
            "UPDATE experiments SET owner_pid = ?2, owner_host = ?3, owner_boot = ?4,
             owner_pid_ns = ?5, owner_start_ticks = ?6 WHERE id = ?1",
            values![id, me.pid, me.host, me.boot, me.pid_ns, me.start_ticks],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_changed_start_time_or_boot_means_it_ended() {
        let me = ProcessIdentity::of_this_process().expect("Linux /proc");
        assert!(!me.has_ended(&me));
        let reused_pid = ProcessIdentity {
            start_ticks: me.start_ticks + 1,
            ..me.clone()
        };
        assert!(reused_pid.has_ended(&me));
        let before_reboot = ProcessIdentity {
            boot: "another boot".into(),
            ..me.clone()
        };
        assert!(before_reboot.has_ended(&me));
    }

    #[test]
    fn a_process_on_another_host_or_in_another_pid_namespace_is_never_judged_ended() {
        let me = ProcessIdentity::of_this_process().expect("Linux /proc");
        let elsewhere = ProcessIdentity {
            host: "another-host".into(),
            pid: u32::MAX,
            ..me.clone()
        };
        assert!(!elsewhere.has_ended(&me));
        let other_container = ProcessIdentity {
            pid_ns: "pid:[1]".into(),
            pid: u32::MAX,
            ..me.clone()
        };
        assert!(!other_container.has_ended(&me));
    }

    #[test]
    fn the_start_time_is_read_past_a_command_name_with_spaces_and_parentheses() {
        let line = "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 97 0 0 0 0 0 0 0 20 0 1 0 987654 2048 1 18446744073709551615";
        let stat = parse_stat(line).expect("a stat line");
        assert_eq!(stat.state, 'S');
        assert_eq!(stat.start_ticks, 987654);
        assert!(parse_stat("4242 (cut short) S 1 2").is_none());
    }

    #[test]
    fn the_look_for_running_experiments_reads_the_status_index_not_every_experiment() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.db");
        drop(crate::Store::open(&path).unwrap());
        let conn = rusqlite::Connection::open(&path).unwrap();
        let plan: Vec<String> = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {RUNNING_WITH_OWNERS}"))
            .unwrap()
            .query_map(["running"], |r| r.get::<_, String>(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(
            plan.iter()
                .any(|step| step.contains("USING INDEX experiments_by_status")),
            "{plan:?}"
        );
    }
}
