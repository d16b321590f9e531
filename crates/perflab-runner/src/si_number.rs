//! Numbers as programs print them, with a K, M or G suffix: the values of
//! metric lines, and of sample files and sweep parameters in the perflab
//! command.

use std::fmt;

/// Why a piece of text is not a usable number (see [`read_si_number`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberProblem {
    /// It is not a number at all.
    NotANumber,
    /// It reads as infinity or NaN, or is too large for a 64-bit float
    /// (`inf`, `NaN`, `1e400`).
    NotFinite,
    /// It has a comma that is not a thousands separator (`1,5`): a decimal
    /// comma, or a list.
    Comma,
}

impl fmt::Display for NumberProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NumberProblem::NotANumber => "is not a number; print a number such as 12.5 or 46.94M",
            NumberProblem::NotFinite => {
                "is not a finite number (infinity, NaN, or beyond ±1.8e308); print a finite value"
            }
            NumberProblem::Comma => {
                "has a comma that is not a thousands separator; print a decimal point (1.5), \
                 and commas only between groups of three digits (1,234,567)"
            }
        })
    }
}

/// Parses a number with an optional K, M or G suffix (`46.94M` is
/// 46,940,000), or `None`; [`read_si_number`] says why not.
pub fn parse_si_number(text: &str) -> Option<f64> {
    read_si_number(text).ok()
}

/// Parses a number with an optional K, M or G suffix (`46.94M` is
/// 46,940,000), saying what is wrong with text that is not one.
///
/// Programs print figures like `Throughput = 46.94M ops/s`; reading the
/// suffix is what keeps `46.94M` from being read as 46.94. Commas are
/// read as thousands separators only where they are placed as such
/// (`1,234,567.5`); `1,5` is refused rather than read as 15 or as 1.5,
/// since nothing tells which the program meant. Underscores between digits
/// are ignored (`1_000`). Infinity, NaN and values that overflow a 64-bit
/// float are refused: no statistic can be taken over them.
pub fn read_si_number(text: &str) -> Result<f64, NumberProblem> {
    let t = text.trim();
    let (number, scale) = match t.chars().last().ok_or(NumberProblem::NotANumber)? {
        'k' | 'K' => (&t[..t.len() - 1], 1e3),
        'M' => (&t[..t.len() - 1], 1e6),
        'G' => (&t[..t.len() - 1], 1e9),
        _ => (t, 1.0),
    };
    let number = number.trim();
    if number.contains(',') && !thousands_grouped(number) {
        return Err(NumberProblem::Comma);
    }
    // Copied only when there are separators to drop: files of millions of
    // numbers are read through here.
    let value: f64 = if number.contains([',', '_']) {
        number.replace([',', '_'], "").parse()
    } else {
        number.parse()
    }
    .map_err(|_| NumberProblem::NotANumber)?;
    let scaled = value * scale;
    if scaled.is_finite() {
        Ok(scaled)
    } else {
        Err(NumberProblem::NotFinite)
    }
}

/// Whether the commas of `number` sit between groups of three digits of
/// its integer part, as thousands separators do (`-1,234,567.25`).
fn thousands_grouped(number: &str) -> bool {
    let unsigned = number.strip_prefix(['-', '+']).unwrap_or(number);
    let integer = unsigned.split(['.', 'e', 'E']).next().unwrap_or_default();
    if unsigned[integer.len()..].contains(',') {
        return false;
    }
    let mut groups = integer.split(',');
    let first = groups.next().unwrap_or_default();
    (1..=3).contains(&first.len())
        && first.bytes().all(|b| b.is_ascii_digit())
        && groups.all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_suffixes_scale_the_number() {
        assert_eq!(parse_si_number("46.94M"), Some(46_940_000.0));
        assert_eq!(parse_si_number("1.5K"), Some(1500.0));
        assert_eq!(parse_si_number("2G"), Some(2e9));
        assert_eq!(parse_si_number("12"), Some(12.0));
        assert_eq!(parse_si_number("abc"), None);
    }

    #[test]
    fn commas_are_read_only_as_thousands_separators() {
        assert_eq!(read_si_number("1,234,567.5"), Ok(1_234_567.5));
        assert_eq!(read_si_number("-12,345"), Ok(-12_345.0));
        assert_eq!(read_si_number("1,234K"), Ok(1_234_000.0));
        assert_eq!(read_si_number("1_000"), Ok(1000.0));
        for decimal_comma in ["1,5", "12,34", "1,2345", ",5", "1,", "0.1,5", "1234,567"] {
            assert_eq!(
                read_si_number(decimal_comma),
                Err(NumberProblem::Comma),
                "{decimal_comma}"
            );
        }
    }

    #[test]
    fn infinity_nan_and_overflow_are_refused_as_not_finite() {
        for text in ["inf", "-inf", "infinity", "NaN", "nan", "1e400", "1e306G"] {
            assert_eq!(
                read_si_number(text),
                Err(NumberProblem::NotFinite),
                "{text}"
            );
        }
        assert_eq!(read_si_number(""), Err(NumberProblem::NotANumber));
        assert_eq!(read_si_number("12 apples"), Err(NumberProblem::NotANumber));
    }
}
