//! `--wait-quiet`: before each block, wait until the machine's CPU
//! pressure (avg10 of "some" in `/proc/pressure/cpu`, see
//! `crate::machine::pressure`) is below a threshold, so that no block
//! starts while other work contends for the CPUs. Every engine (A/B,
//! suite, sweep, and so each bisection step) calls the same
//! [`QuietGate::before_block`] before each of its blocks.
//!
//! The wait is bounded by the experiment's time limit: when `--max-time`
//! runs out while waiting, the engine stops as it does at its time limit,
//! keeping every run measured, and the gate says why. A wait is shown as
//! notes on the progress display (what it waits for, the pressure now),
//! and its total goes into the result's machine section.
//!
//! Blocks, not runs, wait: a block holds one run of every variant, so A
//! and B start under the same conditions and a wait cannot favour either.

use std::time::{Duration, Instant};

use perflab_format::machine::QuietWaitDoc;

use crate::experiment::RunLimits;
use crate::machine::pressure::CpuPressure;

/// How often the pressure is read while waiting (the kernel updates its
/// averages every 2 seconds).
const POLL: Duration = Duration::from_millis(500);

/// How often a wait says it is still waiting.
const STILL_WAITING_EVERY: Duration = Duration::from_secs(10);

/// Whether the block may start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// The machine is quiet (or no wait was asked for): start the block.
    Open,
    /// The time limit ran out while waiting: stop as at the time limit.
    OutOfTime,
    /// Ctrl-C while waiting.
    Interrupted,
}

/// The waits of one experiment.
#[derive(Debug, Clone)]
pub struct QuietGate {
    threshold: Option<f64>,
    blocks_waited: usize,
    waited: Duration,
    gave_up: bool,
    last_pressure: Option<f64>,
}

impl QuietGate {
    /// A gate that waits for CPU pressure below `threshold` (a fraction),
    /// or never waits (`None`).
    pub fn new(threshold: Option<f64>) -> Self {
        Self {
            threshold,
            blocks_waited: 0,
            waited: Duration::ZERO,
            gave_up: false,
            last_pressure: None,
        }
    }

    /// Waits until the next block may start: at once when no wait was
    /// asked for or the pressure is below the threshold; otherwise until it
    /// is, the time limit (`limits.max_time`, counted from `started`) runs
    /// out, or Ctrl-C. `note` shows what it waits for.
    pub fn before_block(
        &mut self,
        limits: &RunLimits,
        started: Instant,
        note: &mut dyn FnMut(&str),
    ) -> Gate {
        let Some(threshold) = self.threshold else {
            return Gate::Open;
        };
        let Some(pressure) = self.read() else {
            // Checked before the experiment: a file that vanished since
            // cannot be waited on.
            return Gate::Open;
        };
        if quiet(pressure, threshold) {
            return Gate::Open;
        }
        self.blocks_waited += 1;
        let waiting_since = Instant::now();
        let left = |started: Instant| {
            limits.max_time.map_or(String::new(), |max| {
                let left = max.saturating_sub(started.elapsed());
                format!("; --max-time leaves {}", seconds(left))
            })
        };
        note(&format!(
            "waiting for a quiet machine: CPU pressure is {} (some task waited that share of the \
             last 10 s), --wait-quiet wants it below {}{}",
            percent(pressure),
            percent(threshold),
            left(started)
        ));
        let mut said = Instant::now();
        let outcome = loop {
            if perflab_runner::interrupted() {
                break Gate::Interrupted;
            }
            if limits.out_of_time(started.elapsed()) {
                self.gave_up = true;
                note(&format!(
                    "--max-time ran out while waiting for a quiet machine: CPU pressure stayed at or \
                     above {} for {} (last {}); stopping with the runs measured so far",
                    percent(threshold),
                    seconds(waiting_since.elapsed()),
                    self.last_pressure.map_or("unknown".into(), percent)
                ));
                break Gate::OutOfTime;
            }
            std::thread::sleep(POLL);
            match self.read() {
                Some(p) if quiet(p, threshold) => {
                    note(&format!(
                        "CPU pressure fell to {} after {} of waiting; measuring",
                        percent(p),
                        seconds(waiting_since.elapsed())
                    ));
                    break Gate::Open;
                }
                Some(p) if said.elapsed() >= STILL_WAITING_EVERY => {
                    said = Instant::now();
                    note(&format!(
                        "still waiting for a quiet machine: CPU pressure {} after {}{}",
                        percent(p),
                        seconds(waiting_since.elapsed()),
                        left(started)
                    ));
                }
                Some(_) => {}
                None => break Gate::Open,
            }
        };
        self.waited += waiting_since.elapsed();
        outcome
    }

    /// The waits so far, for the result's machine section; `None` when no
    /// wait was asked for.
    pub fn doc(&self) -> Option<QuietWaitDoc> {
        Some(QuietWaitDoc {
            threshold: self.threshold?,
            blocks_waited: self.blocks_waited,
            waited_s: self.waited.as_secs_f64(),
            gave_up: self.gave_up,
            last_pressure: self.last_pressure,
        })
    }

    fn read(&mut self) -> Option<f64> {
        let p = CpuPressure::now().ok()?.avg10;
        self.last_pressure = Some(p);
        Some(p)
    }
}

/// Below the threshold; a threshold of 100% is always met (pressure is a
/// share of time, so it cannot be above; at exactly 100% it would
/// otherwise never be met), and one of 0% never.
fn quiet(pressure: f64, threshold: f64) -> bool {
    pressure < threshold || threshold >= 1.0
}

fn percent(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

fn seconds(d: Duration) -> String {
    format!("{:.0} s", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max_time: Option<Duration>) -> RunLimits {
        RunLimits {
            min_runs: 2,
            max_runs: 10,
            max_time,
            warmup: 0,
            timeout: None,
            max_cpu_wait: None,
        }
    }

    #[test]
    fn a_gate_without_a_threshold_opens_at_once_and_records_nothing() {
        let mut gate = QuietGate::new(None);
        let mut notes = Vec::new();
        let gate_now = gate.before_block(&limits(None), Instant::now(), &mut |l| {
            notes.push(l.to_string())
        });
        assert_eq!(gate_now, Gate::Open);
        assert!(notes.is_empty());
        assert_eq!(gate.doc(), None);
    }

    #[test]
    fn a_threshold_no_pressure_reaches_opens_at_once() {
        if CpuPressure::now().is_err() {
            eprintln!("skipped: this kernel publishes no CPU pressure");
            return;
        }
        let mut gate = QuietGate::new(Some(1.0));
        let gate_now = gate.before_block(&limits(None), Instant::now(), &mut |_| {});
        assert_eq!(gate_now, Gate::Open);
        let doc = gate.doc().unwrap();
        assert_eq!((doc.blocks_waited, doc.gave_up), (0, false));
    }

    #[test]
    fn a_threshold_never_met_stops_at_the_time_limit_and_says_why() {
        if CpuPressure::now().is_err() {
            eprintln!("skipped: this kernel publishes no CPU pressure");
            return;
        }
        // No pressure is below zero.
        let mut gate = QuietGate::new(Some(0.0));
        let mut notes = Vec::new();
        let gate_now = gate.before_block(
            &limits(Some(Duration::from_millis(300))),
            Instant::now(),
            &mut |l| notes.push(l.to_string()),
        );
        assert_eq!(gate_now, Gate::OutOfTime);
        assert!(
            notes[0].starts_with("waiting for a quiet machine"),
            "{notes:?}"
        );
        assert!(
            notes
                .last()
                .unwrap()
                .starts_with("--max-time ran out while waiting"),
            "{notes:?}"
        );
        let doc = gate.doc().unwrap();
        assert!(doc.gave_up && doc.blocks_waited == 1 && doc.last_pressure.is_some());
    }
}
