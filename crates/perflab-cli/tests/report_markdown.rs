//! `perflab report`'s Markdown, pinned by snapshots: a store filled
//! deterministically (scripted runs, fixed provenance) with an A/B experiment
//! measured at three commits (with span profiles), a sweep against a
//! reference (with span profiles), a differential sampling profile and an A/B run counted under
//! valgrind, rendered exactly as the command renders it.

mod profiled;

use perflab_format::vocabulary::{ExperimentKind, ResultStatus};
use std::collections::BTreeMap;

use clap::Parser;
use perflab_cli::ab::{AbRun, begin_ab};
use perflab_cli::cli::{Cli, Command};
use perflab_cli::decide::evaluate;
use perflab_cli::engine::NoProgress;
use perflab_cli::engine::{OutcomeHeader, StopReason};
use perflab_cli::experiment::settings::VariantSettings;
use perflab_cli::experiment::{Experiment, Settings};
use perflab_cli::gather::gather;
use perflab_cli::result_document::ab_document;
use perflab_cli::sweep::{run_sweep, save_checkpoint, sweep_document};
use perflab_report::html::report_html;
use perflab_report::markdown::report_markdown;
use perflab_runner::{FakeExecutor, MetricValue, RunOutcome};
use perflab_store::provenance::Provenance;
use perflab_store::{Store, VariantRecord};
use profiled::{
    BASELINE_STACKS, CANDIDATE_STACKS, span_profile, store_differential_profile,
    store_instruction_counts,
};

fn provenance(commit: &str) -> Provenance {
    Provenance {
        git_commit: Some(commit.repeat(40 / commit.len())),
        git_dirty: Some(false),
        host: "bench-host".into(),
        cpu_model: "Test CPU @ 3.0GHz".into(),
        kernel: "6.1.0".into(),
        perflab_version: "0.1.0".into(),
        started_at: "2026-02-01T10:00:00Z".into(),
        revisions: Vec::new(),
        ci: None,
        ..Default::default()
    }
}

/// A complete `perflab-profile/1` document with two spans, one thread, a
/// counter (one retry per 10 ms of parsing) and a gauge.
fn profile(parse_ns: u64, compute_ns: u64, thread_ns: u64) -> String {
    use perflab_format::profile::{CounterRecord, GaugeRecord, Profile};
    let text = span_profile(
        &[("parse", 10, parse_ns), ("compute", 1, compute_ns)],
        thread_ns,
        &[],
    );
    let mut profile = Profile::from_json_str(&text).unwrap();
    let retries = parse_ns / 10_000_000;
    profile.counters.push(CounterRecord {
        name: "retries".into(),
        file: "src/main.rs".into(),
        line: 7,
        also_at: vec![],
        events: retries,
        total: retries,
        threads: 1,
    });
    profile.gauges.push(GaugeRecord {
        name: "queue_depth".into(),
        file: "src/main.rs".into(),
        line: 9,
        also_at: vec![],
        samples: 4,
        last: 2.0,
        min: 1.0,
        max: 8.0,
        mean: 3.5,
    });
    profile.to_json_pretty().unwrap()
}

fn experiment(name: &str) -> Experiment {
    Settings {
        name: Some(name.into()),
        variants: vec![
            VariantSettings {
                name: Some("baseline".into()),
                command: Some("./parse --old".into()),
                ..Default::default()
            },
            VariantSettings {
                name: Some("candidate".into()),
                command: Some("./parse --new".into()),
                ..Default::default()
            },
        ],
        seed: Some(1),
        ..Default::default()
    }
    .into_experiment()
    .unwrap()
}

/// One A/B experiment at `commit`: B's wall time is `b` times A's, with a fixed ripple.
fn store_ab(store: &Store, exp: &Experiment, commit: &str, b: f64) -> i64 {
    let prov = provenance(commit);
    let (id, ids) = begin_ab(store, exp, &prov, "{}").unwrap();
    let mut runs: [Vec<RunOutcome>; 2] = [Vec::new(), Vec::new()];
    for i in 0..12 {
        for (side, factor) in [(0, 1.0), (1, b)] {
            let ripple = 1.0 + 0.01 * (i as f64 * 1.7 + side as f64 * 0.9).sin();
            let wall = 0.1 * factor * ripple;
            let mut run = FakeExecutor::outcome(wall);
            let ns = (wall * 1e9) as u64;
            run.profile_json = Some(profile(ns * 6 / 10, ns * 3 / 10, ns));
            store
                .record_run(id, ids[side], 2 * i + side, i, false, &run)
                .unwrap();
            runs[side].push(run);
        }
    }
    let evaluation = evaluate(exp, [&runs[0], &runs[1]]).unwrap();
    let ab = AbRun {
        runs,
        evaluation: Some(evaluation),
        header: OutcomeHeader {
            stop: StopReason::Decided,
            experiment_id: Some(id),
            seed: 1,
            provenance: prov,
            machine: None,
            contention: None,
        },
        duet: None,
    };
    let doc = ab_document(exp, &ab).unwrap();
    let change = doc.decision.as_ref().map(|d| (d.change, d.ci[0], d.ci[1]));
    store
        .finish_experiment(
            id,
            ResultStatus::Complete,
            doc.verdict,
            change,
            Some(serde_json::to_string(&doc).unwrap()),
        )
        .unwrap();
    id
}

fn store_sweep(store: &Store) -> i64 {
    let cli = Cli::try_parse_from([
        "perflab",
        "sweep",
        "-p",
        "n=1000,10000,50000,100000",
        "--command-name",
        "hamt",
        "./hamt {n}",
        "--reference",
        "./libhamt {n}",
        "--reference-name",
        "libhamt",
        "--measure",
        "cost",
        "--better",
        "lower",
        "--min-runs",
        "4",
        "--warmup",
        "0",
        "--seed",
        "1",
        "--name",
        "hamt-scale",
    ])
    .unwrap();
    let Command::Sweep(args) = cli.command else {
        panic!("not a sweep")
    };
    let sweep = args.sweep().unwrap();
    let mut exec = FakeExecutor::new(|spec, k| {
        let text = spec.command.display();
        let n: f64 = text.rsplit(' ').next().unwrap().parse().unwrap();
        let per_item = if text.starts_with("./libhamt") {
            56.0
        } else if n >= 50_000.0 {
            368.0
        } else {
            210.0
        };
        let mut run = FakeExecutor::outcome(0.01);
        // Inserting takes a larger share past the cliff; the reference is lookup-bound.
        let insert = if text.starts_with("./libhamt") {
            20
        } else if n >= 50_000.0 {
            70
        } else {
            40
        };
        let thread_ns = 10_000_000;
        run.profile_json = Some(span_profile(
            &[
                ("insert", n as u64, thread_ns * insert / 100),
                ("lookup", n as u64, thread_ns * (80 - insert) / 100),
            ],
            thread_ns,
            &[],
        ));
        let value = n * per_item * (1.0 + 0.004 * (k as f64 * 2.3).sin());
        run.metrics = BTreeMap::from([(
            "cost".to_string(),
            MetricValue {
                value,
                unit: "ns".into(),
            },
        )]);
        Ok(run)
    });
    let mut state = run_sweep(&sweep, &mut exec, Some(store), &mut NoProgress, &mut |s| {
        save_checkpoint(&sweep, Some(store), s)
    })
    .unwrap();
    state.header.provenance = provenance("5");
    let doc = sweep_document(&sweep, &state).unwrap();
    let id = state.header.experiment_id.unwrap();
    store
        .finish_experiment(
            id,
            ResultStatus::Complete,
            None,
            None,
            Some(serde_json::to_string(&doc).unwrap()),
        )
        .unwrap();
    id
}

fn filled_store() -> (Store, i64, i64) {
    let store = Store::in_memory().unwrap();
    let exp = experiment("parse");
    store_ab(&store, &exp, "1", 0.98);
    store_ab(&store, &exp, "2", 0.80);
    let ab = store_ab(&store, &exp, "3", 0.85);
    let sweep = store_sweep(&store);
    (store, ab, sweep)
}

#[test]
fn the_markdown_of_an_ab_experiment_shows_verdict_spans_and_history() {
    let (store, ab, _) = filled_store();
    let data = gather(&store, &[ab.to_string()], true).unwrap();
    insta::assert_snapshot!("ab_report", report_markdown(&data));
}

#[test]
fn the_markdown_of_a_sweep_shows_points_ratios_growth_the_cliff_and_spans_per_point() {
    let (store, _, sweep) = filled_store();
    let data = gather(&store, &[sweep.to_string()], true).unwrap();
    insta::assert_snapshot!("sweep_report", report_markdown(&data));
}

#[test]
fn the_markdown_of_a_differential_profile_shows_shares_with_intervals_and_what_moved() {
    let store = Store::in_memory().unwrap();
    let id = store_differential_profile(
        &store,
        &provenance("4"),
        [BASELINE_STACKS, CANDIDATE_STACKS],
    );
    let data = gather(&store, &[id.to_string()], true).unwrap();
    insta::assert_snapshot!("profile_report", report_markdown(&data));
}

#[test]
fn the_markdown_of_counted_runs_shows_exactness_and_the_functions_whose_counts_changed() {
    let store = Store::in_memory().unwrap();
    let id = store_instruction_counts(&store, &provenance("6"));
    let data = gather(&store, &[id.to_string()], true).unwrap();
    insta::assert_snapshot!("instructions_report", report_markdown(&data));
}

#[test]
fn the_html_of_a_profile_draws_its_shares_and_inlines_its_flame_graph_without_script() {
    let store = Store::in_memory().unwrap();
    let hostile = "parser;main;<script>alert('x')</script> 40\n";
    let id = store_differential_profile(
        &store,
        &provenance("4"),
        [
            &format!("{BASELINE_STACKS}{hostile}"),
            &format!("{CANDIDATE_STACKS}{hostile}"),
        ],
    );
    let html = report_html(&gather(&store, &[id.to_string()], true).unwrap());
    for kind in ["shares", "share-changes", "flamegraph"] {
        assert!(
            html.contains(&format!(r#"data-chart="{kind}""#)),
            "no {kind} chart"
        );
    }
    assert_eq!(
        html.matches(r#"data-chart="shares""#).count(),
        2,
        "one per profile"
    );
    assert!(!html.contains("<script"), "a script tag got through");
    assert!(!html.contains("onload="), "an event handler got through");
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
    let outside = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!outside.contains("http://") && !outside.contains("https://"));
}

#[test]
fn profiles_that_cannot_be_read_are_one_warning_in_the_report_not_left_out() {
    let store = Store::in_memory().unwrap();
    let record = VariantRecord {
        name: "command",
        command: "./parse",
        env: &[],
        cwd: None,
    };
    let (id, variants) = store
        .begin_experiment(
            ExperimentKind::Run,
            None,
            Some("wall"),
            &provenance("7"),
            "{}",
            &[record],
        )
        .unwrap();
    let cut_short = r#"{"format": "perflab-profile/1", "spans": ["#;
    let profiles = [
        Some(profile(600, 300, 1000)),
        Some(cut_short.to_string()),
        Some(cut_short.to_string()),
        None,
    ];
    for (i, text) in profiles.into_iter().enumerate() {
        let mut run = FakeExecutor::outcome(0.1);
        run.profile_json = text;
        store
            .record_run(id, variants[0], i + 1, i, false, &run)
            .unwrap();
    }
    let markdown = report_markdown(&gather(&store, &[id.to_string()], true).unwrap());
    let warning =
        r#"> warning: variant "command", 2 runs (first: run 2): the profile could not be read: "#;
    assert_eq!(markdown.matches(warning).count(), 1, "{markdown}");
    assert!(
        markdown.contains("**command**: 1 profiled runs"),
        "the readable profile is still shown: {markdown}"
    );
}

#[test]
fn every_user_supplied_string_is_escaped_in_the_html() {
    let store = Store::in_memory().unwrap();
    let hostile = "<script>alert('x')</script>";
    let mut exp = experiment(hostile);
    exp.variants[0].name = "<img src=x onerror=alert(1)>".into();
    let id = store_ab(&store, &exp, "1", 0.9);
    let html = report_html(&gather(&store, &[id.to_string()], true).unwrap());
    assert!(!html.contains("<script"), "a script tag got through");
    assert!(!html.contains("<img"), "an img tag got through");
    assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
    assert!(html.contains("Content-Security-Policy"));
    let outside = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!outside.contains("http://") && !outside.contains("https://"));
}

#[test]
fn the_html_of_an_ab_experiment_tables_its_counters_and_gauges() {
    let (store, ab, _) = filled_store();
    let data = gather(&store, &[ab.to_string()], true).unwrap();
    let html = report_html(&data);
    let section = &html[html
        .find("<h3>Counters and gauges</h3>")
        .expect("a section")..];
    assert!(
        section.contains(
            r#"<td><code>retries</code></td><td class="num">6</td><td class="num">5</td>"#
        ),
        "{section}"
    );
    assert!(section.contains("3.5 [1 … 8]"), "{section}");
}
