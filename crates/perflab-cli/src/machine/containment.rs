//! What containing the runs told perflab besides their timings: processes
//! a command left running (ended, or kept with `--keep-children`), and
//! what could not be measured where the runs had no cgroup of their own.
//! Said once per experiment, as warnings of its result.

use perflab_runner::{RunOutcome, WaitSource};

/// Warnings about the runs' containment, for `variants` given as (name,
/// runs); `keep_children` says whether what they left was kept.
pub fn containment_warnings<'a>(
    variants: impl IntoIterator<Item = (&'a str, &'a [RunOutcome])>,
    keep_children: bool,
) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut sources = Vec::new();
    for (name, runs) in variants {
        sources.extend(runs.iter().map(|r| r.containment.wait_source));
        let leaving: Vec<usize> = runs
            .iter()
            .map(|r| r.containment.left_running)
            .filter(|&n| n > 0)
            .collect();
        if let Some(&most) = leaving.iter().max() {
            let processes = if most == 1 {
                "1 process".to_string()
            } else {
                format!("up to {most} processes")
            };
            let what = if keep_children {
                "perflab left them running (--keep-children), so they may have run beside later runs"
            } else {
                "perflab ended them (--keep-children leaves them running)"
            };
            warnings.push(format!(
                "the command of \"{name}\" left {processes} running when it returned, in {} of its {} runs; {what}",
                leaving.len(),
                runs.len()
            ));
        }
    }
    if sources.contains(&WaitSource::Schedstat) {
        warnings.push(
            "the runs had no cgroup of their own here (no writable cgroup v2, or PERFLAB_NO_CGROUP): \
             cpu-wait is the run delay of each command's own process, without its children's, \
             CPU time counts only the processes that were waited for, and processes a command \
             left running were neither counted nor ended"
                .to_string(),
        );
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;
    use perflab_runner::FakeExecutor;

    fn run(left_running: usize, wait_source: WaitSource) -> RunOutcome {
        let mut run = FakeExecutor::outcome(0.01);
        run.containment.left_running = left_running;
        run.containment.wait_source = wait_source;
        run
    }

    #[test]
    fn a_command_that_left_processes_running_is_named_with_how_often() {
        let a = [run(0, WaitSource::Cgroup), run(0, WaitSource::Cgroup)];
        let b = [run(1, WaitSource::Cgroup), run(0, WaitSource::Cgroup)];
        let warnings = containment_warnings([("A", &a[..]), ("B", &b[..])], false);
        assert_eq!(
            warnings,
            [
                "the command of \"B\" left 1 process running when it returned, in 1 of its 2 runs; \
              perflab ended them (--keep-children leaves them running)"
            ]
        );
        let kept = containment_warnings([("B", &b[..])], true);
        assert!(
            kept[0].contains("left them running (--keep-children)"),
            "{kept:?}"
        );
    }

    #[test]
    fn runs_measured_without_a_cgroup_say_once_what_is_not_measured() {
        let a = [run(0, WaitSource::Schedstat), run(0, WaitSource::Schedstat)];
        let warnings = containment_warnings([("A", &a[..]), ("B", &a[..])], false);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("without its children's"),
            "{warnings:?}"
        );
    }

    #[test]
    fn contained_runs_that_left_nothing_give_no_warning() {
        let a = [run(0, WaitSource::Cgroup)];
        assert!(containment_warnings([("A", &a[..])], false).is_empty());
        let scripted = [run(0, WaitSource::NotMeasured)];
        assert!(containment_warnings([("A", &scripted[..])], false).is_empty());
    }
}
