//! Sweeps: the typical value of each point of a grid, estimated until it is
//! precise enough, and how the cost grows with the size of the work (a power
//! law, a fixed plus a per-item part, cliffs where it jumps).
//!
//! Method: geometric means and paired ratios with confidence sequences
//! (stopped by a precision rule); ordinary least squares on log-log axes with
//! a Student-t interval; weighted least squares of cost on size (Draper &
//! Smith 1998); each file names its reference. Assumptions: every point's
//! runs are i.i.d. with multiplicative noise, and the points are independent
//! of each other.

pub mod cliffs;
pub mod linear_cost;
pub mod multiplicative;
pub mod power_law;
pub mod precision;
pub(crate) mod weighted_line;
