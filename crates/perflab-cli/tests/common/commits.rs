//! A git repository of a small program whose `work` metric doubles at one
//! commit: what `perflab ab --rev` and `perflab bisect` are tested on.

use std::path::Path;

use super::{git, init_git_repository};

/// The build command of the test program: copies the script into place and
/// counts its builds in `build.log`, so that a test sees whether it ran.
pub const BUILD: &str = "cp app.sh app && chmod +x app && echo built >> build.log";

/// The script: prints `PERFLAB_METRIC work <cost + 0..4>`, a deterministic
/// cost with a little noise so the statistics have something to estimate.
pub fn program(cost: u32) -> String {
    format!(
        "#!/bin/sh\nnoise=$(od -An -N1 -tu1 /dev/urandom | tr -d ' ')\n\
         echo \"PERFLAB_METRIC work $(({cost} + noise % 5))\"\n"
    )
}

/// Makes `dir` a repository of `commits` + 1 commits: "initial", then
/// "change 1" ... "change N"; from "change `slow_at`" on, the program's cost
/// doubles (`slow_at` of 0 or above `commits`: never). Returns the commit ids,
/// the initial one first.
pub fn repository_slowing_at(dir: &Path, commits: usize, slow_at: usize) -> Vec<String> {
    init_git_repository(dir);
    std::fs::write(
        dir.join(".gitignore"),
        ".perflab/\napp\nbuild.log\n*.json\n",
    )
    .unwrap();
    std::fs::write(dir.join("app.sh"), program(1000)).unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-qm", "initial"]);
    let mut ids = vec![git(dir, &["rev-parse", "HEAD"])];
    for i in 1..=commits {
        let cost = if slow_at != 0 && i >= slow_at {
            2000
        } else {
            1000
        };
        std::fs::write(dir.join("app.sh"), program(cost)).unwrap();
        std::fs::write(dir.join("notes.txt"), format!("change {i}\n")).unwrap();
        git(dir, &["add", "."]);
        git(dir, &["commit", "-qm", &format!("change {i}")]);
        ids.push(git(dir, &["rev-parse", "HEAD"]));
    }
    ids
}

/// The lines of a worktree's build log: how often it was built.
pub fn builds_in(worktree: &Path) -> usize {
    std::fs::read_to_string(worktree.join("build.log"))
        .map(|log| log.lines().count())
        .unwrap_or(0)
}

/// perflab's worktree of a commit in the repository at `dir`.
pub fn worktree_of(dir: &Path, commit: &str) -> std::path::PathBuf {
    dir.join(".perflab/worktrees").join(&commit[..12])
}
