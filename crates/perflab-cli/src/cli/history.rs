//! `perflab history` flags.

use std::path::PathBuf;

use clap::Args;

use super::DecisionArgs;
use crate::webhook::WebhookUrl;

/// `perflab history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Show at most this many experiments, newest first (the listing).
    #[arg(short = 'n', long, default_value_t = 20, value_name = "N")]
    pub limit: usize,
    /// Show the history of this metric over commits (wall, cpu, peak-memory or an
    /// extracted metric) with its change points, each judged GO / NO-GO /
    /// NEUTRAL / INCONCLUSIVE; exit 3 when the newest one is a regression
    /// (with --confirm: the newest one its A/B did not dismiss).
    #[arg(long, visible_alias = "measure", value_name = "METRIC")]
    pub metric: Option<String>,
    /// List the change points of every series in the store (experiment name,
    /// metric, variant; only those of --metric and --name when given), newest
    /// first; exit 3 when the newest change point of a watched series (one
    /// measured at the newest commit) is a regression.
    #[arg(long, conflicts_with_all = ["variants", "better", "json", "markdown"])]
    pub changes: bool,
    /// Only experiments with this name [default: the newest experiment's name].
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Only experiments that ran on this host (see `perflab history` for
    /// the hosts in the store). Without it, each host's experiments make
    /// series of their own: a series never mixes two machines.
    #[arg(long, value_name = "NAME")]
    pub host: Option<String>,
    /// The variants to follow (repeatable) [default: those of the newest experiment].
    #[arg(long = "variant", value_name = "NAME")]
    pub variants: Vec<String>,
    /// Whether higher or lower values are better [default: as stored, or lower for built-in metrics].
    #[arg(long, value_name = "higher|lower")]
    pub better: Option<String>,
    /// What the change-point test shuffles: whole commits (each keeping its
    /// runs: noise shared by one commit's runs, as from a busier day, raises
    /// no alarm, but a change needs a few commits on each side to show) or
    /// single runs (more power, a change at the newest commit can show, but
    /// assumes runs differ only by the code, not by when they ran).
    #[arg(long, value_name = "commits|runs", default_value = "commits", value_parser = ["commits", "runs"])]
    pub permute: String,
    /// Thresholds and confidence (with --confirm, also those of the confirming A/Bs).
    #[command(flatten)]
    pub decision: DecisionArgs,
    /// Confirm change points by interleaved A/Bs: for each, the commit before it
    /// against the commit after it, run again here in randomised blocks with the
    /// series' stored command in perflab's worktrees (as `perflab ab --rev`), at
    /// the confidence split over the change points confirmed (Bonferroni) and with
    /// the thresholds of --go/--nogo. A history measures commit after commit, so a
    /// change of the machine between commits looks like a change of the code; only
    /// a change point the A/B confirms counts (exit 3 only for a confirmed
    /// regression). With --metric: every change point judged GO or NO-GO; with
    /// --changes: the newest change point of each watched series that is a
    /// regression. Run it in the repository the history was measured in.
    #[arg(long)]
    pub confirm: bool,
    /// With --confirm: the command that builds a commit, run in its worktree
    /// (e.g. 'cargo build --release'; 'true' when nothing needs building); each
    /// commit is built once per command [default: none: every commit must already
    /// have a worktree that `perflab ab --rev`, `bisect` or `history --confirm
    /// --build` built].
    #[arg(long, value_name = "CMD", requires = "confirm")]
    pub build: Option<String>,
    /// Runs per commit before the first decision of each confirming A/B.
    #[arg(long, value_name = "N", requires = "confirm", help = super::defaults::confirm_min_runs())]
    pub min_runs: Option<usize>,
    /// Runs per commit at most in each confirming A/B.
    #[arg(long, value_name = "N", requires = "confirm", help = super::defaults::confirm_max_runs())]
    pub max_runs: Option<usize>,
    /// With --changes: post each new regression (the newest change point of a
    /// watched series that is a regression; with --confirm, only one the A/B
    /// confirmed) to this webhook as JSON, once: a Slack-compatible `text` and
    /// the change point's fields. The store remembers what the webhook accepted;
    /// a post that fails is tried again by the next run [default: none: nothing
    /// is posted].
    #[arg(long, value_name = "URL", requires = "changes", value_parser = WebhookUrl::parse)]
    pub notify: Option<WebhookUrl>,
    /// Write the metric history as JSON.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Write the metric history as a Markdown table.
    #[arg(long, value_name = "PATH")]
    pub markdown: Option<PathBuf>,
}

impl HistoryArgs {
    /// What the change-point test shuffles, from `--permute`.
    pub fn exchangeable(&self) -> perflab_stats::Exchangeable {
        match self.permute.as_str() {
            "runs" => perflab_stats::Exchangeable::Values,
            _ => perflab_stats::Exchangeable::Groups,
        }
    }
}
