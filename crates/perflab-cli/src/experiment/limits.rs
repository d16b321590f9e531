//! How many runs an experiment makes and how long it may take: the limits
//! every engine (A/B, suite, sweep, bisect step) stops at, validated with
//! the rest of an experiment's or a sweep's configuration; and how long a
//! run may wait for a CPU before its block is measured again (the
//! contention rule, `--max-cpu-wait`).

use std::time::Duration;

use perflab_report::units::parse_percent;

use crate::error::{Error, Result};

/// The contention rule's threshold by default: perflab-stats', where the
/// simulation that chose it lives.
pub use perflab_stats::DEFAULT_MAX_CPU_WAIT;

/// The run limits of an experiment. In an A/B or a suite a count is of runs
/// per variant (pairs); in a sweep, of runs per command and point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunLimits {
    /// Runs before the first decision (a sweep's point may stop).
    pub min_runs: usize,
    /// Runs at most.
    pub max_runs: usize,
    /// Stop after this long (once there is something to report).
    pub max_time: Option<Duration>,
    /// Unmeasured runs of each variant (command) first.
    pub warmup: usize,
    /// Per-run timeout.
    pub timeout: Option<Duration>,
    /// A block in which a run waited for a CPU for more than this share of
    /// its wall time is measured again; `None` when the rule is off.
    pub max_cpu_wait: Option<f64>,
}

impl RunLimits {
    /// True when `max_time` has passed after `elapsed`.
    pub fn out_of_time(&self, elapsed: Duration) -> bool {
        self.max_time.is_some_and(|t| elapsed >= t)
    }
}

/// `--max-cpu-wait` (`max_cpu_wait` in a file) as given: a share of a
/// run's wall time, or off.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MaxCpuWait {
    /// The contention rule is off.
    Off,
    /// The rule at this share, in (0, 1).
    Share(f64),
}

impl MaxCpuWait {
    /// Parses `5%`, `0.5%`, `5` (percent) or `off`; `flag` names the flag or
    /// key in errors.
    pub fn parse(text: &str, flag: &str) -> Result<Self> {
        if matches!(text.trim().to_ascii_lowercase().as_str(), "off" | "none") {
            return Ok(MaxCpuWait::Off);
        }
        let share = parse_percent(text).map_err(|e| Error::usage(flag, format!("{e}, or off")))?;
        Self::share(share, flag)
    }

    /// A share given as a fraction (a file's number of percent divided by 100).
    pub fn share(share: f64, flag: &str) -> Result<Self> {
        if share > 0.0 && share < 1.0 {
            Ok(MaxCpuWait::Share(share))
        } else {
            Err(Error::usage(
                flag,
                format!(
                    "{}% is not a share of a run's wall time above 0% and below 100%; give one \
                     like 5%, or off to measure no block again",
                    100.0 * share
                ),
            ))
        }
    }

    /// The threshold this setting gives, the default when not given;
    /// `None` when off.
    pub fn threshold(setting: Option<MaxCpuWait>) -> Option<f64> {
        match setting.unwrap_or(MaxCpuWait::Share(DEFAULT_MAX_CPU_WAIT)) {
            MaxCpuWait::Off => None,
            MaxCpuWait::Share(share) => Some(share),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_a_number_of_percent_or_off_is_read_and_the_default_is_perflab_stats() {
        assert_eq!(
            MaxCpuWait::parse("2.5%", "--max-cpu-wait").unwrap(),
            MaxCpuWait::Share(0.025)
        );
        assert_eq!(
            MaxCpuWait::parse("10", "--max-cpu-wait").unwrap(),
            MaxCpuWait::Share(0.1)
        );
        assert_eq!(
            MaxCpuWait::parse("off", "--max-cpu-wait").unwrap(),
            MaxCpuWait::Off
        );
        assert_eq!(MaxCpuWait::threshold(None), Some(DEFAULT_MAX_CPU_WAIT));
        assert_eq!(MaxCpuWait::threshold(Some(MaxCpuWait::Off)), None);
    }

    #[test]
    fn nothing_zero_or_a_whole_run_is_refused_naming_the_flag_and_the_way_out() {
        for bad in ["0%", "100%", "-3%", "lots"] {
            let err = MaxCpuWait::parse(bad, "--max-cpu-wait")
                .unwrap_err()
                .to_string();
            assert!(err.starts_with("--max-cpu-wait:"), "{err}");
            assert!(err.contains("off"), "{err}");
        }
    }
}
