//! Parsing and printing of the quantities users type and read: durations,
//! percentages, numbers with K/M/G suffixes, and metric values with units.
//!
//! Every format (terminal, Markdown, HTML) prints through these functions,
//! so a figure reads the same wherever it appears; an interval is always
//! `[lo, hi]`.

use std::time::Duration;

/// Parses a percentage: `1`, `1%`, `-0.5%`, `+2.5` all mean percent.
///
/// A bare number is read as percent too, because `--go 1` meaning +100%
/// would be a trap; the result is a fraction (`1%` gives 0.01).
pub fn parse_percent(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    let number = trimmed.strip_suffix('%').unwrap_or(trimmed).trim();
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a percentage; write it like 1% or -0.5%"))?;
    if !value.is_finite() {
        return Err(format!("'{text}' is not a finite percentage"));
    }
    Ok(value / 100.0)
}

/// Parses a duration such as `500ms`, `30s`, `2m`, `1h` or a bare number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a duration; write it like 500ms, 30s, 2m or 1h"))?;
    let seconds = match unit.trim() {
        "" | "s" => value,
        "ms" => value / 1e3,
        "us" | "µs" => value / 1e6,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        other => {
            return Err(format!(
                "'{text}' has the unknown unit '{other}'; use ms, s, m or h"
            ));
        }
    };
    // try_: a figure beyond what a Duration holds (about 584 billion years)
    // is a typo to report, not a reason to panic.
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("'{text}' is not a usable duration"))
}

/// Prints a duration in seconds with a unit that keeps three significant digits.
pub(crate) fn format_seconds(seconds: f64) -> String {
    let a = seconds.abs();
    if a >= 100.0 {
        format!("{seconds:.1} s")
    } else if a >= 1.0 {
        format!("{seconds:.3} s")
    } else if a >= 1e-3 {
        format!("{:.3} ms", seconds * 1e3)
    } else if a >= 1e-6 || a == 0.0 {
        format!("{:.3} µs", seconds * 1e6)
    } else {
        format!("{:.3} ns", seconds * 1e9)
    }
}

/// Prints a metric value in its unit: seconds and kibibytes get scaled units,
/// anything else a compact number followed by the unit.
pub fn format_value(value: f64, unit: &str) -> String {
    match unit {
        "s" => format_seconds(value),
        // Counts that may be exact are printed whole: 118,327 not 118.3K.
        "instructions" => format_count(value),
        "ms" => format_seconds(value * 1e-3),
        "us" | "µs" => format_seconds(value * 1e-6),
        "ns" => format_seconds(value * 1e-9),
        "KiB" => {
            if value >= 1024.0 * 1024.0 {
                format!("{:.2} GiB", value / (1024.0 * 1024.0))
            } else if value >= 1024.0 {
                format!("{:.1} MiB", value / 1024.0)
            } else {
                format!("{value:.0} KiB")
            }
        }
        _ => {
            let number = format_number(value);
            if unit.is_empty() {
                number
            } else {
                format!("{number} {unit}")
            }
        }
    }
}

/// A whole count with thousands separators, e.g. `1,234,567`.
pub(crate) fn format_count(value: f64) -> String {
    let digits = format!("{:.0}", value.abs());
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    if value < 0.0 {
        grouped.insert(0, '-');
    }
    grouped
}

/// Prints a plain number compactly: K/M/G suffixes for large magnitudes.
pub(crate) fn format_number(value: f64) -> String {
    let a = value.abs();
    if a >= 1e9 {
        format!("{:.3}G", value / 1e9)
    } else if a >= 1e6 {
        format!("{:.3}M", value / 1e6)
    } else if a >= 1e4 {
        format!("{:.2}K", value / 1e3)
    } else if a >= 100.0 || a == a.trunc() {
        format!("{value:.0}")
    } else {
        format!("{value:.4}")
    }
}

/// A count with its noun: `1 run`, `2 runs`.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Prints a fraction as a signed percentage (`0.0123` gives `+1.23%`).
pub fn format_percent(fraction: f64) -> String {
    format!("{:+.2}%", fraction * 100.0)
}

/// Prints an interval of two formatted bounds: `[lo, hi]`, the one style
/// every report uses.
pub(crate) fn format_interval(lo: impl std::fmt::Display, hi: impl std::fmt::Display) -> String {
    format!("[{lo}, {hi}]")
}

/// An interval of signed percentages: `[+1.23%, +4.56%]`.
#[cfg(test)]
pub(crate) fn format_percent_interval(ci: [f64; 2]) -> String {
    format_interval(format_percent(ci[0]), format_percent(ci[1]))
}

/// A change with its interval: `+2.50% [+1.23%, +4.56%]`.
#[cfg(test)]
pub(crate) fn format_change(change: f64, ci: [f64; 2]) -> String {
    format!("{} {}", format_percent(change), format_percent_interval(ci))
}

/// Prints a fraction as an unsigned share with one decimal (`0.412` gives `41.2%`).
pub(crate) fn format_share(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

/// An interval of shares: `[38.0%, 44.5%]`.
pub(crate) fn format_share_interval(ci: [f64; 2]) -> String {
    format_interval(format_share(ci[0]), format_share(ci[1]))
}

/// A difference of shares in percentage points, signed (`0.041` gives `+4.1`).
pub(crate) fn format_points(change: f64) -> String {
    format!("{:+.1}", change * 100.0)
}

/// An interval of percentage points: `[+1.0, +7.2]`.
pub(crate) fn format_points_interval(ci: [f64; 2]) -> String {
    format_interval(format_points(ci[0]), format_points(ci[1]))
}

/// A ratio with its interval: `3.80x [3.61, 3.98]`.
pub(crate) fn format_ratio(estimate: f64, lo: f64, hi: f64) -> String {
    format!(
        "{estimate:.2}x {}",
        format_interval(format!("{lo:.2}"), format!("{hi:.2}"))
    )
}

/// Prints a number as a command would want it: integers without a fraction.
pub fn number_text(n: f64) -> String {
    if n == n.trunc() && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_are_read_as_percent_with_or_without_the_sign() {
        assert_eq!(parse_percent("1%").unwrap(), 0.01);
        assert_eq!(parse_percent("1").unwrap(), 0.01);
        assert_eq!(parse_percent("-0.5%").unwrap(), -0.005);
        assert!(parse_percent("one").is_err());
    }

    #[test]
    fn durations_accept_the_usual_units() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("3").unwrap(), Duration::from_secs(3));
        assert!(parse_duration("3 weeks").is_err());
    }

    #[test]
    fn values_print_with_scaled_units() {
        assert_eq!(format_value(0.0123, "s"), "12.300 ms");
        assert_eq!(format_value(19_960.0, "ns"), "19.960 µs");
        assert_eq!(format_value(2.5, "ns"), "2.500 ns");
        assert_eq!(format_value(2048.0, "KiB"), "2.0 MiB");
        assert_eq!(format_value(46_940_000.0, "ops/s"), "46.940M ops/s");
        assert_eq!(format_percent(0.0123), "+1.23%");
    }

    #[test]
    fn every_interval_is_printed_in_brackets_with_a_comma() {
        assert_eq!(format_percent_interval([-0.01, 0.02]), "[-1.00%, +2.00%]");
        assert_eq!(
            format_change(0.1, [0.05, 0.15]),
            "+10.00% [+5.00%, +15.00%]"
        );
        assert_eq!(format_share_interval([0.38, 0.445]), "[38.0%, 44.5%]");
        assert_eq!(format_points_interval([0.01, 0.072]), "[+1.0, +7.2]");
        assert_eq!(format_ratio(3.8, 3.61, 3.98), "3.80x [3.61, 3.98]");
    }
}
