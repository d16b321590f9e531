//! The interleaved A/Bs that confirm a history's change points (`perflab
//! history --confirm`): which change points are put to one, what the A/Bs
//! are called in the store, and what each one's result comes to.
//!
//! A history measures commit after commit, so a change of the machine
//! between two commits' runs (a busier hour, another runner) looks like a
//! change of the code. An A/B of the commit before a change point against
//! the commit after it, run again in randomised blocks, sees both commits
//! under the same conditions: a change it does not reproduce was not the
//! code's (Chromium's Pinpoint confirms its dashboard's alerts the same way).
//!
//! The A/Bs are stored experiments like any other, under a name of their
//! own ([`confirmation_name`]): they never join the series they confirm,
//! never make a series of their own in `history --changes`, and never
//! count as the newest experiment that says which series are watched.

use perflab_format::history::{ChangePointDoc, ConfirmationDoc};
use perflab_format::result::ResultDocument;
use perflab_format::vocabulary::{StepVerdict, Verdict};

use crate::error::Result;
use perflab_store::{ExperimentRow, Store};

/// What the names of confirming A/Bs start with.
pub const CONFIRMATION_PREFIX: &str = "confirm: ";

/// The name of the A/Bs confirming change points of the series named
/// `series`: "confirm: insert-10K", "confirm: (unnamed)".
pub fn confirmation_name(series: Option<&str>) -> String {
    format!("{CONFIRMATION_PREFIX}{}", series.unwrap_or("(unnamed)"))
}

/// True for the name of a confirming A/B.
pub fn is_confirmation(name: Option<&str>) -> bool {
    name.is_some_and(|n| n.starts_with(CONFIRMATION_PREFIX))
}

/// True when a change point is put to an A/B: it was judged GO or NO-GO
/// between its segments. One judged NEUTRAL or INCONCLUSIVE claims no
/// change beyond the thresholds, so there is nothing to confirm.
pub fn wants_confirmation(c: &ChangePointDoc) -> bool {
    matches!(c.judgement.verdict, StepVerdict::Go | StepVerdict::NoGo)
}

/// Why a change point cannot be put to an A/B of two commits, if it cannot:
/// a step without a commit, or one measured on a tree with uncommitted
/// changes that no commit's worktree holds.
pub fn why_not_confirmable(c: &ChangePointDoc) -> Option<String> {
    for (label, commit) in [(&c.from, &c.from_commit), (&c.to, &c.to_commit)] {
        if commit.is_none() {
            return Some(format!(
                "step {label} has no git commit to check out (it was measured outside a checkout)"
            ));
        }
        if label.ends_with('+') {
            return Some(format!(
                "step {label} was measured on a tree with uncommitted changes, which no commit's \
                 worktree holds"
            ));
        }
    }
    None
}

/// True when the A/B's verdict is the change point's own: GO for a GO,
/// NO-GO for a NO-GO.
pub fn confirms(judged: StepVerdict, verdict: Option<Verdict>) -> bool {
    matches!(
        (judged, verdict),
        (StepVerdict::Go, Some(Verdict::Go)) | (StepVerdict::NoGo, Some(Verdict::NoGo))
    )
}

/// The confirmation a finished A/B, decided at `confidence`, gives a change
/// point judged `judged`. An interrupted A/B confirms nothing, whatever its
/// runs so far say.
pub fn confirmation_of(
    judged: StepVerdict,
    doc: &ResultDocument,
    interrupted: bool,
    confidence: f64,
    command: &str,
) -> ConfirmationDoc {
    let decision = doc.decision.as_ref();
    ConfirmationDoc {
        confirmed: !interrupted && confirms(judged, doc.verdict),
        experiment: doc.experiment_id,
        verdict: doc.verdict,
        change: decision.map(|d| d.change),
        ci: decision.map(|d| d.ci),
        pairs: decision.map_or(0, |d| d.runs),
        confidence,
        command: command.to_string(),
        note: interrupted.then(|| "interrupted before it decided".to_string()),
    }
}

/// The confirmation of a change point that was not put to an A/B, saying why.
pub fn not_run(confidence: f64, command: &str, why: String) -> ConfirmationDoc {
    ConfirmationDoc {
        confirmed: false,
        experiment: None,
        verdict: None,
        change: None,
        ci: None,
        pairs: 0,
        confidence,
        command: command.to_string(),
        note: Some(why),
    }
}

/// The newest experiment (of `host` only, when given) that is not a
/// confirming A/B: the one whose name a history follows by default and
/// whose commit makes a series watched.
pub fn newest_measured(store: &Store, host: Option<&str>) -> Result<Option<ExperimentRow>> {
    // Confirmations come a few at a time, after the experiments they
    // confirm: a short look back almost always finds one.
    let mut limit = 8;
    loop {
        let rows = store.list_experiments(limit, host)?;
        let exhausted = rows.len() < limit;
        if let Some(row) = rows
            .into_iter()
            .find(|r| !is_confirmation(r.name.as_deref()))
        {
            return Ok(Some(row));
        }
        if exhausted {
            return Ok(None);
        }
        limit *= 8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perflab_format::history::Judgement;

    fn change_point(verdict: StepVerdict, to: &str, to_commit: Option<&str>) -> ChangePointDoc {
        ChangePointDoc {
            step: 4,
            from: "a1b2c3d4".into(),
            to: to.into(),
            from_commit: Some("a1b2c3d4e5".into()),
            to_commit: to_commit.map(str::to_string),
            started_at: String::new(),
            steps_before: 4,
            steps_after: 4,
            p_value: 0.005,
            judgement: Judgement {
                change: -0.5,
                ci: Some([-0.6, -0.4]),
                verdict,
                regression: verdict == StepVerdict::NoGo,
                note: None,
            },
            confirmation: None,
        }
    }

    #[test]
    fn confirming_ab_names_are_told_apart_from_the_series_they_confirm() {
        assert_eq!(confirmation_name(Some("insert-10K")), "confirm: insert-10K");
        assert_eq!(confirmation_name(None), "confirm: (unnamed)");
        assert!(is_confirmation(Some(&confirmation_name(Some("x")))));
        assert!(!is_confirmation(Some("insert-10K")));
        assert!(!is_confirmation(None));
    }

    #[test]
    fn only_a_go_or_no_go_change_point_is_put_to_an_ab() {
        let wanted = |v| wants_confirmation(&change_point(v, "e5f6a7b8", Some("e5f6a7b8c9")));
        assert!(wanted(StepVerdict::NoGo) && wanted(StepVerdict::Go));
        assert!(!wanted(StepVerdict::Neutral));
        assert!(!wanted(StepVerdict::Inconclusive));
        assert!(!wanted(StepVerdict::TooFewRuns));
    }

    #[test]
    fn a_step_without_a_commit_or_on_a_dirty_tree_cannot_be_confirmed() {
        let c = change_point(StepVerdict::NoGo, "e5f6a7b8", Some("e5f6a7b8c9"));
        assert_eq!(why_not_confirmable(&c), None);
        let dirty = change_point(StepVerdict::NoGo, "e5f6a7b8+", Some("e5f6a7b8c9"));
        assert!(
            why_not_confirmable(&dirty)
                .unwrap()
                .contains("uncommitted changes")
        );
        let none = change_point(StepVerdict::NoGo, "#7", None);
        assert!(
            why_not_confirmable(&none)
                .unwrap()
                .contains("no git commit")
        );
    }

    #[test]
    fn only_the_change_points_own_verdict_confirms_it() {
        assert!(confirms(StepVerdict::NoGo, Some(Verdict::NoGo)));
        assert!(confirms(StepVerdict::Go, Some(Verdict::Go)));
        for verdict in [
            None,
            Some(Verdict::Go),
            Some(Verdict::Neutral),
            Some(Verdict::Inconclusive),
        ] {
            assert!(!confirms(StepVerdict::NoGo, verdict), "{verdict:?}");
        }
        assert!(!confirms(StepVerdict::Neutral, Some(Verdict::Neutral)));
    }
}
