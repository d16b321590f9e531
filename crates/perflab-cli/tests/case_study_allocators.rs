//! The allocators case study (`examples/allocators`) at a small size: its C
//! workloads build and pass their own tests under every allocator, its suite
//! file runs through the real binary against glibc, jemalloc, mimalloc and
//! tcmalloc, and its scripts read perflab's results as they are written.
//! The allocators are Debian packages; without them the test fails saying
//! how to install them, as the case study cannot be checked without them.

mod common;

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
    std::fs::copy(dir.join("suite.toml"), s.path("suite.toml")).unwrap();
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
        .env("ALLOCBENCH_SCALE", "0.01")
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
    assert_eq!(run["mallocs"], 15000.0, "1% of 1.5M messages: {run}");
    // The figures script reads the result as perflab wrote it.
    let figures = python(&["suite_tables.py", "figures"], &s.path("suite.json"));
    assert!(
        figures.contains("| realloc-growth | peak memory (MiB) |"),
        "{figures}"
    );
    let reasons = python(&["suite_tables.py", "reasons"], &s.path("suite.json"));
    assert_eq!(reasons.lines().count(), 12, "{reasons}");
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
    let published = Command::new("python3")
        .arg(example().join("ten_run_rule.py"))
        .args([
            "published",
            "original/baseline.txt",
            "original/optimized.txt",
        ])
        .current_dir(example())
        .output()
        .unwrap();
    let published = String::from_utf8_lossy(&published.stdout);
    // The published baseline: sd 0.338M of a mean 45.346M, a CV of 0.75%.
    assert!(
        published.contains("| `original/baseline.txt` | 10 | 0.75% |"),
        "{published}"
    );
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
