//! A history measured commit after commit while the "machine" changes: a
//! file outside the repository scales what every run reports, as a slower
//! or busier machine scales the time the same code takes. What `perflab
//! history --confirm` is tested on.
//!
//! The runs report their `work` (a PERFLAB_METRIC line) rather than being
//! timed, so that the machine the tests run on, however loaded, changes
//! nothing: `work` is the repository's cost (`work.txt`, the "code") times
//! the machine's slowdown (the file outside), with a ripple of at most
//! ±0.1% (unless a test sets a larger one) from a run counter kept beside
//! the machine's file. The history is
//! then the same every time (its change points too), and two commits of the
//! same cost never differ by more than 0.2%: an A/B of them cannot find a
//! change beyond the default thresholds (-0.5%, +1%), since its estimate,
//! which every interval holds, is within 0.2% of none.

use std::path::PathBuf;

use super::{Scratch, assert_exit, git, init_git_repository};

/// The repository (its own store in `.perflab/`) and the machine's file.
pub struct MachineHistory {
    /// The repository, where perflab runs.
    pub repo: Scratch,
    /// The folder of the machine's file, outside the repository.
    machine: tempfile::TempDir,
}

impl MachineHistory {
    /// An empty repository on a machine at its normal speed.
    pub fn new() -> Self {
        let repo = Scratch::new();
        init_git_repository(repo.dir.path());
        std::fs::write(repo.path(".gitignore"), ".perflab/\n*.json\n*.md\n").unwrap();
        let history = Self {
            repo,
            machine: tempfile::tempdir().expect("temporary directory"),
        };
        history.set_machine_slowdown(1);
        history.set_ripple(0.001);
        history
    }

    /// Makes every run from now on ripple by at most this share of its
    /// work (0.001, ±0.1%, unless set): a noisier program.
    pub fn set_ripple(&self, share: f64) {
        std::fs::write(self.machine.path().join("ripple"), share.to_string()).unwrap();
    }

    /// The machine's file.
    fn machine_file(&self) -> PathBuf {
        self.machine.path().join("slowdown")
    }

    /// Makes every run from now on report `slowdown` times its work.
    pub fn set_machine_slowdown(&self, slowdown: u32) {
        std::fs::write(self.machine_file(), slowdown.to_string()).unwrap();
    }

    /// The measured command: the repository's cost times the machine's
    /// slowdown, with the ripple of the machine's run counter.
    pub fn command(&self) -> String {
        let counter = self.machine.path().join("runs");
        format!(
            "c=$(cat {counter} 2>/dev/null || echo 0); echo $((c+1)) > {counter}; \
             awk -v c=$c -v w=$(cat work.txt) -v m=$(cat {machine}) -v r=$(cat {ripple}) \
             'BEGIN {{ printf \"PERFLAB_METRIC work %.4f\\n\", w * m * (1 + r * sin(c * 7.3)) }}'",
            counter = counter.display(),
            machine = self.machine_file().display(),
            ripple = self.machine.path().join("ripple").display()
        )
    }

    /// Commits the "code" (its cost in `work.txt`), then measures the
    /// command 6 times under the name `insert-10K`.
    pub fn commit_and_measure(&self, step: usize, cost: u32) {
        let dir = self.repo.dir.path();
        std::fs::write(self.repo.path("work.txt"), cost.to_string()).unwrap();
        git(dir, &["add", "."]);
        git(
            dir,
            &["commit", "-qm", &format!("step {step}"), "--allow-empty"],
        );
        let out = self
            .repo
            .perflab()
            .args(["run", "--quiet", "--name", "insert-10K", "-r", "6"])
            .arg(self.command())
            .output()
            .unwrap();
        assert_exit(&out, 0);
    }

    /// `perflab history ARGS` in the repository.
    pub fn history(&self, args: &[&str]) -> std::process::Output {
        self.repo
            .perflab()
            .arg("history")
            .args(args)
            .output()
            .unwrap()
    }
}
