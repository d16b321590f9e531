//! The Python package in `python/`: installed with pip into a virtual
//! environment, its C accelerator built, its pytest suite passes through
//! the accelerator and through the pure-Python probes; the example program instrumented
//! with it writes a profile the strict reader accepts; and `perflab run`
//! and `perflab ab -f` show its spans. A missing `python3` (or its venv
//! module, its headers, or pytest) fails the tests with the install advice
//! (CI installs them: scripts/install-test-deps.sh).

mod common;
mod native;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::Scratch;
use native::require_tool;
use perflab_format::profile::{Profile, SpanKind, WarningKind};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn example_dir() -> PathBuf {
    repository().join("examples/python-spans")
}

/// Copies a source tree, leaving out what a build or an import leaves behind.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create directory");
    for entry in std::fs::read_dir(from).expect("read directory") {
        let entry = entry.expect("directory entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "__pycache__" || name == "build" || name.ends_with(".egg-info") {
            continue;
        }
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &to.join(&name));
        } else {
            std::fs::copy(entry.path(), to.join(&name)).expect("copy file");
        }
    }
}

fn succeed(command: &mut Command, what: &str) -> Output {
    let output = command
        .env_remove("PYTHONPATH")
        .env_remove("PERFLAB_PROFILE")
        .env_remove("PERFLAB_TABLE")
        .output()
        .unwrap_or_else(|error| panic!("{what}: {error}"));
    assert!(
        output.status.success(),
        "{what} failed: run scripts/install-test-deps.sh (python3-venv, python3-dev, python3-pytest) if something is missing\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

#[test]
fn the_python_package_installs_with_pip_in_a_virtual_environment_and_passes_its_tests() {
    require_tool("python3");
    let scratch = Scratch::new();
    let dir = scratch.dir.path();
    copy_tree(&repository().join("python"), &scratch.path("python"));
    // pytest comes from the system (--system-site-packages); pip builds the
    // package as the README says, fetching its build backend (setuptools).
    succeed(
        Command::new("python3").current_dir(dir).args([
            "-m",
            "venv",
            "--system-site-packages",
            "venv",
        ]),
        "python3 -m venv",
    );
    let python = scratch.path("venv/bin/python");
    succeed(
        Command::new(&python)
            .current_dir(dir)
            .args(["-m", "pip", "install", "--quiet", "./python"]),
        "pip install ./python",
    );
    // Tests run against the installed copy, not the sources next to them.
    let installed = succeed(
        Command::new(&python)
            .current_dir(dir)
            .args(["-c", "import perflab; print(perflab.__file__)"]),
        "import perflab",
    );
    let location = String::from_utf8_lossy(&installed.stdout);
    assert!(location.contains("/venv/"), "{location}");
    // pip builds the accelerator where a C compiler and Python's headers are
    // installed, as they are here; without them the package is pure Python.
    succeed(
        Command::new(&python)
            .current_dir(dir)
            .args(["-c", "import perflab._accelerator"]),
        "import perflab._accelerator (built by pip install)",
    );
    let pytest = succeed(
        Command::new(&python).current_dir(dir).args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "python/tests",
        ]),
        "pytest python/tests",
    );
    let summary = String::from_utf8_lossy(&pytest.stdout);
    assert!(summary.contains(" passed"), "{summary}");
    // Nothing skipped: the half of the suite that runs through the accelerator ran.
    assert!(!summary.contains("skipped"), "{summary}");
}

/// Runs the example program with `lines` log lines and the package on the path.
fn run_example(scratch: &Scratch, lines: &str, profile: Option<&Path>) -> Output {
    require_tool("python3");
    let mut command = Command::new("python3");
    command
        .current_dir(scratch.dir.path())
        .arg(example_dir().join("logstats.py"))
        .arg(lines)
        .env("PYTHONPATH", repository().join("python/src"))
        .env_remove("PERFLAB_PROFILE")
        .env_remove("PERFLAB_TABLE")
        .env_remove("LOGSTATS_PARSER");
    if let Some(path) = profile {
        command.env("PERFLAB_PROFILE", path);
    }
    let output = command.output().expect("run python3");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

#[test]
fn a_python_program_writes_a_profile_the_strict_reader_accepts() {
    let scratch = Scratch::new();
    let path = scratch.path("profile.json");
    let plain = run_example(&scratch, "6000", None);
    assert_eq!(
        std::fs::read_dir(scratch.dir.path()).unwrap().count(),
        0,
        "nothing is written without PERFLAB_PROFILE"
    );
    let recorded = run_example(&scratch, "6000", Some(&path));
    assert_eq!(plain.stdout, recorded.stdout, "recording changes no output");
    let text = std::fs::read_to_string(&path).expect("the program wrote its profile");
    let profile = Profile::from_json_str(&text).unwrap_or_else(|error| panic!("{error}\n{text}"));
    assert_eq!(profile.program, "logstats.py");
    let fetch = profile.span("fetch_batch").expect("fetch_batch span");
    assert_eq!(fetch.kind, SpanKind::Async);
    assert_eq!(fetch.calls, 2, "6000 lines come in two batches");
    let polls = fetch.async_stats.as_ref().expect("async figures").polls;
    assert!(polls >= 4, "each batch waits once: {polls} polls");
    assert!(fetch.self_ns < fetch.inclusive_ns);
    let parse = profile.span("parse").expect("parse span");
    assert_eq!((parse.kind, parse.calls), (SpanKind::Function, 1));
    assert_eq!(
        parse.self_ns, parse.inclusive_ns,
        "nothing is measured inside parse"
    );
    let fetch_all = profile
        .span("fetch")
        .expect("the span around the event loop");
    assert!(
        fetch_all.self_ns <= fetch_all.inclusive_ns - fetch.self_ns,
        "the coroutines' polls are children of the span around asyncio.run"
    );
    assert_eq!(profile.warnings_of(WarningKind::NeverEntered).count(), 0);
    assert_eq!(profile.warnings_of(WarningKind::Other).count(), 0);
    assert_eq!(profile.counter("records").map(|c| c.total), Some(6000));
    assert_eq!(profile.gauge("distinct_paths").map(|g| g.samples), Some(1));
    let main = &profile.threads[0];
    assert_eq!(main.name.as_deref(), Some("main"));
    assert_eq!(main.attributed_ns + main.unattributed_ns, main.wall_ns);
}

#[test]
fn perflab_run_shows_the_spans_of_a_python_program() {
    require_tool("python3");
    let scratch = Scratch::new();
    let command = format!(
        "python3 {} 3000",
        example_dir().join("logstats.py").display()
    );
    let out = scratch
        .perflab()
        .env("PYTHONPATH", repository().join("python/src"))
        .args(["run", &command, "-r", "3", "--json", "r.json"])
        .output()
        .unwrap();
    common::assert_exit(&out, 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    for name in ["parse", "fetch_batch", "aggregate", "(unattributed)"] {
        assert!(stdout.contains(name), "`{name}` missing from:\n{stdout}");
    }
    let json = scratch.json("r.json");
    let spans = json["spans"]
        .as_array()
        .expect("a span table in the result");
    for (name, calls) in [("parse", 1.0), ("fetch_batch", 1.0), ("top", 1.0)] {
        let record = spans
            .iter()
            .find(|record| record["name"] == name)
            .unwrap_or_else(|| panic!("span `{name}` missing from {spans:?}"));
        assert_eq!(record["per_variant"][0]["runs"], 3, "{record}");
        assert_eq!(record["per_variant"][0]["calls"], calls, "{record}");
    }
}

#[test]
fn the_examples_ab_file_runs_both_parsers_and_compares_them_span_by_span() {
    require_tool("python3");
    let scratch = Scratch::new();
    copy_tree(&example_dir(), &scratch.path("examples/python-spans"));
    copy_tree(&repository().join("python"), &scratch.path("python"));
    let out = scratch
        .perflab()
        .current_dir(scratch.path("examples/python-spans"))
        .env("LOGSTATS_LINES", "3000")
        .env("PERFLAB_STORE", scratch.store())
        .args([
            "ab",
            "-f",
            "perflab.toml",
            "--min-runs",
            "2",
            "--max-runs",
            "3",
        ])
        .args(["--json", "ab.json"])
        .output()
        .unwrap();
    common::assert_reached_a_result(&out);
    let text = std::fs::read_to_string(scratch.path("examples/python-spans/ab.json"))
        .expect("the A/B result");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let spans = json["spans"]
        .as_array()
        .expect("a span table in the result");
    let per_variant = |name: &str| {
        spans
            .iter()
            .find(|record| record["name"] == name)
            .unwrap_or_else(|| panic!("span `{name}` missing from {spans:?}"))["per_variant"]
            .clone()
    };
    assert_eq!(json["variants"][1]["env"]["LOGSTATS_PARSER"], "regex");
    let calls = |name: &str, variant: usize| per_variant(name)[variant]["calls"].as_f64();
    for name in ["fetch", "fetch_batch", "parse", "aggregate", "top"] {
        assert_eq!(
            (calls(name, 0), calls(name, 1)),
            (Some(1.0), Some(1.0)),
            "{name}"
        );
    }
}
