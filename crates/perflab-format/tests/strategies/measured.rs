//! Strategies for the documents of what a program did: its span profile
//! (`perflab-profile/1`), a sampling profile (`perflab-sampling/1`) and
//! instruction counts (`perflab-instructions/1`).

use perflab_format::instructions::{
    FunctionCount, FunctionCountChange, INSTRUCTIONS_FORMAT, InstructionVariant,
    InstructionsDocument,
};
use perflab_format::profile::{
    AllocStats, AsyncStats, CounterRecord, GaugeRecord, LockMode, LockRecord, PROFILE_FORMAT,
    Profile, SessionEnd, SessionInfo, SessionScope, SpanKind, SpanRecord, ThreadRecord, TimerInfo,
    Warning, WarningKind,
};
use perflab_format::sampling::{
    FunctionShare, OffCpuCause, OffCpuChange, OffCpuFunction, OffCpuProfile, OffCpuStack,
    OffCpuThread, SAMPLING_FORMAT, SampledProfile, SamplerInfo, SamplingDocument, ShareChange,
};
use proptest::collection::vec;
use proptest::option::of;
use proptest::prelude::*;
use proptest::sample::select;

use super::{num, pair, provenance, text};

prop_compose! {
    pub fn function_share()(
        name in text(), self_samples in any::<u64>(), self_share in num(), self_ci in pair(),
        inclusive_samples in any::<u64>(), inclusive_share in num(), inclusive_ci in pair(),
    ) -> FunctionShare {
        FunctionShare {
            name, self_samples, self_share, self_ci, inclusive_samples, inclusive_share,
            inclusive_ci,
        }
    }
}

prop_compose! {
    pub fn sampled_profile()(
        name in text(), command in text(), exit_code in of(any::<i32>()), wall_s in num(),
        samples in any::<u64>(), unknown_samples in any::<u64>(), flamegraph in of(text()),
        functions in vec(function_share(), 0..3), off_cpu in of(off_cpu_profile()),
    ) -> SampledProfile {
        SampledProfile {
            name, command, exit_code, wall_s, samples, unknown_samples, flamegraph, functions,
            off_cpu,
        }
    }
}

fn off_cpu_cause() -> impl Strategy<Value = OffCpuCause> {
    select(vec![OffCpuCause::Preempted, OffCpuCause::Blocked])
}

prop_compose! {
    pub fn off_cpu_profile()(
        totals in any::<[u64; 6]>(),
        threads in vec((any::<u64>(), text(), any::<[u64; 4]>()), 0..3),
        functions in vec((text(), any::<[u64; 3]>()), 0..3),
        stacks in vec((vec(text(), 0..3), off_cpu_cause(), any::<[u64; 2]>()), 0..3),
    ) -> OffCpuProfile {
        OffCpuProfile {
            on_cpu_ns: totals[0], preempted_ns: totals[1], blocked_ns: totals[2],
            intervals: totals[3], unmatched_switches: totals[4], lost_events: totals[5],
            threads: threads
                .into_iter()
                .map(|(tid, name, t)| OffCpuThread {
                    tid, name, on_cpu_ns: t[0], preempted_ns: t[1], blocked_ns: t[2],
                    intervals: t[3],
                })
                .collect(),
            functions: functions
                .into_iter()
                .map(|(name, f)| OffCpuFunction {
                    name, blocked_ns: f[0], preempted_ns: f[1], intervals: f[2],
                })
                .collect(),
            stacks: stacks
                .into_iter()
                .map(|(frames, cause, s)| OffCpuStack { frames, cause, ns: s[0], intervals: s[1] })
                .collect(),
        }
    }
}

prop_compose! {
    pub fn share_change()(
        name in text(), self_shares in pair(), self_change in num(), self_ci in pair(),
        inclusive_shares in pair(), inclusive_change in num(), inclusive_ci in pair(),
        moved in any::<bool>(),
    ) -> ShareChange {
        ShareChange {
            name, self_shares, self_change, self_ci, inclusive_shares, inclusive_change,
            inclusive_ci, moved,
        }
    }
}

prop_compose! {
    pub fn sampling()(
        name in of(text()), experiment_id in of(any::<i64>()),
        sampler in (text(), text(), any::<u32>(), text()), confidence in num(),
        profiles in vec(sampled_profile(), 1..3), changes in vec(share_change(), 0..3),
        off_cpu_changes in vec((text(), any::<[u64; 2]>(), any::<[u64; 2]>()), 0..3),
        warnings in vec(text(), 0..2), provenance in of(provenance()),
    ) -> SamplingDocument {
        let (tool, event, frequency_hz, call_graph) = sampler;
        SamplingDocument {
            format: SAMPLING_FORMAT.into(), name, experiment_id,
            sampler: SamplerInfo { tool, event, frequency_hz, call_graph },
            confidence, profiles, changes,
            off_cpu_changes: off_cpu_changes
                .into_iter()
                .map(|(name, blocked_ns, preempted_ns)| OffCpuChange { name, blocked_ns, preempted_ns })
                .collect(),
            warnings, provenance,
        }
    }
}

prop_compose! {
    pub fn instructions()(
        experiment_id in of(any::<i64>()), tool in text(), environment in vec(text(), 0..3),
        aslr_off in any::<bool>(), exact in any::<bool>(),
        variants in vec(
            (text(), text(), vec(any::<u64>(), 0..3), any::<bool>(),
             vec((text(), text(), any::<u64>()), 0..3)),
            0..3,
        ),
        changes in vec((text(), text(), any::<[u64; 2]>(), any::<i64>(), of(num())), 0..3),
    ) -> InstructionsDocument {
        InstructionsDocument {
            format: INSTRUCTIONS_FORMAT.into(), experiment_id, tool, environment, aslr_off, exact,
            variants: variants
                .into_iter()
                .map(|(name, command, counts, identical, functions)| InstructionVariant {
                    name, command, counts, identical,
                    functions: functions
                        .into_iter()
                        .map(|(name, object, instructions)| FunctionCount { name, object, instructions })
                        .collect(),
                })
                .collect(),
            changes: changes
                .into_iter()
                .map(|(name, object, instructions, change, relative)| FunctionCountChange {
                    name, object, instructions, change, relative,
                })
                .collect(),
        }
    }
}

prop_compose! {
    pub fn span_record()(
        (name, kind, file, line, also_at) in (
            text(), select(vec![SpanKind::Function, SpanKind::Span, SpanKind::Async]), text(),
            any::<u32>(), vec(text(), 0..2),
        ),
        counts in any::<[u64; 9]>(), mean_ns in num(), threads in any::<u32>(),
        async_stats in of((any::<[u64; 3]>(), of(any::<u64>()), of(any::<u64>()))), alloc in of(any::<[u64; 4]>()),
    ) -> SpanRecord {
        SpanRecord {
            name, kind, file, line, also_at, calls: counts[0], inclusive_ns: counts[1],
            self_ns: counts[2], mean_ns, min_ns: counts[3], p50_ns: counts[4], p95_ns: counts[5],
            p99_ns: counts[6], max_ns: counts[7], threads, unwound: counts[8],
            async_stats: async_stats.map(|(a, wakeups, idle_ns)| AsyncStats {
                polls: a[0], poll_ns: a[1], cancelled: a[2], wakeups, idle_ns,
            }),
            alloc: alloc.map(|a| AllocStats {
                self_allocs: a[0], self_bytes: a[1], inclusive_allocs: a[2], inclusive_bytes: a[3],
            }),
        }
    }
}

prop_compose! {
    pub fn thread_record()(
        id in any::<u64>(), name in of(text()), os_tid in of(any::<u64>()),
        wall_ns in any::<u64>(), cpu_ns in of(any::<u64>()), split in any::<[u64; 2]>(),
        off_cpu in of(any::<[u64; 2]>()), ended in any::<bool>(),
    ) -> ThreadRecord {
        ThreadRecord {
            id, name, os_tid, wall_ns, cpu_ns,
            preempted_ns: off_cpu.map(|times| times[0]), blocked_ns: off_cpu.map(|times| times[1]),
            attributed_ns: split[0], unattributed_ns: split[1], ended,
        }
    }
}

fn warning_kind() -> impl Strategy<Value = WarningKind> {
    select(vec![
        WarningKind::NeverEntered,
        WarningKind::ZeroTime,
        WarningKind::NearSpanCost,
        WarningKind::Unattributed,
        WarningKind::MostlyWaiting,
        WarningKind::InstrumentationCost,
        WarningKind::CounterNeverIncremented,
        WarningKind::GaugeNeverSet,
        WarningKind::Unwound,
        WarningKind::Other,
    ])
}

prop_compose! {
    pub fn profile()(
        program in text(), pid in any::<u32>(),
        session in (
            text(), select(vec![SessionScope::Process, SessionScope::Thread]), any::<u64>(),
            of(any::<u64>()), select(vec![SessionEnd::Finished, SessionEnd::ProcessExit]),
            any::<u64>(), num(),
        ),
        timer in (text(), num(), num(), any::<u64>()),
        spans in vec(span_record(), 0..3), threads in vec(thread_record(), 0..3),
        counters in vec((text(), text(), any::<u32>(), vec(text(), 0..2), any::<[u64; 2]>(), any::<u32>()), 0..2),
        gauges in vec((text(), text(), any::<u32>(), vec(text(), 0..2), any::<u64>(), vec(num(), 4)), 0..2),
        warnings in vec((warning_kind(), text(), text()), 0..3),
        locks in vec((text(), select(vec![LockMode::Exclusive, LockMode::Shared]), text(),
                       any::<u32>(), any::<[u64; 10]>(), any::<u32>()), 0..2),
    ) -> Profile {
        let (name, scope, wall_ns, cpu_ns, ended_by, started_unix_ms, unattributed_threshold) = session;
        let (timer_name, span_cost_ns, percentile_relative_error, instrumentation_ns) = timer;
        Profile {
            format: PROFILE_FORMAT.into(), program, pid,
            session: SessionInfo {
                name, scope, wall_ns, cpu_ns, ended_by, started_unix_ms, unattributed_threshold,
            },
            timer: TimerInfo {
                name: timer_name, span_cost_ns, percentile_relative_error, instrumentation_ns,
            },
            spans, threads,
            counters: counters
                .into_iter()
                .map(|(name, file, line, also_at, c, threads)| CounterRecord {
                    name, file, line, also_at, events: c[0], total: c[1], threads,
                })
                .collect(),
            gauges: gauges
                .into_iter()
                .map(|(name, file, line, also_at, samples, g)| GaugeRecord {
                    name, file, line, also_at, samples, last: g[0], min: g[1], max: g[2], mean: g[3],
                })
                .collect(),
            locks: locks
                .into_iter()
                .map(|(name, mode, file, line, n, threads)| LockRecord {
                    name, mode, file, line, acquisitions: n[0], contended: n[1], wait_ns: n[2],
                    wait_p50_ns: n[3], wait_p99_ns: n[4], wait_max_ns: n[5], hold_ns: n[6],
                    hold_p50_ns: n[7], hold_p99_ns: n[8], hold_max_ns: n[9], threads,
                })
                .collect(),
            warnings: warnings
                .into_iter()
                .map(|(kind, subject, message)| Warning { kind, subject, message })
                .collect(),
        }
    }
}
