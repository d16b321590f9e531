//! The GitHub Action at the repository's root (`action.yml`): read as the
//! runner reads it, its steps run here, in order, against a repository made
//! by the test, as a composite action's steps run: each step's `run:` script
//! through its `shell:`, with its `env:` (the `${{ }}` references to the
//! inputs and contexts filled in) and the runner's variables, PATH extended
//! by what a step added to `$GITHUB_PATH`.
//!
//! The install step runs the real `scripts/install-build-deps.sh` and a
//! stand-in `cargo` that checks it was asked to install perflab-cli from the
//! action's sources and puts the perflab built for these tests where `cargo
//! install --root` would (a release build of perflab per test would take
//! minutes); the gate step then runs the real gate script of examples/ci with
//! that perflab, found on PATH.

mod common;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::commits::{BUILD, repository_slowing_at};
use common::{Scratch, assert_exit};
use yaml_rust2::{Yaml, YamlLoader};

/// The repository's root, where the action is (`github.action_path`).
fn action_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn action() -> Yaml {
    let text = std::fs::read_to_string(action_path().join("action.yml")).unwrap();
    let mut documents = YamlLoader::load_from_str(&text).expect("action.yml is YAML");
    assert_eq!(documents.len(), 1);
    documents.remove(0)
}

/// A stand-in for `cargo install --locked --root ROOT --path PATH`: checks
/// its arguments and that PATH is perflab-cli's crate, then puts perflab and
/// perflab-exec, as built for these tests, in ROOT/bin.
fn stand_in_cargo(bin: &Path) {
    let built = Path::new(env!("CARGO_BIN_EXE_perflab")).parent().unwrap();
    let script = format!(
        r#"#!/bin/sh
set -eu
echo "$*" >> "{log}"
[ "$1" = install ] && [ "$2" = --locked ] && [ "$3" = --root ] && [ "$5" = --path ] ||
    {{ echo "cargo stand-in: unexpected arguments: $*" >&2; exit 101; }}
grep -q '^name = "perflab-cli"$' "$6/Cargo.toml" ||
    {{ echo "cargo stand-in: $6 is not perflab-cli's crate" >&2; exit 101; }}
mkdir -p "$4/bin"
cp "{built}/perflab" "{built}/perflab-exec" "$4/bin/"
"#,
        log = bin.join("cargo.log").display(),
        built = built.display()
    );
    let cargo = bin.join("cargo");
    std::fs::write(&cargo, script).unwrap();
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A GitHub Actions job running the action: the runner's folders and
/// variables, and the contexts its expressions read.
struct Runner {
    /// The checkout of the repository measured (the job's workspace).
    repo: Scratch,
    /// `runner.temp`, the `$GITHUB_PATH` file and the stand-in `cargo`.
    temp: tempfile::TempDir,
}

impl Runner {
    fn new() -> Self {
        let runner = Self {
            repo: Scratch::new(),
            temp: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir(runner.tools()).unwrap();
        stand_in_cargo(&runner.tools());
        runner
    }

    fn tools(&self) -> PathBuf {
        self.temp.path().join("tools")
    }

    fn github_path(&self) -> PathBuf {
        self.temp.path().join("github_path")
    }

    fn summary(&self) -> PathBuf {
        self.temp.path().join("step_summary.md")
    }

    /// Runs the action's steps with `inputs` (the others take their
    /// defaults) for an `event` (`pull_request`, `push`) whose
    /// `github.event.before` is `before`; the output of the first step that
    /// fails, else of the last one.
    fn run_action(&self, event: &str, before: &str, inputs: &[(&str, &str)]) -> Output {
        let action = action();
        assert_eq!(action["runs"]["using"].as_str(), Some("composite"));
        let mut values = BTreeMap::new();
        for (name, input) in action["inputs"].as_hash().unwrap() {
            let name = name.as_str().unwrap();
            let default = match &input["default"] {
                Yaml::String(text) => text.clone(),
                Yaml::BadValue => String::new(),
                other => panic!("input {name}: a default that is not a string: {other:?}"),
            };
            values.insert(format!("inputs.{name}"), default);
        }
        for (name, value) in inputs {
            let key = format!("inputs.{name}");
            assert!(values.contains_key(&key), "action.yml has no input {name}");
            values.insert(key, value.to_string());
        }
        // The runner refuses a job that leaves out a required input.
        for (name, input) in action["inputs"].as_hash().unwrap() {
            let name = name.as_str().unwrap();
            if input["required"].as_bool() == Some(true) {
                assert!(
                    inputs.iter().any(|(given, _)| *given == name),
                    "required input {name} not given"
                );
            }
        }
        values.insert(
            "github.action_path".into(),
            action_path().display().to_string(),
        );
        values.insert("runner.temp".into(), self.temp.path().display().to_string());
        values.insert("github.event.before".into(), before.to_string());
        std::fs::write(self.github_path(), "").unwrap();

        let steps = action["runs"]["steps"].as_vec().unwrap();
        let mut last = None;
        for step in steps {
            let name = step["name"].as_str().unwrap_or("(unnamed)");
            let script = step["run"]
                .as_str()
                .unwrap_or_else(|| panic!("step {name}: a composite step the test cannot run"));
            // The runner's invocations of the two shells a step may name.
            let (shell, flags): (&str, &[&str]) = match step["shell"].as_str() {
                Some("bash") => ("bash", &["--noprofile", "--norc", "-eo", "pipefail"]),
                Some("sh") => ("sh", &["-e"]),
                other => panic!("step {name}: shell {other:?}"),
            };
            let script_file = self.temp.path().join("step.sh");
            std::fs::write(&script_file, script).unwrap();
            let mut cmd = Command::new(shell);
            cmd.args(flags)
                .arg(&script_file)
                .current_dir(self.repo.dir.path())
                .env_clear();
            // The runner's PATH: what steps added first, then the system's;
            // no perflab of the machine running the tests.
            let mut path: Vec<String> = std::fs::read_to_string(self.github_path())
                .unwrap()
                .lines()
                .rev()
                .map(str::to_string)
                .collect();
            path.push(self.tools().display().to_string());
            path.push("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".into());
            cmd.env("PATH", path.join(":"));
            for kept in ["HOME", "TMPDIR"] {
                if let Some(value) = std::env::var_os(kept) {
                    cmd.env(kept, value);
                }
            }
            cmd.envs([
                ("CI", "true"),
                ("GITHUB_ACTIONS", "true"),
                ("GITHUB_EVENT_NAME", event),
                ("GITHUB_RUN_ID", "4242"),
                ("GITHUB_RUN_ATTEMPT", "1"),
                ("GITHUB_SERVER_URL", "https://github.example"),
                ("GITHUB_REPOSITORY", "acme/app"),
                ("GITHUB_ACTION_PATH", &action_path().display().to_string()),
            ]);
            cmd.env("GITHUB_PATH", self.github_path())
                .env("GITHUB_STEP_SUMMARY", self.summary())
                .env("RUNNER_TEMP", self.temp.path());
            if event == "pull_request" {
                cmd.env("GITHUB_REF", "refs/pull/5/merge");
            } else {
                cmd.env("GITHUB_REF", "refs/heads/main")
                    .env("GITHUB_REF_NAME", "main");
            }
            if let Some(env) = step["env"].as_hash() {
                for (key, value) in env {
                    let value = value
                        .as_str()
                        .unwrap_or_else(|| panic!("step {name}: env {key:?} is not a string"));
                    cmd.env(key.as_str().unwrap(), expand(value, &values));
                }
            }
            let out = cmd.output().unwrap();
            let failed = !out.status.success();
            last = Some(out);
            if failed {
                break;
            }
        }
        last.expect("the action has steps")
    }

    fn read(&self, path: &Path) -> String {
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }
}

/// `text` with each `${{ NAME }}` replaced by its value; an expression
/// other than a plain reference fails the test (which would not know what
/// the runner makes of it).
fn expand(text: &str, values: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("}}").expect("a closed expression") + start;
        let name = rest[start + 3..end].trim();
        let value = values
            .get(name)
            .unwrap_or_else(|| panic!("an expression the test does not know: {name}"));
        out.push_str(value);
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn the_action_installs_perflab_from_its_sources_and_fails_a_pull_request_that_regresses() {
    let runner = Runner::new();
    let ids = repository_slowing_at(runner.repo.dir.path(), 1, 1);
    let out = runner.run_action(
        "pull_request",
        // A pull request's previous head, which is no base.
        &ids[1],
        &[
            ("build", BUILD),
            ("command", "./app"),
            ("args", "--measure work --better lower"),
        ],
    );
    assert_exit(&out, 3);
    assert!(stderr(&out).contains("failing the job"), "{}", stderr(&out));

    // Installed from the action's own sources, into runner.temp, on PATH.
    let cargo = runner.read(&runner.tools().join("cargo.log"));
    let root = runner.temp.path().join("perflab");
    assert_eq!(
        cargo.trim(),
        format!(
            "install --locked --root {} --path {}/crates/perflab-cli",
            root.display(),
            action_path().display()
        )
    );
    assert_eq!(
        runner.read(&runner.github_path()).trim(),
        root.join("bin").display().to_string()
    );

    let summary = runner.read(&runner.summary());
    assert!(summary.contains("**NO-GO**"), "{summary}");
    assert!(
        summary.contains("in GitHub Actions run 4242 for pull request #5"),
        "{summary}"
    );
    for (variant, id, rev) in [("base", &ids[0], "HEAD~1"), ("head", &ids[1], "HEAD")] {
        let built = format!("{variant} at `{}` ({rev})", &id[..12]);
        assert!(summary.contains(&built), "{built} not in {summary}");
    }
    // The default store, in the workspace, to be kept as a cache.
    assert!(runner.repo.path(".perflab-ci/perflab.db").is_file());
}

#[test]
fn on_a_push_the_base_is_the_commit_before_it_unless_given_and_the_inputs_reach_the_gate() {
    let runner = Runner::new();
    let ids = repository_slowing_at(runner.repo.dir.path(), 2, 2);
    let common = [
        ("build", BUILD),
        ("command", "./app"),
        ("args", "--measure work --better lower"),
        ("store", "perf/store.db"),
        ("name", "nightly"),
    ];
    // Pushed: "change 1" and "change 2", onto "initial".
    let out = runner.run_action("push", &ids[0], &common);
    assert_exit(&out, 3);
    let summary = runner.read(&runner.summary());
    assert!(
        summary.contains(&format!("base at `{}`", &ids[0][..12])),
        "{summary}"
    );
    assert!(summary.contains("nightly: base vs head"), "{summary}");
    assert!(runner.repo.path("perf/store.db").is_file());

    // A base given wins over the push's; the head too: "change 1" is as
    // fast as "initial".
    let out = runner.run_action(
        "push",
        &ids[0],
        &[
            &common[..],
            &[("base", ids[0].as_str()), ("head", "HEAD~1")],
        ]
        .concat(),
    );
    assert!(matches!(out.status.code(), Some(0)), "{}", stderr(&out));
    let out = runner.run_action(
        "push",
        &ids[0],
        &[&common[..], &[("base", "HEAD~1")]].concat(),
    );
    assert_exit(&out, 3);
    let summary = runner.read(&runner.summary());
    assert!(
        summary.contains(&format!("base at `{}` (HEAD~1)", &ids[1][..12])),
        "{summary}"
    );
    let listing = runner
        .repo
        .perflab()
        .args(["history", "--store", "perf/store.db", "--name", "nightly"])
        .output()
        .unwrap();
    assert_exit(&listing, 0);
    assert_eq!(
        String::from_utf8_lossy(&listing.stdout)
            .matches("nightly: base vs head")
            .count(),
        3
    );
}

#[test]
fn an_empty_required_input_stops_the_gate_with_exit_2_before_anything_is_measured() {
    let runner = Runner::new();
    repository_slowing_at(runner.repo.dir.path(), 1, 0);
    // As from `command: ${{ vars.COMMAND }}` with the variable unset.
    let out = runner.run_action("pull_request", "", &[("build", BUILD), ("command", "")]);
    assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("PERFLAB_COMMAND is not set"),
        "{}",
        stderr(&out)
    );
    assert!(
        !runner.summary().exists(),
        "nothing measured, nothing summarised"
    );
}
