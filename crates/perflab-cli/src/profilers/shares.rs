//! Functions' shares of the samples, with intervals.
//!
//! A sample's *self* function is its innermost frame; its *inclusive*
//! functions are every function on its stack, each counted once however
//! often it recurses. A share is a count over all samples of the profile.
//! Each share gets a Wilson interval: sampling on a CPU-time clock picks
//! moments of the run, and the share of moments spent in a function is a
//! proportion. The interval is for each share on its own, not for the
//! whole table at once.

use std::collections::HashMap;

use perflab_format::sampling::FunctionShare;
use perflab_stats::wilson_interval;

use crate::error::Result;
use perflab_report::sampling::FoldedStacks;

/// Half-width of a share's interval above which the profile is too small
/// to read shares from (5 percentage points).
pub const MAX_HALF_WIDTH: f64 = 0.05;

/// Per-function sample counts of one profile.
#[derive(Debug, Clone, Default)]
pub struct FunctionCounts {
    /// All samples.
    pub total: u64,
    /// Samples per innermost function.
    pub self_samples: HashMap<String, u64>,
    /// Samples per function anywhere on the stack.
    pub inclusive_samples: HashMap<String, u64>,
    /// Samples whose innermost frame has no name (`[unknown]` or `[object]`).
    pub unknown: u64,
}

/// True for the names perf gives code it has no symbol for.
pub fn is_unnamed(frame: &str) -> bool {
    frame.starts_with('[') && frame.ends_with(']')
}

impl FunctionCounts {
    /// Counts the functions of `folded`; the first frame (the process name) is not a function.
    pub fn of(folded: &FoldedStacks) -> Self {
        let mut counts = FunctionCounts::default();
        for (frames, samples) in folded.stacks() {
            counts.total += samples;
            let functions = frames.get(1..).unwrap_or_default();
            let leaf = functions.last().copied().unwrap_or("[unknown]");
            *counts.self_samples.entry(leaf.to_string()).or_insert(0) += samples;
            if is_unnamed(leaf) {
                counts.unknown += samples;
            }
            let mut seen: Vec<&str> = Vec::with_capacity(functions.len());
            for f in functions {
                if !seen.contains(f) {
                    seen.push(f);
                    *counts.inclusive_samples.entry(f.to_string()).or_insert(0) += samples;
                }
            }
        }
        counts
    }

    /// The share of `function`, self and inclusive, with intervals.
    pub fn share(&self, function: &str, confidence: f64) -> Result<FunctionShare> {
        let own = self.self_samples.get(function).copied().unwrap_or(0);
        let inclusive = self.inclusive_samples.get(function).copied().unwrap_or(own);
        let s = wilson_interval(own, self.total, confidence)?;
        let i = wilson_interval(inclusive, self.total, confidence)?;
        Ok(FunctionShare {
            name: function.to_string(),
            self_samples: own,
            self_share: s.estimate,
            self_ci: [s.lo, s.hi],
            inclusive_samples: inclusive,
            inclusive_share: i.estimate,
            inclusive_ci: [i.lo, i.hi],
        })
    }

    /// The `top` functions by self samples together with the `top` by
    /// inclusive samples, largest self share first.
    pub fn top(&self, top: usize, confidence: f64) -> Result<Vec<FunctionShare>> {
        if self.total == 0 {
            return Ok(Vec::new());
        }
        let mut names: Vec<&String> = Vec::new();
        for map in [&self.self_samples, &self.inclusive_samples] {
            let mut ranked: Vec<(&String, &u64)> = map.iter().collect();
            ranked.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            for (name, _) in ranked.into_iter().take(top) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        let mut shares = names
            .into_iter()
            .map(|n| self.share(n, confidence))
            .collect::<Result<Vec<_>>>()?;
        shares.sort_by(|a, b| {
            (b.self_samples, b.inclusive_samples, &a.name).cmp(&(
                a.self_samples,
                a.inclusive_samples,
                &b.name,
            ))
        });
        Ok(shares)
    }
}

/// A warning when the profile is too small for the shares shown: when some
/// shown share's interval is wider than ±[`MAX_HALF_WIDTH`], saying how many
/// samples would narrow it enough.
pub fn precision_warning(total: u64, shares: &[FunctionShare], confidence: f64) -> Option<String> {
    let widest = shares
        .iter()
        .flat_map(|s| {
            [
                (s.self_share, (s.self_ci[1] - s.self_ci[0]) / 2.0),
                (
                    s.inclusive_share,
                    (s.inclusive_ci[1] - s.inclusive_ci[0]) / 2.0,
                ),
            ]
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    if widest.1 <= MAX_HALF_WIDTH {
        return None;
    }
    let needed = samples_needed(widest.0, confidence);
    Some(format!(
        "only {}: a share of {:.0}% is known only to within ±{:.0} points. \
         About {needed} samples are needed for ±{:.0} points: run the program longer \
         (a bigger input, or a loop around it) or raise --frequency",
        perflab_report::units::plural(total as usize, "sample"),
        widest.0 * 100.0,
        widest.1 * 100.0,
        MAX_HALF_WIDTH * 100.0
    ))
}

/// The fewest samples for which a share of `share` has a Wilson interval
/// no wider than ±[`MAX_HALF_WIDTH`] (doubling, then bisection).
fn samples_needed(share: f64, confidence: f64) -> u64 {
    let p = share.clamp(0.01, 0.99);
    let narrow_enough = |n: u64| {
        let k = (p * n as f64).round() as u64;
        wilson_interval(k, n, confidence).is_ok_and(|iv| (iv.hi - iv.lo) / 2.0 <= MAX_HALF_WIDTH)
    };
    let mut hi = 16u64;
    while !narrow_enough(hi) && hi < 1 << 40 {
        hi *= 2;
    }
    let mut lo = hi / 2;
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if narrow_enough(mid) {
            hi = mid
        } else {
            lo = mid
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(text: &str) -> FoldedStacks {
        FoldedStacks::parse(text).unwrap()
    }

    #[test]
    fn self_counts_the_innermost_frame_and_inclusive_every_frame_once() {
        let counts = FunctionCounts::of(&folded("p;main;f;f 3\np;main;g 1\np;[p] 1\n"));
        assert_eq!(counts.total, 5);
        assert_eq!(counts.self_samples["f"], 3);
        assert_eq!(counts.inclusive_samples["f"], 3, "recursion counts once");
        assert_eq!(counts.inclusive_samples["main"], 4);
        assert_eq!(counts.unknown, 1);
        assert!(
            !counts.inclusive_samples.contains_key("p"),
            "the process is not a function"
        );
    }

    #[test]
    fn shares_carry_their_counts_and_intervals_that_hold_them() {
        let counts = FunctionCounts::of(&folded("p;main;heavy 300\np;main;light 100\n"));
        let top = counts.top(10, 0.95).unwrap();
        assert_eq!(top[0].name, "heavy");
        assert_eq!(top[0].self_samples, 300);
        assert!((top[0].self_share - 0.75).abs() < 1e-12);
        assert!(top[0].self_ci[0] < 0.75 && 0.75 < top[0].self_ci[1]);
        let main = top.iter().find(|s| s.name == "main").unwrap();
        assert_eq!(main.self_samples, 0);
        assert_eq!(main.inclusive_share, 1.0);
    }

    #[test]
    fn a_small_profile_warns_and_a_large_one_does_not() {
        let small = FunctionCounts::of(&folded("p;main;f 40\np;main;g 25\n"));
        let warning = precision_warning(65, &small.top(5, 0.95).unwrap(), 0.95).unwrap();
        assert!(warning.contains("only 65 samples"), "{warning}");
        let large = FunctionCounts::of(&folded("p;main;f 4000\np;main;g 2500\n"));
        assert!(precision_warning(6500, &large.top(5, 0.95).unwrap(), 0.95).is_none());
    }

    #[test]
    fn about_385_samples_pin_a_half_share_to_five_points() {
        // n = z^2 p (1 - p) / h^2 = 1.96^2 / 4 / 0.0025 = 384 by the normal
        // approximation; the Wilson interval needs a couple more.
        let n = samples_needed(0.5, 0.95);
        assert!((380..=390).contains(&n), "{n}");
    }
}
