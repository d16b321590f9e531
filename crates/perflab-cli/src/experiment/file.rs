//! The experiment file, `perflab.toml`.
//!
//! ```toml
//! name = "quickstart"
//! measure = "wall"          # or cpu, peak-memory, or a metric name
//! go = "1%"                 # or a number of percent: go = 1
//! nogo = "-0.5%"
//! max_runs = 40
//! perf_events = true        # perf events of every run (perf.* metrics)
//! pin = "0-1"               # CPUs every run is pinned to (--pin)
//! duet = true               # A and B started together, each on a CPU of its own (--duet)
//! shield = "1"              # the runs get CPU 1 to themselves (--shield, as root)
//! wait_quiet = "5%"         # wait for CPU pressure below 5% before each block (or true: --wait-quiet)
//! keep_env = ["HOME"]       # with measure = "instructions": variables the counted runs keep
//! expect = { items = "> 0" } # what every run must show (see the expectations module)
//!
//! [metrics]                 # NAME = REGEX, for output perflab cannot change
//! throughput = 'Throughput = ([0-9.]+[KMG]?)'
//!
//! [[guard]]
//! metric = "peak-memory"
//! max_worsening = "10%+8MiB"  # 10% or 8 MiB, whichever is larger ("5%": relative only)
//!
//! [[variant]]
//! name = "baseline"
//! command = "./prog"
//!
//! [[variant]]
//! name = "candidate"
//! command = "./prog"
//! env = { FAST = "1" }
//! ```
//!
//! With `[[scenario]]` tables the file is a suite: two or more variants
//! (the first is the baseline), each compared with it in every scenario; a
//! variant's command may then come from the scenario (see
//! [`crate::experiment::Suite`]):
//!
//! ```text
//! [[scenario]]
//! name = "mixed"
//! command = "./work mixed {args}"   # used by variants without a command
//! args = "--threads 2"               # fills {args}
//! env = { SEED = "1" }               # under each variant's own env
//! expect = { disputes = "> 0" }      # what every run must show
//! ```
//!
//! Every error names the file, line and column. Relative working
//! directories, and the default working directory, are the file's folder, so
//! an experiment runs the same from wherever it is started.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use perflab_runner::MetricExtractor;
use regex::Regex;
use serde::Deserialize;
use toml::Spanned;

use super::guard_spec::{GuardSettings, parse_limit};
use super::limits::MaxCpuWait;
use super::pin::parse_pin;
use super::settings::{ScenarioSettings, Settings, VariantSettings, parse_better};
use super::shielding::{DEFAULT_QUIET_PRESSURE, QuietSetting, parse_shield, parse_wait_quiet};
use crate::error::{Error, Result};
use crate::expectations::Expectations;
use perflab_report::units::{parse_duration, parse_percent};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    name: Option<String>,
    measure: Option<String>,
    better: Option<Spanned<String>>,
    go: Option<Spanned<toml::Value>>,
    nogo: Option<Spanned<toml::Value>>,
    confidence: Option<Spanned<f64>>,
    min_runs: Option<usize>,
    max_runs: Option<usize>,
    max_time: Option<Spanned<String>>,
    warmup: Option<usize>,
    timeout: Option<Spanned<String>>,
    shell: Option<bool>,
    cwd: Option<String>,
    ignore_failure: Option<bool>,
    keep_children: Option<bool>,
    output: Option<String>,
    seed: Option<u64>,
    perf_events: Option<bool>,
    pin: Option<Spanned<String>>,
    duet: Option<bool>,
    shield: Option<Spanned<String>>,
    wait_quiet: Option<Spanned<toml::Value>>,
    max_cpu_wait: Option<Spanned<toml::Value>>,
    #[serde(default)]
    keep_env: Vec<String>,
    expect: Option<Spanned<BTreeMap<String, String>>>,
    #[serde(default)]
    metrics: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    guard: Vec<GuardDoc>,
    #[serde(default)]
    variant: Vec<Spanned<VariantDoc>>,
    build: Option<BuildDoc>,
    #[serde(default)]
    scenario: Vec<Spanned<ScenarioDoc>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BuildDoc {
    command: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GuardDoc {
    metric: String,
    max_worsening: Spanned<toml::Value>,
    better: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct VariantDoc {
    name: Option<String>,
    command: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<String>,
    rev: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioDoc {
    name: String,
    command: Option<String>,
    args: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    expect: Option<Spanned<BTreeMap<String, String>>>,
}

/// Reads an experiment file into settings.
pub fn read_experiment_file(path: &Path) -> Result<Settings> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        let hint = if e.kind() == std::io::ErrorKind::InvalidData {
            "TOML files are UTF-8 text; save it as UTF-8"
        } else {
            "check the path given to -f"
        };
        Error::input(
            path,
            format!("cannot read the experiment file: {e}; {hint}"),
        )
    })?;
    parse_experiment(&text, path)
}

/// Parses experiment text; `path` is for messages and relative directories.
pub fn parse_experiment(text: &str, path: &Path) -> Result<Settings> {
    let at = |span: Option<Range<usize>>, message: String| {
        let location = span
            .map(|s| line_column(text, s.start))
            .map(|(l, c)| format!(":{l}:{c}"))
            .unwrap_or_default();
        Error::input(format!("{}{location}", path.display()), message)
    };
    let doc: FileDoc =
        toml::from_str(text).map_err(|e| at(e.span(), e.message().trim().to_string()))?;
    let base = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let dir = |d: &str| -> PathBuf { base.join(d) };

    let percent = |v: &Spanned<toml::Value>, key: &str| -> Result<f64> {
        let parsed = match v.get_ref() {
            toml::Value::String(s) => parse_percent(s),
            toml::Value::Integer(i) => Ok(*i as f64 / 100.0),
            toml::Value::Float(f) if f.is_finite() => Ok(f / 100.0),
            toml::Value::Float(f) => Err(format!("{f} is not a finite percentage")),
            _ => Err(format!(
                "{key} must be a percentage like \"1%\" or a number of percent"
            )),
        };
        parsed.map_err(|m| at(Some(v.span()), format!("{key}: {m}")))
    };
    let duration = |v: &Spanned<String>, key: &str| {
        parse_duration(v.get_ref()).map_err(|m| at(Some(v.span()), format!("{key}: {m}")))
    };
    // Checked here as well as with the flags, so that the error points at the line.
    let confidence = |v: &Spanned<f64>| {
        let level = *v.get_ref();
        if level > 0.5 && level < 1.0 {
            Ok(level)
        } else {
            Err(at(
                Some(v.span()),
                format!("confidence: {level} is not a level between 0.5 and 1 (e.g. 0.95)"),
            ))
        }
    };
    let better = |v: &Spanned<String>| {
        parse_better(v.get_ref(), "better").map_err(|_| {
            at(
                Some(v.span()),
                format!(
                    "better: '{}' is neither \"higher\" nor \"lower\"",
                    v.get_ref()
                ),
            )
        })
    };

    let pin = doc
        .pin
        .as_ref()
        .map(|p| {
            parse_pin(
                p.get_ref(),
                &format!("{}: pin", location(text, path, p.span().start)),
            )
        })
        .transpose()?;
    let shield = doc
        .shield
        .as_ref()
        .map(|p| {
            parse_shield(
                p.get_ref(),
                &format!("{}: shield", location(text, path, p.span().start)),
            )
        })
        .transpose()?;
    let wait_quiet = match &doc.wait_quiet {
        None => None,
        Some(v) => {
            let given_as = format!("{}: wait_quiet", location(text, path, v.span().start));
            match v.get_ref() {
                toml::Value::Boolean(false) => None,
                toml::Value::Boolean(true) => Some(QuietSetting {
                    threshold: DEFAULT_QUIET_PRESSURE,
                    given_as,
                }),
                toml::Value::String(s) => Some(parse_wait_quiet(s, &given_as)?),
                toml::Value::Integer(i) => Some(parse_wait_quiet(&i.to_string(), &given_as)?),
                toml::Value::Float(f) => Some(parse_wait_quiet(&f.to_string(), &given_as)?),
                _ => {
                    return Err(at(
                        Some(v.span()),
                        "wait_quiet must be true, false, or a CPU pressure like \"5%\"".to_string(),
                    ));
                }
            }
        }
    };
    let mut metrics = Vec::new();
    for (name, pattern) in &doc.metrics {
        MetricExtractor::check_name(name, "[metrics]")
            .map_err(|e| at(Some(pattern.span()), e.to_string()))?;
        let regex = Regex::new(pattern.get_ref()).map_err(|e| {
            at(
                Some(pattern.span()),
                format!("metric '{name}': not a valid regular expression: {e}"),
            )
        })?;
        metrics.push((name.clone(), regex));
    }
    let mut guards = Vec::new();
    for g in &doc.guard {
        let direction = g.better.as_ref().map(better).transpose()?;
        let (max_worsening, floor) = match g.max_worsening.get_ref() {
            toml::Value::String(text) => parse_limit(text, &g.metric)
                .map_err(|m| at(Some(g.max_worsening.span()), format!("max_worsening: {m}")))?,
            _ => (percent(&g.max_worsening, "max_worsening")?, None),
        };
        guards.push(GuardSettings {
            metric: g.metric.clone(),
            max_worsening,
            floor,
            better: direction,
        });
    }
    // Without scenarios an experiment compares exactly two variants; a
    // suite compares every candidate with the first (the baseline).
    let suite = !doc.scenario.is_empty();
    if !doc.variant.is_empty() && doc.variant.len() != 2 && !suite {
        let span = doc.variant.get(2).or(doc.variant.first()).map(|v| v.span());
        return Err(at(
            span,
            format!(
                "{} [[variant]] tables found; an experiment has exactly two: the baseline first, the candidate second \
                 (or add [[scenario]] tables to compare more candidates in a suite)",
                doc.variant.len()
            ),
        ));
    }
    let expectations = |table: &Spanned<BTreeMap<String, String>>, whose: &str| {
        let entries: Vec<(String, String)> = table
            .get_ref()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Expectations::parse(&entries)
            .map_err(|m| at(Some(table.span()), format!("{whose}expect: {m}")))
    };
    let expect = doc
        .expect
        .as_ref()
        .map(|table| expectations(table, ""))
        .transpose()?;
    if suite && doc.variant.len() < 2 {
        return Err(at(
            doc.scenario.first().map(|s| s.span()),
            format!(
                "a suite needs at least two [[variant]] tables (the first is the baseline); {} found",
                doc.variant.len()
            ),
        ));
    }
    let mut variants = Vec::new();
    for v in doc.variant {
        let span = v.span();
        let v = v.into_inner();
        if v.command.is_none() && !suite {
            return Err(at(
                Some(span),
                "this [[variant]] has no command; add command = \"...\" \
                 (only in a suite may a variant take its command from each [[scenario]])"
                    .to_string(),
            ));
        }
        variants.push(VariantSettings {
            name: v.name,
            command: v.command,
            env: v.env.into_iter().collect(),
            cwd: v.cwd.as_deref().map(dir),
            rev: v.rev,
            at: Some(location(text, path, span.start)),
        });
    }
    let mut scenarios = Vec::new();
    for s in doc.scenario {
        let at = location(text, path, s.span().start);
        let s = s.into_inner();
        let whose = format!("scenario '{}': ", s.name);
        scenarios.push(ScenarioSettings {
            expect: s
                .expect
                .as_ref()
                .map(|table| expectations(table, &whose))
                .transpose()?,
            name: s.name,
            command: s.command,
            args: s.args,
            env: s.env.into_iter().collect(),
            at,
        });
    }
    Ok(Settings {
        name: doc.name,
        measure: doc.measure,
        better: doc.better.as_ref().map(better).transpose()?,
        go: doc.go.as_ref().map(|v| percent(v, "go")).transpose()?,
        nogo: doc.nogo.as_ref().map(|v| percent(v, "nogo")).transpose()?,
        confidence: doc.confidence.as_ref().map(confidence).transpose()?,
        min_runs: doc.min_runs,
        max_runs: doc.max_runs,
        max_time: doc
            .max_time
            .as_ref()
            .map(|v| duration(v, "max_time"))
            .transpose()?,
        warmup: doc.warmup,
        timeout: doc
            .timeout
            .as_ref()
            .map(|v| duration(v, "timeout"))
            .transpose()?,
        shell: doc.shell,
        cwd: Some(doc.cwd.as_deref().map_or_else(|| base.clone(), dir)),
        ignore_failure: doc.ignore_failure,
        keep_children: doc.keep_children,
        output: doc
            .output
            .as_deref()
            .map(|o| perflab_runner::Output::parse(o).relative_to(&base)),
        metrics,
        guards,
        variants,
        scenarios,
        only_scenarios: Vec::new(),
        seed: doc.seed,
        perf_events: doc.perf_events,
        keep_env: doc.keep_env,
        expect,
        build: doc.build.map(|b| b.command),
        pin,
        duet: doc.duet,
        shield,
        wait_quiet,
        max_cpu_wait: doc
            .max_cpu_wait
            .as_ref()
            .map(|v| {
                let parsed = match v.get_ref() {
                    toml::Value::String(s) => MaxCpuWait::parse(s, "max_cpu_wait"),
                    toml::Value::Integer(i) => MaxCpuWait::share(*i as f64 / 100.0, "max_cpu_wait"),
                    toml::Value::Float(f) => MaxCpuWait::share(f / 100.0, "max_cpu_wait"),
                    _ => Err(Error::usage(
                        "max_cpu_wait",
                        "give a share like \"5%\", a number of percent, or \"off\"",
                    )),
                };
                parsed.map_err(|e| at(Some(v.span()), e.to_string()))
            })
            .transpose()?,
        // Where traces go is a choice of the invocation (`--trace`), not of the experiment.
        trace: None,
    })
}

/// `path:line:column` of a byte offset, for errors found after parsing.
fn location(text: &str, path: &Path, offset: usize) -> String {
    let (line, column) = line_column(text, offset);
    format!("{}:{line}:{column}", path.display())
}

/// 1-based line and column of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    // Never slice inside a character, whatever offset the TOML reader reports.
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before.len(), |i| before.len() - i - 1)
        + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Settings> {
        parse_experiment(text, Path::new("exp/perflab.toml"))
    }

    const TWO: &str =
        "[[variant]]\ncommand = \"a\"\n[[variant]]\ncommand = \"b\"\nenv = { X = \"1\" }\n";

    #[test]
    fn a_minimal_file_gives_two_variants_run_from_its_folder() {
        let s = parse(TWO).unwrap();
        assert_eq!(s.variants.len(), 2);
        assert_eq!(s.variants[1].env, vec![("X".to_string(), "1".to_string())]);
        assert_eq!(s.cwd, Some(PathBuf::from("exp")));
    }

    #[test]
    fn a_misspelt_key_is_reported_with_line_and_column() {
        let err = parse(&format!("{TWO}max_rnus = 3\n"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("exp/perflab.toml:"), "{err}");
        assert!(err.contains("max_rnus"), "{err}");
    }

    #[test]
    fn a_bad_percentage_points_at_its_value() {
        let err = parse(&format!("go = \"lots\"\n{TWO}"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("exp/perflab.toml:1:6"), "{err}");
    }

    #[test]
    fn max_cpu_wait_is_a_share_a_number_of_percent_or_off_and_a_bad_one_is_pointed_at() {
        let rule = |value: &str| parse(&format!("max_cpu_wait = {value}\n{TWO}"));
        assert_eq!(
            rule("\"2%\"").unwrap().max_cpu_wait,
            Some(MaxCpuWait::Share(0.02))
        );
        assert_eq!(
            rule("10").unwrap().max_cpu_wait,
            Some(MaxCpuWait::Share(0.1))
        );
        assert_eq!(rule("\"off\"").unwrap().max_cpu_wait, Some(MaxCpuWait::Off));
        let err = rule("\"0%\"").unwrap_err().to_string();
        assert!(err.starts_with("exp/perflab.toml:1:16"), "{err}");
        assert!(err.contains("max_cpu_wait") && err.contains("off"), "{err}");
    }

    #[test]
    fn three_variants_are_refused() {
        let err = parse(&format!("{TWO}[[variant]]\ncommand = \"c\"\n"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("exactly two"), "{err}");
    }

    #[test]
    fn a_suite_takes_more_variants_and_commands_from_its_scenarios() {
        let s = parse(
            "[[variant]]\nname = \"a\"\n[[variant]]\nname = \"b\"\n[[variant]]\nname = \"c\"\n\
             [[scenario]]\nname = \"x\"\ncommand = \"./w {args}\"\nargs = \"1\"\nenv = { T = \"2\" }\n",
        )
        .unwrap();
        assert_eq!(s.variants.len(), 3);
        assert_eq!(s.scenarios.len(), 1);
        assert_eq!(s.scenarios[0].args.as_deref(), Some("1"));
        assert_eq!(s.scenarios[0].at, "exp/perflab.toml:7:1");
    }

    #[test]
    fn a_variant_without_a_command_outside_a_suite_is_refused_at_its_line() {
        let err = parse("[[variant]]\ncommand = \"a\"\n[[variant]]\nname = \"b\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("exp/perflab.toml:3:1"), "{err}");
        assert!(err.contains("has no command"), "{err}");
    }

    #[test]
    fn a_bad_expectation_of_a_scenario_points_at_its_table_and_names_the_scenario() {
        let err = parse(
            "[[variant]]\nname = \"a\"\n[[variant]]\nname = \"b\"\n\
             [[scenario]]\nname = \"x\"\ncommand = \"w\"\nexpect = { disputes = \"lots\" }\n",
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("exp/perflab.toml:8:10"), "{err}");
        assert!(
            err.contains("scenario 'x': expect: expectation \"disputes\" = \"lots\""),
            "{err}"
        );
    }

    #[test]
    fn a_bad_expectation_points_at_its_table_and_names_the_entry() {
        let err = parse(&format!("expect = {{ disputes = \"lots\" }}\n{TWO}"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("exp/perflab.toml:1:10"), "{err}");
        assert!(
            err.contains("expect: expectation \"disputes\" = \"lots\": "),
            "{err}"
        );
        let err = parse(&format!("expect = {{ disputes = 3 }}\n{TWO}"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("exp/perflab.toml:1:"), "{err}");
    }

    #[test]
    fn percentages_may_be_numbers_or_strings() {
        let s = parse(&format!("go = 2\nnogo = \"-1%\"\n{TWO}")).unwrap();
        assert_eq!(s.go, Some(0.02));
        assert_eq!(s.nogo, Some(-0.01));
    }

    #[test]
    fn the_example_files_in_the_guide_and_this_module_parse() {
        let guide = include_str!("../../../../docs/guide/configuration.md");
        let section = &guide[guide.find("# Experiment files").unwrap()..];
        let start = section.find("```toml\n").unwrap() + "```toml\n".len();
        let example = &section[start..start + section[start..].find("```").unwrap()];
        let s = parse(example).unwrap();
        assert_eq!(s.perf_events, Some(true));
        assert_eq!(s.keep_env, vec!["HOME".to_string()]);
        assert_eq!(s.expect.map(|e| e.items.len()), Some(2));
        assert_eq!(s.variants.len(), 2);
        let module_doc: String = include_str!("file.rs")
            .lines()
            .take_while(|line| line.starts_with("//!"))
            .map(|line| line.trim_start_matches("//!").trim_start())
            .collect::<Vec<_>>()
            .join("\n");
        let start = module_doc.find("```toml\n").unwrap() + "```toml\n".len();
        let example = &module_doc[start..start + module_doc[start..].find("```").unwrap()];
        assert_eq!(parse(example).unwrap().perf_events, Some(true));
    }
}
