//! Duet blocks: one run of A and one of B started at the same moment on
//! two threads, each pinned to a CPU of its own (the variants swap CPUs
//! and threads every block), so
//! that a burst of interference from the rest of the machine falls on both
//! runs of the pair and cancels in their ratio (Bulej et al., ICPE 2020).
//! The pair then goes to the same decision as an interleaved block.

use std::sync::Barrier;
use std::time::Instant;

use perflab_format::duet::{DuetDoc, DuetPairDoc};
use perflab_runner::{CpuSet, Executor, RunOutcome, RunSpec, interrupted};

use crate::error::{Error, Result};
use crate::machine::warnings::LOAD_PER_CPU_WARNING;
use perflab_format::machine::MachineDoc;

use crate::engine::{RunMaker, RunRequest};

/// Below this median overlap the pairs did not run together for most of
/// their length, and the report says so.
const LOW_OVERLAP: f64 = 0.5;
/// CPU time above wall time by more than this share (and [`CPU_SLACK_S`])
/// shows a run used more than one core; below it is rounding of the
/// kernel's accounting.
const CPU_MARGIN: f64 = 0.1;
/// Absolute slack of the CPU-time check, for very short runs.
const CPU_SLACK_S: f64 = 0.005;

/// The duet mode's second executor and what its blocks recorded.
pub struct Duet {
    cpus: [usize; 2],
    partner: Box<dyn Executor + Send>,
    blocks: usize,
    origin: Instant,
    pairs: Vec<DuetPairDoc>,
}

/// A run made on one thread: its outcome and when it started and ended.
type Timed = (perflab_runner::Result<RunOutcome>, Instant, Instant);

impl Duet {
    /// Duet blocks on `cpus`, with a partner of `executor` for B's runs.
    pub fn new(cpus: [usize; 2], executor: &mut dyn Executor) -> Result<Self> {
        let partner = executor.duet_partner().ok_or_else(|| {
            Error::usage(
                "--duet",
                "this way of running cannot start two runs at once; drop --duet",
            )
        })?;
        Ok(Self {
            cpus,
            partner,
            blocks: 0,
            origin: Instant::now(),
            pairs: Vec::new(),
        })
    }

    /// One block: A (on `executor`) and B (on the partner) started
    /// together, then stored and checked in that order. `None` when
    /// Ctrl-C stopped it.
    pub fn block(
        &mut self,
        executor: &mut dyn Executor,
        maker: &mut RunMaker,
        requests: [&RunRequest; 2],
    ) -> Result<Option<[RunOutcome; 2]>> {
        if interrupted() {
            return Ok(None);
        }
        // Swapped every block, so that neither variant keeps the CPU that
        // serves more of the machine's interrupts.
        let cpus = if self.blocks % 2 == 0 {
            self.cpus
        } else {
            [self.cpus[1], self.cpus[0]]
        };
        self.blocks += 1;
        let specs = [0, 1].map(|slot| {
            let cpu = CpuSet::parse(&cpus[slot].to_string()).expect("a CPU number is a CPU list");
            maker.spec(requests[slot].variant, slot, Some(cpu))
        });
        // The variants also swap threads and executors with the CPUs, so
        // that each (thread, CPU) position hosts A and B in turn and any
        // difference between the positions cancels like the CPUs' does.
        let [a, b] = if self.blocks % 2 == 1 {
            together(executor, self.partner.as_mut(), [&specs[0], &specs[1]])
        } else {
            let [b, a] = together(executor, self.partner.as_mut(), [&specs[1], &specs[0]]);
            [a, b]
        };
        let seconds = |t: Instant| t.saturating_duration_since(self.origin).as_secs_f64();
        let times = [[seconds(a.1), seconds(a.2)], [seconds(b.1), seconds(b.2)]];
        let Some(run_a) = maker.keep(requests[0], a.0)? else {
            return Ok(None);
        };
        let Some(run_b) = maker.keep(requests[1], b.0)? else {
            return Ok(None);
        };
        // Between two pairs: a pair's runs have company of their own, so
        // nothing is done beside them.
        maker.write_full_batch()?;
        if !requests[0].warmup {
            self.pairs
                .push(DuetPairDoc::new(cpus[0], times[0], times[1]));
        }
        Ok(Some([run_a, run_b]))
    }

    /// Forgets the last measured pair, whose block the contention rule
    /// replaced by a new measurement.
    pub fn forget_last_pair(&mut self) {
        self.pairs.pop();
    }

    /// The section of the result document; `None` before the first pair.
    pub fn doc(&self) -> Option<DuetDoc> {
        let mut overlaps: Vec<f64> = self.pairs.iter().map(|p| p.overlap).collect();
        if overlaps.is_empty() {
            return None;
        }
        overlaps.sort_unstable_by(f64::total_cmp);
        let n = overlaps.len();
        let median = if n % 2 == 1 {
            overlaps[n / 2]
        } else {
            (overlaps[n / 2 - 1] + overlaps[n / 2]) / 2.0
        };
        Some(DuetDoc {
            cpus: self.cpus,
            median_overlap: median,
            min_overlap: overlaps[0],
            pairs: self.pairs.clone(),
        })
    }
}

/// Runs `specs[0]` on `first` and `specs[1]` on `second`, started at the
/// same moment: both threads meet at a barrier, then each starts its run.
fn together(
    first: &mut dyn Executor,
    second: &mut (dyn Executor + Send),
    specs: [&RunSpec; 2],
) -> [Timed; 2] {
    let barrier = Barrier::new(2);
    std::thread::scope(|scope| {
        let other = scope.spawn(|| {
            barrier.wait();
            let start = Instant::now();
            let run = second.execute(specs[1]);
            (run, start, Instant::now())
        });
        barrier.wait();
        let start = Instant::now();
        let run = first.execute(specs[0]);
        let mine = (run, start, Instant::now());
        let theirs = other
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        [mine, theirs]
    })
}

/// What a reader of a duet result must know: a busy machine (its load
/// sits on each CPU apart, so the pairs do not share it), pairs that did
/// not run together for most of their length, and runs that used more
/// than one core (so A and B competed for CPUs instead of sharing the
/// machine).
pub fn duet_warnings(
    doc: &DuetDoc,
    runs: &[(&str, &[RunOutcome])],
    machine: Option<&MachineDoc>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    let busy = machine.is_some_and(|m| {
        let cpus = m.cpus_allowed.as_deref().and_then(|l| CpuSet::parse(l).ok());
        let cpus = cpus.map(|c| c.len()).or(m.cpus_online);
        matches!((m.load_before, cpus), (Some(load), Some(cpus)) if load > LOAD_PER_CPU_WARNING * cpus as f64)
    });
    if busy {
        warnings.push(
            "duet mode on a busy machine: each run is pinned to one CPU and cannot escape the \
             other work queued there, and that work differs from CPU to CPU, so the two runs of \
             a pair do not share it; their ratios are noisier than interleaved ones and drift in \
             streaks the decision does not expect. Stop the other work, or drop --duet"
                .to_string(),
        );
    }
    if doc.median_overlap < LOW_OVERLAP {
        warnings.push(format!(
            "in duet mode A and B ran together for only {:.0}% of the longer run (median over {} \
             pairs): one takes much longer than the other, so its run is alone for the rest and \
             the pairing cancels less interference; interleaved runs (drop --duet) may decide \
             sooner",
            doc.median_overlap * 100.0,
            doc.pairs.len()
        ));
    }
    for (name, runs) in runs {
        let over: Vec<f64> = runs
            .iter()
            .filter(|r| r.user_s + r.sys_s > r.wall_s * (1.0 + CPU_MARGIN) + CPU_SLACK_S)
            .map(|r| (r.user_s + r.sys_s) / r.wall_s)
            .collect();
        if let Some(most) = over.iter().copied().reduce(f64::max) {
            warnings.push(format!(
                "{} of {} runs of \"{name}\" used more CPU time than wall-clock time (up to \
                 {most:.1}x): the program runs on more than one core although duet mode pinned it \
                 to one (it sets its own CPU affinity?), so A and B competed for CPUs; measure a \
                 program that uses several cores without --duet",
                over.len(),
                runs.len()
            ));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use perflab_runner::FakeExecutor;

    fn duet(overlaps: &[[f64; 2]]) -> DuetDoc {
        let pairs: Vec<DuetPairDoc> = overlaps
            .iter()
            .map(|b| DuetPairDoc::new(0, [0.0, 1.0], *b))
            .collect();
        DuetDoc {
            cpus: [1, 0],
            median_overlap: pairs[pairs.len() / 2].overlap,
            min_overlap: 0.0,
            pairs,
        }
    }

    #[test]
    fn pairs_that_mostly_ran_apart_are_reported_with_their_median_overlap() {
        let runs: [(&str, &[RunOutcome]); 2] = [("A", &[]), ("B", &[])];
        let apart = duet_warnings(&duet(&[[0.7, 2.0], [0.8, 2.0], [0.9, 2.0]]), &runs, None);
        assert_eq!(apart.len(), 1, "{apart:?}");
        assert!(apart[0].contains("only 17% of the longer run"), "{apart:?}");
        assert!(duet_warnings(&duet(&[[0.0, 1.0]]), &runs, None).is_empty());
    }

    #[test]
    fn a_run_with_more_cpu_time_than_wall_time_is_reported_as_using_several_cores() {
        let mut busy = FakeExecutor::outcome(1.0);
        busy.user_s = 1.7;
        let b = [busy, FakeExecutor::outcome(1.0)];
        let runs: [(&str, &[RunOutcome]); 2] = [("A", &[FakeExecutor::outcome(1.0)]), ("B", &b)];
        let w = duet_warnings(&duet(&[[0.0, 1.0]]), &runs, None);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("1 of 2 runs of \"B\" used more CPU time"),
            "{w:?}"
        );
        assert!(w[0].contains("up to 1.8x"), "{w:?}");
    }

    #[test]
    fn a_busy_machine_is_reported_as_one_duet_mode_cannot_help_on() {
        let runs: [(&str, &[RunOutcome]); 2] = [("A", &[]), ("B", &[])];
        let machine = |load| MachineDoc {
            cpus_allowed: Some("0-1".into()),
            load_before: Some(load),
            ..MachineDoc::default()
        };
        let busy = duet_warnings(&duet(&[[0.0, 1.0]]), &runs, Some(&machine(8.0)));
        assert_eq!(busy.len(), 1, "{busy:?}");
        assert!(
            busy[0].starts_with("duet mode on a busy machine"),
            "{busy:?}"
        );
        assert!(duet_warnings(&duet(&[[0.0, 1.0]]), &runs, Some(&machine(0.1))).is_empty());
    }

    #[test]
    fn an_executor_that_cannot_start_two_runs_is_refused_naming_the_flag() {
        let mut fake = FakeExecutor::new(|_, _| Ok(FakeExecutor::outcome(1.0)));
        let err = Duet::new([0, 1], &mut fake)
            .err()
            .expect("refused")
            .to_string();
        assert!(err.starts_with("--duet:"), "{err}");
    }
}
