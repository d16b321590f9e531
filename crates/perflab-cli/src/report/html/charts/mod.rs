//! The charts of the HTML report, one file each; every chart has a title,
//! labelled axes with units, and marks (class `mark`) for its data.

pub mod change;
pub mod distribution;
pub mod history;
pub mod spans;
pub mod sweep;

use crate::units::format_value;

/// A tick label in the metric's unit ("1.2 ms", "46.9M ops/s").
pub fn tick(unit: &str) -> impl Fn(f64) -> String + '_ {
    move |v| format_value(v, unit)
}

/// "wall (s)" or just "cost" without a unit.
pub fn with_unit(label: &str, unit: &str) -> String {
    if unit.is_empty() {
        label.to_string()
    } else {
        format!("{label} ({unit})")
    }
}
