//! The confirmation rows of the decision simulation: a history of 20
//! commits judged as `perflab history` judges it (E-divisive means, each
//! change point's segments by `decide_fixed_samples`), then each change
//! point judged GO or NO-GO put to an interleaved A/B of fresh pairs, run
//! by `SequentialTest` at the history's confidence split over those change
//! points, as `perflab history --confirm` runs it: either with the
//! default run limit, or planned by `confirmation_size` (the function the
//! command calls) and going on while a verdict is within reach
//! (`SequentialConfig::planned`, the configuration the command uses).

use perflab_stats::{
    Better, CONFIRMATION_MAX_PAIRS, ChangePointConfig, DEFAULT_CONFIDENCE, DEFAULT_MAX_RUNS,
    DEFAULT_MIN_RUNS, FoundChange, SequentialConfig, SequentialTest, Thresholds, Verdict,
    bonferroni_confidence, confirmation_size, decide_fixed_samples, e_divisive_means,
};

use crate::common::gaussian;
use crate::common::series::SeriesScenario;
use crate::wilson;

const HISTORIES: usize = 400;
const COMMITS: usize = 20;
const RUNS_PER_COMMIT: usize = 10;
/// The commit a step starts at (as in scripts/bench-busy-history.sh).
const STEP_AT: usize = 10;
/// A change point this close to the step counts as the step's.
const TOLERANCE: usize = 2;

struct ConfirmationRow {
    label: &'static str,
    /// The runs' noise (log scale).
    noise: f64,
    /// How much longer runs get at the step (0: none).
    longer_by: f64,
    /// A load that makes runs this much longer while it is on, for commits
    /// 6-10 and 16-20 (0: none), as scripts/bench-busy-history.sh puts it:
    /// the step's commit is the first after the load went.
    load: f64,
}

fn rows() -> Vec<ConfirmationRow> {
    let row = |label, noise, longer_by, load| ConfirmationRow {
        label,
        noise,
        longer_by,
        load,
    };
    vec![
        row("5% longer, 2% noise", 0.02, 0.05, 0.0),
        row("5% longer, 5% noise", 0.05, 0.05, 0.0),
        row("5% longer, 9% noise", 0.09, 0.05, 0.0),
        row("3% longer, 5% noise", 0.05, 0.03, 0.0),
        row("none, 5% noise, load", 0.05, 0.0, 0.3),
        row("none, 9% noise, load", 0.09, 0.0, 0.3),
        row("5% longer, 5% noise, load", 0.05, 0.05, 0.3),
        row("5% longer, 9% noise, load", 0.09, 0.05, 0.3),
    ]
}

impl ConfirmationRow {
    /// The history's levels: (first commit at a new level, relative change).
    fn steps(&self) -> Vec<(usize, f64)> {
        let code = 1.0 + self.longer_by;
        let mut steps = Vec::new();
        if self.load > 0.0 {
            steps.push((5, self.load));
            steps.push((STEP_AT, code / (1.0 + self.load) - 1.0));
            steps.push((15, self.load));
        } else if self.longer_by > 0.0 {
            steps.push((STEP_AT, self.longer_by));
        }
        steps
    }
}

/// A confirming A/B's verdict and the pairs it used.
struct Confirmed {
    verdict: Verdict,
    runs: usize,
}

/// An A/B of fresh pairs of the commits around a change point (truth:
/// `true_change`, relative, positive is better), at most `max_runs` pairs,
/// planned for `planned` (with the reach rule) when given.
fn confirm(
    rng: &mut fastrand::Rng,
    row: &ConfirmationRow,
    true_change: f64,
    confidence: f64,
    max_runs: usize,
    planned: Option<usize>,
) -> Confirmed {
    let mut config = SequentialConfig::tuned(
        Better::Lower,
        Thresholds::default(),
        confidence,
        DEFAULT_MIN_RUNS,
        max_runs,
    );
    if let Some(planned) = planned {
        config = config.planned(planned);
    }
    let mut test = SequentialTest::new(config).expect("valid configuration");
    let run = |rng: &mut fastrand::Rng, level: f64| level * (row.noise * gaussian(rng)).exp();
    let later = 1.0 / (1.0 + true_change);
    for _ in 0..max_runs {
        let (a, b) = (run(rng, 1000.0), run(rng, 1000.0 * later));
        if let Some(d) = test.push(a, b).expect("synthetic values are positive") {
            return Confirmed {
                verdict: d.verdict,
                runs: d.runs,
            };
        }
    }
    unreachable!("the procedure stops by max_runs")
}

#[derive(Default)]
struct Tally {
    histories: u64,
    /// Histories in which the step's change point was judged GO or NO-GO.
    judged: u64,
    /// Of those, the A/B found the regression (NO-GO), with 60 pairs / planned.
    by_default: u64,
    planned: u64,
    /// Histories in which an A/B of two commits of the same code decided
    /// GO or NO-GO (a change point of the machine passing for the code's).
    false_by_default: u64,
    false_planned: u64,
    plans: Vec<usize>,
    used: Vec<usize>,
    used_same_code: Vec<usize>,
}

fn median(mut xs: Vec<usize>) -> String {
    if xs.is_empty() {
        return "-".into();
    }
    xs.sort_unstable();
    let n = xs.len();
    let m = if n % 2 == 1 {
        xs[n / 2] as f64
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) as f64 / 2.0
    };
    format!("{m}")
}

pub fn confirmation_rows(seed: u64) {
    let config = ChangePointConfig::new(DEFAULT_CONFIDENCE);
    let thresholds = Thresholds::default();
    println!(
        "\nConfirming a history's change points (`perflab history --confirm`): {HISTORIES} histories per row of {COMMITS} commits x {RUNS_PER_COMMIT} runs,"
    );
    println!(
        "the code's step (runs longer) at commit {}; 'load': runs 30% longer while a load is on, commits 6-10 and 16-20.",
        STEP_AT + 1
    );
    println!(
        "Change points by E-divisive means at {DEFAULT_CONFIDENCE}, judged between their segments (Hodges-Lehmann); each judged GO or NO-GO is put"
    );
    println!(
        "to an A/B of fresh pairs at {DEFAULT_CONFIDENCE} split over them: '60' = at most {DEFAULT_MAX_RUNS} pairs (the run limit before), 'planned' = planned by"
    );
    println!(
        "`confirmation_size` (90% power, {DEFAULT_MAX_RUNS} to {cap}) and going on to {cap} while a verdict is within reach.",
        cap = CONFIRMATION_MAX_PAIRS
    );
    println!(
        "'judged' = histories whose step got a change point judged GO or NO-GO; 'found' = of those, the A/B decided NO-GO (the code's regression);"
    );
    println!(
        "'false' = histories in which an A/B of two commits of the same code decided GO or NO-GO. Pairs: median plan, median used (step; same code)."
    );
    println!(
        "{:<28} {:>6} {:<22} {:<22} {:<20} {:<20} {:>5} {:>5} {:>5}",
        "truth",
        "judged",
        "found, 60",
        "found, planned",
        "false, 60",
        "false, planned",
        "plan",
        "used",
        "same"
    );
    for (i, row) in rows().into_iter().enumerate() {
        let mut rng = fastrand::Rng::with_seed(seed + 9000 + i as u64);
        let mut t = Tally::default();
        let scenario = SeriesScenario {
            commits: COMMITS,
            runs_per_commit: RUNS_PER_COMMIT,
            noise: row.noise,
            commit_noise: 0.0,
            steps: row.steps(),
        };
        let true_step = 1.0 / (1.0 + row.longer_by) - 1.0;
        for _ in 0..HISTORIES {
            t.histories += 1;
            let groups = scenario.draw(&mut rng);
            let found: Vec<usize> = e_divisive_means(&groups, &config)
                .expect("simulated values are positive")
                .iter()
                .map(|c| c.group)
                .collect();
            let mut bounds = vec![0];
            bounds.extend(&found);
            bounds.push(COMMITS);
            // Each change point with its segments, as `perflab history` judges it.
            let judged: Vec<(usize, FoundChange, usize, usize)> = (1..bounds.len() - 1)
                .filter_map(|k| {
                    let (start, at, end) = (bounds[k - 1], bounds[k], bounds[k + 1]);
                    let pooled = |r: std::ops::Range<usize>| -> Vec<f64> {
                        groups[r].iter().flatten().copied().collect()
                    };
                    let d = decide_fixed_samples(
                        &pooled(start..at),
                        &pooled(at..end),
                        Better::Lower,
                        &thresholds,
                        DEFAULT_CONFIDENCE,
                    )
                    .ok()?;
                    matches!(d.verdict, Verdict::Go | Verdict::NoGo).then_some((
                        at,
                        FoundChange {
                            change: d.interval.estimate,
                            interval: Some([d.interval.lo, d.interval.hi]),
                            confidence: DEFAULT_CONFIDENCE,
                        },
                        start,
                        end,
                    ))
                })
                .collect();
            if judged.is_empty() {
                continue;
            }
            let split = bonferroni_confidence(DEFAULT_CONFIDENCE, judged.len())
                .expect("a valid confidence");
            let (mut false_default, mut false_planned) = (false, false);
            for &(at, found, start, end) in &judged {
                // The commits on either side of a change point run the same
                // code unless the code's step lies between them.
                let is_step = row.longer_by > 0.0 && at.abs_diff(STEP_AT) <= TOLERANCE;
                let truth = if is_step && at == STEP_AT {
                    true_step
                } else {
                    0.0
                };
                let refs: Vec<&[f64]> = groups[start..end].iter().map(Vec::as_slice).collect();
                let size = confirmation_size(&refs, &found, &thresholds, split);
                let by_default = confirm(&mut rng, &row, truth, split, DEFAULT_MAX_RUNS, None);
                let planned = confirm(
                    &mut rng,
                    &row,
                    truth,
                    split,
                    CONFIRMATION_MAX_PAIRS,
                    Some(size.planned_runs),
                );
                let decided = |v: Verdict| matches!(v, Verdict::Go | Verdict::NoGo);
                if truth != 0.0 {
                    t.judged += 1;
                    t.by_default += u64::from(by_default.verdict == Verdict::NoGo);
                    t.planned += u64::from(planned.verdict == Verdict::NoGo);
                    t.plans.push(size.planned_runs);
                    t.used.push(planned.runs);
                } else {
                    false_default |= decided(by_default.verdict);
                    false_planned |= decided(planned.verdict);
                    t.used_same_code.push(planned.runs);
                }
            }
            t.false_by_default += u64::from(false_default);
            t.false_planned += u64::from(false_planned);
        }
        let of_judged = |n: u64| {
            if t.judged == 0 {
                "-".to_string()
            } else {
                wilson(n, t.judged)
            }
        };
        println!(
            "{:<28} {:>6} {:<22} {:<22} {:<20} {:<20} {:>5} {:>5} {:>5}",
            row.label,
            t.judged,
            of_judged(t.by_default),
            of_judged(t.planned),
            wilson(t.false_by_default, t.histories),
            wilson(t.false_planned, t.histories),
            median(t.plans),
            median(t.used),
            median(t.used_same_code),
        );
    }
}
