//! `perflab compare` on samples that already exist.

mod common;

use common::Scratch;

const ALLOCATOR_BASELINE: &str =
    "[45.52M, 44.88M, 44.95M, 45.83M, 45.84M, 45.32M, 45.31M, 45.20M, 45.55M, 45.06M]";
const ALLOCATOR_OPTIMISED: &str =
    "[48.19M, 44.62M, 47.32M, 46.39M, 46.93M, 47.42M, 47.19M, 47.12M, 47.32M, 46.89M]";

#[test]
fn the_allocator_samples_give_go_at_the_investigation_thresholds() {
    let s = Scratch::new();
    s.write("a.txt", ALLOCATOR_BASELINE);
    s.write("b.txt", ALLOCATOR_OPTIMISED);
    let out = s
        .perflab()
        .args([
            "compare", "a.txt", "b.txt", "--better", "higher", "--go", "1%", "--nogo", "-0.5%",
            "--json", "r.json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let json = s.json("r.json");
    assert_eq!(json["verdict"], "GO");
    assert!(json["ci"][0].as_f64().unwrap() >= 0.01);
}

/// stderr of `perflab compare a.txt b.txt` on these sample files, which
/// must be refused with exit 2.
fn refused(a: &str, b: &str) -> String {
    let s = Scratch::new();
    s.write("a.txt", a);
    s.write("b.txt", b);
    let out = s
        .perflab()
        .args(["compare", "a.txt", "b.txt"])
        .output()
        .unwrap();
    common::stderr_of_refusal(&out)
}

#[test]
fn a_sample_file_with_a_word_names_the_line() {
    assert!(refused("1.0\n1.1\nfast\n", "1.0\n1.2\n").contains("a.txt:3"));
}

#[test]
fn a_sample_file_with_one_value_is_refused() {
    assert!(refused("1.0\n", "1.0\n1.2\n").contains("at least 2"));
}

#[test]
fn constant_samples_are_refused_without_nan() {
    let err = refused("5\n5\n5\n", "5\n5\n5\n");
    assert!(err.contains("constant") && !err.contains("NaN"), "{err}");
}

#[test]
fn a_hyperfine_export_and_a_perflab_result_can_be_compared() {
    let s = Scratch::new();
    s.write(
        "h.json",
        r#"{"results":[{"command":"old","times":[1.00,1.02,0.99,1.01,1.00,1.03,0.98,1.01,1.00,1.02]},
                       {"command":"new","times":[0.80,0.81,0.79,0.82,0.80,0.81,0.80,0.79,0.81,0.80]}]}"#,
    );
    let out = s
        .perflab()
        .args(["compare", "h.json#old", "h.json#new", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let result = s.json("r.json");
    assert_eq!(result["verdict"], "GO");
    // hyperfine's times are wall times, and the result says so.
    assert_eq!(result["metric"]["name"], "wall");
    let out = s
        .perflab()
        .args(["compare", "h.json#old", "h.json#new", "--measure", "cpu"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("wall time of each run only"), "{stderr}");
    // The result itself is a valid input: each variant selected by name.
    let out = s
        .perflab()
        .args(["compare", "r.json#new", "r.json#old"])
        .output()
        .unwrap();
    common::assert_exit(&out, 3);
    // Without a selector, the choices are listed.
    let out = s
        .perflab()
        .args(["compare", "h.json", "h.json#new"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("#0 old, #1 new"));
}

#[test]
fn an_undecided_comparison_never_says_zero_more_runs_would_decide_it() {
    // 15 runs a side with about 11 % noise: the Moses interval straddles
    // +1 %, while a projection from the normal approximation alone would
    // already call it decided.
    let s = Scratch::new();
    s.write(
        "hf.json",
        r#"{"results":[
            {"command":"old","times":[0.934,0.943,1.065,1.152,0.935,1.104,0.922,0.939,1.157,0.934,0.991,0.934,1.255,0.91,0.941]},
            {"command":"new","times":[1.103,1.13,1.09,1.32,0.809,1.236,1.14,1.131,0.832,1.14,1.031,1.104,1.276,1.226,0.94]}]}"#,
    );
    let out = s
        .perflab()
        .args(["compare", "hf.json#0", "hf.json#1", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_exit(&out, 4);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("verdict: INCONCLUSIVE"), "{stdout}");
    assert!(!stdout.contains("about 0 more"), "{stdout}");
    let decision = &s.json("r.json")["decision"];
    assert_eq!(decision["verdict"], "INCONCLUSIVE");
    assert!(decision["runs_needed"].as_u64().unwrap() >= 1, "{decision}");
}

#[test]
fn results_of_different_metrics_are_not_compared() {
    let s = Scratch::new();
    let result = |metric: &str| {
        s.perflab()
            .args([
                "run",
                "--quiet",
                "--runs",
                "6",
                "--measure",
                metric,
                "--json",
            ])
            .arg(format!("{metric}.json"))
            .arg("true")
            .output()
            .unwrap()
    };
    assert_eq!(result("wall").status.code(), Some(0));
    assert_eq!(result("cpu").status.code(), Some(0));
    let out = s
        .perflab()
        .args(["compare", "wall.json", "cpu.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the baseline holds wall and the candidate cpu"),
        "{stderr}"
    );
    // Naming one metric both results have compares like with like.
    let out = s
        .perflab()
        .args(["compare", "wall.json", "cpu.json", "--measure", "wall"])
        .output()
        .unwrap();
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_large_compare_benchmark_script_reports_time_and_memory_on_a_small_input() {
    let s = Scratch::new();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts/bench-large-compare.sh");
    let out = std::process::Command::new(script)
        .args(["--values", "1000"])
        .args(["--perflab", env!("CARGO_BIN_EXE_perflab")])
        .current_dir(s.dir.path())
        .output()
        .unwrap();
    let stdout = common::stdout_of_success(&out);
    assert!(
        stdout.contains("load average") && stdout.contains("NO-GO"),
        "{stdout}"
    );
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("compare of 1000 values each: ")
            && last.contains(" s wall, ")
            && last.ends_with(" MB peak resident memory"),
        "{stdout}"
    );
}

/// The calling test thread pinned to one CPU, and at a nice value of its
/// own when one is given and allowed, until dropped: what it starts
/// (perflab, and through perflab the runs) inherits both. Both are
/// attributes of the thread on Linux, so the other tests' threads keep
/// theirs.
struct ThreadOn {
    affinity: libc::cpu_set_t,
    nice: Option<i32>,
}

impl ThreadOn {
    fn cpu(cpu: usize, nice: Option<i32>) -> Self {
        // SAFETY: the sets are local, zeroed sets are empty, and pid 0 is
        // the calling thread for sched_{get,set}affinity, getpriority and
        // setpriority alike.
        unsafe {
            let mut affinity: libc::cpu_set_t = std::mem::zeroed();
            let size = std::mem::size_of_val(&affinity);
            assert_eq!(libc::sched_getaffinity(0, size, &mut affinity), 0);
            let mut pinned: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut pinned);
            assert_eq!(libc::sched_setaffinity(0, size, &pinned), 0, "pin to {cpu}");
            let nice = nice.and_then(|n| {
                let before = libc::getpriority(libc::PRIO_PROCESS, 0);
                if libc::setpriority(libc::PRIO_PROCESS, 0, n) == 0 {
                    Some(before)
                } else {
                    eprintln!(
                        "could not set nice {n} ({}): the quiet side's runs share their CPU with \
                         whatever else runs there",
                        std::io::Error::last_os_error()
                    );
                    None
                }
            });
            ThreadOn { affinity, nice }
        }
    }
}

impl Drop for ThreadOn {
    fn drop(&mut self) {
        // SAFETY: as in `cpu`: the calling thread's own attributes.
        unsafe {
            libc::sched_setaffinity(0, std::mem::size_of_val(&self.affinity), &self.affinity);
            if let Some(nice) = self.nice {
                libc::setpriority(libc::PRIO_PROCESS, 0, nice);
            }
        }
    }
}

/// `perflab run` of a short CPU-bound command, 8 runs, its result in `json`.
fn run_side(s: &Scratch, json: &str) {
    let out = s
        .perflab()
        .args(["run", "--runs", "8", "--json", json, "--", "sh", "-c"])
        .arg(common::busy(30_000))
        .output()
        .unwrap();
    common::stdout_of_success(&out);
}

/// The median share of wall time the runs of result `json` waited for a CPU.
fn median_wait(s: &Scratch, json: &str) -> f64 {
    let doc = s.json(json);
    doc["variants"][0]["cpu_wait"]["median_share"]
        .as_f64()
        .unwrap_or_else(|| panic!("{json} records no CPU wait: {}", doc["variants"][0]))
}

/// `perflab compare BASELINE CANDIDATE`: its result document and output.
fn compared(s: &Scratch, baseline: &str, candidate: &str) -> (serde_json::Value, String) {
    let out = s
        .perflab()
        .args(["compare", baseline, candidate, "--json", "compared.json"])
        .output()
        .unwrap();
    let stdout = common::stdout_of_result(&out);
    (s.json("compared.json"), stdout)
}

/// compare's warnings about how long the sides waited for a CPU (a
/// result without warnings has no `warnings`).
fn cpu_wait_warnings(doc: &serde_json::Value) -> Vec<String> {
    doc["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w.as_str())
        .filter(|w| w.contains("waited for a CPU a median"))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_side_measured_while_busy_loops_held_its_cpu_is_named_beside_the_quiet_side_with_both_figures()
{
    if common::burners::skipped_without_cgroups() {
        return;
    }
    let s = Scratch::new();
    let cpu = common::burners::last_allowed_cpu();
    // The quiet sides' runs go on the same CPU at the highest priority, so
    // that the load of a busy machine barely delays them; the loaded
    // side's at the normal priority beside 8 busy loops pinned to that
    // CPU, which leave it at most a ninth of the CPU however busy the rest
    // of the machine is. The two sides then wait very differently on a
    // quiet machine and on a loaded one alike.
    let quiet = |json: &str| {
        let _on = ThreadOn::cpu(cpu, Some(-20));
        run_side(&s, json);
    };
    quiet("quiet.json");
    {
        let _on = ThreadOn::cpu(cpu, None);
        let _burners = common::burners::Burners::on_cpu(cpu, 8);
        run_side(&s, "loaded.json");
    }
    quiet("quiet-again.json");
    let loaded = median_wait(&s, "loaded.json");
    assert!(
        loaded > 0.5,
        "waited {loaded:.3} of wall time beside 8 busy loops"
    );

    let (doc, stdout) = compared(&s, "quiet.json", "loaded.json");
    // Each side's figures are carried into the comparison's document.
    for (i, side) in ["quiet.json", "loaded.json"].into_iter().enumerate() {
        assert_eq!(
            doc["variants"][i]["cpu_wait"],
            s.json(side)["variants"][0]["cpu_wait"],
            "{side}"
        );
    }
    let warnings = cpu_wait_warnings(&doc);
    assert_eq!(warnings.len(), 1, "{:?}", doc["warnings"]);
    assert!(
        warnings[0].starts_with("the candidate's runs (loaded.json) waited for a CPU a median ")
            && warnings[0].contains("the baseline's (quiet.json) ")
            && warnings[0].contains("the machine was busier while the candidate ran"),
        "{}",
        warnings[0]
    );
    assert!(
        stdout.contains("the machine was busier while the candidate ran"),
        "{stdout}"
    );

    // Two quiet sides: no such warning, unless the machine itself changed
    // so much between them that they did wait differently (the rule is
    // then applied to the figures the two results recorded).
    let (a, b) = (
        median_wait(&s, "quiet.json"),
        median_wait(&s, "quiet-again.json"),
    );
    let (doc, _) = compared(&s, "quiet.json", "quiet-again.json");
    let limit = perflab_stats::DEFAULT_MAX_CPU_WAIT;
    let differ = (a > limit) != (b > limit) || (a - b).abs() > limit;
    if differ {
        eprintln!(
            "the quiet sides waited {a:.3} and {b:.3} of their wall time: the machine changed"
        );
    }
    assert_eq!(
        cpu_wait_warnings(&doc).len(),
        usize::from(differ),
        "quiet sides waited {a:.3} and {b:.3}: {:?}",
        doc["warnings"]
    );
}

#[test]
fn inputs_without_a_cpu_wait_give_no_warning_about_it() {
    let s = Scratch::new();
    s.write("a.txt", ALLOCATOR_BASELINE);
    s.write("b.txt", ALLOCATOR_OPTIMISED);
    let (doc, _) = compared(&s, "a.txt", "b.txt");
    assert!(cpu_wait_warnings(&doc).is_empty(), "{:?}", doc["warnings"]);
    for variant in doc["variants"].as_array().unwrap() {
        assert!(variant.get("cpu_wait").is_none(), "{variant}");
    }
}
