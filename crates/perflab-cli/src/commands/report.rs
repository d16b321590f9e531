//! `perflab report`: Markdown for a pull request and one self-contained HTML
//! page, from the experiments in the store.

use crate::cli::ReportArgs;
use crate::error::{EXIT_OK, Result};
use crate::gather::gather;
use perflab_report::markdown::report_markdown;
use perflab_report::page::ExperimentReport;
use perflab_report::write_text;
use perflab_store::Store;

/// `perflab report`.
pub fn report(args: &ReportArgs, store: &Store) -> Result<i32> {
    let data = gather(store, &args.experiments, !args.no_history)?;
    if args.experiments.is_empty() {
        if let Some(newest) = data.experiments.first() {
            eprintln!("{}", newest_only_note(newest));
        }
    }
    let markdown = report_markdown(&data);
    if let Some(path) = &args.markdown {
        write_text(path, &markdown)?;
    }
    if let Some(path) = &args.html {
        write_text(path, &perflab_report::html::report_html(&data))?;
    }
    if args.markdown.is_none() && args.html.is_none() {
        print!("{markdown}");
    } else {
        for (what, path) in [("Markdown", &args.markdown), ("HTML", &args.html)] {
            if let Some(path) = path {
                eprintln!("perflab: wrote the {what} report to {}", path.display());
            }
        }
    }
    Ok(EXIT_OK)
}

/// The line saying that a report without arguments covers only the newest
/// experiment, and how to choose others.
fn newest_only_note(newest: &ExperimentReport) -> String {
    format!(
        "perflab: reporting the newest experiment only, {}; name others by id or name \
         (e.g. perflab report 12 parse-ab), and see perflab history for the list",
        newest.title()
    )
}
