//! `perflab push` and `perflab pull`: experiments copied between the
//! store of the command (`--store`) and another one.

use crate::cli::{PullArgs, PushArgs};
use crate::error::{EXIT_OK, Result};
use perflab_store::{Location, Store, TransferSummary};

/// `perflab push`: from `--store` to `--to`.
pub fn push(args: &PushArgs, store: &Store) -> Result<i32> {
    let location = Location::parse(&args.to, "--to")?;
    let to = Store::open_at(&location, "--to")?;
    let summary = store.copy_to(&to, &args.selection.selection())?;
    println!("pushed to {location}: {}", describe(&summary));
    Ok(EXIT_OK)
}

/// `perflab pull`: from `--from` into `--store`.
pub fn pull(args: &PullArgs, store: &Store) -> Result<i32> {
    let location = Location::parse(&args.from, "--from")?;
    // Read only: a mistyped path creates no empty store to pull nothing from.
    let from = Store::open_for_reading(&location, "--from")?;
    let summary = from.copy_to(store, &args.selection.selection())?;
    println!("pulled from {location}: {}", describe(&summary));
    Ok(EXIT_OK)
}

fn describe(s: &TransferSummary) -> String {
    format!(
        "{} experiments copied, {} already there; {} runs copied, {} already there",
        s.experiments_copied, s.experiments_present, s.runs_copied, s.runs_present
    )
}
