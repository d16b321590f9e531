//! `perflab ab --pin CPUS` (and `pin = ...` in perflab.toml): every run,
//! its whole process tree included, sees only the CPUs it was pinned to;
//! lists that are not CPU lists, or name CPUs perflab may not use, are
//! refused with exit 2 naming the flag.

mod common;

use common::{Scratch, assert_exit};

/// What perflab itself may run on, as Linux prints it.
fn allowed_list() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("Cpus_allowed_list:"))
        .unwrap();
    line.split_whitespace().nth(1).unwrap().to_string()
}

/// The highest CPU perflab may run on: pinning there changes what the runs
/// see whenever the machine gives perflab more than one CPU.
fn last_allowed_cpu() -> String {
    let list = allowed_list();
    let last = list.rsplit(',').next().unwrap();
    last.rsplit('-').next().unwrap().to_string()
}

/// A command whose shell starts a child (grep) that appends the CPUs it
/// may run on to seen.txt, once per run.
const RECORD_CPUS: &str = "grep Cpus_allowed_list /proc/self/status >> seen.txt";

fn seen_cpus(s: &Scratch) -> Vec<String> {
    std::fs::read_to_string(s.path("seen.txt"))
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().nth(1).unwrap_or("").to_string())
        .collect()
}

#[test]
fn every_run_of_a_pinned_experiment_sees_only_the_pinned_cpu() {
    let s = Scratch::new();
    let cpu = last_allowed_cpu();
    let out = s
        .perflab()
        .args([
            "ab",
            RECORD_CPUS,
            "--pin",
            &cpu,
            "--max-runs",
            "3",
            "--min-runs",
            "3",
        ])
        // Every run is recorded: a block measured again on a busy machine
        // would add runs.
        .args(["--max-cpu-wait", "off"])
        .args(["--quiet", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let seen = seen_cpus(&s);
    // One warm-up and three measured runs of each variant.
    assert_eq!(seen.len(), 8, "{seen:?}");
    assert!(seen.iter().all(|c| *c == cpu), "pinned to {cpu}: {seen:?}");
    assert_eq!(s.json("r.json")["machine"]["pinned"], cpu.as_str());
}

#[test]
fn runs_without_a_pin_see_every_cpu_perflab_may_use() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "ab",
            RECORD_CPUS,
            "--max-runs",
            "2",
            "--min-runs",
            "2",
            "--quiet",
        ])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let allowed = allowed_list();
    assert!(seen_cpus(&s).iter().all(|c| *c == allowed));
}

#[test]
fn the_pin_of_an_experiment_file_reaches_the_runs() {
    let s = Scratch::new();
    let cpu = last_allowed_cpu();
    s.write(
        "perflab.toml",
        &format!(
            "pin = \"{cpu}\"\nmin_runs = 2\nmax_runs = 2\nwarmup = 0\nmax_cpu_wait = \"off\"\n\
             [[variant]]\ncommand = \"{RECORD_CPUS}\"\n[[variant]]\ncommand = \"{RECORD_CPUS}\"\n"
        ),
    );
    let out = s
        .perflab()
        .args(["ab", "-f", "perflab.toml", "--quiet"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let seen = seen_cpus(&s);
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert!(seen.iter().all(|c| *c == cpu), "{seen:?}");
}

#[test]
fn a_list_that_is_not_a_cpu_list_is_refused_naming_the_flag() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["ab", "true", "--pin", "first"])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--pin: 'first' is not a CPU list"), "{err}");
    assert!(!s.path("seen.txt").exists());
}

#[test]
fn a_cpu_perflab_may_not_use_is_refused_before_any_run() {
    let s = Scratch::new();
    let beyond = last_allowed_cpu().parse::<usize>().unwrap() + 1;
    let out = s
        .perflab()
        .args(["ab", RECORD_CPUS, "--pin", &beyond.to_string()])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "--pin: CPU {beyond} is not among the CPUs perflab may run on ({}",
            allowed_list()
        )),
        "{err}"
    );
    assert!(!s.path("seen.txt").exists(), "a run was made");
}

#[test]
fn a_bad_pin_in_an_experiment_file_names_its_line() {
    let s = Scratch::new();
    s.write(
        "perflab.toml",
        "pin = \"0-\"\n[[variant]]\ncommand = \"true\"\n[[variant]]\ncommand = \"true\"\n",
    );
    let out = s
        .perflab()
        .args(["ab", "-f", "perflab.toml"])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("perflab.toml:1:7: pin: '0-' is not a CPU list"),
        "{err}"
    );
}

#[test]
fn the_runs_of_a_suite_are_pinned_and_its_result_records_the_pin() {
    let s = Scratch::new();
    let cpu = last_allowed_cpu();
    s.write(
        "suite.toml",
        &format!(
            "pin = \"{cpu}\"\nmin_runs = 2\nmax_runs = 2\nwarmup = 0\nmax_cpu_wait = \"off\"\n\
             [[variant]]\nname = \"a\"\n[[variant]]\nname = \"b\"\n\
             [[scenario]]\nname = \"x\"\ncommand = \"{RECORD_CPUS}\"\n"
        ),
    );
    let out = s
        .perflab()
        .args(["ab", "-f", "suite.toml", "--quiet", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let seen = seen_cpus(&s);
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert!(seen.iter().all(|c| *c == cpu), "{seen:?}");
    assert_eq!(s.json("r.json")["machine"]["pinned"], cpu.as_str());
}
