//! A sampling profile as Markdown: per profiled command its top functions
//! by self and inclusive share and, when recorded, where its threads were
//! off the CPU; for two profiles the shares and off-CPU times that moved.

use std::fmt::{self, Write};

use perflab_format::sampling::{FunctionShare, OffCpuProfile, SamplingDocument};

use super::cell;
use crate::sampling::off_cpu::{cause_word, off_cpu_summary, off_cpu_time, where_it_waited};
use crate::sampling::render::STACK_FRAMES_SHOWN;
use crate::sections::sampling::*;
use crate::units::{
    format_count, format_points, format_points_interval, format_share, format_share_interval,
};

fn shares_table(
    out: &mut dyn Write,
    heading: &str,
    rows: &[&FunctionShare],
    inclusive: bool,
) -> fmt::Result {
    writeln!(
        out,
        "\n| function ({heading}) | samples | share | interval |\n| --- | ---: | ---: | ---: |"
    )?;
    for f in rows {
        let (samples, share, ci) = if inclusive {
            (f.inclusive_samples, f.inclusive_share, f.inclusive_ci)
        } else {
            (f.self_samples, f.self_share, f.self_ci)
        };
        writeln!(
            out,
            "| `{}` | {}{} | {} | {} |",
            cell(&f.name),
            format_count(samples as f64),
            few(samples),
            format_share(share),
            format_share_interval(ci)
        )?;
    }
    Ok(())
}

fn changes_markdown(out: &mut dyn Write, doc: &SamplingDocument) -> fmt::Result {
    let [a, b] = [&doc.profiles[0], &doc.profiles[1]];
    writeln!(
        out,
        "\n**Shares that moved** from {} ({} samples) to {} ({} samples), in percentage points with {:.0}% Newcombe intervals:",
        cell(&a.name),
        format_count(a.samples as f64),
        cell(&b.name),
        format_count(b.samples as f64),
        doc.confidence * 100.0
    )?;
    let rows = moved(doc, TOP_FUNCTIONS);
    if rows.is_empty() {
        writeln!(
            out,
            "\nNone: every function's share is the same within its interval."
        )?;
        return Ok(());
    }
    writeln!(
        out,
        "\n| function | self {a} → {b} | change | interval | inclusive {a} → {b} | change | interval |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        a = cell(&a.name),
        b = cell(&b.name)
    )?;
    for c in &rows {
        writeln!(
            out,
            "| `{}` | {} → {} | {} | {} | {} → {} | {} | {} |",
            cell(&c.name),
            format_share(c.self_shares[0]),
            format_share(c.self_shares[1]),
            format_points(c.self_change),
            format_points_interval(c.self_ci),
            format_share(c.inclusive_shares[0]),
            format_share(c.inclusive_shares[1]),
            format_points(c.inclusive_change),
            format_points_interval(c.inclusive_ci)
        )?;
    }
    match doc.changes.len() - rows.len() {
        0 => {}
        1 => {
            writeln!(
                out,
                "\n1 other function is not shown: it did not move beyond its interval, or moved less."
            )?;
        }
        others => {
            writeln!(
                out,
                "\n{others} other functions are not shown: they did not move beyond their intervals, or moved less."
            )?;
        }
    }
    Ok(())
}

/// Where the threads were off the CPU: totals, threads, functions, stacks.
fn off_cpu_markdown(out: &mut dyn Write, off_cpu: &OffCpuProfile) -> fmt::Result {
    writeln!(out, "\n{}.", cell(&off_cpu_summary(off_cpu)))?;
    writeln!(
        out,
        "\n| thread | on CPU | preempted | blocked | intervals |\n| --- | ---: | ---: | ---: | ---: |"
    )?;
    for t in &off_cpu.threads {
        writeln!(
            out,
            "| {} ({}) | {} | {} | {} | {} |",
            cell(&t.name),
            t.tid,
            off_cpu_time(t.on_cpu_ns),
            off_cpu_time(t.preempted_ns),
            off_cpu_time(t.blocked_ns),
            t.intervals
        )?;
    }
    if off_cpu.functions.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\n| function (off-CPU time with it on the stack) | blocked | preempted | intervals |\n| --- | ---: | ---: | ---: |"
    )?;
    for f in off_cpu.functions.iter().take(TOP_FUNCTIONS) {
        writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            cell(&f.name),
            off_cpu_time(f.blocked_ns),
            off_cpu_time(f.preempted_ns),
            f.intervals
        )?;
    }
    writeln!(
        out,
        "\n| off-CPU stack (the program's innermost frames, then the kernel's wait) | cause | time | intervals |\n| --- | --- | ---: | ---: |"
    )?;
    for s in off_cpu.stacks.iter().take(TOP_FUNCTIONS) {
        writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            cell(&where_it_waited(s, STACK_FRAMES_SHOWN)),
            cause_word(s.cause),
            off_cpu_time(s.ns),
            s.intervals
        )?;
    }
    Ok(())
}

/// How the functions' off-CPU time moved from the baseline to the candidate.
fn off_cpu_changes_markdown(out: &mut dyn Write, doc: &SamplingDocument) -> fmt::Result {
    let [a, b] = [&doc.profiles[0], &doc.profiles[1]];
    writeln!(
        out,
        "\n**Off-CPU time that moved** from {} to {} (one run each: no interval, rerun to see how much is noise):",
        cell(&a.name),
        cell(&b.name)
    )?;
    writeln!(
        out,
        "\n| function | blocked {a} → {b} | preempted {a} → {b} |\n| --- | ---: | ---: |",
        a = cell(&a.name),
        b = cell(&b.name)
    )?;
    for c in &doc.off_cpu_changes {
        writeln!(
            out,
            "| `{}` | {} → {} | {} → {} |",
            cell(&c.name),
            off_cpu_time(c.blocked_ns[0]),
            off_cpu_time(c.blocked_ns[1]),
            off_cpu_time(c.preempted_ns[0]),
            off_cpu_time(c.preempted_ns[1])
        )?;
    }
    Ok(())
}

/// The profile section in Markdown: per profiled command its top functions
/// by self and by inclusive share, the shares that moved, and the warnings.
pub(crate) fn sampling_markdown(out: &mut dyn Write, doc: &SamplingDocument) -> fmt::Result {
    for (i, profile) in doc.profiles.iter().enumerate() {
        if i > 0 {
            out.write_char('\n')?;
        }
        writeln!(
            out,
            "**{}**: `{}`: {}. Shares are of all samples, with {:.0}% Wilson intervals.",
            cell(&profile.name),
            cell(&profile.command),
            describe_profile(doc, profile),
            doc.confidence * 100.0
        )?;
        if profile.functions.is_empty() {
            writeln!(out, "\nNo samples: there is nothing to rank.")?;
            continue;
        }
        shares_table(
            out,
            "by self share",
            &by_self(profile, TOP_FUNCTIONS),
            false,
        )?;
        shares_table(
            out,
            "by inclusive share",
            &by_inclusive(profile, TOP_FUNCTIONS),
            true,
        )?;
        if let Some(off_cpu) = &profile.off_cpu {
            off_cpu_markdown(out, off_cpu)?;
        }
    }
    if doc.profiles.len() == 2 {
        changes_markdown(out, doc)?;
    }
    if !doc.off_cpu_changes.is_empty() {
        off_cpu_changes_markdown(out, doc)?;
    }
    for w in &doc.warnings {
        writeln!(out, "\n> warning: {}", cell(w))?;
    }
    Ok(())
}
