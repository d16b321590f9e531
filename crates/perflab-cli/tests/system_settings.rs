//! `perflab system show | tune | reset`: every setting that helps or hurts
//! measurements is shown with what was found, why and what to do (those
//! the machine lacks as "not available here"); `tune` changes a real
//! setting after saving it, and `reset` puts it back. `tune` needs root:
//! that test says so and passes when not root (the CI runs as root), and
//! its guard puts the setting back even when it fails.

mod common;

use common::machine::{MachineGuard, is_root, read};
use common::{Scratch, stderr_of_refusal, stdout_of_success};

const SAMPLE_RATE: &str = "/proc/sys/kernel/perf_event_max_sample_rate";

#[test]
fn system_show_prints_every_setting_with_what_was_found_why_and_what_to_do() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["system", "show", "--json", "system.json"])
        .output()
        .unwrap();
    let stdout = stdout_of_success(&out);
    let names = [
        "CPU frequency governor: ",
        "Turbo/boost: ",
        "Simultaneous multithreading (SMT): ",
        "Address space layout randomisation (ASLR): ",
        "Isolated CPUs: ",
        "Tickless CPUs (nohz_full): ",
        "Interrupt affinity: ",
        "perf sampling rate limit: ",
        "Load average: ",
        "CPU pressure: ",
    ];
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), names.len(), "{stdout}");
    for (line, name) in lines.iter().zip(names) {
        assert!(line.contains(name), "{name} in {line}");
        assert!(
            line.contains(". Why: ") && line.contains(". Recommended: "),
            "{line}"
        );
        let state = line.split_whitespace().next().unwrap();
        assert!(["ok", "check", "not-available"].contains(&state), "{line}");
        if state == "not-available" {
            assert!(
                line.contains(&format!("{name}not available here")),
                "{line}"
            );
        }
    }
    // What this machine has is read from where Linux keeps it.
    let aslr = read("/proc/sys/kernel/randomize_va_space");
    if aslr == "2" {
        assert!(stdout.contains("ASLR): full randomisation (2)"), "{stdout}");
    }
    let rate = read(SAMPLE_RATE);
    if !rate.is_empty() {
        assert!(
            stdout.contains(&format!(
                "perf sampling rate limit: {rate} samples per second"
            )),
            "{stdout}"
        );
    }
    let doc = s.json("system.json");
    assert_eq!(doc["format"], "perflab-system/1");
    assert_eq!(doc["settings"].as_array().unwrap().len(), names.len());
    // The machine's settings need no store.
    assert!(!s.store().exists());
}

#[test]
fn system_tune_lowers_the_perf_sampling_rate_and_reset_puts_back_the_value_it_replaced() {
    if !is_root() {
        eprintln!("skipped: not root: perflab system tune needs root (the CI runs as root)");
        return;
    }
    if read(SAMPLE_RATE).is_empty() {
        eprintln!("skipped: no {SAMPLE_RATE} on this kernel");
        return;
    }
    let mut guard = MachineGuard::take();
    guard.keep_setting(SAMPLE_RATE);
    // A value tune lowers, whatever the machine had.
    std::fs::write(SAMPLE_RATE, "50000").unwrap();
    let s = Scratch::new();
    let perflab = |action: &str| {
        s.perflab()
            .env("PERFLAB_RUN_DIR", guard.run_dir.path())
            .args(["system", action])
            .output()
            .unwrap()
    };
    let tuned = stdout_of_success(&perflab("tune"));
    assert!(
        tuned.contains("set the perf sampling rate limit to 1000 (was 50000)"),
        "{tuned}"
    );
    assert_eq!(read(SAMPLE_RATE), "1000");
    let state = guard.run_dir.path().join("tune.json");
    assert!(
        std::fs::read_to_string(&state)
            .unwrap()
            .contains("\"before\": \"50000\"")
    );
    // Tuning again keeps the value from before the first tune.
    stdout_of_success(&perflab("tune"));
    let reset = stdout_of_success(&perflab("reset"));
    assert!(
        reset.contains("set the perf sampling rate limit back to 50000"),
        "{reset}"
    );
    assert_eq!(read(SAMPLE_RATE), "50000");
    assert!(!state.exists());
    let again = stdout_of_success(&perflab("reset"));
    assert!(again.starts_with("nothing to reset"), "{again}");
}

#[test]
fn system_tune_and_reset_are_refused_without_root_naming_root() {
    let s = Scratch::new();
    for action in ["tune", "reset"] {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_perflab"));
        command
            .current_dir(s.dir.path())
            .env("PERFLAB_RUN_DIR", s.path("run"))
            .args(["system", action]);
        if is_root() {
            use std::os::unix::process::CommandExt;
            command.uid(65534).gid(65534);
        }
        let out = match command.output() {
            Ok(out) => out,
            Err(e) => {
                eprintln!("skipped: perflab cannot run as user 65534 here: {e}");
                return;
            }
        };
        let err = stderr_of_refusal(&out);
        assert!(
            err.contains(&format!("system {action}: must run as root")),
            "{err}"
        );
    }
    assert!(!s.path("run").exists());
}

#[test]
fn system_check_says_quiet_below_its_limits_and_busy_above_them_with_exit_1() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args([
            "system",
            "check",
            "--max-load",
            "1000",
            "--max-pressure",
            "100%",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("quiet: load "), "{text}");
    assert!(text.contains("1-minute load average"), "{text}");
    let load: f64 = read("/proc/loadavg")
        .split_whitespace()
        .next()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0.0);
    if load > 0.0 {
        // Half the load per CPU now: a 1-minute average cannot halve in the
        // moment it takes to start perflab.
        let limit = format!("{}", load / 1024.0 / 2.0);
        let out = s
            .perflab()
            .args(["system", "check", "--max-load", &limit])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(text.starts_with("busy: load "), "{text}");
    }
}

#[test]
fn system_check_refuses_a_limit_that_is_not_one_naming_the_flag() {
    let s = Scratch::new();
    for (flag, value) in [
        ("--max-load", "0"),
        ("--max-pressure", "lots"),
        ("--wait", "soon"),
    ] {
        let err = stderr_of_refusal(
            &s.perflab()
                .args(["system", "check", flag, value])
                .output()
                .unwrap(),
        );
        assert!(err.contains(flag), "{flag}: {err}");
    }
}
