//! A case study's `investigate.sh` run for real on small inputs: the
//! example's files, the publish gate and whatever else the script needs
//! from the workspace are copied into a temporary git repository of the
//! same layout and committed (the gate refuses a dirty tree), the README's
//! blocks are emptied first so that whatever fills them is this run, and
//! the script runs with this test run's perflab binary (no release build),
//! on a machine that may be busy (`PERFLAB_ALLOW_BUSY=1`, no wait for a
//! quiet one).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::{Scratch, git, init_git_repository};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The body of block `name` among `blocks`; fails the test when there is none.
pub fn block<'a>(blocks: &'a [(String, String)], name: &str) -> &'a str {
    match blocks.iter().find(|(n, _)| n == name) {
        Some((_, body)) => body,
        None => panic!("no block `{name}` in the README"),
    }
}

/// `<!-- begin: NAME -->` ... `<!-- end: NAME -->`: the README's blocks as
/// (name, body) in order. Fails the test on a begin mark without its end,
/// an end mark without its begin, or a block inside another.
pub fn blocks(readme: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut open: Option<(String, Vec<&str>)> = None;
    for line in readme.lines() {
        if let Some(name) = mark(line, "begin") {
            assert!(
                open.is_none(),
                "block `{name}` begins inside another:\n{readme}"
            );
            open = Some((name.to_string(), Vec::new()));
        } else if let Some(name) = mark(line, "end") {
            let (begun, body) = open
                .take()
                .unwrap_or_else(|| panic!("block `{name}` ends without a beginning:\n{readme}"));
            assert_eq!(begun, name, "block `{begun}` ends as `{name}`:\n{readme}");
            found.push((begun, body.join("\n")));
        } else if let Some((_, body)) = open.as_mut() {
            body.push(line);
        }
    }
    assert!(open.is_none(), "a block is never ended:\n{readme}");
    found
}

fn mark<'a>(line: &'a str, which: &str) -> Option<&'a str> {
    line.trim()
        .strip_prefix(&format!("<!-- {which}: "))?
        .strip_suffix(" -->")
}

/// The README with every block's body removed, its marks kept.
pub fn emptied(readme: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in readme.lines() {
        if mark(line, "begin").is_some() {
            inside = true;
        } else if mark(line, "end").is_some() {
            inside = false;
        } else if inside {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The README's text outside its blocks and outside fenced code: the prose.
pub fn prose(readme: &str) -> String {
    let mut out = String::new();
    let (mut in_block, mut in_fence) = (false, false);
    for line in readme.lines() {
        if mark(line, "begin").is_some() {
            in_block = true;
        } else if mark(line, "end").is_some() {
            in_block = false;
        } else if !in_block && line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        } else if !in_block && !in_fence {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// A committed copy of `files` (paths relative to the workspace, the same
/// relative paths in the copy), with the README of `example` emptied of its
/// blocks' figures.
pub fn repository(example: &str, files: &[&str]) -> Scratch {
    let s = Scratch::new();
    for file in files {
        let from = workspace().join(file);
        let to = s.dir.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
    }
    let readme = s.dir.path().join(format!("examples/{example}/README.md"));
    let text = std::fs::read_to_string(&readme).expect("the example's README");
    std::fs::write(&readme, emptied(&text)).unwrap();
    init_git_repository(s.dir.path());
    git(s.dir.path(), &["add", "."]);
    git(s.dir.path(), &["commit", "-qm", "a case study"]);
    s
}

/// Runs `examples/<example>/investigate.sh` in the copy with `sizes`, and
/// returns its output; the copy's README is then what the script wrote.
pub fn run(s: &Scratch, example: &str, sizes: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg(
        s.dir
            .path()
            .join(format!("examples/{example}/investigate.sh")),
    )
    .current_dir(s.dir.path())
    .env("PERFLAB", env!("CARGO_BIN_EXE_perflab"))
    .env("PERFLAB_ALLOW_BUSY", "1")
    .env("PERFLAB_QUIET_WAIT", "0s")
    .env_remove("PERFLAB_ALLOW_DIRTY")
    .env_remove("PERFLAB_STORE")
    .env_remove("PERFLAB_MAX_LOAD")
    .env_remove("PERFLAB_MAX_PRESSURE");
    for (key, value) in sizes {
        cmd.env(key, value);
    }
    cmd.output().expect("bash runs")
}

/// Asserts that the script exited 0, showing its output otherwise.
pub fn assert_success(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Asserts that the README holds exactly the blocks `names` (and the
/// provenance block, naming the copy's commit), each with figures in it.
pub fn assert_every_block_filled(s: &Scratch, readme: &str, names: &[&str]) {
    let found = blocks(readme);
    let mut expected: Vec<&str> = names.to_vec();
    expected.push("provenance");
    expected.sort_unstable();
    let mut present: Vec<&str> = found.iter().map(|(name, _)| name.as_str()).collect();
    present.sort_unstable();
    assert_eq!(present, expected, "{readme}");
    for (name, body) in &found {
        assert!(
            !body.trim().is_empty(),
            "block `{name}` is empty:\n{readme}"
        );
        assert!(
            body.chars().any(|c| c.is_ascii_digit()),
            "block `{name}` holds no figure:\n{body}"
        );
    }
    let commit = git(s.dir.path(), &["rev-parse", "--short=12", "HEAD"]);
    let provenance = &found
        .iter()
        .find(|(name, _)| name == "provenance")
        .unwrap()
        .1;
    assert!(
        provenance.contains(&format!(
            "Measured by `investigate.sh` at commit {commit} on "
        )),
        "{provenance}"
    );
}

/// Asserts that the README's prose (outside its blocks and code) states no
/// measured figure: no number with a unit of time or size, no percentage,
/// no ratio.
pub fn assert_no_figure_in_prose(readme: &str) {
    let text = prose(readme);
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        for (i, word) in words.iter().enumerate() {
            let number = word.trim_start_matches(['(', '[', '×', 'x', '~', '+', '-']);
            let starts_with_digit = number.chars().next().is_some_and(|c| c.is_ascii_digit());
            if !starts_with_digit {
                continue;
            }
            let digits: String = number
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
                .collect();
            let rest = &number[digits.len()..];
            let unit = if rest.is_empty() {
                words.get(i + 1).copied().unwrap_or("")
            } else {
                rest
            };
            let unit = unit.trim_end_matches([',', '.', ';', ':', ')', ']']);
            let ratio = word.trim_start_matches(['(', '[']).starts_with(['×', 'x']);
            let timed =
                ["ns", "µs", "us", "ms", "s", "%", "KiB", "MiB", "GiB"].contains(&unit) || ratio;
            assert!(!timed, "a figure in the prose, outside the blocks: {line}");
        }
    }
}

/// An example package's binary, built by cargo into this test run's target
/// folder, in release mode when `release` is set.
pub fn example_binary(package: &str, release: bool) -> PathBuf {
    let (flags, profile): (&[&str], &str) = if release {
        (&["--release"], "release")
    } else {
        (&[], "debug")
    };
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--quiet", "-p", package, "--message-format=short"])
        .args(flags)
        .current_dir(workspace())
        .output()
        .expect("run cargo build");
    assert!(
        out.status.success(),
        "cargo build -p {package} {flags:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target"));
    target.join(profile).join(package)
}
