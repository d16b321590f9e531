//! A revision checked out into its own worktree and built there, once.
//!
//! Each commit gets `.perflab/worktrees/<12-digit hash>` in its repository.
//! A marker file in the worktree records the commit and the build command of
//! the last build that succeeded; a later run finding the same pair does not
//! build again. The marker is removed before a build starts and written only
//! when it succeeds, so a worktree whose build failed or was interrupted is
//! built again next time instead of being measured half-built.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::git::Repository;
use crate::error::{Error, Result};

/// The marker file of a successful build, at the top of the worktree.
pub const BUILD_MARKER: &str = ".perflab-build";

/// Lines of a failed build's output shown in the error.
const BUILD_TAIL_LINES: usize = 20;

/// A revision ready to run: checked out and built.
#[derive(Debug, Clone)]
pub struct BuiltRevision {
    /// The revision as the user gave it (`main`, `HEAD~2`, a hash).
    pub given: String,
    /// The full commit id it named.
    pub commit: String,
    /// The top of the tree it was built in (a worktree, or the working tree).
    pub tree: PathBuf,
    /// True when it is the working tree as it is, uncommitted changes included.
    pub working_tree: bool,
}

/// How revisions are built.
#[derive(Debug, Clone, Copy)]
pub struct BuildPlan<'a> {
    /// The build command, run with `sh -c`; none means checking out is enough.
    pub command: Option<&'a str>,
    /// The folder, relative to the top of a tree, the build and the runs start in.
    pub subdir: &'a Path,
}

/// Checks `commit` out into its worktree (or reuses it) and builds it there
/// unless its marker says that this build already succeeded.
pub fn checkout_and_build(
    repo: &Repository,
    given: &str,
    commit: &str,
    plan: BuildPlan,
) -> Result<BuiltRevision> {
    let tree = worktree(repo, given, commit)?;
    let marker = tree.join(BUILD_MARKER);
    let wanted = marker_text(commit, plan.command);
    if std::fs::read_to_string(&marker).is_ok_and(|m| m == wanted) {
        return Ok(BuiltRevision {
            given: given.to_string(),
            commit: commit.to_string(),
            tree,
            working_tree: false,
        });
    }
    remove_marker(&marker)?;
    if let Some(command) = plan.command {
        build(repo, given, commit, &in_tree(&tree, plan.subdir), command)?;
    }
    std::fs::write(&marker, wanted).map_err(|source| Error::Io {
        path: marker.clone(),
        source,
    })?;
    Ok(BuiltRevision {
        given: given.to_string(),
        commit: commit.to_string(),
        tree,
        working_tree: false,
    })
}

/// The commit's worktree as an earlier experiment left it, if its build
/// succeeded there (its marker names the commit, whatever the build
/// command was): what runs without a build command of its own.
pub fn built_worktree(repo: &Repository, given: &str, commit: &str) -> Option<BuiltRevision> {
    let tree = worktree_dir(repo, commit);
    let marker = std::fs::read_to_string(tree.join(BUILD_MARKER)).ok()?;
    let checked_out = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(&tree)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    (marker.starts_with(&format!("commit {commit}\n")) && checked_out.as_deref() == Some(commit))
        .then(|| BuiltRevision {
            given: given.to_string(),
            commit: commit.to_string(),
            tree,
            working_tree: false,
        })
}

/// The working tree as it is, built every time: its uncommitted contents
/// have no commit id to cache a build by.
pub fn build_working_tree(
    repo: &Repository,
    given: &str,
    commit: &str,
    plan: BuildPlan,
) -> Result<BuiltRevision> {
    if let Some(command) = plan.command {
        build(
            repo,
            given,
            commit,
            &in_tree(&repo.root, plan.subdir),
            command,
        )?;
    }
    Ok(BuiltRevision {
        given: given.to_string(),
        commit: commit.to_string(),
        tree: repo.root.clone(),
        working_tree: true,
    })
}

/// The folder of a commit's worktree.
pub fn worktree_dir(repo: &Repository, commit: &str) -> PathBuf {
    repo.worktrees_dir()
        .join(commit.chars().take(12).collect::<String>())
}

/// The folder `subdir` of a tree (the tree itself for an empty `subdir`).
pub fn in_tree(tree: &Path, subdir: &Path) -> PathBuf {
    if subdir.as_os_str().is_empty() {
        tree.to_path_buf()
    } else {
        tree.join(subdir)
    }
}

fn marker_text(commit: &str, command: Option<&str>) -> String {
    format!("commit {commit}\nbuild {}\n", command.unwrap_or(""))
}

fn remove_marker(marker: &Path) -> Result<()> {
    match std::fs::remove_file(marker) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Io {
            path: marker.to_path_buf(),
            source: e,
        }),
        _ => Ok(()),
    }
}

/// The commit's worktree, added if missing, replaced if it holds another commit.
fn worktree(repo: &Repository, given: &str, commit: &str) -> Result<PathBuf> {
    let dir = worktree_dir(repo, commit);
    if dir.exists() {
        let checked_out = Command::new("git")
            .args(["rev-parse", "HEAD"])
            .current_dir(&dir)
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
        if checked_out.as_deref() == Some(commit) {
            return Ok(dir);
        }
        let _ = repo.git(&["worktree", "remove", "--force", &dir.to_string_lossy()]);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|source| Error::Io {
                path: dir.clone(),
                source,
            })?;
        }
        let _ = repo.git(&["worktree", "prune"]);
    }
    repo.git(&[
        "worktree",
        "add",
        "--detach",
        "--force",
        &dir.to_string_lossy(),
        commit,
    ])
    .map_err(|e| Error::Run {
        run: format!("checkout of revision '{given}'"),
        message: e,
    })?;
    Ok(dir)
}

/// Runs the build command in `dir`; a failure names the revision and shows
/// the end of the build's output.
fn build(repo: &Repository, given: &str, commit: &str, dir: &Path, command: &str) -> Result<()> {
    let short = repo.short(commit);
    let named = if given == short {
        format!("revision '{given}'")
    } else {
        format!("revision '{given}' ({short})")
    };
    eprintln!("perflab: building {named} in {}: {command}", dir.display());
    // One stream, in the order the build wrote it.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1\n{command}"))
        .current_dir(dir)
        .output()
        .map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    if out.status.success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(BUILD_TAIL_LINES)..].join("\n");
    let status = out.status.code().map_or_else(
        || "was killed by a signal".to_string(),
        |c| format!("exited with code {c}"),
    );
    Err(Error::Run {
        run: format!("build of {named}"),
        message: format!(
            "'{command}' {status} in {}.\nFix the build at that commit, or give --build the \
             command that builds it; the revision is built again next time.\nThe end of its output:\n{}",
            dir.display(),
            perflab_runner::quote_output(&tail)
        ),
    })
}
