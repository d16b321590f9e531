//! Where and from what a measurement came: git commit and dirtiness, the
//! machine (host name, CPU model, cores, memory, kernel), perflab version,
//! time and the CI job. Stored with every experiment so that a number in the
//! history can always be traced back, and so that results of two machines
//! are never compared or charted together without saying so.

use std::path::Path;
use std::process::Command;

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
        let (git_commit, git_dirty) = checkout_state(dir);
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

/// The commit checked out in `dir` and whether its tracked files differ
/// from it; `(None, None)` outside a checkout or before its first commit.
///
/// One `git status` gives both (`--branch` prints the commit), since every
/// experiment waits for this before its first run and a git process takes
/// a millisecond or more to start. `--no-optional-locks` keeps it from
/// rewriting the index, as an editor's background status does, so that it
/// never holds the lock a user's own git command needs.
fn checkout_state(dir: &Path) -> (Option<String>, Option<bool>) {
    let status = Command::new("git")
        .args([
            "--no-optional-locks",
            "status",
            "--porcelain=v2",
            "--branch",
            "--untracked-files=no",
        ])
        .current_dir(dir)
        .output()
        .ok()
        .filter(|o| o.status.success());
    match status {
        Some(status) => parse_status(&String::from_utf8_lossy(&status.stdout)),
        None => (None, None),
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
