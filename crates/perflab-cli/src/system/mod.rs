//! What perflab reads and changes of the machine as a whole, beyond the
//! state it records with each experiment (`crate::machine`, whose readers
//! this module uses):
//!
//! - [`show`]: `perflab system show`, each setting that helps or hurts
//!   measurements, what was found, why it matters, what to do;
//! - [`quiet_check`]: `perflab system check`, whether the machine is
//!   quiet enough to publish figures from (load and CPU pressure);
//! - [`tune`]: `perflab system tune` and `reset`, the settings that can
//!   safely be changed, the values they replace saved first;
//! - [`shield`]: `--shield CPUS`, the rest of the machine confined to
//!   other CPUs for an experiment's duration ([`cpuset`], [`irq`]), undone
//!   at its end or, after a crash, by the next perflab command.
//!
//! Whatever is changed is first written to a state file in the run folder
//! ([`run_dir`]), so that it can be undone.

pub mod cpuset;
pub mod irq;
pub mod quiet_check;
pub mod run_dir;
pub mod shield;
pub mod show;
pub mod tune;

use perflab_runner::CpuSet;

/// Where address space randomisation is set.
pub const ASLR: &str = "/proc/sys/kernel/randomize_va_space";
/// The most samples per second a perf event may take.
pub const PERF_SAMPLE_RATE: &str = "/proc/sys/kernel/perf_event_max_sample_rate";

/// The CPUs of `set` outside `removed`; `None` when none are left.
pub fn without(set: &CpuSet, removed: &CpuSet) -> Option<CpuSet> {
    let left: Vec<String> = set
        .outside(removed)
        .iter()
        .map(ToString::to_string)
        .collect();
    if left.is_empty() {
        return None;
    }
    CpuSet::parse(&left.join(",")).ok()
}

/// True when perflab runs as root (effective uid 0).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// The message of a refusal for want of root: what the action does and how
/// to run it.
pub fn root_needed(what_it_does: &str) -> String {
    // SAFETY: as above.
    let uid = unsafe { libc::geteuid() };
    format!(
        "must run as root, since it {what_it_does}; perflab runs as user {uid}: run it with sudo"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removing_cpus_leaves_the_others_or_nothing() {
        let set = CpuSet::parse("0-3").unwrap();
        let rest = without(&set, &CpuSet::parse("1,3").unwrap()).unwrap();
        assert_eq!(rest.to_string(), "0,2");
        assert_eq!(without(&set, &set), None);
    }
}
