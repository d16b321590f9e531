//! `--duet` (`duet = true` in perflab.toml): which two CPUs the runs of A
//! and B share, and which settings cannot go with it.
//!
//! Duet runs (Bulej et al., "Duet Benchmarking: Improving Measurement
//! Accuracy in the Cloud", ICPE 2020) start A and B at the same moment,
//! each pinned to a CPU of its own, so that interference from the rest of
//! the machine falls on both runs of a pair alike and cancels in their ratio.

use perflab_runner::CpuSet;

use crate::error::{Error, Result};

/// The two CPUs of a duet: two of `pin` (or of the CPUs perflab may use),
/// on different cores where the kernel says which CPUs share one.
/// Refuses the settings duet cannot honour, naming both.
pub fn duet_cpus(pin: Option<&CpuSet>, counted: bool, perf_events: bool) -> Result<[usize; 2]> {
    if counted {
        return Err(Error::usage(
            "--duet",
            "--measure instructions counts each run under valgrind, where two runs at once gain \
             nothing (counts do not suffer interference); drop --duet or --measure instructions",
        ));
    }
    if perf_events {
        return Err(Error::usage(
            "--duet",
            "--perf-events attaches counters to runs perflab forks one at a time; drop --duet \
             or --perf-events",
        ));
    }
    let (cpus, source) = match pin {
        Some(pin) => (pin.clone(), "--pin gives"),
        None => (
            CpuSet::allowed().map_err(|source| Error::Io {
                path: "/proc/self/status (sched_getaffinity)".into(),
                source,
            })?,
            "perflab may use",
        ),
    };
    pick_two(cpus.cpus(), siblings).ok_or_else(|| {
        Error::usage(
            "--duet",
            format!(
                "duet runs need two CPUs, one for A and one for B, but {source} only CPU {cpus}; \
                 give --pin two CPUs or more, or drop --duet"
            ),
        )
    })
}

/// The last CPU of `cpus`, and the last other one that is not its SMT
/// sibling (any other where all are siblings): CPU 0 often serves more
/// of the machine's interrupts, and two threads of one core compete for it.
fn pick_two(cpus: &[usize], siblings: impl Fn(usize) -> Vec<usize>) -> Option<[usize; 2]> {
    let (&first, rest) = cpus.split_last()?;
    let shared = siblings(first);
    let second = rest
        .iter()
        .rev()
        .find(|cpu| !shared.contains(cpu))
        .or_else(|| rest.last())?;
    Some([first, *second])
}

/// The CPUs sharing a core with `cpu` (itself included), as the kernel
/// lists them; none where it does not say.
fn siblings(cpu: usize) -> Vec<usize> {
    let path = format!("/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list");
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| CpuSet::parse(&text).ok())
        .map(|set| set.cpus().to_vec())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_cpu_goes_with_the_last_one_on_another_core() {
        let smt = |cpu: usize| vec![cpu % 4, cpu % 4 + 4];
        assert_eq!(pick_two(&[0, 1, 2, 3, 4, 5, 6, 7], smt), Some([7, 6]));
        assert_eq!(pick_two(&[3, 7], smt), Some([7, 3]));
        assert_eq!(pick_two(&[0, 1], |_| Vec::new()), Some([1, 0]));
        assert_eq!(pick_two(&[2], |_| Vec::new()), None);
    }

    #[test]
    fn one_cpu_is_refused_naming_the_flag() {
        let one = CpuSet::parse("0").unwrap();
        let err = duet_cpus(Some(&one), false, false).unwrap_err().to_string();
        assert!(err.starts_with("--duet: duet runs need two CPUs"), "{err}");
        assert!(err.contains("--pin"), "{err}");
    }

    #[test]
    fn counted_runs_and_counters_are_refused_naming_both_flags() {
        let two = CpuSet::parse("0-1").unwrap();
        let err = duet_cpus(Some(&two), true, false).unwrap_err().to_string();
        assert!(err.contains("--duet") && err.contains("--measure instructions"));
        let err = duet_cpus(Some(&two), false, true).unwrap_err().to_string();
        assert!(err.contains("--duet") && err.contains("--perf-events"));
    }
}
