//! Help texts that show defaults, written from the constants that hold them
//! (perflab-stats for the decision, the sweep's own for sweeps), so that the
//! help cannot drift from what runs.

use perflab_stats::{
    CONFIRMATION_MAX_PAIRS, CONTENTION_MAX_REPEATS, DEFAULT_CONFIDENCE, DEFAULT_GO,
    DEFAULT_MAX_CPU_WAIT, DEFAULT_MAX_RUNS, DEFAULT_MIN_RUNS, DEFAULT_NOGO, EXACT_MAX_RUNS,
    EXACT_MIN_RUNS,
};

use crate::sweep::config;

/// A fraction as the percentage a user types: 0.01 gives "1%".
fn percent(fraction: f64) -> String {
    format!("{}%", 100.0 * fraction)
}

/// `--go`.
pub(super) fn go() -> String {
    format!(
        "GO threshold, in percent of improvement [default: {}]",
        percent(DEFAULT_GO)
    )
}

/// `--nogo`.
pub(super) fn nogo() -> String {
    format!(
        "NO-GO threshold, in percent (negative) [default: {}]",
        percent(DEFAULT_NOGO)
    )
}

/// `--confidence` of a decision.
pub(super) fn confidence() -> String {
    format!("Confidence level of the interval [default: {DEFAULT_CONFIDENCE}]")
}

/// `perflab ab --min-runs`.
pub(super) fn ab_min_runs() -> String {
    format!(
        "Runs per variant before the first decision [default: {DEFAULT_MIN_RUNS}; {EXACT_MIN_RUNS} for \
         instructions, where 1 is allowed for a program known to be deterministic]"
    )
}

/// `perflab ab --max-runs`.
pub(super) fn ab_max_runs() -> String {
    format!(
        "Runs per variant at most; the interval is tightest there [default: {DEFAULT_MAX_RUNS}; \
         {EXACT_MAX_RUNS} for instructions]"
    )
}

/// `perflab bisect --min-runs`.
pub(super) fn bisect_min_runs() -> String {
    format!(
        "Runs per variant before the first decision of a step [default: {DEFAULT_MIN_RUNS}; \
         {EXACT_MIN_RUNS} for instructions]"
    )
}

/// `perflab bisect --max-runs`.
pub(super) fn bisect_max_runs() -> String {
    format!(
        "Runs per variant at most in a step; an INCONCLUSIVE step is repeated with twice as many \
         [default: {DEFAULT_MAX_RUNS}; {EXACT_MAX_RUNS} for instructions]"
    )
}

/// `perflab history --min-runs` (with `--confirm`).
pub(super) fn confirm_min_runs() -> String {
    format!(
        "With --confirm: runs per commit before the first decision of each confirming A/B \
         [default: {DEFAULT_MIN_RUNS}; {EXACT_MIN_RUNS} for instructions]"
    )
}

/// `perflab history --max-runs` (with `--confirm`).
pub(super) fn confirm_max_runs() -> String {
    format!(
        "With --confirm: runs per commit at most in each confirming A/B; one that has not \
         decided by then does not confirm its change point [default: planned from the \
         history's step and the spread of its runs to decide it nine times in ten (at least \
         {DEFAULT_MAX_RUNS}), going on to {CONFIRMATION_MAX_PAIRS} only while a verdict is within \
         reach; {EXACT_MAX_RUNS} for instructions]"
    )
}

/// `--max-cpu-wait` of `ab`, `sweep` and `bisect`.
pub(super) fn max_cpu_wait() -> String {
    format!(
        "A block in which a run waited for a CPU (runnable, but other processes had it) for more \
         than this share of its wall time is measured again, at most {CONTENTION_MAX_REPEATS} times; \
         the replaced runs are kept in the store, marked, and left out of the result; off turns \
         the rule off. Runs whose wait is not measured never trigger it [default: {}]",
        percent(DEFAULT_MAX_CPU_WAIT)
    )
}

/// `perflab sweep --confidence`.
pub(super) fn sweep_confidence() -> String {
    format!("Confidence level of the intervals [default: {DEFAULT_CONFIDENCE}]")
}

/// `perflab sweep --min-runs`.
pub(super) fn sweep_min_runs() -> String {
    format!(
        "Runs of each command at each point before a point may stop [default: {}]",
        config::DEFAULT_MIN_RUNS
    )
}

/// `perflab sweep --max-runs`.
pub(super) fn sweep_max_runs() -> String {
    format!(
        "Runs of each command at each point at most; the intervals are tightest there [default: {}]",
        config::DEFAULT_MAX_RUNS
    )
}

/// `--wait-quiet`.
pub(super) fn wait_quiet() -> String {
    format!(
        "Before the first block and between blocks, wait until the machine's CPU pressure (the \
         share of the last 10 s in which some task waited for a CPU, /proc/pressure/cpu) is below \
         PRESSURE; the waits count towards --max-time [default: off; without =PRESSURE, {}]",
        percent(crate::machine::pressure::DEFAULT_QUIET_PRESSURE)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_read_as_a_user_types_them() {
        assert!(go().ends_with("[default: 1%]"), "{}", go());
        assert!(nogo().ends_with("[default: -0.5%]"), "{}", nogo());
        assert!(ab_min_runs().contains("[default: 10; 2 for"));
        assert!(
            wait_quiet().ends_with("without =PRESSURE, 5%]"),
            "{}",
            wait_quiet()
        );
        assert!(
            max_cpu_wait().ends_with("[default: 5%]"),
            "{}",
            max_cpu_wait()
        );
    }
}
