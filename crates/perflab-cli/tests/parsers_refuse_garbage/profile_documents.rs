//! Profile documents (`perflab-profile/1`) that instrumented programs write
//! and the CLI reads back from each run.

use perflab_format::profile::Profile;
use perflab_report::spans::{parse_profiles, profile_warnings, span_docs};
use proptest::prelude::*;

use crate::near_miss::{CASES, near_miss};

const VALID: &str = include_str!("../fixtures/spans-baseline.json");

fn damaged_profile() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => near_miss(VALID.to_string()),
        1 => any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn a_damaged_profile_is_read_or_refused_by_its_origin(text in damaged_profile()) {
        match Profile::from_json_str(&text) {
            // Not compared field by field: serde_json's default float reading
            // may be one unit in the last place off for long decimals.
            Ok(profile) => prop_assert!(Profile::from_json_str(&profile.to_json_pretty().unwrap()).is_ok()),
            Err(e) => prop_assert!(e.to_string().contains("<string>"), "{e}"),
        }
    }

    #[test]
    fn the_runs_whose_profiles_are_damaged_are_named(
        texts in proptest::collection::vec(
            prop_oneof![
                Just(None),
                Just(Some(VALID.to_string())),
                damaged_profile().prop_map(Some),
            ],
            1..5,
        ),
    ) {
        let (profiles, problems) = parse_profiles(texts.iter().map(Option::as_deref));
        prop_assert_eq!(profiles.len(), texts.len());
        let unread: Vec<usize> = texts
            .iter()
            .zip(&profiles)
            .enumerate()
            .filter(|(_, (text, profile))| text.is_some() && profile.is_none())
            .map(|(i, _)| i + 1)
            .collect();
        prop_assert_eq!(problems.is_empty(), unread.is_empty());
        // What is read is summarised without overflow, however large its figures.
        let _ = span_docs(&[profiles.clone(), profiles.clone()], None);
        let _ = profile_warnings(&[("A", &profiles)]);
        for problem in &problems {
            let run: usize = problem
                .split_once("run ")
                .and_then(|(_, rest)| rest.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("no run named in: {problem}"));
            prop_assert!(unread.contains(&run), "{problem} but unread: {unread:?}");
        }
    }
}

#[test]
fn the_fixture_profile_is_read() {
    assert_eq!(Profile::from_json_str(VALID).unwrap().program, "spans");
}

#[test]
fn unattributed_times_that_add_up_beyond_64_bits_are_summarised() {
    let huge = VALID.replace(
        "\"unattributed_ns\": ",
        "\"unattributed_ns\": 18446744073709551615, \"was\": ",
    );
    let mut profile = Profile::from_json_str(&huge).unwrap();
    profile.threads.push(profile.threads[0].clone());
    let docs = span_docs(&[vec![Some(profile)]], None);
    assert!(docs.last().unwrap().per_variant[0].is_some());
}
