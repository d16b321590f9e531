//! The thresholds and confidence of a decision, shared by every command that
//! decides (`ab`, `compare`, `history --metric`).

use clap::Args;
use perflab_stats::Thresholds;

use crate::error::Result;
use crate::experiment::settings::percent_flag;
use crate::experiment::validated_decision;

/// `--go`, `--nogo` and `--confidence`.
#[derive(Debug, Args, Clone, Default)]
pub struct DecisionArgs {
    /// GO threshold, in percent of improvement.
    #[arg(long, value_name = "PERCENT", allow_hyphen_values = true, help = super::defaults::go())]
    pub go: Option<String>,
    /// NO-GO threshold, in percent (negative).
    #[arg(long, value_name = "PERCENT", allow_hyphen_values = true, help = super::defaults::nogo())]
    pub nogo: Option<String>,
    /// Confidence level of the interval.
    #[arg(long, value_name = "LEVEL", help = super::defaults::confidence())]
    pub confidence: Option<f64>,
}

impl DecisionArgs {
    /// The thresholds and confidence level these flags give, with the defaults.
    pub fn decision(&self) -> Result<(Thresholds, f64)> {
        validated_decision(
            percent_flag(&self.go, "--go")?,
            percent_flag(&self.nogo, "--nogo")?,
            self.confidence,
        )
    }
}
