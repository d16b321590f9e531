//! Synthetic suites of known truth: several scenarios, each with a baseline
//! and candidates, driven the way a suite runner drives [`SuiteTest`].

use perflab_stats::{Decision, SequentialConfig, SequentialTest, SuiteTest, Verdict, median};

use super::Scenario;

/// How the runs of one suite experiment are generated.
#[derive(Debug, Clone, Copy)]
pub struct SuiteScenario {
    /// Scenarios (workloads), each with its own baseline runs.
    pub scenarios: usize,
    /// Candidate variants per scenario; cell = scenario * candidates + candidate.
    pub candidates: usize,
    /// Noise, orientation and drift of every run; its `true_change` is
    /// ignored (see `changed`).
    pub runs: Scenario,
    /// The one cell whose candidate truly changed, and by how much.
    pub changed: Option<(usize, f64)>,
}

impl SuiteScenario {
    /// `scenarios` x `candidates` cells, multiplicative Gaussian noise, none changed.
    pub fn unchanged(scenarios: usize, candidates: usize, noise: f64) -> Self {
        SuiteScenario {
            scenarios,
            candidates,
            runs: Scenario::gaussian(perflab_stats::Better::Higher, 0.0, noise),
            changed: None,
        }
    }

    /// As [`SuiteScenario::unchanged`] with cell 0 changed by `change`.
    pub fn one_changed(scenarios: usize, candidates: usize, noise: f64, change: f64) -> Self {
        SuiteScenario {
            changed: Some((0, change)),
            ..Self::unchanged(scenarios, candidates, noise)
        }
    }

    pub fn cells(&self) -> usize {
        self.scenarios * self.candidates
    }

    fn true_change(&self, cell: usize) -> f64 {
        match self.changed {
            Some((c, change)) if c == cell => change,
            _ => 0.0,
        }
    }
}

/// The cells of a suite as the driver sees them: [`SuiteTest`] (the
/// procedure) or independent [`SequentialTest`]s at the full level each (the
/// uncorrected comparison).
pub trait Cells {
    fn is_cell_finished(&self, cell: usize) -> bool;
    fn push(&mut self, cell: usize, baseline: f64, candidate: f64) -> Option<Decision>;
    /// The cell's interval now, if it has at least `min_runs` pairs.
    fn interval(&self, cell: usize) -> Option<perflab_stats::Interval>;
}

impl Cells for SuiteTest {
    fn is_cell_finished(&self, cell: usize) -> bool {
        SuiteTest::is_cell_finished(self, cell).expect("cell exists")
    }
    fn push(&mut self, cell: usize, baseline: f64, candidate: f64) -> Option<Decision> {
        SuiteTest::push(self, cell, baseline, candidate).expect("synthetic values are positive")
    }
    fn interval(&self, cell: usize) -> Option<perflab_stats::Interval> {
        let test = self.cell(cell).expect("cell exists");
        (test.runs() >= test.config().min_runs).then(|| self.evaluate(cell).unwrap().interval)
    }
}

impl Cells for Vec<SequentialTest> {
    fn is_cell_finished(&self, cell: usize) -> bool {
        self[cell].is_finished()
    }
    fn push(&mut self, cell: usize, baseline: f64, candidate: f64) -> Option<Decision> {
        self[cell]
            .push(baseline, candidate)
            .expect("synthetic values are positive")
    }
    fn interval(&self, cell: usize) -> Option<perflab_stats::Interval> {
        let test = &self[cell];
        (test.runs() >= test.config().min_runs).then(|| test.evaluate().unwrap().interval)
    }
}

/// Outcome of one simulated suite experiment.
#[derive(Debug, Clone)]
pub struct SuiteOutcome {
    /// Every cell's final verdict, in cell order.
    pub verdicts: Vec<Verdict>,
    /// Pairs every cell used.
    pub runs: Vec<usize>,
    /// Whether some cell's interval excluded its true change at some look
    /// (checked only when asked: it costs a second evaluation per look).
    pub missed: bool,
}

/// Runs one suite experiment as a suite runner does: in every round, each
/// scenario with an unfinished cell runs one block (its baseline once and each
/// unfinished candidate once, in random order), and each unfinished cell gets
/// the pair (the block's baseline run, its candidate's run). Stops when every
/// cell has stopped.
pub fn suite_experiment<C: Cells>(
    rng: &mut fastrand::Rng,
    suite: &SuiteScenario,
    mut cells: C,
    check_coverage: bool,
) -> SuiteOutcome {
    let n = suite.cells();
    let mut decisions: Vec<Option<Decision>> = vec![None; n];
    let mut missed = false;
    let mut slot = 0;
    while decisions.iter().any(Option::is_none) {
        for s in 0..suite.scenarios {
            let open: Vec<usize> = (0..suite.candidates)
                .map(|j| s * suite.candidates + j)
                .filter(|&cell| !cells.is_cell_finished(cell))
                .collect();
            if open.is_empty() {
                continue;
            }
            // Block order: position 0 is the baseline, then the open candidates.
            let mut order: Vec<usize> = (0..=open.len()).collect();
            rng.shuffle(&mut order);
            let slot_of = |i: usize| slot + order.iter().position(|&o| o == i).unwrap();
            let baseline = suite.runs.run(rng, 1.0, slot_of(0));
            for (i, &cell) in open.iter().enumerate() {
                let change = suite.true_change(cell);
                let candidate = suite.runs.run(rng, 1.0 + change, slot_of(i + 1));
                decisions[cell] = cells.push(cell, baseline, candidate);
                if check_coverage
                    && !missed
                    && let Some(iv) = decisions[cell]
                        .as_ref()
                        .map(|d| d.interval)
                        .or_else(|| cells.interval(cell))
                {
                    missed = change < iv.lo || change > iv.hi;
                }
            }
            slot += open.len() + 1;
        }
    }
    let decisions: Vec<Decision> = decisions.into_iter().map(Option::unwrap).collect();
    SuiteOutcome {
        verdicts: decisions.iter().map(|d| d.verdict).collect(),
        runs: decisions.iter().map(|d| d.runs).collect(),
        missed,
    }
}

/// Counts over many suite experiments.
#[derive(Debug, Clone, Default)]
pub struct SuiteTally {
    pub experiments: u64,
    /// Experiments with a GO or NO-GO in some cell that did not change.
    pub false_anywhere: u64,
    /// Experiments in which the changed cell got the right verdict.
    pub found: u64,
    /// Experiments in which some cell's interval missed its truth at some look.
    pub missed: u64,
    /// Pairs the changed cell used (or cell 0 when none changed), per experiment.
    pub changed_runs: Vec<usize>,
    /// Rounds per experiment (pairs of the longest cell).
    pub rounds: Vec<usize>,
}

impl SuiteTally {
    pub fn median_changed_runs(&self) -> f64 {
        median_of(&self.changed_runs)
    }
    pub fn median_rounds(&self) -> f64 {
        median_of(&self.rounds)
    }
}

fn median_of(xs: &[usize]) -> f64 {
    let xs: Vec<f64> = xs.iter().map(|&r| r as f64).collect();
    median(&xs).unwrap_or(0.0)
}

/// The verdict a cell should reach for a true change (for the thresholds' defaults).
fn right_verdict(change: f64, config: &SequentialConfig) -> Option<Verdict> {
    if change >= config.thresholds.go {
        Some(Verdict::Go)
    } else if change <= config.thresholds.nogo {
        Some(Verdict::NoGo)
    } else {
        None
    }
}

/// Runs `experiments` suite experiments with a fixed seed through [`SuiteTest`]
/// at `config` (its confidence is the experiment's), or, with `corrected`
/// false, through independent tests each at `config.confidence`.
pub fn simulate_suite(
    seed: u64,
    experiments: usize,
    suite: &SuiteScenario,
    config: SequentialConfig,
    corrected: bool,
    check_coverage: bool,
) -> SuiteTally {
    let mut rng = fastrand::Rng::with_seed(seed);
    let config = SequentialConfig {
        better: suite.runs.better,
        ..config
    };
    let changed_cell = suite.changed.map_or(0, |(c, _)| c);
    let mut tally = SuiteTally::default();
    for _ in 0..experiments {
        let outcome = if corrected {
            let cells = SuiteTest::new(config, suite.cells()).expect("valid configuration");
            suite_experiment(&mut rng, suite, cells, check_coverage)
        } else {
            let cells: Vec<SequentialTest> = (0..suite.cells())
                .map(|_| SequentialTest::new(config).expect("valid configuration"))
                .collect();
            suite_experiment(&mut rng, suite, cells, check_coverage)
        };
        tally.experiments += 1;
        let false_somewhere = outcome.verdicts.iter().enumerate().any(|(cell, v)| {
            suite.true_change(cell) == 0.0 && matches!(v, Verdict::Go | Verdict::NoGo)
        });
        tally.false_anywhere += u64::from(false_somewhere);
        if let Some((cell, change)) = suite.changed {
            let right = right_verdict(change, &config);
            tally.found += u64::from(Some(outcome.verdicts[cell]) == right);
        }
        tally.missed += u64::from(outcome.missed);
        tally.changed_runs.push(outcome.runs[changed_cell]);
        tally.rounds.push(*outcome.runs.iter().max().unwrap());
    }
    tally
}
