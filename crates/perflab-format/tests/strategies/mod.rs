//! proptest strategies for every document of perflab-format: values of
//! every field, including the optional and empty ones, so that a round trip
//! through JSON covers what the real documents can hold.
#![allow(dead_code)]

pub mod measured;

use std::collections::BTreeMap;

use perflab_format::contention::{ContentionDoc, CpuWaitDoc};
use perflab_format::duet::{DuetDoc, DuetPairDoc};
use perflab_format::history::{
    ChangePointDoc, ConfirmationDoc, HISTORY_FORMAT, Judgement, MetricHistory, Step, VariantHistory,
};
use perflab_format::interval::PositiveIntervalDoc;
use perflab_format::machine::{MachineDoc, QuietWaitDoc, ShieldDoc};
use perflab_format::result::{
    AsyncSpanStatsDoc, CounterDoc, CounterStatsDoc, DecisionDoc, GaugeDoc, GaugeStatsDoc, GuardDoc,
    LockDoc, LockStatsDoc, MetricInfo, RESULT_FORMAT, ResultDocument, RunDoc, SpanDoc,
    SpanStatsDoc, SummaryDoc, VariantDoc,
};
use perflab_format::sweep::{
    CliffDoc, CommandDoc, CostBasis, LinearCostFitDoc, ParameterDoc, PointDoc, PointResultDoc,
    PowerLawFitDoc, SeriesDoc, SweepDoc, SweepDocument,
};
use perflab_format::system::{SYSTEM_FORMAT, SettingDoc, SettingState, SystemDocument};
use perflab_format::vocabulary::{
    Better, GuardStatus, PeakMemorySource, ResultKind, ResultStatus, StepVerdict, SweepStop,
    Verdict,
};
use proptest::collection::{btree_map, vec};
use proptest::option::of;
use proptest::prelude::*;
use proptest::sample::select;

/// Any finite double: documents hold no NaN or infinity (JSON has none).
pub fn num() -> impl Strategy<Value = f64> {
    prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL | prop::num::f64::ZERO
}

pub fn text() -> impl Strategy<Value = String> {
    "\\PC{0,12}"
}

pub fn pair() -> impl Strategy<Value = [f64; 2]> {
    (num(), num()).prop_map(|(a, b)| [a, b])
}

pub fn metric() -> impl Strategy<Value = MetricInfo> {
    (text(), text(), select(Better::ALL)).prop_map(|(name, unit, better)| MetricInfo {
        name,
        unit,
        better,
    })
}

prop_compose! {
    pub fn decision()(
        verdict in select(Verdict::ALL), reason in text(), change in num(), ci in pair(),
        confidence in num(), method in text(), go in num(), nogo in num(), runs in any::<usize>(),
        runs_needed in of(any::<u64>()), runs_needed_note in of(text()),
        mann_whitney_p in of(num()),
    ) -> DecisionDoc {
        DecisionDoc {
            verdict, reason, change, ci, confidence, method, go, nogo, runs, runs_needed,
            runs_needed_note, mann_whitney_p,
        }
    }
}

prop_compose! {
    pub fn guard()(
        metric in text(), max_worsening in num(), change in num(), ci in pair(),
        status in select(GuardStatus::ALL), floor in of(num()), unit in of(text()),
        medians in of(pair()), difference in of(num()), difference_ci in of(pair()),
    ) -> GuardDoc {
        GuardDoc {
            metric, max_worsening, better: None, change, ci, status, floor, unit, medians,
            difference, difference_ci,
        }
    }
}

prop_compose! {
    pub fn summary()(
        n in any::<usize>(), moments in vec(num(), 8), outliers_mild in any::<usize>(),
        outliers_severe in any::<usize>(),
    ) -> SummaryDoc {
        SummaryDoc {
            n, mean: moments[0], sd: moments[1], median: moments[2], min: moments[3],
            max: moments[4], mad: moments[5], q1: moments[6], q3: moments[7], outliers_mild,
            outliers_severe,
        }
    }
}

prop_compose! {
    pub fn run()(
        times in vec(num(), 4), exit_code in of(any::<i32>()),
        metrics in btree_map(text(), num(), 0..3),
        peak_memory_source in of(select(PeakMemorySource::ALL)),
    ) -> RunDoc {
        RunDoc {
            wall_s: times[0], user_s: times[1], sys_s: times[2], peak_memory_kib: times[3],
            peak_memory_source, exit_code, metrics,
        }
    }
}

prop_compose! {
    pub fn variant()(
        name in text(), command in of(text()), env in btree_map(text(), text(), 0..3),
        runs in any::<usize>(), summary in summary(), samples in vec(num(), 0..5),
        run_details in vec(run(), 0..3), cpu_wait in of(cpu_wait()),
    ) -> VariantDoc {
        VariantDoc { name, command, env, runs, summary, samples, run_details, cpu_wait }
    }
}

prop_compose! {
    /// A variant's CPU wait.
    pub fn cpu_wait()(runs in any::<usize>(), shares in (num(), num())) -> CpuWaitDoc {
        CpuWaitDoc { runs, median_share: shares.0, worst_share: shares.1 }
    }
}

prop_compose! {
    /// What the contention rule did.
    pub fn contention()(
        max_cpu_wait in num(), counts in (any::<usize>(), any::<usize>(), any::<usize>(), any::<usize>()),
    ) -> ContentionDoc {
        ContentionDoc {
            max_cpu_wait, max_repeats: counts.0, blocks_measured_again: counts.1,
            runs_replaced: counts.2, blocks_kept_contended: counts.3,
        }
    }
}

prop_compose! {
    pub fn span_stats()(
        runs in any::<usize>(), figures in vec(num(), 6),
        async_stats in of((vec(num(), 2), of(num()), of(num()))),
        runs_entered in of(any::<usize>()),
    ) -> SpanStatsDoc {
        SpanStatsDoc {
            runs, calls: figures[0], self_s: figures[1], inclusive_s: figures[2],
            self_share_of_wall: figures[3], p50_s: figures[4], p99_s: figures[5],
            async_stats: async_stats.map(|(f, wakeups, idle_s)| AsyncSpanStatsDoc {
                polls: f[0], wakeups, busy_s: f[1], idle_s,
            }),
            runs_entered,
        }
    }
}

prop_compose! {
    pub fn lock()(
        name in text(),
        per_variant in vec(of((any::<usize>(), vec(num(), 6))), 0..3),
    ) -> LockDoc {
        let per_variant = per_variant
            .into_iter()
            .map(|stats| stats.map(|(runs, f)| LockStatsDoc {
                runs, acquisitions: f[0], contended: f[1], wait_s: f[2], wait_p99_s: f[3],
                hold_s: f[4], hold_p99_s: f[5],
            }))
            .collect();
        LockDoc { name, per_variant }
    }
}

prop_compose! {
    pub fn span()(
        name in text(), per_variant in vec(of(span_stats()), 0..3), change in of(num()),
        ci in of(pair()), moved in of(any::<bool>()),
    ) -> SpanDoc {
        SpanDoc { name, per_variant, change, ci, moved }
    }
}

prop_compose! {
    pub fn counter()(
        name in text(),
        per_variant in vec(of((any::<usize>(), any::<usize>(), num(), num())), 0..3),
    ) -> CounterDoc {
        let per_variant = per_variant
            .into_iter()
            .map(|c| c.map(|(runs, runs_counted, events, total)| CounterStatsDoc {
                runs, runs_counted, events, total,
            }))
            .collect();
        CounterDoc { name, per_variant }
    }
}

prop_compose! {
    pub fn gauge()(
        name in text(),
        per_variant in vec(of((any::<usize>(), any::<usize>(), of(num()), of(num()), of(num()))), 0..3),
    ) -> GaugeDoc {
        let per_variant = per_variant
            .into_iter()
            .map(|g| g.map(|(runs, runs_set, mean, min, max)| GaugeStatsDoc {
                runs, runs_set, mean, min, max,
            }))
            .collect();
        GaugeDoc { name, per_variant }
    }
}

/// Provenance as `perflab` writes it: strings, numbers and flags by name.
pub fn provenance() -> impl Strategy<Value = BTreeMap<String, serde_json::Value>> {
    let value = prop_oneof![
        text().prop_map(serde_json::Value::from),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
    ];
    btree_map(text(), value, 0..4)
}

prop_compose! {
    /// A result of the given kind, with or without a decision.
    pub fn result_of(kind: ResultKind)(
        name in of(text()), experiment_id in of(any::<i64>()),
        status in select(ResultStatus::ALL), metric in metric(), decision in of(decision()),
        guards in vec(guard(), 0..2), variants in vec(variant(), 0..3),
        (spans, warnings, counters, gauges, locks) in (
            vec(span(), 0..2), vec(text(), 0..2), vec(counter(), 0..2), vec(gauge(), 0..2),
            vec(lock(), 0..2),
        ),
        profile_warnings in vec(text(), 0..2), seed in of(any::<u64>()),
        provenance in of(provenance()), machine in of(machine()), duet in of(duet()),
        contention in of(contention()),
    ) -> ResultDocument {
        ResultDocument {
            format: RESULT_FORMAT.into(), kind, name, experiment_id, status, metric,
            verdict: decision.as_ref().map(|d| d.verdict),
            change: decision.as_ref().map(|d| d.change),
            ci: decision.as_ref().map(|d| d.ci),
            decision, guards, variants, spans, warnings, counters, gauges, locks,
            profile_warnings, seed, provenance, machine, duet, contention,
        }
    }
}

prop_compose! {
    /// The machine's state, each field present or not.
    pub fn machine()(
        cpus_online in of(any::<usize>()), cpus_allowed in of(text()), pinned in of(text()),
        governor in of(text()), boost in of(any::<bool>()), smt in of(any::<bool>()),
        load_before in of(num()), steal_share in of(num()), interrupt_share in of(num()),
        warnings in vec(text(), 0..2), shield in of(shield()), quiet_wait in of(quiet_wait()),
    ) -> MachineDoc {
        MachineDoc {
            cpus_online, cpus_allowed, pinned, governor, boost, smt, load_before,
            steal_share, interrupt_share, warnings, shield, quiet_wait,
        }
    }
}

prop_compose! {
    /// A CPU shield with its counts.
    pub fn shield()(
        cpus in text(), rest in text(), cpuset in text(),
        counts in (any::<usize>(), any::<usize>(), any::<usize>(), any::<usize>(), any::<usize>(), any::<usize>()),
    ) -> ShieldDoc {
        ShieldDoc {
            cpus, rest, cpuset,
            processes_moved: counts.0, cgroups_narrowed: counts.1, kernel_threads_left: counts.2,
            processes_left: counts.3, irqs_steered: counts.4, irqs_left: counts.5,
        }
    }
}

prop_compose! {
    /// The waits for a quiet machine.
    pub fn quiet_wait()(
        threshold in num(), blocks_waited in any::<usize>(), waited_s in num(),
        gave_up in any::<bool>(), last_pressure in of(num()),
    ) -> QuietWaitDoc {
        QuietWaitDoc { threshold, blocks_waited, waited_s, gave_up, last_pressure }
    }
}

prop_compose! {
    /// A duet section with a pair or two.
    pub fn duet()(
        cpus in (any::<usize>(), any::<usize>()), median_overlap in num(), min_overlap in num(),
        pairs in vec((any::<usize>(), 0.0..9.0, 0.0..9.0, 0.0..9.0, 0.0..9.0), 0..3),
    ) -> DuetDoc {
        DuetDoc {
            cpus: [cpus.0, cpus.1], median_overlap, min_overlap,
            pairs: pairs.into_iter().map(|(c, a, b, x, y)| DuetPairDoc::new(c, [a, b], [x, y])).collect(),
        }
    }
}

pub fn interval() -> impl Strategy<Value = PositiveIntervalDoc> {
    (num(), num(), num(), num(), any::<usize>()).prop_map(|(estimate, lo, hi, confidence, n)| {
        PositiveIntervalDoc {
            estimate,
            lo,
            hi,
            confidence,
            n,
        }
    })
}

prop_compose! {
    pub fn point()(
        label in text(), params in btree_map(text(), text(), 0..3), size in of(num()),
        results in vec(
            (text(), text(), any::<usize>(), of(interval()), of(interval()), of(interval()), any::<bool>()),
            0..3,
        ),
    ) -> PointDoc {
        let results = results
            .into_iter()
            .map(|(command, variant, runs, value, per_item, ratio, precise)| PointResultDoc {
                command, variant, runs, value, per_item, ratio, precise,
            })
            .collect();
        PointDoc { label, params, size, results }
    }
}

prop_compose! {
    pub fn series()(
        command in text(), fixed in text(), points in vec(any::<usize>(), 0..4),
        fit in of((vec(num(), 6), any::<usize>())), fit_note in of(text()),
        cliffs in vec((any::<usize>(), vec(num(), 5)), 0..2),
        linear in of((vec(num(), 8), any::<usize>(), any::<bool>())),
        marginal in any::<bool>(), marginal_per_item in vec(of(interval()), 0..3),
    ) -> SeriesDoc {
        let fit = fit.map(|(f, points)| PowerLawFitDoc {
            exponent: f[0], lo: f[1], hi: f[2], confidence: f[3], ln_intercept: f[4],
            residual_sd: f[5], points,
        });
        let cliffs = cliffs
            .into_iter()
            .map(|(index, c)| CliffDoc {
                index, size_before: c[0], size: c[1], ratio: c[2], ratio_lo: c[3], ratio_hi: c[4],
            })
            .collect();
        let linear = linear.map(|(l, points, has_fixed_part)| LinearCostFitDoc {
            fixed: l[0], fixed_lo: l[1], fixed_hi: l[2], marginal: l[3], marginal_lo: l[4],
            marginal_hi: l[5], confidence: l[6], scatter: l[7], points, has_fixed_part,
        });
        let basis = if marginal { CostBasis::Marginal } else { CostBasis::Total };
        SeriesDoc { command, fixed, points, fit, fit_note, cliffs, linear, basis, marginal_per_item }
    }
}

prop_compose! {
    pub fn sweep()(
        result in result_of(ResultKind::Sweep),
        parameters in vec((text(), vec(text(), 0..3)), 0..3),
        commands in vec((text(), text(), any::<bool>()), 0..3),
        size in of(text()), per_item in of(text()), limits in vec(num(), 3),
        min_runs in any::<usize>(), max_runs in any::<usize>(), stop in select(SweepStop::ALL),
        points in vec(point(), 0..3), series in vec(series(), 0..2),
    ) -> SweepDocument {
        SweepDocument {
            result,
            sweep: SweepDoc {
                parameters: parameters
                    .into_iter()
                    .map(|(name, values)| ParameterDoc { name, values })
                    .collect(),
                commands: commands
                    .into_iter()
                    .map(|(name, template, reference)| CommandDoc { name, template, reference })
                    .collect(),
                size, per_item, precision: limits[0], confidence: limits[1], cliff: limits[2],
                min_runs, max_runs, stop, points, series,
            },
        }
    }
}

prop_compose! {
    pub fn judgement()(
        change in num(), ci in of(pair()), verdict in select(StepVerdict::ALL),
        regression in any::<bool>(), note in of(text()),
    ) -> Judgement {
        Judgement { change, ci, verdict, regression, note }
    }
}

prop_compose! {
    pub fn step()(
        label in text(), commit in of(text()), experiments in vec(any::<i64>(), 0..3),
        started_at in text(), values in vec(num(), 0..4), median in num(),
        level in of(interval()), change in of(judgement()),
    ) -> Step {
        Step { label, commit, experiments, started_at, values, median, level, change }
    }
}

prop_compose! {
    pub fn change_point()(
        step in any::<usize>(), labels in vec(text(), 3), commits in vec(of(text()), 2),
        sizes in vec(any::<usize>(), 2), p_value in num(), judgement in judgement(),
        confirmation in of(confirmation()),
    ) -> ChangePointDoc {
        ChangePointDoc {
            step, from: labels[0].clone(), to: labels[1].clone(),
            from_commit: commits[0].clone(), to_commit: commits[1].clone(),
            started_at: labels[2].clone(), steps_before: sizes[0], steps_after: sizes[1],
            p_value, judgement, confirmation,
        }
    }
}

prop_compose! {
    pub fn confirmation()(
        confirmed in any::<bool>(), experiment in of(any::<i64>()), verdict in of(select(Verdict::ALL)),
        change in of(num()), ci in of(pair()), pairs in any::<usize>(), confidence in num(),
        command in text(), note in of(text()),
    ) -> ConfirmationDoc {
        ConfirmationDoc { confirmed, experiment, verdict, change, ci, pairs, confidence, command, note }
    }
}

prop_compose! {
    pub fn variant_history()(
        variant in text(), host in of(text()), steps in vec(step(), 0..3), total in of(judgement()),
        change_points in vec(change_point(), 0..3), note in of(text()),
    ) -> VariantHistory {
        VariantHistory { variant, host, steps, total, change_points, note }
    }
}

prop_compose! {
    pub fn metric_history()(
        metric in text(), better in select(Better::ALL), name in of(text()),
        limits in vec(num(), 3), false_alarm in of(num()), permute in of(text()),
        series in vec(variant_history(), 0..3),
    ) -> MetricHistory {
        MetricHistory {
            format: HISTORY_FORMAT.into(), metric, better, name, go: limits[0], nogo: limits[1],
            confidence: limits[2], false_alarm, permute, series,
        }
    }
}

prop_compose! {
    /// The settings `perflab system show` found, a few of them.
    pub fn system()(
        settings in vec(
            (text(), text(), select(&[SettingState::Ok, SettingState::Check, SettingState::NotAvailable][..]),
             text(), text(), text(), text()),
            0..4,
        ),
    ) -> SystemDocument {
        SystemDocument {
            format: SYSTEM_FORMAT.into(),
            settings: settings
                .into_iter()
                .map(|(key, name, state, found, why, recommendation, source)| SettingDoc {
                    key, name, state, found, why, recommendation, source,
                })
                .collect(),
        }
    }
}
