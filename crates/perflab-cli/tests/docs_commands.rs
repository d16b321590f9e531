//! Every `perflab` command line that README.md and the pages under docs/
//! show works as written, so that an example cannot break unnoticed.
//!
//! The command lines are taken from fenced code blocks of shell (`sh`,
//! `bash`, `shell`, `console`, or no language; not `text`, which is output):
//! lines starting with `perflab ` or `$ perflab `, joined with the lines a
//! trailing `\` continues them on. Each page's lines run in order, through
//! `sh -c` as a user would type them, in a folder of small fixtures: the
//! programs the pages name (`./prog`, `./old-build`, `./bench {n}`, ...), an
//! experiment file, criterion baselines, a store made by a first
//! `perflab ab`, and a git repository whose `app` gets slower at one commit,
//! built by a `cargo` that stands in for `cargo build --release`. Two
//! substitutions keep every flag a line shows: a PostgreSQL URL becomes a
//! SQLite store file (the store is the same, the server is not here), and
//! `ab`, `sweep` and `bisect` get small run limits when the line sets none.
//! A line must then reach a result (exit 0, 3 NO-GO or 4 INCONCLUSIVE).

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::markdown::{fenced_code_blocks, read, readme_and_docs, repository};
use common::{git, init_git_repository};

/// Lines that cannot run here, with the reason: they are run all the same,
/// and must show that perflab accepted their arguments (whatever the tool
/// they need then said).
const ARGUMENTS_ONLY: &[(&str, &str)] = &[
    (
        "perflab profile ",
        "perf record needs a kernel that lets this user sample",
    ),
    (
        "perflab system check",
        "its exit code says whether this machine is quiet, which a test cannot choose",
    ),
];

/// Lines that do not work yet, each a doc bug waiting for a change of
/// perflab: they must still be refused as bad usage, and the test fails
/// when one works, so that it leaves this list.
const KNOWN_BROKEN: &[&str] = &[];

/// Run limits added to `ab`, `sweep` and `bisect` lines that set none, so
/// that the examples run in a fraction of a second each.
const RUN_LIMITS: &str = "--min-runs 2 --max-runs 4";

/// The marks clap's usage errors carry.
const USAGE_ERROR_MARKS: &[&str] = &[
    "For more information, try '--help'",
    "unexpected argument",
    "unrecognized subcommand",
];

/// A command line of a page.
#[derive(Debug, Clone, PartialEq)]
struct CommandLine {
    page: PathBuf,
    line: usize,
    text: String,
}

/// The `perflab` command lines of a Markdown page.
fn command_lines(page: &Path, markdown: &str) -> Vec<CommandLine> {
    let mut found = Vec::new();
    for block in fenced_code_blocks(markdown) {
        let language = block.info.split_whitespace().next().unwrap_or("");
        if !["", "sh", "bash", "shell", "console"].contains(&language) {
            continue;
        }
        let mut lines = block.text.lines().enumerate();
        while let Some((i, line)) = lines.next() {
            let line = line.trim_start();
            let line = line.strip_prefix("$ ").unwrap_or(line);
            if !line.starts_with("perflab ") {
                continue;
            }
            let mut text = line.trim_end().to_string();
            while let Some(joined) = text.strip_suffix('\\') {
                let next = lines.next().map(|(_, l)| l.trim()).unwrap_or("");
                text = format!("{} {next}", joined.trim_end());
            }
            found.push(CommandLine {
                page: page.to_path_buf(),
                line: block.first_line + i,
                text,
            });
        }
    }
    found
}

/// The line as it runs here: a PostgreSQL URL becomes a SQLite store file,
/// and run limits are added after the subcommand when the line sets none.
fn as_run_here(line: &str) -> String {
    let words: Vec<String> = line
        .split(' ')
        .map(|w| {
            if w.starts_with("postgres://") {
                "shared.db".to_string()
            } else {
                w.to_string()
            }
        })
        .collect();
    let mut line = words.join(" ");
    if !line.contains("--min-runs") && !line.contains("--max-runs") {
        if let Some(at) = subcommand_position(&words)
            .filter(|&at| ["ab", "sweep", "bisect"].contains(&words[at].as_str()))
        {
            let mut with_limits = words.clone();
            with_limits.insert(at + 1, RUN_LIMITS.to_string());
            line = with_limits.join(" ");
        }
    }
    line
}

/// Where the subcommand is among the words of a line: the first word after
/// `perflab` that is neither a global flag (`--store PATH`) nor its value.
fn subcommand_position(words: &[String]) -> Option<usize> {
    let mut at = 1;
    while let Some(word) = words.get(at) {
        match word.as_str() {
            "" => at += 1,
            "--store" => at += 2,
            w if w.starts_with('-') => at += 1,
            _ => return Some(at),
        }
    }
    None
}

/// A program the pages run: prints the same line every run, and a metric
/// with a little noise, so that a statistic has something to estimate.
fn program(lines: &str) -> String {
    format!(
        "#!/bin/sh\n# A stand-in for the program a documentation page names.\n\
         noise=$(( $$ % 17 ))\n{lines}\n"
    )
}

/// The fixtures every page's lines run among: see the module's comment.
struct Fixtures {
    /// A folder holding `work/` (where the lines run) and `bin/` (first on PATH).
    dir: tempfile::TempDir,
}

impl Fixtures {
    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    fn bin(&self) -> PathBuf {
        self.dir.path().join("bin")
    }

    fn new() -> Self {
        let fixtures = Self {
            dir: tempfile::tempdir().expect("temporary folder"),
        };
        let (work, bin) = (fixtures.work(), fixtures.bin());
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        let executable = |path: PathBuf, text: &str| {
            std::fs::write(&path, text).unwrap();
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                .unwrap();
        };
        executable(
            bin.join("cargo"),
            "#!/bin/sh\n# Stands in for `cargo build --release`: puts the revision's app in place.\n\
             [ \"$*\" = \"build --release\" ] || { echo \"fixture cargo: only 'build --release', not '$*'\" >&2; exit 101; }\n\
             mkdir -p target/release && cp app.sh target/release/app && chmod +x target/release/app\n",
        );
        for name in [
            "old-build",
            "new-build",
            "prog",
            "old",
            "new",
            "hamt",
            "libhamt",
            "job",
            "ref",
        ] {
            executable(work.join(name), &program("echo \"done\""));
        }
        for name in ["a", "b"] {
            executable(
                work.join(name),
                &program("echo \"Throughput = $((120 + noise)).5M\""),
            );
        }
        executable(
            work.join("bench"),
            &program("echo \"PERFLAB_METRIC ns_per_op $((210 + noise)) ns\""),
        );
        std::fs::write(
            work.join("perflab.toml"),
            "name = \"fixture\"\nmin_runs = 2\nmax_runs = 4\n\n\
             [[variant]]\nname = \"baseline\"\ncommand = \"./prog\"\n\n\
             [[variant]]\nname = \"candidate\"\ncommand = \"./prog\"\nenv = { FEATURE = \"1\" }\n",
        )
        .unwrap();
        for (baseline, nanoseconds) in [("before", 1000.0), ("after", 900.0)] {
            let folder = work.join("target/criterion/parse").join(baseline);
            std::fs::create_dir_all(&folder).unwrap();
            let iters: Vec<f64> = (1..=10).map(f64::from).collect();
            let times: Vec<f64> = iters
                .iter()
                .map(|n| n * nanoseconds * (1.0 + 0.01 * (n % 3.0)))
                .collect();
            std::fs::write(
                folder.join("sample.json"),
                serde_json::json!({"sampling_mode": "Linear", "iters": iters, "times": times})
                    .to_string(),
            )
            .unwrap();
        }
        // A repository whose app gets slower at "change 2": v1.4 is good,
        // main (HEAD) is slower, HEAD~1 is the base of a pull request.
        init_git_repository(&work);
        std::fs::write(
            work.join(".gitignore"),
            ".perflab/\ntarget/\n*.json\n*.md\n*.html\n*.svg\n*.db\n",
        )
        .unwrap();
        for (i, app) in ["exit 0", "exit 0", "sleep 0.02", "sleep 0.02"]
            .iter()
            .enumerate()
        {
            executable(work.join("app.sh"), &format!("#!/bin/sh\n{app}\n"));
            std::fs::write(work.join("notes.txt"), format!("change {i}\n")).unwrap();
            git(&work, &["add", "."]);
            git(&work, &["commit", "-qm", &format!("change {i}")]);
            if i == 0 {
                git(&work, &["tag", "v1.4"]);
            }
        }
        // A store with one experiment, for the pages that report or list.
        let out = fixtures
            .shell("perflab ab ./old-build ./new-build --name seed --min-runs 2 --max-runs 2");
        assert!(
            out.status.code().is_some_and(|c| [0, 3, 4].contains(&c)),
            "the fixture store: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        fixtures
    }

    /// A copy of the fixtures, for one page.
    fn copy(&self) -> Self {
        let copy = Self {
            dir: tempfile::tempdir().expect("temporary folder"),
        };
        let status = std::process::Command::new("cp")
            .arg("-a")
            .arg(self.work())
            .arg(self.bin())
            .arg(copy.dir.path())
            .status()
            .expect("cp runs");
        assert!(status.success(), "copying the fixtures");
        copy
    }

    /// Runs a line through `sh -c` in `work/`, with the fixtures' `cargo`
    /// and the perflab under test first on PATH, and the variables the CI
    /// gate's line uses.
    fn shell(&self, line: &str) -> Output {
        let perflab = Path::new(env!("CARGO_BIN_EXE_perflab"));
        let path = format!(
            "{}:{}:{}",
            self.bin().display(),
            perflab.parent().expect("perflab's folder").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        std::process::Command::new("timeout")
            .args(["120", "sh", "-c", line])
            .current_dir(self.work())
            .env("PATH", path)
            .env_remove("PERFLAB_STORE")
            .env_remove("PERFLAB_HOST")
            .env("BASE", "HEAD~1")
            .env("PERFLAB_BUILD", "cargo build --release")
            .env("PERFLAB_ARGS", "--warmup 0")
            .env("PERFLAB_COMMAND", "./target/release/app")
            .output()
            .expect("sh runs")
    }
}

fn usage_error(out: &Output) -> bool {
    let stderr = String::from_utf8_lossy(&out.stderr);
    out.status.code() == Some(2) && USAGE_ERROR_MARKS.iter().any(|m| stderr.contains(m))
}

/// What is wrong with the outcome of a line, or `None` when it is what the
/// line should give.
fn wrong_outcome(line: &str, out: &Output) -> Option<String> {
    let code = out.status.code();
    if KNOWN_BROKEN.contains(&line) {
        return (!usage_error(out)).then(|| {
            format!("works now (exit {code:?}): remove it from KNOWN_BROKEN in this test")
        });
    }
    if let Some((_, why)) = ARGUMENTS_ONLY
        .iter()
        .find(|(start, _)| line.starts_with(start))
    {
        return usage_error(out)
            .then(|| format!("its arguments are refused (it only has to be accepted: {why})"));
    }
    (!code.is_some_and(|c| [0, 3, 4].contains(&c))).then(|| format!("exit {code:?}"))
}

#[test]
fn every_perflab_command_line_of_the_readme_and_docs_works() {
    let root = repository();
    let pages = readme_and_docs(&root);
    let lines: Vec<CommandLine> = pages
        .iter()
        .flat_map(|page| command_lines(page, &read(page)))
        .collect();
    assert!(
        lines
            .iter()
            .filter(|l| l.page.ends_with("README.md"))
            .count()
            >= 2,
        "the README's first commands are found: {lines:#?}"
    );
    for known in KNOWN_BROKEN {
        assert!(
            lines.iter().any(|l| l.text == *known),
            "KNOWN_BROKEN holds a line no page shows any more: {known}"
        );
    }
    let template = Fixtures::new();
    let mut failures = Vec::new();
    for page in &pages {
        let on_page: Vec<&CommandLine> = lines.iter().filter(|l| &l.page == page).collect();
        if on_page.is_empty() {
            continue;
        }
        let fixtures = template.copy();
        for line in on_page {
            let run = as_run_here(&line.text);
            let out = fixtures.shell(&run);
            if let Some(wrong) = wrong_outcome(&line.text, &out) {
                failures.push(format!(
                    "{}:{}: {}\n  ran: {run}\n  {wrong}\n  stderr: {}",
                    line.page
                        .strip_prefix(&root)
                        .unwrap_or(&line.page)
                        .display(),
                    line.line,
                    line.text,
                    String::from_utf8_lossy(&out.stderr)
                        .trim_end()
                        .replace('\n', "\n    ")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} documented command line(s) do not work:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn command_lines_are_joined_across_backslashes_and_output_blocks_are_left_out() {
    let page = "Text `perflab ab x y` inline.\n\n\
                ```sh\n# a comment\nperflab ab './a' './b' \\\n    --name one   # trailing\n\
                $ perflab history\ncargo build\n```\n\n\
                ```text\nperflab ab one: wall time (lower is better)\n```\n\n\
                ```console\n$ perflab report\n```\n";
    let lines = command_lines(Path::new("p.md"), page);
    let texts: Vec<(&str, usize)> = lines.iter().map(|l| (l.text.as_str(), l.line)).collect();
    assert_eq!(
        texts,
        [
            ("perflab ab './a' './b' --name one   # trailing", 5),
            ("perflab history", 7),
            ("perflab report", 16),
        ]
    );
}

#[test]
fn a_store_url_becomes_a_file_and_run_limits_go_after_the_subcommand() {
    assert_eq!(
        as_run_here("perflab --store postgres://ann@db/perflab ab './old' './new'"),
        "perflab --store shared.db ab --min-runs 2 --max-runs 4 './old' './new'"
    );
    assert_eq!(
        as_run_here("perflab sweep -p n=1,2 './bench {n}' --max-runs 3"),
        "perflab sweep -p n=1,2 './bench {n}' --max-runs 3"
    );
    assert_eq!(
        as_run_here("perflab ab 'sweep ab' x"),
        "perflab ab --min-runs 2 --max-runs 4 'sweep ab' x"
    );
    assert_eq!(
        as_run_here("perflab history --name ab"),
        "perflab history --name ab"
    );
}

#[test]
fn a_line_refused_as_bad_usage_fails_the_check() {
    let fixtures = Fixtures::new();
    let out = fixtures.shell("perflab ab ./old ./new --no-such-flag");
    assert_eq!(
        wrong_outcome("perflab ab ./old ./new --no-such-flag", &out),
        Some("exit Some(2)".to_string())
    );
    let out = fixtures.shell("perflab profile --frequency often -- ./prog");
    assert!(
        wrong_outcome("perflab profile --frequency often -- ./prog", &out)
            .is_some_and(|w| w.contains("arguments are refused")),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
