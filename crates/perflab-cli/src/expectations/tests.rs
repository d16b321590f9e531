use std::collections::BTreeMap;

use perflab_runner::{ExitState, MetricValue, RunOutcome};
use proptest::prelude::*;

use super::condition::format_value;
use super::*;

fn entries(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn parse(pairs: &[(&str, &str)]) -> std::result::Result<Expectations, String> {
    Expectations::parse(&entries(pairs))
}

fn condition(value: &str) -> Condition {
    parse(&[("x", value)]).unwrap().items[0].condition
}

fn run_with(metrics: &[(&str, f64)], profile_json: Option<String>) -> RunOutcome {
    RunOutcome {
        wall_s: 1.5,
        user_s: 1.0,
        sys_s: 0.25,
        peak_memory_kib: 2048.0,
        exit: ExitState::Code(0),
        unreadable_metrics: Default::default(),
        metrics: metrics
            .iter()
            .map(|(name, value)| {
                (
                    name.to_string(),
                    MetricValue {
                        value: *value,
                        unit: "count".into(),
                    },
                )
            })
            .collect::<BTreeMap<_, _>>(),
        output_tail: "done\n".into(),
        profile_json,
        answer: None,
        containment: Default::default(),
    }
}

fn message(result: Result<()>) -> String {
    match result.unwrap_err() {
        Error::Run { run, message } => {
            assert_eq!(run, "run 3 of variant \"B\"");
            message
        }
        other => panic!("not a run error: {other}"),
    }
}

#[test]
fn every_comparison_form_parses() {
    let forms = [
        ("> 0", Comparison::Above),
        (">= 1", Comparison::AtLeast),
        ("< 2", Comparison::Below),
        ("<= 3", Comparison::AtMost),
        ("== 4", Comparison::Equal),
        ("!= 5", Comparison::NotEqual),
    ];
    for (i, (text, comparison)) in forms.into_iter().enumerate() {
        assert_eq!(
            condition(text),
            Condition::Compare(comparison, i as f64),
            "{text}"
        );
    }
    assert_eq!(
        condition(">=7"),
        Condition::Compare(Comparison::AtLeast, 7.0)
    );
}

#[test]
fn ranges_suffixes_and_percents_parse() {
    assert_eq!(condition("0.15..0.25"), Condition::Range(0.15, 0.25));
    assert_eq!(condition(" 1K .. 2.5M "), Condition::Range(1e3, 2.5e6));
    assert_eq!(condition("15%..25%"), Condition::Range(0.15, 0.25));
    assert_eq!(condition("-5..-1"), Condition::Range(-5.0, -1.0));
    assert_eq!(
        condition("> 1G"),
        Condition::Compare(Comparison::Above, 1e9)
    );
    assert_eq!(
        condition("<= 50%"),
        Condition::Compare(Comparison::AtMost, 0.5)
    );
}

#[test]
fn keys_are_names_or_ratios_with_optional_spaces() {
    let e = parse(&[
        ("disputes", "> 0"),
        ("disputes / transactions", "0.15..0.25"),
        ("perf.cache-misses/perf.instructions", "< 1%"),
    ])
    .unwrap();
    assert_eq!(e.items[0].figure, Figure::Named("disputes".into()));
    assert_eq!(
        e.items[1].figure,
        Figure::Ratio("disputes".into(), "transactions".into())
    );
    assert_eq!(
        e.items[2].figure,
        Figure::Ratio("perf.cache-misses".into(), "perf.instructions".into())
    );
    assert!(parse(&[]).unwrap().is_empty());
}

#[test]
fn every_bad_form_names_the_entry_and_shows_the_accepted_forms() {
    let bad = [
        ("disputes", "", "the condition is empty"),
        (
            "disputes",
            "lots",
            "'lots' is neither a comparison nor a range",
        ),
        ("disputes", "= 0", "'= 0' is neither"),
        ("disputes", "> ", "a number is missing"),
        ("disputes", "> many", "'many' is not a number"),
        ("disputes", "> 5%%", "'5%%' is not a number"),
        ("disputes", "..5", "a number is missing"),
        (
            "disputes",
            "0.25..0.15",
            "the range starts above its end (0.25 > 0.15)",
        ),
        ("", "> 0", "a figure name is missing"),
        ("a / ", "> 0", "a figure name is missing"),
        ("a / b / c", "> 0", "'a / b / c' has more than one '/'"),
        (
            "a + b",
            "> 0",
            "'a + b' is not a figure name (' ' is not allowed",
        ),
    ];
    for (key, value, what) in bad {
        let err = parse(&[("fine", "> 0"), (key, value)]).unwrap_err();
        assert!(
            err.starts_with(&format!("expectation \"{key}\" = \"{value}\": ")),
            "{err}"
        );
        assert!(err.contains(what), "{what} not in: {err}");
        assert!(
            err.contains("\"lo..hi\"") && err.contains("\"15%..25%\""),
            "{err}"
        );
    }
}

#[test]
fn a_met_expectation_passes_on_metrics_and_builtins() {
    let run = run_with(&[("disputes", 20.0), ("transactions", 100.0)], None);
    let e = parse(&[
        ("disputes", "> 0"),
        ("disputes / transactions", "15%..25%"),
        ("wall", "< 10"),
    ])
    .unwrap();
    check(&e, &run, "dispute-heavy", "run 3 of variant \"B\"").unwrap();
}

#[test]
fn a_broken_ratio_names_the_scenario_the_expectation_and_its_figures() {
    let run = run_with(&[("disputes", 0.0), ("transactions", 100_000.0)], None);
    let e = parse(&[("disputes / transactions", "0.15..0.25")]).unwrap();
    let m = message(check(&e, &run, "dispute-heavy", "run 3 of variant \"B\""));
    assert!(
        m.starts_with(
            "scenario \"dispute-heavy\" expects \"disputes / transactions\" = \"0.15..0.25\", \
             but disputes / transactions = 0 / 100000 = 0."
        ),
        "{m}"
    );
    assert!(m.contains("does not produce the declared mix"), "{m}");
    assert!(m.contains("--ignore-failure"), "{m}");
    assert!(m.contains("| done"), "{m}");
}

#[test]
fn the_first_broken_expectation_is_the_one_reported() {
    let run = run_with(&[("disputes", 3.0)], None);
    let e = parse(&[
        ("disputes", "> 0"),
        ("disputes", "> 5"),
        ("disputes", "> 9"),
    ])
    .unwrap();
    let m = message(check(&e, &run, "", "run 3 of variant \"B\""));
    assert!(
        m.starts_with("the experiment expects \"disputes\" = \"> 5\", but disputes = 3."),
        "{m}"
    );
}

#[test]
fn a_ratio_over_zero_breaks_any_expectation() {
    let run = run_with(&[("disputes", 4.0), ("transactions", 0.0)], None);
    let e = parse(&[("disputes / transactions", "!= 1")]).unwrap();
    let m = message(check(&e, &run, "s", "run 3 of variant \"B\""));
    assert!(m.contains("= 4 / 0 = undefined (division by zero)"), "{m}");
}

#[test]
fn a_figure_the_run_did_not_report_is_named_with_those_it_did() {
    let run = run_with(&[("transactions", 10.0)], None);
    let e = parse(&[("disputes / transactions", "> 0")]).unwrap();
    let m = message(check(&e, &run, "s", "run 3 of variant \"B\""));
    assert!(m.contains("the run did not report 'disputes'"), "{m}");
    assert!(
        m.contains("It reported: wall, cpu, user, sys, peak-memory, transactions"),
        "{m}"
    );
    assert!(m.contains("no profile"), "{m}");
    assert!(m.contains("PERFLAB_COUNT disputes <n>"), "{m}");
}

#[test]
fn counters_come_from_the_profile_the_run_wrote() {
    let profile = include_str!("../../tests/fixtures/spans-baseline.json");
    let run = run_with(&[("lines", 104.0)], Some(profile.to_string()));
    let met = parse(&[
        ("malformed_lines", "== 52"),
        ("malformed_lines / lines", "50%"),
    ]);
    // A bare number is not a condition: the accepted forms are shown.
    assert!(met.is_err());
    let met = parse(&[
        ("malformed_lines", "== 52"),
        ("malformed_lines / lines", "== 50%"),
    ])
    .unwrap();
    check(&met, &run, "s", "run 3 of variant \"B\"").unwrap();
    let broken = parse(&[("paths_over_error_budget", "> 0")]).unwrap();
    let m = message(check(&broken, &run, "s", "run 3 of variant \"B\""));
    assert!(m.contains("but paths_over_error_budget = 0."), "{m}");
    let missing = parse(&[("disputes", "> 0")]).unwrap();
    let m = message(check(&missing, &run, "s", "run 3 of variant \"B\""));
    assert!(m.contains("malformed_lines, report_write_failures"), "{m}");
}

#[test]
fn an_unreadable_profile_is_said_when_a_figure_is_missing() {
    let run = run_with(&[], Some("{not json".into()));
    let e = parse(&[("disputes", "> 0")]).unwrap();
    let m = message(check(&e, &run, "s", "run 3 of variant \"B\""));
    assert!(m.contains("its profile could not be read"), "{m}");
}

#[test]
fn figures_are_shown_readably() {
    assert_eq!(format_value(0.0), "0");
    assert_eq!(format_value(100_000.0), "100000");
    assert_eq!(format_value(0.1523456789), "0.152346");
    assert_eq!(format_value(2.0 / 3.0), "0.666667");
    assert_eq!(format_value(1234.5678), "1234.57");
    assert_eq!(format_value(1.5e-9), "1.5e-9");
}

proptest! {
    #[test]
    fn a_range_check_agrees_with_direct_comparison(
        a in -1e6f64..1e6, b in -1e6f64..1e6, value in -2e6f64..2e6,
    ) {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let c = Condition::parse(&format!("{lo}..{hi}")).unwrap();
        prop_assert_eq!(c, Condition::Range(lo, hi));
        prop_assert_eq!(c.holds(value), lo <= value && value <= hi);
        prop_assert!(c.holds(lo) && c.holds(hi));
    }

    #[test]
    fn a_comparison_agrees_with_direct_comparison(
        x in -1e6f64..1e6, value in -2e6f64..2e6, pick in 0usize..6,
    ) {
        let (symbol, direct): (&str, fn(f64, f64) -> bool) = [
            (">", (|v, x| v > x) as fn(f64, f64) -> bool),
            (">=", |v, x| v >= x),
            ("<", |v, x| v < x),
            ("<=", |v, x| v <= x),
            ("==", |v, x| v == x),
            ("!=", |v, x| v != x),
        ][pick];
        let c = Condition::parse(&format!("{symbol} {x}")).unwrap();
        prop_assert_eq!(c.holds(value), direct(value, x));
        prop_assert_eq!(c.holds(x), direct(x, x));
    }

    #[test]
    fn a_percent_is_a_hundredth(p in -1000f64..1000.0, value in -20f64..20.0) {
        let percent = Condition::parse(&format!(">= {p}%")).unwrap();
        let fraction = Condition::parse(&format!(">= {}", p / 100.0)).unwrap();
        prop_assert_eq!(percent.holds(value), fraction.holds(value));
    }

    #[test]
    fn any_entry_parses_or_is_refused_naming_it(key in "\\PC{0,12}", value in "\\PC{0,12}") {
        match Expectations::parse(&[(key.clone(), value.clone())]) {
            Ok(e) => prop_assert_eq!(e.items.len(), 1),
            Err(m) => {
                let expected = format!("expectation \"{key}\" = \"{value}\": ");
                prop_assert!(m.starts_with(&expected), "{}", m);
            }
        }
    }
}
