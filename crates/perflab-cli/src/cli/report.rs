//! `perflab report` flags.

use std::path::PathBuf;

use clap::Args;

/// `perflab report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Experiments to report, by id (12) or name (the newest with it); several give one page
    /// [default: the newest experiment only; `perflab history` lists the others].
    #[arg(value_name = "EXPERIMENT")]
    pub experiments: Vec<String>,
    /// Write one self-contained HTML page (no network access: styles and charts inline).
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
    /// Write Markdown for a pull request (printed on stdout when neither --html nor --markdown is given).
    #[arg(long, value_name = "PATH")]
    pub markdown: Option<PathBuf>,
    /// Leave out the history of the metric over commits.
    #[arg(long)]
    pub no_history: bool,
}
