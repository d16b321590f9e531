//! A validated suite: scenarios × variants. Each (scenario, variant) is a
//! cell with its own command and environment; every candidate is compared
//! with the baseline (the first variant) in every scenario.

use std::collections::HashMap;

use perflab_runner::{CommandLine, INSTRUCTIONS};
use perflab_stats::DEFAULT_SUITE_MIN_RUNS;

use super::settings::{ScenarioSettings, Settings};
use super::{Experiment, Variant};
use crate::error::{Error, Result};
use crate::expectations::Expectations;

/// A scenario with the command of each of its cells resolved.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Its name in tables.
    pub name: String,
    /// One per variant of the suite, in the same order (baseline first):
    /// the cell's command, environment and working directory.
    pub cells: Vec<Variant>,
    /// What every measured run of the scenario must show (on top of the
    /// experiment's own `expect`).
    pub expect: Expectations,
    /// Where it was given (`file:line:column`).
    pub at: String,
}

/// Everything a suite needs to run and decide.
#[derive(Debug, Clone)]
pub struct Suite {
    /// The shared settings (metric, thresholds, limits, ...); its variants
    /// are the suite's, baseline first, with the command of their own, if any.
    pub exp: Experiment,
    /// The scenarios to run, in the file's order.
    pub scenarios: Vec<Scenario>,
}

impl Suite {
    /// Candidate variants per scenario.
    pub fn candidates(&self) -> usize {
        self.exp.variants.len() - 1
    }

    /// Cells that decide: one per (scenario, candidate).
    pub fn cells(&self) -> usize {
        self.scenarios.len() * self.candidates()
    }

    /// The number of the cell of `candidate` (a variant index from 1) in `scenario`.
    pub fn cell(&self, scenario: usize, candidate: usize) -> usize {
        scenario * self.candidates() + candidate - 1
    }

    /// "scenario / variant": the name of a cell's runs in the store and documents.
    pub fn cell_name(&self, scenario: usize, variant: usize) -> String {
        format!(
            "{} / {}",
            self.scenarios[scenario].name, self.exp.variants[variant].name
        )
    }
}

/// The file part of a `file:line:column` location.
fn file_of(at: &str) -> &str {
    at.rsplitn(3, ':').last().unwrap_or(at)
}

impl Settings {
    /// True when these settings describe a suite (`[[scenario]]` tables).
    pub fn is_suite(&self) -> bool {
        !self.scenarios.is_empty()
    }

    /// Validates a suite: names, every cell's command, `--scenario`.
    pub fn into_suite(mut self) -> Result<Suite> {
        let shell = self.shell.unwrap_or(true);
        let at = |i: usize, v: &super::settings::VariantSettings| {
            v.at.clone().unwrap_or_else(|| format!("variant {}", i + 1))
        };
        let mut variants = Vec::new();
        for (i, v) in self.variants.iter().enumerate() {
            let name = v.name.clone().unwrap_or_else(|| default_name(i));
            if let Some(first) = variants.iter().position(|o: &Variant| o.name == name) {
                return Err(Error::input(
                    at(i, v),
                    format!(
                        "variant '{name}' is named twice (variants {} and {}); give each [[variant]] its own name",
                        first + 1,
                        i + 1
                    ),
                ));
            }
            variants.push(Variant {
                name,
                command: CommandLine::new(v.command.as_deref().unwrap_or_default(), shell)?,
                env: v.env.clone(),
                cwd: v.cwd.clone().or_else(|| self.cwd.clone()),
            });
        }
        let mut seen: HashMap<&str, &str> = HashMap::new();
        for s in &self.scenarios {
            if let Some(first) = seen.insert(&s.name, &s.at) {
                return Err(Error::input(
                    &s.at,
                    format!(
                        "scenario '{}' is named twice (first at {first}); give each [[scenario]] its own name",
                        s.name
                    ),
                ));
            }
        }
        for wanted in &self.only_scenarios {
            if !seen.contains_key(wanted.as_str()) {
                let names: Vec<&str> = self.scenarios.iter().map(|s| s.name.as_str()).collect();
                return Err(Error::usage(
                    "--scenario",
                    format!(
                        "{} has no scenario named '{wanted}'; its scenarios are: {}",
                        file_of(&self.scenarios[0].at),
                        names.join(", ")
                    ),
                ));
            }
        }
        let chosen: Vec<ScenarioSettings> = std::mem::take(&mut self.scenarios)
            .into_iter()
            .filter(|s| self.only_scenarios.is_empty() || self.only_scenarios.contains(&s.name))
            .collect();
        let scenarios = chosen
            .into_iter()
            .map(|s| resolve(s, &self, &variants, shell))
            .collect::<Result<Vec<_>>>()?;
        if self.measure.as_deref() == Some(INSTRUCTIONS)
            || self.guards.iter().any(|g| g.metric == INSTRUCTIONS)
        {
            return Err(Error::usage(
                "--measure",
                "a suite does not count instructions; measure wall, cpu, peak-memory or a metric \
                 the program prints, or count instructions in an A/B experiment without [[scenario]] tables",
            ));
        }
        // Each cell decides at a level further in the tail than one A/B, where
        // the confidence sequence needs more pairs before its promise holds:
        // perflab-stats' suite default, the one its simulation validates.
        if self.min_runs.is_none() {
            if let Some(max_runs) = self.max_runs.filter(|&m| m < DEFAULT_SUITE_MIN_RUNS) {
                return Err(Error::usage(
                    "--max-runs",
                    format!(
                        "{max_runs} is below the {DEFAULT_SUITE_MIN_RUNS} pairs a suite's cell needs before it may decide \
                         (each cell decides at a stricter level than one A/B); raise max_runs, or set min_runs lower \
                         knowing that the experiment-wide level is then less certain to hold"
                    ),
                ));
            }
            self.min_runs = Some(DEFAULT_SUITE_MIN_RUNS);
        }
        let exp = self.with_variants(variants)?;
        Ok(Suite { exp, scenarios })
    }
}

/// "A", "B", ... for variants without a name.
fn default_name(index: usize) -> String {
    match u8::try_from(index) {
        Ok(i) if i < 26 => char::from(b'A' + i).to_string(),
        _ => format!("variant {}", index + 1),
    }
}

/// The cells of one scenario: the variant's command or else the scenario's,
/// `{args}` filled in, the scenario's environment with the variant's on top.
fn resolve(
    s: ScenarioSettings,
    settings: &Settings,
    variants: &[Variant],
    shell: bool,
) -> Result<Scenario> {
    let mut cells = Vec::new();
    for (v, given) in variants.iter().zip(&settings.variants) {
        let Some(text) = given.command.as_ref().or(s.command.as_ref()) else {
            return Err(Error::input(
                &s.at,
                format!(
                    "scenario '{}' has no command for variant '{}': add command = \"...\" to the scenario \
                     (or to the variant, with {{args}} where the scenario's args go)",
                    s.name, v.name
                ),
            ));
        };
        let text = if text.contains("{args}") {
            let Some(args) = &s.args else {
                return Err(Error::input(
                    &s.at,
                    format!(
                        "the command of variant '{}' in scenario '{}' ('{text}') has {{args}}, but the scenario has no args: \
                         add args = \"...\" to the scenario",
                        v.name, s.name
                    ),
                ));
            };
            text.replace("{args}", args)
        } else {
            text.clone()
        };
        let mut env = s.env.clone();
        env.extend(v.env.iter().cloned());
        cells.push(Variant {
            name: v.name.clone(),
            command: CommandLine::new(&text, shell)?,
            env,
            cwd: v.cwd.clone(),
        });
    }
    Ok(Scenario {
        name: s.name,
        cells,
        expect: s.expect.unwrap_or_default(),
        at: s.at,
    })
}
