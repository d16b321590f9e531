//! The runner's own cost per run, side by side with hyperfine.
//!
//! Both tools run the same trivial command (`true`, without a shell) the
//! same number of times; the total elapsed time of each tool divided by
//! the number of runs is its cost per run (process start included). The
//! two tools alternate, several rounds each, and medians are reported so
//! that the noise of a shared machine falls on both. perflab runs twice
//! per round: as it is (each run in a cgroup of its own, where one can be
//! made) and with `PERFLAB_NO_CGROUP=1`, so that the cost of containing
//! the runs is measured side by side too.
//!
//! Run with `cargo bench -p perflab-cli --bench runner_overhead`
//! (needs `hyperfine` on PATH: `apt-get install hyperfine`).

use std::process::Command;
use std::time::Instant;

const RUNS: usize = 300;
const ROUNDS: usize = 7;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

fn timed(mut command: Command) -> f64 {
    let started = Instant::now();
    let status = command.status().expect("tool starts");
    assert!(status.success(), "{command:?} failed");
    started.elapsed().as_secs_f64()
}

fn main() {
    if Command::new("hyperfine").arg("--version").output().is_err() {
        eprintln!("hyperfine is not installed: apt-get install hyperfine");
        std::process::exit(2);
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let runs = RUNS.to_string();
    let (mut perflab, mut hyperfine, mut bare) = (Vec::new(), Vec::new(), Vec::new());
    let mut uncontained = Vec::new();
    for _ in 0..ROUNDS {
        for (no_cgroup, costs) in [(false, &mut perflab), (true, &mut uncontained)] {
            let mut p = Command::new(env!("CARGO_BIN_EXE_perflab"));
            p.current_dir(dir.path())
                .args([
                    "run", "-N", "true", "--runs", &runs, "--warmup", "3", "--quiet",
                ])
                .stdout(std::process::Stdio::null());
            if no_cgroup {
                p.env("PERFLAB_NO_CGROUP", "1");
            }
            costs.push(timed(p) / RUNS as f64);
        }

        let mut h = Command::new("hyperfine");
        h.current_dir(dir.path())
            .args([
                "-N", "--runs", &runs, "--warmup", "3", "--style", "none", "true",
            ])
            .stdout(std::process::Stdio::null());
        hyperfine.push(timed(h) / RUNS as f64);

        let started = Instant::now();
        for _ in 0..RUNS {
            Command::new("true").status().expect("true runs");
        }
        bare.push(started.elapsed().as_secs_f64() / RUNS as f64);
    }
    let (p, h, b) = (median(perflab), median(hyperfine), median(bare));
    let u = median(uncontained);
    println!("runner cost per run of `true` ({RUNS} runs, median of {ROUNDS} alternating rounds):");
    println!("  bare spawn+wait loop   {:8.1} µs", b * 1e6);
    println!("  hyperfine -N           {:8.1} µs", h * 1e6);
    println!("  perflab run -N         {:8.1} µs", p * 1e6);
    println!("  perflab, no cgroup     {:8.1} µs", u * 1e6);
    println!("  ratio perflab / hyperfine: {:.2}", p / h);
    println!("  ratio perflab / perflab without a cgroup: {:.2}", p / u);
}
