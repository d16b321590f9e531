//! The `perf` adapter: `perf record` on the cpu-clock event (a software
//! clock, so it works on virtual machines without hardware counters), then
//! `perf script` folded into stacks.

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use perflab_runner::tools::{PERF_INSTALL, require};
use perflab_runner::{CommandLine, Executor, MetricExtractor, RunOutcome, RunSpec};

use crate::error::{Error, Result};
use perflab_report::sampling::FoldedStacks;

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

    /// The `perf record` command line for `argv`, writing to `data`.
    pub fn record_args(
        &self,
        data: &Path,
        frequency: u32,
        call_graph: CallGraph,
        argv: &[String],
    ) -> Vec<String> {
        let mut args = vec![
            self.program.display().to_string(),
            "record".into(),
            "--quiet".into(),
            // Do not copy every profiled binary into ~/.debug.
            "--no-buildid-cache".into(),
            "-e".into(),
            self.event.clone(),
            "-F".into(),
            frequency.to_string(),
            "--call-graph".into(),
            match call_graph {
                CallGraph::FramePointers => "fp".into(),
                CallGraph::Dwarf => "dwarf".into(),
            },
            "-o".into(),
            data.display().to_string(),
            "--".into(),
        ];
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
        scratch: &Path,
    ) -> Result<(RunOutcome, FoldedStacks)> {
        let data = scratch.join("perf.data");
        let spec = RunSpec {
            command: CommandLine::Direct(self.record_args(&data, frequency, call_graph, argv)),
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
        let folded = self.fold(&data, scratch)?;
        Ok((outcome, folded))
    }

    /// `perf script` on `data`, folded.
    pub fn fold(&self, data: &Path, scratch: &Path) -> Result<FoldedStacks> {
        let errors_path = scratch.join("perf-script.err");
        let errors = std::fs::File::create(&errors_path).map_err(|source| Error::Io {
            path: errors_path.clone(),
            source,
        })?;
        let mut child = Command::new(&self.program)
            .args(["script", "-i"])
            .arg(data)
            .args(["-F", "comm,pid,tid,time,event,ip,sym,dso"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(errors)
            .spawn()
            .map_err(|e| Error::Tool {
                tool: "perf".into(),
                message: format!("perf script could not be started: {e}"),
            })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let folded = FoldedStacks::from_perf_script(BufReader::new(stdout));
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
            &["./prog".into(), "1".into()],
        );
        let text = args.join(" ");
        assert!(
            text.contains("-e cpu-clock -F 999 --call-graph dwarf -o /tmp/p.data -- ./prog 1"),
            "{text}"
        );
    }
}
