//! What a run prints, read for metrics (`PERFLAB_METRIC` and
//! `PERFLAB_COUNT` lines and `--metric NAME=REGEX`), and callgrind's output files, fed arbitrary
//! text and near-misses: no panic, only finite values, and errors that name
//! the flag or the line at fault.

use std::collections::BTreeMap;

use perflab_runner::MetricExtractor;
use perflab_runner::callgrind;
use proptest::prelude::*;

/// Cases per property: these parsers are cheap, so more than proptest's 256.
const CASES: u32 = 4096;

/// Values on an edge of a number parser, or any text.
fn odd_value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(&[
            "", "NaN", "inf", "-inf", "1e400", "1e308G", "-0", "18446744073709551616",
            "99999999999999999999999999", "1.5.5", "0x10", "1_000", "1,5", "46.94M", "K", "é",
            "\u{0}", "(", ")", "=", "\u{feff}",
        ])
        .prop_map(str::to_string),
        1 => any::<f64>().prop_map(|f| f.to_string()),
        1 => any::<u64>().prop_map(|n| n.to_string()),
        1 => "[0-9]{20,400}",
        2 => "\\PC{0,12}",
        1 => any::<String>(),
    ]
}

/// A `PERFLAB_METRIC` or `PERFLAB_COUNT` line with odd parts, or any line.
fn output_line() -> impl Strategy<Value = String> {
    prop_oneof![
        (odd_value(), odd_value(), odd_value(), odd_value()).prop_map(
            |(before, name, value, unit)| {
                format!("{before}PERFLAB_METRIC {name} {value} {unit}")
            }
        ),
        (odd_value(), odd_value(), odd_value(), odd_value()).prop_map(
            |(before, name, value, rest)| {
                format!("{before}PERFLAB_COUNT {name} {value} {rest}")
            }
        ),
        (odd_value(), odd_value()).prop_map(|(value, rest)| format!("Throughput = {value}{rest}")),
        any::<String>(),
        ("x{1,3}", 1000usize..20_000).prop_map(|(c, n)| c.repeat(n)),
    ]
}

fn definition() -> impl Strategy<Value = String> {
    prop_oneof![
        odd_value(),
        (odd_value(), odd_value()).prop_map(|(name, pattern)| format!("{name}={pattern}")),
        odd_value().prop_map(|pattern| format!("tp={pattern}")),
        Just("tp=Throughput = ([0-9.]+[KMG]?)".to_string()),
    ]
}

proptest! {
    // Fewer: the very long lines are slow through an unoptimised regex build.
    #![proptest_config(ProptestConfig::with_cases(CASES / 4))]

    #[test]
    fn output_lines_give_only_finite_metrics(lines in proptest::collection::vec(output_line(), 1..4)) {
        let extractor = MetricExtractor::from_definitions(&[
            "tp=Throughput = ([0-9.]+[KMG]?)".to_string(),
            "any=(.*)".to_string(),
        ])
        .unwrap();
        let (mut found, mut unreadable) = (BTreeMap::new(), BTreeMap::new());
        for line in &lines {
            let held = extractor.scan_line(line, &mut found, &mut unreadable);
            prop_assert!(!held || !found.is_empty() || !unreadable.is_empty());
        }
        for name in unreadable.keys() {
            prop_assert!(!found.contains_key(name), "{name} both read and unreadable");
        }
        for (name, metric) in &found {
            prop_assert!(metric.value.is_finite(), "{name}: {metric:?} from {lines:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn a_metric_definition_is_usable_or_refused_naming_the_flag(
        definitions in proptest::collection::vec(definition(), 1..3),
        line in output_line(),
    ) {
        match MetricExtractor::from_definitions(&definitions) {
            Ok(extractor) => {
                let mut found = BTreeMap::new();
                extractor.scan_line(&line, &mut found, &mut BTreeMap::new());
                prop_assert!(found.values().all(|m| m.value.is_finite()));
            }
            Err(e) => {
                let message = e.to_string();
                prop_assert!(message.starts_with("--metric: "), "{message}");
                prop_assert_eq!(perflab_cli::Error::from(e).exit_code(), 2);
            }
        }
    }

    #[test]
    fn a_written_metric_reads_back(
        value in any::<f64>().prop_filter("finite", |v| v.is_finite()),
        unit in "[a-z/]{0,6}",
    ) {
        let mut found = BTreeMap::new();
        let held = MetricExtractor::default()
            .scan_line(&format!("PERFLAB_METRIC m {value} {unit}"), &mut found, &mut BTreeMap::new());
        prop_assert!(held);
        prop_assert_eq!(found["m"].value, value);
        prop_assert_eq!(&found["m"].unit, &unit);
    }

    #[test]
    fn a_written_count_reads_back_as_a_count(
        value in any::<u64>(),
        name in "[a-z_.]{1,12}",
    ) {
        let mut found = BTreeMap::new();
        let held = MetricExtractor::default()
            .scan_line(&format!("PERFLAB_COUNT {name} {value}"), &mut found, &mut BTreeMap::new());
        prop_assert!(held);
        prop_assert_eq!(found[&name].value, value as f64);
        prop_assert_eq!(found[&name].unit.as_str(), perflab_runner::COUNT_UNIT);
    }

    #[test]
    fn a_count_line_without_a_number_gives_no_value_and_says_what_is_wrong(
        name in "[a-z_.]{1,12}",
        value in "[a-zA-Z%/]{0,6}",
    ) {
        let (mut found, mut unreadable) = (BTreeMap::new(), BTreeMap::new());
        MetricExtractor::default()
            .scan_line(&format!("PERFLAB_COUNT {name} {value}"), &mut found, &mut unreadable);
        prop_assert!(found.is_empty(), "{:?}", found);
        let problem = &unreadable[&name];
        prop_assert!(problem.contains("PERFLAB_COUNT"), "{}", problem);
    }
}

const CALLGRIND: &str = "\
# callgrind format
version: 1
creator: callgrind-3.19.0
positions: line
events: Ir
summary: 1200

ob=(1) /tmp/loop
fl=(1) ???
fn=(1) main
0 8
cob=(2) /usr/lib/libc.so.6
cfi=(2) strtol.c
cfn=(2) strtoul
calls=1 106
0 164
fn=(3) step
0 900
ob=(2)
fl=(2)
fn=(2)
0 164
fn=(1)
0 4
totals: 1200
";

/// The callgrind file with its n-th word replaced by a value, or cut short.
fn callgrind_text() -> impl Strategy<Value = String> {
    let words: Vec<(usize, usize)> = CALLGRIND
        .match_indices(|c: char| !c.is_whitespace())
        .map(|(i, s)| (i, i + s.len()))
        .collect();
    prop_oneof![
        (proptest::sample::select(words), odd_value()).prop_map(|((start, end), value)| format!(
            "{}{value}{}",
            &CALLGRIND[..start],
            &CALLGRIND[end..]
        )),
        (0..CALLGRIND.len()).prop_map(|at| CALLGRIND[..at].to_string()),
        proptest::collection::vec(any::<u64>(), 1..4).prop_map(|counts| {
            let lines: Vec<String> = counts.iter().map(|n| format!("0 {n}")).collect();
            format!("events: Ir\nfn=f\n{}\n", lines.join("\n"))
        }),
        proptest::collection::vec(odd_value(), 0..20)
            .prop_map(|lines| { format!("events: Ir\n{}\n", lines.join("\n")) }),
        any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn callgrind_output_is_counted_or_refused_with_its_line(text in callgrind_text()) {
        match callgrind::parse(&text) {
            Ok(counts) => {
                let mut twice = counts.clone();
                twice.merge(counts);
            }
            Err(message) => {
                if let Some(rest) = message.strip_prefix("line ") {
                    let line: usize = rest.split(':').next().unwrap().parse().unwrap();
                    prop_assert!(line >= 1 && line <= text.lines().count(), "{message}");
                } else {
                    prop_assert!(message.contains("not a callgrind output file"), "{message}");
                }
            }
        }
    }
}

#[test]
fn callgrind_counts_beyond_64_bits_are_refused_with_their_line() {
    let text = "events: Ir\nfn=f\n0 18446744073709551615\n0 1\n";
    let message = callgrind::parse(text).unwrap_err();
    assert!(message.starts_with("line 4:"), "{message}");
}

#[test]
fn merged_callgrind_counts_do_not_overflow() {
    let text = "events: Ir\nfn=f\n0 18446744073709551615\n";
    let mut counts = callgrind::parse(text).unwrap();
    counts.merge(callgrind::parse(text).unwrap());
    assert_eq!(counts.total, u64::MAX);
}
