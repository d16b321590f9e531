//! Percentages, durations and K/M/G numbers as users type them.

use perflab_report::units::{parse_duration, parse_percent};
use perflab_runner::parse_si_number;
use proptest::prelude::*;

use crate::near_miss::{CASES, odd_value};

/// A number, a unit and spaces around them, each possibly odd.
fn quantity() -> impl Strategy<Value = String> {
    let unit = proptest::sample::select(&[
        "", "%", "ms", "s", "us", "µs", "m", "min", "h", "k", "K", "M", "G", "x",
    ]);
    prop_oneof![
        (odd_value(), unit, " {0,2}").prop_map(|(n, u, space)| format!("{space}{n}{u}")),
        odd_value(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES * 4))]

    #[test]
    fn a_percentage_is_finite_or_its_error_quotes_the_text(text in quantity()) {
        match parse_percent(&text) {
            Ok(fraction) => prop_assert!(fraction.is_finite()),
            Err(message) => prop_assert!(message.contains(&format!("'{text}'")), "{message}"),
        }
    }

    #[test]
    fn a_duration_is_usable_or_its_error_quotes_the_text(text in quantity()) {
        match parse_duration(&text) {
            Ok(_) => {}
            Err(message) => prop_assert!(message.contains(&format!("'{text}'")), "{message}"),
        }
    }

    #[test]
    fn a_number_with_a_suffix_is_finite_or_refused(text in quantity()) {
        if let Some(value) = parse_si_number(&text) {
            prop_assert!(value.is_finite(), "{text} gave {value}");
        }
    }

    #[test]
    fn every_finite_number_reads_back_with_each_suffix(
        value in any::<f64>().prop_filter("finite", |v| v.is_finite()),
        (suffix, scale) in proptest::sample::select(&[("", 1.0), ("K", 1e3), ("M", 1e6), ("G", 1e9)]),
    ) {
        let expected = value * scale;
        let parsed = parse_si_number(&format!("{value}{suffix}"));
        if expected.is_finite() {
            prop_assert_eq!(parsed, Some(expected));
        } else {
            prop_assert_eq!(parsed, None);
        }
    }
}

#[test]
fn a_duration_longer_than_a_clock_can_hold_is_refused() {
    let message = parse_duration("99999999999999999999999h").unwrap_err();
    assert!(message.contains("'99999999999999999999999h'"), "{message}");
}
