//! The git repository that revisions come from: resolving names to commits,
//! ancestry, the first-parent path and worktrees, by running `git` itself
//! (perflab speaks git's own command line rather than a library so that it
//! sees exactly what the user's `git` sees: config, hooks, worktrees).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};

/// A git repository, by its top-level folder.
#[derive(Debug, Clone)]
pub struct Repository {
    /// The top-level folder of the working tree (`git rev-parse --show-toplevel`).
    pub root: PathBuf,
}

impl Repository {
    /// The repository holding `dir`; `flag` names the option the revisions
    /// came from, for the error when `dir` is not in a repository.
    pub fn containing(dir: &Path, flag: &str) -> Result<Self> {
        let root = git_in(dir, &["rev-parse", "--show-toplevel"]).map_err(|_| {
            Error::usage(
                flag,
                format!(
                    "{} is not in a git repository; revisions are commits of a repository: \
                     run perflab inside one (or give --cwd a folder in it)",
                    dir.display()
                ),
            )
        })?;
        Ok(Self {
            root: PathBuf::from(root),
        })
    }

    /// Runs git in the repository; the error carries git's own message.
    pub fn git(&self, args: &[&str]) -> std::result::Result<String, String> {
        git_in(&self.root, args)
    }

    /// The full commit id a revision names (a branch, tag, hash, `HEAD~3`, ...).
    pub fn resolve(&self, rev: &str, flag: &str) -> Result<String> {
        self.git(&[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ])
        .ok()
        .filter(|hash| !hash.is_empty())
        .ok_or_else(|| {
            Error::usage(
                flag,
                format!(
                    "'{rev}' is not a commit of the repository at {}; give a branch, tag or \
                         commit hash that `git rev-parse` knows",
                    self.root.display()
                ),
            )
        })
    }

    /// The commit's subject line.
    pub fn subject(&self, commit: &str) -> String {
        self.git(&["log", "-1", "--format=%s", commit])
            .unwrap_or_default()
    }

    /// The commit's short hash (as `git` abbreviates it, at least 7 digits).
    pub fn short(&self, commit: &str) -> String {
        self.git(&["rev-parse", "--short", commit])
            .unwrap_or_else(|_| commit.chars().take(12).collect())
    }

    /// Whether `ancestor` is an ancestor of (or the same commit as) `descendant`.
    pub fn is_ancestor(&self, ancestor: &str, descendant: &str) -> bool {
        Command::new("git")
            .args(["merge-base", "--is-ancestor", ancestor, descendant])
            .current_dir(&self.root)
            .status()
            .is_ok_and(|s| s.success())
    }

    /// The commits after `good` up to and including `bad` on the
    /// first-parent path, oldest first.
    pub fn first_parent_path(&self, good: &str, bad: &str) -> Result<Vec<String>> {
        let list = self
            .git(&[
                "rev-list",
                "--first-parent",
                "--reverse",
                &format!("{good}..{bad}"),
            ])
            .map_err(|e| Error::usage("--good/--bad", e))?;
        Ok(list.lines().map(str::to_string).collect())
    }

    /// The commit checked out in the working tree.
    pub fn head(&self) -> Option<String> {
        self.git(&["rev-parse", "HEAD"]).ok()
    }

    /// True when tracked files have uncommitted changes (untracked files,
    /// perflab's own store and worktrees among them, do not count).
    pub fn is_dirty(&self) -> bool {
        self.git(&["status", "--porcelain", "--untracked-files=no"])
            .is_ok_and(|s| !s.is_empty())
    }

    /// The folder perflab keeps its worktrees in.
    pub fn worktrees_dir(&self) -> PathBuf {
        self.root.join(".perflab").join("worktrees")
    }
}

/// Runs git in `dir`; its trimmed output, or its error message.
fn git_in(dir: &Path, args: &[&str]) -> std::result::Result<String, String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run git: {e}; install git"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}
