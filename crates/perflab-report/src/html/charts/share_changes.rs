//! How functions' shares of the samples moved from the baseline to the
//! candidate of a differential profile: per function the change of its self
//! and of its inclusive share, in percentage points, with its interval,
//! around a line at zero. An interval that crosses the line did not move.

use std::fmt::{self, Write};

use perflab_format::sampling::{SamplingDocument, ShareChange};

use super::super::escape::esc;
use super::super::svg::{Plot, Scale, colour, figure};
use super::with_unit;
use super::{label_margin, shorten};
use crate::units::{format_points, format_points_interval, format_share};

/// Most functions drawn.
const MAX_ROWS: usize = 12;

/// Functions drawn when none moved.
const UNMOVED_ROWS: usize = 6;

/// The functions drawn: those that moved, largest first, or when none did
/// the largest changes, so the chart shows that nothing left its interval.
fn rows(doc: &SamplingDocument) -> Vec<&ShareChange> {
    let moved: Vec<&ShareChange> = doc
        .changes
        .iter()
        .filter(|c| c.moved)
        .take(MAX_ROWS)
        .collect();
    if moved.is_empty() {
        doc.changes.iter().take(UNMOVED_ROWS).collect()
    } else {
        moved
    }
}

/// One dot with its interval; `y` is the centre line.
fn interval(
    plot: &mut Plot,
    x: &Scale,
    y: f64,
    (change, ci): (f64, [f64; 2]),
    fill: &str,
    tooltip: &str,
) -> fmt::Result {
    write!(
        plot.body,
        r#"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{fill}" stroke-width="3" stroke-linecap="round"/><circle class="mark" cx="{:.1}" cy="{y:.1}" r="5" fill="white" stroke="{fill}" stroke-width="2.5"><title>{}</title></circle>"#,
        x.map(ci[0] * 100.0),
        x.map(ci[1] * 100.0),
        x.map(change * 100.0),
        esc(tooltip)
    )?;
    Ok(())
}

/// The chart of a differential profile, or nothing for a single profile.
pub(crate) fn share_changes_chart(out: &mut dyn Write, doc: &SamplingDocument) -> fmt::Result {
    let [a, b] = doc.profiles.as_slice() else {
        return Ok(());
    };
    let rows = rows(doc);
    if rows.is_empty() {
        return Ok(());
    }
    let row = 30.0;
    let left = label_margin(rows.iter().map(|c| c.name.as_str()), 30, 220.0);
    let mut plot = Plot::new(
        760.0 + (left - 220.0),
        96.0 + row * rows.len() as f64,
        (left, 24.0, 40.0, 50.0),
    );
    let values = rows
        .iter()
        .flat_map(|c| [c.self_ci, c.inclusive_ci])
        .flatten()
        .chain([0.0])
        .map(|v| v * 100.0);
    let x = Scale::linear_around(values, plot.left, plot.right);
    plot.x_axis(
        &x,
        &with_unit(
            &format!("change of share, {} minus {}", b.name, a.name),
            "percentage points",
        ),
        &|v| format!("{v:+.0}"),
    )?;
    plot.legend(&[(colour(0), "self".into()), (colour(1), "inclusive".into())])?;
    let zero = x.map(0.0);
    write!(
        plot.body,
        r#"<line class="reference-line" x1="{zero:.1}" y1="{:.1}" x2="{zero:.1}" y2="{:.1}"/>"#,
        plot.top, plot.bottom
    )?;
    for (i, c) in rows.iter().enumerate() {
        let y = plot.top + row * i as f64 + row / 2.0;
        write!(
            plot.body,
            r#"<text class="row-label" x="{:.1}" y="{:.1}" text-anchor="end">{}<title>{}</title></text>"#,
            plot.left - 8.0,
            y + 4.0,
            esc(&shorten(&c.name, 30)),
            esc(&c.name)
        )?;
        let tip = |what: &str, shares: [f64; 2], change: f64, ci: [f64; 2]| {
            format!(
                "{}: {what} share {} → {}, {} points ({:.0}% interval {})",
                c.name,
                format_share(shares[0]),
                format_share(shares[1]),
                format_points(change),
                doc.confidence * 100.0,
                format_points_interval(ci)
            )
        };
        let self_tip = tip("self", c.self_shares, c.self_change, c.self_ci);
        interval(
            &mut plot,
            &x,
            y - 5.0,
            (c.self_change, c.self_ci),
            colour(0),
            &self_tip,
        )?;
        let inclusive_tip = tip(
            "inclusive",
            c.inclusive_shares,
            c.inclusive_change,
            c.inclusive_ci,
        );
        let inclusive = (c.inclusive_change, c.inclusive_ci);
        interval(&mut plot, &x, y + 6.0, inclusive, colour(1), &inclusive_tip)?;
    }
    let moved = doc.changes.iter().filter(|c| c.moved).count();
    let title = format!("Shares that moved from {} to {}", a.name, b.name);
    let caption = format!(
        "Change of each function's share of the samples, in percentage points, with {:.0}% Newcombe intervals; {moved} of {} functions moved (an interval that excludes zero){}. A share can grow only because another shrank: read the largest moves first.",
        doc.confidence * 100.0,
        doc.changes.len(),
        if moved == 0 {
            ", so the largest changes are drawn"
        } else {
            ""
        }
    );
    out.write_str(&figure(
        "share-changes",
        &title,
        &plot.finish(&title),
        &caption,
    ))
}
