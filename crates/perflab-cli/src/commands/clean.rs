//! `perflab clean`: removes the worktrees perflab made for revisions.

use std::path::PathBuf;

use crate::cli::CleanArgs;
use crate::error::{EXIT_OK, Result};
use crate::revisions::remove_worktrees;

/// `perflab clean`: says what it removed.
pub fn clean(args: &CleanArgs) -> Result<i32> {
    let dir = args.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
    let removed = remove_worktrees(&dir)?;
    if removed.is_empty() {
        println!("no perflab worktrees to remove");
    }
    for path in &removed {
        println!("removed worktree {}", path.display());
    }
    Ok(EXIT_OK)
}
