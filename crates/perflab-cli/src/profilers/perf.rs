//! The `perf` adapter: `perf record` on the cpu-clock event (a software
//! clock, so it works on virtual machines without hardware counters), then
//! `perf script` folded into stacks. With off-CPU recording, also the
//! scheduler's switches of the command's threads (`--switch-events` and the
//! `sched:sched_switch` tracepoint with its stack), paired into intervals by
//! perflab-report's `sampling::off_cpu`.

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use perflab_runner::tools::{PERF_INSTALL, require};
use perflab_runner::{CommandLine, Executor, MetricExtractor, RunOutcome, RunSpec};

use crate::error::{Error, Result};
use perflab_report::sampling::FoldedStacks;
use perflab_report::sampling::off_cpu::SchedulerTrace;

/// How stacks are unwound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallGraph {
    /// Frame pointers: cheap, but only through code built with them.
    FramePointers,
    /// A copy of the stack at each sample, unwound with DWARF tables
    /// afterwards: works without frame pointers, larger and slower.
    Dwarf,
}

impl CallGraph {
    /// Parses `fp` or `dwarf`.
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "fp" | "frame-pointers" => Ok(CallGraph::FramePointers),
            "dwarf" => Ok(CallGraph::Dwarf),
            other => Err(Error::usage(
                "--call-graph",
                format!("'{other}' is neither 'fp' (frame pointers) nor 'dwarf'"),
            )),
        }
    }

    /// The short name stored in documents.
    pub fn as_str(&self) -> &'static str {
        match self {
            CallGraph::FramePointers => "fp",
            CallGraph::Dwarf => "dwarf",
        }
    }
}

/// A ready-to-use perf: where it is, and which event this user may sample.
#[derive(Debug, Clone)]
pub struct Perf {
    /// The perf program.
    pub program: PathBuf,
    /// `cpu-clock`, or `cpu-clock:u` when the kernel may not be sampled.
    pub event: String,
    /// Said once to the user, e.g. that kernel code is not sampled.
    pub notes: Vec<String>,
}

/// What `perf record` records besides the on-CPU samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recording {
    /// On-CPU samples only.
    OnCpu,
    /// On-CPU samples, and every switch of the command's threads off and
    /// back on a CPU, with the stack at each switch off.
    OnAndOffCpu,
}

impl Perf {
    /// Finds perf and checks that this user may sample (`perf_event_paranoid`).
    pub fn locate() -> Result<Self> {
        let program = require("perf", PERF_INSTALL)?;
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok());
        let (event, notes) = access(root, paranoid)?;
        Ok(Self {
            program,
            event,
            notes,
        })
    }

    /// Checks that this user may record the scheduler's switches: the
    /// `sched:sched_switch` tracepoint needs root, or a readable tracefs
    /// and `kernel.perf_event_paranoid` at -1.
    pub fn check_off_cpu_access(&self) -> Result<()> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            return Ok(());
        }
        let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok());
        let readable = [
            "/sys/kernel/tracing/events/sched/sched_switch/id",
            "/sys/kernel/debug/tracing/events/sched/sched_switch/id",
        ]
        .iter()
        .any(|path| std::fs::read_to_string(path).is_ok());
        if readable && paranoid.is_some_and(|level| level <= -1) {
            return Ok(());
        }
        Err(Error::usage(
            "--off-cpu",
            "recording the scheduler's switches (the sched:sched_switch tracepoint) needs root, or \
             `sudo sysctl kernel.perf_event_paranoid=-1` and a tracefs this user may read \
             (`sudo mount -o remount,mode=755 /sys/kernel/tracing`); run perflab as root, or \
             profile without --off-cpu",
        ))
    }

    /// The on-CPU event as `perf record -e` takes it and `perf script`
    /// names it: its own frequency as a term, so that the tracepoint of an
    /// off-CPU recording can take every event (`-c 1`) beside it.
    pub fn on_cpu_event(&self, frequency: u32, recording: Recording) -> String {
        match recording {
            Recording::OnCpu => self.event.clone(),
            Recording::OnAndOffCpu => match self.event.split_once(':') {
                Some((name, modifiers)) => format!("{name}/freq={frequency}/{modifiers}"),
                None => format!("{}/freq={frequency}/", self.event),
            },
        }
    }

    /// The `perf record` command line for `argv`, writing to `data`.
    pub fn record_args(
        &self,
        data: &Path,
        frequency: u32,
        call_graph: CallGraph,
        recording: Recording,
        argv: &[String],
    ) -> Vec<String> {
        let mut args = vec![
            self.program.display().to_string(),
            "record".into(),
            "--quiet".into(),
            // Do not copy every profiled binary into ~/.debug.
            "--no-buildid-cache".into(),
            "-e".into(),
            self.on_cpu_event(frequency, recording),
        ];
        match recording {
            Recording::OnCpu => args.extend(["-F".into(), frequency.to_string()]),
            Recording::OnAndOffCpu => args.extend([
                "--switch-events".into(),
                "-e".into(),
                "sched:sched_switch".into(),
                "-c".into(),
                "1".into(),
            ]),
        }
        args.extend([
            "--call-graph".into(),
            match call_graph {
                CallGraph::FramePointers => "fp".into(),
                CallGraph::Dwarf => "dwarf".into(),
            },
            "-o".into(),
            data.display().to_string(),
            "--".into(),
        ]);
        args.extend(argv.iter().cloned());
        args
    }

    /// Runs `argv` under `perf record` through `executor` (so that the
    /// timeout and Ctrl-C apply), then folds the samples.
    #[allow(clippy::too_many_arguments)]
    pub fn profile(
        &self,
        executor: &mut dyn Executor,
        argv: &[String],
        env: &[(String, String)],
        cwd: Option<&Path>,
        timeout: Option<Duration>,
        frequency: u32,
        call_graph: CallGraph,
        recording: Recording,
        scratch: &Path,
    ) -> Result<(RunOutcome, FoldedStacks, Option<SchedulerTrace>)> {
        let data = scratch.join("perf.data");
        let spec = RunSpec {
            command: CommandLine::Direct(
                self.record_args(&data, frequency, call_graph, recording, argv),
            ),
            env: env.to_vec(),
            cwd: cwd.map(Path::to_path_buf),
            timeout,
            extractor: Arc::new(MetricExtractor::default()),
            profile_path: None,
            cpus: None,
            keep_children: false,
            output: Default::default(),
        };
        let outcome = executor.execute(&spec)?;
        if !data.exists() {
            return Err(Error::Tool {
                tool: "perf".into(),
                message: format!(
                    "perf record wrote no samples for '{}' ({}). What it said:\n{}",
                    argv.join(" "),
                    outcome.exit.describe(),
                    indent(&outcome.output_tail)
                ),
            });
        }
        let on_cpu_event = self.on_cpu_event(frequency, recording);
        let (folded, trace) = match recording {
            Recording::OnCpu => (self.fold(&data, scratch)?, None),
            Recording::OnAndOffCpu => (
                self.script(
                    &data,
                    scratch,
                    &["-F", "comm,pid,tid,time,event,ip,sym,dso"],
                    |text| FoldedStacks::from_perf_script_event(text, &on_cpu_event),
                )?,
                Some(self.script(
                    &data,
                    scratch,
                    &[
                        "--show-switch-events",
                        "--show-lost-events",
                        "-F",
                        "comm,pid,tid,time,period,event,ip,sym,dso,trace",
                    ],
                    |text| SchedulerTrace::from_perf_script(text, &on_cpu_event),
                )?),
            ),
        };
        Ok((outcome, folded, trace))
    }

    /// `perf script` on `data`, folded.
    pub fn fold(&self, data: &Path, scratch: &Path) -> Result<FoldedStacks> {
        self.script(
            data,
            scratch,
            &["-F", "comm,pid,tid,time,event,ip,sym,dso"],
            FoldedStacks::from_perf_script,
        )
    }

    /// `perf script` on `data` with `fields`, its text read by `read`.
    fn script<T>(
        &self,
        data: &Path,
        scratch: &Path,
        fields: &[&str],
        read: impl FnOnce(BufReader<std::process::ChildStdout>) -> std::io::Result<T>,
    ) -> Result<T> {
        let errors_path = scratch.join("perf-script.err");
        let errors = std::fs::File::create(&errors_path).map_err(|source| Error::Io {
            path: errors_path.clone(),
            source,
        })?;
        let mut child = Command::new(&self.program)
            .args(["script", "-i"])
            .arg(data)
            .args(fields)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(errors)
            .spawn()
            .map_err(|e| Error::Tool {
                tool: "perf".into(),
                message: format!("perf script could not be started: {e}"),
            })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let folded = read(BufReader::new(stdout));
        let status = child.wait().map_err(|e| Error::Tool {
            tool: "perf".into(),
            message: format!("waiting for perf script failed: {e}"),
        })?;
        let said = std::fs::read_to_string(&errors_path).unwrap_or_default();
        if !status.success() {
            return Err(Error::Tool {
                tool: "perf".into(),
                message: format!("perf script failed ({status}):\n{}", indent(&said)),
            });
        }
        folded.map_err(|e| Error::Tool {
            tool: "perf".into(),
            message: format!("the output of perf script could not be folded: {e}"),
        })
    }
}

/// The event this user may sample, given `perf_event_paranoid`.
fn access(root: bool, paranoid: Option<i32>) -> Result<(String, Vec<String>)> {
    match (root, paranoid) {
        (true, _) | (false, None) => Ok(("cpu-clock".into(), Vec::new())),
        (false, Some(level)) if level <= 1 => Ok(("cpu-clock".into(), Vec::new())),
        (false, Some(2)) => Ok((
            "cpu-clock:u".into(),
            vec![
                "kernel code is not sampled (kernel.perf_event_paranoid is 2): time in system \
                 calls is missing from the shares; `sudo sysctl kernel.perf_event_paranoid=1` \
                 includes it"
                    .into(),
            ],
        )),
        (false, Some(level)) => Err(Error::Tool {
            tool: "perf".into(),
            message: format!(
                "may not sample as this user: kernel.perf_event_paranoid is {level}. Allow \
                 profiling your own programs with `sudo sysctl kernel.perf_event_paranoid=2` \
                 (user space) or 1 (kernel too), or run perflab as root"
            ),
        }),
    }
}

fn indent(text: &str) -> String {
    perflab_runner::quote_output(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strict_paranoid_level_tells_the_user_what_to_set() {
        let err = access(false, Some(3)).unwrap_err().to_string();
        assert!(err.contains("perf_event_paranoid=2"), "{err}");
        assert_eq!(access(false, Some(2)).unwrap().0, "cpu-clock:u");
        assert_eq!(access(true, Some(3)).unwrap().0, "cpu-clock");
    }

    #[test]
    fn the_record_command_samples_cpu_clock_with_the_chosen_unwinding() {
        let perf = Perf {
            program: PathBuf::from("/usr/bin/perf"),
            event: "cpu-clock".into(),
            notes: Vec::new(),
        };
        let args = perf.record_args(
            Path::new("/tmp/p.data"),
            999,
            CallGraph::Dwarf,
            Recording::OnCpu,
            &["./prog".into(), "1".into()],
        );
        let text = args.join(" ");
        assert!(
            text.contains("-e cpu-clock -F 999 --call-graph dwarf -o /tmp/p.data -- ./prog 1"),
            "{text}"
        );
        let args = perf.record_args(
            Path::new("/tmp/p.data"),
            999,
            CallGraph::FramePointers,
            Recording::OnAndOffCpu,
            &["./prog".into()],
        );
        let text = args.join(" ");
        assert!(
            text.contains(
                "-e cpu-clock/freq=999/ --switch-events -e sched:sched_switch -c 1 --call-graph fp"
            ),
            "{text}"
        );
        let user_only = Perf {
            event: "cpu-clock:u".into(),
            ..perf
        };
        assert_eq!(
            user_only.on_cpu_event(99, Recording::OnAndOffCpu),
            "cpu-clock/freq=99/u"
        );
    }
}
