//! perflab's documents and their renderers: the span figures (`spans`),
//! counters and gauges (`probes`) and the answer check (`answer_check`) a
//! result document carries; one module per format, [`terminal`],
//! [`markdown`], [`html`] and [`json`]. A result document renders behind
//! the [`Render`] trait; the figures every format shows (span rows, probe
//! cells, a sweep's words, a metric history's judgements...) are built once,
//! format-neutral, in [`sections`]. A `perflab report` page shows a
//! [`page::ReportData`]; `perflab history --changes` a
//! [`changes::StoreChanges`]; a sampling profile's flame graphs and text are
//! in [`sampling`], a bisection's document in [`bisect`], and quantities are
//! parsed and printed by [`units`].
#![deny(missing_docs)]

pub mod answer_check;
pub mod bisect;
pub mod changes;
mod error;
pub mod html;
pub mod json;
pub mod markdown;
pub mod page;
pub mod probes;
pub mod sampling;
pub mod sections;
pub mod spans;
pub mod terminal;
pub mod units;
pub mod unreadable_metrics;

use std::path::Path;

use perflab_format::result::ResultDocument;

pub use error::{Error, Result};
pub use json::JsonReport;
pub use markdown::{MarkdownReport, markdown_body};
pub use terminal::side_by_side::side_by_side;
pub use terminal::{TerminalReport, other_metrics};

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
