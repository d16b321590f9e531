//! How long the runs waited for a CPU, per variant, and what the contention
//! rule did about it: the figures built once from the runs ([`cpu_wait_doc`])
//! and the lines every format shows ([`cpu_wait_line`], [`contention_line`]).
//! A document whose runs had no CPU wait measured shows neither.

use perflab_format::contention::{ContentionDoc, CpuWaitDoc};
use perflab_format::result::{ResultDocument, VariantDoc};
use perflab_runner::RunOutcome;

/// Above this many variants (a sweep's points, a suite's cells) the line
/// gives the range over the variants instead of each one.
const VARIANTS_LISTED: usize = 6;

/// A variant's CPU wait over `runs`: the median and largest share of wall
/// time its runs waited for a CPU; `None` when no run's wait was measured.
pub fn cpu_wait_doc(runs: &[RunOutcome]) -> Option<CpuWaitDoc> {
    let mut shares: Vec<f64> = runs.iter().filter_map(RunOutcome::cpu_wait_share).collect();
    if shares.is_empty() {
        return None;
    }
    shares.sort_unstable_by(f64::total_cmp);
    let n = shares.len();
    let median = if n % 2 == 1 {
        shares[n / 2]
    } else {
        (shares[n / 2 - 1] + shares[n / 2]) / 2.0
    };
    Some(CpuWaitDoc {
        runs: n,
        median_share: median,
        worst_share: shares[n - 1],
    })
}

/// A share of wall time as a percentage: one decimal below 10%, none above
/// ("0.4%", "7.3%", "31%").
pub fn share(fraction: f64) -> String {
    let percent = 100.0 * fraction;
    if percent < 10.0 {
        format!("{percent:.1}%")
    } else {
        format!("{percent:.0}%")
    }
}

/// A threshold as the user typed it: "5%", "2.5%".
pub fn threshold(fraction: f64) -> String {
    format!("{}%", (fraction * 1e5).round() / 1e3)
}

/// The variants with a CPU wait, in the document's order.
fn waiting(doc: &ResultDocument) -> Vec<(&VariantDoc, &CpuWaitDoc)> {
    doc.variants
        .iter()
        .filter_map(|v| Some((v, v.cpu_wait.as_ref()?)))
        .collect()
}

/// "CPU wait (share of each run's wall time spent waiting for a CPU): A
/// median 0.3% (worst 1.2%), B median 7.3% (worst 31%)."; with many
/// variants, the range of their medians and the worst run.
pub fn cpu_wait_line(doc: &ResultDocument) -> Option<String> {
    let variants = waiting(doc);
    if variants.is_empty() {
        return None;
    }
    let head = "CPU wait (share of each run's wall time spent waiting for a CPU)";
    if variants.len() <= VARIANTS_LISTED {
        let each: Vec<String> = variants
            .iter()
            .map(|(v, w)| {
                format!(
                    "{} median {} (worst {})",
                    v.name,
                    share(w.median_share),
                    share(w.worst_share)
                )
            })
            .collect();
        return Some(format!("{head}: {}.", each.join(", ")));
    }
    let medians = variants.iter().map(|(_, w)| w.median_share);
    let lowest = medians.clone().fold(f64::INFINITY, f64::min);
    let highest = medians.fold(f64::NEG_INFINITY, f64::max);
    let (worst_variant, worst) = variants
        .iter()
        .max_by(|a, b| a.1.worst_share.total_cmp(&b.1.worst_share))
        .expect("not empty");
    Some(format!(
        "{head}: the median run of each of {} variants {} to {} (worst run {}, of {}).",
        variants.len(),
        share(lowest),
        share(highest),
        share(worst.worst_share),
        worst_variant.name
    ))
}

/// "Contention: 3 blocks measured again because a run waited for a CPU
/// more than 5% of its wall time (6 runs replaced: kept in the store, left
/// out of every figure)", and the blocks kept at the bound; `None` when the
/// rule measured nothing again.
pub fn contention_line(doc: &ResultDocument) -> Option<String> {
    let c: &ContentionDoc = doc.contention.as_ref()?;
    if c.blocks_measured_again == 0 && c.blocks_kept_contended == 0 {
        return None;
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut line = format!(
        "Contention: {} measured again because a run waited for a CPU more than {} of its \
         wall time ({} replaced: kept in the store, left out of every figure)",
        plural(c.blocks_measured_again, "block"),
        threshold(c.max_cpu_wait),
        plural(c.runs_replaced, "run"),
    );
    if c.blocks_kept_contended > 0 {
        line.push_str(&format!(
            "; {} kept after being measured again {} times, although a run still waited more: \
             the machine stayed busy (see --shield / --wait-quiet)",
            plural(c.blocks_kept_contended, "block"),
            c.max_repeats
        ));
    }
    line.push('.');
    Some(line)
}

/// The lines a report shows, in order: the variants' CPU wait, then what
/// the contention rule did; none for runs without a CPU wait measurement.
pub(crate) fn cpu_wait_lines(doc: &ResultDocument) -> Vec<String> {
    [cpu_wait_line(doc), contention_line(doc)]
        .into_iter()
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use perflab_format::result::SummaryDoc;
    use perflab_runner::MetricValue;

    use super::*;

    fn run(wall_s: f64, wait_s: Option<f64>) -> RunOutcome {
        let mut metrics = BTreeMap::new();
        if let Some(wait) = wait_s {
            metrics.insert(
                perflab_runner::CPU_WAIT.to_string(),
                MetricValue {
                    value: wait,
                    unit: "s".into(),
                },
            );
        }
        RunOutcome {
            wall_s,
            user_s: wall_s,
            sys_s: 0.0,
            peak_memory_kib: 1.0,
            exit: perflab_runner::ExitState::Code(0),
            unreadable_metrics: Default::default(),
            metrics,
            output_tail: String::new(),
            profile_json: None,
            answer: None,
            containment: Default::default(),
        }
    }

    fn variant(name: &str, cpu_wait: Option<CpuWaitDoc>) -> VariantDoc {
        VariantDoc {
            name: name.into(),
            command: None,
            env: BTreeMap::new(),
            runs: 1,
            summary: SummaryDoc {
                n: 1,
                mean: 1.0,
                sd: 0.0,
                median: 1.0,
                min: 1.0,
                max: 1.0,
                mad: 0.0,
                q1: 1.0,
                q3: 1.0,
                outliers_mild: 0,
                outliers_severe: 0,
            },
            samples: vec![1.0],
            run_details: Vec::new(),
            cpu_wait,
        }
    }

    fn doc(variants: Vec<VariantDoc>, contention: Option<ContentionDoc>) -> ResultDocument {
        let text = r#"{"format":"perflab-result/1","kind":"ab","name":null,"experiment_id":null,
            "status":"complete","metric":{"name":"wall","unit":"s","better":"lower"},
            "decision":null,"verdict":null,"change":null,"ci":null,"variants":[],"seed":null,
            "provenance":null}"#;
        let mut doc = ResultDocument::from_json_str(text).unwrap();
        doc.variants = variants;
        doc.contention = contention;
        doc
    }

    #[test]
    fn the_figures_are_the_median_and_worst_share_of_the_runs_that_measured_it() {
        let runs = [
            run(1.0, Some(0.01)),
            run(2.0, Some(0.62)),
            run(1.0, None),
            run(1.0, Some(0.05)),
        ];
        let w = cpu_wait_doc(&runs).unwrap();
        assert_eq!(w.runs, 3);
        assert_eq!((w.median_share, w.worst_share), (0.05, 0.31));
        assert_eq!(cpu_wait_doc(&[run(1.0, None)]), None);
    }

    #[test]
    fn the_line_names_each_variant_with_its_median_and_worst_share() {
        let w = |median_share, worst_share| {
            Some(CpuWaitDoc {
                runs: 20,
                median_share,
                worst_share,
            })
        };
        let d = doc(
            vec![variant("A", w(0.003, 0.012)), variant("B", w(0.073, 0.31))],
            None,
        );
        assert_eq!(
            cpu_wait_line(&d).unwrap(),
            "CPU wait (share of each run's wall time spent waiting for a CPU): A median 0.3% \
             (worst 1.2%), B median 7.3% (worst 31%)."
        );
        let many: Vec<VariantDoc> = (0..8)
            .map(|i| variant(&format!("p{i}"), w(0.001 * i as f64, 0.01 * i as f64)))
            .collect();
        assert_eq!(
            cpu_wait_line(&doc(many, None)).unwrap(),
            "CPU wait (share of each run's wall time spent waiting for a CPU): the median run of \
             each of 8 variants 0.0% to 0.7% (worst run 7.0%, of p7)."
        );
    }

    #[test]
    fn runs_without_a_measurement_give_no_line_and_an_idle_rule_none_either() {
        let d = doc(
            vec![variant("A", None), variant("B", None)],
            Some(ContentionDoc {
                max_cpu_wait: 0.05,
                max_repeats: 3,
                ..ContentionDoc::default()
            }),
        );
        assert_eq!(cpu_wait_line(&d), None);
        assert_eq!(contention_line(&d), None);
    }

    #[test]
    fn the_contention_line_counts_the_blocks_measured_again_and_those_kept_at_the_bound() {
        let mut c = ContentionDoc {
            max_cpu_wait: 0.05,
            max_repeats: 3,
            blocks_measured_again: 3,
            runs_replaced: 6,
            blocks_kept_contended: 0,
        };
        assert_eq!(
            contention_line(&doc(Vec::new(), Some(c.clone()))).unwrap(),
            "Contention: 3 blocks measured again because a run waited for a CPU more than 5% of \
             its wall time (6 runs replaced: kept in the store, left out of every figure)."
        );
        c.blocks_kept_contended = 1;
        let line = contention_line(&doc(Vec::new(), Some(c))).unwrap();
        assert!(
            line.ends_with(
                "; 1 block kept after being measured again 3 times, although a run still waited \
                 more: the machine stayed busy (see --shield / --wait-quiet)."
            ),
            "{line}"
        );
    }

    #[test]
    fn every_format_shows_the_lines_the_json_the_figures() {
        use crate::Render;
        use crate::page::{ExperimentReport, ReportData};
        let w = Some(CpuWaitDoc {
            runs: 20,
            median_share: 0.073,
            worst_share: 0.31,
        });
        let d = doc(
            vec![variant("A", w.clone()), variant("B", w)],
            Some(ContentionDoc {
                max_cpu_wait: 0.05,
                max_repeats: 3,
                blocks_measured_again: 3,
                runs_replaced: 6,
                blocks_kept_contended: 0,
            }),
        );
        let page = ReportData {
            experiments: vec![ExperimentReport {
                id: 1,
                kind: perflab_format::vocabulary::ExperimentKind::Ab,
                name: None,
                status: perflab_format::vocabulary::ResultStatus::Complete,
                result: Some(d.clone()),
                sweep: None,
                suite: None,
                sampling: None,
                instructions: None,
                spans: Vec::new(),
                span_warnings: Vec::new(),
                history: None,
                missing: None,
                warnings: Vec::new(),
            }],
        };
        for text in [
            crate::TerminalReport.render(&d),
            crate::MarkdownReport.render(&d),
            crate::markdown::report_markdown(&page),
            crate::html::report_html(&page),
        ] {
            assert!(text.contains("B median 7.3% (worst 31%)"), "{text}");
            assert!(
                text.contains("Contention: 3 blocks measured again"),
                "{text}"
            );
        }
        let json = crate::JsonReport.render(&d);
        assert!(json.contains("\"median_share\": 0.073"), "{json}");
        assert!(json.contains("\"blocks_measured_again\": 3"), "{json}");
    }
}
