//! Inline SVG charts without scripts: scales (linear and logarithmic) with
//! readable ticks, a plot frame with axes, titles and labels, and the
//! `<figure>` every chart sits in.

use std::fmt::{self, Write};

use super::escape::esc;

/// Colours of series, in order (distinguishable, also in grey print).
pub(crate) const PALETTE: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#ff9da7",
];

/// The colour of series `i`.
pub fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Maps data values to pixels along one axis.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    lo: f64,
    hi: f64,
    from: f64,
    to: f64,
    log: bool,
}

impl Scale {
    /// A linear scale from [lo, hi] onto [from, to] pixels.
    pub fn linear(lo: f64, hi: f64, from: f64, to: f64) -> Self {
        let (lo, hi) = if hi > lo {
            (lo, hi)
        } else {
            (lo - 1.0, hi + 1.0)
        };
        Self {
            lo,
            hi,
            from,
            to,
            log: false,
        }
    }

    /// A logarithmic scale (values must be > 0) from [lo, hi] onto [from, to].
    pub fn log(lo: f64, hi: f64, from: f64, to: f64) -> Self {
        let (lo, hi) = if hi > lo {
            (lo, hi)
        } else {
            (lo / 2.0, hi * 2.0)
        };
        Self {
            lo,
            hi,
            from,
            to,
            log: true,
        }
    }

    /// A linear scale around `values`, padded by 5 % (and including `extra`).
    pub(crate) fn linear_around(values: impl IntoIterator<Item = f64>, from: f64, to: f64) -> Self {
        let (lo, hi) = bounds(values);
        let pad = (hi - lo).abs().max(hi.abs() * 0.01).max(1e-12) * 0.05;
        Self::linear(lo - pad, hi + pad, from, to)
    }

    /// A log scale around positive `values`, padded by a few percent.
    pub(crate) fn log_around(values: impl IntoIterator<Item = f64>, from: f64, to: f64) -> Self {
        let (lo, hi) = bounds(values.into_iter().filter(|v| *v > 0.0));
        let pad = (hi / lo).powf(0.04).max(1.02);
        Self::log(lo / pad, hi * pad, from, to)
    }

    /// The pixel of `value`.
    pub fn map(&self, value: f64) -> f64 {
        let t = if self.log {
            (value.max(f64::MIN_POSITIVE).ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
        } else {
            (value - self.lo) / (self.hi - self.lo)
        };
        self.from + t * (self.to - self.from)
    }

    /// Tick values inside the domain: 1-2-5 steps (linear), or powers of ten
    /// (with 2 and 5 between them when the range is short) on a log scale.
    pub fn ticks(&self) -> Vec<f64> {
        if self.log {
            log_ticks(self.lo, self.hi)
        } else {
            linear_ticks(self.lo, self.hi, 6)
        }
    }
}

fn bounds(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.into_iter().filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo > hi { (0.0, 1.0) } else { (lo, hi) }
}

/// About `count` round tick values covering [lo, hi].
pub(crate) fn linear_ticks(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    let raw = (hi - lo) / count.max(1) as f64;
    if !(raw.is_finite() && raw > 0.0) {
        return vec![lo];
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// Ticks for a log axis over [lo, hi].
pub(crate) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let span = hi / lo;
    let multipliers: &[f64] = if span <= 30.0 {
        &[1.0, 1.5, 2.0, 3.0, 5.0, 7.0]
    } else if span <= 2000.0 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let mut ticks = Vec::new();
    for e in a..=b {
        for m in multipliers {
            let v = m * 10f64.powi(e);
            if v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9) {
                ticks.push(v);
            }
        }
    }
    ticks
}

/// A plot: its size, margins and the SVG drawn so far.
pub(crate) struct Plot {
    /// Width of the whole SVG.
    pub width: f64,
    /// Height of the whole SVG.
    pub height: f64,
    /// Left edge of the plot area.
    pub left: f64,
    /// Right edge of the plot area.
    pub right: f64,
    /// Top edge of the plot area.
    pub top: f64,
    /// Bottom edge of the plot area.
    pub bottom: f64,
    /// The SVG elements.
    pub body: String,
}

impl Plot {
    /// A plot of `width` x `height` with the plot area inside the margins
    /// (left, right, top, bottom).
    pub(crate) fn new(width: f64, height: f64, margins: (f64, f64, f64, f64)) -> Self {
        Self {
            width,
            height,
            left: margins.0,
            right: width - margins.1,
            top: margins.2,
            bottom: height - margins.3,
            body: String::new(),
        }
    }

    /// Appends raw SVG (the caller escapes what it interpolates).
    pub(crate) fn push(&mut self, svg: &str) {
        self.body.push_str(svg);
    }

    /// The x axis at the bottom: grid lines, tick labels and the axis label.
    pub(crate) fn x_axis(
        &mut self,
        scale: &Scale,
        label: &str,
        format: &dyn Fn(f64) -> String,
    ) -> fmt::Result {
        for t in scale.ticks() {
            let x = scale.map(t);
            let text = format(t);
            write!(
                self.body,
                r#"<line class="grid" x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}"/><text class="tick" x="{x:.1}" y="{:.1}" text-anchor="{}">{}</text>"#,
                self.top,
                self.bottom,
                self.bottom + 16.0,
                self.tick_anchor(x, &text),
                esc(&text)
            )?;
        }
        write!(
            self.body,
            r#"<line class="axis" x1="{:.1}" y1="{b:.1}" x2="{:.1}" y2="{b:.1}"/><text class="axis-label" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            self.left,
            self.right,
            (self.left + self.right) / 2.0,
            self.bottom + 36.0,
            esc(label),
            b = self.bottom
        )?;
        Ok(())
    }

    /// How an x tick label at `x` is anchored: centred on its tick, unless
    /// that would run it past an edge of the SVG (a tick near the edge with
    /// a long label, such as +600.0%), when it ends or starts at the tick.
    /// The width is estimated (the SVG is written without a font to measure
    /// with) from the tick font's size, 11 px (style.css), at an average
    /// 0.62 em per character, generous for digits and signs.
    fn tick_anchor(&self, x: f64, text: &str) -> &'static str {
        const CHAR_WIDTH: f64 = 11.0 * 0.62;
        let half = text.chars().count() as f64 * CHAR_WIDTH / 2.0;
        if x + half > self.width {
            "end"
        } else if x - half < 0.0 {
            "start"
        } else {
            "middle"
        }
    }

    /// The y axis at the left: grid lines, tick labels and the rotated axis label.
    pub(crate) fn y_axis(
        &mut self,
        scale: &Scale,
        label: &str,
        format: &dyn Fn(f64) -> String,
    ) -> fmt::Result {
        for t in scale.ticks() {
            let y = scale.map(t);
            write!(
                self.body,
                r#"<line class="grid" x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}"/><text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
                self.left,
                self.right,
                self.left - 6.0,
                y + 4.0,
                esc(&format(t))
            )?;
        }
        let mid = (self.top + self.bottom) / 2.0;
        write!(
            self.body,
            r#"<line class="axis" x1="{l:.1}" y1="{:.1}" x2="{l:.1}" y2="{:.1}"/><text class="axis-label" x="16" y="{mid:.1}" text-anchor="middle" transform="rotate(-90 16 {mid:.1})">{}</text>"#,
            self.top,
            self.bottom,
            esc(label),
            l = self.left
        )?;
        Ok(())
    }

    /// A legend row at the top right: (colour, label) pairs.
    pub(crate) fn legend(&mut self, entries: &[(&str, String)]) -> fmt::Result {
        let mut x = self.right;
        for (colour, label) in entries.iter().rev() {
            let width = 7.0 * label.chars().count() as f64 + 22.0;
            x -= width;
            write!(
                self.body,
                r#"<g class="legend"><rect x="{x:.1}" y="{:.1}" width="12" height="12" rx="2" fill="{colour}"/><text x="{:.1}" y="{:.1}">{}</text></g>"#,
                self.top - 22.0,
                x + 16.0,
                self.top - 12.0,
                esc(label)
            )?;
        }
        Ok(())
    }

    /// The finished `<svg>` element.
    pub(crate) fn finish(self, title: &str) -> String {
        format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="{t}"><title>{t}</title>{body}</svg>"#,
            w = self.width,
            h = self.height,
            t = esc(title),
            body = self.body
        )
    }
}

/// A chart in its `<figure>`: a heading, the SVG and a caption saying what it rests on.
pub fn figure(kind: &str, title: &str, svg: &str, caption: &str) -> String {
    format!(
        r#"<figure class="chart" data-chart="{}"><figcaption class="chart-title">{}</figcaption>{svg}<p class="chart-note">{}</p></figure>"#,
        esc(kind),
        esc(title),
        esc(caption)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_round_and_cover_the_range() {
        assert_eq!(linear_ticks(0.0, 10.0, 5), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(linear_ticks(0.013, 0.031, 4), [0.015, 0.02, 0.025, 0.03]);
    }

    #[test]
    fn log_ticks_show_decades_and_fill_in_short_ranges() {
        assert_eq!(log_ticks(900.0, 1.1e7), [1e3, 1e4, 1e5, 1e6, 1e7]);
        assert_eq!(
            log_ticks(900.0, 1.1e4),
            [1e3, 1.5e3, 2e3, 3e3, 5e3, 7e3, 1e4]
        );
        assert_eq!(log_ticks(900.0, 1.1e5), [1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5]);
        assert_eq!(log_ticks(1.0, 40.0), [1.0, 2.0, 5.0, 10.0, 20.0]);
        assert_eq!(log_ticks(0.9, 4.0), [1.0, 1.5, 2.0, 3.0]);
    }

    #[test]
    fn an_x_tick_label_that_would_run_past_an_edge_ends_or_starts_at_its_tick() {
        let mut plot = Plot::new(400.0, 200.0, (10.0, 10.0, 10.0, 40.0));
        let x = Scale::linear(0.0, 600.0, plot.left, plot.right);
        plot.x_axis(&x, "change", &|v| format!("{v:+.1}%")).unwrap();
        assert!(
            plot.body
                .contains(r#"x="390.0" y="176.0" text-anchor="end">+600.0%"#),
            "{}",
            plot.body
        );
        assert!(
            plot.body
                .contains(r#"x="10.0" y="176.0" text-anchor="start">+0.0%"#),
            "{}",
            plot.body
        );
        assert!(plot.body.contains(r#"text-anchor="middle">+300.0%"#));
    }

    #[test]
    fn scales_map_the_domain_onto_the_range() {
        let s = Scale::log(1.0, 100.0, 0.0, 200.0);
        assert!((s.map(10.0) - 100.0).abs() < 1e-9);
        let s = Scale::linear(0.0, 10.0, 100.0, 0.0);
        assert!((s.map(2.5) - 75.0).abs() < 1e-9);
    }
}
