//! The allocators case study (`examples/allocators`) at a small size: its C
//! workloads build and pass their own tests under every allocator, its suite
//! file runs through the real binary against glibc, jemalloc, mimalloc and
//! tcmalloc, and its scripts read perflab's results as they are written:
//! the suite's tables, the ten-run rule beside perflab's analyses (of the
//! seed's published samples, and of runs made A-then-B and interleaved),
//! and two profiles side by side.
//! The allocators are Debian packages; without them the test fails saying
//! how to install them, as the case study cannot be checked without them.

mod common;
mod native;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::Scratch;

const LIBDIR: &str = "/usr/lib/x86_64-linux-gnu";
const ALLOCATORS: [&str; 3] = [
    "libjemalloc.so.2",
    "libmimalloc.so.2",
    "libtcmalloc_minimal.so.4",
];

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/allocators")
}

fn installed_allocators() -> Vec<PathBuf> {
    let libs: Vec<PathBuf> = ALLOCATORS
        .iter()
        .map(|l| Path::new(LIBDIR).join(l))
        .collect();
    let missing: Vec<String> = libs
        .iter()
        .filter(|l| !l.exists())
        .map(|l| l.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "the allocators case study needs {}: install them with scripts/install-test-deps.sh \
         (or apt-get install libjemalloc2 libmimalloc2.0 libtcmalloc-minimal4)",
        missing.join(", ")
    );
    libs
}

/// Builds allocbench and test_workloads into the scratch folder with cc, the
/// flags of the example's Makefile, warnings as errors.
fn build(s: &Scratch) {
    let dir = example();
    for (program, sources) in [
        ("allocbench", &["allocbench.c", "workloads.c"][..]),
        (
            "test_workloads",
            &["test_workloads.c", "workloads.c", "reference.c"][..],
        ),
    ] {
        let out = Command::new("cc")
            .args(["-O2", "-g", "-fno-omit-frame-pointer", "-Wall", "-Wextra"])
            .args(["-Werror", "-std=c11", "-o"])
            .arg(s.path(program))
            .args(sources.iter().map(|f| dir.join(f)))
            .args(["-pthread", "-ldl"])
            .output()
            .expect("cc runs");
        assert!(
            out.status.success(),
            "{program} builds warning-free: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for file in ["suite.toml", "drift.toml"] {
        std::fs::copy(dir.join(file), s.path(file)).unwrap();
    }
}

#[test]
fn the_workloads_pass_their_tests_under_glibc_and_every_allocator() {
    let libs = installed_allocators();
    let s = Scratch::new();
    build(&s);
    for preload in std::iter::once(None).chain(libs.iter().map(Some)) {
        let mut test = Command::new(s.path("test_workloads"));
        if let Some(lib) = preload {
            test.env("LD_PRELOAD", lib);
        }
        let out = test.output().unwrap();
        assert!(
            out.status.success(),
            "under {preload:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "workloads: all checks passed\n"
        );
    }
}

#[test]
fn the_suite_file_runs_every_allocator_on_every_workload_doing_the_same_work() {
    installed_allocators();
    let s = Scratch::new();
    build(&s);
    let out = s
        .perflab()
        .args(["ab", "-f", "suite.toml", "--max-runs", "20", "--quiet"])
        .args(["--json", "suite.json"])
        .env("ALLOCBENCH_SCALE", "0.02")
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let json = s.json("suite.json");
    assert_eq!(json["kind"], "suite");
    assert_eq!(json["baseline"], "glibc");
    let cells = json["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 12, "4 scenarios x 3 candidates");
    for cell in cells {
        assert!(cell["runs"].as_u64().unwrap() >= 20, "{cell}");
    }
    // Every cell's runs printed the checksum of the same work (the answer
    // check would warn otherwise) and broke no expectation (the suite would
    // have failed).
    assert_eq!(json["warnings"].as_array().map_or(0, Vec::len), 0, "{json}");
    let consumer = json["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "producer-consumer / mimalloc")
        .expect("the producer-consumer cell of mimalloc");
    let run = &consumer["run_details"][0]["metrics"];
    assert_eq!(run["cross_thread_frees"], run["mallocs"], "{run}");
    assert_eq!(run["mallocs"], 30000.0, "2% of 1.5M messages: {run}");
    // The working set is live whatever the number of operations: a loaded
    // heap of tens of MiB, well above an allocator's start-up mappings.
    let mixed = json["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "mixed-sizes / glibc")
        .expect("the mixed-sizes cell of glibc");
    let peak_kib = mixed["run_details"][0]["peak_memory_kib"].as_f64().unwrap();
    assert!(peak_kib > 32.0 * 1024.0, "peak memory {peak_kib} KiB");
    // The tables script reads the result as perflab wrote it.
    let figures = python(&["suite_tables.py", "figures"], &s.path("suite.json"));
    assert!(
        figures.contains("| realloc-growth | peak memory (MiB) |"),
        "{figures}"
    );
    let matrix = python(&["suite_tables.py", "matrix"], &s.path("suite.json"));
    for row in [
        "| small-objects |",
        "| mixed-sizes |",
        "| producer-consumer |",
        "| realloc-growth |",
        "| geometric mean |",
    ] {
        assert!(matrix.contains(row), "{row} in {matrix}");
    }
    let answer = python(&["suite_tables.py", "answer"], &s.path("suite.json"));
    for allocator in ["jemalloc", "mimalloc", "tcmalloc"] {
        assert!(
            answer.contains(&format!("- **{allocator}** against glibc: GO (faster")),
            "{answer}"
        );
    }
    let reasons = python(&["suite_tables.py", "reasons"], &s.path("suite.json"));
    let non_go = cells.iter().filter(|c| c["verdict"] != "GO").count();
    assert_eq!(
        reasons.lines().filter(|l| l.contains(": **")).count(),
        non_go + usize::from(non_go < 12),
        "a line per cell that is not a GO, and one for the GOs: {reasons}"
    );
    let pick = python(&["suite_tables.py", "pick"], &s.path("suite.json"));
    assert!(
        pick.contains("loser=") && pick.contains("winner="),
        "{pick}"
    );
}

#[test]
fn a_preload_that_did_not_take_fails_the_run_naming_the_library_malloc_came_from() {
    installed_allocators();
    let s = Scratch::new();
    build(&s);
    let out = s
        .perflab()
        .args(["ab", "-N", "./allocbench small 1000", "--quiet"])
        .args(["--env-a", "ALLOCBENCH_MALLOC_FROM=libc.so"])
        .args(["--env-b", "LD_PRELOAD=/nowhere/libjemalloc.so.2"])
        .args(["--env-b", "ALLOCBENCH_MALLOC_FROM=libjemalloc"])
        .output()
        .unwrap();
    let err = common::stderr_of_refusal(&out);
    assert!(err.contains("malloc comes from"), "{err}");
    assert!(err.contains("libc.so"), "{err}");
}

#[test]
fn the_ten_run_rule_script_reads_an_a_against_a_result_in_repetitions_of_ten_and_ten() {
    installed_allocators();
    let s = Scratch::new();
    build(&s);
    let out = s
        .perflab()
        .args(["ab", "-N", "./allocbench small 20000", "--quiet"])
        .args(["--min-runs", "30", "--max-runs", "30", "--json", "aa.json"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let aa = python(&["ten_run_rule.py", "aa"], &s.path("aa.json"));
    assert!(
        aa.starts_with("3 repetitions of the ten-run procedure"),
        "{aa}"
    );
    assert!(aa.contains("perflab on all 30 + 30 runs"), "{aa}");
    let ab = python(&["ten_run_rule.py", "ab"], &s.path("aa.json"));
    assert!(
        ab.contains("| 10 + 10 |") && ab.contains("| 30 + 30 |"),
        "{ab}"
    );
    let published = python_in_example(&[
        "ten_run_rule.py",
        "published",
        "original/baseline.txt",
        "original/optimized.txt",
    ]);
    // The published baseline: sd 0.338M of a mean 45.346M, a CV of 0.75%.
    assert!(
        published.contains("| `original/baseline.txt` | 10 | 0.75% |"),
        "{published}"
    );
}

#[test]
fn the_seeds_published_samples_give_its_own_figures_by_its_rule_beside_perflab_compare() {
    let s = Scratch::new();
    let original = example().join("original");
    let out = s
        .perflab()
        .arg("compare")
        .arg(original.join("baseline.txt"))
        .arg(original.join("optimized.txt"))
        .args(["--better", "higher", "--json", "published.json"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let table = python_in_example(&[
        "ten_run_rule.py",
        "samples",
        "original/baseline.txt",
        "original/optimized.txt",
        s.path("published.json").to_str().unwrap(),
    ]);
    // The seed's own figures: +3.51% mean, GO (its median gain, +4.07%, is +4.06% from its
    // own medians 45.315M and 47.155M).
    assert!(
        table.contains("| +3.51% mean, +4.06% median, no interval | **GO** |"),
        "{table}"
    );
    assert!(
        table.contains("| `perflab compare` (Hodges-Lehmann"),
        "{table}"
    );
    assert!(table.contains("all of A ran before all of B"), "{table}");
}

#[test]
fn the_a_then_b_runs_and_the_interleaved_ones_are_read_side_by_side() {
    installed_allocators();
    let s = Scratch::new();
    build(&s);
    let command = "./allocbench small 20000 32";
    for (side, value) in [("a", "0"), ("b", "1")] {
        let out = s
            .perflab()
            .args(["run", "-N", "-r", "10", "--quiet"])
            .args([
                "--env",
                &format!("HAKMEM_FREE_WRAPPER_ENV_SNAPSHOT={value}"),
            ])
            .args(["--json", &format!("drift-{side}.json"), command])
            .output()
            .unwrap();
        common::assert_exit(&out, 0);
    }
    let compare = s
        .perflab()
        .args(["compare", "drift-a.json", "drift-b.json"])
        .args(["--json", "drift-compare.json"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&compare);
    let ab = s
        .perflab()
        .args([
            "ab",
            "-f",
            "drift.toml",
            "--min-runs",
            "10",
            "--max-runs",
            "10",
        ])
        .args(["--quiet", "--json", "drift-ab.json"])
        .env("ALLOCBENCH_SCALE", "0.01")
        .output()
        .unwrap();
    common::assert_reached_a_result(&ab);
    let out = ten_run_rule_sequential(s.dir.path());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        table.contains("| the ten-run rule, A then B | 10 + 10 |"),
        "{table}"
    );
    assert!(
        table.contains("| `perflab compare` on those A-then-B runs | 10 + 10 |"),
        "{table}"
    );
    assert!(
        table.contains("| `perflab ab`, A and B interleaved | 10 + 10 |"),
        "{table}"
    );
    // How long each side waited for a CPU: compare's warning, or both
    // sides' figures when it gave none.
    let waited = |table: &str| {
        table.contains("- perflab: \"the candidate's runs (drift-b.json) waited for a CPU")
            || table.contains("- perflab: \"the baseline's runs (drift-a.json) waited for a CPU")
    };
    assert!(
        waited(&table) || table.contains("- no warning about the CPU wait: A's runs waited"),
        "{table}"
    );
    // Given that warning, the table quotes it and its row says so.
    let mut doc = s.json("drift-compare.json");
    doc["warnings"] = serde_json::json!([
        "the candidate's runs (drift-b.json) waited for a CPU a median 38% of their wall time, \
         the baseline's (drift-a.json) 0.3%: the machine was busier while the candidate ran, so \
         the difference between them includes the machine's, not only the code's; measure both \
         interleaved (perflab ab) on a quiet machine"
    ]);
    doc["verdict"] = "INCONCLUSIVE".into();
    s.write("drift-compare.json", &doc.to_string());
    let out = ten_run_rule_sequential(s.dir.path());
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(waited(&table), "{table}");
    assert!(
        table.contains(
            "| **INCONCLUSIVE** | no claim: more runs needed, and a warning that the sides waited \
             for a CPU differently |"
        ),
        "{table}"
    );
}

#[test]
fn a_profile_of_a_few_dozen_samples_is_shown_beside_a_large_one_with_perflabs_warning() {
    native::require_tool("perf");
    let s = Scratch::new();
    build(&s);
    for (name, ops) in [("small", "2000000"), ("large", "20000000")] {
        let out = s
            .perflab()
            .args(["profile", "--top", "8", "--json", &format!("{name}.json")])
            .args(["--", "./allocbench", "small", ops, "32"])
            .output()
            .unwrap();
        common::assert_exit(&out, 0);
    }
    let table = Command::new("python3")
        .arg(example().join("profile_table.py"))
        .args([s.path("small.json"), s.path("large.json")])
        .output()
        .unwrap();
    assert!(
        table.status.success(),
        "{}",
        String::from_utf8_lossy(&table.stderr)
    );
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(table.contains("| widest interval shown | ±"), "{table}");
    // A run of some 60 ms gives a few dozen samples, which perflab names.
    assert!(
        table.contains("perflab on the profile of ") && table.contains("\"only "),
        "{table}"
    );
}

/// Runs one of the example's Python scripts with `args` in the example's
/// folder; its stdout.
fn python_in_example(args: &[&str]) -> String {
    let out = Command::new("python3")
        .arg(example().join(args[0]))
        .args(&args[1..])
        .current_dir(example())
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs one of the example's Python scripts on a result file; its stdout.
fn python(script_and_mode: &[&str], result: &Path) -> String {
    let out = Command::new("python3")
        .arg(example().join(script_and_mode[0]))
        .args(&script_and_mode[1..])
        .arg(result)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{script_and_mode:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `ten_run_rule.py sequential` on the drift documents in `dir`, as
/// `investigate.sh` runs it.
fn ten_run_rule_sequential(dir: &Path) -> std::process::Output {
    Command::new("python3")
        .arg(example().join("ten_run_rule.py"))
        .args([
            "sequential",
            "drift-a.json",
            "drift-b.json",
            "drift-compare.json",
            "drift-ab.json",
        ])
        .current_dir(dir)
        .output()
        .unwrap()
}
