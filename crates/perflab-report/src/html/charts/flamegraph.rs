//! The flame graph of a sampling profile, drawn again by inferno from the
//! folded stacks kept in the store and inlined without its script: one
//! profile, or for two the differential graph (sized by the candidate,
//! red where a frame's samples grew, blue where they shrank).

use perflab_format::sampling::SamplingDocument;

use super::super::inline_svg::inline_flamegraph;
use super::super::svg::figure;
use crate::sampling::FoldedStacks;
use crate::sampling::flamegraph::{differential_svg, flamegraph_svg, options};
use crate::sections::sampling::SamplingReport;
use crate::units::format_count;

/// Width of the drawing in pixels, about the width of the page's column.
const WIDTH: usize = 820;

/// Frames narrower than this many pixels are left out (they could not be read).
const MIN_WIDTH: f64 = 0.5;

/// The flame graph in its figure; `id` keeps its ids unique on the page.
/// The error says why there is none, for a note on the page.
pub(crate) fn flamegraph_chart(report: &SamplingReport, id: usize) -> Result<String, String> {
    let doc = &report.doc;
    let stacks = report
        .folded
        .iter()
        .map(|(name, text)| {
            FoldedStacks::parse(text)
                .map_err(|e| format!("the stored stacks of {name} cannot be read ({e})"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if stacks.is_empty() || stacks.iter().any(FoldedStacks::is_empty) {
        return Err("a profile has no stored samples".into());
    }
    let last = doc.profiles.last().ok_or("the profile lists no command")?;
    let differential = stacks.len() == 2 && doc.profiles.len() == 2;
    let samples = stacks.last().map_or(0, FoldedStacks::total);
    let subtitle = match &last.off_cpu {
        Some(off_cpu) => format!(
            "wall time in µs: on-CPU from {} samples at {} Hz, off-CPU from {} switches (blocked, preempted)",
            format_count(last.samples as f64),
            doc.sampler.frequency_hz,
            format_count(off_cpu.intervals as f64)
        ),
        None => format!(
            "{} samples of {} at {} Hz",
            format_count(samples as f64),
            doc.sampler.event,
            doc.sampler.frequency_hz
        ),
    };
    let mut opts = options(&last.command, &subtitle);
    opts.image_width = Some(WIDTH);
    opts.min_width = MIN_WIDTH;
    let drawn = if differential {
        differential_svg(&stacks[0], &stacks[1], &mut opts)
    } else {
        flamegraph_svg(&stacks[stacks.len() - 1], &mut opts)
    }
    .map_err(|e| format!("inferno could not draw the flame graph ({e})"))?;
    let label = format!(
        "box width: share of the {} samples (%)",
        format_count(samples as f64)
    );
    let svg = inline_flamegraph(&String::from_utf8_lossy(&drawn), id, &label)
        .ok_or("the flame graph inferno drew holds elements this page does not inline")?;
    let (title, caption) = words(doc, differential, samples);
    Ok(figure("flamegraph", &title, &svg, &caption))
}

fn words(doc: &SamplingDocument, differential: bool, samples: u64) -> (String, String) {
    let last = &doc.profiles[doc.profiles.len() - 1];
    if differential {
        let first = &doc.profiles[0];
        (
            format!(
                "Differential flame graph from {} to {}",
                first.name, last.name
            ),
            format!(
                "Each box is a function on a stack, callers below their callees, sized by its share of {}'s {} samples. The colour is how the box's own samples changed from {} (scaled to the same total): red grew, blue shrank, the deeper the colour the larger the change. Hover over a box for its samples. Drawn again from the stacks in the store, without the zoom and search of the standalone file.",
                last.name,
                format_count(samples as f64),
                first.name
            ),
        )
    } else {
        (
            format!("Flame graph of {}", last.name),
            format!(
                "Each box is a function on a stack, callers below their callees; its width is the share of the {} samples with it on the stack (its inclusive share), the colour only tells neighbours apart. Hover over a box for its samples. Drawn again from the stacks in the store, without the zoom and search of the standalone file.",
                format_count(samples as f64)
            ),
        )
    }
}
