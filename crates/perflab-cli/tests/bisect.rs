//! `perflab bisect` through the real binary, in a git repository of ten
//! commits made by the test, one of which makes the program slower.

mod common;

use common::Scratch;
use common::assert_exit;
use common::commits::{BUILD, noisy_program, program, repository_of, repository_slowing_at};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn bisect(s: &Scratch, good: &str, bad: &str) -> std::process::Output {
    s.perflab()
        .args(["bisect", "--good", good, "--bad", bad, "--build", BUILD])
        .args([
            "--measure",
            "work",
            "--better",
            "lower",
            "--go",
            "5%",
            "--nogo",
            "-5%",
        ])
        .args(["--quiet", "--json", "bisect.json", "--", "./app"])
        .output()
        .unwrap()
}

#[test]
fn ten_commits_with_a_slowdown_at_the_seventh_are_bisected_to_it() {
    let s = Scratch::new();
    let ids = repository_slowing_at(s.dir.path(), 10, 7);
    let out = bisect(&s, "HEAD~10", "HEAD");
    assert_exit(&out, 0);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(&format!("first bad commit: {} change 7", ids[7])),
        "{said}"
    );
    let doc = s.json("bisect.json");
    assert_eq!(doc["format"], "perflab-bisect/1");
    assert_eq!(doc["first_bad"], ids[7].as_str(), "{doc}");
    assert_eq!(doc["outcome"], "found");
    assert_eq!(doc["commits"], 10);
    let steps = doc["steps"].as_array().unwrap();
    // BAD first, then at most ceil(log2(10)) = 4 halvings.
    assert!((2..=5).contains(&steps.len()), "{doc}");
    assert_eq!(steps[0]["commit"], ids[10].as_str());
    for step in steps {
        let index = ids
            .iter()
            .position(|id| step["commit"] == id.as_str())
            .unwrap();
        let expected = if index >= 7 { "bad" } else { "good" };
        assert_eq!(step["judgement"], expected, "{step}");
        assert!(
            step["change"].is_number() && step["ci"].is_array(),
            "{step}"
        );
    }
    // The error budget is split over the most steps the search may take.
    let step_confidence = doc["step_confidence"].as_f64().unwrap();
    let max_steps = doc["max_steps"].as_f64().unwrap();
    assert!(
        (step_confidence - (1.0 - 0.05 / max_steps)).abs() < 1e-12,
        "{doc}"
    );
}

#[test]
fn a_bad_revision_that_is_not_slower_ends_with_exit_4() {
    let s = Scratch::new();
    repository_slowing_at(s.dir.path(), 3, 0);
    let out = bisect(&s, "HEAD~3", "HEAD");
    assert_exit(&out, 4);
    assert!(String::from_utf8_lossy(&out.stdout).contains("no slowdown"));
    let doc = s.json("bisect.json");
    assert_eq!(doc["outcome"], "not-slower");
    assert!(doc["first_bad"].is_null());
}

#[test]
fn an_undecided_step_is_repeated_with_more_runs_then_the_remaining_range_is_given() {
    let s = Scratch::new();
    // The commits between a quiet GOOD and a slow, quiet BAD are so noisy
    // that no step on them can decide.
    let programs = [
        program(1000),
        noisy_program(1000),
        noisy_program(1000),
        noisy_program(1000),
        program(2000),
    ];
    let ids = repository_of(s.dir.path(), &programs);
    let out = s
        .perflab()
        .args([
            "bisect", "--good", "HEAD~4", "--bad", "HEAD", "--build", BUILD,
        ])
        .args(["--measure", "work", "--better", "lower", "--max-runs", "10"])
        // The swings alternate run after run: a block measured again on a
        // busy machine would shift them between A and B.
        .args(["--max-cpu-wait", "off"])
        .args(["--quiet", "--json", "bisect.json", "--", "./app"])
        .output()
        .unwrap();
    assert_exit(&out, 4);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("undecided"), "{said}");
    let doc = s.json("bisect.json");
    assert_eq!(doc["outcome"], "undecided");
    assert!(doc["first_bad"].is_null());
    assert_eq!(doc["remaining"]["after"], ids[0].as_str(), "{doc}");
    assert_eq!(doc["remaining"]["up_to"], ids[4].as_str(), "{doc}");
    let steps = doc["steps"].as_array().unwrap();
    assert_eq!(steps[0]["judgement"], "bad", "{doc}");
    // The middle commit, tried three times with twice the runs each time.
    let limits: Vec<_> = steps[1..]
        .iter()
        .map(|s| s["max_runs"].as_u64().unwrap())
        .collect();
    assert_eq!(limits, [10, 20, 40], "{doc}");
    assert!(
        steps[1..].iter().all(|s| s["verdict"] == "INCONCLUSIVE"),
        "{doc}"
    );
}

#[test]
fn good_not_an_ancestor_of_bad_is_refused_with_exit_2() {
    let s = Scratch::new();
    repository_slowing_at(s.dir.path(), 3, 2);
    let out = bisect(&s, "HEAD", "HEAD~2");
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("not an ancestor"), "{}", stderr(&out));
}

#[test]
fn an_unknown_revision_is_refused_with_exit_2() {
    let s = Scratch::new();
    repository_slowing_at(s.dir.path(), 3, 2);
    let out = bisect(&s, "v0.0-never-tagged", "HEAD");
    assert_exit(&out, 2);
    let message = stderr(&out);
    assert!(message.contains("--good"), "{message}");
    assert!(
        message.contains("'v0.0-never-tagged' is not a commit"),
        "{message}"
    );
}

#[test]
fn bisect_outside_a_git_repository_is_refused_with_exit_2() {
    let s = Scratch::new();
    let out = bisect(&s, "HEAD~1", "HEAD");
    assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("not in a git repository"),
        "{}",
        stderr(&out)
    );
}
