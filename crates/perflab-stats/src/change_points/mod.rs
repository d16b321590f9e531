//! Change points: where a metric's level changed over a series of commits,
//! the false-alarm rate holding for the whole series.
//!
//! Method: E-divisive means (Matteson & James, JASA 109(505), 2014) on the
//! logarithms of the runs, each split tested by permutation. Assumptions:
//! within a stretch without a change the groups (or, if asked, the single
//! runs) are exchangeable; the values are > 0.

pub mod e_divisive;
pub(crate) mod energy_split;
