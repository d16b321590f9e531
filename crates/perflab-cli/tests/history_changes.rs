//! The history of a metric judged as a series: its change points with their
//! commit ranges (`perflab history --metric`), and those of every series in
//! the store (`perflab history --changes`), over real commits.

mod common;

use common::history::{
    commit_and_measure, commit_and_measure_named, cost_is_lower_better, repository,
};

fn history_json(s: &common::Scratch) -> (Option<i32>, String, serde_json::Value) {
    let out = s
        .perflab()
        .args([
            "history", "--metric", "cost", "--better", "lower", "--json", "h.json",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code(), stdout, s.json("h.json"))
}

#[test]
fn a_steady_series_has_no_change_point_and_a_later_regression_is_one_with_its_commit_range() {
    let s = repository();
    for step in 1..=10 {
        commit_and_measure(&s, step, 200.0);
    }
    let (code, stdout, json) = history_json(&s);
    assert_eq!(code, Some(0), "{stdout}");
    assert!((json["false_alarm"].as_f64().unwrap() - 0.05).abs() < 1e-12);
    assert_eq!(json["permute"], "commits");
    let series = &json["series"][0];
    assert!(series.get("change_points").is_none(), "{stdout}");
    assert!(stdout.contains("no change point found"), "{stdout}");
    assert!(stdout.contains("5% false alarms per series"), "{stdout}");

    for step in 11..=15 {
        commit_and_measure(&s, step, 230.0);
    }
    let (code, stdout, json) = history_json(&s);
    assert_eq!(code, Some(3), "{stdout}");
    let series = &json["series"][0];
    let steps = series["steps"].as_array().unwrap();
    let changes = series["change_points"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{stdout}");
    let change = &changes[0];
    assert_eq!(change["step"], 10);
    assert_eq!(change["from"], steps[9]["label"]);
    assert_eq!(change["to"], steps[10]["label"]);
    assert_eq!(change["from_commit"], steps[9]["commit"]);
    assert_eq!(
        (
            change["steps_before"].as_u64(),
            change["steps_after"].as_u64()
        ),
        (Some(10), Some(5))
    );
    assert!(change["p_value"].as_f64().unwrap() <= 0.05);
    let judgement = &change["judgement"];
    assert_eq!(judgement["verdict"], "NO-GO", "{stdout}");
    assert_eq!(judgement["regression"], true);
    let [lo, hi] = [0, 1].map(|i| judgement["ci"][i].as_f64().unwrap());
    let truth = 200.0 / 230.0 - 1.0;
    assert!(lo < truth && truth < hi && hi < 0.0, "{lo} {hi}");
    // Only the step where the level changed carries a judgement.
    let judged: Vec<usize> = (0..steps.len())
        .filter(|&i| !steps[i]["change"].is_null())
        .collect();
    assert_eq!(judged, [10]);
    assert!(
        stdout.contains("1 change point") && stdout.contains("← regression"),
        "{stdout}"
    );
}

#[test]
fn changes_lists_every_series_newest_first_and_fails_only_on_a_watched_regression() {
    let s = repository();
    cost_is_lower_better(&s);
    let mut step = 0;
    let mut measure = |name: &str, value: f64| {
        step += 1;
        commit_and_measure_named(&s, name, step, value);
    };
    for value in [[100.0; 6].as_slice(), &[130.0; 5]].concat() {
        measure("old", value);
    }
    for value in [[50.0; 6].as_slice(), &[40.0; 5]].concat() {
        measure("new", value);
    }
    let changes = |only_cost: bool| {
        let mut args = vec!["history", "--changes"];
        if only_cost {
            args.extend(["--metric", "cost"]);
        }
        let out = s.perflab().args(&args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    // "old" regressed, but nothing has measured it since: it is not watched.
    let (code, stdout) = changes(true);
    assert_eq!(code, Some(0), "{stdout}");
    let lines: Vec<&str> = stdout.lines().filter(|l| l.contains(" cost ")).collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(
        lines[0].contains("new")
            && lines[0].contains("GO")
            && lines[0].contains("[watched, newest]"),
        "{stdout}"
    );
    assert!(
        lines[1].contains("old") && lines[1].contains("← regression"),
        "{stdout}"
    );
    assert!(!lines[1].contains("watched"), "{stdout}");
    // Without --metric every metric of every name is judged, cost among them.
    let (_, all) = changes(false);
    let all_cost: Vec<&str> = all.lines().filter(|l| l.contains(" cost ")).collect();
    assert_eq!(all_cost, lines, "{all}");
    let series = |text: &str| -> usize {
        let (_, after) = text.split_once(" in ").unwrap();
        after.split(' ').next().unwrap().parse().unwrap()
    };
    // cost of "old", "new" and both variants of "calibration"; wall of "old" and "new".
    assert_eq!((series(&stdout), series(&all)), (4, 6), "{stdout}\n{all}");

    for _ in 0..5 {
        measure("new", 60.0);
    }
    let (code, stdout) = changes(true);
    assert_eq!(code, Some(3), "{stdout}");
    assert!(
        stdout.contains("regression: the newest change point of new cost"),
        "{stdout}"
    );
}

#[test]
fn changes_names_a_metric_without_a_direction_once_with_the_experiments_reporting_it() {
    let s = repository();
    for name in ["parse", "insert", "lookup", "delete", "scan"] {
        commit_and_measure_named(&s, name, 1, 200.0);
    }
    let out = s.perflab().args(["history", "--changes"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let left_out: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("no stored result says which way is better"))
        .collect();
    assert_eq!(left_out.len(), 1, "{stdout}");
    assert!(
        left_out[0].contains(r#"'cost' of "delete", "insert", "lookup" and 2 more:"#),
        "{stdout}"
    );
}
