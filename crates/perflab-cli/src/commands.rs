//! The glue of each subcommand: settings in, engine, outputs, exit code.

use perflab_format::result::{MetricInfo, RESULT_FORMAT, ResultDocument, VariantDoc};
use perflab_stats::{Better, Thresholds, Verdict, classify, hodges_lehmann_change};

use crate::ab::{StopReason, run_ab};
use crate::cli::{AbArgs, CompareArgs, HistoryArgs, RunArgs};
use crate::decide::describe_runs_needed;
use crate::document::{ab_document, decision_doc, mann_whitney_p, metric_info, provenance_map, summary_doc, variant_doc};
use crate::error::{EXIT_INCONCLUSIVE, EXIT_INTERRUPTED, EXIT_NO_GO, EXIT_OK, Error, Result};
use crate::experiment::{MetricChoice, Settings, read_experiment_file};
use crate::experiment::{parse_better, parse_env};
use crate::progress::progress_for;
use crate::provenance::Provenance;
use crate::report::{Render, TerminalReport, write_requested};
use crate::runner::{CommandLine, Executor, ExitState, MetricExtractor, ProcessExecutor, RunSpec, interrupted};
use crate::samples::read_samples;
use crate::store::{Store, VariantRecord};
use crate::units::{format_percent, parse_duration, parse_percent};

/// The exit code for a verdict.
pub fn exit_code_for(verdict: Option<Verdict>) -> i32 {
    match verdict {
        Some(Verdict::NoGo) => EXIT_NO_GO,
        Some(Verdict::Inconclusive) => EXIT_INCONCLUSIVE,
        _ => EXIT_OK,
    }
}

/// `perflab ab`.
pub fn ab(args: &AbArgs, store: &Store, executor: &mut dyn Executor) -> Result<i32> {
    let from_file = match &args.file {
        Some(path) => read_experiment_file(path)?,
        None => Settings::default(),
    };
    let exp = from_file.overlay(Settings::from_ab_args(args)?).into_experiment()?;
    let mut progress = progress_for("ab", exp.max_runs, args.run.quiet);
    let ab = run_ab(&exp, executor, Some(store), progress.as_mut())?;
    let doc = ab_document(&exp, &ab)?;
    let verdict = ab.evaluation.as_ref().map(|e| e.verdict);
    if let Some(id) = ab.experiment_id {
        let status = if ab.stop == StopReason::Interrupted { "incomplete" } else { "complete" };
        let change = doc.decision.as_ref().map(|d| (d.change, d.ci[0], d.ci[1]));
        let json = serde_json::to_string(&doc).unwrap_or_default();
        store.finish_experiment(id, status, doc.verdict.as_deref(), change, Some(&json))?;
    }
    print!("{}", TerminalReport.render(&doc));
    write_requested(&doc, args.run.json.as_deref(), args.run.markdown.as_deref())?;
    if ab.stop == StopReason::Interrupted {
        let kept = ab.runs[0].len() + ab.runs[1].len();
        eprintln!("perflab: interrupted; {kept} finished runs are kept in {}, marked incomplete", store.path().display());
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(exit_code_for(verdict))
}

/// `perflab compare`.
pub fn compare(args: &CompareArgs, store: &Store) -> Result<i32> {
    let better = parse_better(&args.better, "--better")?;
    let go = args.go.as_deref().map(parse_percent).transpose().map_err(|e| Error::usage("--go", e))?.unwrap_or(0.01);
    let nogo = args.nogo.as_deref().map(parse_percent).transpose().map_err(|e| Error::usage("--nogo", e))?.unwrap_or(-0.005);
    let thresholds = Thresholds::new(go, nogo).map_err(|e| Error::usage("--go/--nogo", e.to_string()))?;
    let confidence = args.confidence.unwrap_or(0.95);
    if !(0.5..1.0).contains(&confidence) {
        return Err(Error::usage("--confidence", format!("{confidence} is not a level between 0.5 and 1 (e.g. 0.95)")));
    }
    let a = read_samples(&args.baseline, args.measure.as_deref())?;
    let b = read_samples(&args.candidate, args.measure.as_deref())?;
    let spread = |v: &[f64]| v.iter().cloned().fold(f64::NEG_INFINITY, f64::max) - v.iter().cloned().fold(f64::INFINITY, f64::min);
    if spread(&a.values) == 0.0 && spread(&b.values) == 0.0 {
        return Err(Error::Stats(format!(
            "both samples are constant ({} values of {} in {}, {} values of {} in {}): there is no noise to judge a change against. \
             If these are exact counts, their difference is exact; if they are timings, check that the files hold measurements",
            a.values.len(), a.values[0], args.baseline, b.values.len(), b.values[0], args.candidate
        )));
    }
    let interval = hodges_lehmann_change(&a.values, &b.values, better, confidence)?;
    let verdict = classify(&interval, &thresholds);
    let band = format!("[{}, {}]", format_percent(interval.lo), format_percent(interval.hi));
    let reason = match verdict {
        Verdict::Go => format!("the whole interval {band} lies at or above the GO threshold {}", format_percent(go)),
        Verdict::NoGo => format!("the whole interval {band} lies at or below the NO-GO threshold {}", format_percent(nogo)),
        Verdict::Neutral => format!("the whole interval {band} lies inside ({}, {}): equivalent within the band", format_percent(nogo), format_percent(go)),
        Verdict::Inconclusive => format!("the interval {band} straddles a threshold; more samples are needed"),
    };
    let runs_needed = (verdict == Verdict::Inconclusive)
        .then(|| perflab_stats::runs_needed_independent(&a.values, &b.values, better, &thresholds, confidence).ok())
        .flatten();
    let runs = a.values.len().min(b.values.len());
    let method = "Hodges-Lehmann shift of log values with the Moses/Bauer distribution-free interval (fixed samples, no optional stopping)";
    let unit = if a.unit.is_empty() { b.unit.clone() } else { a.unit.clone() };
    let variant = |s: &crate::samples::Samples| -> Result<VariantDoc> {
        Ok(VariantDoc { name: s.name.clone(), command: None, env: Default::default(), runs: s.values.len(), summary: summary_doc(&s.values)?, samples: s.values.clone(), run_details: Vec::new() })
    };
    let mut variants = vec![variant(&a)?, variant(&b)?];
    if variants[0].name == variants[1].name {
        variants[0].name = format!("{} (A)", variants[0].name);
        variants[1].name = format!("{} (B)", variants[1].name);
    }
    let decision = decision_doc(verdict, reason, &interval, &thresholds, method, runs, runs_needed.as_ref(), mann_whitney_p(&variants));
    let metric = MetricInfo { name: args.measure.clone().unwrap_or_else(|| "value".into()), unit, better: if better == Better::Higher { "higher" } else { "lower" }.into() };
    let doc = ResultDocument {
        format: RESULT_FORMAT.into(),
        kind: "compare".into(),
        name: None,
        experiment_id: None,
        status: "complete".into(),
        metric,
        verdict: Some(decision.verdict.clone()),
        change: Some(decision.change),
        ci: Some(decision.ci),
        decision: Some(decision),
        guards: Vec::new(),
        variants,
        seed: None,
        provenance: None,
    };
    let provenance = Provenance::collect(std::path::Path::new("."));
    let records: Vec<VariantRecord<'_>> = doc.variants.iter().map(|v| VariantRecord { name: &v.name, command: "", env: &[], cwd: None }).collect();
    let (id, _) = store.begin_experiment("compare", None, Some(&doc.metric.name), &provenance, "{}", &records)?;
    let mut doc = doc;
    doc.experiment_id = Some(id);
    doc.provenance = Some(provenance_map(&provenance));
    store.finish_experiment(id, "complete", doc.verdict.as_deref(), Some((interval.estimate, interval.lo, interval.hi)), Some(&serde_json::to_string(&doc).unwrap_or_default()))?;
    print!("{}", TerminalReport.render(&doc));
    write_requested(&doc, args.json.as_deref(), args.markdown.as_deref())?;
    let _ = describe_runs_needed;
    Ok(exit_code_for(Some(verdict)))
}

/// `perflab run`.
pub fn run(args: &RunArgs, store: &Store, executor: &mut dyn Executor) -> Result<i32> {
    let runs = args.runs.unwrap_or(10);
    if runs == 0 {
        return Err(Error::usage("--runs", "at least one run is needed"));
    }
    let extractor = std::sync::Arc::new(MetricExtractor::from_definitions(&args.run.metrics)?);
    let env = args.env.iter().map(|e| parse_env(e, "--env")).collect::<Result<Vec<_>>>()?;
    let timeout = args.run.timeout.as_deref().map(parse_duration).transpose().map_err(|e| Error::usage("--timeout", e))?;
    let command = CommandLine::new(&args.command, !args.run.no_shell);
    let name = args.name.clone().unwrap_or_else(|| "command".into());
    let provenance = Provenance::collect(args.run.cwd.as_deref().unwrap_or(std::path::Path::new(".")));
    let display = command.display();
    let (id, variant_ids) = store.begin_experiment(
        "run", args.name.as_deref(), Some("wall"), &provenance, "{}",
        &[VariantRecord { name: &name, command: &display, env: &env, cwd: args.run.cwd.as_deref() }],
    )?;
    let spec = RunSpec { command, env: env.clone(), cwd: args.run.cwd.clone(), timeout, extractor, profile_path: None };
    let mut progress = progress_for("run", runs, args.run.quiet);
    let mut outcomes = Vec::new();
    let mut sequence = 0;
    let warmup = args.run.warmup.unwrap_or(0);
    let result = (|| -> Result<()> {
        for i in 0..warmup + runs {
            if interrupted() {
                break;
            }
            let outcome = executor.execute(&spec)?;
            if outcome.exit == ExitState::Interrupted {
                break;
            }
            sequence += 1;
            let is_warmup = i < warmup;
            store.record_run(id, variant_ids[0], sequence, i.saturating_sub(warmup), is_warmup, &outcome)?;
            if !outcome.exit.success() && !args.run.ignore_failure {
                return Err(crate::ab::failed_run(format!("run {}", i + 1), &display, &outcome));
            }
            if !is_warmup {
                outcomes.push(outcome);
                progress.update(outcomes.len(), runs, None);
            }
        }
        Ok(())
    })();
    progress.finish();
    if let Err(e) = result {
        store.finish_experiment(id, "incomplete", None, None, None)?;
        return Err(e);
    }
    if outcomes.is_empty() {
        store.finish_experiment(id, "incomplete", None, None, None)?;
        return Err(Error::Interrupted("no run finished".into()));
    }
    let wall = MetricChoice::resolve("wall", None, "")?;
    let doc = ResultDocument {
        format: RESULT_FORMAT.into(),
        kind: "run".into(),
        name: args.name.clone(),
        experiment_id: Some(id),
        status: if outcomes.len() < runs { "incomplete" } else { "complete" }.into(),
        metric: metric_info(&wall, None),
        decision: None,
        verdict: None,
        change: None,
        ci: None,
        guards: Vec::new(),
        variants: vec![variant_doc(&name, Some(display.clone()), &env, "wall", &outcomes)?],
        seed: None,
        provenance: Some(provenance_map(&provenance)),
    };
    store.finish_experiment(id, &doc.status, None, None, Some(&serde_json::to_string(&doc).unwrap_or_default()))?;
    print!("{}", TerminalReport.render(&doc));
    print!("{}", crate::report::other_metrics(&outcomes));
    write_requested(&doc, args.run.json.as_deref(), args.run.markdown.as_deref())?;
    Ok(if outcomes.len() < runs { EXIT_INTERRUPTED } else { EXIT_OK })
}

/// `perflab history`.
pub fn history(args: &HistoryArgs, store: &Store) -> Result<i32> {
    let rows = store.list_experiments(args.limit)?;
    if rows.is_empty() {
        println!("No experiments in {} yet. Run `perflab ab CMD_A CMD_B` or `perflab run CMD` first.", store.path().display());
        return Ok(EXIT_OK);
    }
    println!("{:>4}  {:20}  {:7}  {:10}  {:12}  {:>5}  {:28}  {:10}  variants", "id", "started", "kind", "status", "verdict", "runs", "change [interval]", "commit");
    for r in rows {
        let change = r.change.map(|(c, lo, hi)| format!("{} [{}, {}]", format_percent(c), format_percent(lo), format_percent(hi))).unwrap_or_default();
        let commit = r.git.map(|(c, dirty)| format!("{}{}", &c[..c.len().min(8)], if dirty { "+" } else { "" })).unwrap_or_default();
        let variants = r.variants.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(" vs ");
        let name = r.name.map(|n| format!("{n}: ")).unwrap_or_default();
        println!(
            "{:>4}  {:20}  {:7}  {:10}  {:12}  {:>5}  {:28}  {:10}  {name}{variants}",
            r.id, r.started_at, r.kind, r.status, r.verdict.unwrap_or_else(|| "-".into()), r.runs, change, commit
        );
    }
    Ok(EXIT_OK)
}

/// Runs perflab's own executor: real processes.
pub fn real_executor() -> ProcessExecutor {
    ProcessExecutor
}
