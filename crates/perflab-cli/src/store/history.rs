//! The values of one metric across experiments, for the history over
//! commits (`perflab history --metric`) and the report's history chart.

use std::collections::BTreeMap;

use rusqlite::types::Value;

use super::Store;
use crate::error::Result;

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
/// anything else is read from the run's metrics JSON with the path `?2`).
fn value_expression(metric: &str) -> &'static str {
    match metric {
        "wall" => "r.wall_s",
        "cpu" => "r.user_s + r.sys_s",
        "user" => "r.user_s",
        "sys" => "r.sys_s",
        "peak-memory" => "r.peak_memory_kib",
        _ => "json_extract(r.metrics_json, ?2)",
    }
}

impl Store {
    /// The name of the newest experiment (None if it has none or there is none).
    pub fn newest_name(&self) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT name FROM experiments ORDER BY id DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                other => Err(other),
            })
            .map_err(|e| self.err(e))
    }

    /// Every host with experiments in the store, sorted (empty if unknown).
    pub fn hosts(&self) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare("SELECT DISTINCT COALESCE(host, '') FROM experiments")
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map([], |r| r.get(0)).map_err(|e| self.err(e))?;
        let mut hosts = rows
            .collect::<rusqlite::Result<Vec<String>>>()
            .map_err(|e| self.err(e))?;
        // Sorted here, not in SQL, so that the order is not a collation's.
        hosts.sort();
        Ok(hosts)
    }

    /// Every experiment named `name` (unnamed ones for None), oldest first,
    /// with its measured values of `metric`; runs without the metric are left out.
    pub fn metric_values(&self, name: Option<&str>, metric: &str) -> Result<Vec<ExperimentValues>> {
        let sql = format!(
            "SELECT e.id, e.name, e.started_at, e.git_commit, e.git_dirty, v.name, {}, v.command, e.host
             FROM experiments e JOIN runs r ON r.experiment_id = e.id JOIN variants v ON v.id = r.variant_id
             WHERE e.name IS ?1 AND r.warmup = 0 ORDER BY e.id, r.sequence",
            value_expression(metric)
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let path = format!("$.\"{metric}\"");
        let mut params: Vec<Value> = vec![name.map_or(Value::Null, |n| Value::Text(n.to_string()))];
        if sql.contains("?2") {
            params.push(Value::Text(path));
        }
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params))
            .map_err(|e| self.err(e))?;
        let mut out: Vec<ExperimentValues> = Vec::new();
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let read = || -> rusqlite::Result<(i64, Option<f64>, String)> {
                Ok((row.get(0)?, row.get(6)?, row.get(5)?))
            };
            let (id, value, variant) = read().map_err(|e| self.err(e))?;
            if out.last().is_none_or(|e| e.id != id) {
                let read = || -> rusqlite::Result<ExperimentValues> {
                    Ok(ExperimentValues {
                        id,
                        name: row.get(1)?,
                        started_at: row.get(2)?,
                        host: row.get::<_, Option<String>>(8)?.unwrap_or_default(),
                        git_commit: row.get(3)?,
                        git_dirty: row.get::<_, Option<bool>>(4)?.unwrap_or(false),
                        values: BTreeMap::new(),
                        commands: BTreeMap::new(),
                    })
                };
                out.push(read().map_err(|e| self.err(e))?);
            }
            if let (Some(v), Some(last)) = (value, out.last_mut()) {
                if !last.commands.contains_key(&variant) {
                    let command: String = row.get(7).map_err(|e| self.err(e))?;
                    last.commands.insert(variant.clone(), command);
                }
                last.values.entry(variant).or_default().push(v);
            }
        }
        Ok(out)
    }

    /// Every (experiment name, metric) pair measured in the store: the
    /// metric each experiment was judged on and every metric its runs
    /// reported, sorted by name and metric.
    pub fn named_metrics(&self) -> Result<Vec<(Option<String>, String)>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT DISTINCT e.name, e.metric FROM experiments e WHERE e.metric IS NOT NULL
                 UNION
                 SELECT DISTINCT e.name, j.key FROM experiments e JOIN runs r ON r.experiment_id = e.id,
                     json_each(r.metrics_json) j
                 WHERE r.warmup = 0
                 ORDER BY 1, 2",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| self.err(e))
    }

    /// Which way is better for `metric` and its unit, as stored with the newest result about it.
    pub fn stored_metric(&self, metric: &str) -> Result<Option<(String, String)>> {
        let text: Option<String> = self
            .conn
            .query_row(
                "SELECT result_json FROM experiments WHERE metric = ?1 AND result_json IS NOT NULL
                 ORDER BY id DESC LIMIT 1",
                [metric],
                |r| r.get(0),
            )
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                other => Err(other),
            })
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
