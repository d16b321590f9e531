//! A differential profile: how each function's share of the samples moved
//! from the baseline to the candidate, with intervals.
//!
//! Shares are compared, not counts, because the two runs need not take the
//! same number of samples. A share can rise only because another one fell:
//! read the biggest moves first. Each change gets Newcombe's interval for a
//! difference of two independent proportions; a function *moved* when the
//! interval of its self or inclusive change excludes zero.

use std::collections::BTreeSet;

use perflab_format::sampling::{OffCpuChange, OffCpuProfile, ShareChange};
use perflab_stats::proportion_difference;

use super::shares::FunctionCounts;
use crate::error::Result;

/// Every function seen in either profile with how its shares changed,
/// those that moved first, then by the size of the larger move.
pub fn share_changes(
    baseline: &FunctionCounts,
    candidate: &FunctionCounts,
    confidence: f64,
) -> Result<Vec<ShareChange>> {
    if baseline.total == 0 || candidate.total == 0 {
        return Ok(Vec::new());
    }
    let names: BTreeSet<&String> = baseline
        .inclusive_samples
        .keys()
        .chain(candidate.inclusive_samples.keys())
        .chain(baseline.self_samples.keys())
        .chain(candidate.self_samples.keys())
        .collect();
    let mut changes = Vec::with_capacity(names.len());
    for name in names {
        let own = |c: &FunctionCounts| c.self_samples.get(name).copied().unwrap_or(0);
        let inclusive = |c: &FunctionCounts| {
            c.inclusive_samples
                .get(name)
                .copied()
                .unwrap_or_else(|| own(c))
        };
        let s = proportion_difference(
            own(baseline),
            baseline.total,
            own(candidate),
            candidate.total,
            confidence,
        )?;
        let i = proportion_difference(
            inclusive(baseline),
            baseline.total,
            inclusive(candidate),
            candidate.total,
            confidence,
        )?;
        let share = |n: u64, c: &FunctionCounts| n as f64 / c.total as f64;
        changes.push(ShareChange {
            name: name.clone(),
            self_shares: [
                share(own(baseline), baseline),
                share(own(candidate), candidate),
            ],
            self_change: s.estimate,
            self_ci: [s.lo, s.hi],
            inclusive_shares: [
                share(inclusive(baseline), baseline),
                share(inclusive(candidate), candidate),
            ],
            inclusive_change: i.estimate,
            inclusive_ci: [i.lo, i.hi],
            moved: s.lo > 0.0 || s.hi < 0.0 || i.lo > 0.0 || i.hi < 0.0,
        });
    }
    let size = |c: &ShareChange| c.self_change.abs().max(c.inclusive_change.abs());
    changes.sort_by(|a, b| {
        b.moved
            .cmp(&a.moved)
            .then(size(b).total_cmp(&size(a)))
            .then(a.name.cmp(&b.name))
    });
    Ok(changes)
}

/// How each function's time off the CPU moved from the baseline to the
/// candidate (functions of either profile), largest move of blocked plus
/// preempted time first, `top` of them. Times of one run each: no interval.
pub fn off_cpu_changes(
    baseline: &OffCpuProfile,
    candidate: &OffCpuProfile,
    top: usize,
) -> Vec<OffCpuChange> {
    let find = |profile: &OffCpuProfile, name: &str| {
        profile
            .functions
            .iter()
            .find(|f| f.name == name)
            .map_or((0, 0), |f| (f.blocked_ns, f.preempted_ns))
    };
    let names: BTreeSet<&String> = baseline
        .functions
        .iter()
        .chain(&candidate.functions)
        .map(|f| &f.name)
        .collect();
    let mut changes: Vec<OffCpuChange> = names
        .into_iter()
        .map(|name| {
            let (a, b) = (find(baseline, name), find(candidate, name));
            OffCpuChange {
                name: name.clone(),
                blocked_ns: [a.0, b.0],
                preempted_ns: [a.1, b.1],
            }
        })
        .collect();
    let moved = |c: &OffCpuChange| {
        let total = |i: usize| (c.blocked_ns[i] + c.preempted_ns[i]) as i128;
        (total(1) - total(0)).unsigned_abs()
    };
    changes.sort_by(|a, b| moved(b).cmp(&moved(a)).then(a.name.cmp(&b.name)));
    changes.truncate(top);
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use perflab_report::sampling::FoldedStacks;

    fn counts(text: &str) -> FunctionCounts {
        FunctionCounts::of(&FoldedStacks::parse(text).unwrap())
    }

    #[test]
    fn a_function_whose_share_fell_moved_and_comes_first() {
        let a = counts("p;main;heavy 750\np;main;light 250\n");
        let b = counts("p;main;heavy 500\np;main;light 500\n");
        let changes = share_changes(&a, &b, 0.95).unwrap();
        let first = &changes[0];
        assert!(first.moved);
        assert!(first.name == "heavy" || first.name == "light");
        let heavy = changes.iter().find(|c| c.name == "heavy").unwrap();
        assert!((heavy.self_change + 0.25).abs() < 1e-12);
        assert!(heavy.self_ci[1] < 0.0);
        let main = changes.iter().find(|c| c.name == "main").unwrap();
        assert!(!main.moved, "main is on every stack in both");
    }

    #[test]
    fn equal_profiles_show_no_move() {
        let a = counts("p;main;f 300\np;main;g 100\n");
        let changes = share_changes(&a, &a, 0.95).unwrap();
        assert!(changes.iter().all(|c| !c.moved));
    }
}
