//! The contention rule: a block of runs in which some run waited for a CPU
//! for more than a threshold share of its wall time is measured again, at
//! most [`MAX_REPEATS`] times, before its pair reaches the sequential test.
//!
//! # Method
//!
//! Each run reports how long its tasks were runnable but waiting for a CPU
//! (its CPU wait) and its wall time. [`ContentionRule::fate`] looks at a
//! finished block (every run of it, whichever variant) and says whether to
//! keep it or to measure the whole block again; the replaced runs are
//! dropped from the decision (kept in the store, marked). It looks at the
//! CPU wait only, never at the timings, and at every run of the block
//! alike, whichever variant ran in which slot. A run without a CPU wait
//! measurement never triggers it.
//!
//! # Why the decision stays valid
//!
//! Within a block the variants run in random order, so under the null
//! hypothesis (and, approximately, under any alternative whose variants
//! make the machine no busier), which variant sat in which slot is
//! independent of what happened to each slot: its noise and its CPU wait.
//! The rule keeps a block on an event of the waits alone that is symmetric
//! in the slots ("no run waited more than the threshold"), so among the
//! kept blocks the noise of A's run and of B's run are still exchangeable:
//! the pair's log gain `g = δ + e_A − e_B` stays symmetric about the true
//! change δ. Blocks are independent, so the kept blocks are an i.i.d.
//! sample of that conditional distribution, and the sequential test's
//! assumptions (i.i.d. pairs, gains symmetric about the change; see
//! [`crate::sequential::procedure::SequentialTest`]) hold for it: its error
//! guarantees hold conditionally on keeping, and its estimand is the same
//! δ. A block kept after [`MAX_REPEATS`] attempts comes from the complement
//! event, also symmetric in the slots, so the mixture of the two is still
//! symmetric about δ.
//!
//! This is the rule that conditioning a randomised comparison on a
//! variable is harmless only when the treatment cannot affect that
//! variable (P. R. Rosenbaum, "The consequences of adjustment for a
//! concomitant variable that has been affected by the treatment", JRSS A
//! 147(5), 1984; J. M. Montgomery, B. Nyhan and M. Torres, "How
//! conditioning on posttreatment variables can ruin your experiment and
//! what to do about it", American Journal of Political Science 62(3),
//! 2018). CPU wait is measured during the run, so the assumption is that
//! it comes from the rest of the machine, not from the variant.
//!
//! # Assumptions and limits
//!
//! - The wait comes from outside the runs. A program with more runnable
//!   threads than CPUs waits for its own threads; if B does that and A does
//!   not, the rule discards blocks for B's sake and the kept blocks select
//!   B's runs with less outside contention than A's. Such a program should
//!   be measured with the rule off (or a threshold above its own wait).
//! - Bursts shorter than a block or independent from block to block, as the
//!   sequential test already assumes of the noise.
//!
//! The simulation `tests/contention_simulation.rs` (bounds) and
//! `examples/contention_simulation.rs` (the table of docs/decision.md)
//! drive [`crate::sequential::procedure::SequentialTest`] through this rule
//! as `perflab ab` does, with bursts that add a delay and a matching CPU
//! wait to random runs.

use crate::error::StatsError;

/// Default threshold: a block is measured again when one of its runs
/// waited for a CPU for more than 5% of its wall time.
///
/// Chosen by the contention simulation (docs/decision.md, "Runs that
/// waited for a CPU"; `examples/contention_simulation.rs`): with bursts on
/// 30% of runs it keeps almost all the narrowing of a 2% threshold (an
/// interval 2.58% wide at 60 pairs against 2.52%, 8.08% without the rule)
/// for fewer runs, where 10% and 20% let more of the delay through (2.96%,
/// 4.16%); where runs meet only small delays (2% on average) it measures
/// again 3 blocks per experiment where 2% measures 18; runs waiting up to
/// 0.5% of their time, as on a quiet machine, never trigger it. A run that
/// waited 5% is about 5% slower, five times the default GO threshold.
pub const DEFAULT_MAX_CPU_WAIT: f64 = 0.05;

/// How many times one block may be measured again; after that it is kept,
/// contended or not, and the output says so.
///
/// When a share p of blocks meets contention, independently, a block is
/// still contended after r repeats with probability p^(r+1): at p = 0.3,
/// 0.8% after 3 repeats, at an expected cost of 1/(1 − p) = 1.4 times the
/// runs. A machine busy all the time (p near 1) cannot give a clean block
/// however often it is asked, and the bound caps what that costs at 4 times
/// the runs. In the contention simulation, one repeat left an interval
/// 12.8% wide where 60% of runs met a burst, three 5.5%, six 3.4%; where
/// every run met one, three cost 3.9 times the runs and six 6.5 times, for
/// intervals barely narrower than without the rule.
pub const MAX_REPEATS: usize = 3;

/// What to do with a finished block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockFate {
    /// No run waited for more than the threshold: its pairs go to the test.
    Keep,
    /// A run waited for more: the block's runs are replaced by a new
    /// measurement of the block.
    MeasureAgain,
    /// A run waited for more, but the block has been measured again
    /// [`ContentionRule::max_repeats`] times: it is kept as it is.
    KeepContended,
}

/// The contention rule of a running experiment (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContentionRule {
    max_cpu_wait: f64,
    max_repeats: usize,
}

impl ContentionRule {
    /// The rule at `max_cpu_wait` (a share of wall time, in (0, 1)), with
    /// [`MAX_REPEATS`].
    ///
    /// # Errors
    /// [`StatsError::InvalidConfig`] for a share outside (0, 1).
    pub fn new(max_cpu_wait: f64) -> Result<Self, StatsError> {
        Self::with_repeats(max_cpu_wait, MAX_REPEATS)
    }

    /// The rule at `max_cpu_wait` with a bound of `max_repeats` on how many
    /// times one block is measured again.
    ///
    /// # Errors
    /// [`StatsError::InvalidConfig`] for a share outside (0, 1).
    pub fn with_repeats(max_cpu_wait: f64, max_repeats: usize) -> Result<Self, StatsError> {
        if !(max_cpu_wait > 0.0 && max_cpu_wait < 1.0) {
            return Err(StatsError::InvalidConfig {
                field: "max_cpu_wait",
                reason: format!(
                    "is {max_cpu_wait}; it is a share of a run's wall time above 0 and below 1 \
                     (0.05 for 5%)"
                ),
            });
        }
        Ok(Self {
            max_cpu_wait,
            max_repeats,
        })
    }

    /// The threshold, a share of wall time.
    pub fn max_cpu_wait(&self) -> f64 {
        self.max_cpu_wait
    }

    /// How many times one block may be measured again.
    pub fn max_repeats(&self) -> usize {
        self.max_repeats
    }

    /// Whether a block whose runs waited for these shares of their wall
    /// time is contended: some run waited for more than the threshold.
    /// `None` is a run whose wait was not measured; it never counts.
    pub fn contended(&self, wait_shares: impl IntoIterator<Item = Option<f64>>) -> bool {
        wait_shares
            .into_iter()
            .flatten()
            .any(|share| share > self.max_cpu_wait)
    }

    /// What to do with a block whose runs waited for `wait_shares` of
    /// their wall time (`None`: not measured), after it has been measured
    /// again `repeats` times already.
    pub fn fate(
        &self,
        wait_shares: impl IntoIterator<Item = Option<f64>>,
        repeats: usize,
    ) -> BlockFate {
        if !self.contended(wait_shares) {
            BlockFate::Keep
        } else if repeats < self.max_repeats {
            BlockFate::MeasureAgain
        } else {
            BlockFate::KeepContended
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_with_one_run_above_the_threshold_is_measured_again_until_the_bound() {
        let rule = ContentionRule::new(0.05).unwrap();
        let block = [Some(0.01), Some(0.2)];
        assert_eq!(rule.fate(block, 0), BlockFate::MeasureAgain);
        assert_eq!(rule.fate(block, MAX_REPEATS - 1), BlockFate::MeasureAgain);
        assert_eq!(rule.fate(block, MAX_REPEATS), BlockFate::KeepContended);
    }

    #[test]
    fn the_slot_of_the_waiting_run_does_not_matter() {
        let rule = ContentionRule::new(0.05).unwrap();
        assert_eq!(
            rule.fate([Some(0.2), Some(0.0)], 0),
            rule.fate([Some(0.0), Some(0.2)], 0)
        );
    }

    #[test]
    fn runs_without_a_measurement_or_at_the_threshold_never_trigger_it() {
        let rule = ContentionRule::new(0.05).unwrap();
        assert_eq!(rule.fate([None, None], 0), BlockFate::Keep);
        assert_eq!(rule.fate([None, Some(0.05)], 0), BlockFate::Keep);
        assert_eq!(rule.fate(Vec::<Option<f64>>::new(), 0), BlockFate::Keep);
    }

    #[test]
    fn a_threshold_outside_zero_to_one_is_refused_naming_the_field() {
        for bad in [0.0, -0.1, 1.0, f64::NAN] {
            let err = ContentionRule::new(bad).unwrap_err().to_string();
            assert!(err.contains("max_cpu_wait"), "{err}");
        }
    }
}
