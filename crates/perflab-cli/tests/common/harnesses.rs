//! Real output of benchmark harnesses, made by running them on the tiny
//! benchmarks in `tests/fixtures` (criterion-bench, google-benchmark,
//! pytest-benchmark, go-bench, jmh, mitata, tinybench). Each fixture has
//! two benchmarks (JMH's a third, in throughput mode); with `slow` set
//! (`SLOW_SUM=1`) the slow-able ones do thirty times the work.
//!
//! Builds (the criterion crate, the C++ binary, the Python virtual
//! environment, the Maven project, the npm packages) are kept under the
//! target folder, so only the first run of the tests pays for them. A missing harness fails the test with how to
//! install it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn cache() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("harnesses");
    std::fs::create_dir_all(&dir).expect("cache folder for harness builds");
    dir
}

/// One harness at a time: tests run in parallel and share the cache, and a
/// benchmark measured while another runs would measure that other too.
static HARNESS: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    HARNESS.lock().unwrap_or_else(|e| e.into_inner())
}

fn run(mut command: Command, what: &str, install: &str) -> Output {
    let out = command.output().unwrap_or_else(|e| {
        panic!("{what} cannot be started ({e}): {install} (scripts/install-test-deps.sh does)")
    });
    assert!(
        out.status.success(),
        "{what} failed ({}): {}\n{}\n{install}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn slow_env(command: &mut Command, slow: bool) {
    if slow {
        command.env("SLOW_SUM", "1");
    } else {
        command.env_remove("SLOW_SUM");
    }
}

/// Runs the criterion benchmarks, saving them as `baseline` under `home`
/// (criterion's `CRITERION_HOME`, what is normally `target/criterion`).
pub fn criterion(home: &Path, baseline: &str, slow: bool) {
    let _guard = one_at_a_time();
    let mut cargo = Command::new(env!("CARGO"));
    cargo
        .args(["bench", "--quiet", "--bench", "sums", "--manifest-path"])
        .arg(fixtures().join("criterion-bench/Cargo.toml"))
        .arg("--target-dir")
        .arg(cache().join("criterion-bench"))
        .args(["--", "--save-baseline", baseline, "--noplot"])
        .args([
            "--sample-size",
            "10",
            "--measurement-time",
            "1",
            "--warm-up-time",
            "0.3",
        ])
        .env("CRITERION_HOME", home)
        .env("CARGO_INCREMENTAL", "0")
        .env_remove("CARGO_TARGET_DIR");
    slow_env(&mut cargo, slow);
    run(
        cargo,
        "cargo bench on the criterion fixture",
        "it needs crates.io reachable once to fetch criterion",
    );
}

/// Google Benchmark's JSON, with `repetitions` repetitions (none: the flag
/// is left out, as people often do).
pub fn google_benchmark(slow: bool, repetitions: Option<u32>) -> String {
    let binary = cache().join("gbench-sums");
    let source = fixtures().join("google-benchmark/sums.cc");
    let _guard = one_at_a_time();
    {
        let stale = |b: &Path| {
            let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
            modified(b) < modified(&source)
        };
        if stale(&binary) {
            let mut cxx = Command::new("c++");
            cxx.args(["-O2", "-o"])
                .arg(&binary)
                .arg(&source)
                .args(["-lbenchmark", "-lpthread"]);
            run(
                cxx,
                "compiling the Google Benchmark fixture",
                "install a C++ compiler and Google Benchmark: apt-get install g++ libbenchmark-dev",
            );
        }
    }
    let mut bench = Command::new(&binary);
    bench.args(["--benchmark_format=json", "--benchmark_min_time=0.02"]);
    if let Some(n) = repetitions {
        bench.arg(format!("--benchmark_repetitions={n}"));
    }
    slow_env(&mut bench, slow);
    let out = run(
        bench,
        "the Google Benchmark fixture",
        "apt-get install libbenchmark-dev",
    );
    String::from_utf8(out.stdout).expect("JSON is UTF-8")
}

/// pytest-benchmark's `--benchmark-json` file, with each round's time,
/// written to `out`; with `saved_without_data`, instead the run saved by
/// `--benchmark-save` without `--benchmark-save-data` (summary statistics
/// only), copied to `out`.
pub fn pytest_benchmark(out: &Path, slow: bool, saved_without_data: bool) {
    let venv = cache().join("pytest-venv");
    let python = venv.join("bin/python");
    let _guard = one_at_a_time();
    {
        if !python.exists() || !venv.join(".complete").exists() {
            let mut create = Command::new("python3");
            create.args(["-m", "venv"]).arg(&venv);
            run(
                create,
                "python3 -m venv",
                "install Python 3 with venv: apt-get install python3-venv",
            );
            let mut pip = Command::new(&python);
            pip.args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "pytest",
                "pytest-benchmark",
            ]);
            run(
                pip,
                "pip install pytest pytest-benchmark",
                "it needs PyPI reachable once (or a pip cache)",
            );
            std::fs::write(venv.join(".complete"), "").unwrap();
        }
    }
    let folder = out.parent().expect("output in a folder");
    let storage = folder.join("pytest-benchmark-storage");
    let mut pytest = Command::new(&python);
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .args(["--benchmark-min-rounds=10", "--benchmark-max-time=0.02"])
        .arg(fixtures().join("pytest-benchmark/test_sums.py"))
        // Benchmark names are test ids relative to pytest's root folder,
        // which it otherwise guesses from files above the checkout.
        .arg("--rootdir")
        .arg(fixtures().join("pytest-benchmark"))
        .current_dir(folder)
        .env("PYTHONDONTWRITEBYTECODE", "1");
    if saved_without_data {
        pytest
            .arg("--benchmark-save=run")
            .arg(format!("--benchmark-storage=file://{}", storage.display()));
    } else {
        pytest
            .arg(format!("--benchmark-json={}", out.display()))
            .arg("--benchmark-save-data");
    }
    slow_env(&mut pytest, slow);
    run(
        pytest,
        "pytest-benchmark",
        "the test creates its own virtual environment with pip",
    );
    if saved_without_data {
        // pytest-benchmark saves under a folder named after the machine.
        let saved = std::fs::read_dir(&storage)
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|machine| {
                std::fs::read_dir(machine.path())
                    .into_iter()
                    .flatten()
                    .flatten()
            })
            .map(|f| f.path())
            .find(|p| p.extension().is_some_and(|e| e == "json"))
            .expect("pytest-benchmark saved its run");
        std::fs::copy(saved, out).unwrap();
    }
}

/// What `go test -bench . -count 10` prints for the Go fixture (one CPU,
/// so that names carry no -N suffix).
pub fn go_bench(slow: bool) -> String {
    let _guard = one_at_a_time();
    let mut go = Command::new("go");
    go.args([
        "test",
        "-run",
        "^$",
        "-bench",
        ".",
        "-benchmem",
        "-cpu",
        "1",
    ])
    .args(["-count", "10", "-benchtime", "20ms"])
    .current_dir(fixtures().join("go-bench"))
    .env("GOTOOLCHAIN", "local")
    .env("GOFLAGS", "-mod=mod");
    slow_env(&mut go, slow);
    let out = run(
        go,
        "go test -bench",
        "install Go from https://go.dev/dl or apt-get install golang-go",
    );
    String::from_utf8(out.stdout).expect("go output is UTF-8")
}

/// Copies a fixture folder's files into `to`, replacing older copies, so
/// that a build writes under the cache rather than into the source tree.
fn copy_fixture(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if source.is_dir() {
            copy_fixture(&source, &target);
        } else {
            let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
            if modified(&target) < modified(&source) {
                std::fs::copy(&source, &target).unwrap();
            }
        }
    }
}

/// JMH's `-rf json` file for the JMH fixture (built once with Maven; JMH
/// 1.37 comes from Maven Central): one fork, one warm-up iteration and ten
/// measurement iterations of 50 ms each, with the allocation profiler.
pub fn jmh(slow: bool) -> String {
    let project = cache().join("jmh-sums");
    let _guard = one_at_a_time();
    copy_fixture(&fixtures().join("jmh"), &project);
    let classpath = project.join("classpath.txt");
    let jar_built = |p: &Path| p.join("target/classes/META-INF/BenchmarkList").exists();
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let source = project.join("src/main/java/sums/Sums.java");
    if !jar_built(&project) || modified(&classpath) < modified(&source) {
        let mut mvn = Command::new("mvn");
        mvn.args(["-q", "-B", "package", "dependency:build-classpath"])
            .arg(format!("-Dmdep.outputFile={}", classpath.display()))
            .current_dir(&project);
        run(
            mvn,
            "mvn package on the JMH fixture",
            "install Maven and a JDK (apt-get install maven default-jdk-headless); it needs \
             Maven Central reachable once to fetch JMH",
        );
    }
    let classpath = format!(
        "{}:{}",
        project.join("target/classes").display(),
        std::fs::read_to_string(&classpath).unwrap().trim()
    );
    let out = project.join(if slow { "slow.json" } else { "steady.json" });
    let mut java = Command::new("java");
    java.arg("-cp")
        .arg(classpath)
        .args(["org.openjdk.jmh.Main", "-f", "1", "-wi", "1", "-i", "10"])
        .args([
            "-w", "100ms", "-r", "50ms", "-prof", "gc", "-rf", "json", "-rff",
        ])
        .arg(&out);
    slow_env(&mut java, slow);
    run(
        java,
        "the JMH fixture",
        "install a JDK: apt-get install default-jdk-headless",
    );
    std::fs::read_to_string(out).expect("JMH wrote its results")
}

/// A folder with `package` (mitata or tinybench, at the version given)
/// installed by npm and the fixture's script copied next to it, so that
/// the script's `import` finds the package.
fn node_package(fixture: &str, package: &str) -> PathBuf {
    let folder = cache().join(format!("node-{fixture}"));
    copy_fixture(&fixtures().join(fixture), &folder);
    if !folder.join(".complete").exists() {
        let mut npm = Command::new("npm");
        npm.args(["install", "--no-audit", "--no-fund", "--silent", package])
            .current_dir(&folder);
        run(
            npm,
            &format!("npm install {package}"),
            "install Node.js and npm (apt-get install nodejs npm); it needs the npm registry \
             reachable once",
        );
        std::fs::write(folder.join(".complete"), "").unwrap();
    }
    folder
}

/// What the mitata fixture prints: mitata's JSON with every benchmark's samples.
pub fn mitata(slow: bool) -> String {
    let _guard = one_at_a_time();
    let folder = node_package("mitata", "mitata@1.0.34");
    let mut node = Command::new("node");
    node.arg("sums.mjs").current_dir(&folder);
    slow_env(&mut node, slow);
    let out = run(
        node,
        "node on the mitata fixture",
        "install Node.js: apt-get install nodejs",
    );
    String::from_utf8(out.stdout).expect("JSON is UTF-8")
}

/// The tinybench fixture's tasks written to `out` as the guide shows, or
/// with `summaries_only` without their samples (no `retainSamples`).
pub fn tinybench(out: &Path, slow: bool, summaries_only: bool) {
    let _guard = one_at_a_time();
    let folder = node_package("tinybench", "tinybench@6.2.5");
    let mut node = Command::new("node");
    node.arg("sums.mjs").arg(out).current_dir(&folder);
    if summaries_only {
        node.arg("summaries");
    }
    slow_env(&mut node, slow);
    run(
        node,
        "node on the tinybench fixture",
        "install Node.js: apt-get install nodejs",
    );
}

/// The thresholds of comparisons between two runs of a harness made one
/// after the other (GO at +400 %, NO-GO at -80 %): wide, because a load
/// that changes between the runs moves every benchmark.
pub const WIDE: [&str; 4] = ["--go", "400%", "--nogo", "-80%"];

/// The cells of a family comparison's JSON, as (benchmark, verdict).
pub fn verdicts(json: &serde_json::Value) -> Vec<(String, String)> {
    json["cells"]
        .as_array()
        .expect("a comparison of many benchmarks has cells")
        .iter()
        .map(|c| {
            (
                c["scenario"].as_str().unwrap().to_string(),
                c["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Only `changed` is NO-GO; every other benchmark is neither GO nor NO-GO.
pub fn assert_only_changed_is_no_go(json: &serde_json::Value, changed: &str, others: usize) {
    let cells = verdicts(json);
    assert_eq!(cells.len(), others + 1, "{cells:?}");
    for (name, verdict) in &cells {
        if name == changed {
            assert_eq!(verdict, "NO-GO", "{cells:?}");
        } else {
            assert!(verdict != "GO" && verdict != "NO-GO", "{cells:?}");
        }
    }
    assert_eq!(json["kind"], "compare");
    assert_eq!(json["verdict"], "NO-GO");
}
