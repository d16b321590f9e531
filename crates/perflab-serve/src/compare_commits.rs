//! Two commits of one series compared: the runs of the series at a base
//! commit against its runs at a head commit, with the decision of
//! `perflab compare` on them (the same function as the compare page of two
//! experiments, `site::decide_samples`), at the thresholds and confidence
//! the series' change points are judged at. A change point's commits on
//! each side are linked here from the series page.

use perflab_format::history::Step;
use perflab_format::vocabulary::Better;
use perflab_stats::Thresholds;
use serde::{Deserialize, Serialize};

use crate::error::PageError;
use crate::filters::{required, text};
use crate::site::{ComparisonDecision, Site, decide_samples};
use crate::source::SeriesKey;

/// The parameters of `/compare/commits` and `/api/compare/commits`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CommitsQuery {
    /// The series' experiment name (absent: unnamed experiments).
    pub name: Option<String>,
    /// The metric.
    pub metric: Option<String>,
    /// The variant.
    pub variant: Option<String>,
    /// The host (absent: experiments whose host is unknown).
    pub host: Option<String>,
    /// The baseline commit: a commit id (at least 4 of its hex digits) or
    /// a step's label as the series page shows it.
    pub base: Option<String>,
    /// The candidate commit, given the same way.
    pub head: Option<String>,
}

/// Two commits of a series and the decision between their runs.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CommitsCompareData {
    /// The series.
    pub key: SeriesKey,
    /// The metric's unit.
    pub unit: String,
    /// Which way the metric is better.
    pub better: Better,
    /// The baseline's step: its label, commit, experiments and runs' values.
    pub base: Step,
    /// The candidate's step.
    pub head: Step,
    /// Their positions in the series, from 0 (oldest).
    pub base_index: usize,
    /// See `base_index`.
    pub head_index: usize,
    /// The decision of `perflab compare` on the two steps' values.
    pub decision: Option<ComparisonDecision>,
    /// Why there is no decision, if there is none.
    pub note: Option<String>,
}

/// The step of `steps` that `given` names: its label, or a commit it begins.
fn find_step<'s>(
    steps: &'s [Step],
    given: &str,
    parameter: &str,
) -> Result<(usize, &'s Step), PageError> {
    let wanted = given.to_ascii_lowercase();
    let hex = wanted.len() >= 4 && wanted.chars().all(|c| c.is_ascii_hexdigit());
    let found: Vec<(usize, &Step)> = steps
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            s.label == given || (hex && s.commit.as_deref().is_some_and(|c| c.starts_with(&wanted)))
        })
        .collect();
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(PageError::NotFound(format!(
            "parameter '{parameter}': the series has no commit {given}; give one its page lists \
             (a commit id, at least 4 of its digits, or a step's label)"
        ))),
        many => Err(PageError::BadRequest(format!(
            "parameter '{parameter}': {given} begins {} commits of the series; give more of its digits",
            many.len()
        ))),
    }
}

impl Site {
    /// The page comparing two commits of a series.
    pub fn compare_commits(&self, q: &CommitsQuery) -> Result<CommitsCompareData, PageError> {
        let key = SeriesKey {
            name: text("name", &q.name)?,
            metric: required("metric", &q.metric)?,
            variant: required("variant", &q.variant)?,
            host: text("host", &q.host)?,
        };
        let base = required("base", &q.base)?;
        let head = required("head", &q.head)?;
        let found = self.with_store(|store| Ok(self.source().series(store, &key)?))?;
        let steps = &found.series.steps;
        let (base_index, base_step) = find_step(steps, &base, "base")?;
        let (head_index, head_step) = find_step(steps, &head, "head")?;
        let (go, nogo, confidence) = found.judged_at;
        let thresholds = Thresholds::new(go, nogo).unwrap_or_default();
        let decided = decide_samples(
            (&base_step.values, &head_step.values),
            (&key.metric, found.better),
            thresholds,
            confidence,
        );
        let (decision, note) = match decided {
            Ok(d) => (Some(d), None),
            Err(why) => (None, Some(why)),
        };
        Ok(CommitsCompareData {
            unit: found.unit.clone(),
            better: found.better,
            base: base_step.clone(),
            head: head_step.clone(),
            base_index,
            head_index,
            decision,
            note,
            key,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(label: &str, commit: Option<&str>) -> Step {
        Step {
            label: label.into(),
            commit: commit.map(str::to_string),
            experiments: vec![1],
            started_at: String::new(),
            values: vec![1.0],
            median: 1.0,
            level: None,
            change: None,
        }
    }

    #[test]
    fn a_commit_is_found_by_its_label_or_the_digits_it_begins_with() {
        let steps = [
            step("a1b2c3d4", Some("a1b2c3d4e5f6")),
            step("a1b29999", Some("a1b29999aaaa")),
            step("#7", None),
        ];
        assert_eq!(find_step(&steps, "a1b2c3d4", "base").unwrap().0, 0);
        assert_eq!(find_step(&steps, "A1B2C3D4E5", "base").unwrap().0, 0);
        assert_eq!(find_step(&steps, "#7", "head").unwrap().0, 2);
        let ambiguous = find_step(&steps, "a1b2", "head").unwrap_err();
        assert_eq!(ambiguous.status(), 400);
        assert!(ambiguous.to_string().contains("'head'"), "{ambiguous}");
        let missing = find_step(&steps, "ffff", "base").unwrap_err();
        assert_eq!(missing.status(), 404);
        assert!(missing.to_string().contains("'base'"), "{missing}");
    }
}
