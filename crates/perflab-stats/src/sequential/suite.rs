//! The sequential procedure for a suite: many cells, each a sequential A/B
//! test, with one confidence level for the whole experiment.

use perflab_format::vocabulary::Verdict;

use crate::decision::guard::GuardLimit;
use crate::error::StatsError;
use crate::multiplicity::bonferroni::bonferroni_confidence;
use crate::multiplicity::suite_summary::combine_verdicts;
use crate::sequential::config::SequentialConfig;
use crate::sequential::procedure::{Decision, SequentialTest};

/// Many [`SequentialTest`]s decided together, with the confidence level
/// holding for the whole experiment rather than for each cell.
///
/// A suite compares, in every scenario, each candidate variant with that
/// scenario's baseline; each such (scenario, candidate) pair is a *cell*,
/// numbered from 0 in the order the caller chooses. Each cell is a
/// [`SequentialTest`] fed its own interleaved pairs; a cell that decided
/// stops taking pairs; the experiment is over when every cell stopped.
///
/// Why not each cell at the experiment's level: a false GO or NO-GO in any
/// cell is a false conclusion of the experiment. With k independent cells
/// each wrong with probability α, some cell is wrong with probability
/// 1 - (1 - α)^k: 46 % for 12 cells at 95 %.
///
/// Method: every cell's test runs at the Bonferroni level
/// 1 - (1 - confidence) / cells ([`bonferroni_confidence`]). Each cell's
/// interval is a confidence sequence
/// ([`crate::sequential::robust_sequence::RobustSequence`] through
/// [`crate::sequential::procedure::SequentialTest`]), valid at every look at
/// once, so by the union bound (Bonferroni inequality) all cells' intervals
/// contain their true changes at every look simultaneously with probability at
/// least `confidence`, whatever the stopping rule, including stopping a cell
/// because it decided or the experiment because the others did. On that event
/// every verdict is true of its cell, and so is any verdict
/// [`combine_verdicts`] or
/// [`crate::multiplicity::suite_summary::summary_change`] draws from them.
///
/// Why Bonferroni and not an e-value procedure controlling the false
/// discovery rate (e-BH, Wang & Ramdas, JRSS B 84(3), 2022): a suite's
/// verdict is NO-GO as soon as one cell is NO-GO, so one false cell is a false
/// conclusion; that is the family-wise error, which Bonferroni controls and
/// the FDR does not. Bonferroni also needs no independence between cells,
/// which matters because the cells of one scenario share its baseline runs.
///
/// Assumptions: those of [`SequentialTest`] in every cell (pairs i.i.d.
/// within the cell, finite variance, the confidence sequence's asymptotic
/// validity, which is why no cell decides before `min_runs`). The benchmark
/// `decision_simulation` measures the family-wise error of this type driven
/// as a suite runner drives it. Validity being asymptotic matters more here
/// than for one test: each cell's error rate is smaller, further in the tail,
/// and needs more pairs before the promise holds. With 12 cells at 95 % and
/// looks from 10 pairs, false GO/NO-GO verdicts stayed within the budget
/// (at most 3.0 % up to 5 % noise, 5.0 % at 10 %), but some interval missed
/// its truth in about 9 % of experiments; from 20 pairs, 4.2 to 5.2 %, and
/// false verdicts at most 1.9 %. Hence the suite default
/// [`crate::sequential::config::DEFAULT_SUITE_MIN_RUNS`] ([`SequentialConfig::for_suite`]); with
/// many more cells (30 cells: 6.2 % missed), raise it further.
#[derive(Debug, Clone)]
pub struct SuiteTest {
    config: SequentialConfig,
    tests: Vec<SequentialTest>,
}

impl SuiteTest {
    /// A suite of `cells` cells with no pairs yet and no guards;
    /// `config.confidence` is the level for the whole experiment.
    ///
    /// # Errors
    /// Whatever [`SequentialConfig::validate`] reports;
    /// [`StatsError::InvalidConfig`] (field `cells`) if `cells` is 0;
    /// [`StatsError::InvalidConfidence`] if the split level rounds to 1.
    pub fn new(config: SequentialConfig, cells: usize) -> Result<Self, StatsError> {
        Self::with_guards(config, cells, Vec::new())
    }

    /// As [`SuiteTest::new`], with the same guards in every cell (see
    /// [`SequentialTest::with_guards`]).
    ///
    /// A violated guard turns a cell's GO into NO-GO, so a guard's interval
    /// can make a verdict false too: the error budget is split over every
    /// interval, cells × (1 + guards), and each cell (with its guards)
    /// decides at 1 - (1 - confidence) / (cells × (1 + guards)).
    ///
    /// # Errors
    /// As [`SuiteTest::new`] and [`SequentialTest::with_guards`].
    pub fn with_guards(
        config: SequentialConfig,
        cells: usize,
        guards: Vec<GuardLimit>,
    ) -> Result<Self, StatsError> {
        config.validate()?;
        let cell_config = SequentialConfig {
            confidence: bonferroni_confidence(
                config.confidence,
                cells.saturating_mul(1 + guards.len()),
            )?,
            ..config
        };
        let tests = (0..cells)
            .map(|_| SequentialTest::with_guards(cell_config, guards.clone()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SuiteTest { config, tests })
    }

    /// Adds one pair to `cell`; returns `Some(decision)` when that cell stops.
    ///
    /// # Errors
    /// [`StatsError::NoSuchCell`]; otherwise what [`SequentialTest::push`]
    /// reports (for example [`StatsError::AlreadyStopped`] for a cell that
    /// decided), wrapped in [`StatsError::InCell`] naming the cell.
    pub fn push(
        &mut self,
        cell: usize,
        baseline: f64,
        candidate: f64,
    ) -> Result<Option<Decision>, StatsError> {
        self.push_with_guards(cell, baseline, candidate, &[])
    }

    /// Adds one pair with the guards' (baseline, candidate) values to `cell`;
    /// returns `Some(decision)` when that cell stops.
    ///
    /// # Errors
    /// As [`SuiteTest::push`] and [`SequentialTest::push_with_guards`].
    pub fn push_with_guards(
        &mut self,
        cell: usize,
        baseline: f64,
        candidate: f64,
        guard_values: &[(f64, f64)],
    ) -> Result<Option<Decision>, StatsError> {
        let test = self.cell_mut(cell)?;
        test.push_with_guards(baseline, candidate, guard_values)
            .map_err(|e| in_cell(cell, e))
    }

    /// Adds one pair to `cell` without looking at it: for replaying a stored
    /// experiment, then [`SuiteTest::evaluate`].
    ///
    /// # Errors
    /// As [`SuiteTest::push_with_guards`].
    pub fn record(
        &mut self,
        cell: usize,
        baseline: f64,
        candidate: f64,
        guard_values: &[(f64, f64)],
    ) -> Result<(), StatsError> {
        let test = self.cell_mut(cell)?;
        test.record(baseline, candidate, guard_values)
            .map_err(|e| in_cell(cell, e))
    }

    /// The decision `cell` stopped with, if it has stopped.
    ///
    /// # Errors
    /// [`StatsError::NoSuchCell`].
    pub fn decision(&self, cell: usize) -> Result<Option<&Decision>, StatsError> {
        Ok(self.cell(cell)?.decision())
    }

    /// Whether `cell` has stopped (decided, or reached `max_runs`).
    ///
    /// # Errors
    /// [`StatsError::NoSuchCell`].
    pub fn is_cell_finished(&self, cell: usize) -> Result<bool, StatsError> {
        Ok(self.cell(cell)?.is_finished())
    }

    /// The decision of `cell` if it stopped now: [`SequentialTest::evaluate`],
    /// at the cell's (split) level, INCONCLUSIVE below `min_runs` pairs.
    ///
    /// # Errors
    /// [`StatsError::NoSuchCell`]; [`StatsError::InCell`] around what
    /// [`SequentialTest::evaluate`] reports (fewer than 2 pairs).
    pub fn evaluate(&self, cell: usize) -> Result<Decision, StatsError> {
        self.cell(cell)?.evaluate().map_err(|e| in_cell(cell, e))
    }

    /// Whether every cell has stopped: the experiment is over.
    pub fn is_finished(&self) -> bool {
        self.tests.iter().all(SequentialTest::is_finished)
    }

    /// The cells still taking pairs, in order: the ones the next round runs.
    pub fn unfinished_cells(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.tests.len()).filter(|&c| !self.tests[c].is_finished())
    }

    /// The number of cells.
    pub fn cells(&self) -> usize {
        self.tests.len()
    }

    /// The confidence level each cell decides at: 1 - (1 - confidence) / cells
    /// (cells × (1 + guards) with guards).
    pub fn cell_confidence(&self) -> f64 {
        self.tests[0].config().confidence
    }

    /// The configuration the suite was given (its confidence is the
    /// experiment's; each cell's test has [`SuiteTest::cell_confidence`]).
    pub fn config(&self) -> &SequentialConfig {
        &self.config
    }

    /// The test of one cell, for its recorded values.
    ///
    /// # Errors
    /// [`StatsError::NoSuchCell`].
    pub fn cell(&self, cell: usize) -> Result<&SequentialTest, StatsError> {
        let cells = self.tests.len();
        self.tests
            .get(cell)
            .ok_or(StatsError::NoSuchCell { cell, cells })
    }

    fn cell_mut(&mut self, cell: usize) -> Result<&mut SequentialTest, StatsError> {
        let cells = self.tests.len();
        self.tests
            .get_mut(cell)
            .ok_or(StatsError::NoSuchCell { cell, cells })
    }

    /// Every cell's current verdict, in cell order (for a cell still running,
    /// the verdict if it stopped now).
    pub fn verdicts(&self) -> Vec<Verdict> {
        self.tests.iter().map(current_verdict).collect()
    }

    /// The experiment's verdict: [`combine_verdicts`] over every cell's
    /// current verdict ([`SuiteTest::verdicts`]).
    pub fn overall_verdict(&self) -> Verdict {
        combine_verdicts(&self.verdicts())
    }
}

/// A cell's verdict now: the one it stopped with, else
/// [`SequentialTest::evaluate`]'s, INCONCLUSIVE with fewer than 2 pairs.
fn current_verdict(test: &SequentialTest) -> Verdict {
    match test.decision() {
        Some(d) => d.verdict,
        None => test.evaluate().map_or(Verdict::Inconclusive, |d| d.verdict),
    }
}

fn in_cell(cell: usize, error: StatsError) -> StatsError {
    StatsError::InCell {
        cell,
        error: Box::new(error),
    }
}
