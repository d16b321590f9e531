//! `perflab bisect`: the first commit at which a command got slower, by a
//! binary search of A/B experiments against GOOD ([`crate::bisect`]).

use crate::error::to_json_pretty;
use std::path::PathBuf;

use perflab_runner::{Executor, InstructionExecutor};
use perflab_stats::{Verdict, bisect_step_confidence};

use crate::ab::run_ab;
use crate::bisect::{Judgement, SearchEnd, max_steps, search};
use crate::cli::{AbArgs, BisectArgs, RunOptions};
use crate::engine::StopReason;
use crate::error::{EXIT_INCONCLUSIVE, EXIT_INTERRUPTED, EXIT_OK, Error, Result};
use crate::experiment::{Experiment, Settings};
use crate::progress::progress_for;
use crate::revisions::{BuiltRevision, RevisionBuilder};
use perflab_report::bisect::{BISECT_FORMAT, BisectDocument, RemainingDoc, RevisionDoc, StepDoc};
use perflab_report::sections::cpu_wait::contention_line;
use perflab_report::write_text;
use perflab_store::Store;
use perflab_store::provenance::VariantRevision;

use super::ab::record_outcome;
use super::raise_shield;
use crate::system::shield::Shield;
use perflab_format::machine::ShieldDoc;

/// `perflab bisect`. `executor_for(perf_events)` gives the executor of the runs.
pub fn bisect<E: Executor>(
    args: &BisectArgs,
    store: &Store,
    executor_for: impl FnOnce(bool) -> Result<E>,
) -> Result<i32> {
    let (_, confidence) = args.decision.decision()?;
    let dir = args.run.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
    let builder = RevisionBuilder::new(&dir, args.build.clone(), args.allow_dirty, "--good/--bad")?;
    let good = builder.resolve(&args.good, "--good")?;
    let bad = builder.resolve(&args.bad, "--bad")?;
    if good == bad || !builder.repo.is_ancestor(&good, &bad) {
        return Err(Error::usage(
            "--good/--bad",
            format!(
                "GOOD '{}' is not an ancestor of BAD '{}' (or is the same commit); give as --good \
                 an older commit from which --bad descends, e.g. --good v1.0 --bad main",
                args.good, args.bad
            ),
        ));
    }
    let path = builder.repo.first_parent_path(&good, &bad)?;
    let steps_at_most = max_steps(path.len());
    let step_confidence = bisect_step_confidence(confidence, steps_at_most);
    let template = step_settings(args, step_confidence)?;
    let base = template.clone().into_experiment()?;
    let base_max_runs = base.limits.max_runs;
    let (metric_name, better) = (base.metric.name.clone(), base.metric.better);
    let good_tree = builder.prepare(&args.good, &good)?;
    // One shield for the whole search, recorded in every step's result;
    // raised before the executor starts its fork server, which it leaves
    // where it is.
    let shield = raise_shield(base.shield.as_ref())?;
    let mut executor = executor_for(template.perf_events.unwrap_or(false))?;
    let shield_doc = shield.as_ref().map(Shield::doc);
    let mut steps = Vec::new();
    let mut interrupted = false;
    let end = search(path.len(), |index, attempt| {
        if interrupted {
            return Ok(Judgement::Undecided);
        }
        let commit = &path[index];
        let short = builder.repo.short(commit);
        let candidate = builder.prepare(&short, commit)?;
        let mut settings = template.clone();
        settings.max_runs = Some(base_max_runs << attempt);
        for (variant, (name, tree)) in settings
            .variants
            .iter_mut()
            .zip([(&args.good, &good_tree), (&short, &candidate)])
        {
            variant.name = Some(name.clone());
            variant.cwd = Some(builder.run_dir(tree));
        }
        let exp = settings.into_experiment()?;
        let (step, stop) = run_step(
            store,
            &exp,
            &mut executor,
            [&good_tree, &candidate],
            args,
            shield_doc.as_ref(),
        )?;
        let subject = builder.repo.subject(commit);
        interrupted = stop == StopReason::Interrupted;
        // An interrupted step decides nothing, whatever its runs so far say.
        let judgement = match step.verdict.filter(|_| !interrupted) {
            Some(Verdict::NoGo) => Judgement::Bad,
            Some(Verdict::Go | Verdict::Neutral) => Judgement::Good,
            _ => Judgement::Undecided,
        };
        let doc = StepDoc {
            commit: commit.clone(),
            subject,
            verdict: step
                .verdict
                .map_or("INCONCLUSIVE", Verdict::as_str)
                .to_string(),
            judgement: match judgement {
                Judgement::Good => "good",
                Judgement::Bad => "bad",
                Judgement::Undecided => "undecided",
            }
            .to_string(),
            change: step.change,
            ci: step.ci,
            runs: step.runs,
            max_runs: exp.limits.max_runs,
            experiment_id: step.experiment_id,
        };
        println!(
            "{}",
            BisectDocument::step_line(steps.len() + 1, &doc, &metric_name, better).trim_end()
        );
        if let Some(line) = &step.contention {
            println!("  {line}");
        }
        steps.push(doc);
        Ok::<_, Error>(judgement)
    })?;
    drop(shield);
    let revision = |given: &str, commit: &str| RevisionDoc {
        revision: given.to_string(),
        commit: commit.to_string(),
    };
    let found = match end {
        SearchEnd::Found(i) => Some(path[i].clone()),
        _ => None,
    };
    let doc = BisectDocument {
        format: BISECT_FORMAT.to_string(),
        outcome: match end {
            SearchEnd::Found(_) => "found",
            SearchEnd::NotSlower => "not-slower",
            SearchEnd::Undecided { .. } => "undecided",
        }
        .to_string(),
        first_bad_subject: found.as_ref().map(|c| builder.repo.subject(c)),
        first_bad: found,
        remaining: match end {
            SearchEnd::Undecided { after_good, up_to } => Some(RemainingDoc {
                after: after_good.map_or_else(|| good.clone(), |g| path[g].clone()),
                up_to: path[up_to].clone(),
                commits: up_to - after_good.map_or(0, |g| g + 1) + 1,
            }),
            _ => None,
        },
        good: revision(&args.good, &good),
        bad: revision(&args.bad, &bad),
        command: args.command_line().to_string(),
        metric: template.measure.clone().unwrap_or_else(|| "wall".into()),
        better,
        commits: path.len(),
        confidence,
        step_confidence,
        max_steps: steps_at_most,
        steps,
    };
    println!("{}", doc.conclusion());
    write_outputs(&doc, &args.run)?;
    if interrupted {
        eprintln!(
            "perflab: interrupted; the finished runs of each step are kept in {}",
            store.path().display()
        );
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(match end {
        SearchEnd::Found(_) => EXIT_OK,
        _ => EXIT_INCONCLUSIVE,
    })
}

/// The settings of every step: GOOD against a candidate, both running the
/// command, deciding at the step's share of the confidence.
fn step_settings(args: &BisectArgs, step_confidence: f64) -> Result<Settings> {
    let ab = AbArgs {
        commands: vec![args.command_line().to_string()],
        measure: args.measure.clone(),
        better: args.better.clone(),
        decision: args.decision.clone(),
        min_runs: args.min_runs,
        max_runs: args.max_runs,
        seed: args.seed,
        machine: args.machine.clone(),
        contention: args.contention.clone(),
        run: RunOptions {
            json: None,
            markdown: None,
            ..args.run.clone()
        },
        ..AbArgs::default()
    };
    let mut settings = ab.settings()?;
    settings.confidence = Some(step_confidence);
    Ok(settings)
}

/// What a step's A/B found.
struct StepOutcome {
    verdict: Option<Verdict>,
    change: Option<f64>,
    ci: Option<[f64; 2]>,
    runs: usize,
    experiment_id: Option<i64>,
    /// What the contention rule did, when it measured a block again.
    contention: Option<String>,
}

/// One A/B of the candidate against GOOD, stored like any `perflab ab`.
fn run_step<E: Executor>(
    store: &Store,
    exp: &Experiment,
    executor: &mut E,
    trees: [&BuiltRevision; 2],
    args: &BisectArgs,
    shield: Option<&ShieldDoc>,
) -> Result<(StepOutcome, StopReason)> {
    let counting = exp.counts_instructions();
    let mut progress = progress_for("bisect step", exp.limits.max_runs, args.run.quiet);
    let mut ab = if counting {
        let mut counter = InstructionExecutor::new(executor, &exp.keep_env)?;
        run_ab(exp, &mut counter, Some(store), progress.as_mut())?
    } else {
        run_ab(exp, executor, Some(store), progress.as_mut())?
    };
    if let Some(shield) = shield {
        ab.header.machine.get_or_insert_default().shield = Some(shield.clone());
    }
    ab.header.provenance.revisions = exp
        .variants
        .iter()
        .zip(trees)
        .map(|(v, t)| VariantRevision {
            variant: v.name.clone(),
            revision: t.given.clone(),
            commit: t.commit.clone(),
            working_tree: t.working_tree,
        })
        .collect();
    let doc = record_outcome(store, exp, &ab)?;
    let decision = doc.decision.as_ref();
    Ok((
        StepOutcome {
            verdict: ab.evaluation.as_ref().map(|e| e.verdict),
            change: decision.map(|d| d.change),
            ci: decision.map(|d| d.ci),
            runs: ab.runs[0].len().min(ab.runs[1].len()),
            experiment_id: ab.header.experiment_id,
            contention: contention_line(&doc),
        },
        ab.header.stop,
    ))
}

fn write_outputs(doc: &BisectDocument, run: &RunOptions) -> Result<()> {
    if let Some(path) = &run.json {
        let json = to_json_pretty("the bisect document", doc)?;
        write_text(path, &format!("{json}\n"))?;
    }
    if let Some(path) = &run.markdown {
        write_text(path, &doc.markdown())?;
    }
    Ok(())
}
