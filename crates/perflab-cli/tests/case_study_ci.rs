//! The CI example's `investigate.sh` (examples/ci), run for real in a
//! committed copy (tests/common/investigate.rs): like the case studies'
//! scripts it passes the publish gate (on a busy machine only when told
//! to), runs the gate on a throwaway repository whose head commit does 20%
//! more work, and writes report.md with a provenance block naming the
//! copy's commit; from a tree with uncommitted changes it measures nothing
//! and writes no report.

mod common;

use common::investigate::{blocks, repository, run};

const EXAMPLE: &str = "ci";

const FILES: &[&str] = &[
    "examples/publish-gate.sh",
    "examples/ci/README.md",
    "examples/ci/investigate.sh",
    "examples/ci/perflab-gate.sh",
];

/// Work small enough for a test: a 20% difference of a few milliseconds.
const SMALL: &[(&str, &str)] = &[("CI_GATE_LOOPS", "20000")];

#[test]
fn investigate_sh_writes_the_gates_report_with_the_commit_and_machine_it_was_taken_on() {
    let s = repository(EXAMPLE, FILES);
    let out = run(&s, EXAMPLE, SMALL);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report = std::fs::read_to_string(s.path("examples/ci/report.md"))
        .unwrap_or_else(|e| panic!("no report.md ({e}):\n{stdout}\n{stderr}"));
    // The gate must fail the job on the slower head (NO-GO); where the
    // machine is too noisy to decide within the gate's runs, the verdict
    // is INCONCLUSIVE and the script says it expected a NO-GO. A GO would
    // be wrong either way.
    assert!(
        out.status.success() || report.contains("**INCONCLUSIVE**"),
        "exit {:?}\n{stdout}\n{stderr}\n{report}",
        out.status.code()
    );
    assert!(!report.contains("**GO**"), "{report}");
    assert!(
        report.starts_with("# The CI gate on a 20%-slower head commit\n"),
        "{report}"
    );
    assert!(report.contains("## perflab report"), "{report}");
    let commit = common::git(s.dir.path(), &["rev-parse", "--short=12", "HEAD"]);
    let found = blocks(&report);
    let provenance = &found
        .iter()
        .find(|(name, _)| name == "provenance")
        .unwrap_or_else(|| panic!("no provenance block:\n{report}"))
        .1;
    assert!(
        provenance.contains(&format!(
            "Measured by `investigate.sh` at commit {commit} on "
        )),
        "{provenance}"
    );
}

#[test]
fn investigate_sh_from_a_tree_with_uncommitted_changes_measures_nothing_and_writes_no_report() {
    let s = repository(EXAMPLE, FILES);
    s.write("examples/ci/README.md", "changed, not committed\n");
    let out = run(&s, EXAMPLE, SMALL);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the tree has uncommitted changes"),
        "{stderr}"
    );
    assert!(!s.path("examples/ci/report.md").exists());
}
