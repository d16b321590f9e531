//! History lines: a metric's median at each commit with its interval, one
//! line per variant, regressions marked.

use std::fmt::{self, Write};

use super::super::escape::esc;
use super::super::svg::{Plot, Scale, colour, figure};
use super::{tick, with_unit};
use crate::units::format_value;
use perflab_format::history::MetricHistory;

/// The chart of a metric history.
pub fn write_history_chart(out: &mut dyn Write, e: &MetricHistory, unit: &str) -> fmt::Result {
    let labels: Vec<&str> = {
        let mut labels: Vec<(&str, &str)> = Vec::new();
        for s in &e.series {
            for step in &s.steps {
                if !labels.iter().any(|(l, _)| *l == step.label) {
                    labels.push((&step.label, &step.started_at));
                }
            }
        }
        labels.sort_by(|a, b| a.1.cmp(b.1));
        labels.into_iter().map(|(l, _)| l).collect()
    };
    let mut plot = Plot::new(760.0, 340.0, (86.0, 24.0, 40.0, 56.0));
    let values = e.series.iter().flat_map(|s| {
        s.steps.iter().flat_map(|step| match &step.level {
            Some(l) => vec![l.lo, l.hi, step.median],
            None => vec![step.median],
        })
    });
    let y = Scale::linear_around(values, plot.bottom, plot.top);
    plot.y_axis(&y, &with_unit(&e.metric, unit), &tick(unit))?;
    let step_x = (plot.right - plot.left) / labels.len().max(1) as f64;
    let left = plot.left;
    let x_of = |label: &str| {
        let i = labels.iter().position(|l| *l == label).unwrap_or(0);
        left + step_x * (i as f64 + 0.5)
    };
    let mut ticks = String::new();
    // A long history labels every k-th commit (and the newest), so that
    // labels never overlap: about 64 pixels each, counted back from the
    // newest commit, which is always labelled.
    let every = ((64.0 / step_x).ceil() as usize).max(1);
    let last = labels.len().saturating_sub(1);
    for (i, label) in labels.iter().enumerate() {
        if (last - i) % every != 0 {
            continue;
        }
        write!(
            ticks,
            r#"<text class="tick mono" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            x_of(label),
            plot.bottom + 16.0,
            esc(label)
        )?;
    }
    plot.push(&ticks);
    write!(
        plot.body,
        r#"<line class="axis" x1="{:.1}" y1="{b:.1}" x2="{:.1}" y2="{b:.1}"/><text class="axis-label" x="{:.1}" y="{:.1}" text-anchor="middle">commit, oldest to newest</text>"#,
        plot.left,
        plot.right,
        (plot.left + plot.right) / 2.0,
        plot.bottom + 40.0,
        b = plot.bottom
    )?;
    let mut legend = Vec::new();
    for (k, s) in e.series.iter().enumerate() {
        let c = colour(k);
        let offset = (k as f64 - (e.series.len() as f64 - 1.0) / 2.0) * 6.0;
        let mut points = Vec::new();
        for step in &s.steps {
            let cx = x_of(&step.label) + offset;
            let cy = y.map(step.median);
            points.push(format!("{cx:.1},{cy:.1}"));
            let regression = step.change.as_ref().is_some_and(|j| j.regression);
            let (lo, hi) = step
                .level
                .map_or((step.median, step.median), |l| (l.lo, l.hi));
            let verdict = step
                .change
                .as_ref()
                .map(|j| format!(", {} against the previous commit", j.verdict))
                .unwrap_or_default();
            write!(
                plot.body,
                r#"<g class="mark"><title>{} at {}: median {} over {} runs{}</title><line x1="{cx:.1}" y1="{:.1}" x2="{cx:.1}" y2="{:.1}" stroke="{c}" stroke-width="1.5"/><circle cx="{cx:.1}" cy="{cy:.1}" r="{}" fill="{}" stroke="{}" stroke-width="2"/></g>"#,
                esc(&s.variant),
                esc(&step.label),
                esc(&format_value(step.median, unit)),
                step.values.len(),
                esc(&verdict),
                y.map(lo),
                y.map(hi),
                if regression { 6 } else { 4 },
                if regression { "#c62828" } else { c },
                if regression { "#c62828" } else { c },
            )?;
            if regression {
                write!(
                    plot.body,
                    r#"<text class="regression-label" x="{cx:.1}" y="{:.1}" text-anchor="middle">NO-GO</text>"#,
                    y.map(hi) - 8.0
                )?;
            }
        }
        write!(
            plot.body,
            r#"<polyline class="series" points="{}" fill="none" stroke="{c}" stroke-width="2"/>"#,
            points.join(" ")
        )?;
        legend.push((c, s.variant.clone()));
    }
    plot.legend(&legend)?;
    let title = format!("{} at each commit", e.metric);
    let caption = format!(
        "Median at each commit with the {:.0}% interval of its runs; marked points are change points of the series (E-divisive means), each judged between the segments of commits around it (Hodges-Lehmann, GO at {:+.1}%, NO-GO at {:+.1}%); red points are regressions.",
        e.confidence * 100.0,
        e.go * 100.0,
        e.nogo * 100.0
    );
    out.write_str(&figure("history", &title, &plot.finish(&title), &caption))
}

/// [`write_history_chart`] as a `String`.
pub fn history_chart(e: &MetricHistory, unit: &str) -> String {
    crate::render_to_string(|out| write_history_chart(out, e, unit))
}
