//! Two results of many benchmarks compared by name (`perflab compare OLD
//! NEW` on criterion, Google Benchmark, pytest-benchmark or `go test -bench`
//! output): one decision per benchmark present on both sides, as one family
//! whose confidence holds for all of them at once, and the geometric-mean
//! change across them.
//!
//! The outcome is a suite's document (kind `compare`): each benchmark is a
//! row (a suite's scenario) and the new result the one candidate, so that
//! the terminal, Markdown, JSON and HTML show it as they show a suite, and
//! `perflab report` reads it back the same way.

use perflab_format::result::MetricInfo;
use perflab_format::suite::{CandidateDoc, CellDoc, SuiteDocument};
use perflab_format::vocabulary::{ResultKind, ResultStatus};
use perflab_stats::{
    Better, Interval, Thresholds, Verdict, bonferroni_confidence, combine_verdicts,
    decide_fixed_samples, summary_change,
};

use crate::decide::verdict_sentence;
use crate::error::{Error, Result};
use crate::result_document::{result_document, samples_variant_doc};
use crate::samples::{Imported, check_count, file_stem};

/// What is compared and how.
#[derive(Debug, Clone, Copy)]
pub struct FamilyQuery<'a> {
    /// `--measure`, else each input's own metric.
    pub measure: Option<&'a str>,
    /// Which way is better.
    pub better: Better,
    /// GO and NO-GO thresholds.
    pub thresholds: Thresholds,
    /// The level that holds for all benchmarks at once.
    pub confidence: f64,
}

/// A side's label: the criterion baseline or the file's name.
fn label(imported: &Imported, input: &str) -> String {
    match input.rsplit_once('#') {
        Some((_, selector)) if !std::path::Path::new(input).exists() => selector.to_string(),
        _ => file_stem(&imported.path),
    }
}

/// The comparison of every benchmark OLD and NEW share, and its verdict.
pub fn family_document(
    (a, old_input): (&Imported, &str),
    (b, new_input): (&Imported, &str),
    query: FamilyQuery<'_>,
) -> Result<(SuiteDocument, Verdict)> {
    let metric = a.metric(query.measure).unwrap_or("value").to_string();
    let metric_b = b.metric(query.measure).unwrap_or("value");
    if metric != metric_b {
        return Err(Error::usage(
            "OLD/NEW",
            format!(
                "the old results hold {metric} and the new {metric_b}: different metrics cannot be compared; \
                 pick one both have with --measure"
            ),
        ));
    }
    let common: Vec<(usize, usize)> = a
        .benchmarks
        .iter()
        .enumerate()
        .filter_map(|(i, x)| {
            let j = b.benchmarks.iter().position(|y| y.name == x.name)?;
            Some((i, j))
        })
        .collect();
    if common.is_empty() {
        return Err(Error::input(
            &b.path,
            format!(
                "has no benchmark name in common with {}: the old results have {}; the new have {}. \
                 Compare results of the same benchmarks (names must match exactly, including \
                 parameters and the -N suffix of go test)",
                a.path.display(),
                names(a.benchmarks.iter().map(|x| x.name.as_str())),
                names(b.benchmarks.iter().map(|x| x.name.as_str()))
            ),
        ));
    }
    // A file may measure its benchmarks in different metrics (JMH's thrpt
    // and avgt modes: throughput and wall); those without the metric
    // compared are named, not compared, unless none has it.
    let has = |x: &Imported, i: usize| x.benchmarks[i].metrics.contains_key(&metric);
    let (common, other_metric): (Vec<_>, Vec<_>) = common
        .into_iter()
        .partition(|&(i, j)| has(a, i) && has(b, j));
    let (common, left_out) = if common.is_empty() {
        (other_metric, Vec::new())
    } else {
        let names = other_metric
            .iter()
            .map(|&(i, _)| a.benchmarks[i].name.clone());
        (common, names.collect::<Vec<_>>())
    };
    let left_out = (!left_out.is_empty()).then(|| {
        format!(
            "without {metric} on both sides, so not compared: {}; compare them with --measure \
             and one of their metrics",
            left_out.join(", ")
        )
    });
    let (mut old_label, mut new_label) = (label(a, old_input), label(b, new_input));
    if old_label == new_label {
        old_label.push_str(" (A)");
        new_label.push_str(" (B)");
    }
    let cell_confidence = bonferroni_confidence(query.confidence, common.len())?;
    let mut cells = Vec::new();
    let mut intervals = Vec::new();
    let mut verdicts = Vec::new();
    let mut variants = Vec::new();
    let mut unit = String::new();
    for &(i, j) in &common {
        let name = &a.benchmarks[i].name;
        let (sa, sb) = (a.series(i, Some(&metric))?, b.series(j, Some(&metric))?);
        check_count(&a.path, &sa.values).map_err(|e| in_benchmark(e, name))?;
        check_count(&b.path, &sb.values).map_err(|e| in_benchmark(e, name))?;
        if unit.is_empty() {
            unit = sa.unit.clone();
        }
        variants.push(samples_variant_doc(
            &format!("{name} / {old_label}"),
            &sa.values,
        )?);
        variants.push(samples_variant_doc(
            &format!("{name} / {new_label}"),
            &sb.values,
        )?);
        let (verdict, interval, reason) =
            decide_one(&sa.values, &sb.values, &query, cell_confidence);
        verdicts.push(verdict);
        if let Some(iv) = interval {
            intervals.push(iv);
        }
        cells.push(CellDoc {
            scenario: name.clone(),
            variant: new_label.clone(),
            verdict,
            change: interval.map(|iv| iv.estimate),
            ci: interval.map(|iv| [iv.lo, iv.hi]),
            runs: sa.values.len().min(sb.values.len()),
            reason,
        });
    }
    let summary = (intervals.len() == common.len())
        .then(|| summary_change(&intervals).ok())
        .flatten();
    let overall = combine_verdicts(&verdicts);
    let mut result = result_document(
        ResultKind::Compare,
        ResultStatus::Complete,
        None,
        None,
        MetricInfo {
            name: metric,
            unit,
            better: query.better,
        },
        variants,
    );
    result.verdict = Some(overall);
    result.change = summary.map(|iv| iv.estimate);
    result.ci = summary.map(|iv| [iv.lo, iv.hi]);
    for (side, only) in [
        (&old_label, one_side_only(a, b)),
        (&new_label, one_side_only(b, a)),
    ] {
        if !only.is_empty() {
            result.warnings.push(format!(
                "only in {side}, so not compared: {}",
                only.join(", ")
            ));
        }
    }
    result.warnings.extend(left_out);
    let doc = SuiteDocument {
        result,
        scenarios: common
            .iter()
            .map(|&(i, _)| a.benchmarks[i].name.clone())
            .collect(),
        baseline: old_label,
        confidence: query.confidence,
        cell_confidence,
        cells,
        candidates: vec![CandidateDoc {
            variant: new_label,
            verdict: overall,
            change: summary.map(|iv| iv.estimate),
            ci: summary.map(|iv| [iv.lo, iv.hi]),
            confidence: summary.map(|iv| iv.confidence),
        }],
    };
    Ok((doc, overall))
}

/// One benchmark's decision at the family's per-benchmark level: the
/// procedure of a single `perflab compare` ([`decide_fixed_samples`]).
/// Samples that are the same constant on both sides (counts such as
/// `allocs/op`) did not change at all; a benchmark the statistic cannot be
/// computed for is INCONCLUSIVE, saying why, rather than ending the others.
fn decide_one(
    a: &[f64],
    b: &[f64],
    query: &FamilyQuery<'_>,
    confidence: f64,
) -> (Verdict, Option<Interval>, String) {
    let constant = |v: &[f64]| v.iter().all(|x| *x == v[0]);
    if constant(a) && constant(b) && a[0] == b[0] {
        let iv = Interval {
            estimate: 0.0,
            lo: 0.0,
            hi: 0.0,
            confidence,
        };
        let verdict = perflab_stats::classify(&iv, &query.thresholds);
        let reason = format!("every sample on both sides is {}: nothing changed", a[0]);
        return (verdict, Some(iv), reason);
    }
    match decide_fixed_samples(a, b, query.better, &query.thresholds, confidence) {
        Ok(d) => {
            let reason = verdict_sentence(
                d.verdict,
                &d.interval,
                &query.thresholds,
                query.better,
                "samples",
            );
            (d.verdict, Some(d.interval), reason)
        }
        Err(e) => (
            Verdict::Inconclusive,
            None,
            format!("no interval can be computed: {e}"),
        ),
    }
}

fn one_side_only(this: &Imported, other: &Imported) -> Vec<String> {
    this.benchmarks
        .iter()
        .filter(|x| !other.benchmarks.iter().any(|y| y.name == x.name))
        .map(|x| x.name.clone())
        .collect()
}

fn names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

fn in_benchmark(e: Error, name: &str) -> Error {
    match e {
        Error::Input { path, message } => Error::Input {
            path,
            message: format!("benchmark '{name}' {message}"),
        },
        other => other,
    }
}
