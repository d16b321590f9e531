//! `examples/publish-gate.sh`, the gate every case study's `investigate.sh`
//! sources before it rewrites a README's figures: run from a small script in
//! a temporary git repository, with the real perflab binary. The machine's
//! state is forced through the gate's limits (a load of 0.001 per CPU and a
//! CPU pressure of 0.001% are exceeded by a machine running this very test,
//! a limit of 1000 per CPU and 100% pressure never are), so the tests pass
//! on a busy and a quiet machine alike.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{Scratch, git, init_git_repository};

/// What the script prints once the gate let it through, where a case study
/// would measure.
const MEASURED: &str = "figures measured";

fn gate() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/publish-gate.sh")
}

/// A repository holding a README and a script that sources the gate as an
/// `investigate.sh` does, both committed.
fn repository(readme: &str) -> Scratch {
    let s = Scratch::new();
    init_git_repository(s.dir.path());
    s.write("README.md", readme);
    s.write(
        "measure.sh",
        "#!/usr/bin/env bash\n\
         set -euo pipefail\n\
         root=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\n\
         perflab=\"$PERFLAB\"\n\
         . \"$PUBLISH_GATE\"\n\
         publish_gate \"$@\"\n\
         echo \"figures measured\"\n\
         publish_provenance \"$root/README.md\"\n",
    );
    git(s.dir.path(), &["add", "."]);
    git(s.dir.path(), &["commit", "-qm", "a case study"]);
    s
}

/// The machine as the gate will judge it.
#[derive(Clone, Copy)]
enum Machine {
    /// Limits no machine can exceed.
    Quiet,
    /// Limits a machine running a test is above: a load of 0.001 per CPU
    /// (perflab refuses a limit of 0) and a CPU pressure of 0.001%.
    Busy,
}

/// Runs the script with `args` and `env`, the machine judged as `machine`,
/// with no wait for a quiet machine.
fn run(s: &Scratch, machine: Machine, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg(s.path("measure.sh"))
        .args(args)
        .current_dir(s.dir.path())
        .env("PERFLAB", env!("CARGO_BIN_EXE_perflab"))
        .env("PUBLISH_GATE", gate())
        .env("PERFLAB_QUIET_WAIT", "0s")
        .env_remove("PERFLAB_ALLOW_BUSY")
        .env_remove("PERFLAB_ALLOW_DIRTY");
    match machine {
        Machine::Quiet => cmd
            .env("PERFLAB_MAX_LOAD", "1000")
            .env("PERFLAB_MAX_PRESSURE", "100%"),
        Machine::Busy => cmd
            .env("PERFLAB_MAX_LOAD", "0.001")
            .env("PERFLAB_MAX_PRESSURE", "0.001%"),
    };
    for (key, value) in env {
        cmd.env(key, value);
    }
    cmd.output().expect("bash runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        stdout(out),
        stderr(out)
    );
}

fn short_commit(s: &Scratch) -> String {
    git(s.dir.path(), &["rev-parse", "--short=12", "HEAD"])
}

fn provenance_blocks(readme: &str) -> usize {
    readme.matches("<!-- begin: provenance -->").count()
}

#[test]
fn a_committed_tree_on_a_quiet_machine_is_measured_and_its_commit_named() {
    let s = repository("# study\n\nText.\n");
    let out = run(&s, Machine::Quiet, &[], &[]);
    assert_exit(&out, 0);
    assert!(stdout(&out).contains(MEASURED), "{}", stdout(&out));
    let readme = std::fs::read_to_string(s.path("README.md")).unwrap();
    let line = format!(
        "Measured by `investigate.sh` at commit {} on ",
        short_commit(&s)
    );
    assert!(readme.contains(&line), "{readme}");
    assert!(readme.contains("; at the start: quiet: load "), "{readme}");
    assert!(!readme.contains("uncommitted"), "{readme}");
    assert!(!readme.contains("busy machine"), "{readme}");
}

#[test]
fn a_tree_with_uncommitted_changes_is_refused_with_exit_1_before_anything_is_measured() {
    let s = repository("# study\n\nText.\n");
    s.write("README.md", "# study\n\nChanged text.\n");
    let out = run(&s, Machine::Quiet, &[], &[]);
    assert_exit(&out, 1);
    let err = stderr(&out);
    assert!(err.contains("the tree has uncommitted changes"), "{err}");
    assert!(err.contains("PERFLAB_ALLOW_DIRTY=1"), "{err}");
    assert!(!stdout(&out).contains(MEASURED), "{}", stdout(&out));
    assert_eq!(
        std::fs::read_to_string(s.path("README.md")).unwrap(),
        "# study\n\nChanged text.\n",
        "the README is left as it was"
    );
}

#[test]
fn a_dirty_tree_is_measured_with_perflab_allow_dirty_and_the_provenance_says_so() {
    let s = repository("# study\n\nText.\n");
    s.write("README.md", "# study\n\nChanged text.\n");
    let out = run(&s, Machine::Quiet, &[], &[("PERFLAB_ALLOW_DIRTY", "1")]);
    assert_exit(&out, 0);
    let readme = std::fs::read_to_string(s.path("README.md")).unwrap();
    let line = format!(
        "at commit {} with uncommitted changes on ",
        short_commit(&s)
    );
    assert!(readme.contains(&line), "{readme}");
}

#[test]
fn a_busy_machine_is_refused_with_exit_1_saying_how_to_measure_anyway() {
    let s = repository("# study\n\nText.\n");
    let out = run(&s, Machine::Busy, &[], &[]);
    assert_exit(&out, 1);
    let err = stderr(&out);
    assert!(err.contains("the machine is busy"), "{err}");
    assert!(err.contains("busy: load "), "the check's figures: {err}");
    assert!(err.contains("--allow-busy"), "{err}");
    assert!(!stdout(&out).contains(MEASURED), "{}", stdout(&out));
    let readme = std::fs::read_to_string(s.path("README.md")).unwrap();
    assert_eq!(provenance_blocks(&readme), 0, "{readme}");
}

#[test]
fn on_a_busy_machine_allow_busy_measures_and_marks_the_figures_as_taken_there() {
    for (args, env) in [
        (&["--allow-busy"][..], &[][..]),
        (&[][..], &[("PERFLAB_ALLOW_BUSY", "1")][..]),
    ] {
        let s = repository("# study\n\nText.\n");
        let out = run(&s, Machine::Busy, args, env);
        assert_exit(&out, 0);
        assert!(stdout(&out).contains(MEASURED), "{}", stdout(&out));
        let readme = std::fs::read_to_string(s.path("README.md")).unwrap();
        assert!(
            readme.contains("**Taken on a busy machine** (--allow-busy)"),
            "{args:?} {readme}"
        );
        assert!(readme.contains("; at the start: busy: load "), "{readme}");
    }
}

#[test]
fn an_unknown_argument_exits_2_naming_it_and_the_one_argument_there_is() {
    let s = repository("# study\n\nText.\n");
    let out = run(&s, Machine::Quiet, &["--fast"], &[]);
    assert_exit(&out, 2);
    let err = stderr(&out);
    assert!(err.contains("unknown argument '--fast'"), "{err}");
    assert!(err.contains("--allow-busy"), "{err}");
    assert!(!stdout(&out).contains(MEASURED), "{}", stdout(&out));
}

#[test]
fn publish_provenance_adds_its_block_after_the_first_line_then_replaces_it() {
    let s = repository("# study\n\nText.\n");
    assert_exit(&run(&s, Machine::Quiet, &[], &[]), 0);
    let first = std::fs::read_to_string(s.path("README.md")).unwrap();
    assert!(
        first.starts_with("# study\n\n<!-- begin: provenance -->\nMeasured by "),
        "{first}"
    );
    assert!(
        first.ends_with("<!-- end: provenance -->\n\nText.\n"),
        "{first}"
    );
    // Committed, then measured again on a busy machine: the one block is
    // replaced, not added to.
    git(s.dir.path(), &["commit", "-qam", "figures"]);
    assert_exit(&run(&s, Machine::Busy, &["--allow-busy"], &[]), 0);
    let second = std::fs::read_to_string(s.path("README.md")).unwrap();
    assert_eq!(provenance_blocks(&second), 1, "{second}");
    assert!(second.contains("**Taken on a busy machine**"), "{second}");
    assert!(second.contains(&short_commit(&s)), "{second}");
    assert!(
        second.ends_with("<!-- end: provenance -->\n\nText.\n"),
        "{second}"
    );
}
