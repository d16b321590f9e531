//! A suite's matrix (scenario × candidate) and its sentences, the same in
//! every format.

use perflab_format::suite::SuiteDocument;
use perflab_format::vocabulary::{ResultKind, Verdict};

use perflab_format::change_words::ChangeWords;

/// One cell of the matrix as shown.
#[derive(Debug, Clone)]
pub(crate) struct MatrixCell {
    /// "+3.2% [+1.1%, +5.0%]", or "—" without an interval.
    pub change: String,
    /// The cell's verdict.
    pub verdict: Verdict,
    /// Pairs it rests on (`None` for a summary).
    pub runs: Option<usize>,
    /// For a summary, whose verdicts its verdict combines ("all
    /// benchmarks", "all scenarios"): the summary's verdict is that
    /// combination, not a verdict on the summary's own interval, and is
    /// labelled so (`None` for a cell, whose verdict is its interval's).
    pub verdict_of: Option<String>,
}

impl MatrixCell {
    /// The cell in one line: change, interval, verdict and pairs; for a
    /// summary, its change and interval, then the combined verdict with
    /// what it combines (`-5.00% [-17.32%, +3.10%]; verdict of all
    /// benchmarks: NO-GO`).
    pub(crate) fn line(&self) -> String {
        match (self.runs, &self.verdict_of) {
            (_, Some(of)) => format!("{}; verdict of {of}: {}", self.change, self.verdict),
            (Some(runs), None) => format!("{} {} ({runs} runs)", self.change, self.verdict),
            (None, None) => format!("{} {}", self.change, self.verdict),
        }
    }
}

/// The matrix: a row per scenario, a column per candidate, and a last row
/// summarising each candidate across scenarios.
#[derive(Debug, Clone)]
pub(crate) struct SuiteMatrix {
    /// The candidates, in column order.
    pub candidates: Vec<String>,
    /// (scenario, its cells in column order).
    pub rows: Vec<(String, Vec<MatrixCell>)>,
    /// Each candidate's geometric-mean change across scenarios.
    pub summary: Vec<MatrixCell>,
}

/// The candidate relative to the baseline, `+3.2% [+1.1%, +5.0%]` (the one
/// wording of a change, see [`perflab_format::change_words`]).
fn change_text(doc: &SuiteDocument, change: Option<f64>, ci: Option<[f64; 2]>) -> String {
    let metric = &doc.result.metric;
    match (change, ci) {
        (Some(change), Some(ci)) => {
            ChangeWords::from_improvement(&metric.name, metric.better, change, Some(ci)).cell()
        }
        _ => "—".to_string(),
    }
}

/// The matrix of a suite document.
pub(crate) fn suite_matrix(doc: &SuiteDocument) -> SuiteMatrix {
    let candidates: Vec<String> = doc.candidates.iter().map(|c| c.variant.clone()).collect();
    let rows = doc
        .scenarios
        .iter()
        .map(|scenario| {
            let cells = candidates
                .iter()
                .map(|variant| {
                    let cell = doc
                        .cells
                        .iter()
                        .find(|c| &c.scenario == scenario && &c.variant == variant);
                    cell.map_or_else(
                        || MatrixCell {
                            change: "—".to_string(),
                            verdict: Verdict::Inconclusive,
                            runs: Some(0),
                            verdict_of: None,
                        },
                        |c| MatrixCell {
                            change: change_text(doc, c.change, c.ci),
                            verdict: c.verdict,
                            runs: Some(c.runs),
                            verdict_of: None,
                        },
                    )
                })
                .collect();
            (scenario.clone(), cells)
        })
        .collect();
    let summary = doc
        .candidates
        .iter()
        .map(|c| MatrixCell {
            change: change_text(doc, c.change, c.ci),
            verdict: c.verdict,
            runs: None,
            verdict_of: Some(format!("all {}s", row_word(doc))),
        })
        .collect();
    SuiteMatrix {
        candidates,
        rows,
        summary,
    }
}

/// What a row of the matrix is: a scenario of a suite, or a benchmark of
/// two results compared by name (`perflab compare`).
pub(crate) fn row_word(doc: &SuiteDocument) -> &'static str {
    if doc.result.kind == ResultKind::Compare {
        "benchmark"
    } else {
        "scenario"
    }
}

/// The experiment's verdict and the level it holds at, in one sentence.
pub(crate) fn suite_headline(doc: &SuiteDocument) -> String {
    let verdict = doc.result.verdict.unwrap_or(Verdict::Inconclusive);
    let cells = doc.cells.len();
    let row = row_word(doc);
    format!(
        "{verdict}: {} against baseline {} in {} {row}(s). Each of the {cells} cells' intervals is at {:.2}% \
         so that {:.0}% holds for all of them at once (Bonferroni); the summary row is each candidate's \
         geometric-mean change across {row}s",
        doc.candidates
            .iter()
            .map(|c| c.variant.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        doc.baseline,
        doc.scenarios.len(),
        doc.cell_confidence * 100.0,
        doc.confidence * 100.0
    )
}

/// What a cell's figures are, for the line after the matrix.
pub(crate) fn cell_meaning(doc: &SuiteDocument) -> String {
    format!(
        "Each cell is the candidate's {} relative to the baseline's, with its interval in brackets",
        doc.result.metric.name
    )
}

/// What the verdict means, for the line after the matrix.
pub(crate) fn verdict_rule(doc: &SuiteDocument) -> String {
    let whole = if doc.result.kind == ResultKind::Compare {
        "comparison"
    } else {
        "suite"
    };
    format!(
        "The {whole} is NO-GO if any cell is NO-GO, GO if every cell is GO or NEUTRAL with at least one GO, \
         NEUTRAL if every cell is NEUTRAL, else INCONCLUSIVE"
    )
}
