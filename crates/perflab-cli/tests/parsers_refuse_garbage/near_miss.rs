//! Inputs that are almost right: the cases a parser meets in practice, and
//! the ones a hand-written parser gets wrong (edges, overflow, non-finite
//! numbers, cut-off files).

use proptest::prelude::*;

/// Cases per property: the parsers are cheap, so more than proptest's 256.
pub const CASES: u32 = 1024;

/// Values that sit on an edge of some number or text parser.
const EDGE_VALUES: &[&str] = &[
    "",
    " ",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "infinity",
    "1e400",
    "-1e400",
    "1e-400",
    "1e308",
    "1.7e308",
    "1e20",
    "-0",
    "0",
    "-1",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775809",
    "99999999999999999999999999999",
    "1.5.5",
    "0x10",
    "1_000",
    "1,5",
    "46.94M",
    "1e308G",
    "K",
    "%",
    "ms",
    "µs",
    "é",
    "\u{0}",
    "\u{feff}",
    "true",
    "null",
    "[]",
    "{}",
    "\"",
    "'",
    "\\",
    "{{",
    "}}",
    "{",
    "#",
    "..",
    ":",
    "=",
    ";",
    "\n",
    "\r\n",
];

/// One value likely to trip a parser: an edge case, a float or integer of
/// any size, or arbitrary text.
pub fn odd_value() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(EDGE_VALUES).prop_map(str::to_string),
        1 => any::<f64>().prop_map(|f| f.to_string()),
        1 => any::<f64>().prop_map(|f| format!("{f:e}")),
        1 => any::<i64>().prop_map(|n| n.to_string()),
        1 => any::<u64>().prop_map(|n| n.to_string()),
        1 => "[0-9]{20,400}",
        2 => "\\PC{0,12}",
        1 => any::<String>(),
    ]
}

/// One change to a valid text.
#[derive(Debug, Clone)]
pub enum Change {
    /// Cut off after this many bytes (rounded down to a character).
    Truncate(usize),
    /// Replace the n-th word (a run of letters, digits, `.`, `-`, `+`, `_`) by a value.
    ReplaceWord(usize, String),
    /// Insert a value at a byte position (rounded down to a character).
    Insert(usize, String),
    /// Remove the n-th line.
    DropLine(usize),
    /// Repeat the n-th line.
    DoubleLine(usize),
    /// Put a line of this many copies of a character before the n-th line.
    LongLine(usize, usize, char),
    /// Nothing at all.
    Empty,
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        2 => any::<usize>().prop_map(Change::Truncate),
        6 => (any::<usize>(), odd_value()).prop_map(|(n, v)| Change::ReplaceWord(n, v)),
        2 => (any::<usize>(), odd_value()).prop_map(|(n, v)| Change::Insert(n, v)),
        1 => any::<usize>().prop_map(Change::DropLine),
        1 => any::<usize>().prop_map(Change::DoubleLine),
        1 => (any::<usize>(), 1000usize..50_000, any::<char>())
            .prop_map(|(n, len, c)| Change::LongLine(n, len, c)),
        1 => Just(Change::Empty),
    ]
}

fn floor_char(text: &str, at: usize) -> usize {
    let mut at = at % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || ".-+_".contains(c)
}

/// The byte ranges of the words of `text`.
fn words(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (is_word(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, text.len()));
    }
    spans
}

/// Applies `change` to `text`.
pub fn apply(text: &str, change: &Change) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let line = |n: usize| n % lines.len().max(1);
    match change {
        Change::Truncate(at) => text[..floor_char(text, *at)].to_string(),
        Change::ReplaceWord(n, value) => {
            let spans = words(text);
            let Some(&(start, end)) = spans.get(n % spans.len().max(1)) else {
                return value.clone();
            };
            format!("{}{value}{}", &text[..start], &text[end..])
        }
        Change::Insert(at, value) => {
            let at = floor_char(text, *at);
            format!("{}{value}{}", &text[..at], &text[at..])
        }
        Change::DropLine(n) if !lines.is_empty() => {
            let mut lines = lines.clone();
            lines.remove(line(*n));
            lines.concat()
        }
        Change::DoubleLine(n) if !lines.is_empty() => {
            let mut lines = lines.clone();
            lines.insert(line(*n), lines[line(*n)]);
            lines.concat()
        }
        Change::LongLine(n, len, c) => {
            let long = format!("{}\n", c.to_string().repeat(*len));
            let mut lines = lines.clone();
            lines.insert(line(*n).min(lines.len()), &long);
            lines.concat()
        }
        Change::DropLine(_) | Change::DoubleLine(_) => text.to_string(),
        Change::Empty => String::new(),
    }
}

/// `valid` with one to three changes.
pub fn near_miss(valid: String) -> impl Strategy<Value = String> {
    proptest::collection::vec(change(), 1..=3).prop_map(move |changes| {
        changes
            .iter()
            .fold(valid.clone(), |text, change| apply(&text, change))
    })
}

/// Bytes for a file: arbitrary bytes, a near-miss of `valid`, or a
/// near-miss with bytes that are not UTF-8 put in.
pub fn near_miss_bytes(valid: String) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        1 => proptest::collection::vec(any::<u8>(), 0..256),
        3 => near_miss(valid.clone()).prop_map(String::into_bytes),
        1 => (near_miss(valid), any::<usize>(), prop_oneof![
                Just(vec![0xff]),
                Just(vec![0xc3]),
                Just(vec![0xed, 0xa0, 0x80]),
                Just(vec![0xfe, 0xff]),
            ])
            .prop_map(|(text, at, bad)| {
                let mut bytes = text.into_bytes();
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, bad);
                bytes
            }),
    ]
}
