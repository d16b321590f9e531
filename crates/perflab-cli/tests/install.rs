//! `cargo install --path crates/perflab-cli` puts `perflab` and
//! `perflab-exec` in one folder on PATH; perflab must find its fork server
//! there, next to itself.

mod common;

use std::path::Path;
use std::process::Command;

use common::Scratch;

/// Installs the named binaries into `bin/` as cargo install would (copies
/// side by side), runs `perflab run` found through PATH, and returns what
/// started each run (the command line of the shell's parent).
fn parents_of_runs(binaries: &[&str]) -> String {
    let s = Scratch::new();
    let bin = s.path("bin");
    std::fs::create_dir(&bin).unwrap();
    let built = Path::new(env!("CARGO_BIN_EXE_perflab")).parent().unwrap();
    for name in binaries {
        std::fs::copy(built.join(name), bin.join(name)).unwrap();
    }
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display());
    let record = r#"tr '\0' ' ' < /proc/$PPID/cmdline >> parents.txt; echo >> parents.txt"#;
    let out = Command::new("perflab")
        .current_dir(s.dir.path())
        .env("PATH", path)
        .env_remove("PERFLAB_STORE")
        .args(["run", record, "--runs", "2", "--warmup", "0", "--quiet"])
        .output()
        .expect("perflab is found on PATH");
    common::assert_exit(&out, 0);
    std::fs::read_to_string(s.path("parents.txt")).expect("the runs wrote parents.txt")
}

#[test]
fn perflab_finds_perflab_exec_installed_next_to_it_on_path() {
    let parents = parents_of_runs(&["perflab", "perflab-exec"]);
    assert_eq!(parents.lines().count(), 2, "{parents}");
    for line in parents.lines() {
        assert!(line.contains("perflab-exec --serve"), "started by {line}");
    }
}

#[test]
fn without_perflab_exec_next_to_it_perflab_starts_runs_itself() {
    let parents = parents_of_runs(&["perflab"]);
    assert!(
        parents.lines().all(|l| !l.contains("perflab-exec")),
        "{parents}"
    );
}
