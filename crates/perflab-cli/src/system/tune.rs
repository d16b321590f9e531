//! `perflab system tune` and `perflab system reset`: the settings that can
//! safely be changed for measurements, in the spirit of `pyperf system
//! tune`, each value replaced saved first (`tune.json` in the run folder),
//! and put back by `reset`.
//!
//! What `tune` sets, and why (docs/guide/busy-machine.md says the same to
//! users):
//! - the frequency governor of every CPU to `performance`, where cpufreq
//!   offers it: the frequency no longer drops while a CPU idles between
//!   runs;
//! - boost (turbo) off: the frequency no longer depends on temperature and
//!   on how many cores are busy;
//! - address space randomisation fully on (2), if it was lower: layout
//!   effects then vary between runs and average out over interleaved runs
//!   instead of biasing one variant for a whole experiment. pyperf leaves
//!   it on for the same reason; turning it off would be the wrong way;
//! - the perf sampling rate limit down to [`TUNED_SAMPLE_RATE`]: a
//!   sampling profiler beside the runs interrupts them less often. pyperf
//!   sets 1 per second; perflab keeps 1000, since its own `perflab
//!   profile` samples at 999 Hz by default;
//! - interrupts away from isolated CPUs (`isolcpus=`), where there are any.
//!
//! SMT is left alone (turning it off takes CPUs offline, a choice for the
//! machine's owner), and so is everything needing a reboot (`isolcpus`,
//! `nohz_full`); `perflab system show` recommends them.

use perflab_runner::CpuSet;
use serde::{Deserialize, Serialize};

use super::irq;
use super::run_dir::{Owner, read_state, remove_state, run_dir, write_state};
use super::{ASLR, PERF_SAMPLE_RATE, is_root, root_needed, without};
use crate::error::{Error, Result};
use crate::machine::{CPU_SYSFS, boost, boost_switch, governor_files, online_cpus, read};

/// The perf sampling rate limit `tune` sets: as low as leaves `perflab
/// profile`'s default of 999 samples per second working.
pub const TUNED_SAMPLE_RATE: u64 = 1000;

/// The state file of `tune`, in the run folder.
pub const TUNE_STATE: &str = "tune.json";

/// The values `tune` replaced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct TuneState {
    /// The process that tuned first (its boot tells a state from before a reboot).
    owner: Owner,
    /// Every change, in the order made.
    changes: Vec<Change>,
}

/// One file perflab changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Change {
    /// What it is, for people (`CPU frequency governor of CPU 0`).
    what: String,
    /// The file.
    path: String,
    /// Its value before perflab changed it.
    before: String,
    /// The value perflab wrote.
    after: String,
}

fn state_path() -> std::path::PathBuf {
    run_dir().join(TUNE_STATE)
}

/// `perflab system tune`: changes what helps measurements, saving what it
/// replaces first; returns one line per change (or why nothing changed).
pub fn tune() -> Result<Vec<String>> {
    if !is_root() {
        return Err(Error::usage(
            "system tune",
            root_needed("writes CPU and kernel settings in /sys and /proc"),
        ));
    }
    let path = state_path();
    let mut state = match read_state::<TuneState>(&path)? {
        Some(s) if !s.owner.from_another_boot() => s,
        _ => TuneState {
            owner: Owner::this_process(),
            changes: Vec::new(),
        },
    };
    let planned: Vec<Change> = planned_changes()
        .into_iter()
        // A file tuned before keeps the value from before the first tune.
        .filter(|c| !state.changes.iter().any(|old| old.path == c.path))
        .collect();
    if planned.is_empty() {
        return Ok(vec![
            "nothing to change: every setting perflab system tune knows is as it should be, or not available here (see perflab system show)".to_string(),
        ]);
    }
    state.changes.extend(planned.iter().cloned());
    // Saved before anything changes.
    write_state(&path, &state)?;
    let mut lines = Vec::new();
    for change in &planned {
        match super::cpuset::write_file(std::path::Path::new(&change.path), &change.after) {
            Ok(()) => lines.push(format!(
                "set {} to {} (was {})",
                change.what, change.after, change.before
            )),
            Err(e) => lines.push(format!(
                "could not set {} to {}: {}: {e}; left at {}",
                change.what, change.after, change.path, change.before
            )),
        }
    }
    lines.push(format!(
        "the values replaced are saved in {}; perflab system reset puts them back",
        path.display()
    ));
    Ok(lines)
}

/// `perflab system reset`: puts back what `tune` replaced; returns one
/// line per setting (or why there was nothing to do).
pub fn reset() -> Result<Vec<String>> {
    if !is_root() {
        return Err(Error::usage(
            "system reset",
            root_needed("writes CPU and kernel settings in /sys and /proc"),
        ));
    }
    let path = state_path();
    let Some(state) = read_state::<TuneState>(&path)? else {
        return Ok(vec![format!(
            "nothing to reset: perflab system tune has changed nothing on this machine since it booted (no {})",
            path.display()
        )]);
    };
    if state.owner.from_another_boot() {
        remove_state(&path)?;
        return Ok(vec![format!(
            "nothing to reset: the machine rebooted since perflab system tune, which put every setting back; removed {}",
            path.display()
        )]);
    }
    let mut lines = Vec::new();
    for change in state.changes.iter().rev() {
        let now = read(&change.path);
        match now.as_deref() {
            Some(now) if now == change.after.trim() => {
                match super::cpuset::write_file(std::path::Path::new(&change.path), &change.before)
                {
                    Ok(()) => lines.push(format!("set {} back to {}", change.what, change.before)),
                    Err(e) => lines.push(format!(
                        "could not set {} back to {}: {}: {e}",
                        change.what, change.before, change.path
                    )),
                }
            }
            Some(now) if now == change.before.trim() => {}
            Some(now) => lines.push(format!(
                "left {} at {now}: something else changed it after perflab system tune set {}",
                change.what, change.after
            )),
            None => lines.push(format!(
                "{} is gone ({}); nothing to put back",
                change.what, change.path
            )),
        }
    }
    remove_state(&path)?;
    if lines.is_empty() {
        lines.push("every setting was already back as it was before perflab system tune".into());
    }
    Ok(lines)
}

/// What `tune` would change now, from the settings as they are.
fn planned_changes() -> Vec<Change> {
    let mut changes = Vec::new();
    for (cpu, file) in governor_files() {
        let path = file.to_string_lossy().to_string();
        let available = read(&format!(
            "{CPU_SYSFS}/cpu{cpu}/cpufreq/scaling_available_governors"
        ))
        .unwrap_or_default();
        match read(&path) {
            Some(g)
                if g != "performance"
                    && available.split_whitespace().any(|a| a == "performance") =>
            {
                changes.push(Change {
                    what: format!("the CPU frequency governor of CPU {cpu}"),
                    path,
                    before: g,
                    after: "performance".into(),
                })
            }
            _ => {}
        }
    }
    if let (Some(switch), Some(true)) = (boost_switch(), boost()) {
        if let Some(before) = read(&switch.path) {
            changes.push(Change {
                what: format!("boost ({})", switch.path),
                after: switch.value_for(false).into(),
                path: switch.path,
                before,
            });
        }
    }
    if let Some(before) = read(ASLR).filter(|v| v == "0" || v == "1") {
        changes.push(Change {
            what: "address space randomisation".into(),
            path: ASLR.into(),
            before,
            after: "2".into(),
        });
    }
    if let Some(before) =
        read(PERF_SAMPLE_RATE).filter(|v| v.parse::<u64>().is_ok_and(|r| r > TUNED_SAMPLE_RATE))
    {
        changes.push(Change {
            what: "the perf sampling rate limit".into(),
            path: PERF_SAMPLE_RATE.into(),
            before,
            after: TUNED_SAMPLE_RATE.to_string(),
        });
    }
    changes.extend(interrupts_off_isolated_cpus());
    changes
}

/// Interrupts (and the default for new ones) moved off the isolated CPUs,
/// where there are any and the rest of the machine has a CPU.
fn interrupts_off_isolated_cpus() -> Vec<Change> {
    let isolated = read(&format!("{CPU_SYSFS}/isolated")).and_then(|l| CpuSet::parse(&l).ok());
    let (Some(isolated), Some(online)) = (isolated, online_cpus()) else {
        return Vec::new();
    };
    let Some(rest) = without(&online, &isolated) else {
        return Vec::new();
    };
    let mut changes = Vec::new();
    for (irq, list) in irq::affinities() {
        let Ok(set) = CpuSet::parse(&list) else {
            continue;
        };
        if set.cpus().iter().any(|c| isolated.cpus().contains(c)) {
            let after = without(&set, &isolated).unwrap_or_else(|| rest.clone());
            changes.push(Change {
                what: format!("the affinity of interrupt {irq}"),
                path: format!("{}/{irq}/smp_affinity_list", irq::PROC_IRQ),
                before: list,
                after: after.to_string(),
            });
        }
    }
    let default_path = format!("{}/default_smp_affinity", irq::PROC_IRQ);
    if let Some(mask) = read(&default_path) {
        if irq::mask_to_set(&mask)
            .is_some_and(|s| s.cpus().iter().any(|c| isolated.cpus().contains(c)))
        {
            changes.push(Change {
                what: "the default affinity of new interrupts".into(),
                path: default_path,
                before: mask,
                after: irq::set_to_mask(&rest),
            });
        }
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_planned_changes_each_replace_a_value_by_another() {
        for change in planned_changes() {
            assert_ne!(change.before, change.after, "{change:?}");
            assert!(std::path::Path::new(&change.path).exists(), "{change:?}");
        }
    }
}
