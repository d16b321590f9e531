//! Durations as the session's terminal table prints them.

/// Nanoseconds with three significant digits and a unit that fits.
pub(crate) fn duration(ns: f64) -> String {
    let (value, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    format!("{} {unit}", significant(value))
}

fn significant(value: f64) -> String {
    if value == 0.0 {
        "0".to_string()
    } else if value < 10.0 {
        format!("{value:.2}")
    } else if value < 100.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_keep_three_significant_digits_and_pick_a_unit() {
        assert_eq!(duration(0.0), "0 ns");
        assert_eq!(duration(21.44), "21.4 ns");
        assert_eq!(duration(1_234.0), "1.23 µs");
        assert_eq!(duration(45_600_000.0), "45.6 ms");
        assert_eq!(duration(2_345_000_000.0), "2.35 s");
    }
}
