//! Pure statistics for perflab: summaries, tests, intervals, confidence
//! sequences and the A/B decision rule. No clocks, no I/O, no printing.
//!
//! # Conventions
//!
//! * Relative changes are fractions (0.03 = +3 %) oriented so that **positive
//!   means better**: for [`Better::Higher`] change = candidate/baseline - 1, for
//!   [`Better::Lower`] change = baseline/candidate - 1 (the change in rate).
//! * Inference runs on log gains (ln of the oriented ratio) and is mapped back
//!   by exp(x) - 1; estimates are ratios of geometric means or medians.
//! * Functions taking logarithms require values that are finite and > 0, and
//!   report the sample and index of the first value that is not.
//! * No function panics on user data or returns NaN: bad input is a
//!   [`StatsError`] whose message says how to fix it.
//!
//! # Which interval when
//!
//! * Runs collected by perflab itself, interleaved, possibly stopped early:
//!   [`SequentialTest`] / [`paired_change`] (confidence sequence for the
//!   Huber location of the pairs' log gains, [`RobustSequence`], valid under
//!   optional stopping).
//! * Two samples that already exist, of fixed size: [`decide_fixed_samples`]
//!   ([`hodges_lehmann_change`]: Hodges-Lehmann shift with the
//!   distribution-free Moses interval).
//!
//! Both feed [`classify`], the decision table of README ("The decision")
//! and docs/decision.md.
//!
//! # Drift
//!
//! * Whether a series got steadily slower or faster over its run order
//!   (the machine drifting, which samples that were not interleaved cannot
//!   tell from a change): [`run_order_trend`].
//!
//! # Suites and bisection
//!
//! * Many cells (scenario, candidate) decided in one experiment, the
//!   confidence level holding for all of them at once: [`SuiteTest`]
//!   (Bonferroni split of [`bonferroni_confidence`]), its verdicts combined by
//!   [`combine_verdicts`], a candidate's cells summarised by [`summary_change`].
//! * The steps of a bisection: [`bisect_step_confidence`].
//!
//! # Histories
//!
//! * Where a metric's level changed over a series of commits, the
//!   false-alarm rate holding for the whole series: [`e_divisive_means`]
//!   (E-divisive means with a permutation test).
//!
//! # Sweeps
//!
//! * The typical value of one point's runs, or the ratio of a command to a
//!   reference run in pairs, stopped once precise enough:
//!   [`geometric_mean_interval`], [`paired_ratio`], stopped by [`PrecisionRule`].
//! * How cost grows with size: [`power_law_fit`] (exponent on log-log axes,
//!   Student-t interval via [`student_t_quantile`]) and [`find_cliffs`].
//! * What is paid once and what per item: [`linear_cost_fit`] (the line
//!   fixed plus marginal times size, by weighted least squares on the points'
//!   geometric means, with intervals for both parts).
#![deny(missing_docs)]

mod change;
mod change_points;
mod cliffs;
mod confidence_sequence;
mod decision;
mod descriptive;
mod energy_split;
mod error;
mod fixed_sample;
mod guard;
mod hodges_lehmann;
mod linear_cost;
mod mann_whitney;
mod multiplicative;
mod multiplicity;
mod normal;
mod paired;
mod pairwise;
mod precision;
mod proportion;
mod robust_sequence;
mod run_order_trend;
mod runs_needed;
mod scaling;
mod sequential;
mod sequential_config;
mod student_t;
mod suite;
mod suite_summary;
mod summary;
mod validate;
mod weighted_line;

pub use change::{Better, change_from_log_gain, log_gain_from_change, log_gains, relative_change};
pub use change_points::{
    ChangePoint, ChangePointConfig, DEFAULT_PERMUTATIONS, Exchangeable, e_divisive_means,
};
pub use cliffs::{Cliff, SizedInterval, find_cliffs};
pub use confidence_sequence::{ConfidenceSequence, DEFAULT_OPTIMISE_AT};
pub use decision::{
    DEFAULT_GO, DEFAULT_NOGO, Interval, LogInterval, Thresholds, Verdict, classify,
};
pub use descriptive::{mad, mean, median, quantile_sorted, std_dev};
pub use error::{Sample, StatsError};
pub use fixed_sample::{FixedSampleDecision, decide_fixed_samples};
pub use guard::{GuardDecision, GuardLimit, GuardStatus, guard_status};
pub use hodges_lehmann::{hodges_lehmann_change, hodges_lehmann_log_shift};
pub use linear_cost::{LinearCostFit, SizedRuns, linear_cost_fit};
pub use mann_whitney::{MannWhitney, mann_whitney};
pub use multiplicative::{PositiveInterval, geometric_mean_interval, paired_ratio};
pub use multiplicity::{bisect_step_confidence, bonferroni_confidence};
pub use paired::{paired_change, paired_log_interval};
pub use precision::{PrecisionRule, PrecisionStop};
pub use proportion::{
    ProportionDifference, ProportionInterval, proportion_difference, wilson_interval,
};
pub use robust_sequence::{HUBER_TUNING, RobustSequence};
pub use run_order_trend::{
    DRIFT_MIN_CHANGE, DRIFT_SIGNIFICANCE, RunOrderTrend, TREND_MIN_RUNS, run_order_trend,
};
pub use runs_needed::{
    RUNS_NEEDED_CAP, RunsNeeded, runs_needed_guard, runs_needed_independent, runs_needed_paired,
};
pub use scaling::{PowerLawFit, power_law_fit};
pub use sequential::{Decision, SequentialTest};
pub use sequential_config::{
    DEFAULT_CONFIDENCE, DEFAULT_MAX_RUNS, DEFAULT_MIN_RUNS, DEFAULT_SUITE_MIN_RUNS, EXACT_MAX_RUNS,
    EXACT_MIN_RUNS, SequentialConfig, tuned_confidence_sequence,
};
pub use student_t::{student_t_cdf, student_t_quantile};
pub use suite::SuiteTest;
pub use suite_summary::{combine_verdicts, summary_change};
pub use summary::{Summary, TukeyOutliers, summarize};
