//! What the machine's state and the runs' order tell a reader to check
//! before trusting a result: another busy process, a hypervisor stealing
//! time, runs that waited for a CPU, and drift over run order (the same
//! check `perflab compare` makes on samples that were not interleaved).

use perflab_format::machine::MachineDoc;
use perflab_format::result::VariantDoc;
use perflab_report::sections::cpu_wait::share;
use perflab_runner::CpuSet;
use perflab_stats::{DRIFT_MIN_CHANGE, DRIFT_SIGNIFICANCE, RunOrderTrend, run_order_trend};

/// The load average before the start, per CPU perflab may use, above which
/// another busy process shares the machine: half a CPU's worth of waiting
/// work on each, where an idle machine shows a few hundredths.
pub const LOAD_PER_CPU_WARNING: f64 = 0.5;

/// The steal share above which a hypervisor's other guests took enough
/// time to show in the runs ("a few percent").
pub const STEAL_WARNING: f64 = 0.02;

/// The share of its wall time a variant's median run may wait for a CPU
/// before the result warns: a median run that waited more than 2% was
/// slowed by more than twice the default GO threshold (1%) by other
/// processes alone, which no interleaving takes back from the figures.
pub const MEDIAN_CPU_WAIT_WARNING: f64 = 0.02;

/// A warning for each variant whose median run waited for a CPU for more
/// than [`MEDIAN_CPU_WAIT_WARNING`] of its wall time, with the figures.
pub fn cpu_wait_warnings(variants: &[VariantDoc]) -> Vec<String> {
    variants
        .iter()
        .filter_map(|v| Some((v, v.cpu_wait.as_ref()?)))
        .filter(|(_, w)| w.median_share > MEDIAN_CPU_WAIT_WARNING)
        .map(|(v, w)| {
            format!(
                "the median run of \"{}\" waited for a CPU {} of its wall time (worst {}): the \
                 machine was busy, and other processes' bursts slow runs unevenly; quiet the \
                 machine, or see --shield / --wait-quiet",
                v.name,
                share(w.median_share),
                share(w.worst_share)
            )
        })
        .collect()
}

/// Warnings about the machine's state during an experiment.
pub fn machine_warnings(machine: &MachineDoc) -> Vec<String> {
    let mut warnings = Vec::new();
    let cpus = machine
        .cpus_allowed
        .as_deref()
        .and_then(|list| CpuSet::parse(list).ok())
        .map(|set| set.len())
        .or(machine.cpus_online);
    // Under a shield the load's processes had other CPUs than the runs.
    if let (Some(load), Some(cpus), None) = (machine.load_before, cpus, &machine.shield) {
        if load > LOAD_PER_CPU_WARNING * cpus as f64 {
            warnings.push(format!(
                "the load average was {load:.2} just before the first run, on {cpus} CPU{} perflab may use: \
                 another busy process shares the machine, and its bursts widen the interval or bias runs \
                 that coincide with them; stop it (see top), give it and the runs separate CPUs with --pin \
                 (or the runs CPUs of their own with --shield, as root), or let perflab wait for quiet \
                 moments with --wait-quiet",
                if cpus == 1 { "" } else { "s" }
            ));
        }
    }
    if let Some(steal) = machine.steal_share.filter(|s| *s > STEAL_WARNING) {
        warnings.push(format!(
            "the hypervisor gave {} of all CPU time to other guests (steal) during the experiment: \
             runs are slowed in bursts no one on this machine controls; repeat on a dedicated or \
             bare-metal machine, or at a quieter time, before trusting small changes",
            percent(steal)
        ));
    }
    warnings
}

/// The machine's state with its warnings: those of the state itself, and
/// drift within each of the interleaved `variants`.
pub fn machine_with_warnings(
    machine: &MachineDoc,
    variants: &[VariantDoc],
    metric: &str,
) -> MachineDoc {
    let mut machine = machine.clone();
    machine.warnings = machine_warnings(&machine);
    machine
        .warnings
        .extend(interleaved_drift_warnings(variants, metric));
    machine
}

/// The trend of one series over its run order, if it drifts (by the
/// procedure run_order_trend's simulations validate).
fn drift(samples: &[f64]) -> Option<RunOrderTrend> {
    run_order_trend(samples)
        .ok()
        .filter(|t| t.drifts(DRIFT_SIGNIFICANCE, DRIFT_MIN_CHANGE))
}

/// A share or a size as a percentage with one decimal, unsigned.
fn percent(fraction: f64) -> String {
    format!("{:.1}%", fraction * 100.0)
}

/// How a drift reads: `grew by 6.2% of its median from its first run to
/// its last (Spearman's rho 0.71 with run order over 20 runs, p = 0.0004)`.
/// The size is a straight-line trend relative to the median, so a series
/// whose first runs were far slower can shrink by more than 100% of it.
fn describe(trend: &RunOrderTrend) -> String {
    let p = if trend.p_value < 1e-4 {
        "p < 0.0001".to_string()
    } else {
        format!("p = {:.4}", trend.p_value)
    };
    format!(
        "{} by {} of its median from its first run to its last (Spearman's rho {:.2} with run order over {} runs, {p})",
        if trend.change > 0.0 { "grew" } else { "shrank" },
        percent(trend.change.abs()),
        trend.rho,
        trend.n,
    )
}

/// Drift within the series of an interleaved experiment: interleaving
/// keeps the comparison fair, but the machine changed while it ran.
pub fn interleaved_drift_warnings(variants: &[VariantDoc], metric: &str) -> Vec<String> {
    variants
        .iter()
        .filter_map(|v| Some((v, drift(&v.samples)?)))
        .map(|(v, trend)| {
            format!(
                "the machine drifted during the experiment: {metric} of \"{}\" {}; the runs were interleaved, \
                 so the comparison sees the drift on both sides, but its figures describe a machine that \
                 changed (heat, a background job, a filling disk or cache); find the cause before quoting them",
                v.name,
                describe(&trend)
            )
        })
        .collect()
}

/// Drift within series that were measured one after the other (all runs
/// of A, then all of B): the comparison cannot tell the drift from a change.
pub fn sequential_drift_warnings(variants: &[VariantDoc], metric: &str) -> Vec<String> {
    variants
        .iter()
        .filter_map(|v| Some((v, drift(&v.samples)?)))
        .map(|(v, trend)| {
            format!(
                "{metric} of \"{}\" {}: these samples were not interleaved with the other side's, so the \
                 comparison may measure the machine's drift rather than a change; measure both again \
                 interleaved with perflab ab (or alternate them), on a quiet machine",
                v.name,
                describe(&trend)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(load: f64, steal: f64) -> MachineDoc {
        MachineDoc {
            cpus_allowed: Some("0-1".into()),
            load_before: Some(load),
            steal_share: Some(steal),
            ..MachineDoc::default()
        }
    }

    #[test]
    fn a_busy_machine_and_a_stealing_hypervisor_are_named_with_what_to_do() {
        assert!(machine_warnings(&machine(0.4, 0.001)).is_empty());
        let w = machine_warnings(&machine(1.7, 0.05));
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].contains("load average was 1.70") && w[0].contains("on 2 CPUs"),
            "{}",
            w[0]
        );
        assert!(
            w[0].contains("--pin") && w[0].contains("--shield"),
            "{}",
            w[0]
        );
        let shielded = MachineDoc {
            shield: Some(Default::default()),
            ..machine(1.7, 0.0)
        };
        assert!(machine_warnings(&shielded).is_empty());
        assert!(w[1].contains("gave 5.0% of all CPU time"), "{}", w[1]);
    }

    #[test]
    fn a_series_that_drifts_is_named_with_the_size_of_its_drift() {
        let drifting: Vec<f64> = (0..20).map(|i| 0.100 + 0.0005 * i as f64).collect();
        let steady: Vec<f64> = (0..20)
            .map(|i| 0.100 + 0.001 * ((i * 7) % 5) as f64)
            .collect();
        let doc = |name: &str, samples: Vec<f64>| VariantDoc {
            name: name.into(),
            command: None,
            env: Default::default(),
            runs: samples.len(),
            summary: crate::result_document::summary_doc(&samples).unwrap(),
            samples,
            run_details: Vec::new(),
            cpu_wait: None,
        };
        let variants = [doc("old", drifting), doc("new", steady)];
        let w = sequential_drift_warnings(&variants, "wall");
        assert_eq!(w.len(), 1, "{w:?}");
        // Slope 0.5 ms over 19 steps, median 104.75 ms: 9.07%.
        assert!(
            w[0].starts_with(
                "wall of \"old\" grew by 9.1% of its median from its first run to its last"
            ),
            "{}",
            w[0]
        );
        assert!(w[0].contains("not interleaved"), "{}", w[0]);
        let w = interleaved_drift_warnings(&variants, "wall");
        assert!(
            w[0].starts_with("the machine drifted during the experiment: wall of \"old\" grew"),
            "{}",
            w[0]
        );
    }

    #[test]
    fn a_variant_whose_median_run_waited_over_two_percent_is_named_with_its_figures() {
        let variant = |name: &str, median_share, worst_share| VariantDoc {
            name: name.into(),
            command: None,
            env: Default::default(),
            runs: 3,
            summary: crate::result_document::summary_doc(&[1.0, 1.0, 1.0]).unwrap(),
            samples: vec![1.0; 3],
            run_details: Vec::new(),
            cpu_wait: Some(perflab_format::contention::CpuWaitDoc {
                runs: 3,
                median_share,
                worst_share,
            }),
        };
        let w = cpu_wait_warnings(&[
            variant("A", 0.004, 0.3),
            variant("B", 0.073, 0.31),
            variant("C", 0.02, 0.02),
        ]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with(
                "the median run of \"B\" waited for a CPU 7.3% of its wall time (worst 31%): the \
                 machine was busy"
            ),
            "{}",
            w[0]
        );
        assert!(w[0].ends_with("see --shield / --wait-quiet"), "{}", w[0]);
    }
}
