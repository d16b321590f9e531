//! The c-spans example's `investigate.sh`, run for real on tiny inputs in a
//! committed copy of the example (tests/common/investigate.rs): it builds
//! the C programs, passes the publish gate on a busy machine, runs the
//! counter and gauge of one run per table size, the A/B of perflab.toml,
//! span_cost in its three columns and the two `perflab compare`s, and
//! writes every block of the README. The figures of such a small run mean
//! nothing, so the checks are that every block holds figures of this run
//! and readings worded from their intervals, never that a figure has some
//! value (the test passes on a busy machine as on a quiet one). The README
//! as committed must state no figure outside its blocks.

mod common;

use common::investigate::{
    assert_every_block_filled, assert_no_figure_in_prose, assert_success, block, repository, run,
};

const EXAMPLE: &str = "c-spans";

const FILES: &[&str] = &[
    "examples/publish-gate.sh",
    "include/perflab.h",
    "examples/c-spans/.gitignore",
    "examples/c-spans/Makefile",
    "examples/c-spans/README.md",
    "examples/c-spans/figures.py",
    "examples/figure_words.py",
    "examples/c-spans/investigate.sh",
    "examples/c-spans/perflab.toml",
    "examples/c-spans/span_cost.c",
    "examples/c-spans/wordfreq.c",
];

/// The smallest sizes the script takes: a few runs of a short wordfreq,
/// four runs of a short span_cost per column (the fewest an interval of
/// `perflab compare` allows). span_cost prints four decimals, so that four
/// runs of a case cannot all print the same figure, which `perflab compare`
/// refuses as a constant sample: at two decimals and 20,000 iterations the
/// span and the two clock reads once both printed 18.95 ns four times.
const TINY: &[(&str, &str)] = &[
    ("C_SPANS_QUICK", "1"),
    ("C_SPANS_WORDS", "50000"),
    ("C_SPANS_MAX_RUNS", "3"),
    ("C_SPANS_BENCH_RUNS", "4"),
    ("C_SPANS_ITERATIONS", "200000"),
];

#[test]
fn investigate_sh_fills_every_block_of_the_readme_from_a_tiny_run() {
    let s = repository(EXAMPLE, FILES);
    let out = run(&s, EXAMPLE, TINY);
    assert_success(&out);
    let readme = std::fs::read_to_string(s.path("examples/c-spans/README.md")).unwrap();
    assert_every_block_filled(
        &s,
        &readme,
        &[
            "budget",
            "gauge",
            "ab",
            "ab-reading",
            "cost",
            "cost-reading",
        ],
    );
    let blocks = common::investigate::blocks(&readme);

    let budget = block(&blocks, "budget");
    assert!(budget.contains("50,000 words per run"), "{budget}");
    assert!(budget.contains("**A small check**"), "{budget}");

    let gauge = block(&blocks, "gauge");
    for label in ["(baseline)", "(WORDFREQ_TABLE=small)"] {
        for row in ["probe_steps", "table_fill"] {
            assert!(
                gauge
                    .lines()
                    .any(|l| l.starts_with(row) && l.ends_with(label)),
                "no {row} row for {label}:\n{gauge}"
            );
        }
    }
    assert!(gauge.contains("full against the baseline's"), "{gauge}");

    let ab = block(&blocks, "ab");
    assert!(
        ab.contains("perflab ab -f perflab.toml --min-runs 3 --max-runs 3"),
        "{ab}"
    );
    assert!(ab.contains("verdict: "), "{ab}");
    assert!(ab.contains("spans: self time per run"), "{ab}");

    let reading = block(&blocks, "ab-reading");
    assert!(reading.contains("Verdict **"), "{reading}");
    for span in ["vocabulary", "generate", "count", "top"] {
        let line = reading
            .lines()
            .find(|l| l.starts_with(&format!("- `{span}` ")))
            .unwrap_or_else(|| panic!("no reading of `{span}`:\n{reading}"));
        assert!(
            line.ends_with("undecided (the interval spans zero)")
                || line.ends_with("more time with `small-table`")
                || line.ends_with("less time with `small-table`"),
            "{line}"
        );
    }

    let cost = block(&blocks, "cost");
    // The header, the cases of span_cost and the header's own measurement.
    let rows: Vec<&str> = cost
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| case") && !l.starts_with("| ---"))
        .collect();
    assert_eq!(rows.len(), 7, "{cost}");
    for row in &rows {
        assert!(row.contains(" to "), "a cell without its range: {row}");
    }
    assert!(
        cost.contains("4 runs of `span_cost 200000` per column"),
        "{cost}"
    );

    let reading = block(&blocks, "cost-reading");
    assert_eq!(
        reading
            .matches("95% interval of `perflab compare` on the 4 runs' medians")
            .count(),
        2,
        "{reading}"
    );
    assert!(
        reading.contains("`PERFLAB_TIMER=clock_monotonic`"),
        "{reading}"
    );
}

#[test]
fn the_committed_readme_has_every_block_filled_and_no_figure_outside_them() {
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/c-spans/README.md"),
    )
    .unwrap();
    for (name, body) in common::investigate::blocks(&readme) {
        assert!(!body.trim().is_empty(), "block `{name}` is empty");
    }
    assert_no_figure_in_prose(&readme);
}
