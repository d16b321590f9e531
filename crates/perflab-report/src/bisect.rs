//! The outcome of a bisection as a document (`perflab-bisect/1`, written
//! by `--json`), and as a table for the terminal and `--markdown`.

use std::fmt;

use serde::Serialize;

use perflab_format::change_words::ChangeWords;
use perflab_format::vocabulary::Better;

/// The format tag of a bisection document.
pub const BISECT_FORMAT: &str = "perflab-bisect/1";

/// A revision of the search: as given, and the commit it named.
#[derive(Debug, Clone, Serialize)]
pub struct RevisionDoc {
    /// As given on the command line.
    pub revision: String,
    /// The full commit id.
    pub commit: String,
}

/// One step: an A/B of a candidate commit against GOOD.
#[derive(Debug, Clone, Serialize)]
pub struct StepDoc {
    /// The candidate's full commit id.
    pub commit: String,
    /// Its subject line.
    pub subject: String,
    /// The A/B verdict (GO, NEUTRAL, NO-GO, INCONCLUSIVE).
    pub verdict: String,
    /// What the search took from it: good, bad or undecided.
    pub judgement: String,
    /// The change of the metric against GOOD (fraction, positive is better:
    /// the decision's orientation; reports word it as the commit relative to
    /// GOOD), if measured.
    pub change: Option<f64>,
    /// Its interval at the step's confidence.
    pub ci: Option<[f64; 2]>,
    /// Runs per variant made.
    pub runs: usize,
    /// The step's run limit per variant (doubled when a step is repeated).
    pub max_runs: usize,
    /// The step's experiment in the store.
    pub experiment_id: Option<i64>,
}

/// The commits the first bad commit is still among, when undecided.
#[derive(Debug, Clone, Serialize)]
pub struct RemainingDoc {
    /// The last commit known good (GOOD itself if no other).
    pub after: String,
    /// The first commit known bad (or BAD).
    pub up_to: String,
    /// Commits in the range, `up_to` included.
    pub commits: usize,
}

/// A bisection's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct BisectDocument {
    /// Always [`BISECT_FORMAT`].
    pub format: String,
    /// `found`, `not-slower` or `undecided`.
    pub outcome: String,
    /// The first commit at which the command got slower, when found.
    pub first_bad: Option<String>,
    /// Its subject line.
    pub first_bad_subject: Option<String>,
    /// Where the first bad commit still is, when the evidence did not decide.
    pub remaining: Option<RemainingDoc>,
    /// The fast revision.
    pub good: RevisionDoc,
    /// The slow revision.
    pub bad: RevisionDoc,
    /// The command measured.
    pub command: String,
    /// The metric the decisions rest on.
    pub metric: String,
    /// Which way the metric is better.
    pub better: Better,
    /// Commits on the first-parent path after GOOD, BAD included.
    pub commits: usize,
    /// The confidence of the whole search.
    pub confidence: f64,
    /// The confidence each step decides at (Bonferroni over `max_steps`).
    pub step_confidence: f64,
    /// The most steps the search may take.
    pub max_steps: usize,
    /// The steps, in the order they were made.
    pub steps: Vec<StepDoc>,
}

impl BisectDocument {
    /// One step as a line for the terminal.
    pub fn step_line(number: usize, step: &StepDoc, metric: &str, better: Better) -> String {
        format!(
            "step {number}: {} {:<40} {:>24}  {:<12} -> {} ({} runs each)\n",
            &step.commit[..step.commit.len().min(12)],
            truncate(&step.subject, 40),
            change_text(step, metric, better),
            step.verdict,
            step.judgement,
            step.runs
        )
    }

    /// The outcome in one sentence.
    pub fn conclusion(&self) -> String {
        match (&self.first_bad, &self.remaining) {
            (Some(hash), _) => format!(
                "first bad commit: {hash} {}",
                self.first_bad_subject.as_deref().unwrap_or("")
            ),
            (None, Some(r)) => format!(
                "undecided: the first bad commit is after {} and at or before {} ({} commits); \
                 raise --max-runs or lower the noise, and bisect that range again",
                r.after, r.up_to, r.commits
            ),
            (None, None) => format!(
                "no slowdown: {} ({}) is not slower than {} ({}) at {} confidence; nothing to bisect",
                self.bad.revision,
                &self.bad.commit[..self.bad.commit.len().min(12)],
                self.good.revision,
                &self.good.commit[..self.good.commit.len().min(12)],
                level(self.step_confidence)
            ),
        }
    }

    /// A Markdown table of the steps and the outcome.
    pub fn write_markdown(&self, out: &mut dyn fmt::Write) -> fmt::Result {
        write!(
            out,
            "## Bisect: `{}` from {} to {}\n\n| step | commit | subject | change | verdict | runs |\n|---|---|---|---|---|---|\n",
            self.command, self.good.revision, self.bad.revision
        )?;
        for (i, step) in self.steps.iter().enumerate() {
            writeln!(
                out,
                "| {} | `{}` | {} | {} | {} ({}) | {} |",
                i + 1,
                &step.commit[..step.commit.len().min(12)],
                step.subject.replace('|', "\\|"),
                change_text(step, &self.metric, self.better),
                step.verdict,
                step.judgement,
                step.runs
            )?;
        }
        writeln!(
            out,
            "\n**{}**\n\nEach step decided at {} confidence, so that the search of at most {} steps holds {}.",
            self.conclusion(),
            level(self.step_confidence),
            self.max_steps,
            level(self.confidence)
        )
    }

    /// [`BisectDocument::write_markdown`] as a `String`.
    pub fn markdown(&self) -> String {
        crate::render_to_string(|out| self.write_markdown(out))
    }
}

/// The candidate commit relative to GOOD, `+20.8% [+18.0%, +24.0%]` (the
/// one wording of a change, see [`perflab_format::change_words`]).
fn change_text(step: &StepDoc, metric: &str, better: Better) -> String {
    match (step.change, step.ci) {
        (Some(change), Some(ci)) => {
            ChangeWords::from_improvement(metric, better, change, Some(ci)).cell()
        }
        _ => "-".to_string(),
    }
}

fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut short: String = text.chars().take(width - 1).collect();
    short.push('…');
    short
}

/// A confidence level with as many digits as a Bonferroni split needs.
fn level(confidence: f64) -> String {
    format!("{:.3}%", confidence * 100.0)
        .replace(".000%", "%")
        .replace("00%", "%")
}
