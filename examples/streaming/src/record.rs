//! The records: text lines `key,value,payload`, as a reader of a text
//! source would hand them on, and what the SQL-like engine makes of them.

use std::collections::HashMap;
use std::fmt::Write;

/// Distinct keys the reader spreads its records over.
pub const KEYS: u64 = 1000;

/// The reader's record number `i`: deterministic, so every run processes the
/// same stream.
pub fn line(i: u64) -> String {
    let key = i.wrapping_mul(7919) % KEYS;
    // Values from -1000 to 1000: about half are filtered out.
    let value = (i.wrapping_mul(31) % 2001) as i64 - 1000;
    format!("{key},{value},record-{i}")
}

/// A record that does not have the reader's shape.
#[derive(Debug, PartialEq, Eq)]
pub struct Malformed(pub String);

/// The key and value of a line.
pub fn parse(line: &str) -> Result<(u64, i64), Malformed> {
    let mut fields = line.splitn(3, ',');
    let key = fields.next().and_then(|k| k.parse().ok());
    let value = fields.next().and_then(|v| v.parse().ok());
    match (key, value) {
        (Some(key), Some(value)) => Ok((key, value)),
        _ => Err(Malformed(line.to_string())),
    }
}

/// The key a line is routed by (its first field), without parsing the rest.
pub fn route_key(line: &str) -> u64 {
    line.bytes()
        .take_while(|b| b.is_ascii_digit())
        .fold(0u64, |k, b| k * 10 + u64::from(b - b'0'))
}

/// A partition's running aggregate: the sum of the kept values per key.
#[derive(Default, Debug)]
pub struct Aggregate {
    sums: HashMap<u64, i64>,
}

impl Aggregate {
    /// Parses, filters and aggregates one line; returns the output row:
    /// `key,running sum` for a kept record, `key,filtered` for a dropped
    /// value (every record gives one row, so records in = records out).
    pub fn apply(&mut self, line: &str) -> Result<String, Malformed> {
        let (key, value) = parse(line)?;
        let mut row = String::with_capacity(24);
        if value >= 0 {
            let sum = self.sums.entry(key).or_insert(0);
            *sum += value;
            write!(row, "{key},{sum}").expect("writing to a String");
        } else {
            write!(row, "{key},filtered").expect("writing to a String");
        }
        Ok(row)
    }

    /// The sum of every kept value so far.
    pub fn total(&self) -> i64 {
        self.sums.values().sum()
    }
}
