//! Samples checked once: the measurements every function of the crate takes,
//! validated when they are wrapped so that nothing past the entry point needs
//! to check them again.
//!
//! A [`Sample`] has at least one value and every value is finite; a
//! [`PositiveSample`] is a sample whose values are also > 0, the precondition
//! of everything computed on the log scale. Building one returns the
//! [`StatsError`] that names the sample ([`SampleRole`]) and the index of the
//! first value at fault, so every function reports bad input the same way.

use crate::error::{SampleRole, StatsError};

/// Measurements known to be non-empty and finite.
///
/// Built only by [`Sample::new`], [`Sample::at_least`] or [`Sample::pair`],
/// which check the values once; the functions that take a `Sample` rely on
/// that and never see NaN or an infinity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample<'a> {
    values: &'a [f64],
    role: SampleRole,
}

impl<'a> Sample<'a> {
    /// At least one value, every one finite.
    ///
    /// # Errors
    /// [`StatsError::TooFew`] if `values` is empty; [`StatsError::NonFinite`]
    /// naming the first value that is NaN or infinite.
    pub fn new(values: &'a [f64], role: SampleRole) -> Result<Self, StatsError> {
        Self::at_least(values, 1, role)
    }

    /// At least `needed` values (and at least one), every one finite. The
    /// count is checked before the values.
    ///
    /// # Errors
    /// As [`Sample::new`], with `needed` in [`StatsError::TooFew`].
    pub fn at_least(
        values: &'a [f64],
        needed: usize,
        role: SampleRole,
    ) -> Result<Self, StatsError> {
        check_count(values, needed.max(1), role)?;
        Self::checked_values(values, role)
    }

    /// A baseline and a candidate sample of at least `needed` values each:
    /// both counts are checked before any value, so a sample that is too
    /// small is reported first.
    ///
    /// # Errors
    /// As [`Sample::at_least`], naming the baseline or the candidate.
    pub fn pair(
        baseline: &'a [f64],
        candidate: &'a [f64],
        needed: usize,
    ) -> Result<(Self, Self), StatsError> {
        check_count(baseline, needed.max(1), SampleRole::Baseline)?;
        check_count(candidate, needed.max(1), SampleRole::Candidate)?;
        Ok((
            Self::checked_values(baseline, SampleRole::Baseline)?,
            Self::checked_values(candidate, SampleRole::Candidate)?,
        ))
    }

    /// Values computed from checked ones and finite by construction (the
    /// logarithms of a [`PositiveSample`], the log gains of two).
    pub(crate) fn derived(values: &'a [f64], role: SampleRole) -> Self {
        debug_assert!(!values.is_empty() && values.iter().all(|x| x.is_finite()));
        Sample { values, role }
    }

    fn checked_values(values: &'a [f64], role: SampleRole) -> Result<Self, StatsError> {
        match values.iter().position(|x| !x.is_finite()) {
            Some(index) => Err(StatsError::NonFinite {
                sample: role,
                index,
                value: values[index],
            }),
            None => Ok(Sample { values, role }),
        }
    }

    /// The values, in the order given.
    pub fn values(&self) -> &'a [f64] {
        self.values
    }

    /// Which input the values are.
    pub fn role(&self) -> SampleRole {
        self.role
    }

    /// The same sample with a sorted copy of its values (one sort, shared by
    /// every statistic of the sample that needs order).
    pub fn sorted(self) -> SortedSample<'a> {
        let mut sorted = self.values.to_vec();
        sorted.sort_unstable_by(f64::total_cmp);
        SortedSample {
            sample: self,
            sorted,
        }
    }

    /// The same sample, checked to be strictly positive.
    ///
    /// # Errors
    /// [`StatsError::NonPositive`] naming the first value that is 0 or less.
    pub fn positive(self) -> Result<PositiveSample<'a>, StatsError> {
        match self.values.iter().position(|&x| x <= 0.0) {
            Some(index) => Err(StatsError::NonPositive {
                sample: self.role,
                index,
                value: self.values[index],
            }),
            None => Ok(PositiveSample(self)),
        }
    }
}

/// A checked [`Sample`] with its values sorted once, ascending by
/// [`f64::total_cmp`]: the median, quartiles and MAD of a summary, the ranks
/// of a rank test and the pairwise differences of the Hodges-Lehmann shift
/// all read their order from this one copy, so a large sample is sorted once
/// rather than once per statistic. Built by [`Sample::sorted`].
#[derive(Debug, Clone, PartialEq)]
pub struct SortedSample<'a> {
    sample: Sample<'a>,
    sorted: Vec<f64>,
}

impl<'a> SortedSample<'a> {
    /// The sample, its values in the order given.
    pub fn sample(&self) -> Sample<'a> {
        self.sample
    }

    /// The values, in the order given.
    pub fn values(&self) -> &'a [f64] {
        self.sample.values
    }

    /// The values, ascending.
    pub fn sorted(&self) -> &[f64] {
        &self.sorted
    }
}

/// Measurements known to be non-empty, finite and > 0: what relative changes,
/// geometric means and every other log-scale method take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PositiveSample<'a>(Sample<'a>);

impl<'a> PositiveSample<'a> {
    /// At least one value, every one finite and > 0.
    ///
    /// # Errors
    /// As [`Sample::new`], then [`StatsError::NonPositive`] naming the first
    /// value that is 0 or less.
    pub fn new(values: &'a [f64], role: SampleRole) -> Result<Self, StatsError> {
        Sample::new(values, role)?.positive()
    }

    /// At least `needed` values (and at least one), every one finite and > 0.
    ///
    /// # Errors
    /// As [`Sample::at_least`] and [`Sample::positive`].
    pub fn at_least(
        values: &'a [f64],
        needed: usize,
        role: SampleRole,
    ) -> Result<Self, StatsError> {
        Sample::at_least(values, needed, role)?.positive()
    }

    /// A baseline and a candidate of at least `needed` values each, both
    /// counts checked first, then the baseline's values, then the candidate's.
    ///
    /// # Errors
    /// As [`Sample::pair`] and [`Sample::positive`].
    pub fn pair(
        baseline: &'a [f64],
        candidate: &'a [f64],
        needed: usize,
    ) -> Result<(Self, Self), StatsError> {
        check_count(baseline, needed.max(1), SampleRole::Baseline)?;
        check_count(candidate, needed.max(1), SampleRole::Candidate)?;
        Ok((
            Sample::checked_values(baseline, SampleRole::Baseline)?.positive()?,
            Sample::checked_values(candidate, SampleRole::Candidate)?.positive()?,
        ))
    }

    /// The values, in the order given.
    pub fn values(&self) -> &'a [f64] {
        self.0.values
    }

    /// Which input the values are.
    pub fn role(&self) -> SampleRole {
        self.0.role
    }

    /// The natural logarithms of the values, in order (finite, since every
    /// value is finite and > 0).
    pub fn logs(&self) -> Vec<f64> {
        self.0.values.iter().map(|x| x.ln()).collect()
    }

    /// The sample without the knowledge that it is positive.
    pub fn sample(&self) -> Sample<'a> {
        self.0
    }
}

fn check_count(values: &[f64], needed: usize, role: SampleRole) -> Result<(), StatsError> {
    if values.len() < needed {
        Err(StatsError::TooFew {
            sample: role,
            got: values.len(),
            needed,
        })
    } else {
        Ok(())
    }
}

/// A two-sided confidence level strictly between 0.5 and 1.
pub(crate) fn check_confidence(value: f64) -> Result<(), StatsError> {
    if value.is_finite() && value > 0.5 && value < 1.0 {
        Ok(())
    } else {
        Err(StatsError::InvalidConfidence { value })
    }
}
