//! Profiles on the terminal: the top functions with their samples, shares
//! and intervals; where the threads were off the CPU, when recorded; for
//! two profiles, the shares and off-CPU times that moved.

use std::fmt::{self, Write};

use perflab_format::sampling::{
    FunctionShare, OffCpuProfile, SampledProfile, SamplingDocument, ShareChange,
};

use super::off_cpu::{cause_word, off_cpu_summary, off_cpu_time as ms, where_it_waited};
use crate::units::{format_points, format_points_interval, format_share, format_share_interval};

/// Longest function name shown before it is cut.
const NAME_WIDTH: usize = 40;

/// Innermost frames shown of an off-CPU stack.
pub(crate) const STACK_FRAMES_SHOWN: usize = 4;

/// The document as text for a terminal.
pub fn sampling_terminal(out: &mut dyn Write, doc: &SamplingDocument, top: usize) -> fmt::Result {
    let unwinding = match doc.sampler.call_graph.as_str() {
        "dwarf" => "DWARF-unwound",
        _ => "frame-pointer",
    };
    for profile in &doc.profiles {
        writeln!(
            out,
            "perflab profile {}: $ {}",
            profile.name, profile.command
        )?;
        writeln!(
            out,
            "  {} samples of {} at {} Hz, {unwinding} stacks, {:.2} s under perf; {:.0}% Wilson intervals",
            profile.samples,
            doc.sampler.event,
            doc.sampler.frequency_hz,
            profile.wall_s,
            doc.confidence * 100.0
        )?;
        function_table(out, profile, top)?;
        if let Some(off_cpu) = &profile.off_cpu {
            off_cpu_tables(out, off_cpu, top)?;
        }
        if let Some(svg) = &profile.flamegraph {
            writeln!(out, "  flame graph: {svg}")?;
        }
        out.write_char('\n')?;
    }
    if doc.profiles.len() == 2 {
        changes_table(out, doc, top)?;
    }
    if !doc.off_cpu_changes.is_empty() {
        off_cpu_changes_table(out, doc)?;
    }
    Ok(())
}

/// [`sampling_terminal`] as a `String`.
pub fn render_sampling(doc: &SamplingDocument, top: usize) -> String {
    crate::render_to_string(|out| sampling_terminal(out, doc, top))
}

/// Where the wall time went off the CPU: totals, per thread, by function, by stack.
fn off_cpu_tables(out: &mut dyn Write, off_cpu: &OffCpuProfile, top: usize) -> fmt::Result {
    writeln!(out, "  {}", off_cpu_summary(off_cpu))?;
    let width = off_cpu
        .threads
        .iter()
        .map(|t| t.name.chars().count() + t.tid.to_string().len() + 3)
        .max()
        .unwrap_or(6)
        .max(6);
    writeln!(
        out,
        "  {:<width$}  {:>11} {:>11} {:>11} {:>9}",
        "thread", "on CPU", "preempted", "blocked", "intervals"
    )?;
    for thread in &off_cpu.threads {
        writeln!(
            out,
            "  {:<width$}  {:>11} {:>11} {:>11} {:>9}",
            format!("{} ({})", thread.name, thread.tid),
            ms(thread.on_cpu_ns),
            ms(thread.preempted_ns),
            ms(thread.blocked_ns),
            thread.intervals,
        )?;
    }
    if off_cpu.functions.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "  off-CPU time by function of the program (anywhere on the stack the thread left the CPU from):"
    )?;
    writeln!(
        out,
        "  {:<NAME_WIDTH$}  {:>11} {:>11} {:>9}",
        "function", "blocked", "preempted", "intervals"
    )?;
    for function in off_cpu.functions.iter().take(top) {
        writeln!(
            out,
            "  {:<NAME_WIDTH$}  {:>11} {:>11} {:>9}",
            short(&function.name),
            ms(function.blocked_ns),
            ms(function.preempted_ns),
            function.intervals,
        )?;
    }
    writeln!(
        out,
        "  off-CPU stacks, longest first (the program's innermost frames, then the kernel's wait):"
    )?;
    for stack in off_cpu.stacks.iter().take(top) {
        let cause = cause_word(stack.cause);
        writeln!(
            out,
            "  {cause:<9} {:>11} ×{:<5} {}",
            ms(stack.ns),
            stack.intervals,
            where_it_waited(stack, STACK_FRAMES_SHOWN),
        )?;
    }
    Ok(())
}

/// How the functions' off-CPU time moved between the two profiles.
fn off_cpu_changes_table(out: &mut dyn Write, doc: &SamplingDocument) -> fmt::Result {
    let [a, b] = [&doc.profiles[0], &doc.profiles[1]];
    writeln!(
        out,
        "off-CPU time that moved from {} to {} (one run each, so no interval: rerun to see how much is noise):",
        a.name, b.name
    )?;
    writeln!(
        out,
        "  {:<NAME_WIDTH$}  {:>25}  {:>25}",
        "function", "blocked A → B", "preempted A → B"
    )?;
    for change in &doc.off_cpu_changes {
        writeln!(
            out,
            "  {:<NAME_WIDTH$}  {:>25}  {:>25}",
            short(&change.name),
            format!(
                "{} → {}",
                ms(change.blocked_ns[0]),
                ms(change.blocked_ns[1])
            ),
            format!(
                "{} → {}",
                ms(change.preempted_ns[0]),
                ms(change.preempted_ns[1])
            ),
        )?;
    }
    Ok(())
}

fn short(name: &str) -> String {
    if name.chars().count() <= NAME_WIDTH {
        name.to_string()
    } else {
        let kept: String = name.chars().take(NAME_WIDTH - 1).collect();
        format!("{kept}…")
    }
}

fn function_table(out: &mut dyn Write, profile: &SampledProfile, top: usize) -> fmt::Result {
    if profile.functions.is_empty() {
        writeln!(out, "  (no samples)")?;
        return Ok(());
    }
    writeln!(
        out,
        "  {:<NAME_WIDTH$}  {:>31}  {:>31}",
        "", "self", "inclusive"
    )?;
    writeln!(
        out,
        "  {:<NAME_WIDTH$}  {:>7} {:>6} {:>16}  {:>7} {:>6} {:>16}",
        "function", "samples", "share", "interval", "samples", "share", "interval"
    )?;
    // `samples` is the count the section is sorted by: a function with few
    // samples of its own may still have plenty below it.
    let row = |out: &mut dyn Write, f: &FunctionShare, samples: u64| -> fmt::Result {
        let few = if samples > 0 && samples < super::FEW_SAMPLES {
            "  (few samples)"
        } else {
            ""
        };
        writeln!(
            out,
            "  {:<NAME_WIDTH$}  {:>7} {:>6} {:>16}  {:>7} {:>6} {:>16}{few}",
            short(&f.name),
            f.self_samples,
            format_share(f.self_share),
            format_share_interval(f.self_ci),
            f.inclusive_samples,
            format_share(f.inclusive_share),
            format_share_interval(f.inclusive_ci),
        )
    };
    let mut by_self: Vec<&FunctionShare> = profile.functions.iter().collect();
    by_self.sort_by(|a, b| {
        b.self_samples
            .cmp(&a.self_samples)
            .then(a.name.cmp(&b.name))
    });
    writeln!(out, "  by self share:")?;
    for f in by_self.iter().take(top).filter(|f| f.self_samples > 0) {
        row(out, f, f.self_samples)?;
    }
    let mut by_inclusive = by_self.clone();
    by_inclusive.sort_by(|a, b| {
        b.inclusive_samples
            .cmp(&a.inclusive_samples)
            .then(a.name.cmp(&b.name))
    });
    writeln!(out, "  by inclusive share:")?;
    for f in by_inclusive.iter().take(top) {
        row(out, f, f.inclusive_samples)?;
    }
    Ok(())
}

fn changes_table(out: &mut dyn Write, doc: &SamplingDocument, top: usize) -> fmt::Result {
    let [a, b] = [&doc.profiles[0], &doc.profiles[1]];
    writeln!(
        out,
        "shares that moved from {} ({} samples) to {} ({} samples), {:.0}% Newcombe intervals:",
        a.name,
        a.samples,
        b.name,
        b.samples,
        doc.confidence * 100.0
    )?;
    let moved: Vec<&ShareChange> = doc.changes.iter().filter(|c| c.moved).take(top).collect();
    if moved.is_empty() {
        writeln!(
            out,
            "  none: every function's share is the same within its interval"
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "  {:<NAME_WIDTH$}  {:>15} {:>8} {:>18}  {:>15} {:>8} {:>18}",
        "function", "self A → B", "change", "interval", "inclusive A → B", "change", "interval"
    )?;
    for c in moved {
        writeln!(
            out,
            "  {:<NAME_WIDTH$}  {:>15} {:>8} {:>18}  {:>15} {:>8} {:>18}",
            short(&c.name),
            format!(
                "{} → {}",
                format_share(c.self_shares[0]),
                format_share(c.self_shares[1])
            ),
            format_points(c.self_change),
            format_points_interval(c.self_ci),
            format!(
                "{} → {}",
                format_share(c.inclusive_shares[0]),
                format_share(c.inclusive_shares[1])
            ),
            format_points(c.inclusive_change),
            format_points_interval(c.inclusive_ci),
        )?;
    }
    let still = doc.changes.iter().filter(|c| !c.moved).count();
    writeln!(
        out,
        "  ({still} other functions did not move beyond their intervals; changes are in percentage points)"
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(name: &str, self_samples: u64, inclusive_samples: u64, total: u64) -> FunctionShare {
        let fraction = |n: u64| n as f64 / total as f64;
        FunctionShare {
            name: name.to_string(),
            self_samples,
            self_share: fraction(self_samples),
            self_ci: [0.0, 1.0],
            inclusive_samples,
            inclusive_share: fraction(inclusive_samples),
            inclusive_ci: [0.0, 1.0],
        }
    }

    #[test]
    fn few_samples_are_marked_by_the_count_each_section_is_sorted_by() {
        let profile = SampledProfile {
            name: "prog".to_string(),
            command: "./prog".to_string(),
            exit_code: Some(0),
            wall_s: 1.0,
            samples: 2000,
            unknown_samples: 0,
            flamegraph: None,
            functions: vec![
                share("hot_leaf", 1500, 1500, 2000),
                share("main", 5, 2000, 2000),
            ],
            off_cpu: None,
        };
        let table = crate::render_to_string(|out| function_table(out, &profile, 10));
        let (by_self, by_inclusive) = table.split_once("by inclusive share:").unwrap();
        let line = |section: &str, name: &str| {
            section
                .lines()
                .find(|line| line.trim_start().starts_with(name))
                .unwrap()
                .to_string()
        };
        assert!(line(by_self, "main").ends_with("(few samples)"), "{table}");
        assert!(
            !line(by_inclusive, "main").contains("few samples"),
            "{table}"
        );
        assert!(
            !line(by_self, "hot_leaf").contains("few samples"),
            "{table}"
        );
    }
}
