//! The values of one metric across experiments, for the history over
//! commits (`perflab history --metric`) and the report's history chart.

use std::collections::BTreeMap;

use super::Store;
use super::sql::{Dialect, Row, Value, values};
use crate::error::{Result, StoreError};

/// One experiment's measured values of a metric, per variant.
#[derive(Debug, Clone, PartialEq)]
pub struct ExperimentValues {
    /// Experiment id.
    pub id: i64,
    /// Its name.
    pub name: Option<String>,
    /// When it started.
    pub started_at: String,
    /// The host it ran on (empty if unknown).
    pub host: String,
    /// Git commit, if it ran in a checkout.
    pub git_commit: Option<String>,
    /// Whether the checkout had uncommitted changes.
    pub git_dirty: bool,
    /// Values per variant name, in run order.
    pub values: BTreeMap<String, Vec<f64>>,
    /// The command of each variant with values.
    pub commands: BTreeMap<String, String>,
}

/// The SQL expression of a metric over `runs r` (built-ins are columns,
/// anything else is read from the run's metrics JSON, named by `?2`).
fn value_expression(metric: &str, dialect: Dialect) -> &'static str {
    match metric {
        "wall" => "r.wall_s",
        "cpu" => "r.user_s + r.sys_s",
        "user" => "r.user_s",
        "sys" => "r.sys_s",
        "peak-memory" => "r.peak_memory_kib",
        _ => dialect.metric_of_run(),
    }
}

impl Store {
    /// Every host with experiments in the store, sorted (empty if unknown).
    pub fn hosts(&self) -> Result<Vec<String>> {
        let rows = self.rows("SELECT DISTINCT COALESCE(host, '') FROM experiments", &[])?;
        let mut hosts = rows
            .iter()
            .map(|r| r.text(0))
            .collect::<std::result::Result<Vec<String>, _>>()
            .map_err(|e| self.err(e))?;
        // Sorted here, not in SQL, so that the order is not a collation's.
        hosts.sort();
        Ok(hosts)
    }

    /// Every experiment named `name` (unnamed ones for None), oldest first,
    /// with its measured values of `metric`; runs without the metric are left out.
    pub fn metric_values(&self, name: Option<&str>, metric: &str) -> Result<Vec<ExperimentValues>> {
        let expression = value_expression(metric, self.db.dialect());
        // `name = ?1` or `name IS NULL`, so that both back ends find the
        // experiments in the index of names (PostgreSQL's IS NOT DISTINCT
        // FROM uses no index).
        let named = if name.is_some() {
            "e.name = ?1"
        } else {
            "e.name IS NULL AND CAST(?1 AS TEXT) IS NULL"
        };
        let sql = format!(
            "SELECT e.id, e.name, e.started_at, e.git_commit, e.git_dirty, v.name, {expression}, v.command, e.host
             FROM experiments e JOIN runs r ON r.experiment_id = e.id JOIN variants v ON v.id = r.variant_id
             WHERE {named} AND r.warmup = 0 AND r.replaced = 0 ORDER BY e.id, r.sequence"
        );
        let params: &[Value] = if expression.contains("?2") {
            values![name, metric]
        } else {
            values![name]
        };
        let rows = self.rows(&sql, params)?;
        let mut out: Vec<ExperimentValues> = Vec::new();
        for row in rows {
            add_value(&mut out, &row).map_err(|e| self.err(e))?;
        }
        Ok(out)
    }

    /// [`Store::metric_values`] of each of `names` (None: the unnamed
    /// experiments) at once, by name: one query for many series, where
    /// one query per name would cost a round trip each on PostgreSQL
    /// (`perflab history --changes` and the dashboard's home page read
    /// every series of the store). A name without experiments is absent.
    pub fn metric_values_of_names(
        &self,
        names: &[Option<String>],
        metric: &str,
    ) -> Result<BTreeMap<Option<String>, Vec<ExperimentValues>>> {
        /// Names per query: far below both back ends' limits on parameters.
        const NAMES_PER_QUERY: usize = 500;
        let expression = value_expression(metric, self.db.dialect()).replace("?2", "?1");
        let uses_metric = expression.contains("?1");
        let mut out: BTreeMap<Option<String>, Vec<ExperimentValues>> = BTreeMap::new();
        let named: Vec<&String> = names.iter().flatten().collect();
        let mut chunks: Vec<&[&String]> = named.chunks(NAMES_PER_QUERY).collect();
        let unnamed = names.contains(&None);
        if chunks.is_empty() && unnamed {
            chunks.push(&[]);
        }
        for (i, chunk) in chunks.into_iter().enumerate() {
            let mut params: Vec<Value> = Vec::with_capacity(chunk.len() + 1);
            if uses_metric {
                params.push(Value::from(metric));
            }
            let first = params.len() + 1;
            params.extend(chunk.iter().map(|n| Value::from(*n)));
            let mut wanted: Vec<String> = Vec::new();
            if !chunk.is_empty() {
                let placeholders: Vec<String> = (first..first + chunk.len())
                    .map(|p| format!("?{p}"))
                    .collect();
                wanted.push(format!("e.name IN ({})", placeholders.join(", ")));
            }
            // The unnamed experiments are read once, with the first chunk.
            if unnamed && i == 0 {
                wanted.push("e.name IS NULL".to_string());
            }
            let sql = format!(
                "SELECT e.id, e.name, e.started_at, e.git_commit, e.git_dirty, v.name, {expression}, v.command, e.host
                 FROM experiments e JOIN runs r ON r.experiment_id = e.id JOIN variants v ON v.id = r.variant_id
                 WHERE ({}) AND r.warmup = 0 AND r.replaced = 0 ORDER BY e.id, r.sequence",
                wanted.join(" OR ")
            );
            let mut all: Vec<ExperimentValues> = Vec::new();
            for row in self.rows(&sql, &params)? {
                add_value(&mut all, &row).map_err(|e| self.err(e))?;
            }
            for experiment in all {
                out.entry(experiment.name.clone())
                    .or_default()
                    .push(experiment);
            }
        }
        Ok(out)
    }

    /// Every (experiment name, metric) pair measured in the store: the
    /// metric each experiment was judged on and every metric its measured
    /// runs reported (as `experiment_metrics` keeps them, see
    /// `metric_names`), sorted by name and metric.
    pub fn named_metrics(&self) -> Result<Vec<(Option<String>, String)>> {
        let sql = "SELECT DISTINCT e.name, e.metric FROM experiments e WHERE e.metric IS NOT NULL
             UNION
             SELECT DISTINCT e.name, m.metric FROM experiments e
                 JOIN experiment_metrics m ON m.experiment_id = e.id";
        let mut pairs = self
            .rows(sql, &[])?
            .into_iter()
            .map(|r| Ok((r.opt_text(0)?, r.text(1)?)))
            .collect::<std::result::Result<Vec<_>, StoreError>>()
            .map_err(|e| self.err(e))?;
        // Sorted here, not in SQL: the back ends order NULLs and text
        // (PostgreSQL by the database's collation) differently.
        pairs.sort();
        Ok(pairs)
    }

    /// Which way is better for `metric` and its unit, as stored with the newest result about it.
    pub fn stored_metric(&self, metric: &str) -> Result<Option<(String, String)>> {
        let row = self.first_row(
            "SELECT result_json FROM experiments WHERE metric = ?1 AND result_json IS NOT NULL
             ORDER BY id DESC LIMIT 1",
            values![metric],
        )?;
        let text = row
            .map_or(Ok(None), |r| r.opt_text(0))
            .map_err(|e| self.err(e))?;
        Ok(text
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| {
                let better = v["metric"]["better"].as_str()?.to_string();
                let unit = v["metric"]["unit"].as_str().unwrap_or_default().to_string();
                Some((better, unit))
            }))
    }
}

/// Adds one run's value to its experiment (the last one, or a new one).
fn add_value(out: &mut Vec<ExperimentValues>, row: &Row) -> std::result::Result<(), StoreError> {
    let id = row.i64(0)?;
    if out.last().is_none_or(|e| e.id != id) {
        out.push(ExperimentValues {
            id,
            name: row.opt_text(1)?,
            started_at: row.text(2)?,
            host: row.opt_text(8)?.unwrap_or_default(),
            git_commit: row.opt_text(3)?,
            git_dirty: row.bool(4)?,
            values: BTreeMap::new(),
            commands: BTreeMap::new(),
        });
    }
    let variant = row.text(5)?;
    if let (Some(v), Some(last)) = (row.opt_f64(6)?, out.last_mut()) {
        if !last.commands.contains_key(&variant) {
            last.commands.insert(variant.clone(), row.text(7)?);
        }
        last.values.entry(variant).or_default().push(v);
    }
    Ok(())
}
