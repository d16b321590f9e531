//! Commits as variants: `perflab ab --rev`, the `[build]` table and `rev =`
//! of an experiment file, `perflab clean`, through the real binary in a git
//! repository made by the test.

mod common;

use common::commits::{BUILD, builds_in, program, repository_slowing_at, worktree_of};
use common::{Scratch, assert_exit, git};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `ab --rev OLD --rev NEW` on the program, deciding on its `work` metric.
fn ab_revisions(s: &Scratch, old: &str, new: &str, build: &str) -> std::process::Output {
    s.perflab()
        .args(["ab", "--rev", old, "--rev", new, "--build", build])
        .args(["--measure", "work", "--better", "lower", "--quiet"])
        .args(["--json", "result.json", "--", "./app"])
        .output()
        .unwrap()
}

#[test]
fn two_revisions_are_built_once_each_and_the_slower_one_is_no_go() {
    let s = Scratch::new();
    let ids = repository_slowing_at(s.dir.path(), 4, 3);
    let out = ab_revisions(&s, "HEAD~4", "HEAD", BUILD);
    assert_exit(&out, 3);
    let doc = s.json("result.json");
    assert_eq!(doc["verdict"], "NO-GO", "{doc}");
    let names: Vec<&str> = doc["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["HEAD~4", "HEAD"]);
    let revisions = &doc["provenance"]["revisions"];
    assert_eq!(revisions[0]["commit"], ids[0].as_str(), "{revisions}");
    assert_eq!(revisions[1]["commit"], ids[4].as_str(), "{revisions}");
    assert_eq!(revisions[1]["working_tree"], false);
    for id in [&ids[0], &ids[4]] {
        let tree = worktree_of(s.dir.path(), id);
        assert_eq!(builds_in(&tree), 1, "{}", tree.display());
        let marker = std::fs::read_to_string(tree.join(".perflab-build")).unwrap();
        assert!(
            marker.contains(id.as_str()) && marker.contains(BUILD),
            "{marker}"
        );
    }
    assert!(stderr(&out).contains("building revision 'HEAD~4'"));

    let again = ab_revisions(&s, "HEAD~4", "HEAD", BUILD);
    assert_exit(&again, 3);
    assert!(!stderr(&again).contains("building"), "{}", stderr(&again));
    for id in [&ids[0], &ids[4]] {
        assert_eq!(builds_in(&worktree_of(s.dir.path(), id)), 1);
    }
}

#[test]
fn an_experiment_file_names_revisions_and_its_build() {
    let s = Scratch::new();
    let ids = repository_slowing_at(s.dir.path(), 2, 0);
    s.write(
        "perflab.toml",
        &format!(
            "measure = \"work\"\nbetter = \"lower\"\ngo = \"5%\"\nnogo = \"-5%\"\n\n\
             [build]\ncommand = \"{BUILD}\"\n\n\
             [[variant]]\nrev = \"HEAD~2\"\ncommand = \"./app\"\n\n\
             [[variant]]\nrev = \"main\"\ncommand = \"./app\"\n"
        ),
    );
    let out = s
        .perflab()
        .args(["ab", "-f", "perflab.toml", "--quiet", "--json", "file.json"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let doc = s.json("file.json");
    assert_eq!(doc["verdict"], "NEUTRAL", "{doc}");
    assert_eq!(doc["variants"][0]["name"], "HEAD~2");
    assert_eq!(doc["variants"][1]["name"], "main");
    assert_eq!(builds_in(&worktree_of(s.dir.path(), &ids[0])), 1);
}

#[test]
fn a_failed_build_exits_2_naming_the_revision_and_is_built_again_next_time() {
    let s = Scratch::new();
    let ids = repository_slowing_at(s.dir.path(), 2, 0);
    let fixed = s.path("fixed");
    let build = format!(
        "echo compiling; if [ -f {0} ]; then {BUILD}; else echo 'error: does not compile' >&2; exit 1; fi",
        fixed.display()
    );
    let out = ab_revisions(&s, "HEAD~1", "HEAD", &build);
    assert_exit(&out, 2);
    let message = stderr(&out);
    assert!(message.contains("revision 'HEAD~1'"), "{message}");
    assert!(message.contains("error: does not compile"), "{message}");
    let tree = worktree_of(s.dir.path(), &ids[1]);
    assert!(!tree.join(".perflab-build").exists());

    std::fs::write(&fixed, "").unwrap();
    let out = ab_revisions(&s, "HEAD~1", "HEAD", &build);
    common::assert_reached_a_result(&out);
    assert!(stderr(&out).contains("building revision 'HEAD~1'"));
    assert_eq!(builds_in(&tree), 1);
}

#[test]
fn a_dirty_tree_is_refused_unless_allowed_and_then_head_runs_as_it_is() {
    let s = Scratch::new();
    let ids = repository_slowing_at(s.dir.path(), 3, 2);
    // HEAD is slow; the uncommitted fix makes the working tree fast again.
    std::fs::write(s.path("app.sh"), program(1000)).unwrap();
    let out = ab_revisions(&s, "HEAD~3", "HEAD", BUILD);
    assert_exit(&out, 2);
    let message = stderr(&out);
    assert!(message.contains("uncommitted changes"), "{message}");
    assert!(message.contains("--allow-dirty"), "{message}");

    let out = s
        .perflab()
        .args(["ab", "--rev", "HEAD~3", "--rev", "HEAD", "--build", BUILD])
        .args(["--allow-dirty", "--go", "5%", "--nogo", "-5%"])
        .args(["--measure", "work", "--better", "lower", "--quiet"])
        .args(["--json", "dirty.json", "--", "./app"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let doc = s.json("dirty.json");
    assert_eq!(doc["verdict"], "NEUTRAL", "{doc}");
    assert_eq!(doc["provenance"]["revisions"][1]["working_tree"], true);
    assert_eq!(doc["provenance"]["revisions"][1]["commit"], ids[3].as_str());
    assert_eq!(builds_in(s.dir.path()), 1);
}

#[test]
fn an_unknown_revision_is_refused_with_exit_2() {
    let s = Scratch::new();
    repository_slowing_at(s.dir.path(), 1, 0);
    let out = ab_revisions(&s, "no-such-branch", "HEAD", BUILD);
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("'no-such-branch' is not a commit"));
}

#[test]
fn revisions_outside_a_git_repository_are_refused() {
    let s = Scratch::new();
    let out = ab_revisions(&s, "HEAD~1", "HEAD", BUILD);
    assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("not in a git repository"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn one_revision_alone_is_refused() {
    let s = Scratch::new();
    repository_slowing_at(s.dir.path(), 1, 0);
    let out = s
        .perflab()
        .args(["ab", "--rev", "HEAD", "--", "./app"])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("give --rev twice"));
}

#[test]
fn clean_removes_the_worktrees_and_says_which() {
    let s = Scratch::new();
    let ids = repository_slowing_at(s.dir.path(), 1, 0);
    let out = ab_revisions(&s, "HEAD~1", "HEAD", BUILD);
    common::assert_reached_a_result(&out);
    assert!(worktree_of(s.dir.path(), &ids[0]).exists());

    let out = s.perflab().arg("clean").output().unwrap();
    assert_exit(&out, 0);
    let said = String::from_utf8_lossy(&out.stdout);
    for id in &ids {
        assert!(said.contains(&id[..12]), "{said}");
        assert!(!worktree_of(s.dir.path(), id).exists());
    }
    let listed = git(s.dir.path(), &["worktree", "list"]);
    assert_eq!(listed.lines().count(), 1, "{listed}");

    let out = s.perflab().arg("clean").output().unwrap();
    assert_exit(&out, 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("no perflab worktrees"));
}
