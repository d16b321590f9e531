//! The charts of the HTML report, one file each; every chart has a title,
//! labelled axes with units, and marks (class `mark`) for its data.

pub mod change;
pub mod distribution;
pub mod flamegraph;
pub mod history;
pub mod share_changes;
pub mod shares;
pub mod spans;
pub mod sweep;

use crate::units::format_value;

/// A tick label in the metric's unit, without trailing zeros ("1.5 ms", "46.9M ops/s").
pub fn tick(unit: &str) -> impl Fn(f64) -> String + '_ {
    move |v| trim_zeros(&format_value(v, unit))
}

/// "7.000 ms" → "7 ms", "4.500 ms" → "4.5 ms", "46.940M" → "46.94M".
pub(crate) fn trim_zeros(text: &str) -> String {
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || ".-+".contains(c)))
        .unwrap_or(text.len());
    let (number, rest) = text.split_at(end);
    if !number.contains('.') {
        return text.to_string();
    }
    format!(
        "{}{rest}",
        number.trim_end_matches('0').trim_end_matches('.')
    )
}

/// "wall (s)" or just "cost" without a unit.
pub(crate) fn with_unit(label: &str, unit: &str) -> String {
    if unit.is_empty() {
        label.to_string()
    } else {
        format!("{label} ({unit})")
    }
}

/// Width of one character of a row label, px: 12px bold sans-serif runs at
/// most about 0.62 em per character.
pub(crate) const LABEL_CHAR_PX: f64 = 7.6;

/// `name` cut to `chars` characters with an ellipsis; the caller puts the
/// whole name in the label's `<title>`.
pub fn shorten(name: &str, chars: usize) -> String {
    if name.chars().count() <= chars {
        name.to_string()
    } else {
        format!("{}…", name.chars().take(chars - 1).collect::<String>())
    }
}

/// The left margin that fits row labels of `names` (each shortened to
/// `max_chars`), and at least `min`: a label drawn right-aligned against the
/// plot must not run off the chart's left edge.
pub(crate) fn label_margin<'a>(
    names: impl Iterator<Item = &'a str>,
    max_chars: usize,
    min: f64,
) -> f64 {
    let widest = names
        .map(|n| n.chars().count().min(max_chars))
        .max()
        .unwrap_or(0);
    (widest as f64 * LABEL_CHAR_PX + 16.0).max(min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_lose_their_trailing_zeros_but_keep_units() {
        assert_eq!(trim_zeros("7.000 ms"), "7 ms");
        assert_eq!(trim_zeros("4.500 ms"), "4.5 ms");
        assert_eq!(trim_zeros("46.940M ops/s"), "46.94M ops/s");
        assert_eq!(trim_zeros("1000"), "1000");
    }
}
