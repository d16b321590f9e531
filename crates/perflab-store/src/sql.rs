//! What the store's queries are written in, once for both back ends: values
//! and rows as plain data, and the few places where SQLite's and
//! PostgreSQL's SQL differ (the dialect).
//!
//! Queries are written in SQLite's spelling with numbered parameters
//! (`?1`); [`Dialect::statement`] turns them into PostgreSQL's (`$1`). Every
//! other difference is a method of [`Dialect`], so that a reader finds all
//! of them here.

use std::borrow::Cow;

use crate::error::StoreError;

/// A value going into or coming out of the store.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// SQL NULL.
    Null,
    /// An integer (booleans are stored as 0 and 1 in both back ends).
    Int(i64),
    /// A double-precision number.
    Real(f64),
    /// Text.
    Text(String),
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}

impl From<i32> for Value {
    fn from(v: i32) -> Self {
        Value::Int(v.into())
    }
}

impl From<u32> for Value {
    fn from(v: u32) -> Self {
        Value::Int(v.into())
    }
}

impl From<usize> for Value {
    fn from(v: usize) -> Self {
        Value::Int(v as i64)
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Int(v.into())
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Real(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::Text(v.to_string())
    }
}

impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::Text(v)
    }
}

impl From<&String> for Value {
    fn from(v: &String) -> Self {
        Value::Text(v.clone())
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Self {
        v.map_or(Value::Null, Into::into)
    }
}

/// The parameters of a query, each converted into a [`Value`].
macro_rules! values {
    ($($v:expr),* $(,)?) => { &[$($crate::sql::Value::from($v)),*] };
}
pub(crate) use values;

/// A query that was to answer `what` answered nothing.
pub(crate) fn missing(what: &'static str) -> StoreError {
    StoreError::Column {
        column: 0,
        expected: what,
        found: "nothing".into(),
    }
}

/// One row of a query's answer.
#[derive(Debug, Clone)]
pub(crate) struct Row(pub(super) Vec<Value>);

impl Row {
    fn get(&self, column: usize) -> &Value {
        self.0.get(column).unwrap_or(&Value::Null)
    }

    fn wrong(&self, column: usize, expected: &'static str) -> StoreError {
        StoreError::Column {
            column,
            expected,
            found: format!("{:?}", self.get(column)),
        }
    }

    /// A word of perflab's vocabulary (an experiment's kind, a status),
    /// read by its `from_word`: a word this perflab does not know is an
    /// error naming what was expected, not a guess.
    pub(crate) fn word<T>(
        &self,
        column: usize,
        expected: &'static str,
        from_word: fn(&str) -> Option<T>,
    ) -> Result<T, StoreError> {
        let text = self.text(column)?;
        from_word(&text).ok_or_else(|| StoreError::Column {
            column,
            expected,
            found: format!("{text:?}"),
        })
    }

    /// An integer that may be NULL.
    pub(crate) fn opt_i64(&self, column: usize) -> Result<Option<i64>, StoreError> {
        match self.get(column) {
            Value::Null => Ok(None),
            Value::Int(i) => Ok(Some(*i)),
            _ => Err(self.wrong(column, "an integer")),
        }
    }

    /// An integer.
    pub(crate) fn i64(&self, column: usize) -> Result<i64, StoreError> {
        self.opt_i64(column)?
            .ok_or_else(|| self.wrong(column, "an integer"))
    }

    /// A boolean stored as an integer; NULL reads as false.
    pub(crate) fn bool(&self, column: usize) -> Result<bool, StoreError> {
        Ok(self.opt_i64(column)?.unwrap_or(0) != 0)
    }

    /// A number that may be NULL (integers are numbers too).
    pub(crate) fn opt_f64(&self, column: usize) -> Result<Option<f64>, StoreError> {
        match self.get(column) {
            Value::Null => Ok(None),
            Value::Int(i) => Ok(Some(*i as f64)),
            Value::Real(f) => Ok(Some(*f)),
            Value::Text(_) => Err(self.wrong(column, "a number")),
        }
    }

    /// A number.
    pub(crate) fn f64(&self, column: usize) -> Result<f64, StoreError> {
        self.opt_f64(column)?
            .ok_or_else(|| self.wrong(column, "a number"))
    }

    /// Text that may be NULL.
    pub(crate) fn opt_text(&self, column: usize) -> Result<Option<String>, StoreError> {
        match self.get(column) {
            Value::Null => Ok(None),
            Value::Text(s) => Ok(Some(s.clone())),
            _ => Err(self.wrong(column, "text")),
        }
    }

    /// Text.
    pub(crate) fn text(&self, column: usize) -> Result<String, StoreError> {
        self.opt_text(column)?
            .ok_or_else(|| self.wrong(column, "text"))
    }

    /// The row's values, in column order.
    pub(crate) fn into_values(self) -> Vec<Value> {
        self.0
    }
}

/// The SQL spoken by a back end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// SQLite, the embedded store.
    Sqlite,
    /// PostgreSQL, the shared store.
    Postgres,
}

impl Dialect {
    /// A query written with `?N` parameters, as this back end takes it.
    pub(crate) fn statement<'a>(self, sql: &'a str) -> Cow<'a, str> {
        match self {
            Dialect::Sqlite => Cow::Borrowed(sql),
            Dialect::Postgres => {
                let mut out = String::with_capacity(sql.len());
                let mut chars = sql.chars().peekable();
                while let Some(c) = chars.next() {
                    let numbered = chars.peek().is_some_and(char::is_ascii_digit);
                    out.push(if c == '?' && numbered { '$' } else { c });
                }
                Cow::Owned(out)
            }
        }
    }

    /// Table definitions with the column types written `{id}` (an
    /// integer key the database assigns), `{int}` and `{real}`: SQLite's
    /// INTEGER is 64 bits and REAL is a double, PostgreSQL's are not.
    /// `{new_uid}` is a fresh stable id, `{run_metric_names}`
    /// [`Dialect::metric_names_of_run`].
    pub(crate) fn ddl(self, sql: &str) -> String {
        let (id, int, real) = match self {
            Dialect::Sqlite => ("INTEGER PRIMARY KEY", "INTEGER", "REAL"),
            Dialect::Postgres => (
                "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
                "BIGINT",
                "DOUBLE PRECISION",
            ),
        };
        sql.replace("{id}", id)
            .replace("{int}", int)
            .replace("{real}", real)
            .replace("{new_uid}", self.new_uid())
            .replace("{run_metric_names}", self.metric_names_of_run())
    }

    /// An SQL expression giving a fresh stable id (32 hexadecimal digits,
    /// as [`new_uid`] writes them) for each row it is evaluated on.
    fn new_uid(self) -> &'static str {
        match self {
            Dialect::Sqlite => "lower(hex(randomblob(16)))",
            // gen_random_uuid is built in from PostgreSQL 13 on.
            Dialect::Postgres => "replace(gen_random_uuid()::text, '-', '')",
        }
    }

    /// The value of the metric named by parameter `?2` in `r.metrics_json`.
    pub(crate) fn metric_of_run(self) -> &'static str {
        match self {
            Dialect::Sqlite => "json_extract(r.metrics_json, '$.\"' || ?2 || '\"')",
            Dialect::Postgres => "(r.metrics_json::jsonb ->> ?2)::double precision",
        }
    }

    /// A table function over the metric names of `r.metrics_json`, as
    /// rows with a `key` column.
    pub(crate) fn metric_names_of_run(self) -> &'static str {
        match self {
            Dialect::Sqlite => "json_each(r.metrics_json)",
            Dialect::Postgres => "jsonb_each(r.metrics_json::jsonb)",
        }
    }

    /// Starts a transaction that writes. SQLite's must take the write lock
    /// at once: a deferred one that reads first can fail without waiting
    /// when another process writes.
    pub(crate) fn begin(self) -> &'static str {
        match self {
            Dialect::Sqlite => "BEGIN IMMEDIATE",
            Dialect::Postgres => "BEGIN",
        }
    }
}

/// A fresh stable id for an experiment or a run: a version 7 UUID (RFC
/// 9562), a millisecond timestamp and then 74 random bits, so that stores
/// on different machines never give two rows the same one.
///
/// Why time first: each new id then goes at the end of the `uid` index
/// rather than anywhere in it. With ids of 128 random bits, each run of a
/// batch changed its own page of the index, all over it, and in a store of
/// 300,000 runs writing a batch of 64 took about three times as long, with
/// stalls of many milliseconds between two runs
/// (`cargo bench -p perflab-store --bench batch_write`).
pub(crate) fn new_uid() -> String {
    uuid::Uuid::now_v7().simple().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_ids_are_32_hex_digits_all_different_and_in_the_order_they_were_made() {
        let ids: Vec<String> = (0..2000).map(|_| new_uid()).collect();
        for id in &ids {
            assert!(
                id.len() == 32
                    && id
                        .bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
                "{id}"
            );
        }
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, ids, "each new id sorts after the one before");
    }

    #[test]
    fn numbered_parameters_become_dollars_for_postgres_only() {
        let sql = "SELECT a FROM t WHERE b = ?1 AND c = ?12 AND d = '?'";
        assert_eq!(
            Dialect::Postgres.statement(sql),
            "SELECT a FROM t WHERE b = $1 AND c = $12 AND d = '?'"
        );
        assert_eq!(Dialect::Sqlite.statement(sql), sql);
    }

    #[test]
    fn a_column_of_the_wrong_type_is_an_error_naming_it() {
        let row = Row(vec![Value::Text("x".into()), Value::Int(3)]);
        assert!(row.i64(0).unwrap_err().to_string().contains("column 0"));
        assert_eq!(row.f64(1).unwrap(), 3.0);
        assert_eq!(row.opt_text(5).unwrap(), None);
    }
}
