//! A git repository of a small program whose `work` metric doubles at one
//! commit: what `perflab ab --rev` and `perflab bisect` are tested on.

use std::path::Path;

use super::{git, init_git_repository};

/// The build command of the test program: copies the script into place and
/// counts its builds in `build.log`, so that a test sees whether it ran.
pub const BUILD: &str = "cp app.sh app && chmod +x app && echo built >> build.log";

/// The script: prints `PERFLAB_METRIC work <100 × cost + 0..499>`, a
/// deterministic cost with a little noise (0.5%) so the statistics have
/// something to estimate, in enough steps that two runs almost never repeat
/// a value (repeated values would look like an exact measurement).
pub fn program(cost: u32) -> String {
    format!(
        "#!/bin/sh\nnoise=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')\n\
         echo \"PERFLAB_METRIC work $(({cost} * 100 + noise % 500))\"\n"
    )
}

/// A program whose `work` swings between 1.5 × and 1/1.5 × `100 × cost`,
/// one run after the other: against a quiet `program(cost)` its log ratios
/// are ±0.405 and average exactly zero, so no A/B of a few dozen runs can
/// decide (random noise would not do: a uniform spread has a lower geometric
/// mean, which enough runs would call GO).
pub fn noisy_program(cost: u32) -> String {
    format!(
        "#!/bin/sh\nn=$(cat .runs 2>/dev/null || echo 0)\necho $((n + 1)) > .runs\n\
         if [ $((n % 2)) -eq 0 ]; then work=$(({cost} * 150)); else work=$(({cost} * 200 / 3)); fi\n\
         echo \"PERFLAB_METRIC work $work\"\n"
    )
}

/// Makes `dir` a repository with a commit "initial" of the first program,
/// then "change 1" ... of each further one. Returns the commit ids, the
/// initial one first.
pub fn repository_of(dir: &Path, programs: &[String]) -> Vec<String> {
    init_git_repository(dir);
    std::fs::write(
        dir.join(".gitignore"),
        ".perflab/\napp\nbuild.log\n*.json\n",
    )
    .unwrap();
    let mut ids = Vec::new();
    for (i, program) in programs.iter().enumerate() {
        std::fs::write(dir.join("app.sh"), program).unwrap();
        std::fs::write(dir.join("notes.txt"), format!("change {i}\n")).unwrap();
        git(dir, &["add", "."]);
        let subject = if i == 0 {
            "initial".to_string()
        } else {
            format!("change {i}")
        };
        git(dir, &["commit", "-qm", &subject]);
        ids.push(git(dir, &["rev-parse", "HEAD"]));
    }
    ids
}

/// A repository of `commits` + 1 commits ("initial", "change 1" ... "change
/// N") whose program's cost doubles from "change `slow_at`" on (`slow_at` of
/// 0 or above `commits`: never). Returns the commit ids, the initial one first.
pub fn repository_slowing_at(dir: &Path, commits: usize, slow_at: usize) -> Vec<String> {
    let programs: Vec<String> = (0..=commits)
        .map(|i| {
            program(if slow_at != 0 && i >= slow_at {
                2000
            } else {
                1000
            })
        })
        .collect();
    repository_of(dir, &programs)
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
