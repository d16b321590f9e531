//! `--wait-quiet[=PRESSURE]`: before the first block and between blocks
//! every engine waits until the machine's CPU pressure (avg10 of "some" in
//! /proc/pressure/cpu) is below the threshold. A threshold that is met
//! starts at once; one never met stops at --max-time, keeps what was
//! measured and says why. These tests read the real pressure file; where
//! the kernel has none they say so and pass.

mod common;

use common::{Scratch, assert_exit, stderr_of_refusal};

fn no_pressure_here() -> bool {
    if std::fs::read_to_string("/proc/pressure/cpu").is_err() {
        eprintln!("skipped: this kernel publishes no CPU pressure (/proc/pressure/cpu)");
        return true;
    }
    false
}

#[test]
fn a_threshold_that_is_met_starts_every_block_at_once() {
    if no_pressure_here() {
        return;
    }
    let s = Scratch::new();
    // Pressure is a share of time: 100% is always met.
    let out = s
        .perflab()
        .args(["ab", "true", "--wait-quiet=100%"])
        .args(["--min-runs", "3", "--max-runs", "3", "--warmup", "0"])
        .args(["--quiet", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("waiting for a quiet machine"), "{stderr}");
    let result = s.json("r.json");
    let waits = &result["machine"]["quiet_wait"];
    assert_eq!(waits["threshold"], 1.0, "{waits}");
    assert_eq!(waits["blocks_waited"], 0, "{waits}");
    assert_eq!(waits["gave_up"], false, "{waits}");
    assert_eq!(result["variants"][0]["runs"], 3, "{result}");
}

#[test]
fn a_threshold_never_met_stops_at_max_time_keeping_what_was_measured_and_says_why() {
    if no_pressure_here() {
        return;
    }
    let s = Scratch::new();
    // No pressure is below 0%.
    let out = s
        .perflab()
        .args(["ab", "true", "--wait-quiet=0%", "--max-time", "1s"])
        .args(["--min-runs", "2", "--max-runs", "10"])
        .args(["--quiet", "--json", "r.json"])
        .output()
        .unwrap();
    assert_exit(&out, 4);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "perflab: waiting for a quiet machine: CPU pressure is " // the pressure now
        ) && stderr.contains("--wait-quiet wants it below 0.0%; --max-time leaves "),
        "{stderr}"
    );
    assert!(
        stderr.contains("perflab: --max-time ran out while waiting for a quiet machine"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("machine state: waited ")
            && stdout.contains("the time limit ran out while waiting"),
        "{stdout}"
    );
    let result = s.json("r.json");
    let waits = &result["machine"]["quiet_wait"];
    assert_eq!(waits["gave_up"], true, "{waits}");
    assert_eq!(waits["blocks_waited"], 1, "{waits}");
    // Stopped like a time limit: a complete result of what was measured.
    assert_eq!(result["status"], "complete", "{result}");
    // The experiment is in the store with its warm-up runs, nothing lost.
    let out = s.perflab().args(["history"]).output().unwrap();
    assert_exit(&out, 0);
}

#[test]
fn the_same_wait_holds_a_sweep_a_suite_and_a_threshold_in_the_experiment_file() {
    if no_pressure_here() {
        return;
    }
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["sweep", "-p", "n=1,2", "true {n}", "--wait-quiet=0%"])
        .args(["--max-time", "1s", "--quiet", "--json", "sweep.json"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--max-time ran out while waiting for a quiet machine"),
        "{stderr}"
    );
    assert_eq!(
        s.json("sweep.json")["machine"]["quiet_wait"]["gave_up"],
        true
    );
    s.write(
        "perflab.toml",
        "wait_quiet = \"100%\"\nmin_runs = 2\nmax_runs = 2\nwarmup = 0\n\
         [[variant]]\ncommand = \"true\"\n[[variant]]\ncommand = \"true\"\n",
    );
    let out = s
        .perflab()
        .args(["ab", "-f", "perflab.toml", "--quiet", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    assert_eq!(s.json("r.json")["machine"]["quiet_wait"]["threshold"], 1.0);
    // A suite's blocks wait the same way.
    s.write(
        "suite.toml",
        "wait_quiet = \"0%\"\nmax_time = \"1s\"\n\
         [[variant]]\nname = \"a\"\n[[variant]]\nname = \"b\"\n\
         [[scenario]]\nname = \"x\"\ncommand = \"true\"\n",
    );
    let out = s
        .perflab()
        .args(["ab", "-f", "suite.toml", "--quiet", "--json", "suite.json"])
        .output()
        .unwrap();
    assert_exit(&out, 4);
    assert_eq!(
        s.json("suite.json")["machine"]["quiet_wait"]["gave_up"],
        true
    );
}

#[test]
fn a_threshold_that_is_not_a_pressure_is_refused_naming_the_flag() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["ab", "true", "--wait-quiet=150%", "--quiet"])
        .output()
        .unwrap();
    let err = stderr_of_refusal(&out);
    assert!(
        err.contains("--wait-quiet: '150%' is not a CPU pressure between 0% and 100%"),
        "{err}"
    );
}
