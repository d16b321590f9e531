//! The caller's work beside a run (`Executor::execute_beside`): done once
//! per run, while the command runs where a CPU is free for it and the
//! command cannot fill its output pipe meanwhile.

use std::path::{Path, PathBuf};

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

/// A run of `sh -c SCRIPT`.
fn shell(script: &str) -> RunSpec {
    RunSpec::new(CommandLine::Direct(vec![
        "sh".into(),
        "-c".into(),
        script.into(),
    ]))
}

/// A command that first prints `bytes` bytes, then leaves `mark` once it
/// is over, a second later: work that finds no mark was done while it ran.
/// A second is far longer than starting it takes, also on a busy machine.
fn printing_then_marking(bytes: usize, mark: &Path) -> RunSpec {
    shell(&format!(
        "head -c {bytes} /dev/zero; sleep 1; touch '{}'",
        mark.display()
    ))
}

/// Whether `mark` was there when the work beside a run of `spec` was done,
/// at each time it was.
fn mark_seen_beside(executor: &mut ProcessExecutor, spec: &RunSpec, mark: &Path) -> Vec<bool> {
    let _ = std::fs::remove_file(mark);
    let mut calls = Vec::new();
    let outcome = executor
        .execute_beside(spec, &mut || calls.push(mark.exists()))
        .expect("the run works");
    assert!(outcome.exit.success(), "{outcome:?}");
    calls
}

fn several_cpus() -> bool {
    CpuSet::allowed().is_ok_and(|cpus| cpus.len() > 1)
}

#[test]
fn work_beside_a_run_is_done_once_while_its_command_runs_where_a_cpu_is_free() {
    let folder = Folder::new("running");
    let mark = folder.0.join("done");
    let spec = printing_then_marking(0, &mark);
    let mut executor = ProcessExecutor::default();
    // Before the first run, what the command writes is not known: the work
    // waits for the run's end.
    assert_eq!(mark_seen_beside(&mut executor, &spec, &mark), vec![true]);
    // On a single CPU it always does, as it would take that CPU from the
    // command.
    assert_eq!(
        mark_seen_beside(&mut executor, &spec, &mark),
        vec![!several_cpus()]
    );
}

#[test]
fn work_beside_a_run_waits_for_its_end_after_a_run_that_wrote_much_output() {
    let folder = Folder::new("output");
    let mark = folder.0.join("done");
    let quiet = printing_then_marking(100, &mark);
    let loud = printing_then_marking(200_000, &mark);
    let mut executor = ProcessExecutor::default();
    mark_seen_beside(&mut executor, &quiet, &mark);
    // After a quiet run, the work is done beside the loud one...
    assert_eq!(
        mark_seen_beside(&mut executor, &loud, &mark),
        vec![!several_cpus()]
    );
    // ...whose output then keeps it off the next run.
    assert_eq!(mark_seen_beside(&mut executor, &loud, &mark), vec![true]);
    assert_eq!(mark_seen_beside(&mut executor, &quiet, &mark), vec![true]);
    assert_eq!(
        mark_seen_beside(&mut executor, &quiet, &mark),
        vec![!several_cpus()]
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
