//! The history of a metric over commits (`perflab-history/1`), written by
//! `perflab history --metric ... --json`: per variant, one step per commit
//! with its runs' values, and the change points of the series, each judged
//! between the segments of commits around it.
//!
//! With `--confirm`, each change point judged GO or NO-GO carries the
//! interleaved A/B that reran its two commits ([`ConfirmationDoc`]): only a
//! confirmed change counts as a change.
//!
//! Documents written before change points (steps judged against the one
//! before) or before confirmations still read: the fields added since
//! default to empty.

use serde::{Deserialize, Serialize};

use crate::interval::PositiveIntervalDoc;
use crate::result::{FormatError, parse_tagged};
use crate::vocabulary::{Better, StepVerdict, Verdict};

/// The format tag of this version.
pub const HISTORY_FORMAT: &str = "perflab-history/1";

/// The history of a metric, per variant.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MetricHistory {
    /// Always [`HISTORY_FORMAT`].
    pub format: String,
    /// The metric.
    pub metric: String,
    /// Which way is better.
    pub better: Better,
    /// The experiments' name.
    pub name: Option<String>,
    /// GO threshold (fraction).
    pub go: f64,
    /// NO-GO threshold (fraction).
    pub nogo: f64,
    /// Confidence level.
    pub confidence: f64,
    /// Probability that a series in which nothing changed shows any change
    /// point (None in documents from before change points).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub false_alarm: Option<f64>,
    /// What the change-point test shuffled: `commits` (whole commits, each
    /// keeping its runs) or `runs` (single runs moved between commits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permute: Option<String>,
    /// One line per variant.
    pub series: Vec<VariantHistory>,
}

impl MetricHistory {
    /// Parses a metric history, refusing other formats with a message saying what was found.
    pub fn from_json_str(text: &str) -> Result<Self, FormatError> {
        parse_tagged(text, HISTORY_FORMAT)
    }

    /// True when the newest change point of some variant is a regression
    /// (confirmed, when it was put to an A/B: [`ChangePointDoc::is_regression`]).
    pub fn newest_change_regressed(&self) -> bool {
        self.series
            .iter()
            .any(VariantHistory::newest_change_regressed)
    }

    /// The most steps any variant has.
    pub fn longest(&self) -> usize {
        self.series.iter().map(|s| s.steps.len()).max().unwrap_or(0)
    }
}

/// One variant over commits.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct VariantHistory {
    /// The variant's name.
    pub variant: String,
    /// The host its experiments ran on: a series never mixes hosts, each
    /// host's experiments make a series of their own (left out in
    /// documents written before, and when the host is unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// One step per commit, oldest first.
    pub steps: Vec<Step>,
    /// First step against the last.
    pub total: Option<Judgement>,
    /// Where the level changed, oldest first (left out when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub change_points: Vec<ChangePointDoc>,
    /// Why there are no change points, when they could not be computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl VariantHistory {
    /// True when this variant's newest change point is a regression
    /// ([`ChangePointDoc::is_regression`]). Change points put to an A/B
    /// that bore out no change of the code (not confirmed, no regression
    /// found) are passed over: the newest change of the code is the one that
    /// counts, and a load that came after a regression must not hide it.
    pub fn newest_change_regressed(&self) -> bool {
        self.change_points
            .iter()
            .rev()
            .find(|c| {
                c.confirmation
                    .as_ref()
                    .is_none_or(|k| k.confirmed || k.found_regression())
            })
            .is_some_and(ChangePointDoc::is_regression)
    }
}

/// A change point: the level changed between two consecutive commits.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChangePointDoc {
    /// Index of the first step at the new level.
    pub step: usize,
    /// Label of the last step before the change.
    pub from: String,
    /// Label of the first step after it.
    pub to: String,
    /// Full commit of the last step before the change, if any.
    pub from_commit: Option<String>,
    /// Full commit of the first step after it, if any.
    pub to_commit: Option<String>,
    /// When the first step after it started.
    pub started_at: String,
    /// Steps in the segment before (since the previous change point).
    pub steps_before: usize,
    /// Steps in the segment after (until the next change point).
    pub steps_after: usize,
    /// Permutation p-value of the test that found it.
    pub p_value: f64,
    /// The segment before against the segment after.
    pub judgement: Judgement,
    /// The interleaved A/B of the commit before against the commit after
    /// (`--confirm`); left out when the change point was not put to one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<ConfirmationDoc>,
}

impl ChangePointDoc {
    /// True when the change point is a regression: judged NO-GO between
    /// its segments and, when it was put to an interleaved A/B, confirmed
    /// by it; or found a regression by its A/B whatever the history judged.
    /// A change point the A/B did not confirm is not a change of the code
    /// (the machine may have changed between the commits' runs); one whose
    /// A/B decided NO-GO where the history saw an improvement is a
    /// regression the machine hid (a load that went at the commit that
    /// slowed the code): the A/B, whose runs took turns, is the better
    /// witness.
    pub fn is_regression(&self) -> bool {
        match &self.confirmation {
            None => self.judgement.regression,
            Some(c) => (self.judgement.regression && c.confirmed) || c.found_regression(),
        }
    }
}

/// A change point put to an interleaved A/B: the commit before it against
/// the commit after it, run again in randomised blocks with the series'
/// command, so that a change of the machine between the commits' runs of
/// the history cannot pass for a change of the code.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ConfirmationDoc {
    /// True when the A/B decided the change point's own verdict (GO for a
    /// GO, NO-GO for a NO-GO).
    pub confirmed: bool,
    /// The A/B's experiment id in the store (none when it was not run).
    pub experiment: Option<i64>,
    /// The A/B's verdict (none when it was not run or measured too few
    /// pairs for one).
    pub verdict: Option<Verdict>,
    /// The A/B's relative change, the later commit against the earlier,
    /// positive is better.
    pub change: Option<f64>,
    /// Its interval.
    pub ci: Option<[f64; 2]>,
    /// Pairs of runs the verdict rests on.
    pub pairs: usize,
    /// The A/B's confidence level: the history's, split over the change
    /// points confirmed together (Bonferroni).
    pub confidence: f64,
    /// The command run at both commits.
    pub command: String,
    /// Why it was not run, or why it decides nothing (interrupted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl ConfirmationDoc {
    /// True when the A/B ran to its end and decided NO-GO: the later commit
    /// is worse beyond the threshold.
    pub fn found_regression(&self) -> bool {
        self.experiment.is_some() && self.note.is_none() && self.verdict == Some(Verdict::NoGo)
    }
}

/// The metric at one commit.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Step {
    /// `a1b2c3d4`, `a1b2c3d4+` (dirty) or `#12` (no git).
    pub label: String,
    /// Full commit hash, if any.
    pub commit: Option<String>,
    /// Experiments whose runs it pools.
    pub experiments: Vec<i64>,
    /// When its first experiment started.
    pub started_at: String,
    /// Its values, in run order.
    pub values: Vec<f64>,
    /// Median of the values.
    pub median: f64,
    /// Geometric mean with its interval (from 2 values on).
    pub level: Option<PositiveIntervalDoc>,
    /// At a change point (this step is the first at a new level): the
    /// segment before against the segment from this step on; None elsewhere.
    pub change: Option<Judgement>,
}

/// A change between two steps or segments of steps, judged.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Judgement {
    /// Relative change, positive is better.
    pub change: f64,
    /// Its interval (none when the steps have too few runs for one).
    pub ci: Option<[f64; 2]>,
    /// The verdict, or that the steps have too few runs for one.
    pub verdict: StepVerdict,
    /// True for NO-GO: the step made things worse beyond the threshold.
    pub regression: bool,
    /// Why there is no interval, if there is none.
    pub note: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change_point(regression: bool, confirmed: Option<bool>) -> ChangePointDoc {
        ChangePointDoc {
            step: 4,
            from: "a1b2c3d4".into(),
            to: "e5f6a7b8".into(),
            from_commit: None,
            to_commit: None,
            started_at: String::new(),
            steps_before: 4,
            steps_after: 4,
            p_value: 0.005,
            judgement: Judgement {
                change: if regression { -0.5 } else { 0.5 },
                ci: Some([-0.6, -0.4]),
                verdict: if regression {
                    StepVerdict::NoGo
                } else {
                    StepVerdict::Go
                },
                regression,
                note: None,
            },
            confirmation: confirmed.map(|confirmed| ConfirmationDoc {
                confirmed,
                experiment: Some(9),
                verdict: Some(match (confirmed, regression) {
                    (true, true) => Verdict::NoGo,
                    (true, false) => Verdict::Go,
                    (false, _) => Verdict::Neutral,
                }),
                change: Some(0.0),
                ci: Some([-0.01, 0.01]),
                pairs: 20,
                confidence: 0.95,
                command: "./app".into(),
                note: None,
            }),
        }
    }

    #[test]
    fn only_a_regression_the_ab_confirmed_or_that_was_not_put_to_one_is_a_regression() {
        assert!(change_point(true, None).is_regression());
        assert!(change_point(true, Some(true)).is_regression());
        assert!(!change_point(true, Some(false)).is_regression());
        assert!(!change_point(false, None).is_regression());
        assert!(!change_point(false, Some(true)).is_regression());
    }

    #[test]
    fn the_newest_change_point_an_ab_bore_out_decides_whether_a_series_regressed() {
        let series = |change_points| VariantHistory {
            variant: "app".into(),
            host: None,
            steps: Vec::new(),
            total: None,
            change_points,
            note: None,
        };
        // A confirmed regression, then a change point of the machine the
        // A/B did not bear out: the regression is the newest change.
        assert!(
            series(vec![
                change_point(true, Some(true)),
                change_point(true, Some(false))
            ])
            .newest_change_regressed()
        );
        // A confirmed improvement after it ends it.
        assert!(
            !series(vec![
                change_point(true, Some(true)),
                change_point(false, Some(true))
            ])
            .newest_change_regressed()
        );
        // Without confirmations, the newest change point decides.
        assert!(
            !series(vec![change_point(true, None), change_point(false, None)])
                .newest_change_regressed()
        );
        assert!(!series(vec![change_point(true, Some(false))]).newest_change_regressed());
    }

    #[test]
    fn an_improvement_whose_ab_finds_a_regression_is_a_regression() {
        let mut hidden = change_point(false, Some(false));
        let confirmation = hidden.confirmation.as_mut().unwrap();
        confirmation.verdict = Some(Verdict::NoGo);
        assert!(hidden.is_regression());
        // Not when the A/B was interrupted before it finished.
        hidden.confirmation.as_mut().unwrap().note = Some("interrupted before it decided".into());
        assert!(!hidden.is_regression());
    }

    #[test]
    fn a_change_point_written_before_confirmations_reads_without_one() {
        let mut text = serde_json::to_value(change_point(true, None)).unwrap();
        assert!(text.get("confirmation").is_none());
        text["confirmation"] = serde_json::Value::Null;
        let read: ChangePointDoc = serde_json::from_value(text).unwrap();
        assert_eq!(read.confirmation, None);
    }
}
