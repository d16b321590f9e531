//! The runner's own cost per run, side by side with hyperfine, for every
//! command that makes runs.
//!
//! Every tool runs the same trivial command (`true`, without a shell) the
//! same number of times: hyperfine, `perflab run`, `perflab ab` (two
//! variants), a suite (two scenarios × two variants) and `perflab sweep`
//! (three points), each making [`RUNS`] runs in all. The sweep's points
//! differ in an environment variable, not in an argument: GNU `true` given
//! an argument sets up its locale, which made it 1.23 times as slow here
//! (hyperfine, 1,000 runs each), and the sweep would then time another
//! command. The total elapsed time
//! of each divided by its number of runs is its cost per run (process start
//! included). The tools take turns, several rounds each, and medians are
//! reported so that the noise of a shared machine falls on all of them.
//! `perflab run` also runs with `PERFLAB_NO_CGROUP=1`, so that the cost of
//! containing the runs is measured side by side too, and, to tell where
//! the rest goes, with its output unread (`--output null`) and no cgroup,
//! once as usual and once started directly by perflab: a copy of perflab
//! with no `perflab-exec` beside it, so without the fork server between
//! perflab and each run (such runs' peak memory starts from perflab's own
//! size, which is why perflab normally has the server start them). The contention rule
//! is off (`--max-cpu-wait off`) so that every tool makes exactly [`RUNS`]
//! runs; what it costs is the per-run cgroup, which stays on.
//!
//! hyperfine also runs `true` named by its path, found in PATH before the
//! rounds: perflab's fork server looks a program up in PATH once per
//! experiment, where hyperfine's runs each search PATH as `execvp` does,
//! so that row shows how much of a difference between the two is that
//! search, which depends on the machine's PATH.
//!
//! hyperfine and `perflab run` also run once more per round with one run
//! and no warm-up, so that their cost splits into what an experiment costs
//! whatever its runs (start, preparations, report) and what each further
//! run costs: the whole run's time less the one-run time, over the runs
//! between them.
//!
//! Run with `cargo bench -p perflab-cli --bench runner_overhead`
//! (needs `hyperfine` on PATH: `apt-get install hyperfine`).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Runs each tool makes per round.
const RUNS: usize = 300;
/// Rounds, the tools taking turns in each.
const ROUNDS: usize = 7;

/// Makes the command of one tool, afresh for each round.
type MakeCommand<'a> = Box<dyn Fn() -> Command + 'a>;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// The elapsed time of `command`, which must end with a verdict's exit
/// code (0, or 3 and 4 for an A/B of `true` against itself that stops at
/// its run limit undecided).
fn timed(mut command: Command) -> f64 {
    let started = Instant::now();
    let status = command.status().expect("tool starts");
    assert!(
        matches!(status.code(), Some(0 | 3 | 4)),
        "{command:?} failed: {status}"
    );
    started.elapsed().as_secs_f64()
}

/// `perflab ARGS` in `dir`, its report thrown away.
fn perflab(dir: &Path, args: &[&str]) -> Command {
    perflab_at(Path::new(env!("CARGO_BIN_EXE_perflab")), dir, args)
}

/// [`perflab`], with the perflab binary at `program`.
fn perflab_at(program: &Path, dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(program);
    command
        .current_dir(dir)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    command
}

/// A suite of two scenarios and two variants, all running `true` directly:
/// [`RUNS`] runs in all at `per_cell` runs per cell (a block is a
/// scenario's baseline and candidate, so 2 scenarios × 2 runs a block).
fn suite_file(dir: &Path, per_cell: usize) -> std::path::PathBuf {
    let path = dir.join("suite.toml");
    std::fs::write(
        &path,
        format!(
            "name = \"overhead\"\nshell = false\nmin_runs = {per_cell}\nmax_runs = {per_cell}\nmax_cpu_wait = \"off\"\n\n\
             [[variant]]\nname = \"a\"\n\n[[variant]]\nname = \"b\"\n\n\
             [[scenario]]\nname = \"one\"\ncommand = \"true\"\n\n\
             [[scenario]]\nname = \"two\"\ncommand = \"true\"\n"
        ),
    )
    .expect("suite file written");
    path
}

/// Where `program` is in PATH, as `execvp` would find it.
fn in_path(program: &str) -> std::path::PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| panic!("no {program} in PATH"))
}

fn main() {
    if Command::new("hyperfine").arg("--version").output().is_err() {
        eprintln!("hyperfine is not installed: apt-get install hyperfine");
        std::process::exit(2);
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let d = dir.path();
    let runs = RUNS.to_string();
    let half = (RUNS / 2).to_string();
    let third = (RUNS / 3).to_string();
    let suite = suite_file(d, RUNS / 4);
    let suite = suite.to_str().expect("UTF-8 path");
    // perflab alone in a folder: it finds no perflab-exec and starts its
    // runs itself.
    let alone = d.join("alone");
    std::fs::create_dir(&alone).expect("folder for perflab alone");
    let alone = alone.join("perflab");
    std::fs::copy(env!("CARGO_BIN_EXE_perflab"), &alone).expect("perflab copied");
    let bare_run = [
        "run", "-N", "true", "--runs", &runs, "--warmup", "3", "--quiet", "--output", "null",
    ];
    let true_path = in_path("true");
    let tools: Vec<(&str, MakeCommand)> = vec![
        (
            "hyperfine -N",
            Box::new(|| {
                let mut h = Command::new("hyperfine");
                h.current_dir(d)
                    .args([
                        "-N", "--runs", &runs, "--warmup", "3", "--style", "none", "true",
                    ])
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null());
                h
            }),
        ),
        (
            "perflab run -N",
            Box::new(|| {
                perflab(
                    d,
                    &[
                        "run", "-N", "true", "--runs", &runs, "--warmup", "3", "--quiet",
                    ],
                )
            }),
        ),
        (
            "perflab run, no cgroup",
            Box::new(|| {
                let mut p = perflab(
                    d,
                    &[
                        "run", "-N", "true", "--runs", &runs, "--warmup", "3", "--quiet",
                    ],
                );
                p.env("PERFLAB_NO_CGROUP", "1");
                p
            }),
        ),
        (
            "run, null, no cgroup",
            Box::new(|| {
                let mut p = perflab(d, &bare_run);
                p.env("PERFLAB_NO_CGROUP", "1");
                p
            }),
        ),
        (
            "  the same, no server",
            Box::new(|| {
                let mut direct = perflab_at(&alone, d, &bare_run);
                direct.env("PERFLAB_NO_CGROUP", "1");
                direct
            }),
        ),
        (
            "perflab ab -N",
            Box::new(|| {
                perflab(
                    d,
                    &[
                        "ab",
                        "-N",
                        "--quiet",
                        "--min-runs",
                        &half,
                        "--max-runs",
                        &half,
                        "--max-cpu-wait",
                        "off",
                        "true",
                        "true",
                    ],
                )
            }),
        ),
        (
            "perflab suite",
            Box::new(|| perflab(d, &["ab", "--quiet", "-f", suite])),
        ),
        (
            "perflab sweep -N",
            Box::new(|| {
                perflab(
                    d,
                    &[
                        "sweep",
                        "-N",
                        "--quiet",
                        "-p",
                        "n=1,2,3",
                        "--env",
                        "POINT={n}",
                        "--min-runs",
                        &third,
                        "--max-runs",
                        &third,
                        "--max-cpu-wait",
                        "off",
                        "true",
                    ],
                )
            }),
        ),
        (
            "hyperfine -N, by path",
            Box::new(|| {
                let mut h = Command::new("hyperfine");
                h.current_dir(d)
                    .args(["-N", "--runs", &runs, "--warmup", "3", "--style", "none"])
                    .arg(&true_path)
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null());
                h
            }),
        ),
    ];
    // hyperfine and `perflab run` with one run and no warm-up, for the split.
    let one_run: [MakeCommand; 2] = [
        Box::new(|| {
            let mut h = Command::new("hyperfine");
            h.current_dir(d)
                .args(["-N", "--runs", "1", "--style", "none", "true"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            h
        }),
        Box::new(|| {
            perflab(
                d,
                &[
                    "run", "-N", "true", "--runs", "1", "--warmup", "0", "--quiet",
                ],
            )
        }),
    ];
    let mut costs = vec![Vec::new(); tools.len()];
    let mut one_run_times = vec![Vec::new(); one_run.len()];
    let mut bare = Vec::new();
    for _ in 0..ROUNDS {
        for ((_, make), costs) in tools.iter().zip(&mut costs) {
            costs.push(timed(make()) / RUNS as f64);
        }
        for (make, times) in one_run.iter().zip(&mut one_run_times) {
            times.push(timed(make()));
        }
        let started = Instant::now();
        for _ in 0..RUNS {
            Command::new("true").status().expect("true runs");
        }
        bare.push(started.elapsed().as_secs_f64() / RUNS as f64);
    }
    let medians: Vec<f64> = costs.into_iter().map(median).collect();
    let hyperfine = medians[0];
    println!(
        "runner cost per run of `true` ({RUNS} runs a tool, median of {ROUNDS} rounds, tools taking turns):"
    );
    println!(
        "  {:<24} {:8.1} µs",
        "bare spawn+wait loop",
        median(bare) * 1e6
    );
    for ((name, _), cost) in tools.iter().zip(&medians) {
        println!(
            "  {name:<24} {:8.1} µs   {:.2}× hyperfine",
            cost * 1e6,
            cost / hyperfine
        );
    }
    println!(
        "  containment: perflab run costs {:.2}× itself without a cgroup",
        medians[1] / medians[2]
    );
    println!(
        "  fork server: perflab run (output unread, no cgroup) costs {:.2}× itself started directly",
        medians[3] / medians[4]
    );
    // Both make RUNS runs and 3 warm-ups in the whole run, 1 in the short one.
    let one: Vec<f64> = one_run_times.into_iter().map(median).collect();
    let further =
        |whole_per_run: f64, one: f64| (whole_per_run * RUNS as f64 - one) / (RUNS + 2) as f64;
    let (hyperfine_run, perflab_run) = (further(medians[0], one[0]), further(medians[1], one[1]));
    println!(
        "  split: an experiment costs perflab run {:.1} ms whatever its runs, hyperfine {:.1} ms; \
         each further run {:.1} µs against {:.1} µs ({:.2}× hyperfine)",
        one[1] * 1e3 - perflab_run * 1e3,
        one[0] * 1e3 - hyperfine_run * 1e3,
        perflab_run * 1e6,
        hyperfine_run * 1e6,
        perflab_run / hyperfine_run
    );
}
