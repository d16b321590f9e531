//! Bisection: the first commit on the first-parent path from GOOD to BAD at
//! which a command got slower than at GOOD, by binary search.
//!
//! Each step is an A/B experiment of a candidate commit against GOOD, decided
//! by the sequential procedure. A NO-GO makes the candidate bad, GO or
//! NEUTRAL good. BAD itself is tested first: a search that assumed it slow
//! would otherwise name it whenever nothing got slower.
//!
//! Error control: the search names the right commit if every step's verdict
//! is right, so each step decides at
//! [`perflab_stats::bisect_step_confidence`]`(confidence, max_steps)`, the
//! search's error budget split over its most steps by Bonferroni; `max_steps`
//! is the test of BAD, ceil(log2(commits)) halvings and [`RETRY_BUDGET`]
//! repeated steps. An INCONCLUSIVE step is repeated with twice the run limit
//! (at most [`RETRIES_PER_STEP`] times, and only while the budget lasts);
//! when the budget is spent the search stops and says which range remains,
//! rather than guess and lose the stated confidence.
//!
//! Assumption: the slowdown, once introduced, stays (the commits after the
//! first bad one are bad too), as in `git bisect`; a slowdown that comes and
//! goes along the path can send the search to any of its edges. Reference for
//! the split: O. J. Dunn, "Multiple comparisons among means", JASA 56 (1961).

/// Repeats of INCONCLUSIVE steps the whole search may make.
pub const RETRY_BUDGET: usize = 3;

/// Repeats of one INCONCLUSIVE step at most; each doubles the run limit.
pub const RETRIES_PER_STEP: u32 = 2;

/// What one step found about a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    /// Not slower than GOOD (GO or NEUTRAL).
    Good,
    /// Slower than GOOD (NO-GO).
    Bad,
    /// INCONCLUSIVE.
    Undecided,
}

/// How the search ended; indices are into the first-parent path (oldest first, BAD last).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchEnd {
    /// The first bad commit.
    Found(usize),
    /// BAD is not slower than GOOD: there is nothing to find.
    NotSlower,
    /// The evidence did not decide: the first bad commit is after
    /// `after_good` (None: after GOOD) and at or before `up_to`.
    Undecided {
        /// The last commit known good, if any besides GOOD.
        after_good: Option<usize>,
        /// The first commit known bad (or BAD, untested or undecided).
        up_to: usize,
    },
}

/// The most steps a search over `commits` commits may take.
pub fn max_steps(commits: usize) -> usize {
    1 + ceil_log2(commits) + RETRY_BUDGET
}

fn ceil_log2(n: usize) -> usize {
    if n <= 1 {
        0
    } else {
        (usize::BITS - (n - 1).leading_zeros()) as usize
    }
}

/// Runs the search over `commits` commits (BAD is the last); `test(index,
/// attempt)` makes one step, `attempt` counting its repeats from 0.
pub fn search<E>(
    commits: usize,
    mut test: impl FnMut(usize, u32) -> Result<Judgement, E>,
) -> Result<SearchEnd, E> {
    let bad = commits.saturating_sub(1);
    let mut steps_left = max_steps(commits);
    let mut last_good: Option<usize> = None;
    let mut first_bad = bad;
    let mut bad_confirmed = false;
    loop {
        let candidate = if !bad_confirmed {
            bad
        } else {
            let low = last_good.map_or(0, |g| g + 1);
            if low == first_bad {
                return Ok(SearchEnd::Found(first_bad));
            }
            low + (first_bad - low) / 2
        };
        let mut attempt = 0;
        let judgement = loop {
            if steps_left == 0 {
                break Judgement::Undecided;
            }
            steps_left -= 1;
            match test(candidate, attempt)? {
                Judgement::Undecided if attempt < RETRIES_PER_STEP => attempt += 1,
                decided => break decided,
            }
        };
        match (judgement, bad_confirmed) {
            (Judgement::Undecided, _) => {
                return Ok(SearchEnd::Undecided {
                    after_good: last_good,
                    up_to: first_bad,
                });
            }
            (Judgement::Good, false) => return Ok(SearchEnd::NotSlower),
            (Judgement::Bad, false) => bad_confirmed = true,
            (Judgement::Good, true) => last_good = Some(candidate),
            (Judgement::Bad, true) => first_bad = candidate,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn truth(first_bad: usize) -> impl FnMut(usize, u32) -> Result<Judgement, ()> {
        move |i, _| {
            Ok(if i >= first_bad {
                Judgement::Bad
            } else {
                Judgement::Good
            })
        }
    }

    proptest! {
        #[test]
        fn right_verdicts_find_the_first_bad_commit_within_the_step_budget(
            commits in 1usize..200, at in 0usize..200,
        ) {
            let at = at % commits;
            let mut steps = 0;
            let mut judge = truth(at);
            let end = search(commits, |i, a| { steps += 1; judge(i, a) }).unwrap();
            prop_assert_eq!(end, SearchEnd::Found(at));
            prop_assert!(steps <= 1 + ceil_log2(commits));
        }

        #[test]
        fn a_search_never_takes_more_steps_than_its_budget(
            commits in 1usize..100, seed in any::<u64>(),
        ) {
            let mut state = seed;
            let mut steps = 0;
            let end = search(commits, |_, _| {
                steps += 1;
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                Ok::<_, ()>(match state >> 62 { 0 => Judgement::Good, 1 => Judgement::Undecided, _ => Judgement::Bad })
            }).unwrap();
            prop_assert!(steps <= max_steps(commits));
            if let SearchEnd::Undecided { after_good, up_to } = end {
                prop_assert!(after_good.is_none_or(|g| g < up_to));
            }
        }
    }

    #[test]
    fn a_bad_that_is_not_slower_ends_the_search_at_once() {
        let end = search(10, |_, _| Ok::<_, ()>(Judgement::Good)).unwrap();
        assert_eq!(end, SearchEnd::NotSlower);
    }

    #[test]
    fn an_undecided_step_is_repeated_then_the_remaining_range_is_given() {
        let mut attempts = Vec::new();
        let end = search(10, |i, a| {
            attempts.push((i, a));
            Ok::<_, ()>(if i == 9 {
                Judgement::Bad
            } else {
                Judgement::Undecided
            })
        })
        .unwrap();
        assert_eq!(attempts, vec![(9, 0), (4, 0), (4, 1), (4, 2)]);
        assert_eq!(
            end,
            SearchEnd::Undecided {
                after_good: None,
                up_to: 9
            }
        );
    }

    #[test]
    fn ten_commits_take_at_most_eight_steps() {
        assert_eq!(max_steps(10), 1 + 4 + RETRY_BUDGET);
        assert_eq!(max_steps(1), 1 + RETRY_BUDGET);
    }
}
