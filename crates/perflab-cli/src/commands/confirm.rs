//! `perflab history --confirm`: change points put to interleaved A/Bs.
//!
//! For each change point, the commit before it (the last step of the old
//! level) runs against the commit after it (the first step of the new one)
//! in randomised blocks, in perflab's worktrees of the two commits (the
//! [`crate::revisions`] machinery of `perflab ab --rev`), with the command,
//! environment and folder the series' experiment at the step after the
//! change point was run with. Each A/B is an ordinary `perflab ab` (the A/B
//! driver, its thresholds and decision table), stored under a name of its own
//! ([`confirmation_name`]); its confidence is the history's split over the
//! A/Bs run together ([`bonferroni_confidence`]), so that all of them hold at
//! once at the history's level. Which change points are put to one is the
//! caller's choice (see `commands::history`); what an A/B's result comes to is
//! [`crate::metric_history_confirmation`]'s.

use std::path::{Path, PathBuf};

use perflab_format::change_words::ChangeWords;
use perflab_format::history::ChangePointDoc;
use perflab_runner::{Executor, InstructionExecutor};
use perflab_stats::{
    Better, CONFIRMATION_MAX_PAIRS, ConfirmationSize, FoundChange, RunsNeeded, Thresholds,
    bonferroni_confidence, confirmation_size,
};

use crate::ab::run_ab;
use crate::cli::{AbArgs, HistoryArgs};
use crate::engine::StopReason;
use crate::error::{Error, Result};
use crate::metric_history_confirmation::{
    confirmation_name, confirmation_of, not_run, why_not_confirmable,
};
use crate::progress::progress_for;
use crate::revisions::{BuiltRevision, Repository, RevisionBuilder};
use perflab_report::sections::history::describe_confirmation;
use perflab_store::provenance::VariantRevision;
use perflab_store::{Store, StoredVariant};

use super::ab::record_outcome;

/// A change point to put to an A/B, with the series it belongs to.
pub(super) struct Target<'a> {
    /// The series' experiment name.
    pub name: Option<String>,
    /// The metric.
    pub metric: String,
    /// Which way it is better.
    pub better: Better,
    /// The variant followed.
    pub variant: String,
    /// The series in words, for the progress lines ("variant fast").
    pub title: String,
    /// The experiments of the first step after the change point.
    pub experiments_after: Vec<i64>,
    /// The runs of the commits on either side of the change point, by
    /// commit: the A/B's run limit is sized from them.
    pub runs_around: Vec<Vec<f64>>,
    /// The change point; its confirmation is written into it.
    pub change: &'a mut ChangePointDoc,
}

/// How one change point's A/B runs: its two commits and the stored variant.
struct Planned {
    from: String,
    to: String,
    variant: StoredVariant,
    subdir: PathBuf,
}

/// Puts each target to an A/B, writing its confirmation into its change
/// point (or why it could not be run). Refuses before any run (exit 2)
/// when a commit is missing from the repository or, without `--build`, has
/// no built worktree. Returns true when Ctrl-C stopped it (the A/Bs not run
/// say so).
pub(super) fn confirm_change_points<E: Executor>(
    mut targets: Vec<Target<'_>>,
    args: &HistoryArgs,
    store: &Store,
    executor_for: impl FnOnce(bool) -> Result<E>,
) -> Result<bool> {
    if targets.is_empty() {
        return Ok(false);
    }
    let (_, confidence) = args.decision.decision()?;
    let repo = repository()?;
    let here = subdir_of(&repo, Path::new(".")).unwrap_or_default();
    let mut plans = Vec::new();
    for target in &mut targets {
        let plan = plan(&repo, &here, target, store)?;
        if let Err(why) = &plan {
            target.change.confirmation = Some(not_run(confidence, "", why.clone()));
        }
        plans.push(plan.ok());
    }
    if args.build.is_none() {
        let commits = targets
            .iter()
            .zip(&plans)
            .filter_map(|(t, p)| p.as_ref().map(|p| (t, p)));
        refuse_missing_worktrees(
            &repo,
            commits.flat_map(|(t, p)| [(&t.change.from, &p.from), (&t.change.to, &p.to)]),
        )?;
    }
    let count = plans.iter().flatten().count();
    if count == 0 {
        return Ok(false);
    }
    let split = bonferroni_confidence(confidence, count)?;
    let perf_events = targets
        .iter()
        .zip(&plans)
        .any(|(t, p)| p.is_some() && t.metric.starts_with("perf."));
    let mut executor = executor_for(perf_events)?;
    let mut done = 0;
    let mut interrupted = false;
    for (target, plan) in targets.iter_mut().zip(plans) {
        let Some(plan) = plan else { continue };
        if interrupted {
            target.change.confirmation = Some(not_run(
                split,
                &plan.variant.command,
                "not run: Ctrl-C stopped the confirmations before it".into(),
            ));
            continue;
        }
        done += 1;
        eprintln!(
            "perflab: confirming change point {done} of {count}: {}, {} → {}: an interleaved A/B \
             of the two commits at {}% confidence",
            target.title,
            target.change.from,
            target.change.to,
            percent(split)
        );
        let (confirmation, stopped) =
            run_confirmation(target, &plan, (&repo, args), store, &mut executor, split)?;
        eprintln!(
            "perflab: change point {done} of {count}: {}",
            describe_confirmation(&target.metric, target.better, &confirmation)
        );
        target.change.confirmation = Some(confirmation);
        interrupted = stopped;
    }
    Ok(interrupted)
}

/// A confidence level as a percentage, to a thousandth: "97.5", "98.333".
fn percent(level: f64) -> String {
    let text = format!("{:.3}", 100.0 * level);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The repository of the current folder, where the commits are checked out.
fn repository() -> Result<Repository> {
    Repository::containing(Path::new("."), "--confirm").map_err(|_| {
        Error::usage(
            "--confirm",
            "the current folder is not in a git repository; the confirming A/Bs check the \
             history's commits out into worktrees: run perflab history --confirm inside the \
             repository the history was measured in",
        )
    })
}

/// The folder `dir` relative to the top of its checkout (a worktree's or
/// the repository's own), if it is in one.
fn subdir_of(repo: &Repository, dir: &Path) -> Option<PathBuf> {
    let top = if dir == Path::new(".") {
        repo.root.clone()
    } else {
        Repository::containing(dir, "--confirm").ok()?.root
    };
    let (dir, top) = (
        std::fs::canonicalize(dir).ok()?,
        std::fs::canonicalize(top).ok()?,
    );
    dir.strip_prefix(top).ok().map(Path::to_path_buf)
}

/// How a target's A/B runs, or why it cannot run (a step without a commit,
/// a dirty tree, a variant the store no longer has). A commit the
/// repository does not hold is an error.
fn plan(
    repo: &Repository,
    here: &Path,
    target: &Target<'_>,
    store: &Store,
) -> Result<std::result::Result<Planned, String>> {
    if let Some(why) = why_not_confirmable(target.change) {
        return Ok(Err(why));
    }
    let mut variant = None;
    for &id in target.experiments_after.iter().rev() {
        if let Some(found) = store.stored_variant(id, &target.variant)? {
            variant = Some(found);
            break;
        }
    }
    let Some(variant) = variant else {
        return Ok(Err(format!(
            "the store holds no command of variant '{}' at step {}",
            target.variant, target.change.to
        )));
    };
    let commit = |label: &str, commit: &Option<String>| -> Result<String> {
        let commit = commit.as_deref().unwrap_or_default();
        repo.resolve(commit, "--confirm").map_err(|_| {
            Error::usage(
                "--confirm",
                format!(
                    "commit {label} of the history ({commit}) is not in the repository at {}; run \
                     perflab history --confirm in a clone that holds the history's commits \
                     (git fetch them first)",
                    repo.root.display()
                ),
            )
        })
    };
    let from = commit(&target.change.from, &target.change.from_commit)?;
    let to = commit(&target.change.to, &target.change.to_commit)?;
    // The runs start where the series' runs started, relative to the top of
    // their checkout; in the current folder's place when that folder is gone.
    let subdir = variant
        .run_dir
        .as_deref()
        .filter(|d| d.is_dir())
        .and_then(|d| subdir_of(repo, d))
        .unwrap_or_else(|| here.to_path_buf());
    Ok(Ok(Planned {
        from,
        to,
        variant,
        subdir,
    }))
}

/// Without `--build`, every commit must have a worktree a build succeeded
/// in; refuses (exit 2) naming those that do not (by their steps' labels),
/// and how to fix it.
fn refuse_missing_worktrees<'p>(
    repo: &Repository,
    commits: impl Iterator<Item = (&'p String, &'p String)>,
) -> Result<()> {
    let builder = RevisionBuilder::commits_only(repo.clone(), None, PathBuf::new());
    let mut missing: Vec<&str> = Vec::new();
    for (label, commit) in commits {
        if builder.built_before(label, commit).is_none() && !missing.contains(&label.as_str()) {
            missing.push(label);
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::usage(
        "--confirm",
        format!(
            "no built worktree of commit{} {} under {}; give --build CMD, the command that builds \
             a commit (e.g. --build 'cargo build --release', or --build true when nothing needs \
             building), and perflab checks the commits out there and builds them (worktrees \
             built by perflab ab --rev or perflab bisect are used as they are)",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            repo.worktrees_dir().display()
        ),
    ))
}

/// The plan of a change point's A/B, sized from the history's step and the
/// spread of its runs (perflab-stats' `confirmation_size`, the procedure
/// its simulation validates).
fn size_confirmation(
    target: &Target<'_>,
    thresholds: &Thresholds,
    history_confidence: f64,
    split: f64,
) -> ConfirmationSize {
    let judgement = &target.change.judgement;
    // The judgement is positive when better, in the metric's own direction:
    // the same orientation as the A/B's change.
    let found = FoundChange {
        change: judgement.change,
        interval: judgement.ci,
        confidence: history_confidence,
    };
    let runs: Vec<&[f64]> = target.runs_around.iter().map(Vec::as_slice).collect();
    confirmation_size(&runs, &found, thresholds, split)
}

/// One line on how many pairs a confirming A/B may take, and why.
fn describe_size(size: &ConfirmationSize, target: &Target<'_>) -> String {
    let spread = size
        .run_spread
        .map_or_else(|| "unknown".to_string(), |s| format!("{:.1}%", 100.0 * s));
    let change = ChangeWords::from_improvement(
        &target.metric,
        target.better,
        target.change.judgement.change,
        None,
    )
    .percent();
    let why = match size.needed {
        RunsNeeded::Additional(n) => format!(
            "{n} pairs would decide the history's change of {change} nine times in ten at the \
             runs' spread of {spread} (the history's)"
        ),
        RunsNeeded::MoreThan(cap) => format!(
            "the history's change of {change} is too small against the runs' spread of {spread} \
             to be sure of deciding it within {cap} pairs"
        ),
        RunsNeeded::Unknown => "the history gives nothing to size it from".to_string(),
    };
    format!(
        "this A/B is planned for {} pairs and goes on to {CONFIRMATION_MAX_PAIRS} only while a \
         verdict is within reach: {why}; --max-runs sets a fixed limit instead",
        size.planned_runs
    )
}

/// One change point's A/B, stored like any `perflab ab`; its confirmation
/// and whether Ctrl-C stopped it.
fn run_confirmation<E: Executor>(
    target: &Target<'_>,
    plan: &Planned,
    (repo, args): (&Repository, &HistoryArgs),
    store: &Store,
    executor: &mut E,
    split: f64,
) -> Result<(perflab_format::history::ConfirmationDoc, bool)> {
    let builder =
        RevisionBuilder::commits_only(repo.clone(), args.build.clone(), plan.subdir.clone());
    let labels = [target.change.from.clone(), target.change.to.clone()];
    let mut trees: Vec<BuiltRevision> = Vec::new();
    for (label, commit) in labels.iter().zip([&plan.from, &plan.to]) {
        let built = match &args.build {
            Some(_) => builder.prepare(label, commit)?,
            None => builder.built_before(label, commit).ok_or_else(|| {
                Error::usage(
                    "--confirm",
                    format!("the worktree of commit {label} is gone; give --build CMD"),
                )
            })?,
        };
        trees.push(built);
    }
    let ab = AbArgs {
        commands: vec![plan.variant.command.clone()],
        name: Some(confirmation_name(target.name.as_deref())),
        name_a: Some(labels[0].clone()),
        name_b: Some(labels[1].clone()),
        measure: Some(target.metric.clone()),
        better: Some(target.better.as_str().to_string()),
        decision: args.decision.clone(),
        min_runs: args.min_runs,
        max_runs: args.max_runs,
        ..AbArgs::default()
    };
    let mut settings = ab.settings()?;
    settings.confidence = Some(split);
    if target.metric.starts_with("perf.") {
        settings.perf_events = Some(true);
    }
    for (variant, tree) in settings.variants.iter_mut().zip(&trees) {
        variant.env = plan.variant.env.clone();
        variant.cwd = Some(builder.run_dir(tree));
    }
    let mut exp = settings.into_experiment()?;
    if args.max_runs.is_none() && !exp.counts_instructions() {
        let (thresholds, history_confidence) = args.decision.decision()?;
        let size = size_confirmation(target, &thresholds, history_confidence, split);
        exp.limits.max_runs = CONFIRMATION_MAX_PAIRS.max(exp.limits.min_runs);
        exp.planned_runs = Some(size.planned_runs);
        eprintln!("perflab: {}", describe_size(&size, target));
    }
    let mut progress = progress_for("confirm", exp.limits.max_runs, false);
    let mut outcome = if exp.counts_instructions() {
        let mut counter = InstructionExecutor::new(executor, &exp.keep_env)?;
        run_ab(&exp, &mut counter, Some(store), progress.as_mut())?
    } else {
        run_ab(&exp, executor, Some(store), progress.as_mut())?
    };
    outcome.header.provenance.revisions = exp
        .variants
        .iter()
        .zip(&trees)
        .map(|(v, t)| VariantRevision {
            variant: v.name.clone(),
            revision: t.given.clone(),
            commit: t.commit.clone(),
            working_tree: false,
        })
        .collect();
    let doc = record_outcome(store, &exp, &outcome)?;
    let interrupted = outcome.header.stop == StopReason::Interrupted;
    let confirmation = confirmation_of(
        target.change.judgement.verdict,
        &doc,
        interrupted,
        split,
        &plan.variant.command,
    );
    Ok((confirmation, interrupted))
}
