//! Synthetic A/B experiments on a machine with bursts of contention, of
//! known truth, decided by the same [`SequentialTest`] `perflab ab` runs,
//! with and without the [`ContentionRule`] in front of it, applied as the
//! engine applies it: every block (A and B in random order) is judged on its
//! runs' CPU wait alone, and measured again, at most the rule's bound of
//! times, when a run waited for more than the threshold.
//!
//! A run's time is its variant's level times log-normal noise, plus a small
//! CPU wait every run has (a quiet machine's), plus, when a burst hits it,
//! a delay drawn from an exponential distribution whose whole length the
//! run spent waiting for a CPU: the delay and the wait match, as they do
//! when other processes take the run's CPU. Bursts hit runs independently,
//! whichever variant they are of.

use perflab_stats::{BlockFate, ContentionRule, SequentialConfig, SequentialTest, Verdict, median};

use super::gaussian;

/// How the runs of one experiment are generated.
#[derive(Debug, Clone, Copy)]
pub struct ContentionScenario {
    /// True relative change of B's wall time (positive = faster): B's level
    /// is A's divided by 1 + change.
    pub true_change: f64,
    /// Run-to-run noise: the run's time is multiplied by exp(noise · Z).
    pub noise: f64,
    /// The share of runs a burst of contention hits.
    pub burst_probability: f64,
    /// The mean delay a burst adds, as a share of the run's own time
    /// (exponentially distributed, so some bursts are short).
    pub burst_delay: f64,
    /// The CPU wait of a run outside bursts is uniform between 0 and this
    /// share of its time (and adds to it).
    pub quiet_wait: f64,
    /// B's runs also wait for their own threads, uniformly up to this
    /// share of their time, without being slower for it (it is part of B's
    /// level): a wait that depends on the variant, which the rule assumes
    /// away.
    pub own_wait_b: f64,
}

impl ContentionScenario {
    /// 2% noise, a quiet machine's waits (up to 0.5%), and bursts hitting
    /// `burst_probability` of the runs with a mean delay of 30%.
    pub fn bursts(true_change: f64, burst_probability: f64) -> Self {
        ContentionScenario {
            true_change,
            noise: 0.02,
            burst_probability,
            burst_delay: 0.3,
            quiet_wait: 0.005,
            own_wait_b: 0.0,
        }
    }

    /// One run of `variant` (0 for A, 1 for B) at `level`: its wall time
    /// and its CPU wait as a share of it.
    fn run(&self, rng: &mut fastrand::Rng, variant: usize, level: f64) -> (f64, f64) {
        let own = level * (self.noise * gaussian(rng)).exp();
        let mut wait = own * self.quiet_wait * rng.f64();
        if rng.f64() < self.burst_probability {
            wait += own * self.burst_delay * -(1.0 - rng.f64()).ln();
        }
        let wall = own + wait;
        // Drawn last, and only when set, so that the other scenarios see
        // the random numbers they would without it.
        let own_wait = if variant == 1 && self.own_wait_b > 0.0 {
            own * self.own_wait_b * rng.f64()
        } else {
            0.0
        };
        (wall, (wait + own_wait) / wall)
    }
}

/// Outcome of one simulated experiment.
#[derive(Debug, Clone, Copy)]
pub struct ContentionOutcome {
    /// The verdict it stopped with.
    pub verdict: Verdict,
    /// Pairs the decision rests on.
    pub pairs: usize,
    /// Runs made, replaced ones included.
    pub runs: usize,
    /// Blocks measured again.
    pub measured_again: usize,
    /// Blocks kept contended at the bound.
    pub kept_contended: usize,
    /// The final estimate of the change.
    pub change: f64,
    /// Width of the final interval of the change (hi − lo).
    pub width: f64,
    /// Whether the final interval missed the true change.
    pub missed: bool,
}

/// One experiment: blocks of A and B in random order until the sequential
/// test stops, each block judged by `rule` (none: every block kept).
pub fn contention_experiment(
    rng: &mut fastrand::Rng,
    scenario: &ContentionScenario,
    config: SequentialConfig,
    rule: Option<ContentionRule>,
) -> ContentionOutcome {
    let mut test = SequentialTest::new(config).expect("valid configuration");
    let levels = [1.0, 1.0 / (1.0 + scenario.true_change)];
    let (mut runs, mut measured_again, mut kept_contended) = (0, 0, 0);
    loop {
        let mut repeats = 0;
        let block = loop {
            // Random order within the block, as the schedule draws it.
            let order = if rng.bool() { [0, 1] } else { [1, 0] };
            let mut block = [(0.0, 0.0); 2];
            for variant in order {
                block[variant] = scenario.run(rng, variant, levels[variant]);
            }
            runs += 2;
            let fate = rule.map_or(BlockFate::Keep, |r| {
                r.fate(block.iter().map(|&(_, share)| Some(share)), repeats)
            });
            match fate {
                BlockFate::Keep => break block,
                BlockFate::KeepContended => {
                    kept_contended += 1;
                    break block;
                }
                BlockFate::MeasureAgain => {
                    repeats += 1;
                    measured_again += 1;
                }
            }
        };
        let stopped = test
            .push(block[0].0, block[1].0)
            .expect("synthetic times are positive");
        if let Some(d) = stopped {
            let truth = scenario.true_change;
            return ContentionOutcome {
                verdict: d.verdict,
                pairs: d.runs,
                runs,
                measured_again,
                kept_contended,
                change: d.interval.estimate,
                width: d.interval.hi - d.interval.lo,
                missed: truth < d.interval.lo || truth > d.interval.hi,
            };
        }
    }
}

/// What many experiments of one scenario gave.
#[derive(Debug, Clone, Default)]
pub struct ContentionTally {
    pub outcomes: Vec<ContentionOutcome>,
}

impl ContentionTally {
    /// Experiments simulated.
    pub fn experiments(&self) -> usize {
        self.outcomes.len()
    }

    /// Experiments that ended with `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.outcomes
            .iter()
            .filter(|o| o.verdict == verdict)
            .count()
    }

    /// Experiments whose final interval missed the truth.
    pub fn missed(&self) -> usize {
        self.outcomes.iter().filter(|o| o.missed).count()
    }

    /// Median of a figure over the experiments.
    pub fn median_of(&self, figure: impl Fn(&ContentionOutcome) -> f64) -> f64 {
        let xs: Vec<f64> = self.outcomes.iter().map(figure).collect();
        median(&xs).unwrap_or(0.0)
    }

    /// Mean of a figure over the experiments.
    pub fn mean_of(&self, figure: impl Fn(&ContentionOutcome) -> f64) -> f64 {
        let total: f64 = self.outcomes.iter().map(figure).sum();
        total / self.outcomes.len().max(1) as f64
    }
}

/// `experiments` experiments of `scenario`, from a fixed seed.
pub fn simulate_contention(
    seed: u64,
    experiments: usize,
    scenario: &ContentionScenario,
    config: SequentialConfig,
    rule: Option<ContentionRule>,
) -> ContentionTally {
    let mut rng = fastrand::Rng::with_seed(seed);
    ContentionTally {
        outcomes: (0..experiments)
            .map(|_| contention_experiment(&mut rng, scenario, config, rule))
            .collect(),
    }
}
