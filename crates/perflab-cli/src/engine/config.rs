//! What an experiment was configured with, as the store keeps it (the
//! experiments' `config` column): the settings shared by every engine, and
//! those of its mode. Stored experiments are read back by key, so the keys
//! and the shape of the values stay as they are.

use serde::{Deserialize, Serialize};

/// The stored configuration of an experiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExperimentConfig {
    /// The metric measured (and decided on).
    pub measure: String,
    /// Confidence level.
    pub confidence: f64,
    /// Runs before the first decision (a sweep's point may stop).
    pub min_runs: usize,
    /// Runs at most.
    pub max_runs: usize,
    /// Unmeasured runs first.
    pub warmup: usize,
    /// Seed of the random order of runs.
    pub seed: u64,
    /// What only this mode has.
    #[serde(flatten)]
    pub mode: ModeConfig,
}

/// The settings of one mode of the engine. Told apart by their keys when
/// read back: a suite has `scenarios`, a sweep `commands`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ModeConfig {
    /// Every candidate against the baseline in every scenario.
    Suite(SuiteConfig),
    /// Commands over a grid of parameters.
    Sweep(SweepConfig),
    /// A against B (also each step of a bisection).
    Ab(AbConfig),
}

/// The sequential decision of an A/B or a suite.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DecisionConfig {
    /// GO threshold (a fraction, positive is better).
    pub go: f64,
    /// NO-GO threshold.
    pub nogo: f64,
    /// Pairs at which the confidence sequence is tightest.
    pub optimise_at: usize,
}

/// The settings only an A/B has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AbConfig {
    /// Its decision.
    #[serde(flatten)]
    pub decision: DecisionConfig,
    /// The CPUs every run was pinned to, as given.
    pub pin: Option<String>,
    /// In duet mode, the two CPUs.
    pub duet: Option<[usize; 2]>,
}

/// The settings only a suite has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteConfig {
    /// The decision of every cell.
    #[serde(flatten)]
    pub decision: DecisionConfig,
    /// The confidence level of each cell (the experiment's, split).
    pub cell_confidence: f64,
    /// The scenarios' names, in order.
    pub scenarios: Vec<String>,
    /// In duet mode, the two CPUs.
    pub duet: Option<[usize; 2]>,
}

/// The settings only a sweep has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepConfig {
    /// The size parameter, if any.
    pub size: Option<String>,
    /// The metric is already per item.
    pub per_item: bool,
    /// Target relative half-width.
    pub precision: f64,
    /// Smallest jump reported as a cliff.
    pub cliff: f64,
    /// Each parameter's name and values, as given.
    pub parameters: Vec<(String, Vec<String>)>,
    /// The command templates, as given.
    pub commands: Vec<String>,
}

impl ExperimentConfig {
    /// The JSON text stored, keys in alphabetical order (as stored
    /// experiments have them).
    pub fn to_json(&self) -> String {
        // Through a `Value`, whose objects keep their keys sorted; turning
        // these plain fields (string keys, numbers, strings) into one cannot fail.
        serde_json::to_value(self)
            .expect("an experiment's configuration is plain data with string keys")
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision() -> DecisionConfig {
        DecisionConfig {
            go: 0.02,
            nogo: -0.02,
            optimise_at: 100,
        }
    }

    fn config(mode: ModeConfig) -> ExperimentConfig {
        ExperimentConfig {
            measure: "wall".into(),
            confidence: 0.95,
            min_runs: 5,
            max_runs: 100,
            warmup: 1,
            seed: 7,
            mode,
        }
    }

    #[test]
    fn an_ab_config_is_stored_as_the_flat_object_readers_expect() {
        let c = config(ModeConfig::Ab(AbConfig {
            decision: decision(),
            pin: Some("2-3".into()),
            duet: None,
        }));
        assert_eq!(
            c.to_json(),
            r#"{"confidence":0.95,"duet":null,"go":0.02,"max_runs":100,"measure":"wall","min_runs":5,"nogo":-0.02,"optimise_at":100,"pin":"2-3","seed":7,"warmup":1}"#
        );
    }

    #[test]
    fn every_mode_reads_back_as_itself() {
        let modes = [
            ModeConfig::Ab(AbConfig {
                decision: decision(),
                pin: None,
                duet: Some([1, 2]),
            }),
            ModeConfig::Suite(SuiteConfig {
                decision: decision(),
                cell_confidence: 0.99,
                scenarios: vec!["small".into(), "large".into()],
                duet: None,
            }),
            ModeConfig::Sweep(SweepConfig {
                size: Some("n".into()),
                per_item: false,
                precision: 0.02,
                cliff: 0.25,
                parameters: vec![("n".into(), vec!["1".into(), "10".into()])],
                commands: vec!["./prog {n}".into()],
            }),
        ];
        for mode in modes {
            let c = config(mode);
            let back: ExperimentConfig = serde_json::from_str(&c.to_json()).unwrap();
            assert_eq!(back, c);
        }
    }
}
