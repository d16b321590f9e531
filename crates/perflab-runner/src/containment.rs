//! Containing each run in a cgroup v2 of its own, and reading what it
//! waited for.
//!
//! Why: a run's wall time on a busy machine holds time its tasks were ready
//! to run but had no CPU. The kernel measures exactly that per cgroup
//! (pressure stall information, `cpu.pressure`: "some" is the time at least
//! one of the cgroup's tasks was runnable and not running, "full" the time
//! all of them were; see the kernel's Documentation/accounting/psi.rst), so
//! a run alone in its cgroup gets its own CPU wait, for its whole process
//! tree, at the cost of reading two small files. The cgroup also holds
//! every process the command started, even one that left the command's
//! process group, so perflab can count and end what the command left
//! running, and `cpu.stat` gives the CPU time of every
//! process of the tree, including those nobody waited for.
//!
//! One cgroup per executor, reused by its runs one after another: the
//! counters are cumulative and the cgroup is empty between runs, so a run's
//! figures are the difference of readings before and after it. It is
//! created under perflab's own cgroup in the cgroup v2 hierarchy (pure v2 at
//! `/sys/fs/cgroup`, or the unified hierarchy of a hybrid system), named
//! `perflab-PID-N`; one left behind by a perflab that was killed is removed
//! by the next one to create its own.
//!
//! Its peak memory is read from a memory cgroup, this one where it has the
//! memory controller; see the `memory_peak` module.
//!
//! Where no writable cgroup v2 exists (an unprivileged container, another
//! kernel), nothing fails: the run is started as before and its CPU wait is
//! the run delay of the command's own process (`/proc/PID/schedstat`),
//! which `perflab-exec` reads before reaping it. `PERFLAB_NO_CGROUP=1`
//! chooses that path on purpose.

use std::ffi::CString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The environment variable that turns per-run cgroups off.
pub const NO_CGROUP_VARIABLE: &str = "PERFLAB_NO_CGROUP";

/// How long ending the processes a run left behind may take.
const END_WITHIN: Duration = Duration::from_secs(5);

/// A cgroup v2 that holds one run at a time.
#[derive(Debug)]
pub(crate) struct RunCgroup {
    dir: PathBuf,
    /// `cgroup.procs` of this cgroup, ready for the forked child to write
    /// "0" to (it must not allocate).
    procs: CString,
    /// `cgroup.procs` of perflab's own cgroup, where kept children go.
    home_procs: PathBuf,
    /// The files read around every run, opened once: a read from the
    /// start of a cgroup file makes the kernel write it anew, and the
    /// opening (a path walk in cgroupfs) is what a run would pay for most.
    files: Option<CgroupFiles>,
}

/// The open files of a run cgroup that are read around every run.
#[derive(Debug)]
struct CgroupFiles {
    pressure: fs::File,
    stat: fs::File,
    procs: fs::File,
}

impl CgroupFiles {
    fn open(dir: &Path) -> Option<Self> {
        let open = |name: &str| fs::File::open(dir.join(name)).ok();
        Some(CgroupFiles {
            pressure: open("cpu.pressure").or_else(|| open("/dev/null"))?,
            stat: open("cpu.stat")?,
            procs: open("cgroup.procs")?,
        })
    }
}

/// The whole of a small kernel-generated file, read from its start.
pub(crate) fn read_whole(file: &fs::File) -> String {
    use std::os::unix::fs::FileExt;
    let mut text = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match file.read_at(&mut buffer, text.len() as u64) {
            Ok(0) | Err(_) => break,
            Ok(n) => text.extend_from_slice(&buffer[..n]),
        }
    }
    String::from_utf8_lossy(&text).into_owned()
}

/// A kernel-generated file written in one piece (`cpu.stat`,
/// `cpu.pressure`, a memory peak), read from its start in one read, which
/// saves the read that would find its end: the kernel writes such a file
/// whole into a buffer it fits in. Files of one line per item, such as
/// `cgroup.procs`, may come in several reads: use [`read_whole`] for those.
pub(crate) fn read_one_piece(file: &fs::File) -> String {
    use std::os::unix::fs::FileExt;
    let mut buffer = [0u8; 4096];
    match file.read_at(&mut buffer, 0) {
        Ok(n) if n < buffer.len() => String::from_utf8_lossy(&buffer[..n]).into_owned(),
        Ok(_) => read_whole(file),
        Err(_) => String::new(),
    }
}

/// The cumulative counters of a run cgroup at one moment, in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Readings {
    /// `cpu.pressure` "some" total, if the kernel tracks pressure.
    pub wait_some_us: Option<u64>,
    /// `cpu.pressure` "full" total.
    pub wait_full_us: Option<u64>,
    /// `cpu.stat` user_usec.
    pub user_us: Option<u64>,
    /// `cpu.stat` system_usec.
    pub system_us: Option<u64>,
}

impl Readings {
    /// What happened between `self` (before a run) and `after`.
    pub(crate) fn until(&self, after: &Readings) -> Readings {
        let delta = |a: Option<u64>, b: Option<u64>| Some(b?.saturating_sub(a?));
        Readings {
            wait_some_us: delta(self.wait_some_us, after.wait_some_us),
            wait_full_us: delta(self.wait_full_us, after.wait_full_us),
            user_us: delta(self.user_us, after.user_us),
            system_us: delta(self.system_us, after.system_us),
        }
    }
}

impl RunCgroup {
    /// A new, empty run cgroup, or `None` where none can be made here (or
    /// `PERFLAB_NO_CGROUP` is set).
    pub(crate) fn create() -> Option<Self> {
        if cgroups_refused() {
            return None;
        }
        let home = own_cgroup_dir()?;
        static STALE_REMOVED: std::sync::Once = std::sync::Once::new();
        STALE_REMOVED.call_once(|| remove_stale(&home));
        enable_memory_controller(&home);
        let dir = home.join(new_name());
        fs::create_dir(&dir).ok()?;
        let procs = CString::new(dir.join("cgroup.procs").as_os_str().as_bytes()).ok()?;
        let files = CgroupFiles::open(&dir);
        let cgroup = Self {
            dir,
            procs,
            home_procs: home.join("cgroup.procs"),
            files,
        };
        // A cgroup whose counters cannot be read measures nothing.
        cgroup.readings().user_us?;
        Some(cgroup)
    }

    /// The cgroup's directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of `cgroup.procs`, for the child to move itself into.
    pub(crate) fn procs(&self) -> &std::ffi::CStr {
        &self.procs
    }

    /// The counters now.
    pub(crate) fn readings(&self) -> Readings {
        let (pressure, stat) = match &self.files {
            Some(files) => (read_one_piece(&files.pressure), read_one_piece(&files.stat)),
            None => (String::new(), String::new()),
        };
        let (wait_some_us, wait_full_us) = pressure_totals(&pressure);
        Readings {
            wait_some_us,
            wait_full_us,
            user_us: stat_field(&stat, "user_usec"),
            system_us: stat_field(&stat, "system_usec"),
        }
    }

    /// The processes still in the cgroup.
    pub(crate) fn members(&self) -> Vec<libc::pid_t> {
        let text = match &self.files {
            Some(files) => read_whole(&files.procs),
            None => fs::read_to_string(self.dir.join("cgroup.procs")).unwrap_or_default(),
        };
        text.lines().filter_map(|l| l.trim().parse().ok()).collect()
    }

    /// Ends every process in the cgroup and waits (bounded) until it is
    /// empty; returns how many there were.
    ///
    /// One by one with SIGKILL, reading the members again until none is
    /// left (a fork between reading and killing shows up in the next
    /// reading), not with `cgroup.kill`: on this project's kernel a cgroup
    /// that was once killed that way kills every child later started into
    /// it with clone3's CLONE_INTO_CGROUP, and runs are started so.
    pub(crate) fn end_all(&self) -> usize {
        let members = self.members();
        if members.is_empty() {
            return 0;
        }
        let deadline = Instant::now() + END_WITHIN;
        let mut left = members.clone();
        while !left.is_empty() && Instant::now() < deadline {
            for pid in &left {
                // SAFETY: kill(2) of a process in the run's own cgroup.
                unsafe { libc::kill(*pid, libc::SIGKILL) };
            }
            std::thread::sleep(Duration::from_micros(200));
            left = self.members();
        }
        members.len()
    }

    /// Moves every process in the cgroup back to perflab's own cgroup, so
    /// that the next run starts alone; returns how many there were.
    pub(crate) fn release_all(&self) -> usize {
        let members = self.members();
        for pid in &members {
            let _ = fs::write(&self.home_procs, pid.to_string());
        }
        members.len()
    }
}

impl Drop for RunCgroup {
    fn drop(&mut self) {
        self.end_all();
        self.files = None; // an open file of a cgroup keeps it from going
        let _ = fs::remove_dir(&self.dir);
    }
}

/// Turns the memory controller on for the children of perflab's own v2
/// cgroup `home`, where its parent gave it the controller and it is not
/// on yet. The kernel refuses where `home` holds processes and is not the
/// root, and that is left at that: runs then have no memory peak of their
/// v2 cgroup (the `memory_peak` module looks for one in each run cgroup).
fn enable_memory_controller(home: &Path) {
    let has = |file: &str| {
        fs::read_to_string(home.join(file))
            .is_ok_and(|text| text.split_whitespace().any(|c| c == "memory"))
    };
    if has("cgroup.controllers") && !has("cgroup.subtree_control") {
        let _ = fs::write(home.join("cgroup.subtree_control"), "+memory");
    }
}

/// Whether `PERFLAB_NO_CGROUP` asks for runs without cgroups of their own.
pub(crate) fn cgroups_refused() -> bool {
    std::env::var_os(NO_CGROUP_VARIABLE).is_some_and(|v| !v.is_empty() && v != "0")
}

/// A name for a new cgroup of this process, `perflab-PID-N`: unique
/// among its cgroups, and telling whose it is once that perflab is gone
/// (see [`remove_stale`]).
pub(crate) fn new_name() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("perflab-{}-{n}", std::process::id())
}

/// perflab's own cgroup in the cgroup v2 hierarchy, if there is one.
fn own_cgroup_dir() -> Option<PathBuf> {
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mount = v2_mount_point(&mountinfo)?;
    let membership = fs::read_to_string("/proc/self/cgroup").ok()?;
    let own = v2_membership(&membership)?;
    Some(mount.join(own.trim_start_matches('/')))
}

/// Where the cgroup v2 hierarchy is mounted, from `/proc/self/mountinfo`
/// (the file system type follows the ` - ` separator).
fn v2_mount_point(mountinfo: &str) -> Option<PathBuf> {
    mountinfo.lines().find_map(|line| {
        let (before, after) = line.split_once(" - ")?;
        (after.split_whitespace().next()? == "cgroup2")
            .then(|| before.split_whitespace().nth(4).map(PathBuf::from))?
    })
}

/// perflab's path in the v2 hierarchy, the `0::PATH` line of
/// `/proc/self/cgroup`.
fn v2_membership(cgroup: &str) -> Option<&str> {
    cgroup.lines().find_map(|l| l.strip_prefix("0::"))
}

/// The `total=` of the `some` and `full` lines of a pressure file, in µs.
fn pressure_totals(text: &str) -> (Option<u64>, Option<u64>) {
    let total = |kind: &str| {
        let line = text.lines().find(|l| l.starts_with(kind))?;
        line.split_whitespace()
            .find_map(|w| w.strip_prefix("total="))?
            .parse()
            .ok()
    };
    (total("some "), total("full "))
}

/// One `KEY VALUE` field of `cpu.stat`.
fn stat_field(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok())?
    })
}

/// Removes the cgroups under `home` whose perflab is gone: it was killed
/// before it could (their processes are ended first). Run cgroups of
/// cgroup v2 and memory cgroups of cgroup v1 alike, both named by
/// [`new_name`]; each hierarchy's are looked for once per process.
pub(crate) fn remove_stale(home: &Path) {
    let Ok(entries) = fs::read_dir(home) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("perflab-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let stale = RunCgroup {
            dir: entry.path(),
            procs: CString::default(),
            home_procs: home.join("cgroup.procs"),
            files: None,
        };
        drop(stale); // ends its processes, removes it
    }
}

/// The run delay of a process (`/proc/PID/schedstat`, second field:
/// nanoseconds spent runnable waiting for a CPU), or `None` where the
/// kernel does not keep schedstats.
pub(crate) fn parse_run_delay(schedstat: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(schedstat).ok()?;
    text.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_v2_mount_point_is_found_among_v1_mounts() {
        let mountinfo = "\
30 23 0:26 / /sys/fs/cgroup rw,nosuid - tmpfs tmpfs ro,mode=755
31 30 0:27 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw,nsdelegate
32 30 0:28 / /sys/fs/cgroup/cpuset rw,nosuid - cgroup cgroup rw,cpuset
";
        assert_eq!(
            v2_mount_point(mountinfo),
            Some(PathBuf::from("/sys/fs/cgroup/unified"))
        );
        assert_eq!(
            v2_mount_point("30 23 0:26 / /sys/fs/cgroup rw - cgroup cgroup rw"),
            None
        );
    }

    #[test]
    fn the_v2_membership_is_the_line_of_hierarchy_zero() {
        assert_eq!(
            v2_membership("4:memory:/a\n0::/user.slice/x.scope\n"),
            Some("/user.slice/x.scope")
        );
        assert_eq!(v2_membership("4:memory:/a\n"), None);
    }

    #[test]
    fn pressure_totals_are_read_from_the_some_and_full_lines() {
        let text = "some avg10=1.00 avg60=0.50 avg300=0.10 total=123456\n\
                    full avg10=0.00 avg60=0.00 avg300=0.00 total=789\n";
        assert_eq!(pressure_totals(text), (Some(123456), Some(789)));
        assert_eq!(pressure_totals(""), (None, None));
    }

    #[test]
    fn cpu_stat_fields_are_read_by_key() {
        let text = "usage_usec 100\nuser_usec 70\nsystem_usec 30\nnr_periods 0\n";
        assert_eq!(stat_field(text, "user_usec"), Some(70));
        assert_eq!(stat_field(text, "system_usec"), Some(30));
        assert_eq!(stat_field(text, "usage"), None);
    }

    #[test]
    fn the_run_delay_is_the_second_field_of_schedstat() {
        assert_eq!(parse_run_delay(b"1234 5678 9\n"), Some(5678));
        assert_eq!(parse_run_delay(b"1234\n"), None);
    }

    #[test]
    fn a_difference_of_readings_is_none_where_either_reading_is() {
        let before = Readings {
            wait_some_us: Some(10),
            wait_full_us: None,
            user_us: Some(5),
            system_us: Some(1),
        };
        let after = Readings {
            wait_some_us: Some(25),
            wait_full_us: Some(3),
            user_us: Some(9),
            system_us: Some(1),
        };
        let d = before.until(&after);
        assert_eq!(d.wait_some_us, Some(15));
        assert_eq!(d.wait_full_us, None);
        assert_eq!(d.user_us, Some(4));
        assert_eq!(d.system_us, Some(0));
    }

    #[test]
    fn a_run_cgroup_ends_what_is_left_in_it_and_is_removed_when_dropped() {
        let Some(cgroup) = RunCgroup::create() else {
            eprintln!("no writable cgroup v2 here: nothing to test");
            return;
        };
        let procs = std::ffi::OsStr::from_bytes(cgroup.procs().to_bytes());
        assert!(Path::new(procs).exists());
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        fs::write(cgroup.dir.join("cgroup.procs"), child.id().to_string()).unwrap();
        assert_eq!(cgroup.members(), [child.id() as libc::pid_t]);
        assert_eq!(cgroup.end_all(), 1);
        assert!(cgroup.members().is_empty());
        let status = child.wait().unwrap();
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(9)
        );
        let dir = cgroup.dir.clone();
        drop(cgroup);
        assert!(!dir.exists(), "{} was not removed", dir.display());
    }
}
