//! Numbers as programs print them, with a K, M or G suffix: the values of
//! metric lines, and of sample files and sweep parameters in the perflab
//! command.

/// Parses a number with an optional K, M or G suffix (`46.94M` is 46,940,000).
///
/// Programs print figures like `Throughput = 46.94M ops/s`; reading the
/// suffix is what keeps `46.94M` from being read as 46.94.
pub fn parse_si_number(text: &str) -> Option<f64> {
    let t = text.trim().replace(',', "_");
    let t = t.replace('_', "");
    let (number, scale) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 1e3),
        'M' => (&t[..t.len() - 1], 1e6),
        'G' => (&t[..t.len() - 1], 1e9),
        _ => (t.as_str(), 1.0),
    };
    let value: f64 = number.trim().parse().ok()?;
    let scaled = value * scale;
    scaled.is_finite().then_some(scaled)
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
}
