//! Error control over several decisions: one confidence level for a whole
//! experiment (a suite of cells, the steps of a bisection), split between
//! its parts.

use crate::error::StatsError;
use crate::sample::check_confidence;

/// The confidence each of `comparisons` intervals needs so that all of them
/// hold at once with probability at least `confidence`: 1 - (1 - confidence)
/// / comparisons.
///
/// Method: the Bonferroni inequality (union bound): P(some interval misses)
/// <= sum of the individual miss probabilities = comparisons · (1 - confidence)
/// / comparisons. Reference: Bonferroni, "Teoria statistica delle classi e
/// calcolo delle probabilità", 1936; Dunn, "Multiple comparisons among means",
/// JASA 56(293), 1961. With confidence sequences (each valid at every look,
/// [`crate::sequential::confidence_sequence::ConfidenceSequence`]) the bound
/// holds for every look of every interval at once, so any stopping rule, even
/// one that looks at the other comparisons, keeps it.
///
/// Assumptions: none about dependence: the comparisons may share data (cells
/// of one scenario share its baseline runs). The price is conservatism: for
/// independent comparisons the family error is 1 - (1 - α/k)^k, a little
/// below α.
///
/// # Errors
/// [`StatsError::InvalidConfidence`] unless 0.5 < confidence < 1, or if the
/// split level rounds to 1 (more comparisons than a 64-bit float can split
/// the budget between); [`StatsError::InvalidConfig`] if `comparisons` is 0.
pub fn bonferroni_confidence(confidence: f64, comparisons: usize) -> Result<f64, StatsError> {
    check_confidence(confidence)?;
    if comparisons == 0 {
        return Err(StatsError::InvalidConfig {
            field: "cells",
            reason: "is 0; an experiment needs at least one comparison to decide".into(),
        });
    }
    let split = 1.0 - (1.0 - confidence) / comparisons as f64;
    check_confidence(split)?;
    Ok(split)
}

/// The confidence each step of a bisection should decide at so that the
/// whole search is right with probability at least `confidence`:
/// 1 - (1 - confidence) / max_steps.
///
/// A binary search over the commits between a good and a bad revision takes
/// at most ceil(log2(commits)) comparisons; `max_steps` is that plus the
/// slack the caller allows (steps repeated or skipped because a build failed
/// or a comparison was INCONCLUSIVE). Each step is an A/B decision; the search
/// ends on the right commit if every step's verdict is right, which by the
/// Bonferroni inequality (see [`bonferroni_confidence`]) happens with
/// probability at least 1 - max_steps · (1 - step confidence) = `confidence`,
/// whichever steps the search happens to take. Steps beyond `max_steps` are
/// not covered: stop the search there rather than extend it.
///
/// `max_steps` of 0 is taken as 1. A `confidence` outside (0.5, 1) (or NaN)
/// is returned unchanged, so that the configuration that uses it rejects the
/// user's own value with its usual message
/// ([`crate::sequential::config::SequentialConfig::validate`]).
pub fn bisect_step_confidence(confidence: f64, max_steps: usize) -> f64 {
    if check_confidence(confidence).is_err() {
        return confidence;
    }
    1.0 - (1.0 - confidence) / max_steps.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twelve_cells_at_95_percent_each_decide_at_99_58_percent() {
        let c = bonferroni_confidence(0.95, 12).unwrap();
        assert!((c - (1.0 - 0.05 / 12.0)).abs() < 1e-15);
        assert!((c - 0.995_833).abs() < 1e-6);
    }

    #[test]
    fn one_comparison_keeps_the_confidence() {
        assert_eq!(bonferroni_confidence(0.95, 1).unwrap(), 0.95);
        assert_eq!(bisect_step_confidence(0.95, 1), 0.95);
        assert_eq!(bisect_step_confidence(0.95, 0), 0.95);
    }

    #[test]
    fn no_comparison_or_a_bad_level_is_an_error() {
        assert!(matches!(
            bonferroni_confidence(0.95, 0),
            Err(StatsError::InvalidConfig { field: "cells", .. })
        ));
        assert!(bonferroni_confidence(1.0, 3).is_err());
        assert!(bonferroni_confidence(0.95, usize::MAX).is_err());
    }

    #[test]
    fn a_bisection_of_1000_commits_decides_each_step_at_99_5_percent() {
        // ceil(log2(1000)) = 10 steps.
        let c = bisect_step_confidence(0.95, 10);
        assert!((c - 0.995).abs() < 1e-12);
        assert!(bisect_step_confidence(f64::NAN, 10).is_nan());
        assert_eq!(bisect_step_confidence(1.5, 10), 1.5);
    }
}
