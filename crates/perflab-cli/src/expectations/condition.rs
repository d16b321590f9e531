//! The condition of an expectation (`> 0`, `0.15..0.25`, `15%..25%`) and
//! the names and numbers it is written with.

use perflab_runner::parse_si_number;

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    /// `>`
    Above,
    /// `>=`
    AtLeast,
    /// `<`
    Below,
    /// `<=`
    AtMost,
    /// `==`
    Equal,
    /// `!=`
    NotEqual,
}

/// What a figure must be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Condition {
    /// Compared with a number.
    Compare(Comparison, f64),
    /// Within `lo..hi`, both ends included.
    Range(f64, f64),
}

impl Condition {
    /// Parses `> x`, `>= x`, `< x`, `<= x`, `== x`, `!= x` or `lo..hi`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        // Two-character operators first, so that ">=" is not read as ">" "=x".
        let operators = [
            (">=", Comparison::AtLeast),
            ("<=", Comparison::AtMost),
            ("==", Comparison::Equal),
            ("!=", Comparison::NotEqual),
            (">", Comparison::Above),
            ("<", Comparison::Below),
        ];
        for (symbol, comparison) in operators {
            if let Some(rest) = text.strip_prefix(symbol) {
                return Ok(Condition::Compare(comparison, parse_number(rest)?));
            }
        }
        if let Some((lo, hi)) = text.split_once("..") {
            let (lo, hi) = (parse_number(lo)?, parse_number(hi)?);
            if lo > hi {
                return Err(format!(
                    "the range starts above its end ({} > {}); write the smaller end first",
                    format_value(lo),
                    format_value(hi)
                ));
            }
            return Ok(Condition::Range(lo, hi));
        }
        if text.is_empty() {
            return Err("the condition is empty".to_string());
        }
        Err(format!("'{text}' is neither a comparison nor a range"))
    }

    /// Whether `value` meets the condition; a value that is not a number
    /// (a ratio over zero) meets none.
    pub fn holds(&self, value: f64) -> bool {
        if !value.is_finite() {
            return false;
        }
        match *self {
            Condition::Compare(comparison, x) => match comparison {
                Comparison::Above => value > x,
                Comparison::AtLeast => value >= x,
                Comparison::Below => value < x,
                Comparison::AtMost => value <= x,
                Comparison::Equal => value == x,
                Comparison::NotEqual => value != x,
            },
            Condition::Range(lo, hi) => lo <= value && value <= hi,
        }
    }
}

/// A number with an optional K/M/G suffix, or a percent (`15%` is 0.15).
fn parse_number(text: &str) -> Result<f64, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("a number is missing".to_string());
    }
    let parsed = match text.strip_suffix('%') {
        Some(percent) => parse_si_number(percent).map(|p| p / 100.0),
        None => parse_si_number(text),
    };
    parsed
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("'{text}' is not a number"))
}

/// A figure name: letters, digits, `_`, `-`, `.` or `:` (the characters of
/// metric and counter names).
pub(super) fn parse_name(text: &str) -> Result<String, String> {
    let name = text.trim();
    if name.is_empty() {
        return Err("a figure name is missing".to_string());
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || "_-.:".contains(*c)))
    {
        return Err(format!(
            "'{name}' is not a figure name ('{bad}' is not allowed; names have letters, digits, '_', '-', '.' or ':', \
             and a key holds one name or one ratio)"
        ));
    }
    Ok(name.to_string())
}

/// A figure for a message: whole numbers as they are, others to six
/// significant digits.
pub(super) fn format_value(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 {
        return format!("{value:.0}");
    }
    if value.abs() >= 1e-4 && value.abs() < 1e15 {
        let digits = (5 - value.abs().log10().floor() as i32).max(0) as usize;
        let text = format!("{value:.digits$}");
        return text.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    format!("{value:e}")
}
