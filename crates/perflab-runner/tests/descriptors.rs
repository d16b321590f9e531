//! The executor's open descriptors stay bounded however many runs it
//! makes: the pipes and pidfd it keeps past a run (closed once the next run
//! started, with the next run's pipes made ahead) are closed in turn.
//!
//! A test binary of its own: the whole process's descriptors are counted,
//! which tests running beside this one in the same process would change.

use perflab_runner::{CommandLine, Executor, ProcessExecutor, RunSpec};

/// How many descriptors this process has open.
fn open_descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .expect("/proc/self/fd lists this process's descriptors")
        .count()
}

#[test]
fn runs_leave_no_descriptors_behind_however_many_there_are() {
    let spec = RunSpec::new(CommandLine::Direct(vec![
        "sh".into(),
        "-c".into(),
        "echo out; echo err >&2".into(),
    ]));
    let mut executor = ProcessExecutor::default();
    let mut run = |times: usize| {
        for _ in 0..times {
            let outcome = executor.execute(&spec).expect("the run works");
            assert!(outcome.exit.success(), "{outcome:?}");
            assert_eq!(outcome.output_tail, "out\nerr");
        }
    };
    run(5);
    let after_five = open_descriptors();
    run(40);
    let after_forty_five = open_descriptors();
    // The last run's pidfd is kept only where it could be opened: a run
    // may be over before perflab asks for one.
    assert!(
        after_forty_five.abs_diff(after_five) <= 1,
        "descriptors open after 5 runs ({after_five}) and after 45 ({after_forty_five})"
    );
}
