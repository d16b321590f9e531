//! How the runs of a duet experiment shared the machine (the `duet` section
//! of a `perflab-result/1` document, optional: its presence says the runs
//! were made in duet mode, A and B started together on CPUs of their own;
//! documents without it were interleaved, one run after the other).

use serde::{Deserialize, Serialize};

/// The duet mode's setup and how well each pair's runs overlapped.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DuetDoc {
    /// The two CPUs the runs were pinned to, one run on each; the first
    /// is the baseline's in the first block (a warm-up, if there are
    /// any), and they swap every block.
    pub cpus: [usize; 2],
    /// Median over the measured pairs of each pair's overlap: the time
    /// both runs were running, as a fraction of the longer run.
    pub median_overlap: f64,
    /// The lowest overlap of a pair.
    pub min_overlap: f64,
    /// Every measured pair, in order.
    #[serde(default)]
    pub pairs: Vec<DuetPairDoc>,
}

/// One pair of runs started together: when each ran, as perflab saw it
/// (seconds since perflab prepared the experiment's first run).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DuetPairDoc {
    /// The CPU of the baseline's run (the candidate's is the other one).
    pub baseline_cpu: usize,
    /// `[start, end]` of the baseline's run.
    pub baseline: [f64; 2],
    /// `[start, end]` of the candidate's run.
    pub candidate: [f64; 2],
    /// The time both ran, as a fraction of the longer run.
    pub overlap: f64,
}

impl DuetPairDoc {
    /// A pair from the two runs' `[start, end]` times, with its overlap.
    pub fn new(baseline_cpu: usize, baseline: [f64; 2], candidate: [f64; 2]) -> Self {
        let together = baseline[1].min(candidate[1]) - baseline[0].max(candidate[0]);
        let longer = (baseline[1] - baseline[0]).max(candidate[1] - candidate[0]);
        let overlap = if longer > 0.0 {
            (together.max(0.0) / longer).min(1.0)
        } else {
            1.0
        };
        Self {
            baseline_cpu,
            baseline,
            candidate,
            overlap,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overlap_is_the_shared_time_over_the_longer_run() {
        assert_eq!(DuetPairDoc::new(0, [0.0, 1.0], [0.0, 1.0]).overlap, 1.0);
        assert_eq!(DuetPairDoc::new(0, [0.0, 1.0], [0.0, 0.5]).overlap, 0.5);
        assert_eq!(DuetPairDoc::new(1, [0.0, 2.0], [1.0, 3.0]).overlap, 0.5);
        assert_eq!(DuetPairDoc::new(1, [0.0, 1.0], [2.0, 3.0]).overlap, 0.0);
    }
}
