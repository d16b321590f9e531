//! The JSON form: the document itself.

use perflab_format::result::ResultDocument;

use super::Render;

/// Renders the document as pretty JSON.
pub struct JsonReport;

impl Render for JsonReport {
    fn render(&self, doc: &ResultDocument) -> String {
        let mut text =
            serde_json::to_string_pretty(doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        text.push('\n');
        text
    }
}
