//! `perflab ab --duet` (and `duet = true` in perflab.toml): each block
//! starts A and B at the same moment, each pinned to a single CPU of its
//! own, the CPUs swapped every block; the result records each pair's
//! overlap. Settings duet cannot honour are refused with exit 2.

mod common;

use common::{Scratch, assert_exit};

/// A command that notes, when it ends, its variant ($SIDE), the CPUs it
/// (through a child) may run on, and when it started and ended (ns).
const RECORD: &str = "s=$(date +%s%N); sleep 0.2; \
     echo \"$SIDE $(grep Cpus_allowed_list /proc/self/status | awk '{print $2}') $s $(date +%s%N)\" >> seen.txt";

/// One line of seen.txt.
#[derive(Debug)]
struct Seen {
    cpus: String,
    start: u128,
    end: u128,
}

/// The runs of each variant, in the order they ended.
fn seen(s: &Scratch) -> [Vec<Seen>; 2] {
    let mut sides = [Vec::new(), Vec::new()];
    for line in std::fs::read_to_string(s.path("seen.txt")).unwrap().lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let side = usize::from(fields[0] == "B");
        sides[side].push(Seen {
            cpus: fields[1].to_string(),
            start: fields[2].parse().unwrap(),
            end: fields[3].parse().unwrap(),
        });
    }
    sides
}

fn allowed_cpus() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_string();
    list.split(',')
        .map(|part| match part.split_once('-') {
            Some((a, b)) => b.parse::<usize>().unwrap() - a.parse::<usize>().unwrap() + 1,
            None => 1,
        })
        .sum()
}

fn duet_args() -> Vec<&'static str> {
    vec![
        "ab",
        RECORD,
        "--env-a",
        "SIDE=A",
        "--env-b",
        "SIDE=B",
        "--duet",
        // Every run is recorded: a block measured again on a busy machine
        // would add runs.
        "--max-cpu-wait",
        "off",
        "--min-runs",
        "3",
        "--max-runs",
        "3",
        "--quiet",
        "--json",
        "r.json",
    ]
}

#[test]
fn duet_runs_start_together_each_on_its_own_cpu_swapped_every_block() {
    assert!(
        allowed_cpus() >= 2,
        "duet runs need two CPUs; this machine gives perflab one"
    );
    let s = Scratch::new();
    let out = s.perflab().args(duet_args()).output().unwrap();
    common::assert_reached_a_result(&out);
    let [a, b] = seen(&s);
    // One warm-up pair and three measured pairs.
    assert_eq!((a.len(), b.len()), (4, 4), "{a:?} {b:?}");
    for (block, (a, b)) in a.iter().zip(&b).enumerate() {
        for run in [a, b] {
            assert!(
                run.cpus.parse::<usize>().is_ok(),
                "not a single CPU: {run:?}"
            );
        }
        assert_ne!(a.cpus, b.cpus, "block {block}: {a:?} {b:?}");
        assert!(
            a.start < b.end && b.start < a.end,
            "block {block} did not overlap: {a:?} {b:?}"
        );
    }
    for block in 1..a.len() {
        assert_eq!(a[block].cpus, b[block - 1].cpus, "not swapped: {a:?} {b:?}");
    }
    let doc = s.json("r.json");
    let duet = &doc["duet"];
    assert_eq!(duet["pairs"].as_array().unwrap().len(), 3, "{duet}");
    let cpus: Vec<String> = duet["cpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(cpus, [a[0].cpus.clone(), b[0].cpus.clone()], "{duet}");
    // The measured pairs are the blocks after the warm-up.
    for (pair, a) in duet["pairs"].as_array().unwrap().iter().zip(&a[1..]) {
        assert_eq!(pair["baseline_cpu"].to_string(), a.cpus, "{duet}");
    }
    let overlap = duet["median_overlap"].as_f64().unwrap();
    assert!(overlap > 0.5 && overlap <= 1.0, "{duet}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Duet:"), "{stdout}");
}

#[test]
fn duet_in_an_experiment_file_reaches_the_runs() {
    assert!(
        allowed_cpus() >= 2,
        "duet runs need two CPUs; this machine gives perflab one"
    );
    let s = Scratch::new();
    let record = RECORD.replace('\\', "\\\\").replace('"', "\\\"");
    s.write(
        "perflab.toml",
        &format!(
            "duet = true\nmin_runs = 2\nmax_runs = 2\nwarmup = 0\nmax_cpu_wait = \"off\"\n\
             [[variant]]\ncommand = \"{record}\"\nenv = {{ SIDE = \"A\" }}\n\
             [[variant]]\ncommand = \"{record}\"\nenv = {{ SIDE = \"B\" }}\n"
        ),
    );
    let out = s
        .perflab()
        .args(["ab", "-f", "perflab.toml", "--quiet"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let [a, b] = seen(&s);
    assert_eq!((a.len(), b.len()), (2, 2), "{a:?} {b:?}");
    assert_ne!(a[0].cpus, b[0].cpus);
    assert_eq!(a[1].cpus, b[0].cpus);
}

#[test]
fn in_a_suite_duet_runs_start_each_candidate_together_with_the_baseline() {
    assert!(
        allowed_cpus() >= 2,
        "duet runs need two CPUs; this machine gives perflab one"
    );
    let s = Scratch::new();
    let record = RECORD.replace('\\', "\\\\").replace('"', "\\\"");
    s.write(
        "suite.toml",
        &format!(
            "duet = true\nmin_runs = 2\nmax_runs = 2\nwarmup = 0\nmax_cpu_wait = \"off\"\n\
             [[variant]]\nname = \"a\"\nenv = {{ SIDE = \"A\" }}\n\
             [[variant]]\nname = \"b\"\nenv = {{ SIDE = \"B\" }}\n\
             [[scenario]]\nname = \"x\"\ncommand = \"{record}\"\n"
        ),
    );
    let out = s
        .perflab()
        .args(["ab", "-f", "suite.toml", "--quiet", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let [a, b] = seen(&s);
    assert_eq!((a.len(), b.len()), (2, 2), "{a:?} {b:?}");
    for (a, b) in a.iter().zip(&b) {
        assert_ne!(a.cpus, b.cpus, "{a:?} {b:?}");
        assert!(a.start < b.end && b.start < a.end, "{a:?} {b:?}");
    }
    assert_eq!(a[1].cpus, b[0].cpus, "not swapped");
    let doc = s.json("r.json");
    assert_eq!(doc["duet"]["pairs"].as_array().unwrap().len(), 2);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Duet:"));
}

#[test]
fn duet_on_one_cpu_is_refused_naming_the_flag() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["ab", "true", "--duet", "--pin", "0"])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--duet: duet runs need two CPUs"), "{err}");
    assert!(err.contains("--pin"), "{err}");
}

#[test]
fn duet_with_counted_instructions_is_refused_naming_both_flags() {
    let s = Scratch::new();
    let out = s
        .perflab()
        .args(["ab", "true", "--duet", "--measure", "instructions"])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--duet") && err.contains("--measure instructions"),
        "{err}"
    );
}
