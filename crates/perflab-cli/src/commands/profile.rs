//! `perflab profile`: a sampling profile of a command, or of two with the
//! shares that moved between them; tables, flame graph, store, JSON.

use crate::error::{to_json, to_json_pretty};
use perflab_format::vocabulary::{ExperimentKind, ResultStatus};
use std::path::{Path, PathBuf};

use perflab_format::sampling::{
    OffCpuProfile, SAMPLING_FORMAT, SampledProfile, SamplerInfo, SamplingDocument,
};
use perflab_runner::tools::resolve_program;
use perflab_runner::{Executor, ExitState, RunOutcome};

use crate::cli::ProfileArgs;
use crate::error::{EXIT_INTERRUPTED, EXIT_OK, Error, Result};
use crate::experiment::parse_env;
use crate::profilers::diff::{off_cpu_changes, share_changes};
use crate::profilers::warnings::{off_cpu_warnings, profile_warnings, symbol_warnings};
use crate::profilers::{CallGraph, FunctionCounts, Perf, Recording};
use crate::result_document::provenance_map;
use perflab_report::sampling::FoldedStacks;
use perflab_report::sampling::flamegraph::{write_differential, write_flamegraph};
use perflab_report::sampling::off_cpu::wall_stacks_attachment;
use perflab_report::sampling::render::render_sampling;
use perflab_report::sampling::speedscope::{Weight, write_speedscope};
use perflab_report::units::parse_duration;
use perflab_store::{Store, VariantRecord};

/// One command to profile.
struct Target {
    name: String,
    argv: Vec<String>,
}

/// `perflab profile`.
pub fn profile(args: &ProfileArgs, store: &Store, executor: &mut dyn Executor) -> Result<i32> {
    let call_graph = CallGraph::parse(&args.call_graph)?;
    if !(0.5..1.0).contains(&args.confidence) {
        return Err(Error::usage(
            "--confidence",
            format!(
                "{} is not a level between 0.5 and 1 (e.g. 0.95)",
                args.confidence
            ),
        ));
    }
    if args.frequency == 0 || args.top == 0 {
        return Err(Error::usage(
            if args.top == 0 {
                "--top"
            } else {
                "--frequency"
            },
            "must be at least 1",
        ));
    }
    let env = args
        .env
        .iter()
        .map(|e| parse_env(e, "--env"))
        .collect::<Result<Vec<_>>>()?;
    let timeout = args
        .timeout
        .as_deref()
        .map(parse_duration)
        .transpose()
        .map_err(|e| Error::usage("--timeout", e))?;
    let mut targets = Vec::new();
    if let Some(baseline) = &args.baseline {
        let argv = shell_words::split(baseline).map_err(|_| {
            Error::usage(
                "--baseline",
                format!(
                    "the command `{baseline}` has a quote that is never closed, so it cannot be split into arguments; close the quote, or escape it with a backslash"
                ),
            )
        })?;
        if argv.is_empty() {
            return Err(Error::usage("--baseline", "the baseline command is empty"));
        }
        targets.push(Target {
            name: "A".into(),
            argv,
        });
    }
    targets.push(Target {
        name: if targets.is_empty() { "command" } else { "B" }.into(),
        argv: args.command.clone(),
    });

    let mut warnings = Vec::new();
    for target in &targets {
        let program = resolve_program(&target.argv[0], args.cwd.as_deref())?;
        warnings.extend(symbol_warnings(&target.argv[0], &program, call_graph));
    }
    let perf = Perf::locate()?;
    warnings.extend(perf.notes.iter().cloned());
    let recording = if args.off_cpu {
        perf.check_off_cpu_access()?;
        Recording::OnAndOffCpu
    } else {
        Recording::OnCpu
    };

    let provenance = crate::engine::provenance(args.cwd.as_deref().unwrap_or(Path::new(".")));
    let displays: Vec<String> = targets.iter().map(|t| t.argv.join(" ")).collect();
    let records: Vec<VariantRecord> = targets
        .iter()
        .zip(&displays)
        .map(|(t, command)| VariantRecord {
            name: &t.name,
            command,
            env: &env,
            cwd: args.cwd.as_deref(),
        })
        .collect();
    let config = serde_json::json!({
        "frequency_hz": args.frequency, "call_graph": call_graph.as_str(),
        "event": perf.event, "confidence": args.confidence, "off_cpu": args.off_cpu,
    });
    let (id, variant_ids) = store.begin_experiment(
        ExperimentKind::Profile,
        args.name.as_deref(),
        None,
        &provenance,
        &config.to_string(),
        &records,
    )?;

    let mut profiles = Vec::new();
    let mut folded_all = Vec::new();
    let mut counts_all = Vec::new();
    // Every function's off-CPU time (not only the top ones), for the changes.
    let mut off_cpu_all: Vec<OffCpuProfile> = Vec::new();
    let mut wall_all: Vec<FoldedStacks> = Vec::new();
    for (index, target) in targets.iter().enumerate() {
        // perf prints nothing while the program runs: say what is going on,
        // on a terminal only, so that logs and pipes stay clean.
        if crate::progress::live_display_wanted() {
            let of = if targets.len() > 1 {
                format!(" {} ({} of {})", target.name, index + 1, targets.len())
            } else {
                String::new()
            };
            let switches = if args.off_cpu {
                " with its switches off and on the CPU"
            } else {
                ""
            };
            eprintln!(
                "perflab: profiling{of} under perf record at {} Hz{switches}: $ {}",
                args.frequency, displays[index]
            );
        }
        let scratch = tempfile::tempdir().map_err(|source| Error::Io {
            path: std::env::temp_dir(),
            source,
        })?;
        let profiled = perf.profile(
            executor,
            &target.argv,
            &env,
            args.cwd.as_deref(),
            timeout,
            args.frequency,
            call_graph,
            recording,
            scratch.path(),
        );
        let (outcome, folded, trace) = match profiled {
            Ok(done) => done,
            Err(e) => {
                store.finish_experiment(id, ResultStatus::Incomplete, None, None, None)?;
                return Err(e);
            }
        };
        store.record_run(id, variant_ids[index], index + 1, 0, false, &outcome)?;
        if outcome.exit == ExitState::Interrupted {
            store.finish_experiment(id, ResultStatus::Incomplete, None, None, None)?;
            eprintln!("perflab: interrupted; nothing was profiled to the end");
            return Ok(EXIT_INTERRUPTED);
        }
        if !outcome.exit.success() && !args.ignore_failure {
            store.finish_experiment(id, ResultStatus::Incomplete, None, None, None)?;
            return Err(crate::engine::failed_run(
                format!("profiled run of '{}'", target.name),
                &displays[index],
                &outcome,
            ));
        }
        store.record_folded(id, variant_ids[index], folded.total(), &folded.to_text())?;
        let counts = FunctionCounts::of(&folded);
        let functions = counts.top(args.top, args.confidence)?;
        let prefix = if targets.len() > 1 {
            format!("{}: ", target.name)
        } else {
            String::new()
        };
        warnings.extend(profile_warnings(
            &prefix,
            &counts,
            &functions,
            args.frequency,
            args.confidence,
        ));
        let mut profile = sampled_profile(target, &displays[index], &outcome, &counts, functions);
        if let Some(trace) = &trace {
            // Aggregated once: every function for the changes, the top ones shown.
            let all = trace.profile(usize::MAX);
            let mut off_cpu = all.clone();
            off_cpu.functions.truncate(args.top);
            off_cpu.stacks.truncate(args.top);
            warnings.extend(off_cpu_warnings(&prefix, &off_cpu));
            profile.off_cpu = Some(off_cpu);
            off_cpu_all.push(all);
            let wall = trace.wall_stacks(&folded, args.frequency);
            store.attach(id, &wall_stacks_attachment(&target.name), &wall.to_text())?;
            wall_all.push(wall);
        }
        profiles.push(profile);
        folded_all.push(folded);
        counts_all.push(counts);
    }

    let changes = match counts_all.as_slice() {
        [a, b] => share_changes(a, b, args.confidence)?,
        _ => Vec::new(),
    };
    let off_cpu_changes = match off_cpu_all.as_slice() {
        [a, b] => off_cpu_changes(a, b, args.top),
        _ => Vec::new(),
    };
    let svg = if wall_all.is_empty() {
        write_svg(
            args,
            &targets,
            &profiles,
            &folded_all,
            call_graph,
            &mut warnings,
        )?
    } else {
        write_wall_svg(args, &targets, &profiles, &wall_all, &mut warnings)?
    };
    if let (Some(path), Some(last)) = (&svg, profiles.last_mut()) {
        last.flamegraph = Some(path.display().to_string());
    }
    if let Some(path) = &args.speedscope {
        // The wall-time stacks when recorded (on- and off-CPU in µs), else the samples.
        let (stacks, weight) = if wall_all.is_empty() {
            (&folded_all, Weight::Samples)
        } else {
            (&wall_all, Weight::Microseconds)
        };
        let named: Vec<(&str, &FoldedStacks)> = targets
            .iter()
            .map(|target| target.name.as_str())
            .zip(stacks.iter())
            .collect();
        let title = displays.last().map(String::as_str).unwrap_or_default();
        write_speedscope(path, title, &named, weight)?;
    }
    if let Some(path) = &args.folded {
        let text = folded_all
            .last()
            .map(FoldedStacks::to_text)
            .unwrap_or_default();
        std::fs::write(path, text).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
    }
    let doc = SamplingDocument {
        format: SAMPLING_FORMAT.into(),
        name: args.name.clone(),
        experiment_id: Some(id),
        sampler: SamplerInfo {
            tool: "perf record".into(),
            event: perf.event.clone(),
            frequency_hz: args.frequency,
            call_graph: call_graph.as_str().into(),
        },
        confidence: args.confidence,
        profiles,
        changes,
        off_cpu_changes,
        warnings: warnings.clone(),
        provenance: Some(provenance_map(&provenance)),
    };
    let json = to_json("the sampling profile", &doc)?;
    store.finish_experiment(id, ResultStatus::Complete, None, None, Some(json))?;
    print!("{}", render_sampling(&doc, args.top));
    for warning in &warnings {
        eprintln!("perflab: warning: {warning}");
    }
    if let Some(path) = &args.json {
        let pretty = to_json_pretty("the sampling profile", &doc)? + "\n";
        std::fs::write(path, pretty).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
    }
    Ok(EXIT_OK)
}

fn sampled_profile(
    target: &Target,
    display: &str,
    outcome: &RunOutcome,
    counts: &FunctionCounts,
    functions: Vec<perflab_format::sampling::FunctionShare>,
) -> SampledProfile {
    SampledProfile {
        name: target.name.clone(),
        command: display.to_string(),
        exit_code: match outcome.exit {
            ExitState::Code(c) => Some(c),
            _ => None,
        },
        wall_s: outcome.wall_s,
        samples: counts.total,
        unknown_samples: counts.unknown,
        flamegraph: None,
        functions,
        off_cpu: None,
    }
}

/// The flame graph of the samples: one profile's, or for two the
/// differential one.
fn write_svg(
    args: &ProfileArgs,
    targets: &[Target],
    profiles: &[SampledProfile],
    folded: &[FoldedStacks],
    call_graph: CallGraph,
    warnings: &mut Vec<String>,
) -> Result<Option<PathBuf>> {
    let subtitle = format!(
        "{} samples of cpu-clock at {} Hz, {} stacks",
        profiles[profiles.len() - 1].samples,
        args.frequency,
        call_graph.as_str()
    );
    let empty = "no flame graph was written: a profile has no samples";
    draw(args, targets, folded, &subtitle, empty, warnings)
}

/// The flame graph of wall time: on-CPU and off-CPU frames under frames of
/// their own, widths in µs; for two commands, the differential one.
fn write_wall_svg(
    args: &ProfileArgs,
    targets: &[Target],
    profiles: &[SampledProfile],
    wall: &[FoldedStacks],
    warnings: &mut Vec<String>,
) -> Result<Option<PathBuf>> {
    let last = &profiles[profiles.len() - 1];
    let intervals = last.off_cpu.as_ref().map_or(0, |off| off.intervals);
    let subtitle = format!(
        "wall time in µs: on-CPU from {} samples at {} Hz, off-CPU from {intervals} switches (blocked, preempted)",
        last.samples, args.frequency
    );
    let empty = "no flame graph was written: a profile recorded no time";
    draw(args, targets, wall, &subtitle, empty, warnings)
}

/// Writes the flame graph of `stacks` (differential for two) where `--svg`
/// says, unless `--no-svg`; says `empty` instead when a profile has nothing.
fn draw(
    args: &ProfileArgs,
    targets: &[Target],
    stacks: &[FoldedStacks],
    subtitle: &str,
    empty: &str,
    warnings: &mut Vec<String>,
) -> Result<Option<PathBuf>> {
    if args.no_svg {
        return Ok(None);
    }
    if stacks.iter().any(FoldedStacks::is_empty) {
        warnings.push(empty.into());
        return Ok(None);
    }
    let differential = stacks.len() == 2;
    let path = args.svg.clone().unwrap_or_else(|| {
        PathBuf::from(if differential {
            "flamegraph-diff.svg"
        } else {
            "flamegraph.svg"
        })
    });
    if differential {
        write_differential(
            &stacks[0],
            &stacks[1],
            &format!(
                "{} → {}",
                targets[0].argv.join(" "),
                targets[1].argv.join(" ")
            ),
            &format!("{subtitle}; red grew, blue shrank (baseline scaled to the same total)"),
            &path,
        )?;
    } else {
        write_flamegraph(&stacks[0], &targets[0].argv.join(" "), subtitle, &path)?;
    }
    Ok(Some(path))
}
