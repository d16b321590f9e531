//! Rendering a result document: terminal, Markdown and JSON behind one trait.

pub mod evolution;
pub mod gather;
pub mod html;
pub mod instruction_counts;
mod json;
mod markdown;
pub mod page_markdown;
pub mod probe_table;
pub mod sampling;
mod side_by_side;
pub mod span_breakdown;
pub mod span_grid;
mod span_table;
pub mod sweep;
mod terminal;

use std::path::Path;

use perflab_format::result::ResultDocument;

pub use json::JsonReport;
pub use markdown::{MarkdownReport, markdown_body};
pub use side_by_side::side_by_side;
pub use terminal::TerminalReport;

use crate::error::{Error, Result};
use crate::units::format_value;

/// A way of showing a result.
pub trait Render {
    /// The result as text in this format.
    fn render(&self, doc: &ResultDocument) -> String;
}

/// Writes `doc` to `path` in `format`.
pub fn write_to(path: &Path, format: &dyn Render, doc: &ResultDocument) -> Result<()> {
    write_text(path, &format.render(doc))
}

/// Writes `text` to `path`, creating its directory.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    std::fs::write(path, text).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Refuses an output file that cannot be written: an existing directory, or
/// a path under a file. Checked before anything is measured, so that a typo
/// does not cost the experiment's results their file.
pub fn check_output(flag: &str, path: &Path) -> Result<()> {
    let example = match flag {
        "--json" => "result.json",
        "--markdown" => "result.md",
        "--html" => "report.html",
        "--svg" => "flamegraph.svg",
        _ => "out.txt",
    };
    if path.is_dir() {
        return Err(Error::usage(
            flag,
            format!(
                "{} is a directory; give a file name, for example {}",
                path.display(),
                path.join(example).display()
            ),
        ));
    }
    // The nearest folder that exists must be a folder: the rest is created.
    let existing = path
        .ancestors()
        .skip(1)
        .filter(|dir| !dir.as_os_str().is_empty())
        .find(|dir| dir.exists());
    if let Some(file) = existing.filter(|dir| !dir.is_dir()) {
        return Err(Error::usage(
            flag,
            format!(
                "{} cannot be written: {} is a file, not a folder",
                path.display(),
                file.display()
            ),
        ));
    }
    Ok(())
}

/// Writes the `--json` and `--markdown` files that were asked for.
pub fn write_requested(
    doc: &ResultDocument,
    json: Option<&Path>,
    markdown: Option<&Path>,
) -> Result<()> {
    if let Some(path) = json {
        write_to(path, &JsonReport, doc)?;
    }
    if let Some(path) = markdown {
        write_to(path, &MarkdownReport, doc)?;
    }
    Ok(())
}

/// A sample value in the document's unit.
fn value(doc: &ResultDocument, v: f64) -> String {
    format_value(v, &doc.metric.unit)
}

/// "faster"/"slower" style words for a change of this metric.
fn direction_words(doc: &ResultDocument, change: f64) -> &'static str {
    let better = change >= 0.0;
    match (doc.metric.name.as_str(), better) {
        ("wall" | "cpu" | "user" | "sys", true) => "faster",
        ("wall" | "cpu" | "user" | "sys", false) => "slower",
        (_, true) => "better",
        (_, false) => "worse",
    }
}

/// A table of every metric of a single command's runs besides wall time.
pub fn other_metrics(runs: &[perflab_runner::RunOutcome]) -> String {
    use std::fmt::Write;
    let mut names: Vec<(String, String)> = ["cpu", "user", "sys", "peak-memory"]
        .iter()
        .map(|n| {
            (
                n.to_string(),
                perflab_runner::builtin_metric(n)
                    .map(|(_, u)| u.to_string())
                    .unwrap_or_default(),
            )
        })
        .collect();
    let mut extracted = std::collections::BTreeMap::new();
    for run in runs {
        for (name, value) in &run.metrics {
            extracted
                .entry(name.clone())
                .or_insert_with(|| value.unit.clone());
        }
    }
    names.extend(extracted);
    let mut out = String::new();
    for (name, unit) in names {
        let values: Vec<f64> = runs.iter().filter_map(|r| r.metric(&name)).collect();
        let Ok(s) = perflab_stats::summarize(&values) else {
            continue;
        };
        let _ = writeln!(
            out,
            "  {name:>12}: median {} (min {} … max {}), {} of {} runs",
            format_value(s.median, &unit),
            format_value(s.min, &unit),
            format_value(s.max, &unit),
            values.len(),
            runs.len()
        );
    }
    out
}
