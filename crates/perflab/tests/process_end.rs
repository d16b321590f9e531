//! How a session ends in a real process: `std::process::exit`, a normal
//! return through `#[perflab::main]`, and profile paths that cannot be
//! written. Each scenario runs this test binary again as a child process
//! (selected by an environment variable), so that process-wide sessions and
//! exit hooks do not meet the other tests.

mod common;

use common::spin;
use perflab::profile::{Profile, SessionEnd, SessionScope};
use std::process::{Command, Output};

const SCENARIO_ENV: &str = "PERFLAB_TEST_SCENARIO";

fn run_scenario(scenario: &str, profile_path: &std::path::Path) -> Output {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "scenario_entry",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SCENARIO_ENV, scenario)
        .env(perflab::profile::PROFILE_ENV, profile_path)
        .env_remove(perflab::TABLE_ENV)
        .output()
        .unwrap()
}

#[perflab::measure(name = "phase")]
fn phase() -> u64 {
    spin(1)
}

#[perflab::main(name = "attribute_main")]
fn instrumented_main() {
    phase();
}

/// Entry point of the child processes; does nothing in a normal test run.
#[test]
fn scenario_entry() {
    let Ok(scenario) = std::env::var(SCENARIO_ENV) else {
        return;
    };
    match scenario.as_str() {
        "exit" => {
            let _session = perflab::Session::start();
            phase();
            // An unattached thread records into the process-wide session.
            std::thread::spawn(|| {
                phase();
                phase();
            })
            .join()
            .unwrap();
            std::process::exit(3);
        }
        "main_attribute" => instrumented_main(),
        "unwritable" => {
            let session = perflab::Session::builder().print_table(false).start();
            phase();
            assert!(session.finish().is_some());
            println!("the program carried on");
        }
        other => panic!("unknown scenario {other}"),
    }
}

#[test]
fn a_program_that_calls_process_exit_still_writes_its_profile() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("exit.json");
    let output = run_scenario("exit", &path);
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let profile = Profile::read(&path).unwrap();
    assert_eq!(profile.session.ended_by, SessionEnd::ProcessExit);
    assert_eq!(profile.session.scope, SessionScope::Process);
    let phase = profile.span("phase").unwrap();
    assert_eq!((phase.calls, phase.threads), (3, 2));
    assert!(profile.threads.iter().any(|thread| thread.ended));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("incl/wall"),
        "the table is printed: {stderr}"
    );
}

#[test]
fn main_with_the_attribute_reports_when_it_returns() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("main.json");
    let output = run_scenario("main_attribute", &path);
    assert!(output.status.success(), "{output:?}");
    let profile = Profile::read(&path).unwrap();
    assert_eq!(profile.session.name, "attribute_main");
    assert_eq!(profile.session.ended_by, SessionEnd::Finished);
    assert_eq!(profile.span("phase").unwrap().calls, 1);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("can exceed 100%"), "{stderr}");
}

fn assert_carries_on_after_failing_to_write(path: &std::path::Path) {
    let output = run_scenario("unwritable", path);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.contains("the program carried on"), "{stdout}");
    assert!(
        stderr.contains(&format!(
            "perflab: could not write the profile to {}",
            path.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("PERFLAB_PROFILE"),
        "the message says what to fix: {stderr}"
    );
}

#[test]
fn a_profile_path_in_a_missing_directory_is_reported_and_the_program_carries_on() {
    let directory = tempfile::tempdir().unwrap();
    assert_carries_on_after_failing_to_write(&directory.path().join("missing/profile.json"));
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_reported_and_the_program_carries_on() {
    // /dev/full fails every write with ENOSPC, as a full disk does.
    assert_carries_on_after_failing_to_write(std::path::Path::new("/dev/full"));
}
