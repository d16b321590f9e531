//! Synthetic histories of known truth for change-point detection: a metric
//! over commits with steps at known commits, shared by the simulation tests
//! and the `decision_simulation` benchmark.

use perflab_stats::{ChangePointConfig, e_divisive_means};

use super::gaussian;

/// How a series is generated.
#[derive(Debug, Clone)]
pub struct SeriesScenario {
    /// Commits in the series.
    pub commits: usize,
    /// Runs measured at each commit.
    pub runs_per_commit: usize,
    /// Multiplicative noise of one run: level * exp(noise * Z).
    pub noise: f64,
    /// Extra noise shared by the runs of one commit (machine state of the
    /// day): violates the method's assumption; 0 for the main rows.
    pub commit_noise: f64,
    /// The steps: (first commit at the new level, relative change of the level).
    pub steps: Vec<(usize, f64)>,
}

/// What one detection found against the truth.
#[derive(Debug, Clone, Default)]
pub struct SeriesOutcome {
    /// Every change point reported, as the first commit after it.
    pub found: Vec<usize>,
    /// For each true step: the distance to the nearest reported change
    /// point, if any was reported.
    pub errors: Vec<Option<usize>>,
}

impl SeriesScenario {
    /// The series' runs, grouped by commit.
    pub fn draw(&self, rng: &mut fastrand::Rng) -> Vec<Vec<f64>> {
        let mut level = 1000.0;
        (0..self.commits)
            .map(|c| {
                for &(at, change) in &self.steps {
                    if at == c {
                        level *= 1.0 + change;
                    }
                }
                let shared = self.commit_noise * gaussian(rng);
                (0..self.runs_per_commit)
                    .map(|_| level * (shared + self.noise * gaussian(rng)).exp())
                    .collect()
            })
            .collect()
    }
}

/// One series drawn and judged.
pub fn detect(
    rng: &mut fastrand::Rng,
    scenario: &SeriesScenario,
    config: &ChangePointConfig,
) -> SeriesOutcome {
    let groups = scenario.draw(rng);
    let found: Vec<usize> = e_divisive_means(&groups, config)
        .expect("simulated values are positive")
        .iter()
        .map(|c| c.group)
        .collect();
    let errors = scenario
        .steps
        .iter()
        .map(|&(at, _)| found.iter().map(|&f| f.abs_diff(at)).min())
        .collect();
    SeriesOutcome { found, errors }
}
