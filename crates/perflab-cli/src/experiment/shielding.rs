//! `--shield CPUS` (`shield = "1"` in perflab.toml) and
//! `--wait-quiet[=PRESSURE]` (`wait_quiet = true` or `"5%"`): how an
//! experiment keeps the rest of the machine away from its runs, as
//! settings. The shield itself is raised by the command, which checks its
//! CPUs then (`crate::system::shield`: whether they are online, leave a CPU
//! for the rest, and are not shielded by another perflab already); the
//! waits are the engine's (`crate::engine::quiet`). Here they are read,
//! and the threshold checked.

use perflab_runner::CpuSet;

use super::pin::{PinSetting, parse_pin};
use crate::error::{Error, Result};
use crate::machine::pressure::unavailable_reason;
use perflab_report::units::parse_percent;

pub use crate::machine::pressure::DEFAULT_QUIET_PRESSURE;

/// A `--wait-quiet` threshold as given, with where it was given.
#[derive(Debug, Clone, PartialEq)]
pub struct QuietSetting {
    /// The CPU pressure (a fraction) below which a block may start.
    pub threshold: f64,
    /// `--wait-quiet`, or `path:line:column: wait_quiet`.
    pub given_as: String,
}

/// Reads a shield's CPU list given as `given_as`.
pub fn parse_shield(text: &str, given_as: &str) -> Result<PinSetting> {
    parse_pin(text, given_as)
}

/// Reads a `--wait-quiet` threshold: a percentage from 0% (never met: wait
/// until the time limit) to 100% (always met).
pub fn parse_wait_quiet(text: &str, given_as: &str) -> Result<QuietSetting> {
    let threshold = parse_percent(text).map_err(|e| Error::usage(given_as, e))?;
    if !(0.0..=1.0).contains(&threshold) {
        return Err(Error::usage(
            given_as,
            format!(
                "'{text}' is not a CPU pressure between 0% and 100% (the share of time some task \
                 waited for a CPU); the default is {}%",
                DEFAULT_QUIET_PRESSURE * 100.0
            ),
        ));
    }
    Ok(QuietSetting {
        threshold,
        given_as: given_as.to_string(),
    })
}

/// The threshold, refused (exit 2) where the kernel publishes no CPU pressure.
pub fn checked_wait_quiet(setting: QuietSetting) -> Result<f64> {
    match unavailable_reason() {
        None => Ok(setting.threshold),
        Some(why) => Err(Error::usage(
            setting.given_as,
            format!("{why}; drop it, or use --shield CPUS to give the runs CPUs of their own"),
        )),
    }
}

/// The CPUs the runs are pinned to under a shield: `pin` if given (it
/// must lie within the shield), else the shielded CPUs.
pub fn pin_within_shield(pin: Option<CpuSet>, shield: &PinSetting) -> Result<CpuSet> {
    let Some(pin) = pin else {
        return Ok(shield.cpus.clone());
    };
    let outside = pin.outside(&shield.cpus);
    if outside.is_empty() {
        return Ok(pin);
    }
    let listed: Vec<String> = outside.iter().map(ToString::to_string).collect();
    Err(Error::usage(
        "--pin",
        format!(
            "CPU {} is outside the shielded CPUs ({}, {}); the runs belong on the shielded CPUs: \
             pin to some of them, or drop --pin to use them all",
            listed.join(", "),
            shield.cpus,
            shield.given_as
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threshold_is_a_percentage_from_none_to_all_of_the_time() {
        assert_eq!(
            parse_wait_quiet("5%", "--wait-quiet").unwrap().threshold,
            0.05
        );
        assert_eq!(
            parse_wait_quiet("0", "--wait-quiet").unwrap().threshold,
            0.0
        );
        let err = parse_wait_quiet("150%", "--wait-quiet")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("--wait-quiet: '150%' is not a CPU pressure"),
            "{err}"
        );
        let err = parse_wait_quiet("lots", "f.toml:1:1: wait_quiet")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("f.toml:1:1: wait_quiet: "), "{err}");
    }

    #[test]
    fn the_runs_go_on_the_shielded_cpus_unless_pinned_to_some_of_them() {
        let shield = parse_shield("2-3", "--shield").unwrap();
        assert_eq!(pin_within_shield(None, &shield).unwrap().to_string(), "2-3");
        let three = CpuSet::parse("3").unwrap();
        assert_eq!(
            pin_within_shield(Some(three.clone()), &shield).unwrap(),
            three
        );
        let err = pin_within_shield(Some(CpuSet::parse("1-2").unwrap()), &shield)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("--pin: CPU 1 is outside the shielded CPUs (2-3, --shield)"),
            "{err}"
        );
    }
}
