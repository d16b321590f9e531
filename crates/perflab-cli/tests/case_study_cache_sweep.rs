//! The cache-sweep example's `investigate.sh`, run for real on tiny inputs
//! in a committed copy of the example (tests/common/investigate.rs): it
//! builds cachewalk, passes the publish gate on a busy machine, reads the
//! machine's caches, sweeps a few small working sets with short walks and
//! writes every block of the README. The figures of such a small run mean
//! nothing, so the checks are that every block holds figures of this run
//! and a reading worded from their intervals, never that a figure has some
//! value (the test passes on a busy machine as on a quiet one). The README
//! as committed must state no figure outside its blocks.

mod common;

use common::investigate::{
    assert_every_block_filled, assert_no_figure_in_prose, assert_success, block, blocks,
    repository, run,
};

const EXAMPLE: &str = "cache-sweep";

const FILES: &[&str] = &[
    "examples/publish-gate.sh",
    "examples/cache-sweep/.gitignore",
    "examples/cache-sweep/Makefile",
    "examples/cache-sweep/README.md",
    "examples/cache-sweep/cachewalk.c",
    "examples/cache-sweep/figures.py",
    "examples/figure_words.py",
    "examples/cache-sweep/investigate.sh",
];

/// Three working sets, short walks, two or three runs of each.
const TINY: &[(&str, &str)] = &[
    ("CACHE_SWEEP_QUICK", "1"),
    ("CACHE_SWEEP_SIZES", "4..64:x4"),
    ("CACHE_SWEEP_STEPS", "50000"),
    ("CACHE_SWEEP_MIN_RUNS", "2"),
    ("CACHE_SWEEP_MAX_RUNS", "3"),
];

#[test]
fn investigate_sh_fills_every_block_of_the_readme_from_a_tiny_run() {
    let s = repository(EXAMPLE, FILES);
    let out = run(&s, EXAMPLE, TINY);
    assert_success(&out);
    let readme = std::fs::read_to_string(s.path("examples/cache-sweep/README.md")).unwrap();
    assert_every_block_filled(&s, &readme, &["budget", "machine", "sweep", "reading"]);
    let blocks = blocks(&readme);

    let budget = block(&blocks, "budget");
    assert!(
        budget.contains("3 working sets from 4 KiB to 64 KiB, 2 to 3 runs each"),
        "{budget}"
    );
    assert!(budget.contains("**A small check**"), "{budget}");

    let sweep = block(&blocks, "sweep");
    assert!(
        sweep.contains("perflab sweep -p kib=4..64:x4 './cachewalk {kib} 50000'"),
        "{sweep}"
    );
    for point in ["kib=4 ", "kib=16 ", "kib=64 "] {
        assert!(
            sweep.lines().any(|l| l.trim_start().starts_with(point)),
            "no row of {point}:\n{sweep}"
        );
    }

    let reading = block(&blocks, "reading");
    assert!(
        reading.contains("- The noisiest point is kib="),
        "{reading}"
    );
    assert!(
        reading.contains("- A cliff from ") || reading.contains("- No cliff: "),
        "{reading}"
    );
}

#[test]
fn the_committed_readme_has_every_block_filled_and_no_figure_outside_them() {
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/cache-sweep/README.md"),
    )
    .unwrap();
    for (name, body) in blocks(&readme) {
        assert!(!body.trim().is_empty(), "block `{name}` is empty");
    }
    assert_no_figure_in_prose(&readme);
}
