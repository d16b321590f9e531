//! Every document survives writing and reading back unchanged: serialised
//! to JSON, parsed with its own reader (which checks the `format` tag), and
//! equal to what was written, for values built by proptest.

mod strategies;

use perflab_format::history::MetricHistory;
use perflab_format::instructions::InstructionsDocument;
use perflab_format::profile::Profile;
use perflab_format::result::ResultDocument;
use perflab_format::sampling::SamplingDocument;
use perflab_format::sweep::SweepDocument;
use perflab_format::system::SystemDocument;
use perflab_format::vocabulary::ResultKind;
use proptest::prelude::*;
use proptest::sample::select;

use strategies::measured::{instructions, profile, sampling};
use strategies::{metric_history, result_of, sweep, system};

fn any_result() -> impl Strategy<Value = ResultDocument> {
    select(ResultKind::ALL).prop_flat_map(result_of)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_result_of_any_kind_reads_back_as_written(doc in any_result()) {
        let text = serde_json::to_string(&doc).unwrap();
        prop_assert_eq!(ResultDocument::from_json_str(&text).unwrap(), doc);
    }

    #[test]
    fn a_sweep_reads_back_as_written(doc in sweep()) {
        let text = serde_json::to_string(&doc).unwrap();
        prop_assert_eq!(SweepDocument::from_json_str(&text).unwrap(), doc.clone());
        prop_assert_eq!(SweepDocument::from_result_json(&text), Some(doc));
    }

    #[test]
    fn a_sweep_is_also_a_plain_result(doc in sweep()) {
        let text = serde_json::to_string(&doc).unwrap();
        prop_assert_eq!(ResultDocument::from_json_str(&text).unwrap(), doc.result);
    }

    #[test]
    fn a_history_reads_back_as_written(doc in metric_history()) {
        let text = serde_json::to_string_pretty(&doc).unwrap();
        prop_assert_eq!(MetricHistory::from_json_str(&text).unwrap(), doc);
    }

    #[test]
    fn a_sampling_profile_reads_back_as_written(doc in sampling()) {
        let text = serde_json::to_string(&doc).unwrap();
        prop_assert_eq!(SamplingDocument::from_json_str(&text).unwrap(), doc);
    }

    #[test]
    fn instruction_counts_read_back_as_written(doc in instructions()) {
        let text = serde_json::to_string(&doc).unwrap();
        prop_assert_eq!(InstructionsDocument::from_json_str(&text).unwrap(), doc);
    }

    #[test]
    fn the_settings_of_a_machine_read_back_as_written(doc in system()) {
        let text = serde_json::to_string(&doc).unwrap();
        prop_assert_eq!(SystemDocument::from_json_str(&text).unwrap(), doc);
    }

    #[test]
    fn a_span_profile_reads_back_as_written(doc in profile()) {
        prop_assert_eq!(Profile::from_json_str(&doc.to_json_pretty().unwrap()).unwrap(), doc);
    }
}

#[test]
fn a_plain_result_is_not_read_as_a_sweep() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/result-run.json"
    ))
    .unwrap();
    assert_eq!(SweepDocument::from_result_json(&text), None);
    assert!(SweepDocument::from_json_str(&text).is_err());
}

#[test]
fn a_result_written_before_cpu_wait_reads_without_it_and_writes_as_before() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/result-run.json"
    ))
    .unwrap();
    let doc = ResultDocument::from_json_str(&text).unwrap();
    assert!(doc.variants.iter().all(|v| v.cpu_wait.is_none()));
    assert_eq!(doc.contention, None);
    let written = serde_json::to_string(&doc).unwrap();
    assert!(!written.contains("cpu_wait"), "{written}");
    assert!(!written.contains("contention"), "{written}");
}
