//! perflab's documents and their renderers: the span figures (`spans`),
//! counters and gauges (`probes`) and the answer check (`answer_check`) a
//! result document carries; one module per format, [`terminal`],
//! [`markdown`], [`html`] and [`json`], each implementing the [`Render`]
//! trait, one method per document kind; the figures every format shows
//! (span rows, probe cells, a sweep's words, a metric history's
//! judgements...) are built once, format-neutral, in [`sections`]. A `perflab report` page shows a
//! [`page::ReportData`]; `perflab history --changes` a
//! [`changes::StoreChanges`]; a sampling profile's flame graphs and text are
//! in [`sampling`], a bisection's document in [`bisect`], and quantities are
//! parsed and printed by [`units`].
#![deny(missing_docs)]
#![warn(unreachable_pub)]

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

use std::fmt;
use std::path::Path;

use perflab_format::history::MetricHistory;
use perflab_format::instructions::InstructionsDocument;
use perflab_format::result::ResultDocument;
use perflab_format::sampling::SamplingDocument;
use perflab_format::suite::SuiteDocument;
use perflab_format::sweep::SweepDocument;

use bisect::BisectDocument;
use changes::StoreChanges;
use page::ReportData;

pub use error::{Error, Result};
pub use html::HtmlReport;
pub use json::JsonReport;
pub use markdown::{MarkdownReport, markdown_body};
pub use terminal::side_by_side::side_by_side;
pub use terminal::{TerminalReport, other_metrics};

/// One format family's way of showing every kind of document the crate
/// renders: the terminal ([`TerminalReport`]), Markdown ([`MarkdownReport`]),
/// HTML ([`HtmlReport`]) and JSON ([`JsonReport`]), one method per kind.
///
/// Every method writes into `out` and returns what writing returned, so a
/// failed write stops the rendering at once and reaches the caller instead
/// of being dropped; [`Render::render`] and [`render_to_string`] are for
/// callers that want the text as a `String`. `out` is a
/// `&mut dyn fmt::Write` rather than a generic writer so that the trait
/// stays object-safe (`&dyn Render` picks a format at run time, as
/// [`write_to`] does) and each renderer is compiled once, not once per
/// writer type; a `String` is passed as `&mut text`.
///
/// A format that has no form of its own for a kind says so in its
/// implementation and writes what it shows today: JSON serializes the
/// document; a kind with no text in that format writes nothing.
pub trait Render {
    /// A result document (`perflab run`, `ab`, `compare`, `import`).
    fn result(&self, out: &mut dyn fmt::Write, doc: &ResultDocument) -> fmt::Result;

    /// A suite: the verdict over every scenario and candidate, then the matrix.
    fn suite(&self, out: &mut dyn fmt::Write, doc: &SuiteDocument) -> fmt::Result;

    /// A sweep: the series, their fits and the fixed cost.
    fn sweep(&self, out: &mut dyn fmt::Write, doc: &SweepDocument) -> fmt::Result;

    /// A metric's history over commits, its values in `unit`.
    fn history(&self, out: &mut dyn fmt::Write, history: &MetricHistory, unit: &str)
    -> fmt::Result;

    /// The change points of every metric of a store (`perflab history --changes`).
    fn changes(&self, out: &mut dyn fmt::Write, changes: &StoreChanges) -> fmt::Result;

    /// A sampling profile. `top` is how many functions each table lists in
    /// a format whose reader chooses it (the terminal's `--top`); formats
    /// that list a fixed number (Markdown, HTML) ignore it.
    fn sampling(&self, out: &mut dyn fmt::Write, doc: &SamplingDocument, top: usize)
    -> fmt::Result;

    /// An instruction-count profile; `top` as for [`Render::sampling`].
    fn instructions(
        &self,
        out: &mut dyn fmt::Write,
        doc: &InstructionsDocument,
        top: usize,
    ) -> fmt::Result;

    /// A bisection: its steps and its conclusion.
    fn bisection(&self, out: &mut dyn fmt::Write, doc: &BisectDocument) -> fmt::Result;

    /// A `perflab report` page: every experiment it gathered.
    fn report_page(&self, out: &mut dyn fmt::Write, data: &ReportData) -> fmt::Result;

    /// The result document as text in this format.
    fn render(&self, doc: &ResultDocument) -> String {
        render_to_string(|out| self.result(out, doc))
    }
}

/// The text `write` writes, for callers that want a `String`.
///
/// Writing into a `String` cannot fail; an error can only come from a
/// `Display` implementation that returned one, which is a bug, so this
/// panics as [`ToString::to_string`] does.
pub fn render_to_string(write: impl FnOnce(&mut dyn fmt::Write) -> fmt::Result) -> String {
    let mut text = String::new();
    write(&mut text).expect("a Display implementation returned an error unexpectedly");
    text
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

#[cfg(test)]
mod tests {
    use std::fmt::{self, Write};

    use perflab_format::history::MetricHistory;
    use perflab_format::result::ResultDocument;
    use perflab_format::sampling::SamplingDocument;

    use super::{HtmlReport, JsonReport, MarkdownReport, Render, TerminalReport, render_to_string};

    const FORMATS: [&dyn Render; 4] = [&TerminalReport, &MarkdownReport, &HtmlReport, &JsonReport];

    fn result() -> ResultDocument {
        ResultDocument::from_json_str(include_str!(
            "../../perflab-format/tests/fixtures/result-ab-guarded.json"
        ))
        .unwrap()
    }

    /// A writer that takes `room` bytes and then refuses, as a closed pipe
    /// or a full disk would.
    struct Refusing {
        room: usize,
        written: String,
    }

    impl Write for Refusing {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            if self.written.len() + s.len() > self.room {
                return Err(fmt::Error);
            }
            self.written.push_str(s);
            Ok(())
        }
    }

    #[test]
    fn every_format_writes_into_a_writer_what_render_returns_as_a_string() {
        let doc = result();
        for format in FORMATS {
            let mut text = String::new();
            format.result(&mut text, &doc).unwrap();
            assert!(!text.is_empty());
            assert_eq!(text, format.render(&doc));
        }
    }

    #[test]
    fn a_writer_that_refuses_stops_every_format_with_its_error() {
        let doc = result();
        for format in FORMATS {
            let whole = format.render(&doc);
            let mut out = Refusing {
                room: whole.len() / 2,
                written: String::new(),
            };
            assert_eq!(format.result(&mut out, &doc), Err(fmt::Error));
            assert!(whole.starts_with(&out.written));
        }
    }

    #[test]
    fn the_string_conveniences_of_other_kinds_match_the_trait() {
        let history = MetricHistory::from_json_str(include_str!(
            "../../perflab-format/tests/fixtures/history.json"
        ))
        .unwrap();
        let sampling = SamplingDocument::from_json_str(include_str!(
            "../../perflab-format/tests/fixtures/sampling.json"
        ))
        .unwrap();
        assert_eq!(
            render_to_string(|out| TerminalReport.history(out, &history, "s")),
            crate::terminal::history::history_terminal(&history, "s")
        );
        assert_eq!(
            render_to_string(|out| MarkdownReport.history(out, &history, "s")),
            crate::markdown::history::history_markdown(&history, "s", 3)
        );
        assert_eq!(
            render_to_string(|out| TerminalReport.sampling(out, &sampling, 7)),
            crate::sampling::render::render_sampling(&sampling, 7)
        );
        let json = render_to_string(|out| JsonReport.sampling(out, &sampling, 7));
        assert_eq!(
            SamplingDocument::from_json_str(&json).unwrap(),
            sampling,
            "JSON writes the document itself"
        );
    }
}
