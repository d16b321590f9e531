//! Where and from what a measurement came: git commit and dirtiness, the
//! machine (host name, CPU model, cores, memory, kernel), perflab version,
//! time and the CI job. Stored with every experiment so that a number in the
//! history can always be traced back, and so that results of two machines
//! are never compared or charted together without saying so.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde::{Deserialize, Serialize};

use crate::ci::CiJob;
use crate::machine_description::MachineDescription;

/// The provenance of an experiment.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Provenance {
    /// `git rev-parse HEAD` in the working directory, if it is a checkout.
    pub git_commit: Option<String>,
    /// True when the checkout had uncommitted changes.
    pub git_dirty: Option<bool>,
    /// Host name: `$PERFLAB_HOST` when set (a container's host name is
    /// often random, a CI runner's may be shared), else the kernel's.
    pub host: String,
    /// CPU model from /proc/cpuinfo.
    pub cpu_model: String,
    /// Logical CPUs (hardware threads) present in the machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logical_cores: Option<usize>,
    /// Physical cores (distinct cores of the CPU topology), where sysfs
    /// says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical_cores: Option<usize>,
    /// Total memory in bytes (`MemTotal` of /proc/meminfo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_bytes: Option<u64>,
    /// Kernel release.
    pub kernel: String,
    /// perflab's version.
    pub perflab_version: String,
    /// Start time, RFC 3339 (UTC).
    pub started_at: String,
    /// The commit each variant was built from, when variants are revisions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revisions: Vec<VariantRevision>,
    /// The CI job that ran the command (system, pipeline, pull or merge
    /// request), when it ran in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci: Option<CiJob>,
}

/// The commit a variant was built from (`perflab ab --rev`, `perflab bisect`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct VariantRevision {
    /// The variant's name.
    pub variant: String,
    /// The revision as given (`main`, `HEAD~2`, a hash).
    pub revision: String,
    /// The full commit id.
    pub commit: String,
    /// True when the variant ran the working tree as it was, uncommitted
    /// changes included (`--allow-dirty`), rather than the commit alone.
    pub working_tree: bool,
}

impl Provenance {
    /// Collects the provenance for work done in `dir`.
    pub fn collect(dir: &Path) -> Self {
        Self::collect_from(CheckoutReading::start(dir))
    }

    /// Collects the provenance for work done in the folder whose checkout
    /// state `checkout` is reading, waiting for that reading to end.
    pub fn collect_from(checkout: CheckoutReading) -> Self {
        let (git_commit, git_dirty) = checkout.finish();
        Self {
            git_commit,
            git_dirty,
            host: host_name(),
            cpu_model: cpu_model(),
            logical_cores: logical_cores(),
            physical_cores: physical_cores(),
            memory_bytes: memory_bytes(),
            kernel: read_trimmed("/proc/sys/kernel/osrelease"),
            perflab_version: env!("CARGO_PKG_VERSION").to_string(),
            started_at: now_rfc3339(),
            revisions: Vec::new(),
            ci: CiJob::from_environment(),
        }
    }
}

impl Provenance {
    /// The provenance of results measured on `machine` rather than here (a
    /// harness's file imported on another machine): its host and what it
    /// says of itself; what it does not say is left out, not taken from
    /// the machine that imports it.
    pub fn measured_on(self, machine: &MachineDescription) -> Self {
        Self {
            host: machine.host.clone(),
            cpu_model: machine.cpu_model.clone().unwrap_or_default(),
            logical_cores: machine.logical_cores,
            physical_cores: machine.physical_cores,
            memory_bytes: machine.memory_bytes,
            kernel: machine.kernel.clone().unwrap_or_default(),
            ..self
        }
    }
}

/// The checkout state of a folder (its commit, whether its tracked files
/// differ from it) being read by a `git status` of its own, started
/// ahead of the [`Provenance`] that needs it.
///
/// Why: git takes 1.5 ms to start, and more in a large checkout (5 ms in
/// perflab's own), and every experiment waits for it before its first
/// run. Started before the store is opened and the runs' cgroups are
/// made, it runs beside them. A reading nobody collects is killed when
/// dropped, so that no git is left running beside the runs.
#[derive(Debug)]
pub struct CheckoutReading {
    dir: PathBuf,
    /// `None` where git could not be started (not installed, say).
    git: Option<Child>,
}

impl CheckoutReading {
    /// Starts reading the checkout state of `dir`; no git starts where
    /// none could find a checkout: no `.git` in it or above its real path.
    pub fn start(dir: &Path) -> Self {
        if !may_be_in_a_checkout(dir) {
            return Self {
                dir: dir.to_path_buf(),
                git: None,
            };
        }
        let git = Command::new("git")
            .args([
                "--no-optional-locks",
                "status",
                "--porcelain=v2",
                "--branch",
                "--untracked-files=no",
            ])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok();
        Self {
            dir: dir.to_path_buf(),
            git,
        }
    }

    /// The folder being read.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The commit checked out and whether its tracked files differ from
    /// it; `(None, None)` outside a checkout or before its first commit.
    ///
    /// One `git status` gives both (`--branch` prints the commit).
    /// `--no-optional-locks` keeps it from rewriting the index, as an
    /// editor's background status does, so that it never holds the lock a
    /// user's own git command needs.
    fn finish(mut self) -> (Option<String>, Option<bool>) {
        let status = self
            .git
            .take()
            .and_then(|git| git.wait_with_output().ok())
            .filter(|o| o.status.success());
        match status {
            Some(status) => parse_status(&String::from_utf8_lossy(&status.stdout)),
            None => (None, None),
        }
    }
}

/// Whether git could find a checkout from `dir`: a `.git` (a folder, or
/// the file of a worktree or submodule) in it or in a folder above its
/// real path, or git told where the repository is (`GIT_DIR`,
/// `GIT_WORK_TREE`). git looks for the same `.git` upwards from the real
/// path (and stops earlier where told to), so where this is false, `git
/// status` could only fail; it is not started, which spares a process
/// start on the way to the first run (about 1.5 ms of CPU here).
fn may_be_in_a_checkout(dir: &Path) -> bool {
    if ["GIT_DIR", "GIT_WORK_TREE"]
        .iter()
        .any(|name| std::env::var_os(name).is_some())
    {
        return true;
    }
    let Ok(real) = dir.canonicalize() else {
        // A folder that cannot be resolved is git's to report on.
        return true;
    };
    real.ancestors()
        .any(|folder| folder.join(".git").symlink_metadata().is_ok())
}

impl Drop for CheckoutReading {
    fn drop(&mut self) {
        if let Some(mut git) = self.git.take() {
            let _ = git.kill();
            let _ = git.wait();
        }
    }
}

/// The commit and dirtiness in the output of `git status --porcelain=v2
/// --branch`: the commit from its `# branch.oid` header (`(initial)`
/// before the first commit), dirty when any line is not a header.
fn parse_status(text: &str) -> (Option<String>, Option<bool>) {
    let commit = text
        .lines()
        .find_map(|line| line.strip_prefix("# branch.oid "))
        .map(str::trim)
        .filter(|oid| !oid.is_empty() && *oid != "(initial)")
        .map(str::to_string);
    let dirty = commit
        .as_ref()
        .map(|_| text.lines().any(|line| !line.starts_with('#')));
    (commit, dirty)
}

/// The current time as RFC 3339, to the second, in UTC.
pub(crate) fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

fn read_trimmed(path: &str) -> String {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// The variable that overrides the host name in provenance.
pub(crate) const HOST_VARIABLE: &str = "PERFLAB_HOST";

/// `$PERFLAB_HOST` when set and not empty, else the kernel's host name.
fn host_name() -> String {
    std::env::var(HOST_VARIABLE)
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| read_trimmed("/proc/sys/kernel/hostname"))
}

const CPU_SYSFS: &str = "/sys/devices/system/cpu";

/// The CPUs present (online or not), from sysfs.
fn logical_cores() -> Option<usize> {
    let list = std::fs::read_to_string(format!("{CPU_SYSFS}/present")).ok()?;
    perflab_runner::CpuSet::parse(list.trim())
        .ok()
        .map(|set| set.len())
        .filter(|&n| n > 0)
}

/// Distinct (package, core) pairs of the online CPUs' topology: a core
/// with two hardware threads counts once.
fn physical_cores() -> Option<usize> {
    let mut cores = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(CPU_SYSFS).ok()?.flatten() {
        let name = entry.file_name();
        let is_cpu = name
            .to_str()
            .and_then(|n| n.strip_prefix("cpu"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if !is_cpu {
            continue;
        }
        let topology = entry.path().join("topology");
        let id = |file: &str| {
            std::fs::read_to_string(topology.join(file))
                .ok()
                .map(|s| s.trim().to_string())
        };
        if let (Some(package), Some(core)) = (id("physical_package_id"), id("core_id")) {
            cores.insert((package, core));
        }
    }
    (!cores.is_empty()).then_some(cores.len())
}

/// `MemTotal` of /proc/meminfo, in bytes.
fn memory_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The checkout state of `dir`, read now.
    fn checkout_state(dir: &Path) -> (Option<String>, Option<bool>) {
        CheckoutReading::start(dir).finish()
    }

    /// A checkout in a new temporary folder with one committed file,
    /// `tracked`; returns it and its commit.
    fn checkout_with_one_commit() -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        std::fs::write(dir.path().join("tracked"), "one").unwrap();
        git(dir.path(), &["add", "tracked"]);
        git(dir.path(), &["commit", "-qm", "first"]);
        let head = git(dir.path(), &["rev-parse", "HEAD"]);
        (dir, head)
    }

    #[test]
    fn git_starts_only_where_a_git_folder_or_file_is_found_above_the_real_path() {
        let outside = tempfile::tempdir().unwrap();
        if may_be_in_a_checkout(outside.path()) {
            eprintln!("skipped: the temporary folder is inside a checkout");
            return;
        }
        assert!(CheckoutReading::start(outside.path()).git.is_none());
        let (checkout, _) = checkout_with_one_commit();
        let below = checkout.path().join("a/b");
        std::fs::create_dir_all(&below).unwrap();
        assert!(CheckoutReading::start(&below).git.is_some());
        // Through a link from outside, git finds the checkout of the real path.
        let link = outside.path().join("link");
        std::os::unix::fs::symlink(&below, &link).unwrap();
        assert!(may_be_in_a_checkout(&link));
        // A worktree's or submodule's `.git` is a file.
        let worktree = outside.path().join("worktree");
        std::fs::create_dir(&worktree).unwrap();
        std::fs::write(worktree.join(".git"), "gitdir: elsewhere\n").unwrap();
        assert!(may_be_in_a_checkout(&worktree));
    }

    /// Runs git in `dir` with a fixed identity, failing the test if it fails.
    fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    #[test]
    fn a_checkout_s_commit_and_changes_to_tracked_files_are_its_provenance() {
        let dir = tempfile::tempdir().unwrap();
        let here = dir.path();
        git(here, &["init", "-q"]);
        assert_eq!(
            checkout_state(here),
            (None, None),
            "before the first commit"
        );
        std::fs::write(here.join("tracked"), "one").unwrap();
        git(here, &["add", "tracked"]);
        git(here, &["commit", "-qm", "first"]);
        let head = git(here, &["rev-parse", "HEAD"]);
        assert_eq!(checkout_state(here), (Some(head.clone()), Some(false)));
        std::fs::write(here.join("untracked"), "new").unwrap();
        assert_eq!(
            checkout_state(here),
            (Some(head.clone()), Some(false)),
            "an untracked file leaves it clean"
        );
        std::fs::write(here.join("tracked"), "two").unwrap();
        assert_eq!(checkout_state(here), (Some(head), Some(true)));
    }

    #[test]
    fn a_folder_outside_any_checkout_has_no_commit() {
        let dir = tempfile::tempdir().unwrap();
        // A temporary folder can sit inside a checkout (TMPDIR in a
        // repository); only a folder git does not see as one counts here.
        let outside = Command::new("git")
            .args(["rev-parse", "--git-dir"])
            .current_dir(dir.path())
            .output()
            .is_ok_and(|o| !o.status.success());
        if outside {
            assert_eq!(checkout_state(dir.path()), (None, None));
        }
    }

    #[test]
    fn a_reading_started_early_gives_the_state_git_saw_then() {
        let (dir, head) = checkout_with_one_commit();
        let mut reading = CheckoutReading::start(dir.path());
        let git = reading.git.as_mut().expect("git starts");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while git.try_wait().unwrap().is_none() {
            assert!(std::time::Instant::now() < deadline, "git status ended");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        // Changed after git read it: the reading is of the moment it started.
        std::fs::write(dir.path().join("tracked"), "two").unwrap();
        assert_eq!(reading.dir(), dir.path());
        let provenance = Provenance::collect_from(reading);
        assert_eq!(
            (provenance.git_commit, provenance.git_dirty),
            (Some(head), Some(false))
        );
        assert_eq!(
            checkout_state(dir.path()).1,
            Some(true),
            "read again, dirty"
        );
    }

    #[test]
    fn a_reading_nobody_collects_is_ended_when_dropped() {
        let (dir, _) = checkout_with_one_commit();
        // git status waits for the file-system monitor hook, which waits
        // (20 s at most) for its git to be gone.
        let hook = dir.path().join("monitor-hook");
        std::fs::write(
            &hook,
            "#!/bin/sh\ni=0\nwhile kill -0 $PPID 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done\n",
        )
        .unwrap();
        std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        git(
            dir.path(),
            &["config", "core.fsmonitor", hook.to_str().unwrap()],
        );
        let reading = CheckoutReading::start(dir.path());
        let pid = reading.git.as_ref().expect("git starts").id() as libc::pid_t;
        let dropped_at = std::time::Instant::now();
        drop(reading);
        assert!(
            dropped_at.elapsed() < std::time::Duration::from_secs(10),
            "dropping it killed git rather than waiting for it"
        );
        // SAFETY: signal 0 only checks whether the process exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0;
        assert!(!alive, "git {pid} was reaped");
    }

    #[test]
    fn git_s_status_is_read_for_its_commit_and_any_change() {
        let oid = "0123456789abcdef0123456789abcdef01234567";
        let clean = format!("# branch.oid {oid}\n# branch.head main\n");
        assert_eq!(parse_status(&clean), (Some(oid.into()), Some(false)));
        let changed = format!("{clean}1 .M N... 100644 100644 100644 a b src/lib.rs\n");
        assert_eq!(parse_status(&changed), (Some(oid.into()), Some(true)));
        assert_eq!(
            parse_status("# branch.oid (initial)\n# branch.head main\n"),
            (None, None)
        );
        assert_eq!(parse_status(""), (None, None));
    }

    #[test]
    fn the_machine_is_described_as_far_as_linux_says() {
        let p = Provenance::collect(Path::new("."));
        if Path::new(CPU_SYSFS).join("present").exists() {
            let logical = p.logical_cores.expect("sysfs lists the CPUs present");
            assert!(logical >= 1);
            if let Some(physical) = p.physical_cores {
                assert!((1..=logical).contains(&physical), "{physical} of {logical}");
            }
        }
        if Path::new("/proc/meminfo").exists() {
            assert!(p.memory_bytes.expect("MemTotal is read") > 1 << 20);
        }
        let text = serde_json::to_string(&p).unwrap();
        let back: Provenance = serde_json::from_str(&text).unwrap();
        assert_eq!(back, p);
    }

    #[test]
    fn a_provenance_written_before_cores_and_memory_were_recorded_still_reads() {
        let old = r#"{"git_commit":null,"git_dirty":null,"host":"alpha","cpu_model":"Xeon",
            "kernel":"6.1.0","perflab_version":"0.1.0","started_at":"2026-01-01T00:00:00Z"}"#;
        let p: Provenance = serde_json::from_str(old).unwrap();
        assert_eq!(
            (p.logical_cores, p.physical_cores, p.memory_bytes),
            (None, None, None)
        );
        assert_eq!(p.host, "alpha");
    }
}
