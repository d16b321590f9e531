//! `perflab push` and `perflab pull` flags.

use std::path::PathBuf;

use clap::Args;

use perflab_store::Selection;

/// `perflab push`.
#[derive(Debug, Args)]
pub struct PushArgs {
    /// The store to copy into: a postgres:// URL or a SQLite file.
    #[arg(long, value_name = "URL")]
    pub to: PathBuf,
    /// Which experiments.
    #[command(flatten)]
    pub selection: SelectionArgs,
}

/// `perflab pull`.
#[derive(Debug, Args)]
pub struct PullArgs {
    /// The store to copy from: a postgres:// URL or a SQLite file.
    #[arg(long, value_name = "URL")]
    pub from: PathBuf,
    /// Which experiments.
    #[command(flatten)]
    pub selection: SelectionArgs,
}

/// The experiments to copy [default: all].
#[derive(Debug, Args)]
pub struct SelectionArgs {
    /// An experiment, by its id in the store copied from. Repeatable.
    #[arg(long = "experiment", value_name = "ID")]
    pub experiments: Vec<i64>,
    /// Every experiment with this name. Repeatable.
    #[arg(long = "name", value_name = "NAME")]
    pub names: Vec<String>,
}

impl SelectionArgs {
    /// The selection these flags make.
    pub fn selection(&self) -> Selection {
        Selection {
            ids: self.experiments.clone(),
            names: self.names.clone(),
        }
    }
}
