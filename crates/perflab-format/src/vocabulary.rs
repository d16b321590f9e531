//! The closed sets of words that documents use for a result's kind and
//! status, a verdict, a guard's outcome, a metric's direction, why a sweep
//! stopped, a history step's verdict and where a run's peak memory was read.
//!
//! Each is an enum whose serialised form is the word documents have always
//! carried (`"ab"`, `"complete"`, `"NO-GO"`, ...), so that a reader matches
//! on a variant instead of comparing strings, and a misspelt word in a
//! document is refused by name when it is read.
//!
//! `Verdict`, `GuardStatus` and `Better` are defined here only: perflab-stats
//! decides in these words (it depends on this crate for them), so a decision
//! goes into a document as it is, with no conversion at the boundary. This
//! crate stays serde-only, which keeps the instrumentation library light.

use serde::{Deserialize, Serialize};

/// Declares an enum of document words: one source for the serde name and
/// [`as_str`](ResultKind::as_str), so that the text output and the JSON
/// cannot spell a word differently.
macro_rules! words {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $word:literal,)+ }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        pub enum $name {
            $($(#[$vdoc])* #[serde(rename = $word)] $variant,)+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The word documents carry.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $word,)+
                }
            }

            /// The variant whose word is `word` (None for any other text).
            pub fn from_word(word: &str) -> Option<Self> {
                match word {
                    $($word => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

words! {
    /// Which command made a `perflab-result/1` document.
    ResultKind {
        /// `perflab ab`: two variants run interleaved until a decision.
        Ab = "ab",
        /// `perflab run`: one command measured, no decision.
        Run = "run",
        /// `perflab compare`: a decision on samples that already existed.
        Compare = "compare",
        /// `perflab sweep`: commands over a grid of parameters.
        Sweep = "sweep",
        /// `perflab ab` on a suite: every candidate against the baseline in every scenario.
        Suite = "suite",
    }
}

words! {
    /// Which command stored an experiment: the `kind` of the store's
    /// experiments, a superset of a result document's [`ResultKind`]
    /// (`From` and `TryFrom` convert between the two).
    ExperimentKind {
        /// `perflab ab`.
        Ab = "ab",
        /// `perflab run`.
        Run = "run",
        /// `perflab compare`.
        Compare = "compare",
        /// `perflab sweep`.
        Sweep = "sweep",
        /// `perflab ab` on a suite.
        Suite = "suite",
        /// `perflab profile`: a sampling profile, no result document.
        Profile = "profile",
        /// `perflab import`: a benchmark harness's results read from its files.
        Import = "import",
    }
}

words! {
    /// Whether a result covers everything that was asked for.
    ResultStatus {
        /// Every run that was asked for was made (or the decision came first).
        Complete = "complete",
        /// Stopped early (Ctrl-C, a failed run): the figures rest on fewer runs.
        Incomplete = "incomplete",
        /// A sweep's checkpoint, saved while it still runs.
        Running = "running",
    }
}

words! {
    /// The outcome of a decision on a relative change and its interval.
    Verdict {
        /// The whole interval lies at or above the GO threshold.
        Go = "GO",
        /// The whole interval lies at or below the NO-GO threshold.
        NoGo = "NO-GO",
        /// The whole interval lies strictly between the thresholds: equivalent.
        Neutral = "NEUTRAL",
        /// The interval straddles a threshold: more runs are needed.
        Inconclusive = "INCONCLUSIVE",
    }
}

words! {
    /// The outcome of a guard metric that may veto a GO.
    GuardStatus {
        /// The guard's worsening is shown to stay within its limit.
        Pass = "pass",
        /// The guard worsened beyond its limit.
        Violated = "violated",
        /// The interval does not yet tell.
        Uncertain = "uncertain",
    }
}

words! {
    /// Which way a metric is better.
    Better {
        /// Larger values are better (throughput).
        Higher = "higher",
        /// Smaller values are better (time, memory).
        Lower = "lower",
    }
}

words! {
    /// Why a sweep stopped (or that it has not).
    SweepStop {
        /// Still running (documents saved along the way).
        Running = "running",
        /// Every point reached its precision or run limit.
        Finished = "finished",
        /// `--max-time` was reached.
        MaxTime = "max-time",
        /// Ctrl-C.
        Interrupted = "interrupted",
        /// A run failed; the error says which.
        Failed = "failed",
    }
}

words! {
    /// A history step's verdict against the step before: a decision's, or
    /// none for lack of runs.
    StepVerdict {
        /// The whole interval lies at or above the GO threshold.
        Go = "GO",
        /// The whole interval lies at or below the NO-GO threshold.
        NoGo = "NO-GO",
        /// The whole interval lies strictly between the thresholds: equivalent.
        Neutral = "NEUTRAL",
        /// The interval straddles a threshold: more runs are needed.
        Inconclusive = "INCONCLUSIVE",
        /// A step has too few runs for an interval.
        TooFewRuns = "TOO FEW RUNS",
    }
}

words! {
    /// Where a run's peak memory (`peak_memory_kib`, the `peak-memory`
    /// metric) was read: the two do not measure the same thing, so figures
    /// of different sources do not compare.
    PeakMemorySource {
        /// The peak memory charge of the run's own memory cgroup during the
        /// run (`memory.peak` of cgroup v2, `memory.max_usage_in_bytes` of
        /// cgroup v1): every process of the tree at once, with the page
        /// cache and kernel memory they were charged for, and the page
        /// cache earlier runs left charged to it.
        Cgroup = "cgroup",
        /// `wait4`'s `ru_maxrss`: the largest resident set of any single
        /// process of the tree, so `a | b` counts the larger of the two.
        Rusage = "rusage",
    }
}

impl PeakMemorySource {
    /// What the figure is, in words for a report: "the process tree's peak
    /// cgroup memory charge" or "the largest process's maximum resident set".
    pub fn describe(self) -> &'static str {
        match self {
            PeakMemorySource::Cgroup => {
                "the process tree's peak cgroup memory charge (memory.peak, or \
                 memory.max_usage_in_bytes under cgroup v1: resident memory, page cache and \
                 kernel memory)"
            }
            PeakMemorySource::Rusage => "the largest process's maximum resident set (rusage)",
        }
    }
}

/// Every result document's kind is the kind its experiment is stored
/// under, spelt the same: the one place the two sets of words meet.
impl From<ResultKind> for ExperimentKind {
    fn from(kind: ResultKind) -> Self {
        match kind {
            ResultKind::Ab => ExperimentKind::Ab,
            ResultKind::Run => ExperimentKind::Run,
            ResultKind::Compare => ExperimentKind::Compare,
            ResultKind::Sweep => ExperimentKind::Sweep,
            ResultKind::Suite => ExperimentKind::Suite,
        }
    }
}

/// The result document kind of a stored experiment, for the kinds that
/// write one; a profile or an import is refused as itself.
impl TryFrom<ExperimentKind> for ResultKind {
    type Error = ExperimentKind;

    fn try_from(kind: ExperimentKind) -> Result<Self, ExperimentKind> {
        match kind {
            ExperimentKind::Ab => Ok(ResultKind::Ab),
            ExperimentKind::Run => Ok(ResultKind::Run),
            ExperimentKind::Compare => Ok(ResultKind::Compare),
            ExperimentKind::Sweep => Ok(ResultKind::Sweep),
            ExperimentKind::Suite => Ok(ResultKind::Suite),
            ExperimentKind::Profile | ExperimentKind::Import => Err(kind),
        }
    }
}

impl From<Verdict> for StepVerdict {
    fn from(verdict: Verdict) -> Self {
        match verdict {
            Verdict::Go => StepVerdict::Go,
            Verdict::NoGo => StepVerdict::NoGo,
            Verdict::Neutral => StepVerdict::Neutral,
            Verdict::Inconclusive => StepVerdict::Inconclusive,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words_survive_json<T>(all: &[T])
    where
        T: Serialize
            + serde::de::DeserializeOwned
            + PartialEq
            + std::fmt::Debug
            + std::fmt::Display,
    {
        for word in all {
            let json = serde_json::to_string(word).unwrap();
            assert_eq!(json, format!("\"{word}\""));
            assert_eq!(&serde_json::from_str::<T>(&json).unwrap(), word);
        }
    }

    #[test]
    fn every_word_is_written_as_its_display_text_and_read_back() {
        words_survive_json(ResultKind::ALL);
        words_survive_json(ResultStatus::ALL);
        words_survive_json(Verdict::ALL);
        words_survive_json(GuardStatus::ALL);
        words_survive_json(Better::ALL);
        words_survive_json(SweepStop::ALL);
        words_survive_json(StepVerdict::ALL);
        words_survive_json(PeakMemorySource::ALL);
    }

    #[test]
    fn a_word_is_read_back_as_its_variant_and_any_other_text_as_none() {
        for kind in ExperimentKind::ALL {
            assert_eq!(ExperimentKind::from_word(kind.as_str()), Some(*kind));
        }
        for status in ResultStatus::ALL {
            assert_eq!(ResultStatus::from_word(status.as_str()), Some(*status));
        }
        assert_eq!(Verdict::from_word("NO-GO"), Some(Verdict::NoGo));
        assert_eq!(Verdict::from_word("no-go"), None);
        assert_eq!(ExperimentKind::from_word(""), None);
    }

    #[test]
    fn the_words_are_those_documents_have_always_carried() {
        let words = |all: &[&str]| all.join(" ");
        let kinds: Vec<&str> = ResultKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(words(&kinds), "ab run compare sweep suite");
        let verdicts: Vec<&str> = Verdict::ALL.iter().map(|v| v.as_str()).collect();
        assert_eq!(words(&verdicts), "GO NO-GO NEUTRAL INCONCLUSIVE");
    }

    #[test]
    fn a_result_kind_is_stored_as_the_experiment_kind_spelt_the_same() {
        for kind in ResultKind::ALL {
            let stored = ExperimentKind::from(*kind);
            assert_eq!(stored.as_str(), kind.as_str());
            assert_eq!(ResultKind::try_from(stored), Ok(*kind));
        }
        let without_document: Vec<ExperimentKind> = ExperimentKind::ALL
            .iter()
            .copied()
            .filter(|kind| ResultKind::try_from(*kind).is_err())
            .collect();
        assert_eq!(
            without_document,
            [ExperimentKind::Profile, ExperimentKind::Import]
        );
    }

    #[test]
    fn a_step_verdict_is_spelt_as_the_verdict_it_comes_from() {
        for verdict in Verdict::ALL {
            assert_eq!(StepVerdict::from(*verdict).as_str(), verdict.as_str());
        }
    }

    #[test]
    fn an_unknown_word_is_refused_with_the_words_allowed() {
        let err = serde_json::from_str::<Verdict>("\"MAYBE\"").unwrap_err();
        assert!(err.to_string().contains("NO-GO"), "{err}");
    }
}
