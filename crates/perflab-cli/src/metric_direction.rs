//! Which way is better for a metric, and its unit: what `perflab history`
//! and `perflab report` both need to judge a metric over commits.

use perflab_stats::Better;

use crate::error::{Error, Result};
use crate::experiment::parse_better;
use perflab_runner::builtin_metric;
use perflab_store::Store;

/// Which way is better for a metric, and its unit: the flag, else what the
/// store says, else lower for built-in metrics.
pub fn metric_direction(
    store: &Store,
    metric: &str,
    flag: Option<&str>,
) -> Result<(Better, String)> {
    let stored = store.stored_metric(metric)?;
    let unit = builtin_metric(metric)
        .map(|(_, u)| u.to_string())
        .or_else(|| stored.as_ref().map(|(_, u)| u.clone()))
        .unwrap_or_default();
    let better = match (flag, &stored) {
        (Some(text), _) => parse_better(text, "--better")?,
        (None, Some((text, _))) => parse_better(text, "--better")?,
        (None, None) if builtin_metric(metric).is_some() => Better::Lower,
        (None, None) => {
            return Err(Error::usage(
                "--better",
                format!(
                    "no stored result says which way is better for '{metric}'; add --better higher or --better lower"
                ),
            ));
        }
    };
    Ok((better, unit))
}
