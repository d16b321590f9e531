//! Student's t distribution: cumulative distribution and quantile, for
//! intervals whose standard error is itself estimated from few values (the
//! slope of a log-log fit over a handful of sweep points).

use crate::distributions::normal;
use crate::error::StatsError;

/// Cumulative distribution function of Student's t with `df` degrees of freedom.
///
/// Method: for t < 0, P(T <= t) = I_x(df/2, 1/2) / 2 with x = df / (df + t²),
/// where I_x(a, b) is the regularised incomplete beta function, evaluated by
/// its continued fraction with the modified Lentz algorithm (Abramowitz &
/// Stegun 1964, 26.5.8 and 26.7.1; Lentz, Applied Optics 15(3), 1976); the
/// upper half follows by symmetry. Relative accuracy is about 1e-12.
///
/// Assumptions: `df` > 0 (it need not be an integer); `t` may be any number,
/// ±infinity giving 0 and 1.
///
/// # Errors
/// [`StatsError::InvalidConfig`] unless `df` is finite and > 0;
/// [`StatsError::NonFinite`] if `t` is NaN.
pub fn student_t_cdf(t: f64, df: f64) -> Result<f64, StatsError> {
    check_df(df)?;
    if t.is_nan() {
        return Err(StatsError::NonFinite {
            sample: crate::error::SampleRole::Values,
            index: 0,
            value: t,
        });
    }
    Ok(cdf_unchecked(t, df))
}

/// Quantile (inverse cumulative distribution) of Student's t with `df` degrees
/// of freedom: the t with P(T <= t) = p.
///
/// Method: bisection on [`student_t_cdf`] inside a bracket grown from the
/// normal quantile until it contains the answer, run until the bracket stops
/// shrinking in f64 (so the result is as accurate as the cdf). Bisection is
/// slower than Newton's method but cannot diverge in the heavy tails of small
/// `df`. Reference values: t(0.975, 1) = 12.706, t(0.975, 2) = 4.303,
/// t(0.975, 10) = 2.228 (any statistical table, e.g. Abramowitz & Stegun,
/// table 26.10).
///
/// Assumptions: 0 < p < 1 and `df` > 0.
///
/// # Errors
/// [`StatsError::InvalidProbability`] unless 0 < p < 1;
/// [`StatsError::InvalidConfig`] unless `df` is finite and > 0.
pub fn student_t_quantile(p: f64, df: f64) -> Result<f64, StatsError> {
    check_df(df)?;
    if !(p > 0.0 && p < 1.0) {
        return Err(StatsError::InvalidProbability { value: p });
    }
    if p == 0.5 {
        return Ok(0.0);
    }
    if p > 0.5 {
        return Ok(-student_t_quantile(1.0 - p, df)?);
    }
    // Lower half: the answer is negative and at least as far out as the normal's.
    let mut lo = normal::quantile(p).min(-1e-3);
    let mut hi = 0.0;
    while cdf_unchecked(lo, df) > p {
        hi = lo;
        lo *= 2.0;
        if !lo.is_finite() {
            return Ok(f64::NEG_INFINITY);
        }
    }
    for _ in 0..2000 {
        let mid = 0.5 * (lo + hi);
        if mid == lo || mid == hi {
            break;
        }
        if cdf_unchecked(mid, df) > p {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(0.5 * (lo + hi))
}

fn check_df(df: f64) -> Result<(), StatsError> {
    if df.is_finite() && df > 0.0 {
        Ok(())
    } else {
        Err(StatsError::InvalidConfig {
            field: "degrees of freedom",
            reason: format!("must be a finite number > 0, got {df}"),
        })
    }
}

fn cdf_unchecked(t: f64, df: f64) -> f64 {
    if t == f64::INFINITY {
        return 1.0;
    }
    if t == f64::NEG_INFINITY {
        return 0.0;
    }
    let x = df / (df + t * t);
    let tail = 0.5 * regularized_incomplete_beta(x, 0.5 * df, 0.5);
    if t < 0.0 { tail } else { 1.0 - tail }
}

/// I_x(a, b) for 0 <= x <= 1, a, b > 0 (A&S 26.5.8, with the symmetry
/// I_x(a, b) = 1 - I_(1-x)(b, a) where the fraction converges slowly).
fn regularized_incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = a * x.ln() + b * (1.0 - x).ln() - ln_beta(a, b);
    if x < (a + 1.0) / (a + b + 2.0) {
        ln_front.exp() * beta_fraction(x, a, b) / a
    } else {
        1.0 - ln_front.exp() * beta_fraction(1.0 - x, b, a) / b
    }
}

/// The continued fraction of A&S 26.5.8 by the modified Lentz algorithm.
fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let mut c = 1.0;
    let mut d = 1.0 - (a + b) * x / (a + 1.0);
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut f = d;
    for m in 1..10_000 {
        let m = f64::from(m);
        // Even step d_(2m), then odd step d_(2m+1).
        for coefficient in [
            m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
        ] {
            d = 1.0 + coefficient * d;
            if d.abs() < TINY {
                d = TINY;
            }
            c = 1.0 + coefficient / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            f *= c * d;
        }
        if (c * d - 1.0).abs() < 1e-15 {
            break;
        }
    }
    f
}

/// ln B(a, b) = ln Γ(a) + ln Γ(b) - ln Γ(a + b).
fn ln_beta(a: f64, b: f64) -> f64 {
    ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b)
}

/// ln Γ(x) for x > 0 by the Lanczos approximation (g = 7, 9 terms; Lanczos,
/// SIAM J. Numer. Anal. B 1(1), 1964), relative error below 1e-13.
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1 - x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = C[0];
    for (i, c) in C.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    #[test]
    fn quantiles_match_the_tables() {
        let table = [
            (1.0, 12.706_204_736_174_7),
            (2.0, 4.302_652_729_749_46),
            (3.0, 3.182_446_305_284_26),
            (10.0, 2.228_138_851_986_27),
            (30.0, 2.042_272_456_301_24),
        ];
        for (df, expected) in table {
            let t = student_t_quantile(0.975, df).unwrap();
            assert!(close(t, expected, 1e-9), "df {df}: {t} vs {expected}");
        }
        assert!(close(
            student_t_quantile(0.995, 4.0).unwrap(),
            4.604_094_871_415_9,
            1e-9
        ));
    }

    #[test]
    fn one_degree_of_freedom_is_the_cauchy_distribution() {
        for t in [-30.0, -2.0, -0.5, 0.0, 0.7, 5.0] {
            let expected = 0.5 + f64::atan(t) / std::f64::consts::PI;
            assert!(
                close(student_t_cdf(t, 1.0).unwrap(), expected, 1e-11),
                "t {t}"
            );
        }
    }

    #[test]
    fn many_degrees_of_freedom_approach_the_normal() {
        let t = student_t_quantile(0.975, 1e7).unwrap();
        assert!(close(t, 1.959_963_984_540_054, 1e-6), "{t}");
    }

    #[test]
    fn bad_arguments_are_errors_not_nan() {
        assert!(student_t_quantile(0.0, 3.0).is_err());
        assert!(student_t_quantile(1.0, 3.0).is_err());
        assert!(student_t_quantile(0.5, 0.0).is_err());
        assert!(student_t_cdf(1.0, f64::NAN).is_err());
        assert!(student_t_cdf(f64::NAN, 3.0).is_err());
    }

    proptest! {
        #[test]
        fn the_quantile_inverts_the_cdf(p in 0.0005f64..0.9995, df in 0.5f64..200.0) {
            let t = student_t_quantile(p, df).unwrap();
            let back = student_t_cdf(t, df).unwrap();
            prop_assert!((back - p).abs() < 1e-9, "p {p} df {df} t {t} back {back}");
        }

        #[test]
        fn the_cdf_is_symmetric_and_increasing(t in -50.0f64..50.0, dt in 0.001f64..5.0, df in 0.5f64..100.0) {
            let a = student_t_cdf(t, df).unwrap();
            let b = student_t_cdf(t + dt, df).unwrap();
            prop_assert!(b >= a);
            let mirrored = student_t_cdf(-t, df).unwrap();
            prop_assert!((a + mirrored - 1.0).abs() < 1e-10);
        }

        #[test]
        fn fewer_degrees_of_freedom_give_wider_quantiles(df in 1.0f64..100.0, extra in 0.5f64..50.0) {
            let narrow = student_t_quantile(0.975, df + extra).unwrap();
            let wide = student_t_quantile(0.975, df).unwrap();
            prop_assert!(wide >= narrow - 1e-9);
        }
    }
}
