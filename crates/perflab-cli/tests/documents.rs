//! The documents the real binary writes with `--json` read back with
//! perflab-format's typed readers, with the words (kind, status, verdict,
//! stop) the commands imply, and write back as the same JSON.

mod common;

use common::{Scratch, assert_reached_a_result, busy};
use perflab_format::history::MetricHistory;
use perflab_format::result::ResultDocument;
use perflab_format::sweep::SweepDocument;
use perflab_format::vocabulary::{ResultKind, ResultStatus, SweepStop, Verdict};
use serde::Serialize;

/// Reads `name` from the scratch directory with `parse`, and checks that
/// writing it back gives the same JSON value.
fn read_back<T: Serialize, E: std::fmt::Debug>(
    s: &Scratch,
    name: &str,
    parse: impl Fn(&str) -> Result<T, E>,
) -> T {
    let text = std::fs::read_to_string(s.path(name)).expect("document written");
    let doc = parse(&text).expect("document parses");
    assert_eq!(serde_json::to_value(&doc).unwrap(), s.json(name));
    doc
}

#[test]
fn a_run_reads_back_as_a_typed_document() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "run",
            "--quiet",
            "-r",
            "4",
            &busy(300),
            "--json",
            "run.json",
        ])
        .output()
        .unwrap();
    assert_reached_a_result(&out);
    let run = read_back(&s, "run.json", ResultDocument::from_json_str);
    assert_eq!(
        (run.kind, run.status, run.verdict),
        (ResultKind::Run, ResultStatus::Complete, None)
    );
}

#[test]
fn a_comparison_reads_back_with_its_verdict() {
    let s = Scratch::new();
    // The candidate takes twice as long: NO-GO whatever the machine does.
    s.write("a.txt", "1.0\n1.1\n0.9\n1.05\n1.0\n0.95\n1.02\n0.98\n");
    s.write("b.txt", "2.0\n2.1\n1.9\n2.05\n2.0\n1.95\n2.02\n1.98\n");
    let out = s
        .perflab()
        .args(["compare", "a.txt", "b.txt", "--json", "c.json"])
        .output()
        .unwrap();
    assert_reached_a_result(&out);
    let compare = read_back(&s, "c.json", ResultDocument::from_json_str);
    assert_eq!(compare.kind, ResultKind::Compare);
    assert_eq!(compare.verdict, Some(Verdict::NoGo));
    assert_eq!(compare.decision.map(|d| d.verdict), Some(Verdict::NoGo));
}

#[test]
fn an_ab_result_reads_back_as_a_typed_document() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            "--quiet",
            "--seed",
            "1",
            "--min-runs",
            "4",
            "--max-runs",
            "6",
        ])
        .args([&busy(3000), &busy(300), "--json", "ab.json"])
        .output()
        .unwrap();
    assert_reached_a_result(&out);
    let doc = read_back(&s, "ab.json", ResultDocument::from_json_str);
    assert_eq!(doc.kind, ResultKind::Ab);
    assert!(doc.verdict.is_some());
    assert_eq!(doc.verdict, doc.decision.map(|d| d.verdict));
}

#[test]
fn a_sweep_reads_back_as_a_typed_document_and_as_a_result() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["sweep", "--quiet", "-p", "n=200,400,800", "--seed", "3"])
        .args(["--min-runs", "2", "--max-runs", "3", "--json", "s.json"])
        .arg("i=0; while [ $i -lt {n} ]; do i=$((i+1)); done")
        .output()
        .unwrap();
    assert_reached_a_result(&out);
    let doc = read_back(&s, "s.json", SweepDocument::from_json_str);
    assert_eq!(doc.result.kind, ResultKind::Sweep);
    assert_eq!(doc.result.status, ResultStatus::Complete);
    assert_eq!(doc.sweep.stop, SweepStop::Finished);
    assert_eq!(doc.sweep.points.len(), 3);
    let text = std::fs::read_to_string(s.path("s.json")).unwrap();
    assert_eq!(ResultDocument::from_json_str(&text).unwrap(), doc.result);
}

#[test]
fn a_history_reads_back_as_a_typed_document() {
    let s = Scratch::new();
    // The same command, a hundred times the work in the second experiment:
    // a change point, so the second step carries its judgement.
    for turns in [500, 50_000] {
        s.write("turns", &turns.to_string());
        let command = "i=0; n=$(cat turns); while [ $i -lt $n ]; do i=$((i+1)); done";
        let out = s
            .perflab()
            .args(["run", "--quiet", "--name", "h", "-r", "6", command])
            .output()
            .unwrap();
        assert_reached_a_result(&out);
    }
    // Two experiments: too few to shuffle whole ones, so runs are shuffled.
    let out = s
        .perflab()
        .args([
            "history",
            "--metric",
            "wall",
            "--name",
            "h",
            "--permute",
            "runs",
            "--json",
            "h.json",
        ])
        .output()
        .unwrap();
    assert_reached_a_result(&out);
    let doc = read_back(&s, "h.json", MetricHistory::from_json_str);
    assert_eq!(
        doc.series[0].steps.len(),
        2,
        "one step per experiment without git"
    );
    assert!(doc.series[0].steps[1].change.is_some());
}
