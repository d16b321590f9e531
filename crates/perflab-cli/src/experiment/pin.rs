//! `--pin CPUS` (`pin = "0-1"` in perflab.toml): the CPUs every measured
//! run is pinned to, so that the scheduler does not move a run between
//! CPUs (and caches) halfway through. The runner applies it to each run's
//! whole process tree (see perflab-runner's `CpuSet`).

use perflab_runner::CpuSet;

use crate::error::{Error, Result};

/// A CPU set as given, with where it was given, for errors found later.
#[derive(Debug, Clone)]
pub struct PinSetting {
    /// The CPUs.
    pub cpus: CpuSet,
    /// `--pin`, or `path:line:column: pin` for an experiment file.
    pub given_as: String,
}

/// Reads a CPU list given as `given_as`.
pub fn parse_pin(text: &str, given_as: &str) -> Result<PinSetting> {
    let cpus = CpuSet::parse(text).map_err(|e| Error::usage(given_as, e.to_string()))?;
    Ok(PinSetting {
        cpus,
        given_as: given_as.to_string(),
    })
}

/// The CPUs, checked against those perflab itself may run on (a run can
/// only be pinned to those).
pub fn checked_pin(pin: PinSetting) -> Result<CpuSet> {
    let allowed = CpuSet::allowed().map_err(|source| Error::Io {
        path: "/proc/self/status (sched_getaffinity)".into(),
        source,
    })?;
    let outside = pin.cpus.outside(&allowed);
    if outside.is_empty() {
        return Ok(pin.cpus);
    }
    let listed: Vec<String> = outside.iter().map(ToString::to_string).collect();
    Err(Error::usage(
        &pin.given_as,
        format!(
            "CPU {} is not among the CPUs perflab may run on ({allowed}, its affinity as set by \
             taskset, a cgroup's cpuset or the machine's CPU count); pin to CPUs of that list",
            listed.join(", ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cpu_list_that_is_not_one_names_the_flag() {
        let err = parse_pin("zero", "--pin").unwrap_err().to_string();
        assert!(err.starts_with("--pin: 'zero' is not a CPU list"), "{err}");
    }

    #[test]
    fn a_cpu_outside_the_allowed_set_is_refused_naming_the_flag_and_the_allowed_cpus() {
        let allowed = CpuSet::allowed().unwrap();
        let beyond = allowed.cpus().last().unwrap() + 1;
        let pin = parse_pin(&beyond.to_string(), "--pin").unwrap();
        let err = checked_pin(pin).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("--pin: CPU {beyond} is not among")),
            "{err}"
        );
        assert!(err.contains(&format!("({allowed},")), "{err}");
        let first = allowed.cpus()[0].to_string();
        assert_eq!(
            checked_pin(parse_pin(&first, "--pin").unwrap()).unwrap(),
            CpuSet::parse(&first).unwrap()
        );
    }
}
