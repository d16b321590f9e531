//! The JSON form: the document itself.

use std::fmt::{self, Write};

use perflab_format::history::MetricHistory;
use perflab_format::instructions::InstructionsDocument;
use perflab_format::result::ResultDocument;
use perflab_format::sampling::SamplingDocument;
use perflab_format::suite::SuiteDocument;
use perflab_format::sweep::SweepDocument;

use super::Render;
use crate::bisect::BisectDocument;
use crate::changes::StoreChanges;
use crate::page::ReportData;

/// Renders each document as pretty JSON: the document itself, so that a
/// program reads exactly what perflab stored, with a final newline.
pub struct JsonReport;

/// `value` as pretty JSON and a newline. A value that cannot be serialized
/// (a map with non-string keys, say) is written as `{"error": "…"}` so that
/// the output stays JSON.
fn pretty(out: &mut dyn Write, value: &impl serde::Serialize) -> fmt::Result {
    let text =
        serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    out.write_str(&text)?;
    out.write_char('\n')
}

impl Render for JsonReport {
    fn result(&self, out: &mut dyn Write, doc: &ResultDocument) -> fmt::Result {
        pretty(out, doc)
    }

    fn suite(&self, out: &mut dyn Write, doc: &SuiteDocument) -> fmt::Result {
        pretty(out, doc)
    }

    fn sweep(&self, out: &mut dyn Write, doc: &SweepDocument) -> fmt::Result {
        pretty(out, doc)
    }

    /// The history document; `unit` is a reading of it, not part of it.
    fn history(&self, out: &mut dyn Write, history: &MetricHistory, _unit: &str) -> fmt::Result {
        pretty(out, history)
    }

    /// Nothing: the change points are computed from the store on each call
    /// and have no document of their own to serialize.
    fn changes(&self, _out: &mut dyn Write, _changes: &StoreChanges) -> fmt::Result {
        Ok(())
    }

    /// The whole profile document; `top` only shortens tables for reading.
    fn sampling(&self, out: &mut dyn Write, doc: &SamplingDocument, _top: usize) -> fmt::Result {
        pretty(out, doc)
    }

    /// The whole document; `top` only shortens tables for reading.
    fn instructions(
        &self,
        out: &mut dyn Write,
        doc: &InstructionsDocument,
        _top: usize,
    ) -> fmt::Result {
        pretty(out, doc)
    }

    fn bisection(&self, out: &mut dyn Write, doc: &BisectDocument) -> fmt::Result {
        pretty(out, doc)
    }

    /// The experiments as a JSON array, each as `perflab serve`'s
    /// `/api/experiments/ID` gives it (the stored documents only).
    fn report_page(&self, out: &mut dyn Write, data: &ReportData) -> fmt::Result {
        pretty(out, &data.experiments)
    }
}
