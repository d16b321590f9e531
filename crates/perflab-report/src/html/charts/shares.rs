//! The functions of a sampling profile by share of the samples: per
//! function a bar for its self share and one for its inclusive share, each
//! with the whisker of its interval, so that a short bar on few samples
//! cannot pass for a precise one.

use std::fmt::{self, Write};

use perflab_format::sampling::{FunctionShare, SampledProfile, SamplingDocument};

use super::super::escape::esc;
use super::super::svg::{Plot, Scale, colour, figure};
use super::with_unit;
use super::{label_margin, shorten};
use crate::units::format_count;
use crate::units::{format_share, format_share_interval};

/// Most functions drawn.
const MAX_ROWS: usize = 12;

/// Longest function name drawn beside its bars (the full name is in the tooltip).
const LABEL_CHARS: usize = 30;

/// Height of one bar.
const BAR: f64 = 12.0;

/// Colour of the inclusive bars (the self bars take the first colour of the palette).
const INCLUSIVE: &str = "#a0cbe8";

/// A bar from 0 to `share` with the whisker of `ci`; `top` is the bar's upper edge.
fn bar(
    plot: &mut Plot,
    x: &Scale,
    top: f64,
    (share, ci): (f64, [f64; 2]),
    fill: &str,
    tooltip: &str,
) -> fmt::Result {
    let height = BAR;
    let width = (x.map(share * 100.0) - plot.left).max(1.0);
    let mid = top + height / 2.0;
    let (lo, hi) = (x.map(ci[0] * 100.0), x.map(ci[1] * 100.0));
    write!(
        plot.body,
        r##"<rect class="mark" x="{:.1}" y="{top:.1}" width="{width:.1}" height="{height:.1}" fill="{fill}"><title>{}</title></rect><g class="whisker" stroke="#1f2933" stroke-width="1.2"><line x1="{lo:.1}" y1="{mid:.1}" x2="{hi:.1}" y2="{mid:.1}"/><line x1="{lo:.1}" y1="{:.1}" x2="{lo:.1}" y2="{:.1}"/><line x1="{hi:.1}" y1="{:.1}" x2="{hi:.1}" y2="{:.1}"/></g>"##,
        plot.left,
        esc(tooltip),
        mid - 3.0,
        mid + 3.0,
        mid - 3.0,
        mid + 3.0,
    )?;
    Ok(())
}

fn tooltip(f: &FunctionShare, inclusive: bool, total: u64, confidence: f64) -> String {
    let (what, samples, share, ci) = if inclusive {
        (
            "inclusive",
            f.inclusive_samples,
            f.inclusive_share,
            f.inclusive_ci,
        )
    } else {
        ("self", f.self_samples, f.self_share, f.self_ci)
    };
    format!(
        "{}: {what} share {} ({} of {} samples), {:.0}% interval {}",
        f.name,
        format_share(share),
        format_count(samples as f64),
        format_count(total as f64),
        confidence * 100.0,
        format_share_interval(ci)
    )
}

/// The shares chart of one profile, or nothing when it has no samples.
pub(crate) fn shares_chart(
    out: &mut dyn Write,
    doc: &SamplingDocument,
    profile: &SampledProfile,
) -> fmt::Result {
    let rows: Vec<&FunctionShare> = profile.functions.iter().take(MAX_ROWS).collect();
    if rows.is_empty() {
        return Ok(());
    }
    let row = 34.0;
    let left = label_margin(rows.iter().map(|f| f.name.as_str()), LABEL_CHARS, 220.0);
    let mut plot = Plot::new(
        760.0 + (left - 220.0),
        96.0 + row * rows.len() as f64,
        (left, 24.0, 40.0, 50.0),
    );
    let max = rows
        .iter()
        .map(|f| f.inclusive_ci[1].max(f.self_ci[1]))
        .fold(0.0, f64::max)
        .max(0.01)
        * 100.0;
    let x = Scale::linear(0.0, max.min(100.0) * 1.04, plot.left, plot.right);
    plot.x_axis(&x, &with_unit("share of the samples", "%"), &|v| {
        format!("{v:.0}%")
    })?;
    plot.legend(&[(colour(0), "self".into()), (INCLUSIVE, "inclusive".into())])?;
    for (i, f) in rows.iter().enumerate() {
        let y = plot.top + row * i as f64 + 4.0;
        write!(
            plot.body,
            r#"<text class="row-label" x="{:.1}" y="{:.1}" text-anchor="end">{}<title>{}</title></text><text class="row-sub" x="{:.1}" y="{:.1}" text-anchor="end">{} self · {} incl. samples</text>"#,
            plot.left - 8.0,
            y + 11.0,
            esc(&shorten(&f.name, LABEL_CHARS)),
            esc(&f.name),
            plot.left - 8.0,
            y + 24.0,
            format_count(f.self_samples as f64),
            format_count(f.inclusive_samples as f64),
        )?;
        let (total, conf) = (profile.samples, doc.confidence);
        let self_tip = tooltip(f, false, total, conf);
        bar(
            &mut plot,
            &x,
            y,
            (f.self_share, f.self_ci),
            colour(0),
            &self_tip,
        )?;
        let inclusive_tip = tooltip(f, true, total, conf);
        let inclusive = (f.inclusive_share, f.inclusive_ci);
        bar(
            &mut plot,
            &x,
            y + BAR + 2.0,
            inclusive,
            INCLUSIVE,
            &inclusive_tip,
        )?;
    }
    let title = format!(
        "Where the samples of {} fall (top functions by self share)",
        profile.name
    );
    let caption = format!(
        "Self share: samples whose innermost frame is the function; inclusive share: samples with the function anywhere on the stack. Shares are of all {} samples of {} at {} Hz; whiskers are {:.0}% Wilson intervals for each share on its own.",
        format_count(profile.samples as f64),
        doc.sampler.event,
        doc.sampler.frequency_hz,
        doc.confidence * 100.0
    );
    out.write_str(&figure("shares", &title, &plot.finish(&title), &caption))
}
