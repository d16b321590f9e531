//! A straight line by weighted least squares, with the standard errors of
//! its intercept and slope at unit scale (internal; [`crate::sweep::linear_cost::linear_cost_fit`]
//! scales them by the residuals).
//!
//! Method: the normal equations of weighted least squares, centred on the
//! weighted mean of x (Draper & Smith, "Applied Regression Analysis", 3rd
//! ed., Wiley 1998, §9.2). Written here because it is four sums; a linear
//! algebra crate would add a dependency for a 2 × 2 system.

/// A weighted straight line with standard errors at unit scale.
pub(crate) struct WeightedLine {
    pub(crate) intercept: f64,
    pub(crate) slope: f64,
    pub(crate) intercept_se: f64,
    pub(crate) slope_se: f64,
    pub(crate) weighted_rss: f64,
}

/// Weighted least squares of `totals` on `sizes` with weights
/// 1 / (level_i² · variance_i), centred on the weighted mean size so that
/// sizes of 10⁹ lose no precision.
pub(crate) fn weighted_line(
    sizes: &[f64],
    totals: &[f64],
    variances: &[f64],
    level: &[f64],
) -> WeightedLine {
    // Weights are relative: dividing by the largest keeps their sums in range.
    let raw: Vec<f64> = level
        .iter()
        .zip(variances)
        .map(|(m, v)| 1.0 / (m * m * v))
        .collect();
    let top = raw.iter().copied().fold(0.0, f64::max);
    let w: Vec<f64> = raw.iter().map(|r| r / top).collect();
    let sw: f64 = w.iter().sum();
    let weighted_mean =
        |xs: &[f64]| -> f64 { w.iter().zip(xs).map(|(wi, x)| wi * x).sum::<f64>() / sw };
    let (mx, my) = (weighted_mean(sizes), weighted_mean(totals));
    let sxx: f64 = w
        .iter()
        .zip(sizes)
        .map(|(wi, x)| wi * (x - mx) * (x - mx))
        .sum();
    let sxy: f64 = w
        .iter()
        .zip(sizes.iter().zip(totals))
        .map(|(wi, (x, y))| wi * (x - mx) * (y - my))
        .sum();
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let weighted_rss = w
        .iter()
        .zip(sizes.iter().zip(totals))
        .map(|(wi, (x, y))| {
            let e = y - intercept - slope * x;
            wi * e * e
        })
        .sum::<f64>();
    // The weights were divided by `top`; the residual scale is reported in
    // units of the points' own standard errors, so undo that here.
    let weighted_rss = weighted_rss * top;
    let (sw, sxx) = (sw * top, sxx * top);
    WeightedLine {
        intercept,
        slope,
        intercept_se: (1.0 / sw + mx * mx / sxx).sqrt(),
        slope_se: (1.0 / sxx).sqrt(),
        weighted_rss,
    }
}
