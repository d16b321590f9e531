//! The data of one `perflab report` page: each experiment's result (or
//! sweep, or sampling profile), its instruction counts, its span breakdowns
//! and its history over commits, read from the store once (by the CLI's
//! `gather`), so that the Markdown and the HTML page are two views of the
//! same data.

use std::collections::BTreeMap;

use perflab_format::history::MetricHistory;
use perflab_format::instructions::InstructionsDocument;
use perflab_format::result::ResultDocument;
use perflab_format::suite::SuiteDocument;
use perflab_format::sweep::SweepDocument;
use perflab_format::vocabulary::{ExperimentKind, ResultStatus};

use crate::sections::sampling::SamplingReport;
use crate::sections::spans::VariantSpans;

/// The data of one report.
#[derive(Debug, Clone)]
pub struct ReportData {
    /// The experiments, in the order asked for.
    pub experiments: Vec<ExperimentReport>,
}

/// One experiment's part of a report. Serialized (as the dashboard's
/// `/api/experiments/ID` gives it) with the stored documents only: the
/// span figures and grouped warnings are computed from them, and the
/// sampling profile and the history are their documents.
#[derive(Debug, Clone, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExperimentReport {
    /// Id in the store.
    pub id: i64,
    /// The command that stored it.
    pub kind: ExperimentKind,
    /// Name, if given.
    pub name: Option<String>,
    /// Status in the store.
    pub status: ResultStatus,
    /// The result document (for a sweep, its shared part).
    pub result: Option<ResultDocument>,
    /// The sweep, for sweeps.
    pub sweep: Option<SweepDocument>,
    /// The matrix of cells, for suites.
    pub suite: Option<SuiteDocument>,
    /// The sampling profile, for experiments of kind `profile`.
    #[serde(serialize_with = "sampling_document")]
    #[cfg_attr(
        feature = "schema",
        schemars(with = "Option<perflab_format::sampling::SamplingDocument>")
    )]
    pub sampling: Option<SamplingReport>,
    /// Instruction counts per function, when the runs were counted under valgrind.
    pub instructions: Option<InstructionsDocument>,
    /// Spans per variant (empty without profiles): the result's own span
    /// figures, or for a sweep the same figures computed from its runs.
    #[serde(skip)]
    pub spans: Vec<VariantSpans>,
    /// The profiles' warnings, grouped, when the result does not state them.
    #[serde(skip)]
    pub span_warnings: Vec<String>,
    /// The metric over commits, when it was measured at 2 or more commits,
    /// and the unit its values are in.
    #[serde(serialize_with = "history_document")]
    #[cfg_attr(
        feature = "schema",
        schemars(
            with = "Option<MetricHistory>",
            description = "The metric over commits (its `perflab-history/1` document), when it was measured at 2 or more commits."
        )
    )]
    pub history: Option<(MetricHistory, String)>,
    /// Why there is no result, if there is none.
    pub missing: Option<String>,
    /// What the store holds for this experiment but could not be read.
    pub warnings: Vec<String>,
}

/// A sampling report serialized as the document `perflab profile` stored.
fn sampling_document<S: serde::Serializer>(
    sampling: &Option<SamplingReport>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&sampling.as_ref().map(|s| &s.doc), serializer)
}

/// A history serialized as its `perflab-history/1` document, without the unit.
fn history_document<S: serde::Serializer>(
    history: &Option<(MetricHistory, String)>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&history.as_ref().map(|(h, _)| h), serializer)
}

impl ReportData {
    /// The report with the profile warnings that more than one experiment
    /// gave taken out of each, and those warnings with how many
    /// experiments gave them, in the order they first appear: a report of
    /// eight experiments of one program states its four "never
    /// incremented" counters once, not in every table.
    pub(crate) fn shared_warnings_apart(&self) -> (ReportData, Vec<(String, usize)>) {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        let mut order: Vec<&str> = Vec::new();
        for e in &self.experiments {
            let mut own: Vec<&str> = e.profile_warnings().map(String::as_str).collect();
            own.sort_unstable();
            own.dedup();
            for w in own {
                let n = counts.entry(w).or_default();
                if *n == 0 {
                    order.push(w);
                }
                *n += 1;
            }
        }
        let shared: Vec<(String, usize)> = order
            .into_iter()
            .filter(|w| counts[w] > 1)
            .map(|w| (w.to_string(), counts[w]))
            .collect();
        let mut data = self.clone();
        if !shared.is_empty() {
            let is_shared = |w: &String| shared.iter().any(|(s, _)| s == w);
            for e in &mut data.experiments {
                e.span_warnings.retain(|w| !is_shared(w));
                if let Some(r) = &mut e.result {
                    r.profile_warnings.retain(|w| !is_shared(w));
                }
            }
        }
        (data, shared)
    }
}

impl ExperimentReport {
    /// The profiles' warnings this experiment states: its result's, and
    /// those computed from its runs.
    pub fn profile_warnings(&self) -> impl Iterator<Item = &String> {
        self.result
            .iter()
            .flat_map(|r| &r.profile_warnings)
            .chain(&self.span_warnings)
    }

    /// "sweep #3: hamt", "ab #12".
    pub fn title(&self) -> String {
        match &self.name {
            Some(n) => format!("{} #{}: {n}", self.kind, self.id),
            None => format!("{} #{}", self.kind, self.id),
        }
    }

    /// Where the measurement came from (commit, host, kernel, time), if stored.
    pub fn provenance(&self) -> Option<&BTreeMap<String, serde_json::Value>> {
        self.result
            .as_ref()
            .and_then(|r| r.provenance.as_ref())
            .or_else(|| self.sampling.as_ref()?.doc.provenance.as_ref())
    }
}
