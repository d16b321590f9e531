//! The state of the machine around an experiment: what perflab reads
//! before the first run (frequency governor, boost, SMT, CPUs, load
//! average) and how much CPU time the hypervisor and interrupts took while
//! the runs went on (from /proc/stat), kept as the result's `machine`
//! section; and the warnings it gives ([`warnings`]), and those of the
//! runs' containment ([`containment`]: processes left running, what could
//! not be measured without a cgroup). The machine's CPU
//! pressure, which `--wait-quiet` waits on, is read in [`pressure`]. The
//! readers of single settings are the ones `perflab system show` uses too
//! (`crate::system`), so that every file is read in one place.
//!
//! Every reading is best effort: a file a container or another kernel does
//! not have leaves its field out rather than failing the experiment.

pub mod containment;
mod cpu_times;
pub mod pressure;
pub mod warnings;

use std::path::Path;

use perflab_format::machine::{MachineDoc, QuietWaitDoc};
use perflab_runner::CpuSet;

use cpu_times::CpuTimes;

/// Where Linux describes the CPUs.
pub const CPU_SYSFS: &str = "/sys/devices/system/cpu";

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
            cpus_online: online_cpus().map(|set| set.len()),
            cpus_allowed: CpuSet::allowed().ok().map(|set| set.to_string()),
            pinned: None,
            governor: governors(),
            boost: boost(),
            smt: smt(),
            load_before: load_average().map(|[one, _, _]| one),
            steal_share: None,
            interrupt_share: None,
            warnings: Vec::new(),
            shield: None,
            quiet_wait: None,
        };
        Self {
            before,
            times_before: CpuTimes::now(),
        }
    }

    /// The state over the whole experiment, with the CPUs its runs were
    /// pinned to and the waits for a quiet machine before its blocks.
    pub fn finish(self, pinned: Option<&CpuSet>, quiet_wait: Option<QuietWaitDoc>) -> MachineDoc {
        let mut doc = self.before;
        doc.pinned = pinned.map(ToString::to_string);
        doc.quiet_wait = quiet_wait;
        if let (Some(before), Some(after)) = (self.times_before, CpuTimes::now()) {
            if let Some(shares) = after.shares_since(&before) {
                doc.steal_share = Some(shares.steal);
                doc.interrupt_share = Some(shares.interrupt);
            }
        }
        doc
    }
}

/// The CPUs online (`/sys/devices/system/cpu/online`).
pub fn online_cpus() -> Option<CpuSet> {
    read(&format!("{CPU_SYSFS}/online")).and_then(|list| CpuSet::parse(&list).ok())
}

/// The governor files of every CPU that has one (`cpu<N>/cpufreq/scaling_governor`),
/// by CPU number; empty without cpufreq (a VM, a container).
pub fn governor_files() -> Vec<(usize, std::path::PathBuf)> {
    let Ok(entries) = std::fs::read_dir(CPU_SYSFS) else {
        return Vec::new();
    };
    let mut found: Vec<(usize, std::path::PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let cpu = e
                .file_name()
                .to_string_lossy()
                .strip_prefix("cpu")?
                .parse()
                .ok()?;
            let file = e.path().join("cpufreq/scaling_governor");
            file.exists().then_some((cpu, file))
        })
        .collect();
    found.sort();
    found
}

/// The governors of every CPU that has one, each once.
pub fn governors() -> Option<String> {
    let mut found: Vec<String> = governor_files()
        .iter()
        .filter_map(|(_, file)| read(&file.to_string_lossy()))
        .collect();
    found.sort();
    found.dedup();
    (!found.is_empty()).then(|| found.join(","))
}

/// The switch that turns boost (turbo) on and off, if the machine has one:
/// the generic one (AMD, acpi-cpufreq), whose `1` means boost on, or
/// intel_pstate's `no_turbo`, whose `1` means boost off.
pub fn boost_switch() -> Option<BoostSwitch> {
    let generic = format!("{CPU_SYSFS}/cpufreq/boost");
    if read(&generic).and_then(|v| flag(&v)).is_some() {
        return Some(BoostSwitch {
            path: generic,
            on_means_off: false,
        });
    }
    let intel = format!("{CPU_SYSFS}/intel_pstate/no_turbo");
    read(&intel).and_then(|v| flag(&v)).map(|_| BoostSwitch {
        path: intel,
        on_means_off: true,
    })
}

/// A file that turns boost on and off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoostSwitch {
    /// The file.
    pub path: String,
    /// True for intel_pstate's `no_turbo`, where `1` turns boost off.
    pub on_means_off: bool,
}

impl BoostSwitch {
    /// What the file holds for boost `on`.
    pub fn value_for(&self, on: bool) -> &'static str {
        if on != self.on_means_off { "1" } else { "0" }
    }
}

/// Whether the CPU may boost.
pub fn boost() -> Option<bool> {
    let switch = boost_switch()?;
    let value = read(&switch.path).and_then(|v| flag(&v))?;
    Some(value != switch.on_means_off)
}

/// Whether simultaneous multithreading is active (`smt/active`).
pub fn smt() -> Option<bool> {
    read(&format!("{CPU_SYSFS}/smt/active")).and_then(|v| flag(&v))
}

/// The load averages over 1, 5 and 15 minutes (`/proc/loadavg`).
pub fn load_average() -> Option<[f64; 3]> {
    let text = read("/proc/loadavg")?;
    let mut fields = text.split_whitespace().map(|f| f.parse::<f64>().ok());
    Some([fields.next()??, fields.next()??, fields.next()??])
}

/// `1`/`on` and `0`/`off` as a flag.
pub fn flag(text: &str) -> Option<bool> {
    match text {
        "1" | "on" => Some(true),
        "0" | "off" => Some(false),
        _ => None,
    }
}

/// A small sysfs or procfs file, trimmed; `None` when it cannot be read.
pub fn read(path: &str) -> Option<String> {
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
        let doc = watch.finish(Some(&pin), None);
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
