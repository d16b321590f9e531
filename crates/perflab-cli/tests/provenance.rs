//! The checkout state an experiment records (its commit, whether tracked
//! files were changed): read by git while perflab starts, of the folder the
//! runs work in, whichever command measures.

mod common;

use common::{Scratch, assert_exit, assert_reached_a_result, git, init_git_repository};

/// A scratch folder made a checkout with one committed file, `tracked`,
/// ignoring perflab's own files; returns it and its commit.
fn checkout() -> (Scratch, String) {
    let s = Scratch::new();
    init_git_repository(s.dir.path());
    s.write(".gitignore", ".perflab/\n*.json\n");
    s.write("tracked", "one\n");
    git(s.dir.path(), &["add", ".gitignore", "tracked"]);
    git(s.dir.path(), &["commit", "-qm", "first"]);
    let head = git(s.dir.path(), &["rev-parse", "HEAD"]);
    (s, head)
}

/// The commit and dirty flag of a result document's provenance.
fn checkout_state(doc: &serde_json::Value) -> (serde_json::Value, serde_json::Value) {
    let provenance = &doc["provenance"];
    (
        provenance["git_commit"].clone(),
        provenance["git_dirty"].clone(),
    )
}

#[test]
fn a_run_in_a_checkout_records_its_commit_and_then_its_change() {
    let (s, head) = checkout();
    let run = |json: &str| {
        let out = s
            .perflab()
            .args(["run", "-N", "-r", "2", "--quiet", "--json", json, "true"])
            .output()
            .unwrap();
        assert_exit(&out, 0);
        checkout_state(&s.json(json))
    };
    assert_eq!(run("clean.json"), (head.clone().into(), false.into()));
    s.write("tracked", "two\n");
    assert_eq!(run("changed.json"), (head.into(), true.into()));
}

#[test]
fn an_ab_records_the_checkout_its_runs_work_in_not_perflab_s_own_folder() {
    let (checkout, head) = checkout();
    checkout.write("tracked", "two\n");
    // perflab starts outside any checkout of this test; the runs work in it.
    let s = Scratch::new();
    let cwd = checkout.dir.path().to_str().unwrap();
    let out = s
        .perflab()
        .args([
            "ab",
            "-N",
            "--quiet",
            "--min-runs",
            "3",
            "--max-runs",
            "3",
            "--cwd",
            cwd,
            "--json",
            "ab.json",
            "true",
            "true",
        ])
        .output()
        .unwrap();
    assert_reached_a_result(&out);
    assert_eq!(
        checkout_state(&s.json("ab.json")),
        (head.into(), true.into())
    );
}

#[test]
fn an_experiment_file_s_runs_record_the_checkout_of_the_file_s_folder() {
    let (checkout, head) = checkout();
    // Commands run from the file's folder. The command line names no
    // folder, so the state perflab read as it started (of its own folder,
    // outside any checkout) is not the one recorded.
    let file = checkout.write(
        "perflab.toml",
        "shell = false\nmin_runs = 3\nmax_runs = 3\nwarmup = 0\n\n\
         [[variant]]\nname = \"a\"\ncommand = \"true\"\n\n\
         [[variant]]\nname = \"b\"\ncommand = \"true\"\n",
    );
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            "--quiet",
            "-f",
            file.to_str().unwrap(),
            "--json",
            "ab.json",
        ])
        .output()
        .unwrap();
    assert_reached_a_result(&out);
    assert_eq!(
        checkout_state(&s.json("ab.json")),
        (head.into(), false.into()),
        "an untracked experiment file leaves the checkout clean"
    );
}
