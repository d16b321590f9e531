//! The caller's work beside a run (`Executor::execute_beside`): done once
//! per run, while the command runs where a CPU is free for it.

use std::path::PathBuf;

use perflab_runner::{CommandLine, CpuSet, Executor, ProcessExecutor, RunSpec};

/// A folder of this test's own, removed when dropped.
struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Self {
        let path =
            std::env::temp_dir().join(format!("perflab-beside-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&path).expect("the temporary folder can be made");
        Folder(path)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn work_beside_a_run_is_done_once_while_its_command_runs_where_a_cpu_is_free() {
    let folder = Folder::new("running");
    let mark = folder.0.join("done");
    // The command leaves a mark once it is over: work that finds no mark
    // was done while it ran. A second is far longer than starting it takes,
    // also on a busy machine.
    let spec = RunSpec::new(CommandLine::Direct(vec![
        "sh".into(),
        "-c".into(),
        format!("sleep 1; touch '{}'", mark.display()),
    ]));
    let mut executor = ProcessExecutor::default();
    let mut calls = Vec::new();
    let outcome = executor
        .execute_beside(&spec, &mut || calls.push(mark.exists()))
        .expect("the run works");
    assert!(outcome.exit.success(), "{outcome:?}");
    let several_cpus = CpuSet::allowed().is_ok_and(|cpus| cpus.len() > 1);
    // On a single CPU the work waits for the run's end, as it would
    // otherwise take that CPU from the command.
    assert_eq!(
        calls,
        vec![!several_cpus],
        "the mark's presence at each call"
    );
}

#[test]
fn work_beside_a_run_that_cannot_start_is_done_once_all_the_same() {
    let folder = Folder::new("missing");
    let spec = RunSpec::new(CommandLine::Direct(vec![
        folder.0.join("no-such-program").display().to_string(),
    ]));
    let mut executor = ProcessExecutor::default();
    let mut calls = 0;
    let outcome = executor.execute_beside(&spec, &mut || calls += 1);
    assert!(outcome.is_err(), "{outcome:?}");
    assert_eq!(calls, 1);
}
