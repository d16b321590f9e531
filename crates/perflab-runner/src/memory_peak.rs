//! The peak memory of a run's whole process tree, read from a memory
//! cgroup that holds the run.
//!
//! Why: `wait4`'s `ru_maxrss` is the largest resident set of any single
//! process of the tree, so `a | b` reports the larger of the two, not
//! their sum, and a command that hands its work to a child reports little
//! more than the shell's. The kernel's memory controller charges every
//! page a process of a cgroup is given (anonymous memory, the page cache
//! of files it reads or writes, kernel memory such as page tables) to the
//! cgroup and keeps the high-water mark of the total, so a run alone in a
//! memory cgroup gets the peak charge of its whole tree. That is not a
//! resident set: page cache and kernel memory count, and a page already
//! charged to another cgroup (a file another process read first) does
//! not; reports say which of the two a figure is
//! ([`PeakMemorySource`](perflab_format::vocabulary::PeakMemorySource)).
//!
//! Which memory cgroup:
//!
//! - **cgroup v2**, where the run cgroup of the `containment` module has
//!   the memory controller (its `memory.peak` exists): that cgroup. perflab
//!   asks for the controller (`+memory` in its own cgroup's
//!   `cgroup.subtree_control`) before making the run cgroup; the kernel
//!   refuses where perflab's cgroup holds processes itself and is not the
//!   root (the no-internal-process rule), or was not given the controller
//!   by its parent, and then nothing fails.
//! - **cgroup v1**, on a hybrid system whose v2 hierarchy has no memory
//!   controller but whose v1 `memory` hierarchy is mounted: a memory cgroup
//!   of the executor's own, `perflab-PID-N` under perflab's own v1 memory
//!   cgroup (one left by a perflab that was killed is removed as the v2
//!   ones are). The process that forks the runs is moved into it before
//!   its exec (see "How a process enters" below): the fork server or the
//!   one-shot `perflab-exec` (so that a run is born there without moving,
//!   as the `spawn` module explains), or the command itself where perflab
//!   forks it directly. The fork server's own
//!   few pages are charged there too, before the run (see below); those of
//!   a one-shot `perflab-exec` are part of the run's figure. A process a
//!   run left running and perflab kept (`--keep-children`) stays in it
//!   until the executor is done, so what it allocates meanwhile counts in
//!   the later runs' figures.
//! - neither (no memory controller, `PERFLAB_NO_CGROUP=1`, another kernel):
//!   none, and the run's peak memory is rusage's.
//!
//! One cgroup per executor, reused run after run. Its peak is reset before
//! each run by a write to the peak file: v1's `memory.max_usage_in_bytes`
//! takes "0"; v2's `memory.peak`, since Linux 6.12, resets the peak seen
//! through the descriptor written to, so the file is opened once,
//! read-write, and read through that same descriptor. Before 6.12 it
//! cannot be opened for writing: its peak would be the largest of every
//! run since the cgroup was made, so it is not used and rusage stands in.
//!
//! A reset sets the peak to the cgroup's charge at that moment, which is
//! not zero: page cache the earlier runs brought in stays charged after
//! they exit (and in v1 the fork server lives there). So a run's figure
//! is the cgroup's peak charge during the run, that residue included. It
//! is not subtracted: the charge is kept in per-CPU batches of 64 pages
//! (`MEMCG_CHARGE_BATCH`), so the counter moves by 256 KiB steps and often
//! not at all for a run as small as `true`, and frees of the previous run
//! land late, so "peak minus the charge before" came out 0 for small runs,
//! which no relative change can use. The residue is alike for every run
//! of an executor once each variant ran (the files of all of them), so
//! runs stay comparable; it is why a figure is a cgroup's charge, not the
//! command's own footprint.
//!
//! Cost per run: one write before it and one read after it, of a small
//! file opened once per executor.
//!
//! How a process enters the v1 cgroup: it writes "0" (itself) to the
//! cgroup's `tasks` file, which moves the calling thread, not to
//! `cgroup.procs`, which moves its whole thread group. Every process that
//! enters has one thread (a child between fork and exec, or the fork
//! server before it starts anything), so both move the same process, and
//! its memory is charged to the new cgroup from then on either way (a v1
//! memory cgroup charges a process's pages to the cgroup of the thread
//! that owns its address space, here the only one). The difference is the
//! wait: a thread group's move takes the kernel's global lock against
//! forks and exits of all threads (`cgroup_threadgroup_rwsem`), whose
//! writer waits for an RCU grace period, and the kernel skips that lock
//! for a thread moving itself (`cgroup_procs_write_start` in
//! kernel/cgroup/cgroup.c). On this project's VM (Linux 6.18), a
//! `cgroup.procs` write took 6.05 to 7.82 ms and a `tasks` write 0.03 to
//! 0.04 ms (7 moves each, `scripts/bench-runner-floor.sh`). A kernel that
//! takes the lock either way is no slower than before.

use std::ffi::{CStr, CString};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::containment::{cgroups_refused, new_name, read_one_piece, remove_stale};

/// A memory cgroup that holds one run at a time, and the open files its
/// peak is read from.
#[derive(Debug)]
pub(crate) struct MemoryCgroup {
    /// v2's `memory.peak` or v1's `memory.max_usage_in_bytes`, open for
    /// reading and writing: a write resets the peak, a read gives it.
    peak: fs::File,
    /// The v1 memory cgroup made for this executor; `None` in v2, where
    /// the run cgroup is the `containment` module's. Last, so that it is
    /// removed after the files above are closed.
    own: Option<OwnMemoryCgroup>,
}

/// A v1 memory cgroup this process made, removed when dropped.
#[derive(Debug)]
struct OwnMemoryCgroup {
    dir: PathBuf,
    /// perflab's own v1 memory cgroup, which holds it.
    home: PathBuf,
    /// Its `tasks` file, ready for a process of one thread to write "0" to.
    tasks: CString,
}

impl MemoryCgroup {
    /// The memory cgroup of an executor's runs: the run cgroup `run_cgroup`
    /// of cgroup v2 where it has the memory controller, else a v1 memory
    /// cgroup of its own where one can be made, else `None` (as with
    /// `PERFLAB_NO_CGROUP`).
    pub(crate) fn for_runs(run_cgroup: Option<&Path>) -> Option<Self> {
        if cgroups_refused() {
            return None;
        }
        run_cgroup.and_then(Self::v2).or_else(Self::v1)
    }

    /// The memory files of a v2 run cgroup, if it has a resettable peak.
    fn v2(dir: &Path) -> Option<Self> {
        let cgroup = Self {
            peak: open_read_write(&dir.join("memory.peak"))?,
            own: None,
        };
        cgroup.works().then_some(cgroup)
    }

    /// A new memory cgroup under perflab's own in the v1 hierarchy.
    fn v1() -> Option<Self> {
        let mountinfo = fs::read_to_string("/proc/self/mountinfo").ok()?;
        let membership = fs::read_to_string("/proc/self/cgroup").ok()?;
        let home = v1_memory_mount(&mountinfo)?
            .join(v1_memory_membership(&membership)?.trim_start_matches('/'));
        static STALE_REMOVED: std::sync::Once = std::sync::Once::new();
        STALE_REMOVED.call_once(|| remove_stale(&home));
        let dir = home.join(new_name());
        fs::create_dir(&dir).ok()?;
        let own = OwnMemoryCgroup {
            tasks: CString::new(dir.join("tasks").as_os_str().as_bytes()).ok()?,
            dir,
            home,
        };
        let cgroup = Self {
            peak: open_read_write(&own.dir.join("memory.max_usage_in_bytes"))?,
            own: Some(own),
        };
        cgroup.works().then_some(cgroup)
    }

    /// Whether its peak can be reset and read.
    fn works(&self) -> bool {
        self.reset() && self.peak_bytes().is_some()
    }

    /// The `tasks` file of a v1 memory cgroup, which the process that forks
    /// the runs enters; `None` in v2, where runs are started in the run
    /// cgroup.
    pub(crate) fn tasks(&self) -> Option<&CStr> {
        self.own.as_ref().map(|own| own.tasks.as_c_str())
    }

    /// Resets the peak to the charge now, before a run; false where the
    /// kernel refused.
    pub(crate) fn reset(&self) -> bool {
        self.peak.write_at(b"0", 0).is_ok_and(|n| n == 1)
    }

    /// The peak since the last reset, in bytes.
    fn peak_bytes(&self) -> Option<u64> {
        parse_bytes(&read_one_piece(&self.peak))
    }

    /// The peak since the last reset, in KiB: the run's, after it.
    pub(crate) fn peak_kib(&self) -> Option<f64> {
        Some(self.peak_bytes()? as f64 / 1024.0)
    }
}

impl Drop for OwnMemoryCgroup {
    /// Removes the cgroup. The executor's fork server is gone by now (the
    /// executor drops it first), so anything still in it is a process a
    /// run left running that perflab kept (`--keep-children`, or no v2
    /// cgroup to end it by): it goes on in perflab's own memory cgroup.
    fn drop(&mut self) {
        let members = fs::read_to_string(self.dir.join("cgroup.procs")).unwrap_or_default();
        for pid in members.lines() {
            let _ = fs::write(self.home.join("cgroup.procs"), pid.trim());
        }
        let _ = fs::remove_dir(&self.dir);
    }
}

/// A cgroup file opened for reading and writing.
fn open_read_write(path: &Path) -> Option<fs::File> {
    fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .ok()
}

/// Where cgroup v1's memory hierarchy is mounted, from
/// `/proc/self/mountinfo`: a `cgroup` file system whose super options
/// (after the ` - ` separator: type, source, options) name `memory`.
fn v1_memory_mount(mountinfo: &str) -> Option<PathBuf> {
    mountinfo.lines().find_map(|line| {
        let (before, after) = line.split_once(" - ")?;
        let mut fields = after.split_whitespace();
        let (kind, options) = (fields.next()?, fields.nth(1)?);
        (kind == "cgroup" && options.split(',').any(|o| o == "memory"))
            .then(|| before.split_whitespace().nth(4).map(PathBuf::from))?
    })
}

/// perflab's path in cgroup v1's memory hierarchy: the `N:memory:PATH`
/// line of `/proc/self/cgroup` (its controllers may be listed together,
/// comma-separated).
fn v1_memory_membership(cgroup: &str) -> Option<&str> {
    cgroup.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        controllers
            .split(',')
            .any(|c| c == "memory")
            .then_some(path)
    })
}

/// A cgroup memory file's number of bytes.
fn parse_bytes(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_v1_memory_mount_is_found_among_the_other_cgroup_mounts() {
        let mountinfo = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";
        assert_eq!(
            v1_memory_mount(mountinfo),
            Some(PathBuf::from("/sys/fs/cgroup/memory"))
        );
        let v2_only =
            "41 31 0:38 / /sys/fs/cgroup rw,relatime - cgroup2 cgroup2 rw,memory_recursiveprot";
        assert_eq!(v1_memory_mount(v2_only), None);
        let no_memory = "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct";
        assert_eq!(v1_memory_mount(no_memory), None);
    }

    #[test]
    fn the_v1_memory_membership_is_the_line_naming_the_memory_controller() {
        let cgroup = "9:name=systemd:/\n5:cpu,cpuacct:/x\n4:memory:/process_api/82de\n0::/\n";
        assert_eq!(v1_memory_membership(cgroup), Some("/process_api/82de"));
        assert_eq!(
            v1_memory_membership("3:blkio,memory:/a:b\n"),
            Some("/a:b"),
            "controllers mounted together, and a colon in the path"
        );
        assert_eq!(v1_memory_membership("0::/user.slice\n"), None);
    }

    #[test]
    fn a_memory_file_is_read_as_a_number_of_bytes() {
        assert_eq!(parse_bytes("4939776\n"), Some(4_939_776));
        assert_eq!(parse_bytes("max\n"), None);
        assert_eq!(parse_bytes(""), None);
    }

    #[test]
    fn a_memory_cgroup_measures_the_peak_of_what_enters_it_from_its_reset() {
        let Some(cgroup) = MemoryCgroup::for_runs(None) else {
            eprintln!("skipped: no v1 memory cgroup can be made here");
            return;
        };
        let tasks = cgroup.tasks().expect("a v1 memory cgroup of its own");
        let dir = Path::new(std::ffi::OsStr::from_bytes(tasks.to_bytes()))
            .parent()
            .unwrap()
            .to_path_buf();
        assert!(cgroup.reset());
        let before = cgroup.peak_kib().unwrap();
        // A page is charged to the cgroup its process was in when it was
        // given, so the child writes its 32 MiB only once moved in. It
        // enters as perflab's processes do: a shell of one thread writes
        // "0" to the tasks file, then becomes the program.
        let status = std::process::Command::new("sh")
            .args([
                "-c",
                "echo 0 > \"$1\" && exec python3 -c \"b = b'x' * (32 << 20)\"",
                "sh",
            ])
            .arg(std::ffi::OsStr::from_bytes(tasks.to_bytes()))
            .status()
            .unwrap();
        assert!(status.success());
        let peak = cgroup.peak_kib().unwrap();
        assert!(
            peak >= before + 32.0 * 1024.0,
            "{before} KiB, then {peak} KiB"
        );
        drop(cgroup);
        assert!(!dir.exists(), "{} was not removed", dir.display());
    }
}
