//! Span breakdowns: each span's self time as a share of the threads' time,
//! with the time no span covers drawn as its own (hatched) bar, so that
//! "unattributed" can never be mistaken for a phase or hidden.

use std::fmt::Write;

use super::super::escape::esc;
use super::super::svg::{Plot, Scale, colour, figure};
use crate::report::span_breakdown::VariantSpans;
use crate::units::format_seconds;

/// Most spans drawn one by one; the rest are summed into one bar.
const MAX_BARS: usize = 12;

/// The breakdown chart of one variant; `id` makes its pattern's id unique on the page.
pub fn spans_chart(v: &VariantSpans, id: usize) -> String {
    let mut bars: Vec<(String, f64, f64, f64, bool)> = v
        .spans
        .iter()
        .take(MAX_BARS)
        .map(|s| (s.name.clone(), s.share, s.self_ns, s.calls, false))
        .collect();
    if v.spans.len() > MAX_BARS {
        let rest = &v.spans[MAX_BARS..];
        bars.push((
            format!("{} other spans", rest.len()),
            rest.iter().map(|s| s.share).sum(),
            rest.iter().map(|s| s.self_ns).sum(),
            rest.iter().map(|s| s.calls).sum(),
            false,
        ));
    }
    bars.push((
        "(unattributed)".into(),
        v.unattributed_share,
        v.unattributed_ns,
        0.0,
        true,
    ));
    let row = 26.0;
    let mut plot = Plot::new(
        760.0,
        76.0 + row * bars.len() as f64,
        (170.0, 150.0, 12.0, 50.0),
    );
    let max = bars.iter().map(|b| b.1).fold(0.0, f64::max).max(0.01) * 100.0;
    let x = Scale::linear(0.0, max * 1.05, plot.left, plot.right);
    plot.x_axis(&x, "share of the threads' time (%)", &|v| {
        format!("{v:.0}%")
    });
    let pattern = format!("unattributed-{id}");
    let _ = write!(
        plot.body,
        r##"<defs><pattern id="{pattern}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#eceff1"/><line x1="0" y1="0" x2="0" y2="6" stroke="#90a4ae" stroke-width="3"/></pattern></defs>"##
    );
    for (i, (name, share, self_ns, calls, unattributed)) in bars.iter().enumerate() {
        let y = plot.top + row * i as f64 + 4.0;
        let fill = if *unattributed {
            format!("url(#{pattern})")
        } else {
            colour(0).to_string()
        };
        let width = (x.map(share * 100.0) - plot.left).max(1.0);
        let calls = if *unattributed {
            String::new()
        } else {
            format!(", {calls:.0} calls")
        };
        let _ = write!(
            plot.body,
            r#"<text class="row-label" x="{:.1}" y="{:.1}" text-anchor="end">{}</text><rect class="mark" x="{:.1}" y="{y:.1}" width="{width:.1}" height="{:.1}" fill="{fill}" stroke="{}"><title>{}: {:.1}% of thread time, {} per run{calls}</title></rect><text class="bar-value" x="{:.1}" y="{:.1}">{:.1}% · {}</text>"#,
            plot.left - 8.0,
            y + 13.0,
            esc(name),
            plot.left,
            row - 8.0,
            if *unattributed { "#90a4ae" } else { "none" },
            esc(name),
            share * 100.0,
            format_seconds(self_ns * 1e-9),
            plot.left + width + 6.0,
            y + 13.0,
            share * 100.0,
            format_seconds(self_ns * 1e-9),
        );
    }
    let title = format!("Where the time goes in {} (self time per span)", v.variant);
    let caption = format!(
        "Self time of each span (time inside it minus the spans it entered), as a share of the wall time of every thread, summed over {} profiled runs; {} of thread time per run. The hatched bar is the time no span covers: it is not overhead of anything in particular, only unmeasured.",
        v.runs,
        format_seconds(v.thread_ns * 1e-9)
    );
    figure("spans", &title, &plot.finish(&title), &caption)
}
