//! Typed errors for every function of the crate.
//!
//! Each message says what was wrong and how to fix it, so the CLI can show it
//! as it is (with the flag, file or run it maps the sample and index to).

use std::fmt;

use perflab_format::vocabulary::Verdict;

/// Which input a value came from, so an error can name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleRole {
    /// The baseline (A) sample.
    Baseline,
    /// The candidate (B) sample.
    Candidate,
    /// A single sample given to a descriptive function such as
    /// [`crate::descriptive::summary::summarize`].
    Values,
}

impl fmt::Display for SampleRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SampleRole::Baseline => "baseline",
            SampleRole::Candidate => "candidate",
            SampleRole::Values => "input",
        })
    }
}

/// Everything that can go wrong in perflab-stats.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum StatsError {
    /// A sample has fewer values than the method needs.
    #[error("{sample} sample has {got} {}; at least {needed} are needed (collect more runs)", plural(*.got, "value"))]
    TooFew {
        /// The sample at fault.
        sample: SampleRole,
        /// How many values it has.
        got: usize,
        /// How many the method needs.
        needed: usize,
    },
    /// A value is NaN or infinite.
    #[error(
        "{sample} value at index {index} is {value}, which is not a finite number; remove or re-measure that run"
    )]
    NonFinite {
        /// The sample at fault.
        sample: SampleRole,
        /// Zero-based position of the value in its sample.
        index: usize,
        /// The offending value.
        value: f64,
    },
    /// A value is zero or negative where the method works on logarithms.
    #[error(
        "{sample} value at index {index} is {value}, but relative changes are computed on the log scale and need values > 0; remove that run or compare a strictly positive metric"
    )]
    NonPositive {
        /// The sample at fault.
        sample: SampleRole,
        /// Zero-based position of the value in its sample.
        index: usize,
        /// The offending value.
        value: f64,
    },
    /// A paired comparison got samples of different lengths.
    #[error(
        "a paired comparison needs one candidate value per baseline value, got {baseline} baseline and {candidate} candidate values; drop the unpaired run or compare the samples as independent"
    )]
    LengthMismatch {
        /// Length of the baseline sample.
        baseline: usize,
        /// Length of the candidate sample.
        candidate: usize,
    },
    /// A confidence level outside (0.5, 1).
    #[error(
        "confidence must be a number strictly between 0.5 and 1 (for example 0.95), got {value}"
    )]
    InvalidConfidence {
        /// The rejected confidence level.
        value: f64,
    },
    /// Decision thresholds that cannot define the three verdict regions.
    #[error("thresholds go={go} nogo={nogo} are invalid: {reason}")]
    InvalidThresholds {
        /// The rejected GO threshold.
        go: f64,
        /// The rejected NO-GO threshold.
        nogo: f64,
        /// What is wrong and how to fix it.
        reason: &'static str,
    },
    /// A probability outside [0, 1].
    #[error(
        "probability must be a number between 0 and 1 inclusive (for example 0.25 for the first quartile), got {value}"
    )]
    InvalidProbability {
        /// The rejected probability.
        value: f64,
    },
    /// Input that must be sorted is not.
    #[error(
        "values must be sorted in ascending order, but the value at index {index} is smaller than the one before it; sort them first (or call `summarize`, which sorts)"
    )]
    NotSorted {
        /// Zero-based position of the first value out of order.
        index: usize,
    },
    /// A count of successes larger than the number of trials.
    #[error(
        "{successes} successes out of {trials} trials is impossible; successes must not exceed trials"
    )]
    InvalidCount {
        /// The successes given.
        successes: u64,
        /// The trials given.
        trials: u64,
    },
    /// A sequential-test configuration that cannot work.
    #[error("invalid sequential test configuration: {field} {reason}")]
    InvalidConfig {
        /// The configuration field at fault.
        field: &'static str,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// The samples are too small for any distribution-free interval at this confidence.
    #[error(
        "with {baseline} baseline and {candidate} candidate values no distribution-free interval reaches {confidence} confidence; collect at least {needed_each} values of each, or lower the confidence"
    )]
    TooFewForConfidence {
        /// Length of the baseline sample.
        baseline: usize,
        /// Length of the candidate sample.
        candidate: usize,
        /// The requested confidence level.
        confidence: f64,
        /// The smallest equal sample size that reaches it.
        needed_each: usize,
    },
    /// The samples are so large that the number of pairwise differences overflows.
    #[error(
        "{baseline} baseline and {candidate} candidate values give too many pairwise differences to count; use at most about 4 billion values in each sample"
    )]
    TooManyValues {
        /// Length of the baseline sample.
        baseline: usize,
        /// Length of the candidate sample.
        candidate: usize,
    },
    /// A ratio too extreme to be represented as a relative change.
    #[error(
        "the candidate differs from the baseline by a factor of e^{log_gain}, which cannot be represented as a relative change; check that both samples measure the same metric in the same unit"
    )]
    ChangeOutOfRange {
        /// The log gain that could not be mapped.
        log_gain: f64,
    },
    /// A summary statistic overflowed the range of f64.
    #[error(
        "the {statistic} of the input overflows a 64-bit float; the values are too large in magnitude, rescale them (for example use a larger unit)"
    )]
    Overflow {
        /// The statistic that overflowed.
        statistic: &'static str,
    },
    /// A value was pushed into a sequential test that has already stopped.
    #[error(
        "the sequential test already stopped after {runs} pairs with verdict {verdict}; start a new test to collect more runs"
    )]
    AlreadyStopped {
        /// Pairs collected when it stopped.
        runs: usize,
        /// The verdict it stopped with.
        verdict: Verdict,
    },
    /// A suite was asked about a cell it does not have.
    #[error(
        "cell {cell} does not exist: the suite has {cells} {} (numbered from 0); check the cell index",
        plural(*.cells, "cell")
    )]
    NoSuchCell {
        /// The cell index asked for.
        cell: usize,
        /// How many cells the suite has.
        cells: usize,
    },
    /// An error in one cell of a suite, naming the cell.
    #[error("cell {cell}: {error}")]
    InCell {
        /// The cell at fault (zero-based, in the order the suite was given).
        cell: usize,
        /// What went wrong in that cell.
        error: Box<StatsError>,
    },
    /// An error in one point of a sweep, naming the point.
    #[error("point {point} (size {size}): {error}")]
    InPoint {
        /// The point at fault (zero-based, in the order given).
        point: usize,
        /// Its size.
        size: f64,
        /// What went wrong in that point.
        error: Box<StatsError>,
    },
    /// An interval given to a function that combines intervals cannot be used.
    #[error("interval {index} {reason}")]
    InvalidInterval {
        /// Zero-based position of the interval in the input.
        index: usize,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// Intervals whose error budgets add up to too much for any simultaneous statement.
    #[error(
        "{intervals} intervals at their confidence levels hold all at once with probability {confidence} at best (1 minus the sum of their error rates), which is no confidence at all; compute each at a higher confidence, as a suite does by splitting 1 - confidence over its cells"
    )]
    NoSimultaneousConfidence {
        /// How many intervals were combined.
        intervals: usize,
        /// 1 minus the sum of their error rates (0.5 or less).
        confidence: f64,
    },
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        word.to_string()
    } else {
        format!("{word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_few_message_says_how_many_and_how_to_fix() {
        let e = StatsError::TooFew {
            sample: SampleRole::Baseline,
            got: 1,
            needed: 2,
        };
        assert_eq!(
            e.to_string(),
            "baseline sample has 1 value; at least 2 are needed (collect more runs)"
        );
        let e = StatsError::TooFew {
            sample: SampleRole::Candidate,
            got: 0,
            needed: 2,
        };
        assert!(e.to_string().starts_with("candidate sample has 0 values;"));
    }

    #[test]
    fn non_positive_message_names_sample_and_index() {
        let e = StatsError::NonPositive {
            sample: SampleRole::Candidate,
            index: 3,
            value: -1.0,
        };
        let text = e.to_string();
        assert!(
            text.starts_with("candidate value at index 3 is -1"),
            "{text}"
        );
        assert!(text.contains("> 0"), "{text}");
    }
}
