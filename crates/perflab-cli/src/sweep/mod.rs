//! Sweeps: commands run over a grid of parameters (sizes, threads, batch
//! sizes), each point until its intervals are precise, with ratios to a
//! reference command and, along a size parameter, the fixed part and
//! marginal cost, the growth exponent and the cliffs of the per-item cost.
//!
//! [`params`] parses `-p NAME=VALUES`, [`template`] expands `{NAME}` in
//! commands, [`config`] validates the flags, [`driver`] runs the points
//! (through [`crate::engine`]) into a [`state`], [`analysis`] turns runs into intervals, [`series`] into
//! curves along the size, and [`document`] turns the state and the
//! intervals into the stored result (whose types are perflab-format's). Data flows one way: the driver uses the analysis
//! (to stop a point) and calls back the command to checkpoint the document
//! ([`save_checkpoint`]), the document uses the analysis and the series,
//! and neither uses the driver.

pub mod analysis;
pub mod config;
pub mod document;
pub mod driver;
pub mod params;
pub mod series;
pub mod state;
pub mod template;

pub use config::{Sweep, SweepCommand};
pub use document::{save_checkpoint, sweep_document};
pub use driver::run_sweep;
pub use perflab_format::sweep::SweepDocument;
pub use perflab_format::vocabulary::SweepStop;
pub use state::SweepState;
