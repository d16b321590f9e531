//! Profiles on the terminal: the top functions with their samples, shares
//! and intervals; for two profiles, the shares that moved.

use std::fmt::Write;

use perflab_format::sampling::{FunctionShare, SampledProfile, SamplingDocument, ShareChange};

/// Longest function name shown before it is cut.
const NAME_WIDTH: usize = 40;

/// The document as text for a terminal.
pub fn render_sampling(doc: &SamplingDocument, top: usize) -> String {
    let mut out = String::new();
    let unwinding = match doc.sampler.call_graph.as_str() {
        "dwarf" => "DWARF-unwound",
        _ => "frame-pointer",
    };
    for profile in &doc.profiles {
        let _ = writeln!(
            out,
            "perflab profile {}: $ {}",
            profile.name, profile.command
        );
        let _ = writeln!(
            out,
            "  {} samples of {} at {} Hz, {unwinding} stacks, {:.2} s under perf; {:.0}% Wilson intervals",
            profile.samples,
            doc.sampler.event,
            doc.sampler.frequency_hz,
            profile.wall_s,
            doc.confidence * 100.0
        );
        out.push_str(&function_table(profile, top));
        if let Some(svg) = &profile.flamegraph {
            let _ = writeln!(out, "  flame graph: {svg}");
        }
        out.push('\n');
    }
    if doc.profiles.len() == 2 {
        out.push_str(&changes_table(doc, top));
    }
    out
}

fn percent(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn interval(ci: [f64; 2]) -> String {
    format!("[{}, {}]", percent(ci[0]), percent(ci[1]))
}

fn short(name: &str) -> String {
    if name.chars().count() <= NAME_WIDTH {
        name.to_string()
    } else {
        let kept: String = name.chars().take(NAME_WIDTH - 1).collect();
        format!("{kept}…")
    }
}

fn function_table(profile: &SampledProfile, top: usize) -> String {
    let mut out = String::new();
    if profile.functions.is_empty() {
        let _ = writeln!(out, "  (no samples)");
        return out;
    }
    let _ = writeln!(
        out,
        "  {:<NAME_WIDTH$}  {:>31}  {:>31}",
        "", "self", "inclusive"
    );
    let _ = writeln!(
        out,
        "  {:<NAME_WIDTH$}  {:>7} {:>6} {:>16}  {:>7} {:>6} {:>16}",
        "function", "samples", "share", "interval", "samples", "share", "interval"
    );
    let row = |out: &mut String, f: &FunctionShare| {
        let few = if f.self_samples > 0 && f.self_samples < super::shares::FEW_SAMPLES {
            "  (few samples)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  {:<NAME_WIDTH$}  {:>7} {:>6} {:>16}  {:>7} {:>6} {:>16}{few}",
            short(&f.name),
            f.self_samples,
            percent(f.self_share),
            interval(f.self_ci),
            f.inclusive_samples,
            percent(f.inclusive_share),
            interval(f.inclusive_ci),
        );
    };
    let mut by_self: Vec<&FunctionShare> = profile.functions.iter().collect();
    by_self.sort_by(|a, b| {
        b.self_samples
            .cmp(&a.self_samples)
            .then(a.name.cmp(&b.name))
    });
    let _ = writeln!(out, "  by self share:");
    for f in by_self.iter().take(top).filter(|f| f.self_samples > 0) {
        row(&mut out, f);
    }
    let mut by_inclusive = by_self.clone();
    by_inclusive.sort_by(|a, b| {
        b.inclusive_samples
            .cmp(&a.inclusive_samples)
            .then(a.name.cmp(&b.name))
    });
    let _ = writeln!(out, "  by inclusive share:");
    for f in by_inclusive.iter().take(top) {
        row(&mut out, f);
    }
    out
}

fn changes_table(doc: &SamplingDocument, top: usize) -> String {
    let mut out = String::new();
    let [a, b] = [&doc.profiles[0], &doc.profiles[1]];
    let _ = writeln!(
        out,
        "shares that moved from {} ({} samples) to {} ({} samples), {:.0}% Newcombe intervals:",
        a.name,
        a.samples,
        b.name,
        b.samples,
        doc.confidence * 100.0
    );
    let moved: Vec<&ShareChange> = doc.changes.iter().filter(|c| c.moved).take(top).collect();
    if moved.is_empty() {
        let _ = writeln!(
            out,
            "  none: every function's share is the same within its interval"
        );
        return out;
    }
    let _ = writeln!(
        out,
        "  {:<NAME_WIDTH$}  {:>15} {:>8} {:>18}  {:>15} {:>8} {:>18}",
        "function", "self A → B", "change", "interval", "inclusive A → B", "change", "interval"
    );
    for c in moved {
        let _ = writeln!(
            out,
            "  {:<NAME_WIDTH$}  {:>15} {:>8} {:>18}  {:>15} {:>8} {:>18}",
            short(&c.name),
            format!(
                "{} → {}",
                percent(c.self_shares[0]),
                percent(c.self_shares[1])
            ),
            points(c.self_change),
            interval_points(c.self_ci),
            format!(
                "{} → {}",
                percent(c.inclusive_shares[0]),
                percent(c.inclusive_shares[1])
            ),
            points(c.inclusive_change),
            interval_points(c.inclusive_ci),
        );
    }
    let still = doc.changes.iter().filter(|c| !c.moved).count();
    let _ = writeln!(
        out,
        "  ({still} other functions did not move beyond their intervals; changes are in percentage points)"
    );
    out
}

fn points(x: f64) -> String {
    format!("{:+.1}", x * 100.0)
}

fn interval_points(ci: [f64; 2]) -> String {
    format!("[{}, {}]", points(ci[0]), points(ci[1]))
}
