//! The change with its interval, drawn over the NO-GO, NEUTRAL and GO regions
//! of the decision, so the verdict can be read off where the interval lies.

use std::fmt::Write;

use perflab_format::result::DecisionDoc;
use perflab_format::vocabulary::Verdict;

use super::super::escape::esc;
use super::super::svg::{Plot, Scale, figure};
use crate::units::{format_change, format_percent, format_percent_interval};

/// The colour of a verdict.
pub fn verdict_colour(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Go => "#2e7d32",
        Verdict::NoGo => "#c62828",
        Verdict::Neutral => "#546e7a",
        Verdict::Inconclusive => "#ef6c00",
    }
}

/// The change chart of a decision on `metric`.
pub fn change_chart(metric: &str, d: &DecisionDoc) -> String {
    let mut plot = Plot::new(760.0, 150.0, (24.0, 24.0, 34.0, 48.0));
    let spread = (d.ci[1] - d.ci[0]).max(d.go - d.nogo);
    let lo = d.ci[0].min(d.nogo) - spread * 0.35;
    let hi = d.ci[1].max(d.go) + spread * 0.35;
    let x = Scale::linear(lo * 100.0, hi * 100.0, plot.left, plot.right);
    let (top, bottom) = (plot.top, plot.bottom);
    let regions = [
        (lo * 100.0, d.nogo * 100.0, "region-nogo", "NO-GO"),
        (d.nogo * 100.0, d.go * 100.0, "region-neutral", "NEUTRAL"),
        (d.go * 100.0, hi * 100.0, "region-go", "GO"),
    ];
    // Region labels sit above the plot; when a region is too narrow for its
    // label, the label moves up a line instead of overprinting its neighbour.
    let mut previous_right = f64::NEG_INFINITY;
    for (a, b, class, label) in regions {
        let (xa, xb) = (x.map(a), x.map(b));
        let half = label.len() as f64 * 3.6;
        let centre = (xa + xb) / 2.0;
        let label_y = if centre - half < previous_right + 4.0 {
            top - 20.0
        } else {
            top - 8.0
        };
        if label_y == top - 8.0 {
            previous_right = centre + half;
        }
        let _ = write!(
            plot.body,
            r#"<rect class="{class}" x="{xa:.1}" y="{top:.1}" width="{:.1}" height="{:.1}"/><text class="region-label" x="{:.1}" y="{:.1}" text-anchor="middle">{label}</text>"#,
            (xb - xa).max(0.0),
            bottom - top,
            centre,
            label_y
        );
    }
    plot.x_axis(&x, "relative change, positive is better (%)", &|v| {
        format!("{v:+.1}%")
    });
    let c = verdict_colour(d.verdict);
    let y = (top + bottom) / 2.0;
    let _ = write!(
        plot.body,
        r#"<line class="mark interval" x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{c}" stroke-width="6" stroke-linecap="round"><title>{:.0}% interval {}</title></line><circle class="mark" cx="{:.1}" cy="{y:.1}" r="7" fill="white" stroke="{c}" stroke-width="3"><title>estimate {}</title></circle>"#,
        x.map(d.ci[0] * 100.0),
        x.map(d.ci[1] * 100.0),
        d.confidence * 100.0,
        esc(&format_percent_interval(d.ci)),
        x.map(d.change * 100.0),
        esc(&format_percent(d.change)),
    );
    let title = format!(
        "Change of {metric}: {}, {}",
        format_change(d.change, d.ci),
        d.verdict
    );
    let caption = format!(
        "The bar is the {:.0}% interval of the change over {} runs per variant ({}); the shaded regions are the decision thresholds: NO-GO at {} or worse, GO at {} or better.",
        d.confidence * 100.0,
        d.runs,
        d.method,
        format_percent(d.nogo),
        format_percent(d.go)
    );
    figure("change", &title, &plot.finish(&title), &caption)
}
