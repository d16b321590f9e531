//! The tables of the HTML page for what external profilers measured: the
//! functions of a sampling profile and the shares that moved, and the
//! instruction counts of valgrind with the functions whose counts changed.

use std::fmt::{self, Write};

use perflab_format::instructions::InstructionsDocument;
use perflab_format::sampling::{OffCpuProfile, SampledProfile, SamplingDocument};

use super::escape::esc;
use crate::sampling::off_cpu::{cause_word, off_cpu_summary, off_cpu_time, where_it_waited};
use crate::sampling::render::STACK_FRAMES_SHOWN;
use crate::sections::instructions::*;
use crate::sections::sampling::*;
use crate::units::{
    format_count, format_points, format_points_interval, format_share, format_share_interval,
};

/// The command and how it was sampled.
pub(crate) fn profile_summary(doc: &SamplingDocument, profile: &SampledProfile) -> String {
    format!(
        r#"<p><strong>{}</strong>: <code>{}</code>: {}; {:.0}% Wilson intervals.</p>"#,
        esc(&profile.name),
        esc(&profile.command),
        esc(&describe_profile(doc, profile)),
        doc.confidence * 100.0
    )
}

/// The functions of a profile by self and by inclusive share.
pub(crate) fn sampled_profile_tables(out: &mut dyn Write, profile: &SampledProfile) -> fmt::Result {
    let self_rows = by_self(profile, TOP_FUNCTIONS);
    let inclusive_rows = by_inclusive(profile, TOP_FUNCTIONS);
    if inclusive_rows.is_empty() {
        out.write_str(r#"<p class="note">No samples: there is nothing to rank.</p>"#)?;
        return Ok(());
    }
    for (heading, rows, inclusive) in [
        ("by self share", self_rows, false),
        ("by inclusive share", inclusive_rows, true),
    ] {
        write!(
            out,
            r#"<table><thead><tr><th>function ({heading})</th><th class="num">samples</th><th class="num">share</th><th class="num">interval</th></tr></thead><tbody>"#
        )?;
        for f in rows {
            let (samples, share, ci) = if inclusive {
                (f.inclusive_samples, f.inclusive_share, f.inclusive_ci)
            } else {
                (f.self_samples, f.self_share, f.self_ci)
            };
            write!(
                out,
                r#"<tr><td><code>{}</code></td><td class="num">{}{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
                esc(&f.name),
                format_count(samples as f64),
                few(samples),
                format_share(share),
                esc(&format_share_interval(ci))
            )?;
        }
        out.write_str("</tbody></table>")?;
    }
    Ok(())
}

/// Where a profile's threads were off the CPU: totals, threads, functions, stacks.
pub(crate) fn off_cpu_tables(out: &mut dyn Write, off_cpu: &OffCpuProfile) -> fmt::Result {
    write!(out, "<p>{}.</p>", esc(&off_cpu_summary(off_cpu)))?;
    out.write_str(r#"<table><thead><tr><th>thread</th><th class="num">on CPU</th><th class="num">preempted</th><th class="num">blocked</th><th class="num">intervals</th></tr></thead><tbody>"#)?;
    for t in &off_cpu.threads {
        write!(
            out,
            r#"<tr><td>{} ({})</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
            esc(&t.name),
            t.tid,
            esc(&off_cpu_time(t.on_cpu_ns)),
            esc(&off_cpu_time(t.preempted_ns)),
            esc(&off_cpu_time(t.blocked_ns)),
            t.intervals
        )?;
    }
    out.write_str("</tbody></table>")?;
    if off_cpu.functions.is_empty() {
        return Ok(());
    }
    out.write_str(r#"<table><thead><tr><th>function (off-CPU time with it on the stack)</th><th class="num">blocked</th><th class="num">preempted</th><th class="num">intervals</th></tr></thead><tbody>"#)?;
    for f in off_cpu.functions.iter().take(TOP_FUNCTIONS) {
        write!(
            out,
            r#"<tr><td><code>{}</code></td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
            esc(&f.name),
            esc(&off_cpu_time(f.blocked_ns)),
            esc(&off_cpu_time(f.preempted_ns)),
            f.intervals
        )?;
    }
    out.write_str("</tbody></table>")?;
    out.write_str(r#"<table><thead><tr><th>off-CPU stack (the program's innermost frames, then the kernel's wait)</th><th>cause</th><th class="num">time</th><th class="num">intervals</th></tr></thead><tbody>"#)?;
    for s in off_cpu.stacks.iter().take(TOP_FUNCTIONS) {
        write!(
            out,
            r#"<tr><td><code>{}</code></td><td>{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
            esc(&where_it_waited(s, STACK_FRAMES_SHOWN)),
            cause_word(s.cause),
            esc(&off_cpu_time(s.ns)),
            s.intervals
        )?;
    }
    out.write_str("</tbody></table>")?;
    Ok(())
}

/// How the functions' off-CPU time moved between the two profiles.
pub(crate) fn off_cpu_changes_table(out: &mut dyn Write, doc: &SamplingDocument) -> fmt::Result {
    let [a, b] = [&doc.profiles[0], &doc.profiles[1]];
    write!(
        out,
        r#"<p>Off-CPU time that moved from {} to {} (one run each: no interval, rerun to see how much is noise).</p><table><thead><tr><th>function</th><th class="num">blocked</th><th class="num">preempted</th></tr></thead><tbody>"#,
        esc(&a.name),
        esc(&b.name)
    )?;
    for c in &doc.off_cpu_changes {
        write!(
            out,
            r#"<tr><td><code>{}</code></td><td class="num">{} → {}</td><td class="num">{} → {}</td></tr>"#,
            esc(&c.name),
            esc(&off_cpu_time(c.blocked_ns[0])),
            esc(&off_cpu_time(c.blocked_ns[1])),
            esc(&off_cpu_time(c.preempted_ns[0])),
            esc(&off_cpu_time(c.preempted_ns[1]))
        )?;
    }
    out.write_str("</tbody></table>")?;
    Ok(())
}

/// The functions whose shares moved, with both shares and the change's interval.
pub(crate) fn share_changes_table(out: &mut dyn Write, doc: &SamplingDocument) -> fmt::Result {
    let [a, b] = doc.profiles.as_slice() else {
        return Ok(());
    };
    let rows = moved(doc, TOP_FUNCTIONS);
    if rows.is_empty() {
        return write!(
            out,
            r#"<p class="summary">No function's share moved from {} to {} beyond its {:.0}% interval.</p>"#,
            esc(&a.name),
            esc(&b.name),
            doc.confidence * 100.0
        );
    }
    write!(
        out,
        r#"<p>Shares of the samples in {a} and in {b}; changes in percentage points with their {:.0}% intervals.</p><table><thead><tr><th>function</th><th class="num">self</th><th class="num">change</th><th class="num">interval</th><th class="num">inclusive</th><th class="num">change</th><th class="num">interval</th></tr></thead><tbody>"#,
        doc.confidence * 100.0,
        a = esc(&a.name),
        b = esc(&b.name)
    )?;
    for c in rows {
        write!(
            out,
            r#"<tr><td><code>{}</code></td><td class="num">{} → {}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{} → {}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
            esc(&c.name),
            format_share(c.self_shares[0]),
            format_share(c.self_shares[1]),
            format_points(c.self_change),
            esc(&format_points_interval(c.self_ci)),
            format_share(c.inclusive_shares[0]),
            format_share(c.inclusive_shares[1]),
            format_points(c.inclusive_change),
            esc(&format_points_interval(c.inclusive_ci)),
        )?;
    }
    out.write_str("</tbody></table>")?;
    Ok(())
}

/// Whether the counts are exact, each variant's count, and the functions
/// whose counts changed most (or, for one variant, the largest).
pub(crate) fn instructions_tables(out: &mut dyn Write, doc: &InstructionsDocument) -> fmt::Result {
    let (status, why) = describe_status(doc);
    write!(
        out,
        r#"<p><strong>{status}</strong>: {why}. {}.</p><table><thead><tr><th>variant</th><th>command</th><th class="num">instructions (first run)</th><th>repeatability</th></tr></thead><tbody>"#,
        esc(&describe_setup(doc))
    )?;
    for v in &doc.variants {
        write!(
            out,
            r#"<tr><td>{}</td><td><code>{}</code></td><td class="num">{}</td><td>{}</td></tr>"#,
            esc(&v.name),
            esc(&v.command),
            v.counts
                .first()
                .map_or("-".to_string(), |c| format_count(*c as f64)),
            esc(&describe_repeat(v))
        )?;
    }
    out.write_str("</tbody></table>")?;
    match doc.variants.as_slice() {
        [a, b] if doc.changes.is_empty() => {
            write!(
                out,
                r#"<p class="summary">No function's count changed from {} to {}.</p>"#,
                esc(&a.name),
                esc(&b.name)
            )?;
        }
        [a, b] => {
            write!(
                out,
                r#"<table><thead><tr><th>function (own code, first run)</th><th>object</th><th class="num">{}</th><th class="num">{}</th><th class="num">change</th><th class="num">relative</th></tr></thead><tbody>"#,
                esc(&a.name),
                esc(&b.name)
            )?;
            for c in doc.changes.iter().take(FUNCTION_ROWS) {
                write!(
                    out,
                    r#"<tr><td><code>{}</code></td><td title="{}">{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
                    esc(&c.name),
                    esc(&c.object),
                    esc(object_name(&c.object)),
                    format_count(c.instructions[0] as f64),
                    format_count(c.instructions[1] as f64),
                    signed_count(c.change),
                    esc(&describe_relative(c))
                )?;
            }
            out.write_str("</tbody></table>")?;
        }
        [v] if !v.functions.is_empty() => {
            let total = v.counts.first().copied().unwrap_or(0).max(1) as f64;
            out.write_str(r#"<table><thead><tr><th>function (own code, first run)</th><th>object</th><th class="num">instructions</th><th class="num">share</th></tr></thead><tbody>"#)?;
            for f in v.functions.iter().take(FUNCTION_ROWS) {
                write!(
                    out,
                    r#"<tr><td><code>{}</code></td><td title="{}">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
                    esc(&f.name),
                    esc(&f.object),
                    esc(object_name(&f.object)),
                    format_count(f.instructions as f64),
                    format_share(f.instructions as f64 / total)
                )?;
            }
            out.write_str("</tbody></table>")?;
        }
        _ => {}
    }
    Ok(())
}
