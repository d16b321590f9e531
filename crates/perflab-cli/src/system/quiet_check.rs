//! `perflab system check`: whether the machine is quiet enough to publish
//! figures from, in one line and an exit code, so that a script can refuse
//! to rewrite a write-up's figures on a busy machine (or wait until it is
//! quiet).
//!
//! Quiet means both: the 1-minute load average per online CPU below a limit
//! (0.5 by default: on average every CPU idle half the time), and the
//! machine's CPU pressure (avg10 of "some" in `/proc/pressure/cpu`, the
//! share of the last 10 seconds in which some task waited for a CPU, see
//! `crate::machine::pressure`) below a limit (5% by default, the level
//! `--wait-quiet` waits for). The load counts what runs; the pressure what
//! waits: a machine can have a low load and still make runs wait (one
//! process pinned beside them), or a load of 1 per CPU that never makes
//! anything wait. A machine that publishes no CPU pressure is judged by
//! its load alone, and the line says so.

use std::time::{Duration, Instant};

use crate::machine::pressure::CpuPressure;
use crate::machine::{load_average, online_cpus};

/// Default limit of the 1-minute load average per online CPU.
pub const DEFAULT_MAX_LOAD_PER_CPU: f64 = 0.5;

/// How often the machine is read again while waiting.
const POLL: Duration = Duration::from_secs(2);

/// What the check found.
#[derive(Debug, Clone, PartialEq)]
pub struct QuietCheck {
    /// The 1-minute load average.
    pub load: f64,
    /// Online CPUs.
    pub cpus: usize,
    /// CPU pressure (avg10, a fraction), when the kernel publishes it.
    pub pressure: Option<f64>,
    /// The limit of the load per CPU.
    pub max_load_per_cpu: f64,
    /// The limit of the pressure (a fraction).
    pub max_pressure: f64,
}

impl QuietCheck {
    /// The load average per online CPU.
    pub fn load_per_cpu(&self) -> f64 {
        self.load / self.cpus.max(1) as f64
    }

    /// Whether both figures are below their limits.
    pub fn is_quiet(&self) -> bool {
        self.load_per_cpu() < self.max_load_per_cpu
            && self.pressure.is_none_or(|p| p < self.max_pressure)
    }

    /// One line: `quiet: load 0.31 per CPU (1-minute load average 0.62 on 2
    /// CPUs; limit 0.50), CPU pressure 0.40% (avg10; limit 5.00%)`.
    pub fn line(&self) -> String {
        let verdict = if self.is_quiet() { "quiet" } else { "busy" };
        let pressure = match self.pressure {
            Some(p) => format!(
                "CPU pressure {:.2}% (avg10 of /proc/pressure/cpu; limit {:.2}%)",
                p * 100.0,
                self.max_pressure * 100.0
            ),
            None => "CPU pressure not published by this kernel (judged by load alone)".into(),
        };
        format!(
            "{verdict}: load {:.2} per CPU (1-minute load average {:.2} on {} CPUs; limit {:.2}), {pressure}",
            self.load_per_cpu(),
            self.load,
            self.cpus,
            self.max_load_per_cpu
        )
    }
}

/// The machine now, against the limits; `None` when the load average
/// cannot be read.
pub fn check_now(max_load_per_cpu: f64, max_pressure: f64) -> Option<QuietCheck> {
    let [load, _, _] = load_average()?;
    Some(QuietCheck {
        load,
        cpus: online_cpus().map_or(1, |c| c.len()),
        pressure: CpuPressure::now().ok().map(|p| p.avg10),
        max_load_per_cpu,
        max_pressure,
    })
}

/// Checks the machine, and while it is busy checks again every 2 seconds
/// until it is quiet or `wait` has passed; `note` is told each busy
/// reading (at most every 10 seconds) so that a wait is seen.
pub fn wait_for_quiet(
    max_load_per_cpu: f64,
    max_pressure: f64,
    wait: Duration,
    note: &mut dyn FnMut(&QuietCheck),
) -> Option<QuietCheck> {
    let started = Instant::now();
    let mut last_note: Option<Instant> = None;
    loop {
        let check = check_now(max_load_per_cpu, max_pressure)?;
        if check.is_quiet() || started.elapsed() >= wait {
            return Some(check);
        }
        if last_note.is_none_or(|t| t.elapsed() >= Duration::from_secs(10)) {
            note(&check);
            last_note = Some(Instant::now());
        }
        std::thread::sleep(POLL.min(wait.saturating_sub(started.elapsed())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(load: f64, pressure: Option<f64>) -> QuietCheck {
        QuietCheck {
            load,
            cpus: 2,
            pressure,
            max_load_per_cpu: 0.5,
            max_pressure: 0.05,
        }
    }

    #[test]
    fn a_machine_is_quiet_only_below_both_limits() {
        assert!(check(0.6, Some(0.01)).is_quiet());
        assert!(!check(1.2, Some(0.01)).is_quiet(), "0.6 per CPU");
        assert!(!check(0.2, Some(0.2)).is_quiet(), "pressure 20%");
        assert!(check(0.2, None).is_quiet());
    }

    #[test]
    fn the_line_gives_the_figures_and_the_limits() {
        assert_eq!(
            check(1.2, Some(0.004)).line(),
            "busy: load 0.60 per CPU (1-minute load average 1.20 on 2 CPUs; limit 0.50), \
             CPU pressure 0.40% (avg10 of /proc/pressure/cpu; limit 5.00%)"
        );
    }
}
