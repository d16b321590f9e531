//! Reading a run's stdout or stderr without keeping all of it: every line is
//! scanned for metrics as it streams by, and only a bounded tail is kept for
//! error messages, so a chatty program cannot exhaust perflab's memory.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read};
use std::sync::Arc;

use super::{MetricExtractor, MetricValue};

/// Lines kept from the end of each stream.
const TAIL_LINES: usize = 20;
/// Longest line kept or scanned; the rest of a longer line is dropped.
const MAX_LINE_BYTES: usize = 64 * 1024;

/// What a stream left behind.
#[derive(Debug, Default)]
pub struct Captured {
    /// Metrics found, last value wins.
    pub metrics: BTreeMap<String, MetricValue>,
    /// The last lines of the stream.
    pub tail: VecDeque<String>,
}

/// Reads `stream` to its end, scanning each line and keeping the tail.
pub fn capture(stream: impl Read, extractor: Arc<MetricExtractor>) -> Captured {
    let mut reader = BufReader::with_capacity(16 * 1024, stream);
    let mut captured = Captured::default();
    let mut line = Vec::with_capacity(256);
    loop {
        line.clear();
        match read_bounded_line(&mut reader, &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        extractor.scan_line(text, &mut captured.metrics);
        if captured.tail.len() == TAIL_LINES {
            captured.tail.pop_front();
        }
        captured.tail.push_back(text.to_string());
    }
    captured
}

/// Like `read_until(b'\n')`, but stores at most [`MAX_LINE_BYTES`] of the line.
fn read_bounded_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut consumed_total = 0;
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(consumed_total);
        }
        let (chunk, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(i) => (&buffer[..=i], true),
            None => (buffer, false),
        };
        let room = MAX_LINE_BYTES.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let consumed = chunk.len();
        reader.consume(consumed);
        consumed_total += consumed;
        if done {
            return Ok(consumed_total);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_tail_is_kept_but_every_line_is_scanned() {
        let mut text = String::from("PERFLAB_METRIC early 1\n");
        for i in 0..1000 {
            text.push_str(&format!("line {i}\n"));
        }
        let captured = capture(text.as_bytes(), Arc::new(MetricExtractor::default()));
        assert_eq!(captured.tail.len(), TAIL_LINES);
        assert_eq!(captured.tail.back().unwrap(), "line 999");
        assert_eq!(captured.metrics["early"].value, 1.0);
    }

    #[test]
    fn a_huge_line_is_truncated_not_stored_whole() {
        let text = "x".repeat(1_000_000) + "\nend\n";
        let captured = capture(text.as_bytes(), Arc::new(MetricExtractor::default()));
        assert_eq!(captured.tail[0].len(), MAX_LINE_BYTES);
        assert_eq!(captured.tail[1], "end");
    }
}
