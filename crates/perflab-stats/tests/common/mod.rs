//! Synthetic A/B experiments of known truth, shared by the simulation tests and
//! the `decision_simulation` benchmark (which includes this file by path).
#![allow(dead_code)]

pub mod contention;
pub mod series;
pub mod suite;

use perflab_stats::descriptive::location_and_spread::mean;
use perflab_stats::{
    Better, SequentialConfig, SequentialTest, Thresholds, Verdict, relative_change,
};

/// How runs of one experiment are generated.
#[derive(Debug, Clone, Copy)]
pub struct Scenario {
    /// Which direction is better for the simulated metric.
    pub better: Better,
    /// True relative change of the candidate (positive = better), e.g. 0.03.
    pub true_change: f64,
    /// Multiplicative Gaussian noise: value * (1 + noise * Z).
    pub noise: f64,
    /// Heavy tail: with this probability a run is `tail_penalty` worse (slower).
    pub tail_probability: f64,
    /// How much worse a tail run is, e.g. 0.2 for 20 %.
    pub tail_penalty: f64,
    /// Machine drift: each run (in wall-clock order) is this fraction worse than the one before.
    pub drift_per_run: f64,
    /// Degrees of freedom of Student-t noise (heavy tails: 3 has no
    /// skewness or kurtosis); 0 for Gaussian noise.
    pub noise_df: u32,
    /// Interference from the rest of the machine: with this probability a
    /// run falls into a burst that makes it `burst_penalty` slower.
    pub burst_probability: f64,
    /// How much slower a run in a burst is, e.g. 0.3 for 30 %.
    pub burst_penalty: f64,
    /// Duet mode: A and B of a pair run at the same time, so a burst falls
    /// on both alike (one draw per pair instead of one per run), and each
    /// runs on a CPU of its own, swapped every pair.
    pub duet: bool,
    /// In duet mode, how much slower a run is on the second CPU than on
    /// the first (one that serves more interrupts, say).
    pub cpu_asymmetry: f64,
}

impl Scenario {
    /// Gaussian noise only.
    pub fn gaussian(better: Better, true_change: f64, noise: f64) -> Self {
        Scenario {
            better,
            true_change,
            noise,
            tail_probability: 0.0,
            tail_penalty: 0.0,
            drift_per_run: 0.0,
            noise_df: 0,
            burst_probability: 0.0,
            burst_penalty: 0.0,
            duet: false,
            cpu_asymmetry: 0.0,
        }
    }

    /// The slowdowns of pair `pair`'s runs of A and B from bursts and CPUs
    /// (1 = none). Draws nothing without bursts, so that scenarios without
    /// them see the random numbers they always saw.
    fn pair_slowdowns(&self, rng: &mut fastrand::Rng, pair: usize) -> (f64, f64) {
        if !self.duet {
            return (self.burst(rng), self.burst(rng));
        }
        let both = self.burst(rng);
        let cpus = [1.0, 1.0 + self.cpu_asymmetry];
        let (a, b) = if pair % 2 == 0 {
            (cpus[0], cpus[1])
        } else {
            (cpus[1], cpus[0])
        };
        (both * a, both * b)
    }

    /// The slowdown of one run from bursts (1 = none); draws nothing
    /// without bursts.
    fn burst(&self, rng: &mut fastrand::Rng) -> f64 {
        if self.burst_probability > 0.0 && rng.f64() < self.burst_probability {
            1.0 + self.burst_penalty
        } else {
            1.0
        }
    }

    /// A run's value made `slowdown` times slower.
    fn slowed(&self, value: f64, slowdown: f64) -> f64 {
        match self.better {
            Better::Higher => value / slowdown,
            Better::Lower => value * slowdown,
        }
    }

    /// One run of a variant with the given performance factor (1 for A,
    /// 1 + true_change for B) started at wall-clock slot `slot`.
    fn run(&self, rng: &mut fastrand::Rng, performance: f64, slot: usize) -> f64 {
        let z = match self.noise_df {
            0 => gaussian(rng),
            df => student_t(rng, df),
        };
        // Floor: a Student-t draw can be many noise units away; a run is
        // never faster than ten times its variant's speed.
        let mut perf = performance * (1.0 + self.noise * z).max(0.1);
        if rng.f64() < self.tail_probability {
            perf /= 1.0 + self.tail_penalty;
        }
        perf /= 1.0 + self.drift_per_run * slot as f64;
        let base = 1000.0;
        match self.better {
            Better::Higher => base * perf,
            Better::Lower => base / perf,
        }
    }
}

/// Standard normal deviate (Box-Muller).
pub fn gaussian(rng: &mut fastrand::Rng) -> f64 {
    let u1 = 1.0 - rng.f64(); // (0, 1]
    let u2 = rng.f64();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// Student-t deviate with `df` degrees of freedom, scaled to unit standard
/// deviation when df > 2: Z / sqrt(chi²_df / df), chi² as a sum of squares.
pub fn student_t(rng: &mut fastrand::Rng, df: u32) -> f64 {
    let chi2: f64 = (0..df).map(|_| gaussian(rng).powi(2)).sum();
    let t = gaussian(rng) / (chi2 / df as f64).sqrt();
    if df > 2 {
        t * ((df as f64 - 2.0) / df as f64).sqrt()
    } else {
        t
    }
}

/// Outcome of one simulated experiment.
#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    /// Verdict of the sequential procedure.
    pub verdict: Verdict,
    /// Pairs it used.
    pub runs: usize,
    /// Verdict of the ten-run rule (10 runs of A, then 10 of B, mean gain vs thresholds).
    pub ten_run_rule: Verdict,
}

/// Runs one experiment: the sequential procedure on interleaved pairs (random
/// order inside each pair) and, on the first ten runs of each variant measured
/// all-A-then-all-B, the ten-run rule.
pub fn experiment(
    rng: &mut fastrand::Rng,
    scenario: &Scenario,
    config: SequentialConfig,
) -> Outcome {
    let mut test = SequentialTest::new(config).expect("valid configuration");
    let candidate_perf = 1.0 + scenario.true_change;
    let mut decision = None;
    for pair in 0..config.max_runs {
        let (slot_a, slot_b) = if rng.bool() {
            (2 * pair, 2 * pair + 1)
        } else {
            (2 * pair + 1, 2 * pair)
        };
        let a = scenario.run(rng, 1.0, slot_a);
        let b = scenario.run(rng, candidate_perf, slot_b);
        let (slow_a, slow_b) = scenario.pair_slowdowns(rng, pair);
        let (a, b) = (scenario.slowed(a, slow_a), scenario.slowed(b, slow_b));
        if let Some(d) = test.push(a, b).expect("synthetic values are positive") {
            decision = Some(d);
            break;
        }
    }
    let d = decision.expect("the procedure stops by max_runs");
    // One after the other: a run meets a burst of its own.
    let mut by_hand = |perf, slot| {
        let value = scenario.run(rng, perf, slot);
        scenario.slowed(value, scenario.burst(rng))
    };
    let a: Vec<f64> = (0..10).map(|i| by_hand(1.0, i)).collect();
    let b: Vec<f64> = (0..10).map(|i| by_hand(candidate_perf, 10 + i)).collect();
    Outcome {
        verdict: d.verdict,
        runs: d.runs,
        ten_run_rule: ten_run_rule(&a, &b, scenario.better, &config.thresholds),
    }
}

/// The ten-run rule of investigations done by hand (10 runs of A, then 10 of B): GO if the mean gain >= go, NO-GO if <= nogo, else NEUTRAL.
pub fn ten_run_rule(a: &[f64], b: &[f64], better: Better, th: &Thresholds) -> Verdict {
    let gain = relative_change(mean(a).unwrap(), mean(b).unwrap(), better).unwrap();
    if gain >= th.go {
        Verdict::Go
    } else if gain <= th.nogo {
        Verdict::NoGo
    } else {
        Verdict::Neutral
    }
}

/// Counts of verdicts over many experiments.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub experiments: u64,
    pub go: u64,
    pub nogo: u64,
    pub neutral: u64,
    pub inconclusive: u64,
    pub runs: Vec<usize>,
    pub seed_go: u64,
    pub seed_nogo: u64,
    pub seed_neutral: u64,
}

impl Tally {
    pub fn add(&mut self, o: &Outcome) {
        self.experiments += 1;
        match o.verdict {
            Verdict::Go => self.go += 1,
            Verdict::NoGo => self.nogo += 1,
            Verdict::Neutral => self.neutral += 1,
            Verdict::Inconclusive => self.inconclusive += 1,
        }
        match o.ten_run_rule {
            Verdict::Go => self.seed_go += 1,
            Verdict::NoGo => self.seed_nogo += 1,
            _ => self.seed_neutral += 1,
        }
        self.runs.push(o.runs);
    }

    pub fn count(&self, v: Verdict) -> u64 {
        match v {
            Verdict::Go => self.go,
            Verdict::NoGo => self.nogo,
            Verdict::Neutral => self.neutral,
            Verdict::Inconclusive => self.inconclusive,
        }
    }

    pub fn seed_count(&self, v: Verdict) -> u64 {
        match v {
            Verdict::Go => self.seed_go,
            Verdict::NoGo => self.seed_nogo,
            Verdict::Neutral => self.seed_neutral,
            Verdict::Inconclusive => 0,
        }
    }

    /// Median number of pairs over all experiments.
    pub fn median_runs(&self) -> f64 {
        let xs: Vec<f64> = self.runs.iter().map(|&r| r as f64).collect();
        perflab_stats::median(&xs).unwrap_or(0.0)
    }

    /// Fraction of the experiments.
    pub fn rate(&self, n: u64) -> f64 {
        n as f64 / self.experiments as f64
    }
}

/// Runs `experiments` experiments of `scenario` with a fixed seed.
pub fn simulate(
    seed: u64,
    experiments: usize,
    scenario: &Scenario,
    config: SequentialConfig,
) -> Tally {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut tally = Tally::default();
    for _ in 0..experiments {
        tally.add(&experiment(&mut rng, scenario, config));
    }
    tally
}

/// Runs the decision's interval ([`perflab_stats::paired_log_interval`], the
/// robust sequence) on `max_runs` interleaved pairs without stopping and reports whether, at
/// any look from `min_runs` on, its interval excluded the true relative
/// change (a miss). The CS promises this happens with probability of about
/// 1 - confidence or less.
pub fn cs_misses(rng: &mut fastrand::Rng, scenario: &Scenario, config: SequentialConfig) -> bool {
    let cs = perflab_stats::ConfidenceSequence::new(config.confidence, config.optimise_at).unwrap();
    // True location of the log gains. Both variants' noise has the same
    // distribution, so the gains are symmetric about ln(1 + change): tails and
    // bursts hit both variants alike.
    let truth = (1.0 + scenario.true_change).ln();
    let (mut baseline, mut candidate) = (Vec::new(), Vec::new());
    let candidate_perf = 1.0 + scenario.true_change;
    for pair in 0..config.max_runs {
        baseline.push(scenario.run(rng, 1.0, 2 * pair));
        candidate.push(scenario.run(rng, candidate_perf, 2 * pair + 1));
        if baseline.len() >= config.min_runs.max(2) {
            let iv = perflab_stats::sequential::paired::paired_log_interval(
                &baseline,
                &candidate,
                scenario.better,
                &cs,
            )
            .unwrap();
            let (lo, hi) = (iv.lo, iv.hi);
            if truth < lo || truth > hi {
                return true;
            }
        }
    }
    false
}

/// Fraction of `experiments` runs of [`cs_misses`] that missed, as (misses, experiments).
pub fn cs_miss_count(
    seed: u64,
    experiments: usize,
    scenario: &Scenario,
    config: SequentialConfig,
) -> (u64, u64) {
    let mut rng = fastrand::Rng::with_seed(seed);
    let misses = (0..experiments)
        .filter(|_| cs_misses(&mut rng, scenario, config))
        .count();
    (misses as u64, experiments as u64)
}
