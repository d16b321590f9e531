//! `perflab import` flags.

use clap::Args;

/// `perflab import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The results to import: PATH[#SELECTOR] (a criterion folder's #BASELINE, or one benchmark).
    pub input: String,
    /// The name to store them under, the name `perflab history --name` follows.
    #[arg(long, value_name = "NAME", required = true)]
    pub name: String,
    /// The input's format, when detection from its content is not wanted: text, perflab,
    /// hyperfine, criterion, google-benchmark, pytest-benchmark, go, jmh, mitata or tinybench
    /// [default: detected from the content].
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
    /// The metric the stored result shows [default: the input's own, wall for times per
    /// iteration, throughput for JMH's thrpt mode]; every metric of the input is stored either way.
    #[arg(long, value_name = "METRIC")]
    pub measure: Option<String>,
}
