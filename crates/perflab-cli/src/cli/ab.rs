//! From the flags of `perflab ab` to [`Settings`].

use regex::Regex;

use super::{AbArgs, revisions};
use crate::error::{Error, Result};
use crate::experiment::pin::parse_pin;
use crate::experiment::settings::{VariantSettings, duration_flag, percent_flag};
use crate::experiment::{Settings, parse_better, parse_env, parse_guard};
use perflab_runner::MetricExtractor;

impl AbArgs {
    /// The settings these flags give (validated into an experiment later,
    /// after an experiment file's settings are overlaid).
    pub fn settings(&self) -> Result<Settings> {
        let args = self;
        let extractor_check = MetricExtractor::from_definitions(&args.run.metrics)?;
        drop(extractor_check);
        let metrics = args
            .run
            .metrics
            .iter()
            .map(|d| {
                let (name, pattern) = d.split_once('=').unwrap_or_default();
                Regex::new(pattern).map(|r| (name.to_string(), r))
            })
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| Error::usage("--metric", e.to_string()))?;
        let mut variants = Vec::new();
        let commands = &args.commands;
        let env_a = args
            .env_a
            .iter()
            .map(|e| parse_env(e, "--env-a"))
            .collect::<Result<Vec<_>>>()?;
        let env_b = args
            .env_b
            .iter()
            .map(|e| parse_env(e, "--env-b"))
            .collect::<Result<Vec<_>>>()?;
        if !commands.is_empty() {
            let command_b = commands.get(1).unwrap_or(&commands[0]).clone();
            variants.push(VariantSettings {
                name: args.name_a.clone(),
                command: Some(commands[0].clone()),
                env: env_a,
                cwd: None,
                rev: None,
                at: None,
            });
            variants.push(VariantSettings {
                name: args.name_b.clone(),
                command: Some(command_b),
                env: env_b,
                cwd: None,
                rev: None,
                at: None,
            });
        } else if !env_a.is_empty()
            || !env_b.is_empty()
            || args.name_a.is_some()
            || args.name_b.is_some()
        {
            // Overrides for the variants of an experiment file.
            variants.push(VariantSettings {
                name: args.name_a.clone(),
                command: None,
                env: env_a,
                cwd: None,
                rev: None,
                at: None,
            });
            variants.push(VariantSettings {
                name: args.name_b.clone(),
                command: None,
                env: env_b,
                cwd: None,
                rev: None,
                at: None,
            });
        }
        revisions::name_revisions(&mut variants, &args.revs)?;
        Ok(Settings {
            name: args.name.clone(),
            measure: args.measure.clone(),
            better: args
                .better
                .as_deref()
                .map(|b| parse_better(b, "--better"))
                .transpose()?,
            go: percent_flag(&args.decision.go, "--go")?,
            nogo: percent_flag(&args.decision.nogo, "--nogo")?,
            confidence: args.decision.confidence,
            min_runs: args.min_runs,
            max_runs: args.max_runs,
            max_time: duration_flag(&args.max_time, "--max-time")?,
            warmup: args.run.warmup,
            timeout: duration_flag(&args.run.timeout, "--timeout")?,
            shell: args.run.no_shell.then_some(false),
            cwd: args.run.cwd.clone(),
            ignore_failure: args.run.ignore_failure.then_some(true),
            keep_children: args.run.keep_children.then_some(true),
            output: Some(args.run.output()).filter(|o| *o != perflab_runner::Output::Pipe),
            metrics,
            guards: args
                .guards
                .iter()
                .map(|g| parse_guard(g))
                .collect::<Result<_>>()?,
            variants,
            scenarios: Vec::new(),
            only_scenarios: args.scenarios.clone(),
            seed: args.seed,
            perf_events: args.run.perf_events.then_some(true),
            keep_env: args.run.keep_env.clone(),
            expect: None,
            build: args.build.clone(),
            pin: args
                .pin
                .as_deref()
                .map(|p| parse_pin(p, "--pin"))
                .transpose()?,
            duet: args.duet.then_some(true),
            shield: args.machine.shield()?,
            wait_quiet: args.machine.wait_quiet()?,
            max_cpu_wait: args.contention.setting()?,
            trace: args.run.trace.clone(),
        })
    }
}
