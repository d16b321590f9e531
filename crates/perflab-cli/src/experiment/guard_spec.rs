//! A guard as given (`--guard METRIC:LIMIT[+FLOOR][:higher|lower]`, or a
//! `[[guard]]` table), parsed into its metric, relative limit and absolute
//! floor in the metric's own unit.

use perflab_runner::builtin_metric;
use perflab_stats::Better;

use perflab_report::units::parse_percent;

/// A guard as given, before the metric is resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct GuardSettings {
    /// The guarded metric's name.
    pub metric: String,
    /// The largest worsening allowed, a fraction of the baseline's value.
    pub max_worsening: f64,
    /// The absolute floor in the metric's unit (KiB for `peak-memory`,
    /// seconds for times), if given: the metric may worsen by the larger
    /// of the two allowances.
    pub floor: Option<f64>,
    /// Which way is better, if given.
    pub better: Option<Better>,
}

impl GuardSettings {
    /// A guard with a relative limit only.
    pub fn relative(metric: &str, max_worsening: f64) -> Self {
        GuardSettings {
            metric: metric.to_string(),
            max_worsening,
            floor: None,
            better: None,
        }
    }
}

/// Parses a guard's limit `LIMIT[+FLOOR]` for `metric`: a percentage, and
/// optionally `+` and an absolute floor in a unit of the metric (`8MiB`,
/// `2ms`; a bare number for metrics without a unit). Returns the fraction
/// and the floor in the metric's own unit.
///
/// # Errors
/// What is wrong, with an example, for the caller to put beside the flag
/// or the line.
pub fn parse_limit(text: &str, metric: &str) -> std::result::Result<(f64, Option<f64>), String> {
    let example = match builtin_metric(metric).map(|(_, unit)| unit) {
        Some("KiB") => format!("{metric}:10%+8MiB"),
        Some("s") => format!("{metric}:5%+2ms"),
        _ => format!("{metric}:5%+1000"),
    };
    let (relative, floor) = match text.split_once('+') {
        Some((relative, floor)) => (relative, Some(floor)),
        None => (text, None),
    };
    let max_worsening = parse_percent(relative)
        .map_err(|m| format!("{m} (the limit is LIMIT[+FLOOR], e.g. {example})"))?;
    if max_worsening < 0.0 {
        return Err(format!(
            "the limit {relative} is negative; a guard allows a worsening of 0% or more, e.g. {example}"
        ));
    }
    let floor = floor
        .map(|f| parse_floor(f, metric).map_err(|m| format!("{m}; write e.g. {example}")))
        .transpose()?;
    Ok((max_worsening, floor))
}

/// A floor in the metric's own unit: KiB for `peak-memory` (from B, KiB,
/// MiB, GiB), seconds for times (from ns, us, µs, ms, s), a bare number
/// for any other metric.
fn parse_floor(text: &str, metric: &str) -> std::result::Result<f64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("the floor '{text}' is not a number with a unit"))?;
    if !value.is_finite() {
        return Err(format!("the floor '{text}' is not finite"));
    }
    let unit = unit.trim();
    let scale = match builtin_metric(metric).map(|(_, u)| u) {
        Some("KiB") => match unit {
            "B" => Some(1.0 / 1024.0),
            "KiB" => Some(1.0),
            "MiB" => Some(1024.0),
            "GiB" => Some(1024.0 * 1024.0),
            _ => None,
        }
        .ok_or_else(|| {
            format!("the floor '{text}' of {metric} needs a unit of B, KiB, MiB or GiB")
        })?,
        Some("s") => match unit {
            "ns" => Some(1e-9),
            "us" | "µs" => Some(1e-6),
            "ms" => Some(1e-3),
            "s" => Some(1.0),
            _ => None,
        }
        .ok_or_else(|| format!("the floor '{text}' of {metric} needs a unit of ns, µs, ms or s"))?,
        _ if unit.is_empty() => 1.0,
        _ => {
            return Err(format!(
                "the floor '{text}' of {metric} is a number in the metric's own unit, without one"
            ));
        }
    };
    Ok(value * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_with_a_floor_is_read_in_the_metrics_unit() {
        assert_eq!(
            parse_limit("10%+8MiB", "peak-memory"),
            Ok((0.1, Some(8192.0)))
        );
        assert_eq!(parse_limit("5%", "peak-memory"), Ok((0.05, None)));
        assert_eq!(parse_limit("5%+2ms", "wall"), Ok((0.05, Some(0.002))));
        assert_eq!(parse_limit("0%+1000", "cycles"), Ok((0.0, Some(1000.0))));
    }

    #[test]
    fn a_floor_without_a_known_unit_is_refused_with_an_example() {
        let e = parse_limit("10%+8", "peak-memory").unwrap_err();
        assert!(
            e.contains("B, KiB, MiB or GiB") && e.contains("peak-memory:10%+8MiB"),
            "{e}"
        );
        let e = parse_limit("10%+8XB", "peak-memory").unwrap_err();
        assert!(e.contains("peak-memory:10%+8MiB"), "{e}");
        let e = parse_limit("5%+2", "wall").unwrap_err();
        assert!(e.contains("wall:5%+2ms"), "{e}");
        assert!(parse_limit("10%+", "peak-memory").is_err());
        assert!(parse_limit("10%+-8MiB", "peak-memory").is_err());
        assert!(parse_limit("-1%+8MiB", "peak-memory").is_err());
    }
}
