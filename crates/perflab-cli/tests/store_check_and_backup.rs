//! `perflab store check` on a sound and on a damaged store file, the
//! message every command gives for a damaged store, and `perflab store
//! backup` while an experiment writes to the store.

mod common;

use std::io::{Seek, SeekFrom, Write};
use std::process::Stdio;

use common::{Scratch, assert_exit, stderr_of_refusal, stdout_of_success};

/// A store with one experiment of `runs` runs of `true`.
fn measured(runs: &str) -> Scratch {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["run", "--name", "t", "-r", runs, "--warmup", "0", "true"])
        .output()
        .unwrap();
    stdout_of_success(&out);
    s
}

#[test]
fn a_sound_store_checks_sound_with_what_it_holds() {
    let s = measured("3");
    let out = s.perflab().args(["store", "check"]).output().unwrap();
    let stdout = stdout_of_success(&out);
    assert!(
        stdout.contains(".perflab/perflab.db: sound (1 experiments, 3 runs)"),
        "{stdout}"
    );
}

#[test]
fn a_damaged_store_is_named_with_what_to_do_and_checks_damaged() {
    let s = measured("200");
    // Every page but the first (the header and the schema) overwritten.
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .open(s.store())
        .unwrap();
    let length = file.metadata().unwrap().len();
    assert!(length > 8192, "a store of {length} bytes");
    file.seek(SeekFrom::Start(4096)).unwrap();
    file.write_all(&vec![0xA5; (length - 4096) as usize])
        .unwrap();
    drop(file);

    let out = s.perflab().arg("history").output().unwrap();
    assert_exit(&out, 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("malformed")
            && err.contains("perflab store check --store .perflab/perflab.db")
            && err.contains(".recover"),
        "{err}"
    );

    let out = s.perflab().args(["store", "check"]).output().unwrap();
    assert_exit(&out, 1);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("damaged") && stdout.contains(".recover"),
        "{stdout}"
    );
}

#[test]
fn a_backup_made_while_an_experiment_writes_is_a_sound_store() {
    let s = measured("3");
    let mut writer = std::process::Command::new(env!("CARGO_BIN_EXE_perflab"))
        .current_dir(s.dir.path())
        .args([
            "run", "--name", "busy", "-r", "3000", "--warmup", "0", "true",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = s
        .perflab()
        .args(["store", "backup", "copy.db"])
        .output()
        .unwrap();
    let stdout = stdout_of_success(&out);
    assert!(stdout.contains("copy.db: a consistent copy of"), "{stdout}");
    assert!(writer.wait().unwrap().success());

    let out = s
        .perflab()
        .args(["--store", "copy.db", "store", "check"])
        .output()
        .unwrap();
    let stdout = stdout_of_success(&out);
    assert!(stdout.contains("copy.db: sound"), "{stdout}");

    // A backup never overwrites.
    let out = s
        .perflab()
        .args(["store", "backup", "copy.db"])
        .output()
        .unwrap();
    let err = stderr_of_refusal(&out);
    assert!(err.contains("copy.db exists"), "{err}");
}
