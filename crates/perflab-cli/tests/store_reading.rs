//! Commands that only read the store (`history`, `report`) create nothing
//! and work on a store they cannot write; a store deleted or replaced
//! while an experiment writes to it is written back with every run.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Scratch, assert_exit, stderr_of_refusal, stdout_of_success};

/// A folder made read-only for real until dropped: a read-only bind mount
/// for root (whom permissions do not stop), its write permissions taken
/// away for anyone else.
struct ReadOnly {
    dir: PathBuf,
    mounted: bool,
}

impl ReadOnly {
    fn new(dir: &Path) -> Self {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        if root {
            let mount = |args: &[&str]| {
                let status = Command::new("mount").args(args).arg(dir).status();
                assert!(
                    status.is_ok_and(|s| s.success()),
                    "mount {args:?} {} failed: a test run as root needs to mount a \
                     read-only bind mount to try a read-only store",
                    dir.display()
                );
            };
            mount(&["--bind", dir.to_str().unwrap()]);
            mount(&["-o", "remount,bind,ro"]);
        } else {
            chmod_tree(dir, false);
        }
        assert!(
            std::fs::write(dir.join("probe"), "x").is_err(),
            "{} is still writable",
            dir.display()
        );
        ReadOnly {
            dir: dir.to_path_buf(),
            mounted: root,
        }
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        if self.mounted {
            let _ = Command::new("umount").arg(&self.dir).status();
        } else {
            chmod_tree(&self.dir, true);
        }
    }
}

/// Gives or takes away the write permission of `dir` and its files.
fn chmod_tree(dir: &Path, writable: bool) {
    use std::os::unix::fs::PermissionsExt;
    let set = |p: &Path, mode: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    for entry in std::fs::read_dir(dir).unwrap() {
        set(&entry.unwrap().path(), if writable { 0o644 } else { 0o444 });
    }
    set(dir, if writable { 0o755 } else { 0o555 });
}

/// A store with one experiment of 3 runs of `true`.
fn measured() -> Scratch {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["run", "--name", "t", "-r", "3", "--warmup", "0", "true"])
        .output()
        .unwrap();
    stdout_of_success(&out);
    s
}

/// What every file of `dir` holds, to show that nothing was written.
fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_reading_command_on_a_mistyped_store_path_is_refused_and_creates_nothing() {
    let s = Scratch::new();
    for command in [
        &["history"][..],
        &["report"],
        &["history", "--metric", "wall"],
    ] {
        let out = s
            .perflab()
            .args(command)
            .args(["--store", "stores/prod.db"])
            .output()
            .unwrap();
        let err = stderr_of_refusal(&out);
        assert!(
            err.contains("--store: no store at stores/prod.db"),
            "{command:?}: {err}"
        );
    }
    assert!(!s.path("stores").exists());
    assert!(!s.path(".perflab").exists());
}

#[test]
fn history_and_report_read_a_store_on_a_read_only_file_system_and_change_nothing() {
    let s = measured();
    let folder = s.path(".perflab");
    let before = contents(&folder);
    assert!(
        before.iter().any(|(p, _)| p.ends_with("perflab.db-wal")),
        "the store keeps its log files: {before:?}"
    );
    let _read_only = ReadOnly::new(&folder);
    let history = stdout_of_success(&s.perflab().arg("history").output().unwrap());
    assert!(
        history.contains("t") && history.contains("run"),
        "{history}"
    );
    let report = stdout_of_success(&s.perflab().args(["report", "t"]).output().unwrap());
    assert!(report.contains("true"), "{report}");
    assert_eq!(contents(&folder), before);
}

#[test]
fn a_store_without_its_log_files_is_read_on_a_read_only_file_system_too() {
    let s = measured();
    let folder = s.path(".perflab");
    for log in ["perflab.db-wal", "perflab.db-shm"] {
        std::fs::remove_file(folder.join(log)).unwrap();
    }
    let _read_only = ReadOnly::new(&folder);
    let history = stdout_of_success(&s.perflab().arg("history").output().unwrap());
    assert!(history.contains("t"), "{history}");
}

#[test]
fn a_store_deleted_while_an_experiment_writes_is_written_back_with_every_run() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["run", "--name", "gone", "-r", "5", "--warmup", "0"])
        .arg("rm -f .perflab/perflab.db")
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("was deleted while this command wrote to it") && err.contains("written back"),
        "{err}"
    );
    let db = rusqlite::Connection::open(s.store()).unwrap();
    let (runs, status): (i64, String) = db
        .query_row(
            "SELECT (SELECT COUNT(*) FROM runs), status FROM experiments WHERE name = 'gone'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((runs, status.as_str()), (5, "complete"));
}

#[test]
fn a_store_replaced_while_an_experiment_writes_is_written_beside_it() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["run", "--name", "moved", "-r", "3", "--warmup", "0"])
        .arg("rm -f .perflab/perflab.db; echo other > .perflab/perflab.db")
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let err = String::from_utf8_lossy(&out.stderr);
    let recovered = s.path(".perflab/perflab.db.recovered");
    assert!(
        err.contains("was replaced by another file")
            && err.contains("perflab pull --from")
            && err.contains("perflab.db.recovered"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(s.store()).unwrap(), "other\n");
    let db = rusqlite::Connection::open(&recovered).unwrap();
    let runs: i64 = db
        .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(runs, 3);
}
