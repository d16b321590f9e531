//! Metric lines whose value could not be read (`PERFLAB_METRIC m inf`,
//! `1,5`): such a value is left out of every figure, and the result says
//! so rather than showing the metric as if its runs had not printed it.

use std::collections::BTreeMap;

use perflab_runner::RunOutcome;

/// One warning per variant and metric whose value some measured runs
/// printed unreadably: how many runs, and what was wrong the first time.
pub fn unreadable_metric_warnings<'a>(
    variants: impl IntoIterator<Item = (&'a str, &'a [RunOutcome])>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    for (name, runs) in variants {
        // metric -> (runs with an unreadable value, the first problem)
        let mut seen: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
        for run in runs {
            for (metric, problem) in &run.unreadable_metrics {
                seen.entry(metric).or_insert((0, problem)).0 += 1;
            }
        }
        for (metric, (count, problem)) in seen {
            warnings.push(format!(
                "{count} of the {} runs of \"{name}\" printed metric '{metric}' without a usable \
                 value, left out of its figures; the first time, {problem}",
                runs.len()
            ));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use perflab_runner::FakeExecutor;

    #[test]
    fn runs_with_an_unreadable_value_are_counted_and_the_first_problem_quoted() {
        let mut bad = FakeExecutor::outcome(1.0);
        bad.unreadable_metrics
            .insert("m".into(), "its value 'inf' is not a finite number".into());
        let mut worse = bad.clone();
        worse
            .unreadable_metrics
            .insert("m".into(), "its value 'NaN' is not a finite number".into());
        let runs = [bad, FakeExecutor::outcome(1.0), worse];
        let warnings = unreadable_metric_warnings([("A", &runs[..])]);
        assert_eq!(
            warnings,
            [
                "2 of the 3 runs of \"A\" printed metric 'm' without a usable value, left out of its \
              figures; the first time, its value 'inf' is not a finite number"
            ]
        );
        assert!(unreadable_metric_warnings([("B", &runs[1..2])]).is_empty());
    }
}
