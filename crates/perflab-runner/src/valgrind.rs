//! Counting instructions: an executor that makes every run twice, natively
//! (wall time, CPU, memory, the program's own metrics) and under valgrind's
//! callgrind, whose total instruction count becomes the `instructions`
//! metric of the run.
//!
//! The counted run sees a controlled environment, so that two runs of the
//! same program execute the same instructions: every variable is cleared
//! except the variant's own overrides, the ones the user names with
//! `--keep-env`, and a fixed `PATH`; address-space randomisation is turned
//! off with `setarch -R`. The size of the environment and the addresses of
//! the stack and of mapped libraries otherwise shift what the loader and
//! allocator do, by a few hundred instructions from run to run.

use std::path::{Path, PathBuf};

use crate::callgrind::{CallgrindCounts, parse};
use crate::error::{Error, Result};
use crate::tools::{SETARCH_INSTALL, VALGRIND_INSTALL, find_on_path, require};
use crate::{CommandLine, Executor, MetricValue, RunOutcome, RunSpec};

/// The `PATH` of counted runs unless the user keeps their own.
pub const FIXED_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The name of the metric this executor adds.
pub const INSTRUCTIONS: &str = "instructions";

/// One counted run: which command and environment, and what it counted.
#[derive(Debug, Clone)]
pub struct CountedRun {
    /// The command as displayed.
    pub command: String,
    /// The variant's environment overrides.
    pub env: Vec<(String, String)>,
    /// The counts.
    pub counts: CallgrindCounts,
}

/// Wraps another executor (real processes, or a script in tests) and adds
/// instruction counts to every run.
pub struct InstructionExecutor<'a> {
    inner: &'a mut dyn Executor,
    valgrind: PathBuf,
    setarch: PathBuf,
    env_program: PathBuf,
    kept: Vec<(String, String)>,
    /// Every counted run, in order.
    pub counted: Vec<CountedRun>,
}

impl<'a> InstructionExecutor<'a> {
    /// Finds valgrind and setarch; `keep` names variables passed on from
    /// perflab's own environment (`--keep-env`).
    pub fn new(inner: &'a mut dyn Executor, keep: &[String]) -> Result<Self> {
        let valgrind = require("valgrind", VALGRIND_INSTALL)?;
        let setarch = find_on_path("setarch").ok_or_else(|| Error::Tool {
            tool: "setarch".into(),
            message: format!(
                "is not installed, and perflab needs it to turn address randomisation off for \
                 instruction counts; {SETARCH_INSTALL}"
            ),
        })?;
        let env_program = find_on_path("env").unwrap_or_else(|| PathBuf::from("/usr/bin/env"));
        Ok(Self {
            inner,
            valgrind,
            setarch,
            env_program,
            kept: kept_variables(keep)?,
            counted: Vec::new(),
        })
    }

    /// The names of the variables counted runs see besides the variants' own.
    pub fn environment(&self) -> Vec<String> {
        let mut names: Vec<String> = self.kept.iter().map(|(k, _)| k.clone()).collect();
        if !names.iter().any(|n| n == "PATH") {
            names.insert(0, format!("PATH={FIXED_PATH}"));
        }
        names
    }

    /// The first counted run of this command and environment.
    pub fn counts_of(&self, command: &str, env: &[(String, String)]) -> Option<&CallgrindCounts> {
        self.counted
            .iter()
            .find(|r| r.command == command && r.env == env)
            .map(|r| &r.counts)
    }

    /// The command line of the counted run.
    fn counted_command(&self, spec: &RunSpec, out_dir: &Path) -> Result<Vec<String>> {
        let mut args = vec![self.env_program.display().to_string(), "-i".into()];
        let path = self
            .kept
            .iter()
            .find(|(k, _)| k == "PATH")
            .map_or(FIXED_PATH.to_string(), |(_, v)| v.clone());
        args.push(format!("PATH={path}"));
        for (k, v) in self.kept.iter().filter(|(k, _)| k != "PATH") {
            args.push(format!("{k}={v}"));
        }
        for (k, v) in &spec.env {
            args.push(format!("{k}={v}"));
        }
        args.push(self.setarch.display().to_string());
        args.push(machine());
        args.push("-R".into());
        args.push(self.valgrind.display().to_string());
        args.extend([
            "--tool=callgrind".to_string(),
            "--quiet".to_string(),
            "--trace-children=yes".to_string(),
            format!(
                "--callgrind-out-file={}/callgrind.out.%p",
                out_dir.display()
            ),
        ]);
        match &spec.command {
            CommandLine::Shell(text) => {
                let sh = find_on_path("sh").unwrap_or_else(|| PathBuf::from("/bin/sh"));
                args.extend([sh.display().to_string(), "-c".into(), text.clone()]);
            }
            CommandLine::Direct(argv) => {
                let Some((program, rest)) = argv.split_first() else {
                    return Err(Error::usage(
                        "CMD",
                        "the command is empty; give the program to run",
                    ));
                };
                let resolved = if program.contains('/') {
                    program.clone()
                } else {
                    find_on_path(program).map_or(program.clone(), |p| p.display().to_string())
                };
                args.push(resolved);
                args.extend(rest.iter().cloned());
            }
        }
        Ok(args)
    }
}

impl Executor for InstructionExecutor<'_> {
    fn runs_on_this_machine(&self) -> bool {
        self.inner.runs_on_this_machine()
    }

    fn execute(&mut self, spec: &RunSpec) -> Result<RunOutcome> {
        let mut native = self.inner.execute(spec)?;
        if !native.exit.success() {
            return Ok(native);
        }
        let out_dir = tempfile::tempdir().map_err(|source| Error::Io {
            path: std::env::temp_dir(),
            source,
        })?;
        let counted_spec = RunSpec {
            command: CommandLine::Direct(self.counted_command(spec, out_dir.path())?),
            env: Vec::new(),
            timeout: spec.timeout.map(|t| t * 100),
            ..spec.clone()
        };
        let counted = self.inner.execute(&counted_spec)?;
        if !counted.exit.success() {
            let mut failed = counted;
            failed.output_tail = format!(
                "(under valgrind, with the environment cleared; name variables it needs with --keep-env)\n{}",
                failed.output_tail
            );
            return Ok(failed);
        }
        let counts = read_counts(out_dir.path(), &spec.command.display())?;
        native.metrics.insert(
            INSTRUCTIONS.into(),
            MetricValue {
                value: counts.total as f64,
                unit: "instructions".into(),
            },
        );
        self.counted.push(CountedRun {
            command: spec.command.display(),
            env: spec.env.clone(),
            counts,
        });
        Ok(native)
    }
}

/// Reads and adds up every callgrind file of a run (one per process).
fn read_counts(dir: &Path, command: &str) -> Result<CallgrindCounts> {
    let mut total = CallgrindCounts::default();
    let mut files = 0;
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    for entry in entries.flatten() {
        let path = entry.path();
        let text = std::fs::read_to_string(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        let counts = parse(&text).map_err(|e| Error::Tool {
            tool: "valgrind".into(),
            message: format!("{}: {e}", path.display()),
        })?;
        total.merge(counts);
        files += 1;
    }
    if files == 0 {
        return Err(Error::Tool {
            tool: "valgrind".into(),
            message: format!("callgrind wrote no output for '{command}'"),
        });
    }
    Ok(total)
}

/// `--keep-env NAME` values from perflab's environment; a name that is not set is an error.
fn kept_variables(names: &[String]) -> Result<Vec<(String, String)>> {
    names
        .iter()
        .map(|name| match std::env::var(name) {
            Ok(value) => Ok((name.clone(), value)),
            Err(_) => Err(Error::usage(
                "--keep-env",
                format!(
                    "{name} is not set in perflab's environment; set it, or give it to the variant \
                     with --env/--env-a/--env-b NAME=VALUE"
                ),
            )),
        })
        .collect()
}

/// The machine name for `setarch` (e.g. `x86_64`).
fn machine() -> String {
    // SAFETY: utsname is plain data, filled by uname(2).
    let mut uts: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut uts) } != 0 {
        return std::env::consts::ARCH.to_string();
    }
    let bytes: Vec<u8> = uts
        .machine
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::FakeExecutor;

    fn spec(command: CommandLine) -> RunSpec {
        RunSpec {
            env: vec![("FAST".into(), "1".into())],
            ..RunSpec::new(command)
        }
    }

    #[test]
    fn the_counted_run_clears_the_environment_and_turns_randomisation_off() {
        let mut inner = FakeExecutor::new(|_, _| Ok(FakeExecutor::outcome(1.0)));
        let Ok(counter) = InstructionExecutor::new(&mut inner, &[]) else {
            return; // valgrind missing: covered by the integration tests
        };
        let args = counter
            .counted_command(
                &spec(CommandLine::Shell("./prog 1".into())),
                Path::new("/tmp/x"),
            )
            .unwrap();
        let text = args.join(" ");
        assert!(
            text.contains(" -i PATH=/usr/local/bin:/usr/bin:/bin FAST=1 "),
            "{text}"
        );
        assert!(text.contains(" -R "), "{text}");
        assert!(text.contains("--tool=callgrind"), "{text}");
        assert!(text.ends_with(" -c ./prog 1"), "{text}");
    }

    #[test]
    fn a_kept_variable_that_is_not_set_is_a_usage_error() {
        let err = kept_variables(&["PERFLAB_SURELY_UNSET_VARIABLE".into()]).unwrap_err();
        assert!(matches!(err, Error::Usage { .. }), "{err:?}");
        assert!(err.to_string().contains("--keep-env"), "{err}");
    }
}
