//! `--shield CPUS`: for the experiment's duration every other process of
//! the machine is confined to the other CPUs (a real `sleep` started
//! before moves, and comes back after), other cpuset cgroups are narrowed,
//! the runs go on the shielded CPUs, and everything is undone at the end;
//! after `kill -9` of perflab, by the next perflab command. Refusals name
//! what is missing, with exit 2.
//!
//! These tests change the whole machine's cpusets and interrupts, one at
//! a time, for a second or two each; a [`MachineGuard`] puts everything
//! back even when a test fails. Those that need root say so and pass when
//! not root (the CI runs as root).

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::machine::{MachineGuard, cannot_shield_here, is_root, online_cpus, placement, read};
use common::{Scratch, assert_reached_a_result, stderr_of_refusal};

/// The CPU to shield (the last one online) and the list of the others.
fn shield_and_rest() -> (String, String) {
    let mut cpus = online_cpus();
    let shield = cpus.pop().expect("a CPU online");
    let rest: Vec<String> = cpus.iter().map(ToString::to_string).collect();
    let rest = perflab_runner::CpuSet::parse(&rest.join(","))
        .expect("a CPU list")
        .to_string();
    (shield.to_string(), rest)
}

fn skip(why: &str) {
    eprintln!("skipped: {why}");
}

fn irq_affinities() -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = std::fs::read_dir("/proc/irq")
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.path().join("smp_affinity_list").exists())
                .map(|e| {
                    let path = e.path().join("smp_affinity_list");
                    (path.display().to_string(), read(&path))
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

#[test]
fn a_shield_confines_a_running_process_to_the_other_cpus_during_the_runs_and_lets_it_go_after() {
    if let Some(why) = cannot_shield_here() {
        return skip(&why);
    }
    let mut guard = MachineGuard::take();
    let s = Scratch::new();
    let (cpu, rest) = shield_and_rest();
    let sleeper = guard.sleeper();
    let before = placement(sleeper);
    let irqs_before = irq_affinities();
    // Every run writes down where the sleeper is and where the run itself may go.
    let command = format!(
        "cat /proc/{sleeper}/cpuset >> during.txt; grep Cpus_allowed_list /proc/{sleeper}/status >> during.txt; \
         grep Cpus_allowed_list /proc/self/status >> runs.txt"
    );
    let out = s
        .perflab()
        .env("PERFLAB_RUN_DIR", guard.run_dir.path())
        .args(["ab", &command, "--shield", &cpu])
        .args(["--min-runs", "2", "--max-runs", "2", "--warmup", "0"])
        // Every run writes its lines: a block measured again (a short run
        // waits more than 5% on a busy machine even when shielded) would
        // add some.
        .args(["--max-cpu-wait", "off"])
        .args(["--quiet", "--json", "r.json"])
        .output()
        .unwrap();
    assert_reached_a_result(&out);
    let during = std::fs::read_to_string(s.path("during.txt")).unwrap();
    let lines: Vec<&str> = during.lines().collect();
    assert_eq!(lines.len(), 8, "{during}");
    for pair in lines.chunks(2) {
        assert_eq!(pair[0], "/perflab-system", "{during}");
        assert_eq!(
            pair[1].split_whitespace().nth(1),
            Some(rest.as_str()),
            "{during}"
        );
    }
    let runs = std::fs::read_to_string(s.path("runs.txt")).unwrap();
    assert!(
        runs.lines()
            .all(|l| l.split_whitespace().nth(1) == Some(cpu.as_str())),
        "the runs go on the shielded CPU {cpu}: {runs}"
    );
    // Everything is back.
    assert_eq!(placement(sleeper), before);
    assert_eq!(irq_affinities(), irqs_before);
    assert!(!guard.run_dir.path().join("shield.json").exists());
    let root = perflab_cli::system::cpuset::Hierarchy::find().unwrap().root;
    assert!(!root.join("perflab-system").exists());
    // The output and the result say so.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "machine state: the runs had CPUs {cpu} to themselves"
        )),
        "{stdout}"
    );
    let machine = &s.json("r.json")["machine"];
    assert_eq!(machine["shield"]["cpus"], cpu.as_str(), "{machine}");
    assert_eq!(machine["shield"]["rest"], rest.as_str(), "{machine}");
    assert_eq!(machine["pinned"], cpu.as_str(), "{machine}");
    assert!(
        machine["shield"]["processes_moved"].as_u64() >= Some(1),
        "{machine}"
    );
}

#[test]
fn a_cpuset_cgroup_of_its_own_is_narrowed_to_the_other_cpus_and_widened_after() {
    if let Some(why) = cannot_shield_here() {
        return skip(&why);
    }
    let h = perflab_cli::system::cpuset::Hierarchy::find().unwrap();
    if h.version != perflab_cli::system::cpuset::Version::V1 {
        return skip(
            "the cpuset hierarchy is cgroup v2, where only the root's children are narrowed",
        );
    }
    let mut guard = MachineGuard::take();
    let s = Scratch::new();
    let (cpu, rest) = shield_and_rest();
    let all = read("/sys/devices/system/cpu/online");
    let cgroup = guard.cgroup("perflab-test-service", &all);
    let sleeper = guard.sleeper();
    std::fs::write(cgroup.join("cgroup.procs"), sleeper.to_string()).unwrap();
    let before = placement(sleeper);
    assert_eq!(before.0, "/perflab-test-service");
    let command = format!(
        "cat {}/cpuset.cpus >> during.txt; grep Cpus_allowed_list /proc/{sleeper}/status >> during.txt",
        cgroup.display()
    );
    let out = s
        .perflab()
        .env("PERFLAB_RUN_DIR", guard.run_dir.path())
        .args(["ab", &command, "--shield", &cpu])
        .args(["--min-runs", "2", "--max-runs", "2", "--warmup", "0"])
        .args(["--quiet", "--json", "r.json"])
        .output()
        .unwrap();
    assert_reached_a_result(&out);
    let during = std::fs::read_to_string(s.path("during.txt")).unwrap();
    for pair in during.lines().collect::<Vec<_>>().chunks(2) {
        assert_eq!(pair[0], rest, "the cgroup's CPUs: {during}");
        assert_eq!(pair[1].split_whitespace().nth(1), Some(rest.as_str()));
    }
    // It kept its process, and has its CPUs back.
    assert_eq!(placement(sleeper), before);
    assert_eq!(read(cgroup.join("cpuset.cpus")), all);
    assert!(
        s.json("r.json")["machine"]["shield"]["cgroups_narrowed"].as_u64() >= Some(1),
        "{}",
        s.json("r.json")["machine"]
    );
}

#[test]
fn a_shield_left_by_a_killed_perflab_is_undone_by_the_next_perflab_command() {
    if let Some(why) = cannot_shield_here() {
        return skip(&why);
    }
    let mut guard = MachineGuard::take();
    let s = Scratch::new();
    let (cpu, rest) = shield_and_rest();
    let sleeper = guard.sleeper();
    let before = placement(sleeper);
    let state = guard.run_dir.path().join("shield.json");
    let mut perflab = std::process::Command::new(env!("CARGO_BIN_EXE_perflab"))
        .current_dir(s.dir.path())
        .env_remove("PERFLAB_STORE")
        .env("PERFLAB_RUN_DIR", guard.run_dir.path())
        .args(["ab", "sleep 0.2", "--shield", &cpu])
        .args(["--min-runs", "40", "--max-runs", "40", "--quiet"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let waited = Instant::now();
    while placement(sleeper).0 != "/perflab-system" {
        assert!(
            waited.elapsed() < Duration::from_secs(120),
            "the shield never came up"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // A second shield is refused while the first one's perflab lives.
    let second = s
        .perflab()
        .env("PERFLAB_RUN_DIR", guard.run_dir.path())
        .args(["ab", "true", "--shield", &cpu, "--quiet"])
        .output()
        .unwrap();
    let refusal = stderr_of_refusal(&second);
    assert!(
        refusal.contains(&format!("perflab process {} holds a shield", perflab.id())),
        "{refusal}"
    );
    // kill -9: perflab cannot undo anything.
    perflab.kill().unwrap();
    perflab.wait().unwrap();
    assert_eq!(placement(sleeper).1, rest, "still confined after kill -9");
    assert!(state.exists());
    let out = s
        .perflab()
        .env("PERFLAB_RUN_DIR", guard.run_dir.path())
        .args(["history"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "undid the shield of CPUs {cpu} that perflab process {} left",
            perflab.id()
        )),
        "{stderr}"
    );
    assert_eq!(placement(sleeper), before);
    assert!(!state.exists());
    let root = perflab_cli::system::cpuset::Hierarchy::find().unwrap().root;
    assert!(!root.join("perflab-system").exists());
}

#[test]
fn a_shield_is_undone_when_the_experiment_is_interrupted_or_a_run_fails() {
    if let Some(why) = cannot_shield_here() {
        return skip(&why);
    }
    let mut guard = MachineGuard::take();
    let s = Scratch::new();
    let (cpu, _) = shield_and_rest();
    let sleeper = guard.sleeper();
    let before = placement(sleeper);
    let state = guard.run_dir.path().join("shield.json");
    // Ctrl-C (SIGINT) in the middle of the runs.
    let perflab = std::process::Command::new(env!("CARGO_BIN_EXE_perflab"))
        .current_dir(s.dir.path())
        .env_remove("PERFLAB_STORE")
        .env("PERFLAB_RUN_DIR", guard.run_dir.path())
        .args(["ab", "sleep 0.2", "--shield", &cpu])
        .args(["--min-runs", "40", "--max-runs", "40", "--quiet"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let waited = Instant::now();
    while placement(sleeper).0 != "/perflab-system" {
        assert!(
            waited.elapsed() < Duration::from_secs(120),
            "the shield never came up"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(perflab.id() as libc::pid_t, libc::SIGINT) };
    let out = perflab.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(placement(sleeper), before);
    assert!(!state.exists());
    // A run that fails ends the experiment with an error, and the shield.
    let out = s
        .perflab()
        .env("PERFLAB_RUN_DIR", guard.run_dir.path())
        .args(["ab", "exit 3", "--shield", &cpu, "--quiet"])
        .output()
        .unwrap();
    let err = stderr_of_refusal(&out);
    assert!(err.contains("exited with code 3"), "{err}");
    assert_eq!(placement(sleeper), before);
    assert!(!state.exists());
}

#[test]
fn shields_that_cannot_be_are_refused_naming_what_is_missing() {
    // The CPU list is checked once root and a cpuset are there.
    if let Some(why) = cannot_shield_here() {
        return skip(&why);
    }
    let _guard = MachineGuard::take();
    let s = Scratch::new();
    let cpus = online_cpus();
    let all = perflab_runner::CpuSet::parse(&read("/sys/devices/system/cpu/online"))
        .unwrap()
        .to_string();
    let refused = |args: &[&str]| {
        stderr_of_refusal(
            &s.perflab()
                .env("PERFLAB_RUN_DIR", s.path("run"))
                .args(["ab", "true", "--quiet"])
                .args(args)
                .output()
                .unwrap(),
        )
    };
    let err = refused(&["--shield", &all]);
    assert!(
        err.contains(&format!(
            "--shield: {all} leaves no CPU for the rest of the machine"
        )),
        "{err}"
    );
    let beyond = (cpus.last().unwrap() + 1).to_string();
    let err = refused(&["--shield", &beyond]);
    assert!(
        err.contains(&format!("--shield: CPU {beyond} is not online")),
        "{err}"
    );
    if cpus.len() >= 2 {
        let (cpu, _) = shield_and_rest();
        let err = refused(&["--shield", &cpu, "--pin", &cpus[0].to_string()]);
        assert!(
            err.contains("--pin: CPU ") && err.contains("is outside the shielded CPUs"),
            "{err}"
        );
    }
    s.write(
        "perflab.toml",
        &format!(
            "shield = \"{all}\"\n[[variant]]\ncommand = \"true\"\n[[variant]]\ncommand = \"true\"\n"
        ),
    );
    let err = refused(&["-f", "perflab.toml"]);
    assert!(
        err.contains("perflab.toml:1:10: shield: ") && err.contains("leaves no CPU"),
        "{err}"
    );
    assert!(!s.path("run/shield.json").exists());
}

#[test]
fn a_shield_is_refused_without_root_naming_root() {
    if cpus_online_below_two() {
        return skip(
            "fewer than two CPUs online: the CPU list is refused before root is asked for",
        );
    }
    let s = Scratch::new();
    let (cpu, _) = shield_and_rest();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_perflab"));
    command
        .current_dir(s.dir.path())
        .env_remove("PERFLAB_STORE")
        .env("PERFLAB_RUN_DIR", s.path("run"))
        .args(["ab", "true", "--shield", &cpu, "--quiet"]);
    if is_root() {
        // As an unprivileged user, in a folder it may write.
        use std::os::unix::fs::PermissionsExt;
        use std::os::unix::process::CommandExt;
        std::fs::set_permissions(s.dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        command.uid(65534).gid(65534);
        if !Path::new(env!("CARGO_BIN_EXE_perflab")).exists() {
            return skip("the perflab binary cannot be found");
        }
    }
    let out = match command.output() {
        Ok(out) => out,
        Err(e) => return skip(&format!("perflab cannot run as user 65534 here: {e}")),
    };
    let err = stderr_of_refusal(&out);
    assert!(err.contains("--shield: must run as root"), "{err}");
}

fn cpus_online_below_two() -> bool {
    online_cpus().len() < 2
}
