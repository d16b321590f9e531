//! Span breakdowns: each span's self time as a share of wall time, with the
//! time no span covers drawn as its own (hatched) bar, so that
//! "unattributed" can never be mistaken for a phase or hidden.

use std::fmt::{self, Write};

use super::super::escape::esc;
use super::super::svg::{Plot, Scale, colour, figure};
use super::{label_margin, shorten};
use crate::sections::spans::{SpanShare, VariantSpans};
use crate::units::{format_seconds, format_share};

/// Most spans drawn one by one; the rest are summed into one bar.
const MAX_BARS: usize = 12;

/// Longest label drawn whole; a longer one is shortened, with the whole
/// name on hover.
const LABEL_CHARS: usize = 36;

/// The breakdown chart of one variant; `id` makes its pattern's id unique on the page.
pub(crate) fn spans_chart(out: &mut dyn Write, v: &VariantSpans, id: usize) -> fmt::Result {
    let mut bars: Vec<(SpanShare, bool)> = v
        .spans
        .iter()
        .take(MAX_BARS)
        .map(|s| (s.clone(), false))
        .collect();
    if v.spans.len() > MAX_BARS {
        let rest = &v.spans[MAX_BARS..];
        let summed = SpanShare {
            name: format!("{} other spans", rest.len()),
            self_s: rest.iter().map(|s| s.self_s).sum(),
            share_of_wall: rest.iter().map(|s| s.share_of_wall).sum(),
            calls: rest.iter().map(|s| s.calls).sum(),
            never_entered: rest.iter().all(|s| s.never_entered),
            entered_in_few_runs: None,
        };
        bars.push((summed, false));
    }
    bars.push((v.unattributed.clone(), true));
    let left = label_margin(
        bars.iter().map(|(s, _)| s.name.as_str()),
        LABEL_CHARS,
        170.0,
    );
    let row = 26.0;
    let mut plot = Plot::new(
        760.0 + (left - 170.0),
        76.0 + row * bars.len() as f64,
        (left, 150.0, 12.0, 50.0),
    );
    let max = bars
        .iter()
        .map(|(s, _)| s.share_of_wall)
        .fold(0.0, f64::max)
        .max(0.01)
        * 100.0;
    let x = Scale::linear(0.0, max * 1.05, plot.left, plot.right);
    plot.x_axis(&x, "self time as a share of wall time (%)", &|v| {
        format!("{v:.0}%")
    })?;
    let pattern = format!("unattributed-{id}");
    write!(
        plot.body,
        r##"<defs><pattern id="{pattern}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#eceff1"/><line x1="0" y1="0" x2="0" y2="6" stroke="#90a4ae" stroke-width="3"/></pattern></defs>"##
    )?;
    for (i, (span, unattributed)) in bars.iter().enumerate() {
        let y = plot.top + row * i as f64 + 4.0;
        let fill = if *unattributed {
            format!("url(#{pattern})")
        } else {
            colour(0).to_string()
        };
        let width = (x.map(span.share_of_wall * 100.0) - plot.left).max(1.0);
        let calls = if *unattributed {
            String::new()
        } else {
            format!(", {:.0} calls", span.calls)
        };
        let share = format_share(span.share_of_wall);
        let self_time = format_seconds(span.self_s);
        write!(
            plot.body,
            r#"<text class="row-label" x="{:.1}" y="{:.1}" text-anchor="end"><title>{}</title>{}</text><rect class="mark" x="{:.1}" y="{y:.1}" width="{width:.1}" height="{:.1}" fill="{fill}" stroke="{}"><title>{}: {share} of wall time, {self_time} per run{calls}</title></rect><text class="bar-value" x="{:.1}" y="{:.1}">{share} · {self_time}</text>"#,
            plot.left - 8.0,
            y + 13.0,
            esc(&span.name),
            esc(&shorten(&span.name, LABEL_CHARS)),
            plot.left,
            row - 8.0,
            if *unattributed { "#90a4ae" } else { "none" },
            esc(&span.name),
            plot.left + width + 6.0,
            y + 13.0,
        )?;
    }
    let title = format!("Where the time goes in {} (self time per span)", v.variant);
    let wall = v
        .wall_s
        .map(|w| format!("; {} of wall time per run", format_seconds(w)))
        .unwrap_or_default();
    let caption = format!(
        "Self time of each span (time inside it minus the spans it entered) as a share of the session's wall time, median over {} profiled runs{wall}; shares add up to more than 100% when threads overlap. The hatched bar is the time no span covers: it is not overhead of anything in particular, only unmeasured.",
        v.runs
    );
    out.write_str(&figure("spans", &title, &plot.finish(&title), &caption))
}
