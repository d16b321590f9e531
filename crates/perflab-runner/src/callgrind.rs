//! Reading callgrind's output: the total instruction count (`Ir`) of a run
//! and the instructions executed in each function's own code.
//!
//! The format (valgrind manual, "Callgrind Format Specification"): header
//! lines (`events:`, `positions:`, `totals:`), then `ob=`/`fn=` lines that
//! set the current object and function, cost lines of positions followed by
//! event counts, and `calls=` lines whose next cost line is the inclusive
//! cost of a call, which belongs to the callee and is skipped here. Names may
//! be compressed: `(3) name` defines id 3, a later `(3)` refers to it.

use std::collections::HashMap;

use perflab_format::instructions::FunctionCount;

/// The counts of one or more callgrind output files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallgrindCounts {
    /// Instructions executed, all processes together.
    pub total: u64,
    /// Instructions executed in each function's own code, keyed by (object, function).
    pub functions: HashMap<(String, String), u64>,
}

impl CallgrindCounts {
    /// Adds the counts of another process of the same run.
    pub fn merge(&mut self, other: CallgrindCounts) {
        // Saturating: two files near 2^64 instructions each must not panic.
        self.total = self.total.saturating_add(other.total);
        for (key, ir) in other.functions {
            let own = self.functions.entry(key).or_insert(0);
            *own = own.saturating_add(ir);
        }
    }

    /// The `n` functions with the most instructions, most first.
    pub fn top(&self, n: usize) -> Vec<FunctionCount> {
        let mut all: Vec<FunctionCount> = self
            .functions
            .iter()
            .map(|((object, name), &instructions)| FunctionCount {
                name: name.clone(),
                object: object.clone(),
                instructions,
            })
            .collect();
        all.sort_by(|a, b| {
            b.instructions
                .cmp(&a.instructions)
                .then_with(|| a.name.cmp(&b.name))
        });
        all.truncate(n);
        all
    }
}

/// Name tables of a compressed file: ids to names, one table per kind.
#[derive(Default)]
struct Names {
    objects: HashMap<String, String>,
    functions: HashMap<String, String>,
}

/// Resolves `(id) name` (defining) or `(id)` (referring) or a plain name.
fn resolve(table: &mut HashMap<String, String>, spec: &str) -> String {
    let spec = spec.trim();
    if let Some(rest) = spec.strip_prefix('(') {
        if let Some((id, name)) = rest.split_once(')') {
            let name = name.trim();
            if name.is_empty() {
                return table.get(id).cloned().unwrap_or_else(|| format!("({id})"));
            }
            table.insert(id.to_string(), name.to_string());
            return name.to_string();
        }
    }
    spec.to_string()
}

/// Parses one callgrind output file.
pub fn parse(text: &str) -> Result<CallgrindCounts, String> {
    let mut counts = CallgrindCounts::default();
    let mut names = Names::default();
    let mut ir_column: Option<usize> = None;
    let mut positions = 1;
    let mut object = String::new();
    let mut function = String::new();
    let mut skip_next_cost = false;
    let mut totals: Option<u64> = None;
    let mut summed = 0u64;
    for (number, line) in text.lines().enumerate() {
        let line = line.trim_end();
        let first = line.chars().next().unwrap_or(' ');
        if first.is_ascii_digit() || first == '+' || first == '-' || first == '*' {
            if skip_next_cost {
                skip_next_cost = false;
                continue;
            }
            let column = ir_column.ok_or_else(|| {
                format!(
                    "line {}: a cost line before the 'events:' header",
                    number + 1
                )
            })?;
            let value = match line.split_whitespace().nth(positions + column) {
                None => 0,
                Some(v) => v
                    .parse::<u64>()
                    .map_err(|_| format!("line {}: '{v}' is not a count", number + 1))?,
            };
            // Every function's count is part of the sum, so checking it suffices.
            summed = summed.checked_add(value).ok_or_else(|| {
                format!("line {}: the counts add up to more than 2^64", number + 1)
            })?;
            *counts
                .functions
                .entry((object.clone(), function.clone()))
                .or_insert(0) += value;
            continue;
        }
        let Some((key, value)) = line.split_once([':', '=']) else {
            continue;
        };
        match key {
            "events" => {
                let events: Vec<&str> = value.split_whitespace().collect();
                ir_column = Some(events.iter().position(|e| *e == "Ir").ok_or_else(|| {
                    format!(
                        "line {}: the events ({}) do not include Ir",
                        number + 1,
                        value.trim()
                    )
                })?);
            }
            "positions" => positions = value.split_whitespace().count().max(1),
            "totals" | "summary" if totals.is_none() || key == "totals" => {
                let column = ir_column.unwrap_or(0);
                totals = value
                    .split_whitespace()
                    .nth(column)
                    .and_then(|v| v.parse().ok());
            }
            "ob" => object = resolve(&mut names.objects, value),
            "fn" => function = resolve(&mut names.functions, value),
            // Callee names must be read to keep the compression tables right.
            "cob" => {
                resolve(&mut names.objects, value);
            }
            "cfn" => {
                resolve(&mut names.functions, value);
            }
            "calls" => skip_next_cost = true,
            _ => {}
        }
    }
    if ir_column.is_none() {
        return Err("no 'events:' header: this is not a callgrind output file".into());
    }
    counts.total = totals.unwrap_or(summed);
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: &str = "\
# callgrind format
version: 1
creator: callgrind-3.19.0
positions: line
events: Ir
summary: 1200

ob=(1) /tmp/loop
fl=(1) ???
fn=(1) main
0 8
cob=(2) /usr/lib/libc.so.6
cfi=(2) strtol.c
cfn=(2) strtoul
calls=1 106
0 164
fn=(3) step
0 900
ob=(2)
fl=(2)
fn=(2)
0 164
fn=(1)
0 4
totals: 1200
";

    #[test]
    fn own_costs_are_summed_per_function_and_call_costs_skipped() {
        let counts = parse(OUT).unwrap();
        assert_eq!(counts.total, 1200);
        let get = |o: &str, f: &str| counts.functions[&(o.to_string(), f.to_string())];
        assert_eq!(get("/tmp/loop", "main"), 8);
        assert_eq!(get("/tmp/loop", "step"), 900);
        assert_eq!(get("/usr/lib/libc.so.6", "strtoul"), 164);
        // `fn=(1)` under `ob=(2)` is main of another object in the file's eyes.
        assert_eq!(get("/usr/lib/libc.so.6", "main"), 4);
        assert_eq!(counts.top(1)[0].name, "step");
    }

    #[test]
    fn files_of_several_processes_add_up() {
        let mut a = parse(OUT).unwrap();
        a.merge(parse(OUT).unwrap());
        assert_eq!(a.total, 2400);
    }

    #[test]
    fn a_file_that_is_not_callgrind_output_is_refused() {
        assert!(parse("hello\n").is_err());
    }

    #[test]
    fn several_events_pick_the_ir_column() {
        let text = "positions: instr line\nevents: Dr Ir\nfn=f\n0x10 3 7 11\ntotals: 7 11\n";
        let counts = parse(text).unwrap();
        assert_eq!(counts.total, 11);
        assert_eq!(counts.functions[&(String::new(), "f".into())], 11);
    }
}
