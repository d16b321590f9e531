//! Sweeps: commands run over a grid of parameters (sizes, threads, batch
//! sizes), each point until its intervals are precise, with ratios to a
//! reference command and, along a size parameter, the growth exponent and
//! the cliffs of the per-item cost.
//!
//! [`params`] parses `-p NAME=VALUES`, [`template`] expands `{NAME}` in
//! commands, [`config`] validates the flags, [`driver`] runs the points,
//! [`analysis`] turns runs into intervals and [`document`] into the stored
//! result.

pub mod analysis;
pub mod config;
pub mod document;
pub mod driver;
pub mod params;
pub mod template;

pub use config::{Sweep, SweepCommand};
pub use document::{SweepDocument, sweep_document};
pub use driver::{SweepState, SweepStop, run_sweep};
