//! The standard normal distribution: cumulative distribution and quantile.
//!
//! Internal helpers for the normal approximations used elsewhere (Mann-Whitney
//! p-values, the Moses critical value, the Wilson interval). Written out here
//! rather than taken from a crate to keep perflab-stats free of dependencies.

use std::f64::consts::{PI, SQRT_2};

/// Complementary error function erfc(x) = 1 - erf(x).
///
/// Method: for |x| < 2 the everywhere-convergent series with positive terms,
/// erf(x) = 2/sqrt(pi) * exp(-x^2) * sum_n 2^n x^(2n+1) / (1*3*...*(2n+1))
/// (Abramowitz & Stegun 1964, 7.1.6); for x >= 2 the continued fraction
/// sqrt(pi) * exp(x^2) * erfc(x) = 1/(x+ (1/2)/(x+ 1/(x+ (3/2)/(x+ ...))))
/// (A&S 7.1.14), evaluated with the modified Lentz algorithm; erfc(-x) = 2 - erfc(x).
/// Relative accuracy is about 1e-14 or better, which is ample for p-values.
pub(crate) fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < 2.0 {
        return 1.0 - erf_series(x);
    }
    if x > 27.5 {
        // exp(-x^2) underflows to zero.
        return 0.0;
    }
    let tiny = 1e-300;
    let mut f = x;
    let mut c = f;
    let mut d = 0.0;
    for k in 1..2000 {
        let a = k as f64 / 2.0;
        d = x + a * d;
        if d.abs() < tiny {
            d = tiny;
        }
        c = x + a / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x * x).exp() / (PI.sqrt() * f)
}

fn erf_series(x: f64) -> f64 {
    let two_x2 = 2.0 * x * x;
    let mut term = x;
    let mut sum = x;
    for n in 1..200 {
        term *= two_x2 / (2 * n + 1) as f64;
        sum += term;
        if term < 1e-17 * sum {
            break;
        }
    }
    2.0 / PI.sqrt() * (-x * x).exp() * sum
}

/// Standard normal cumulative distribution function Phi(z).
pub(crate) fn cdf(z: f64) -> f64 {
    0.5 * erfc(-z / SQRT_2)
}

/// Standard normal quantile Phi^-1(p) for p in (0, 1).
///
/// Method: Acklam's rational approximation (P. J. Acklam, "An algorithm for
/// computing the inverse normal cumulative distribution function", 2003; relative
/// error 1.15e-9) refined by two Halley steps against [`cdf`], which brings it to
/// the accuracy of `cdf`. The upper half is computed by symmetry from the lower
/// half, where `cdf` has full relative accuracy. Returns -inf / +inf at 0 / 1 and
/// NaN outside [0, 1]; callers validate their probabilities first.
pub(crate) fn quantile(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if p > 0.5 {
        return -quantile(1.0 - p);
    }
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let mut x = if p < 0.02425 {
        let q = (-2.0 * p.ln()).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    };
    for _ in 0..2 {
        let e = cdf(x) - p;
        let u = e * (2.0 * PI).sqrt() * (x * x / 2.0).exp();
        x -= u / (1.0 + x * u / 2.0);
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    #[test]
    fn cdf_matches_known_values() {
        // Reference values from Python's math.erfc.
        assert!(close(cdf(0.0), 0.5, 1e-15));
        assert!(close(cdf(-1.0), 0.158_655_253_931_457_05, 1e-13));
        assert!(close(cdf(1.959_963_984_540_054), 0.975, 1e-14));
        assert!(close(cdf(-3.0), 0.001_349_898_031_630_095_7, 1e-12));
        assert!(close(cdf(-8.0), 6.220_960_574_271_819e-16, 1e-10));
        assert!(close(erfc(3.0), 2.209_049_699_858_544e-5, 1e-12));
        assert!(close(erfc(1.5), 0.033_894_853_524_689_274, 1e-13));
        assert_eq!(cdf(-40.0), 0.0);
        assert_eq!(cdf(40.0), 1.0);
    }

    #[test]
    fn quantile_inverts_cdf() {
        assert!(close(quantile(0.975), 1.959_963_984_540_054, 1e-12));
        assert!(close(quantile(0.025), -1.959_963_984_540_054, 1e-12));
        assert!(close(quantile(0.995), 2.575_829_303_548_900_4, 1e-12));
        assert_eq!(quantile(0.5), 0.0);
        for &p in &[1e-12, 1e-6, 0.001, 0.02, 0.1, 0.3, 0.7, 0.9, 0.999] {
            let z = quantile(p);
            assert!(close(cdf(z), p, 1e-11), "p={p} z={z} cdf={}", cdf(z));
        }
    }
}
