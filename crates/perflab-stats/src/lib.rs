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
//!   Huber location of the pairs' log gains,
//!   [`RobustSequence`](sequential::robust_sequence::RobustSequence), valid
//!   under optional stopping).
//! * Two samples that already exist, of fixed size: [`decide_fixed_samples`]
//!   ([`hodges_lehmann_change`](fixed_sample::hodges_lehmann::hodges_lehmann_change):
//!   Hodges-Lehmann shift with the distribution-free Moses interval).
//!
//! Both feed [`classify`], the decision table of README ("The decision")
//! and docs/decision.md.
//!
//! # Contention
//!
//! * A block in which a run waited for a CPU for more than a share of its
//!   wall time is measured again, at most a few times: [`ContentionRule`]
//!   (why the decision stays valid: its module documentation).
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
//!   Student-t interval via
//!   [`student_t_quantile`](distributions::student_t::student_t_quantile)) and
//!   [`find_cliffs`].
//! * What is paid once and what per item: [`linear_cost_fit`] (the line
//!   fixed plus marginal times size, by weighted least squares on the points'
//!   geometric means, with intervals for both parts).
//!
//! # Layout
//!
//! One module per job; each imports what it needs by path, and its
//! documentation gives the method, the reference and the assumptions:
//!
//! * [`sample`], [`error`], [`change`]: what every job shares: checked
//!   samples, the typed errors, relative changes and their intervals.
//! * [`descriptive`]: one sample described.
//! * [`fixed_sample`]: tests and intervals on samples of fixed size.
//! * [`sequential`]: the A/B procedure that stops as soon as it decides.
//! * [`decision`]: the decision rule, guards, projections of runs still needed.
//! * [`multiplicity`]: one confidence level for many decisions.
//! * [`sweep`]: a sweep's points and how cost grows with size.
//! * [`change_points`]: where a series of commits changed level.
//! * [`distributions`]: the normal and Student's t.
//!
//! The words a decision is spoken in ([`Verdict`], [`GuardStatus`],
//! [`Better`]) are perflab-format's vocabulary, defined once for the
//! statistics and the documents alike.
//!
//! The re-exports below are the crate's public API as perflab's other crates
//! use it; everything else is reached by its path.
#![deny(missing_docs)]
#![warn(unreachable_pub)]

pub mod change;
pub mod change_points;
pub mod decision;
pub mod descriptive;
pub mod distributions;
pub mod error;
pub mod fixed_sample;
pub mod multiplicity;
pub mod sample;
pub mod sequential;
pub mod sweep;

pub use perflab_format::vocabulary::{Better, GuardStatus, Verdict};

pub use change::{Interval, relative_change};
pub use change_points::e_divisive::{ChangePointConfig, Exchangeable, e_divisive_means};
pub use decision::guard::GuardLimit;
pub use decision::rule::{DEFAULT_GO, DEFAULT_NOGO, Thresholds, classify};
pub use decision::runs_needed::RunsNeeded;
pub use descriptive::location_and_spread::median;
pub use descriptive::summary::{Summary, summarize, summarize_sorted};
pub use error::{SampleRole, StatsError};
pub use fixed_sample::decision::{decide_fixed_samples, decide_fixed_sorted_samples};
pub use fixed_sample::mann_whitney::{mann_whitney, mann_whitney_sorted};
pub use fixed_sample::proportion::{proportion_difference, wilson_interval};
pub use fixed_sample::run_order_trend::{
    DRIFT_MIN_CHANGE, DRIFT_SIGNIFICANCE, RunOrderTrend, run_order_trend,
};
pub use multiplicity::bonferroni::{bisect_step_confidence, bonferroni_confidence};
pub use multiplicity::suite_summary::{combine_verdicts, summary_change};
pub use sample::{PositiveSample, Sample, SortedSample};
pub use sequential::confidence_sequence::ConfidenceSequence;
pub use sequential::config::{
    DEFAULT_CONFIDENCE, DEFAULT_MAX_RUNS, DEFAULT_MIN_RUNS, DEFAULT_SUITE_MIN_RUNS, EXACT_MAX_RUNS,
    EXACT_MIN_RUNS, SequentialConfig, fewest_deciding_pairs, tuned_confidence_sequence,
};
pub use sequential::contention::{
    BlockFate, ContentionRule, DEFAULT_MAX_CPU_WAIT, MAX_REPEATS as CONTENTION_MAX_REPEATS,
};
pub use sequential::paired::paired_change;
pub use sequential::pairs_for_power::{
    CONFIRMATION_MAX_PAIRS, CONFIRMATION_POWER, ConfirmationSize, FoundChange, confirmation_size,
    pairs_for_power, pooled_log_spread,
};
pub use sequential::procedure::{Decision, SequentialTest};
pub use sequential::suite::SuiteTest;
pub use sweep::cliffs::{Cliff, SizedInterval, find_cliffs};
pub use sweep::linear_cost::{LinearCostFit, SizedRuns, linear_cost_fit};
pub use sweep::multiplicative::{PositiveInterval, geometric_mean_interval, paired_ratio};
pub use sweep::power_law::{PowerLawFit, power_law_fit};
pub use sweep::precision::PrecisionRule;
