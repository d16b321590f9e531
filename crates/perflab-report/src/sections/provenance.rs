//! Where a measurement came from, in one line, for every format.

use std::collections::BTreeMap;

use perflab_store::ci::CiJob;
use perflab_store::machine_description::MachineDescription;

/// "Commit `a1b2c3d4` (with uncommitted changes) on host (CPU, cores,
/// memory), Linux 6.1, perflab 0.1.0,
/// 2026-02-01T10:00:00Z, in GitHub Actions run 1234 for pull request #12."
pub(crate) fn provenance_line(p: &BTreeMap<String, serde_json::Value>) -> Option<String> {
    let text = |key: &str| {
        p.get(key)
            .and_then(|v| v.as_str())
            .filter(|s| !s.is_empty())
    };
    let mut parts = Vec::new();
    match text("git_commit") {
        Some(c) => parts.push(format!(
            "commit `{}`{}",
            &c[..c.len().min(12)],
            if p.get("git_dirty").and_then(|v| v.as_bool()) == Some(true) {
                " (with uncommitted changes)"
            } else {
                ""
            }
        )),
        None => parts.push("no git commit".into()),
    }
    if let Some(machine) = MachineDescription::from_provenance(p) {
        let hardware = machine.hardware();
        match hardware.is_empty() {
            true => parts.push(format!("host {}", machine.host)),
            false => parts.push(format!("host {} ({})", machine.host, hardware.join(", "))),
        }
    }
    if let Some(kernel) = text("kernel") {
        parts.push(format!("kernel {kernel}"));
    }
    if let Some(version) = text("perflab_version") {
        parts.push(format!("perflab {version}"));
    }
    if let Some(at) = text("started_at") {
        parts.push(format!("started {at}"));
    }
    if let Some(revisions) = p.get("revisions").and_then(|v| v.as_array()) {
        let built: Vec<String> = revisions.iter().filter_map(variant_revision).collect();
        if !built.is_empty() {
            parts.push(format!("built from {}", built.join(", ")));
        }
    }
    let ci = p
        .get("ci")
        .and_then(|v| serde_json::from_value::<CiJob>(v.clone()).ok());
    if let Some(job) = ci {
        parts.push(format!("in {}", job.describe()));
    }
    Some(parts.join(", "))
}

/// "head at `d6a83cd63a79` (HEAD, with uncommitted changes)".
fn variant_revision(r: &serde_json::Value) -> Option<String> {
    let variant = r.get("variant")?.as_str()?;
    let commit = r.get("commit")?.as_str()?;
    let revision = r.get("revision").and_then(|v| v.as_str()).unwrap_or("");
    let dirty = if r.get("working_tree").and_then(|v| v.as_bool()) == Some(true) {
        ", with uncommitted changes"
    } else {
        ""
    };
    Some(format!(
        "{variant} at `{}` ({revision}{dirty})",
        &commit[..commit.len().min(12)]
    ))
}
