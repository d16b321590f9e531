//! Counters and gauges across runs, from the profiles that instrumented
//! programs write: how often an event happened per run, and what level a
//! gauge held, per variant.
//!
//! Counts are shown beside the timings because a workload can differ from
//! the one intended (an operation mix that never happened, a fallback taken
//! on every call) and only the counts say so.

use std::collections::BTreeSet;

use perflab_format::profile::{LockMode, LockRecord, Profile};
use perflab_format::result::{
    CounterDoc, CounterStatsDoc, GaugeDoc, GaugeStatsDoc, LockDoc, LockStatsDoc,
};
use perflab_stats::median;

/// Every counter of any run, with per-variant medians per run.
pub fn counter_docs(variants: &[Vec<Option<Profile>>]) -> Vec<CounterDoc> {
    let of = |p: &Profile| -> Vec<String> { p.counters.iter().map(|c| c.name.clone()).collect() };
    across_runs(variants, of, |name, profiles| {
        let (events, totals): (Vec<f64>, Vec<f64>) = profiles
            .iter()
            .filter_map(|p| p.counter(name))
            .map(|c| (c.events as f64, c.total as f64))
            .unzip();
        Some(CounterStatsDoc {
            runs: events.len(),
            runs_counted: events.iter().filter(|&&e| e > 0.0).count(),
            events: median(&events).ok()?,
            total: median(&totals).ok()?,
        })
    })
    .map(|(name, per_variant)| CounterDoc { name, per_variant })
    .collect()
}

/// Every gauge of any run: per variant, the median of the runs' means and
/// the extremes over all runs, from the runs that set it.
pub fn gauge_docs(variants: &[Vec<Option<Profile>>]) -> Vec<GaugeDoc> {
    let of = |p: &Profile| -> Vec<String> { p.gauges.iter().map(|g| g.name.clone()).collect() };
    across_runs(variants, of, |name, profiles| {
        let records: Vec<_> = profiles.iter().filter_map(|p| p.gauge(name)).collect();
        if records.is_empty() {
            return None;
        }
        // A gauge never set reads 0 everywhere: not a level.
        let set: Vec<_> = records.iter().filter(|g| g.samples > 0).collect();
        let means: Vec<f64> = set.iter().map(|g| g.mean).collect();
        Some(GaugeStatsDoc {
            runs: records.len(),
            runs_set: set.len(),
            mean: median(&means).ok(),
            min: set.iter().map(|g| g.min).reduce(f64::min),
            max: set.iter().map(|g| g.max).reduce(f64::max),
        })
    })
    .map(|(name, per_variant)| GaugeDoc { name, per_variant })
    .collect()
}

/// A lock's name in the report: shared acquisitions of an `RwLock` apart.
fn lock_name(lock: &LockRecord) -> String {
    match lock.mode {
        LockMode::Exclusive => lock.name.clone(),
        LockMode::Shared => format!("{} (read)", lock.name),
        LockMode::Other => format!("{} (other mode)", lock.name),
    }
}

/// Every lock of any run, per mode: per variant, medians per run of its
/// acquisitions, contended acquisitions, wait and hold.
pub fn lock_docs(variants: &[Vec<Option<Profile>>]) -> Vec<LockDoc> {
    let of = |p: &Profile| -> Vec<String> { p.locks.iter().map(lock_name).collect() };
    across_runs(variants, of, |name, profiles| {
        let records: Vec<&LockRecord> = profiles
            .iter()
            .filter_map(|p| p.locks.iter().find(|l| lock_name(l) == name))
            .collect();
        let column = |figure: fn(&LockRecord) -> f64| {
            median(&records.iter().map(|l| figure(l)).collect::<Vec<_>>()).ok()
        };
        Some(LockStatsDoc {
            runs: records.len(),
            acquisitions: column(|l| l.acquisitions as f64)?,
            contended: column(|l| l.contended as f64)?,
            wait_s: column(|l| l.wait_ns as f64 / 1e9)?,
            wait_p99_s: column(|l| l.wait_p99_ns as f64 / 1e9)?,
            hold_s: column(|l| l.hold_ns as f64 / 1e9)?,
            hold_p99_s: column(|l| l.hold_p99_ns as f64 / 1e9)?,
        })
    })
    .map(|(name, per_variant)| LockDoc { name, per_variant })
    .collect()
}

/// Each name that `names_of` finds in any profile, with `stats` of it per
/// variant (from that variant's runs that wrote a profile).
fn across_runs<'a, T>(
    variants: &'a [Vec<Option<Profile>>],
    names_of: impl Fn(&Profile) -> Vec<String>,
    stats: impl Fn(&str, &[&Profile]) -> Option<T> + 'a,
) -> impl Iterator<Item = (String, Vec<Option<T>>)> + 'a {
    let names: BTreeSet<String> = variants
        .iter()
        .flatten()
        .flatten()
        .flat_map(names_of)
        .collect();
    names.into_iter().map(move |name| {
        let per_variant = variants
            .iter()
            .map(|runs| {
                let profiles: Vec<&Profile> = runs.iter().flatten().collect();
                stats(&name, &profiles)
            })
            .collect();
        (name, per_variant)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use perflab_format::profile::{CounterRecord, GaugeRecord};

    fn profile(counters: &[(&str, u64, u64)], gauges: &[(&str, u64, f64, f64, f64)]) -> Profile {
        let mut p = Profile::from_json_str(include_str!(
            "../../perflab-cli/tests/fixtures/spans-baseline.json"
        ))
        .expect("the fixture is a valid profile");
        p.counters = counters
            .iter()
            .map(|&(name, events, total)| CounterRecord {
                name: name.into(),
                file: "src/main.rs".into(),
                line: 1,
                also_at: vec![],
                events,
                total,
                threads: 1,
            })
            .collect();
        p.gauges = gauges
            .iter()
            .map(|&(name, samples, min, mean, max)| GaugeRecord {
                name: name.into(),
                file: "src/main.rs".into(),
                line: 2,
                also_at: vec![],
                samples,
                last: mean,
                min,
                max,
                mean,
            })
            .collect();
        p
    }

    #[test]
    fn counters_give_medians_per_run_and_say_in_how_many_runs_they_counted() {
        let a = vec![
            Some(profile(&[("retries", 2, 2), ("disputes", 0, 0)], &[])),
            Some(profile(&[("retries", 4, 4), ("disputes", 0, 0)], &[])),
            Some(profile(&[("retries", 9, 9), ("disputes", 1, 1)], &[])),
            None,
        ];
        let b = vec![Some(profile(&[("retries", 0, 0)], &[]))];
        let docs = counter_docs(&[a, b]);
        let names: Vec<&str> = docs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["disputes", "retries"]);
        let retries_a = docs[1].per_variant[0].as_ref().unwrap();
        assert_eq!(
            (retries_a.runs, retries_a.runs_counted, retries_a.events),
            (3, 3, 4.0)
        );
        let disputes_a = docs[0].per_variant[0].as_ref().unwrap();
        assert_eq!((disputes_a.runs, disputes_a.runs_counted), (3, 1));
        assert_eq!(
            docs[0].per_variant[1], None,
            "B's program has no such counter"
        );
        assert_eq!(docs[1].per_variant[1].as_ref().unwrap().runs_counted, 0);
    }

    #[test]
    fn gauges_take_the_median_of_means_and_the_extremes_of_runs_that_set_them() {
        let runs = vec![
            Some(profile(&[], &[("depth", 10, 1.0, 5.0, 9.0)])),
            Some(profile(&[], &[("depth", 10, 0.5, 6.0, 7.0)])),
            Some(profile(&[], &[("depth", 0, 0.0, 0.0, 0.0)])),
        ];
        let docs = gauge_docs(&[runs]);
        let depth = docs[0].per_variant[0].as_ref().unwrap();
        assert_eq!((depth.runs, depth.runs_set), (3, 2));
        assert_eq!(depth.mean, Some(5.5));
        assert_eq!((depth.min, depth.max), (Some(0.5), Some(9.0)));
    }
}
