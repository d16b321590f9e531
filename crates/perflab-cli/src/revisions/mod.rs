//! Commits as variants: each revision a variant names is checked out into
//! its own git worktree under `.perflab/worktrees/` of its repository, built
//! there once, and its runs start there.
//!
//! [`git`] asks the repository, [`checkout`] makes and builds the worktrees;
//! this module turns the revisions of an experiment's variants into their
//! working directories, and removes the worktrees again (`perflab clean`).
//!
//! A working tree with uncommitted changes is refused: the user would expect
//! them measured, and a commit's worktree does not have them. With
//! `--allow-dirty`, a revision naming the commit checked out (HEAD) runs the
//! working tree as it is, built every time; other revisions still run their
//! commits.

pub mod checkout;
pub mod git;

use std::path::{Path, PathBuf};

pub use checkout::{BUILD_MARKER, BuildPlan, BuiltRevision, checkout_and_build};
pub use git::Repository;

use crate::error::{Error, Result};
use crate::experiment::Settings;
use perflab_store::provenance::VariantRevision;

/// Revisions of one repository, built as a plan says.
#[derive(Debug)]
pub struct RevisionBuilder {
    /// The repository.
    pub repo: Repository,
    /// The build command, if any.
    pub build: Option<String>,
    /// The folder the experiment runs from, relative to the repository's top.
    pub subdir: PathBuf,
    /// Use the working tree for the commit checked out, when it has uncommitted changes.
    use_working_tree_for: Option<String>,
}

impl RevisionBuilder {
    /// Builder for the repository holding `dir`; refuses a dirty working
    /// tree unless `allow_dirty`. `flag` names where the revisions came from.
    pub fn new(dir: &Path, build: Option<String>, allow_dirty: bool, flag: &str) -> Result<Self> {
        let repo = Repository::containing(dir, flag)?;
        let subdir = std::fs::canonicalize(dir)
            .ok()
            .zip(std::fs::canonicalize(&repo.root).ok())
            .and_then(|(dir, root)| dir.strip_prefix(root).ok().map(Path::to_path_buf))
            .unwrap_or_default();
        let dirty = repo.is_dirty();
        if dirty && !allow_dirty {
            return Err(Error::usage(
                flag,
                format!(
                    "the working tree of {} has uncommitted changes, which no revision's worktree \
                     holds; commit or stash them, or pass --allow-dirty to run the working tree \
                     as it is for a revision naming the commit checked out (HEAD)",
                    repo.root.display()
                ),
            ));
        }
        let use_working_tree_for = if dirty { repo.head() } else { None };
        Ok(Self {
            repo,
            build,
            subdir,
            use_working_tree_for,
        })
    }

    /// Builder of commits only, in the folder `subdir` of each tree: the
    /// working tree is never used, so its uncommitted changes, if any,
    /// neither matter nor are refused (`perflab history --confirm` runs
    /// commits a history measured).
    pub fn commits_only(repo: Repository, build: Option<String>, subdir: PathBuf) -> Self {
        Self {
            repo,
            build,
            subdir,
            use_working_tree_for: None,
        }
    }

    /// The commit's worktree as an earlier experiment built it, if it did
    /// (see [`checkout::built_worktree`]).
    pub fn built_before(&self, given: &str, commit: &str) -> Option<BuiltRevision> {
        checkout::built_worktree(&self.repo, given, commit)
    }

    /// The commit a revision names; `flag` names it in the error.
    pub fn resolve(&self, rev: &str, flag: &str) -> Result<String> {
        self.repo.resolve(rev, flag)
    }

    /// A revision checked out and built (the build cached by commit and command).
    pub fn prepare(&self, given: &str, commit: &str) -> Result<BuiltRevision> {
        let plan = BuildPlan {
            command: self.build.as_deref(),
            subdir: &self.subdir,
        };
        if self.use_working_tree_for.as_deref() == Some(commit) {
            return checkout::build_working_tree(&self.repo, given, commit, plan);
        }
        checkout_and_build(&self.repo, given, commit, plan)
    }

    /// The folder a built revision's runs start in.
    pub fn run_dir(&self, built: &BuiltRevision) -> PathBuf {
        checkout::in_tree(&built.tree, &self.subdir)
    }
}

/// Checks out and builds the revisions the variants name, sets each such
/// variant's working directory to its tree and its name (unless given) to
/// the revision as given. Returns the commit of each, for the provenance.
pub fn prepare_revision_variants(
    settings: &mut Settings,
    allow_dirty: bool,
) -> Result<Vec<VariantRevision>> {
    if settings.variants.iter().all(|v| v.rev.is_none()) {
        if settings.build.is_some() {
            return Err(Error::usage(
                "--build",
                "a build command builds revisions, and no variant names one; \
                 add --rev twice (or rev = \"...\" to the [[variant]] tables)",
            ));
        }
        return Ok(Vec::new());
    }
    let dir = settings.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
    let builder = RevisionBuilder::new(&dir, settings.build.clone(), allow_dirty, "--rev")?;
    let mut revisions = Vec::new();
    for variant in &mut settings.variants {
        let Some(rev) = variant.rev.clone() else {
            continue;
        };
        let commit = builder.resolve(&rev, "--rev")?;
        let built = builder.prepare(&rev, &commit)?;
        variant.cwd = Some(builder.run_dir(&built));
        let name = variant.name.get_or_insert_with(|| rev.clone()).clone();
        revisions.push(VariantRevision {
            variant: name,
            revision: rev,
            commit,
            working_tree: built.working_tree,
        });
    }
    Ok(revisions)
}

/// Removes perflab's worktrees of the repository holding `dir` (git
/// worktree remove, then prune); returns the folders removed.
pub fn remove_worktrees(dir: &Path) -> Result<Vec<PathBuf>> {
    let repo = Repository::containing(dir, "perflab clean")?;
    let folder = repo.worktrees_dir();
    let mut removed = Vec::new();
    let entries = match std::fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(_) => {
            let _ = repo.git(&["worktree", "prune"]);
            return Ok(removed);
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        let _ = repo.git(&["worktree", "remove", "--force", &path.to_string_lossy()]);
        if path.exists() {
            // Not (or no longer) registered with git: an ordinary folder.
            std::fs::remove_dir_all(&path).map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?;
        }
        removed.push(path);
    }
    let _ = std::fs::remove_dir(&folder);
    repo.git(&["worktree", "prune"]).map_err(|e| Error::Tool {
        tool: "git".into(),
        message: e,
    })?;
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::experiment::parse_experiment;

    #[test]
    fn the_experiment_file_of_the_guide_names_two_revisions_and_a_build() {
        let guide = include_str!("../../../../docs/guide/revisions.md");
        let section = &guide[guide.find("# Commits as variants").unwrap()..];
        let start = section.find("```toml\n").unwrap() + "```toml\n".len();
        let example = &section[start..start + section[start..].find("```").unwrap()];
        let settings = parse_experiment(example, Path::new("perflab.toml")).unwrap();
        assert_eq!(settings.build.as_deref(), Some("cargo build --release"));
        let revs: Vec<_> = settings.variants.iter().map(|v| v.rev.as_deref()).collect();
        assert_eq!(revs, [Some("main"), Some("my-branch")]);
    }
}
