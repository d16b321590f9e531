//! The whole report as Markdown, for a pull request: per experiment its
//! provenance, result, sweep or sampling profile, instruction counts, span
//! breakdown and history.

use std::fmt::{self, Write};

use super::history::history_markdown;
use super::instructions::instructions_markdown;
use super::sampling::sampling_markdown;
use super::span_grid::write_span_grid_markdown;
use super::spans::variant_spans_markdown;
use super::suite::suite_markdown_body;
use super::sweep::sweep_markdown_body;
use super::{cell, warnings_markdown, write_markdown_body};
use crate::page::{ExperimentReport, ReportData};
use crate::sections::duet::duet_line;
use crate::sections::machine::machine_line;
use crate::sections::provenance::provenance_line;
use crate::sections::span_grid::span_grid;

fn experiment_markdown(out: &mut dyn Write, e: &ExperimentReport) -> fmt::Result {
    writeln!(out, "### {}\n", cell(&e.title()))?;
    if let Some(line) = e.provenance().and_then(provenance_line) {
        writeln!(out, "{}.\n", line.replace('\n', " "))?;
    }
    if let Some(machine) = e.result.as_ref().and_then(|r| r.machine.as_ref()) {
        writeln!(out, "{}\n", machine_line(machine))?;
    }
    if let Some(duet) = e.result.as_ref().and_then(|r| r.duet.as_ref()) {
        writeln!(out, "{}\n", duet_line(duet))?;
    }
    if let Some(why) = &e.missing {
        writeln!(out, "> No result to show: {}.\n", cell(why))?;
    }
    for w in &e.warnings {
        writeln!(out, "> warning: {}\n", cell(w))?;
    }
    match (&e.sweep, &e.suite, &e.result, &e.sampling) {
        (Some(sweep), _, _, _) => sweep_markdown_body(out, sweep)?,
        (None, Some(suite), _, _) => suite_markdown_body(out, suite)?,
        (None, None, Some(result), _) => write_markdown_body(out, result)?,
        (None, None, None, Some(sampling)) => sampling_markdown(out, &sampling.doc)?,
        (None, None, None, None) => {}
    }
    if let Some(doc) = &e.instructions {
        write!(out, "\n#### Instruction counts\n\n")?;
        instructions_markdown(out, doc)?;
    }
    if !e.spans.is_empty() {
        write!(out, "\n#### Where the time goes\n")?;
        if e.sweep.is_some() {
            writeln!(out)?;
            write_span_grid_markdown(out, &span_grid(&e.spans))?;
        } else {
            for v in &e.spans {
                writeln!(out)?;
                variant_spans_markdown(out, v)?;
            }
        }
        warnings_markdown(out, &e.span_warnings)?;
    }
    if let Some((history, unit)) = &e.history {
        writeln!(out, "\n{}", history_markdown(history, unit, 4).trim_end())?;
    }
    Ok(())
}

/// The report as Markdown.
pub fn write_report_markdown(out: &mut dyn Write, data: &ReportData) -> fmt::Result {
    out.write_str("## perflab report\n\n")?;
    let (data, shared) = data.shared_warnings_apart();
    for (i, e) in data.experiments.iter().enumerate() {
        if i > 0 {
            out.write_str("\n---\n\n")?;
        }
        experiment_markdown(out, e)?;
    }
    if !shared.is_empty() {
        out.write_str("\n---\n\n### Profile warnings of several experiments\n\n")?;
        for (w, n) in &shared {
            writeln!(out, "- {} (in {n} experiments)", cell(w))?;
        }
    }
    Ok(())
}

/// [`write_report_markdown`] as a `String`.
pub fn report_markdown(data: &ReportData) -> String {
    crate::render_to_string(|out| write_report_markdown(out, data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sections::spans::{SpanShare, VariantSpans};

    fn experiment(id: i64, warnings: &[&str]) -> ExperimentReport {
        let share = |name: &str, self_s: f64, never_entered: bool| SpanShare {
            name: name.into(),
            self_s,
            share_of_wall: self_s / 2e-3,
            calls: if never_entered { 0.0 } else { 3.0 },
            never_entered,
            entered_in_few_runs: None,
        };
        ExperimentReport {
            id,
            kind: perflab_format::vocabulary::ExperimentKind::Run,
            name: None,
            status: perflab_format::vocabulary::ResultStatus::Complete,
            result: None,
            sweep: None,
            suite: None,
            sampling: None,
            instructions: None,
            spans: vec![VariantSpans {
                variant: "A".into(),
                runs: 3,
                wall_s: Some(2e-3),
                spans: vec![
                    share("parse", 1e-3, false),
                    share("dispute", 0.0, true),
                    SpanShare {
                        entered_in_few_runs: Some((1, 3)),
                        calls: 0.0,
                        ..share("lock_wait", 0.0, false)
                    },
                ],
                unattributed: share("(unattributed)", 1e-4, false),
            }],
            span_warnings: warnings.iter().map(|w| w.to_string()).collect(),
            history: None,
            missing: None,
            warnings: Vec::new(),
        }
    }

    #[test]
    fn a_span_that_never_ran_or_ran_in_few_runs_reads_as_such_not_as_zeros() {
        let md = report_markdown(&ReportData {
            experiments: vec![experiment(1, &[])],
        });
        assert!(md.contains("| `dispute` | never entered | | |"), "{md}");
        assert!(
            md.contains("| `lock_wait` | entered in 1 of 3 runs | | |"),
            "{md}"
        );
        assert!(!md.contains("| 0.000 µs"), "{md}");
    }

    #[test]
    fn warnings_every_experiment_gives_are_stated_once_per_report() {
        let shared = "counter refunds was never incremented";
        let data = ReportData {
            experiments: vec![
                experiment(1, &[shared, "only in the first"]),
                experiment(2, &[shared]),
                experiment(3, &[shared]),
            ],
        };
        for text in [report_markdown(&data), crate::html::report_html(&data)] {
            assert_eq!(text.matches(shared).count(), 1, "{text}");
            assert!(text.contains("(in 3 experiments)"), "{text}");
            assert_eq!(text.matches("only in the first").count(), 1, "{text}");
        }
    }
}
