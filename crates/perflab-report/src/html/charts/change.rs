//! The change with its interval, drawn over the NO-GO, NEUTRAL and GO regions
//! of the decision, so the verdict can be read off where the interval lies.

use std::fmt::{self, Write};

use perflab_format::result::DecisionDoc;
use perflab_format::vocabulary::Verdict;

use super::super::escape::esc;
use super::super::svg::{Plot, Scale, figure};
use perflab_format::change_words::{ChangeWords, improvement_to_ratio, thresholds_sentence};
use perflab_format::vocabulary::Better;

/// The colour of a verdict.
pub(crate) fn verdict_colour(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Go => "#2e7d32",
        Verdict::NoGo => "#c62828",
        Verdict::Neutral => "#546e7a",
        Verdict::Inconclusive => "#ef6c00",
    }
}

/// The change chart of a decision on `metric`, drawn as the candidate's
/// value relative to the baseline's (the one wording of a change, see
/// [`perflab_format::change_words`]).
pub(crate) fn change_chart(
    out: &mut dyn Write,
    metric: &str,
    better: Better,
    d: &DecisionDoc,
) -> fmt::Result {
    let mut plot = Plot::new(760.0, 150.0, (24.0, 24.0, 34.0, 48.0));
    let percent = |c: f64| (improvement_to_ratio(better, c) - 1.0) * 100.0;
    let words = ChangeWords::from_improvement(metric, better, d.change, Some(d.ci));
    let [ci_lo, ci_hi] = words.interval.map_or([1.0, 1.0], |[lo, hi]| {
        [(lo - 1.0) * 100.0, (hi - 1.0) * 100.0]
    });
    let (go, nogo) = (percent(d.go), percent(d.nogo));
    let spread = (ci_hi - ci_lo).max((go - nogo).abs());
    let lo = ci_lo.min(go).min(nogo) - spread * 0.35;
    let hi = ci_hi.max(go).max(nogo) + spread * 0.35;
    let x = Scale::linear(lo, hi, plot.left, plot.right);
    let (top, bottom) = (plot.top, plot.bottom);
    let regions = match better {
        Better::Higher => [
            (lo, nogo, "region-nogo", "NO-GO"),
            (nogo, go, "region-neutral", "NEUTRAL"),
            (go, hi, "region-go", "GO"),
        ],
        Better::Lower => [
            (lo, go, "region-go", "GO"),
            (go, nogo, "region-neutral", "NEUTRAL"),
            (nogo, hi, "region-nogo", "NO-GO"),
        ],
    };
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
        write!(
            plot.body,
            r#"<rect class="{class}" x="{xa:.1}" y="{top:.1}" width="{:.1}" height="{:.1}"/><text class="region-label" x="{:.1}" y="{:.1}" text-anchor="middle">{label}</text>"#,
            (xb - xa).max(0.0),
            bottom - top,
            centre,
            label_y
        )?;
    }
    plot.x_axis(&x, "B relative to A (%)", &|v| format!("{v:+.1}%"))?;
    let c = verdict_colour(d.verdict);
    let y = (top + bottom) / 2.0;
    write!(
        plot.body,
        r#"<line class="mark interval" x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{c}" stroke-width="6" stroke-linecap="round"><title>{:.0}% interval {}</title></line><circle class="mark" cx="{:.1}" cy="{y:.1}" r="7" fill="white" stroke="{c}" stroke-width="3"><title>estimate {}</title></circle>"#,
        x.map(ci_lo),
        x.map(ci_hi),
        d.confidence * 100.0,
        esc(&words.percent_interval()),
        x.map((words.ratio - 1.0) * 100.0),
        esc(&words.percent()),
    )?;
    let title = format!("Change of {metric}: {}, {}", words.cell(), d.verdict);
    let caption = format!(
        "The bar is the {:.0}% interval of B's {metric} relative to A's over {} runs per variant ({}); the shaded regions are the decision thresholds: {}.",
        d.confidence * 100.0,
        d.runs,
        d.method,
        thresholds_sentence(better, d.go, d.nogo)
    );
    out.write_str(&figure("change", &title, &plot.finish(&title), &caption))
}
