//! `--max-cpu-wait` through the real binary: a threshold that is not a
//! share of wall time is refused with exit 2 naming the flag, and runs that
//! share their pinned CPU with busy loops wait for it, so that their blocks
//! are measured again, at most three times, and the result and the store
//! say so.

mod common;

use common::burners::{Burners, last_allowed_cpu};
use common::{Scratch, assert_exit, assert_reached_a_result};

#[test]
fn a_threshold_that_is_not_a_share_of_wall_time_is_refused_with_exit_2_naming_the_flag() {
    let s = Scratch::new();
    for (command, bad) in [
        (&["ab", "true", "true"][..], "0%"),
        (&["ab", "true", "true"][..], "150%"),
        (&["sweep", "-p", "n=1", "true {n}"][..], "often"),
    ] {
        let out = s
            .perflab()
            .args(command)
            .args(["--max-cpu-wait", bad, "--quiet"])
            .output()
            .unwrap();
        assert_exit(&out, 2);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("--max-cpu-wait") && stderr.contains("off"),
            "{stderr}"
        );
    }
}

#[test]
fn runs_sharing_their_cpu_with_busy_loops_are_measured_again_and_replaced_in_the_store() {
    let s = Scratch::new();
    let cpu = last_allowed_cpu();
    // Four busy loops on the runs' CPU: each run gets about a fifth of it
    // and waits for the rest, far above the 5% default.
    let _burners = Burners::on_cpu(cpu, 4);
    let work = "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done";
    let out = s
        .perflab()
        .args(["ab", work, work, "--pin", &cpu.to_string()])
        .args(["--min-runs", "2", "--max-runs", "2", "--warmup", "0"])
        .args(["--quiet", "--json", "r.json"])
        .output()
        .unwrap();
    assert_reached_a_result(&out);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.path("r.json")).unwrap()).unwrap();
    for v in doc["variants"].as_array().unwrap() {
        let median = v["cpu_wait"]["median_share"].as_f64().unwrap();
        assert!(median > 0.05, "{}: median wait {median}", v["name"]);
    }
    // Every block waited: each was measured again three times, then kept.
    let contention = &doc["contention"];
    assert_eq!(contention["blocks_kept_contended"], 2, "{contention}");
    assert_eq!(contention["blocks_measured_again"], 6, "{contention}");
    assert_eq!(contention["runs_replaced"], 12, "{contention}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Contention: 6 blocks measured again"),
        "{stdout}"
    );
    assert!(stdout.contains("waited for a CPU"), "{stdout}");
    let store = perflab_store::Store::open(&s.store()).unwrap();
    let id = doc["experiment_id"].as_i64().unwrap();
    assert_eq!(store.replaced_runs_of(id).unwrap().len(), 12);
    assert_eq!(store.count_runs(id).unwrap(), 4);
}
