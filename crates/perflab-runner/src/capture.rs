//! Reading a run's stdout or stderr without keeping all of it: every line is
//! scanned for metrics as it streams by, and only a bounded tail is kept for
//! error messages, so a chatty program cannot exhaust perflab's memory.

use std::collections::{BTreeMap, VecDeque};

use crate::{MetricExtractor, MetricValue};

/// Lines kept from the end of each stream.
const TAIL_LINES: usize = 20;
/// Lines of the answer (lines without metrics) kept, to show a difference.
const ANSWER_LINES: usize = 5;
/// Longest line kept or scanned; the rest of a longer line is dropped.
const MAX_LINE_BYTES: usize = 64 * 1024;

/// Splits a byte stream into lines as chunks arrive, scanning each line.
#[derive(Debug, Default)]
pub struct LineScanner {
    partial: Vec<u8>,
    /// Metrics found, last value wins.
    pub metrics: BTreeMap<String, MetricValue>,
    /// The last lines of the stream.
    pub tail: VecDeque<String>,
    /// What the program printed apart from its measurements.
    pub answer: Answer,
}

/// The lines of a stream that held no metric, to compare variants' outputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// FNV-1a (64-bit) hash of all of them: stable across processes and
    /// releases, unlike std's hasher, and enough to tell two outputs apart.
    pub digest: u64,
    /// The last of them.
    pub last_lines: VecDeque<String>,
}

impl Default for Answer {
    fn default() -> Self {
        Answer {
            digest: 0xcbf2_9ce4_8422_2325,
            last_lines: VecDeque::new(),
        }
    }
}

impl Answer {
    fn add_line(&mut self, line: &str) {
        for &byte in line.as_bytes().iter().chain(b"\n") {
            self.digest = (self.digest ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        if self.last_lines.len() == ANSWER_LINES {
            self.last_lines.pop_front();
        }
        self.last_lines.push_back(line.to_string());
    }
}

impl LineScanner {
    /// Takes the next chunk of the stream.
    pub fn feed(&mut self, mut chunk: &[u8], extractor: &MetricExtractor) {
        while let Some(end) = chunk.iter().position(|&b| b == b'\n') {
            self.push_partial(&chunk[..end]);
            self.end_line(extractor);
            chunk = &chunk[end + 1..];
        }
        self.push_partial(chunk);
    }

    /// The stream ended: a last line without a newline still counts.
    pub fn finish(&mut self, extractor: &MetricExtractor) {
        if !self.partial.is_empty() {
            self.end_line(extractor);
        }
    }

    fn push_partial(&mut self, bytes: &[u8]) {
        let room = MAX_LINE_BYTES.saturating_sub(self.partial.len());
        self.partial
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    fn end_line(&mut self, extractor: &MetricExtractor) {
        let text = String::from_utf8_lossy(&self.partial);
        let text = text.trim_end_matches('\r');
        if !extractor.scan_line(text, &mut self.metrics) {
            self.answer.add_line(text);
        }
        if self.tail.len() == TAIL_LINES {
            self.tail.pop_front();
        }
        self.tail.push_back(text.to_string());
        self.partial.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &[u8], chunk: usize) -> LineScanner {
        let extractor = MetricExtractor::default();
        let mut scanner = LineScanner::default();
        for piece in text.chunks(chunk) {
            scanner.feed(piece, &extractor);
        }
        scanner.finish(&extractor);
        scanner
    }

    #[test]
    fn only_the_tail_is_kept_but_every_line_is_scanned() {
        let mut text = String::from("PERFLAB_METRIC early 1\n");
        for i in 0..1000 {
            text.push_str(&format!("line {i}\n"));
        }
        let scanner = scan(text.as_bytes(), 7);
        assert_eq!(scanner.tail.len(), TAIL_LINES);
        assert_eq!(scanner.tail.back().unwrap(), "line 999");
        assert_eq!(scanner.metrics["early"].value, 1.0);
    }

    #[test]
    fn a_huge_line_is_truncated_not_stored_whole() {
        let text = "x".repeat(1_000_000) + "\nend";
        let scanner = scan(text.as_bytes(), 4096);
        assert_eq!(scanner.tail[0].len(), MAX_LINE_BYTES);
        assert_eq!(scanner.tail[1], "end", "a last line without newline counts");
    }

    #[test]
    fn the_answer_digest_ignores_metric_lines_and_chunking_but_not_answers() {
        let a = scan(b"sum 42\nPERFLAB_METRIC tp 12.5K ops/s\n", 3);
        let b = scan(b"sum 42\nPERFLAB_METRIC tp 9.1K ops/s\n", 5);
        let c = scan(b"sum 41\nPERFLAB_METRIC tp 12.5K ops/s\n", 3);
        assert_eq!(a.answer, b.answer);
        assert_ne!(a.answer.digest, c.answer.digest);
        assert_eq!(c.answer.last_lines, ["sum 41"]);
    }

    #[test]
    fn a_metric_line_split_across_chunks_is_found() {
        let scanner = scan(b"PERFLAB_METRIC tp 12.5K ops/s\n", 3);
        assert_eq!(scanner.metrics["tp"].value, 12_500.0);
    }
}
