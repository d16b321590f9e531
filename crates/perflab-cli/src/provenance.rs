//! Where and from what a measurement came: git commit and dirtiness, host,
//! CPU model, kernel, perflab version, time and the CI job. Stored with every experiment
//! so that a number in the history can always be traced back.

use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::ci::CiJob;

/// The provenance of an experiment.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Provenance {
    /// `git rev-parse HEAD` in the working directory, if it is a checkout.
    pub git_commit: Option<String>,
    /// True when the checkout had uncommitted changes.
    pub git_dirty: Option<bool>,
    /// Host name.
    pub host: String,
    /// CPU model from /proc/cpuinfo.
    pub cpu_model: String,
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
        let git = |args: &[&str]| {
            Command::new("git")
                .args(args)
                .current_dir(dir)
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        };
        let git_commit = git(&["rev-parse", "HEAD"]);
        let git_dirty = git_commit
            .as_ref()
            .and_then(|_| git(&["status", "--porcelain", "--untracked-files=no"]))
            .map(|s| !s.is_empty());
        Self {
            git_commit,
            git_dirty,
            host: read_trimmed("/proc/sys/kernel/hostname"),
            cpu_model: cpu_model(),
            kernel: read_trimmed("/proc/sys/kernel/osrelease"),
            perflab_version: env!("CARGO_PKG_VERSION").to_string(),
            started_at: now_rfc3339(),
            revisions: Vec::new(),
            ci: CiJob::from_environment(),
        }
    }
}

/// The current time as RFC 3339, to the second, in UTC.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

fn read_trimmed(path: &str) -> String {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
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
