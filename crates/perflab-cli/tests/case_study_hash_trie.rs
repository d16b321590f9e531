//! The hash-trie case study's tables (`examples/hash-trie/tables.py`) on
//! documents the real perflab binary writes: a sweep's steps judged cliff,
//! no cliff or undecided from their intervals, a history's net result
//! worded from the interval of the last commit against the first, and the
//! README's blocks filled only from files the script wrote. The workloads
//! are shell commands printing the example's metric, so no release build is
//! needed (the example's own tests run the trie through perflab).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::Scratch;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/hash-trie")
}

/// Runs tables.py with `args` in the scratch folder; its stdout, or its
/// stderr when it fails and `must_succeed` is false.
fn tables(s: &Scratch, args: &[&str], must_succeed: bool) -> (bool, String) {
    let out = Command::new("/usr/bin/python3")
        .arg(example().join("tables.py"))
        .args(args)
        .current_dir(s.dir.path())
        .output()
        .expect("/usr/bin/python3 runs");
    if must_succeed {
        assert!(
            out.status.success(),
            "tables.py {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = if out.status.success() {
        &out.stdout
    } else {
        &out.stderr
    };
    (
        out.status.success(),
        String::from_utf8_lossy(text).into_owned(),
    )
}

/// A command printing `op_cpu_ns` of `expression` (shell arithmetic, with
/// the process id adding under 0.1% of noise so that intervals have a width).
fn metric(expression: &str) -> String {
    format!("echo PERFLAB_METRIC op_cpu_ns $(( ({expression}) * 1000 + $$ % 97 )) ns")
}

/// A sweep over n = 1K, 2K, 4K, 8K of two curves: `smooth` costs the same
/// per item at every size, `stepped` four times as much from 4K on.
fn sweep(s: &Scratch) {
    let out = s
        .perflab()
        .args(["sweep", "-p", "n=1000,2000,4000,8000", "--name", "curves"])
        .args([
            "--measure",
            "op_cpu_ns",
            "--better",
            "lower",
            "--warmup",
            "0",
        ])
        .args([
            "--min-runs",
            "5",
            "--max-runs",
            "8",
            "--seed",
            "1",
            "--quiet",
        ])
        .args(["--json", "sweep.json"])
        .args(["--command-name", "smooth", "--command-name", "stepped"])
        .arg(metric("{n}"))
        .arg(metric("{n} * ({n} >= 4000 ? 4 : 1)"))
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
}

#[test]
fn a_sweep_step_is_a_cliff_only_where_its_intervals_rise_beyond_the_threshold() {
    let s = Scratch::new();
    sweep(&s);
    let (_, table) = tables(&s, &["sweep", "sweep.json", "--steps=steps.md"], true);
    // Steps judged no cliff / undecided / cliff, per curve.
    assert!(table.contains("| 3 / 0 / 0 |"), "smooth: {table}");
    assert!(
        table.contains("| 2 / 0 / 1 | +300.0% (2K → 4K) |"),
        "stepped: {table}"
    );
    let steps = std::fs::read_to_string(s.path("steps.md")).unwrap();
    let step = steps
        .lines()
        .find(|l| l.starts_with("| stepped | 2K → 4K |"))
        .unwrap_or_else(|| panic!("{steps}"));
    assert!(step.ends_with("| cliff |"), "{step}");
    // A cliff threshold above the step's whole range judges it no cliff.
    let (_, lenient) = tables(&s, &["sweep", "sweep.json", "5"], true);
    assert!(!lenient.contains("| 2 / 0 / 1 |"), "{lenient}");
    assert!(!lenient.contains("/ 1 |"), "{lenient}");
}

/// An A/B of two commands printing op_cpu_ns, as a step of a history; the
/// file it wrote.
fn step(s: &Scratch, file: &str, before: &str, after: &str) -> String {
    let out = s
        .perflab()
        .args([
            "ab",
            "--name",
            file,
            "--measure",
            "op_cpu_ns",
            "--better",
            "lower",
        ])
        .args([
            "--min-runs",
            "10",
            "--max-runs",
            "10",
            "--seed",
            "1",
            "--quiet",
        ])
        .args(["--name-a", "first", "--name-b", "last", "--json", file])
        .arg(metric(before))
        .arg(metric(after))
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    file.to_string()
}

#[test]
fn the_net_result_of_a_history_is_worded_from_the_last_commit_against_the_first() {
    let s = Scratch::new();
    let slower = step(&s, "step-slower.json", "1000", "1200");
    let (_, table) = tables(&s, &["history", "insert", &slower], true);
    assert!(
        table.contains("Net result (insert): after every step, last is **slower** than first"),
        "{table}"
    );
    assert!(table.contains("NO-GO"), "{table}");
    let same = step(&s, "step-same.json", "1000", "1000");
    let (_, table) = tables(&s, &["history", "insert", &slower, &same], true);
    assert!(
        table.contains("last is **not shown to differ** from first"),
        "{table}"
    );
}

#[test]
fn filling_the_readme_refuses_a_block_whose_file_the_script_did_not_write() {
    let s = Scratch::new();
    let readme = s.write(
        "README.md",
        "# t\n<!-- begin: provenance -->\nkept\n<!-- end: provenance -->\n\
         <!-- begin: figures -->\nold\n<!-- end: figures -->\n",
    );
    std::fs::create_dir(s.path("out")).unwrap();
    let (ok, err) = tables(&s, &["fill", "README.md", "out"], false);
    assert!(!ok && err.contains("block `figures`"), "{err}");
    std::fs::write(s.path("out/figures.txt"), "new figure\n").unwrap();
    tables(&s, &["fill", "README.md", "out"], true);
    let text = std::fs::read_to_string(readme).unwrap();
    assert!(text.contains("```text\nnew figure\n```"), "{text}");
    assert!(!text.contains("old"), "{text}");
    assert!(text.contains("kept"), "{text}");
}
