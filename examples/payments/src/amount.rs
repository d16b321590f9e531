//! Money as fixed-point: whole ten-thousandths of a unit in an `i64`.
//!
//! The input gives amounts with up to four decimal places; binary floating
//! point cannot hold 0.1 exactly, and balances summed over a million
//! transactions would drift. Four decimals in an `i64` cover
//! ±922 trillion units, and every operation is checked.

use std::fmt;
use std::str::FromStr;

/// Ten-thousandths per unit.
const SCALE: i64 = 10_000;

/// An amount of money, exact to four decimal places.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Amount(i64);

/// Why a text is not an amount.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AmountError {
    /// Not digits with an optional point and at most four decimals.
    #[error("`{0}` is not an amount: write digits with at most four decimal places, e.g. 12.5")]
    Malformed(String),
    /// Larger than the engine can hold.
    #[error("`{0}` is too large an amount (at most 922337203685477 units)")]
    TooLarge(String),
}

impl Amount {
    /// Zero.
    pub const ZERO: Amount = Amount(0);

    /// The amount of `ten_thousandths` ten-thousandths of a unit.
    pub const fn from_ten_thousandths(ten_thousandths: i64) -> Amount {
        Amount(ten_thousandths)
    }

    /// The amount in ten-thousandths of a unit.
    pub const fn ten_thousandths(self) -> i64 {
        self.0
    }

    /// `self + other`, or `None` on overflow.
    pub fn checked_add(self, other: Amount) -> Option<Amount> {
        self.0.checked_add(other.0).map(Amount)
    }

    /// `self - other`, or `None` on overflow.
    pub fn checked_sub(self, other: Amount) -> Option<Amount> {
        self.0.checked_sub(other.0).map(Amount)
    }
}

impl FromStr for Amount {
    type Err = AmountError;

    /// Parses `123`, `123.4` or `0.0001`; no sign, no exponent.
    fn from_str(text: &str) -> Result<Amount, AmountError> {
        let malformed = || AmountError::Malformed(text.to_string());
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || !digits(whole) || !digits(fraction) || fraction.len() > 4 {
            return Err(malformed());
        }
        if text.ends_with('.') {
            return Err(malformed());
        }
        let too_large = || AmountError::TooLarge(text.to_string());
        let units: i64 = whole.parse().map_err(|_| too_large())?;
        let mut fraction_value: i64 = 0;
        for b in fraction.bytes() {
            fraction_value = fraction_value * 10 + i64::from(b - b'0');
        }
        fraction_value *= 10_i64.pow(4 - fraction.len() as u32);
        units
            .checked_mul(SCALE)
            .and_then(|v| v.checked_add(fraction_value))
            .map(Amount)
            .ok_or_else(too_large)
    }
}

impl fmt::Display for Amount {
    /// Always four decimals, so that every run prints the same text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let magnitude = self.0.unsigned_abs();
        let scale = SCALE as u64;
        write!(f, "{sign}{}.{:04}", magnitude / scale, magnitude % scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_parse_to_exact_ten_thousandths() {
        assert_eq!("12".parse(), Ok(Amount(120_000)));
        assert_eq!("12.5".parse(), Ok(Amount(125_000)));
        assert_eq!("0.0001".parse(), Ok(Amount(1)));
        assert_eq!("7.1234".parse::<Amount>().unwrap().to_string(), "7.1234");
    }

    #[test]
    fn malformed_or_oversized_amounts_are_refused_with_the_text() {
        for bad in ["", ".5", "1.", "1.23456", "-1", "1e3", "1,5", "abc"] {
            assert_eq!(
                bad.parse::<Amount>(),
                Err(AmountError::Malformed(bad.to_string())),
                "{bad}"
            );
        }
        assert!(matches!(
            "99999999999999999999".parse::<Amount>(),
            Err(AmountError::TooLarge(_))
        ));
    }

    #[test]
    fn negative_balances_print_with_their_sign() {
        assert_eq!(Amount(-5).to_string(), "-0.0005");
        assert_eq!(Amount(-120_000).to_string(), "-12.0000");
    }
}
