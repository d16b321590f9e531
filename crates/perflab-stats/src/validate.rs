//! Input checks shared by every public function (internal).

use crate::{Sample, StatsError};

/// Every value finite; the error names the first bad one.
pub(crate) fn finite(xs: &[f64], sample: Sample) -> Result<(), StatsError> {
    match xs.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(StatsError::NonFinite {
            sample,
            index,
            value: xs[index],
        }),
        None => Ok(()),
    }
}

/// Every value finite and strictly positive (the log-scale precondition).
pub(crate) fn positive(xs: &[f64], sample: Sample) -> Result<(), StatsError> {
    finite(xs, sample)?;
    match xs.iter().position(|&x| x <= 0.0) {
        Some(index) => Err(StatsError::NonPositive {
            sample,
            index,
            value: xs[index],
        }),
        None => Ok(()),
    }
}

/// At least `needed` values.
pub(crate) fn at_least(xs: &[f64], needed: usize, sample: Sample) -> Result<(), StatsError> {
    if xs.len() < needed {
        Err(StatsError::TooFew {
            sample,
            got: xs.len(),
            needed,
        })
    } else {
        Ok(())
    }
}

/// A two-sided confidence level strictly between 0.5 and 1.
pub(crate) fn confidence(value: f64) -> Result<(), StatsError> {
    if value.is_finite() && value > 0.5 && value < 1.0 {
        Ok(())
    } else {
        Err(StatsError::InvalidConfidence { value })
    }
}
