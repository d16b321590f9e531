//! The state of the machine around an experiment: what perflab reads
//! before the first run (frequency governor, boost, SMT, CPUs, load
//! average) and how much CPU time the hypervisor and interrupts took while
//! the runs went on (from /proc/stat), kept as the result's `machine`
//! section; and the warnings it gives ([`warnings`]), and those of the
//! runs' containment ([`containment`]: processes left running, what could
//! not be measured without a cgroup).
//!
//! Every reading is best effort: a file a container or another kernel does
//! not have leaves its field out rather than failing the experiment.

pub mod containment;
mod cpu_times;
pub mod warnings;

use std::path::Path;

use perflab_format::machine::MachineDoc;
use perflab_runner::CpuSet;

use cpu_times::CpuTimes;

const CPU_SYSFS: &str = "/sys/devices/system/cpu";

/// Watches the machine from before an experiment's first run to its end.
#[derive(Debug)]
pub struct MachineWatch {
    before: MachineDoc,
    times_before: Option<CpuTimes>,
}

impl MachineWatch {
    /// Reads the machine's settings and load now, before any run.
    pub fn start() -> Self {
        let before = MachineDoc {
            cpus_online: read(&format!("{CPU_SYSFS}/online"))
                .and_then(|list| CpuSet::parse(&list).ok())
                .map(|set| set.len()),
            cpus_allowed: CpuSet::allowed().ok().map(|set| set.to_string()),
            pinned: None,
            governor: governors(),
            boost: boost(),
            smt: read(&format!("{CPU_SYSFS}/smt/active")).and_then(|v| flag(&v)),
            load_before: read("/proc/loadavg")
                .and_then(|text| text.split_whitespace().next()?.parse().ok()),
            steal_share: None,
            interrupt_share: None,
            warnings: Vec::new(),
        };
        Self {
            before,
            times_before: CpuTimes::now(),
        }
    }

    /// The state over the whole experiment, with the CPUs its runs were
    /// pinned to.
    pub fn finish(self, pinned: Option<&CpuSet>) -> MachineDoc {
        let mut doc = self.before;
        doc.pinned = pinned.map(ToString::to_string);
        if let (Some(before), Some(after)) = (self.times_before, CpuTimes::now()) {
            if let Some(shares) = after.shares_since(&before) {
                doc.steal_share = Some(shares.steal);
                doc.interrupt_share = Some(shares.interrupt);
            }
        }
        doc
    }
}

/// The governors of every CPU that has one, each once.
fn governors() -> Option<String> {
    let mut found: Vec<String> = std::fs::read_dir(CPU_SYSFS)
        .ok()?
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.strip_prefix("cpu")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|e| read(&e.path().join("cpufreq/scaling_governor").to_string_lossy()))
        .collect();
    found.sort();
    found.dedup();
    (!found.is_empty()).then(|| found.join(","))
}

/// Whether the CPU may boost: the generic switch (AMD, acpi-cpufreq), or
/// intel_pstate's, which says the opposite (`no_turbo`).
fn boost() -> Option<bool> {
    if let Some(on) = read(&format!("{CPU_SYSFS}/cpufreq/boost")).and_then(|v| flag(&v)) {
        return Some(on);
    }
    read(&format!("{CPU_SYSFS}/intel_pstate/no_turbo"))
        .and_then(|v| flag(&v))
        .map(|no_turbo| !no_turbo)
}

fn flag(text: &str) -> Option<bool> {
    match text {
        "1" | "on" => Some(true),
        "0" | "off" => Some(false),
        _ => None,
    }
}

/// A small sysfs or procfs file, trimmed; `None` when it cannot be read.
fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(Path::new(path))
        .ok()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_read_here_has_the_cpus_perflab_may_use_and_its_pin() {
        let watch = MachineWatch::start();
        // Long enough for the CPU time counters (in ticks of 1-10 ms) to move.
        std::thread::sleep(std::time::Duration::from_millis(100));
        let pin = CpuSet::parse("0").unwrap();
        let doc = watch.finish(Some(&pin));
        assert_eq!(doc.pinned.as_deref(), Some("0"));
        assert_eq!(
            doc.cpus_allowed,
            Some(CpuSet::allowed().unwrap().to_string())
        );
        // Linux always has these two.
        assert!(doc.load_before.is_some_and(|l| l >= 0.0));
        assert!(doc.steal_share.is_some_and(|s| (0.0..=1.0).contains(&s)));
    }
}
