//! Stored profiles for the report tests, made without perf or valgrind but
//! exactly as the commands store them: span profiles as an instrumented
//! program writes them, a differential sampling profile (as
//! `perflab profile --baseline` leaves it: the `perflab-sampling/1` document
//! and the folded stacks of each command) and an A/B run counted under
//! valgrind (its result and the `perflab-instructions/1` attachment).
#![allow(dead_code)]

use perflab_format::vocabulary::{ExperimentKind, ResultStatus};
use std::collections::{BTreeMap, HashMap};

use perflab_cli::ab::AbRun;
use perflab_cli::decide::evaluate;
use perflab_cli::engine::{OutcomeHeader, StopReason};
use perflab_cli::experiment::Settings;
use perflab_cli::experiment::settings::VariantSettings;
use perflab_cli::profilers::FunctionCounts;
use perflab_cli::profilers::diff::share_changes;
use perflab_cli::profilers::instructions::{CountedVariant, instructions_document};
use perflab_cli::profilers::warnings::profile_warnings;
use perflab_cli::result_document::{ab_document, provenance_map};
use perflab_format::sampling::{SAMPLING_FORMAT, SampledProfile, SamplerInfo, SamplingDocument};
use perflab_report::sampling::FoldedStacks;
use perflab_runner::callgrind::CallgrindCounts;
use perflab_runner::{FakeExecutor, MetricValue, RunOutcome};
use perflab_store::provenance::Provenance;
use perflab_store::{Store, VariantRecord};

/// A shell command for `perflab ab` or `perflab run` that hands perflab, as
/// an instrumented program would, the next of the `count` profiles
/// `{prefix}0.json`, `{prefix}1.json`... written beforehand.
pub fn writes_profiles(prefix: &str, count: usize) -> String {
    format!(
        "c=$(cat {prefix}.count 2>/dev/null || echo 0); echo $((c+1)) > {prefix}.count; \
         cp {prefix}$((c % {count})).json \"$PERFLAB_PROFILE\""
    )
}

/// A complete `perflab-profile/1` document of one thread of `thread_ns`:
/// spans as (name, calls, self time in ns), each its own inclusive time,
/// and `warnings` about unattributed time.
pub fn span_profile(spans: &[(&str, u64, u64)], thread_ns: u64, warnings: &[&str]) -> String {
    use perflab_format::profile::*;
    let span = |&(name, calls, self_ns): &(&str, u64, u64)| SpanRecord {
        name: name.into(),
        kind: SpanKind::Span,
        file: "src/main.rs".into(),
        line: 1,
        also_at: vec![],
        calls,
        inclusive_ns: self_ns,
        self_ns,
        mean_ns: self_ns as f64 / calls as f64,
        min_ns: self_ns / calls,
        p50_ns: self_ns / calls,
        p95_ns: self_ns / calls,
        p99_ns: self_ns / calls,
        max_ns: self_ns / calls,
        threads: 1,
        unwound: 0,
        async_stats: None,
        alloc: None,
    };
    let attributed: u64 = spans.iter().map(|s| s.2).sum();
    Profile {
        format: PROFILE_FORMAT.into(),
        program: "parse".into(),
        pid: 1,
        session: SessionInfo {
            name: "parse".into(),
            scope: SessionScope::Process,
            wall_ns: thread_ns,
            cpu_ns: Some(thread_ns),
            ended_by: SessionEnd::Finished,
            started_unix_ms: 0,
            unattributed_threshold: 0.1,
        },
        timer: TimerInfo {
            name: "tsc".into(),
            span_cost_ns: 20.0,
            percentile_relative_error: 1.0 / 64.0,
            instrumentation_ns: 220,
        },
        spans: spans.iter().map(span).collect(),
        threads: vec![ThreadRecord {
            id: 1,
            name: Some("main".into()),
            os_tid: None,
            wall_ns: thread_ns,
            cpu_ns: None,
            preempted_ns: None,
            blocked_ns: None,
            attributed_ns: attributed,
            unattributed_ns: thread_ns - attributed,
            ended: false,
        }],
        counters: vec![],
        gauges: vec![],
        locks: vec![],
        warnings: warnings
            .iter()
            .map(|message| Warning {
                kind: WarningKind::Unattributed,
                subject: "main".into(),
                message: message.to_string(),
            })
            .collect(),
    }
    .to_json_pretty()
    .unwrap()
}

/// The baseline: parsing takes most samples.
pub const BASELINE_STACKS: &str = "parser;main;parse_input 620\nparser;main;compute;hash 250\n\
    parser;main;compute 80\nparser;main;compute;Set::operator| 30\nparser;main;write_output 50\nparser;[unknown] 12\n";

/// The candidate: parsing halved, the rest unchanged, and far fewer samples.
pub const CANDIDATE_STACKS: &str = "parser;main;parse_input 155\nparser;main;compute;hash 125\n\
    parser;main;compute 40\nparser;main;compute;Set::operator| 15\nparser;main;write_output 25\nparser;[unknown] 6\n";

fn records<'a>(names: &'a [&'a str], commands: &'a [&'a str]) -> Vec<VariantRecord<'a>> {
    names
        .iter()
        .zip(commands)
        .map(|(name, command)| VariantRecord {
            name,
            command,
            env: &[],
            cwd: None,
        })
        .collect()
}

/// A differential sampling profile of `./parser --old` to `./parser --new`
/// from these folded stacks.
pub fn store_differential_profile(
    store: &Store,
    provenance: &Provenance,
    [baseline, candidate]: [&str; 2],
) -> i64 {
    let commands = ["./parser --old", "./parser --new"];
    let (id, variants) = store
        .begin_experiment(
            ExperimentKind::Profile,
            Some("parser-profile"),
            None,
            provenance,
            "{}",
            &records(&["A", "B"], &commands),
        )
        .unwrap();
    let mut profiles = Vec::new();
    let mut counts = Vec::new();
    let mut warnings = Vec::new();
    for (i, (name, stacks)) in [("A", baseline), ("B", candidate)].into_iter().enumerate() {
        let folded = FoldedStacks::parse(stacks).unwrap();
        store
            .record_folded(id, variants[i], folded.total(), &folded.to_text())
            .unwrap();
        let c = FunctionCounts::of(&folded);
        let functions = c.top(10, 0.95).unwrap();
        warnings.extend(profile_warnings(
            &format!("{name}: "),
            &c,
            &functions,
            999,
            0.95,
        ));
        profiles.push(SampledProfile {
            name: name.into(),
            command: commands[i].into(),
            exit_code: Some(0),
            wall_s: 1.25,
            samples: c.total,
            unknown_samples: c.unknown,
            flamegraph: None,
            functions,
            off_cpu: None,
        });
        counts.push(c);
    }
    let doc = SamplingDocument {
        format: SAMPLING_FORMAT.into(),
        name: Some("parser-profile".into()),
        experiment_id: Some(id),
        sampler: SamplerInfo {
            tool: "perf record".into(),
            event: "cpu-clock".into(),
            frequency_hz: 999,
            call_graph: "fp".into(),
        },
        confidence: 0.95,
        profiles,
        changes: share_changes(&counts[0], &counts[1], 0.95).unwrap(),
        off_cpu_changes: vec![],
        warnings,
        provenance: Some(provenance_map(provenance)),
    };
    let json = serde_json::to_string(&doc).unwrap();
    store
        .finish_experiment(id, ResultStatus::Complete, None, None, Some(json))
        .unwrap();
    id
}

fn callgrind(functions: &[(&str, &str, u64)]) -> CallgrindCounts {
    CallgrindCounts {
        total: functions.iter().map(|f| f.2).sum(),
        functions: functions
            .iter()
            .map(|(object, name, n)| ((object.to_string(), name.to_string()), *n))
            .collect::<HashMap<_, _>>(),
    }
}

/// An A/B run counted under valgrind: the same count in every run of each
/// variant (exact), B executing a third fewer instructions, mostly in `heavy`.
pub fn store_instruction_counts(store: &Store, provenance: &Provenance) -> i64 {
    let commands = ["./two 100000 3", "./two 100000 1"];
    let exp = Settings {
        name: Some("counted".into()),
        measure: Some("instructions".into()),
        variants: commands
            .iter()
            .map(|c| VariantSettings {
                command: Some(c.to_string()),
                ..Default::default()
            })
            .collect(),
        min_runs: Some(2),
        seed: Some(1),
        ..Default::default()
    }
    .into_experiment()
    .unwrap();
    let (id, variants) = store
        .begin_experiment(
            ExperimentKind::Ab,
            Some("counted"),
            Some("instructions"),
            provenance,
            "{}",
            &records(&["A", "B"], &commands),
        )
        .unwrap();
    let totals = [2_296_049.0, 1_296_068.0];
    let mut runs: [Vec<RunOutcome>; 2] = [Vec::new(), Vec::new()];
    for i in 0..2 {
        for side in 0..2 {
            let mut run = FakeExecutor::outcome(0.01);
            run.metrics = BTreeMap::from([(
                "instructions".to_string(),
                MetricValue {
                    value: totals[side],
                    unit: "instructions".into(),
                },
            )]);
            store
                .record_run(id, variants[side], 2 * i + side, i, false, &run)
                .unwrap();
            runs[side].push(run);
        }
    }
    let evaluation = evaluate(&exp, [&runs[0], &runs[1]]).unwrap();
    let ab = AbRun {
        runs,
        evaluation: Some(evaluation),
        header: OutcomeHeader {
            stop: StopReason::Decided,
            experiment_id: Some(id),
            seed: 1,
            provenance: provenance.clone(),
            machine: None,
            contention: None,
        },
        duet: None,
    };
    let doc = ab_document(&exp, &ab).unwrap();
    let change = doc.decision.as_ref().map(|d| (d.change, d.ci[0], d.ci[1]));
    let json = serde_json::to_string(&doc).unwrap();
    store
        .finish_experiment(id, ResultStatus::Complete, doc.verdict, change, Some(json))
        .unwrap();
    let a = callgrind(&[
        ("/tmp/two", "heavy", 1_500_140),
        ("/tmp/two", "light", 500_120),
        ("/usr/lib/x86_64-linux-gnu/libc.so.6", "_itoa_word", 360),
        ("/tmp/two", "Set::operator|", 1_000),
    ]);
    let b = callgrind(&[
        ("/tmp/two", "heavy", 500_140),
        ("/tmp/two", "light", 500_120),
        ("/usr/lib/x86_64-linux-gnu/libc.so.6", "_itoa_word", 374),
        ("/tmp/two", "Set::operator|", 1_200),
    ]);
    let counted = [(&a, totals[0] as u64), (&b, totals[1] as u64)];
    let variants: Vec<CountedVariant> = ["A", "B"]
        .iter()
        .zip(commands)
        .zip(counted)
        .map(|((name, command), (functions, total))| CountedVariant {
            name,
            command: command.to_string(),
            counts: vec![total, total],
            functions: Some(functions),
        })
        .collect();
    let counts = instructions_document(Some(id), vec!["PATH=/usr/bin:/bin".into()], &variants);
    store
        .attach(id, "instructions", &serde_json::to_string(&counts).unwrap())
        .unwrap();
    id
}
