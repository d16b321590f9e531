//! Shared helpers for the integration tests: a temporary directory with its
//! own store, and the real perflab binary started in it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use perflab_cli::experiment::Settings;
use perflab_cli::experiment::settings::VariantSettings;

pub mod burners;
pub mod commits;
pub mod harnesses;
pub mod history;
pub mod investigate;
pub mod machine;
pub mod machine_history;
pub mod markdown;
pub mod postgres;
pub mod serve;
pub mod traces;
pub mod webhook;

/// A scratch directory holding the store and any files a test writes.
pub struct Scratch {
    pub dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temporary directory"),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, text).expect("write test file");
        path
    }

    /// The perflab binary, run in the scratch directory with its store there.
    pub fn perflab(&self) -> Command {
        Command::from_std(self.perflab_process())
    }

    /// [`Scratch::perflab`] as a `std::process::Command`, for a test that
    /// needs the process itself: its pid, its stdout given, spawned.
    pub fn perflab_process(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_perflab"));
        cmd.current_dir(self.dir.path())
            .env_remove("PERFLAB_STORE")
            .env_remove("PERFLAB_HOST");
        // The shared store's settings come from the test alone.
        for variable in postgres::CONNECTION_VARIABLES {
            cmd.env_remove(variable);
        }
        cmd
    }

    pub fn store(&self) -> PathBuf {
        self.dir.path().join(".perflab/perflab.db")
    }

    pub fn json(&self, name: &str) -> serde_json::Value {
        let text = std::fs::read_to_string(self.path(name)).expect("result JSON written");
        serde_json::from_str(&text).expect("valid JSON")
    }
}

/// A shell command that burns CPU for `iterations` loop turns (about 1 µs each in dash).
pub fn busy(iterations: u32) -> String {
    format!("i=0; while [ $i -lt {iterations} ]; do i=$((i+1)); done")
}

/// Whether a process exists and has not exited (a zombie has).
pub fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|state| !state.trim_start().starts_with('Z'))
    })
}

pub fn exists(path: &Path) -> bool {
    path.exists()
}

/// Asserts that perflab reached a verdict or measurement (exit 0, 3 or 4),
/// not a failure (1) or a usage error (2); shows its stderr otherwise.
pub fn assert_reached_a_result(out: &std::process::Output) {
    assert!(
        out.status.code().is_some_and(|c| c != 1 && c != 2),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Asserts perflab's exit code, showing its stderr when it is another.
pub fn assert_exit(out: &std::process::Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The stdout of a perflab run that exited 0; shows stdout and stderr otherwise.
pub fn stdout_of_success(out: &std::process::Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The stdout of a perflab run that reached a verdict or a measurement
/// (exit 0, 3 or 4).
pub fn stdout_of_result(out: &std::process::Output) -> String {
    assert_reached_a_result(out);
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// The stderr of a perflab run refused as bad usage or bad input (exit 2).
pub fn stderr_of_refusal(out: &std::process::Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).to_string()
}

/// A file under `tests/fixtures`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The settings of an A/B experiment of two scripted commands, `a` and `b`,
/// in the order of seed 1, changed by `tweak`.
pub fn scripted_ab(tweak: impl FnOnce(&mut Settings)) -> Settings {
    let mut s = Settings {
        variants: vec![
            VariantSettings {
                command: Some("a".into()),
                ..Default::default()
            },
            VariantSettings {
                command: Some("b".into()),
                ..Default::default()
            },
        ],
        seed: Some(1),
        ..Default::default()
    };
    tweak(&mut s);
    s
}

/// Runs git in `dir` and returns its output; fails the test with git's
/// message when git fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Makes `dir` a git repository with a committer configured.
pub fn init_git_repository(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.email", "test@example.invalid"]);
    git(dir, &["config", "user.name", "test"]);
}
pub mod suite;
