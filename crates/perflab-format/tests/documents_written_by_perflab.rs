//! Documents that the `perflab` binary wrote (checked in under
//! `tests/fixtures`, from `perflab ab`, `run`, `compare`, `sweep`,
//! `history`, `profile` and `ab --measure instructions`) read with the typed
//! readers, and written back as the very same JSON: the types describe the
//! wire format exactly, so stored experiments and old files stay readable.

use perflab_format::history::MetricHistory;
use perflab_format::instructions::InstructionsDocument;
use perflab_format::result::ResultDocument;
use perflab_format::sampling::SamplingDocument;
use perflab_format::sweep::{CostBasis, SweepDocument};
use perflab_format::vocabulary::{
    Better, GuardStatus, ResultKind, ResultStatus, StepVerdict, SweepStop, Verdict,
};
use serde::Serialize;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The document written back is the same JSON value as the file.
fn writes_back_the_same<T: Serialize>(doc: &T, text: &str) {
    let original: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(serde_json::to_value(doc).unwrap(), original);
}

fn result(name: &str) -> ResultDocument {
    let text = fixture(name);
    let doc = ResultDocument::from_json_str(&text).unwrap();
    writes_back_the_same(&doc, &text);
    doc
}

#[test]
fn an_ab_result_with_a_go_reads_and_writes_back_unchanged() {
    let doc = result("result-ab-go.json");
    assert_eq!(doc.kind, ResultKind::Ab);
    assert_eq!(doc.status, ResultStatus::Complete);
    assert_eq!(doc.verdict, Some(Verdict::Go));
    assert_eq!(doc.decision.map(|d| d.verdict), Some(Verdict::Go));
    assert_eq!(doc.metric.better, Better::Lower);
}

#[test]
fn an_ab_result_held_back_by_a_guard_reads_and_writes_back_unchanged() {
    let doc = result("result-ab-guarded.json");
    assert_eq!(doc.verdict, Some(Verdict::Inconclusive));
    assert_eq!(doc.guards[0].status, GuardStatus::Uncertain);
}

#[test]
fn an_ab_result_on_instruction_counts_reads_and_writes_back_unchanged() {
    let doc = result("result-ab-instructions.json");
    assert_eq!(doc.metric.name, "instructions");
}

#[test]
fn a_run_result_reads_and_writes_back_unchanged() {
    let doc = result("result-run.json");
    assert_eq!(doc.kind, ResultKind::Run);
    assert_eq!((doc.verdict, doc.decision), (None, None));
}

#[test]
fn a_compare_result_reads_and_writes_back_unchanged() {
    let doc = result("result-compare.json");
    assert_eq!(doc.kind, ResultKind::Compare);
    assert_eq!(doc.verdict, Some(Verdict::NoGo));
}

#[test]
fn a_sweep_result_reads_and_writes_back_unchanged() {
    let text = fixture("result-sweep.json");
    let doc = SweepDocument::from_json_str(&text).unwrap();
    writes_back_the_same(&doc, &text);
    assert_eq!(doc.result.kind, ResultKind::Sweep);
    assert_eq!(doc.sweep.stop, SweepStop::Finished);
    assert_eq!(doc.sweep.points.len(), 4);
    assert!(doc.sweep.series.iter().all(|s| s.fit.is_some()));
    // Written before the fixed/marginal split: it reads as the total cost.
    assert!(doc.sweep.series.iter().all(|s| s.linear.is_none()
        && s.basis == CostBasis::Total
        && s.marginal_per_item.is_empty()));
    assert_eq!(SweepDocument::from_result_json(&text), Some(doc));
}

#[test]
fn a_sweep_with_a_fixed_part_reads_and_writes_back_unchanged() {
    let text = fixture("result-sweep-fixed-part.json");
    let doc = SweepDocument::from_json_str(&text).unwrap();
    writes_back_the_same(&doc, &text);
    let series = &doc.sweep.series[0];
    assert_eq!(series.basis, CostBasis::Marginal);
    let linear = series.linear.unwrap();
    assert!(linear.has_fixed_part && linear.fixed_lo > 0.0);
    assert!(linear.marginal_lo <= linear.marginal && linear.marginal <= linear.marginal_hi);
    assert_eq!(series.marginal_per_item.len(), series.points.len());
}

#[test]
fn a_history_reads_and_writes_back_unchanged() {
    let text = fixture("history.json");
    let doc = MetricHistory::from_json_str(&text).unwrap();
    writes_back_the_same(&doc, &text);
    let verdicts: Vec<Option<StepVerdict>> = doc.series[0]
        .steps
        .iter()
        .map(|s| s.change.as_ref().map(|c| c.verdict))
        .collect();
    use StepVerdict::*;
    assert_eq!(
        verdicts,
        [
            None,
            Some(Go),
            Some(Inconclusive),
            Some(NoGo),
            Some(TooFewRuns)
        ]
    );
}

#[test]
fn a_history_with_change_points_reads_and_writes_back_unchanged() {
    let text = fixture("history_change_points.json");
    let doc = MetricHistory::from_json_str(&text).unwrap();
    writes_back_the_same(&doc, &text);
    assert_eq!(doc.false_alarm.map(|r| (r * 100.0).round()), Some(5.0));
    assert_eq!(doc.permute.as_deref(), Some("runs"));
    let series = &doc.series[0];
    let [change] = series.change_points.as_slice() else {
        panic!("one change point expected: {:?}", series.change_points)
    };
    assert_eq!(
        (change.step, change.steps_before, change.steps_after),
        (3, 3, 2)
    );
    assert_eq!(change.to, series.steps[3].label);
    assert_eq!(change.judgement.verdict, StepVerdict::NoGo);
    assert!(change.judgement.regression && doc.newest_change_regressed());
    assert_eq!(series.steps[3].change.as_ref(), Some(&change.judgement));
}

#[test]
fn a_sampling_profile_reads_and_writes_back_unchanged() {
    let text = fixture("sampling.json");
    let doc = SamplingDocument::from_json_str(&text).unwrap();
    writes_back_the_same(&doc, &text);
}

#[test]
fn instruction_counts_read_and_write_back_unchanged() {
    let text = fixture("instructions.json");
    let doc = InstructionsDocument::from_json_str(&text).unwrap();
    writes_back_the_same(&doc, &text);
    assert!(doc.exact);
}

#[test]
fn a_span_profile_reads_and_writes_back_unchanged() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../perflab-cli/tests/fixtures/spans-baseline.json"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let doc = perflab_format::profile::Profile::from_json_str(&text).unwrap();
    writes_back_the_same(&doc, &text);
}

#[test]
fn a_result_is_refused_where_a_history_is_expected() {
    let err = MetricHistory::from_json_str(&fixture("result-run.json")).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("perflab-history/1") && message.contains("perflab-result/1"),
        "{message}"
    );
}

#[test]
fn a_misspelt_verdict_is_refused_naming_the_words_allowed() {
    let text = fixture("result-ab-go.json").replace("\"GO\"", "\"GOOD\"");
    let message = ResultDocument::from_json_str(&text)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("GOOD") && message.contains("NO-GO"),
        "{message}"
    );
}
