//! Interrupt affinity (`/proc/irq`): which CPUs may serve each interrupt,
//! and the default for interrupts registered later. Steering interrupts
//! away from the CPUs that runs use keeps a disk or network interrupt from
//! stopping a run halfway; the values replaced are kept so that they can
//! be put back. Interrupts the kernel will not move (per-CPU ones, those
//! whose driver manages their affinity) refuse the write; they are
//! counted and left alone.

use std::path::{Path, PathBuf};

use perflab_runner::CpuSet;
use serde::{Deserialize, Serialize};

/// Where the kernel lists interrupts.
pub const PROC_IRQ: &str = "/proc/irq";

/// The affinities perflab replaced, to put back.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SavedAffinities {
    /// `default_smp_affinity` as it was (a hexadecimal mask), if replaced.
    pub default_mask: Option<String>,
    /// Each interrupt's `smp_affinity_list` as it was.
    pub irqs: Vec<(u32, String)>,
}

/// What steering did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Steered {
    /// Interrupts now served by the given CPUs only.
    pub moved: usize,
    /// Interrupts the kernel would not move.
    pub left: usize,
}

/// Every interrupt with an affinity file, and its affinity now.
pub fn affinities() -> Vec<(u32, String)> {
    let Ok(entries) = std::fs::read_dir(PROC_IRQ) else {
        return Vec::new();
    };
    let mut found: Vec<(u32, String)> = entries
        .flatten()
        .filter_map(|e| {
            let irq: u32 = e.file_name().to_str()?.parse().ok()?;
            let list = std::fs::read_to_string(e.path().join("smp_affinity_list")).ok()?;
            Some((irq, list.trim().to_string()))
        })
        .collect();
    found.sort();
    found
}

/// The default affinity of interrupts registered later, as a CPU list.
pub fn default_affinity() -> Option<CpuSet> {
    let mask = std::fs::read_to_string(default_mask_path()).ok()?;
    mask_to_set(mask.trim())
}

fn default_mask_path() -> PathBuf {
    Path::new(PROC_IRQ).join("default_smp_affinity")
}

fn affinity_path(irq: u32) -> PathBuf {
    Path::new(PROC_IRQ)
        .join(irq.to_string())
        .join("smp_affinity_list")
}

/// The values every interrupt (and the default) has now, to keep before
/// [`steer`] changes them.
pub fn save() -> SavedAffinities {
    SavedAffinities {
        default_mask: std::fs::read_to_string(default_mask_path())
            .ok()
            .map(|m| m.trim().to_string()),
        irqs: affinities(),
    }
}

/// Sets every interrupt that may use a CPU outside `to` (and the default)
/// to `to`; those already within `to` are left as they are.
pub fn steer(to: &CpuSet) -> Steered {
    let mut steered = Steered::default();
    let _ = std::fs::write(default_mask_path(), set_to_mask(to));
    for (irq, list) in affinities() {
        let within = CpuSet::parse(&list).is_ok_and(|set| set.outside(to).is_empty());
        if within {
            continue;
        }
        match std::fs::write(affinity_path(irq), to.to_string()) {
            Ok(()) => steered.moved += 1,
            Err(_) => steered.left += 1,
        }
    }
    steered
}

/// Puts back what [`save`] kept; an interrupt gone since is skipped.
pub fn restore(saved: &SavedAffinities) {
    if let Some(mask) = &saved.default_mask {
        let _ = std::fs::write(default_mask_path(), mask);
    }
    for (irq, list) in &saved.irqs {
        let path = affinity_path(*irq);
        let now = std::fs::read_to_string(&path).map(|t| t.trim().to_string());
        if now.as_deref().is_ok_and(|now| now != list) {
            let _ = std::fs::write(&path, list);
        }
    }
}

/// A hexadecimal CPU mask as the kernel prints it (`3`, `ff,ffffffff`).
pub fn mask_to_set(mask: &str) -> Option<CpuSet> {
    let mut cpus = Vec::new();
    // Comma-separated 32-bit words, the most significant first.
    for (word_index, word) in mask.rsplit(',').enumerate() {
        let bits = u32::from_str_radix(word.trim(), 16).ok()?;
        for bit in 0..32 {
            if bits & (1 << bit) != 0 {
                cpus.push((word_index * 32 + bit).to_string());
            }
        }
    }
    if cpus.is_empty() {
        return None;
    }
    CpuSet::parse(&cpus.join(",")).ok()
}

/// A CPU set as the kernel's hexadecimal mask.
pub fn set_to_mask(set: &CpuSet) -> String {
    let last = set.cpus().last().copied().unwrap_or(0);
    let mut words = vec![0u32; last / 32 + 1];
    for &cpu in set.cpus() {
        words[cpu / 32] |= 1 << (cpu % 32);
    }
    words
        .iter()
        .rev()
        .map(|w| format!("{w:08x}"))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_and_cpu_lists_convert_both_ways_across_words() {
        let set = mask_to_set("3").unwrap();
        assert_eq!(set.to_string(), "0-1");
        assert_eq!(set_to_mask(&set), "00000003");
        let wide = CpuSet::parse("1,33").unwrap();
        assert_eq!(set_to_mask(&wide), "00000002,00000002");
        assert_eq!(mask_to_set("00000002,00000002").unwrap(), wide);
        assert_eq!(mask_to_set("0"), None);
        assert_eq!(mask_to_set("zz"), None);
    }

    #[test]
    fn the_interrupts_of_this_machine_are_listed_with_cpu_lists() {
        for (_, list) in affinities() {
            assert!(CpuSet::parse(&list).is_ok(), "{list}");
        }
    }
}
