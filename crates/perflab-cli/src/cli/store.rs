//! `perflab store` flags.

use std::path::PathBuf;

use clap::{Args, Subcommand};

/// `perflab store`.
#[derive(Debug, Args)]
pub struct StoreArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: StoreAction,
}

/// The actions of `perflab store`.
#[derive(Debug, Subcommand)]
pub enum StoreAction {
    /// Check the store file with SQLite's integrity check, without writing to it: exit 0 when
    /// it is sound, 1 with what is wrong and what to do when it is damaged.
    Check,
    /// Write a consistent copy of the store file to PATH (a new file), also while experiments
    /// write to the store.
    Backup(StoreBackupArgs),
}

/// `perflab store backup`.
#[derive(Debug, Args)]
pub struct StoreBackupArgs {
    /// The copy to write: a new file.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
}
