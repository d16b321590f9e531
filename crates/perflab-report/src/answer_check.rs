//! Whether two variants printed the same answer.
//!
//! An A/B comparison means something only if both variants do the same
//! work. When each variant prints the same output on every run, apart from
//! its metric lines, and the two outputs differ, the variants most likely
//! did different work (another input, another mix of operations, a wrong
//! result), and a speed-up between them is not a speed-up of the same job.
//! Outputs that vary from run to run (timings, addresses) say nothing
//! either way and give no warning.

use perflab_runner::{Answer, RunOutcome};

/// Runs per variant below which "the same on every run" means little.
const MIN_RUNS: usize = 2;

/// The warning for variants whose outputs are each stable but differ from
/// each other, or `None`.
pub fn differing_answers<'a>(names: [&str; 2], runs: [&'a [RunOutcome]; 2]) -> Option<String> {
    let stable = |runs: &'a [RunOutcome]| -> Option<&'a Answer> {
        let first = runs.first()?.answer.as_ref()?;
        let all_same = runs
            .iter()
            .all(|r| r.answer.as_ref().is_some_and(|a| a.digest == first.digest));
        (runs.len() >= MIN_RUNS && all_same).then_some(first)
    };
    let (a, b) = (stable(runs[0])?, stable(runs[1])?);
    if a.digest == b.digest {
        return None;
    }
    let mut warning = format!(
        "every run of {} printed the same output, and every run of {} too, but the two differ \
         (metric lines aside): check that the variants do the same work before reading the \
         change as a speed-up",
        names[0], names[1]
    );
    if let Some((line_a, line_b)) = first_difference(a, b) {
        warning.push_str(&format!(
            "; among the last lines, {} printed `{line_a}` where {} printed `{line_b}`",
            names[0], names[1]
        ));
    }
    Some(warning)
}

/// The first pair of differing lines in the kept ends of two answers.
fn first_difference(a: &Answer, b: &Answer) -> Option<(String, String)> {
    let (mut a, mut b) = (
        a.last_lines.iter().map(String::as_str),
        b.last_lines.iter().map(String::as_str),
    );
    loop {
        match (a.next(), b.next()) {
            (None, None) => return None,
            (x, y) if x == y => continue,
            (x, y) => {
                // The lines are the programs' own: shown with their control
                // characters escaped, never sent to the terminal as they are.
                let shown = |line: Option<&str>| {
                    perflab_runner::escape_control(line.unwrap_or("(nothing)").trim()).into_owned()
                };
                return Some((shown(x), shown(y)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perflab_runner::FakeExecutor;

    fn printed(digest: u64, last_line: &str) -> RunOutcome {
        let mut run = FakeExecutor::outcome(1.0);
        run.answer = Some(Answer {
            digest,
            last_lines: [last_line.to_string()].into(),
        });
        run
    }

    #[test]
    fn stable_outputs_that_differ_between_variants_are_warned_about() {
        let a = [printed(1, "sum 42"), printed(1, "sum 42")];
        let b = [printed(2, "sum 41"), printed(2, "sum 41")];
        let warning = differing_answers(["A", "B"], [&a, &b]).unwrap();
        assert!(
            warning.contains("check that the variants do the same work"),
            "{warning}"
        );
        assert!(
            warning.contains("A printed `sum 42` where B printed `sum 41`"),
            "{warning}"
        );
    }

    #[test]
    fn the_same_output_or_outputs_that_vary_within_a_variant_give_no_warning() {
        let same = [printed(1, "sum 42"), printed(1, "sum 42")];
        assert_eq!(differing_answers(["A", "B"], [&same, &same]), None);
        let varying = [printed(3, "took 1.2 s"), printed(4, "took 1.3 s")];
        assert_eq!(differing_answers(["A", "B"], [&same, &varying]), None);
        let single = [printed(5, "sum 40")];
        assert_eq!(differing_answers(["A", "B"], [&same, &single]), None);
        let unread = [FakeExecutor::outcome(1.0), FakeExecutor::outcome(1.0)];
        assert_eq!(differing_answers(["A", "B"], [&same, &unread]), None);
    }
}
