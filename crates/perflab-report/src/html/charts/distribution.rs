//! Per-variant distributions: every run as a dot over a box of the middle
//! half, with the median marked, on a shared axis.

use std::fmt::{self, Write};

use perflab_format::result::ResultDocument;

use super::super::escape::esc;
use super::super::svg::{Plot, Scale, colour, figure};
use super::{label_margin, shorten, tick, with_unit};

/// Characters of a variant's name drawn before it is shortened (the whole
/// name is in the label's title).
const LABEL_CHARS: usize = 28;

/// The distribution chart of a result's variants (nothing without samples).
pub(crate) fn distribution_chart(out: &mut dyn Write, doc: &ResultDocument) -> fmt::Result {
    let variants: Vec<_> = doc
        .variants
        .iter()
        .filter(|v| !v.samples.is_empty())
        .collect();
    if variants.is_empty() {
        return Ok(());
    }
    let row = 56.0;
    // A long name widens the margin rather than run off the chart.
    let margin = label_margin(variants.iter().map(|v| v.name.as_str()), LABEL_CHARS, 150.0);
    let mut plot = Plot::new(
        760.0,
        70.0 + row * variants.len() as f64,
        (margin, 24.0, 16.0, 48.0),
    );
    let unit = doc.metric.unit.as_str();
    let x = Scale::linear_around(
        variants.iter().flat_map(|v| v.samples.iter().copied()),
        plot.left,
        plot.right,
    );
    plot.x_axis(
        &x,
        &format!(
            "{}, {} is better",
            with_unit(&doc.metric.name, unit),
            doc.metric.better
        ),
        &tick(unit),
    )?;
    for (i, v) in variants.iter().enumerate() {
        let mid = plot.top + row * (i as f64 + 0.5);
        let s = &v.summary;
        let c = colour(i);
        write!(
            plot.body,
            r#"<text class="row-label" x="{:.1}" y="{:.1}" text-anchor="end"><title>{}</title>{}</text><text class="row-sub" x="{:.1}" y="{:.1}" text-anchor="end">{} runs</text>"#,
            plot.left - 10.0,
            mid - 2.0,
            esc(&v.name),
            esc(&shorten(&v.name, LABEL_CHARS)),
            plot.left - 10.0,
            mid + 13.0,
            v.runs
        )?;
        write!(
            plot.body,
            r#"<line class="whisker" x1="{:.1}" y1="{mid:.1}" x2="{:.1}" y2="{mid:.1}" stroke="{c}"/><rect class="box" x="{:.1}" y="{:.1}" width="{:.1}" height="22" fill="{c}" fill-opacity="0.18" stroke="{c}"/><line class="median" x1="{m:.1}" y1="{:.1}" x2="{m:.1}" y2="{:.1}" stroke="{c}"><title>median {}</title></line>"#,
            x.map(s.min),
            x.map(s.max),
            x.map(s.q1),
            mid - 11.0,
            (x.map(s.q3) - x.map(s.q1)).max(1.0),
            mid - 14.0,
            mid + 14.0,
            esc(&tick(unit)(s.median)),
            m = x.map(s.median)
        )?;
        for (j, value) in v.samples.iter().enumerate() {
            // A fixed jitter pattern, so the page is the same every time.
            let jitter = ((j * 37 % 17) as f64 / 16.0 - 0.5) * 16.0;
            write!(
                plot.body,
                r#"<circle class="mark" cx="{:.1}" cy="{:.1}" r="3" fill="{c}" fill-opacity="0.65"><title>run {}: {}</title></circle>"#,
                x.map(*value),
                mid + jitter,
                j + 1,
                esc(&tick(unit)(*value))
            )?;
        }
    }
    let title = format!("Distribution of {} per variant", doc.metric.name);
    let caption = "Each dot is one run; the box spans the middle half of the runs (first to third quartile), the thick line is the median, the thin line runs from the fastest to the slowest run.";
    out.write_str(&figure(
        "distribution",
        &title,
        &plot.finish(&title),
        caption,
    ))
}
