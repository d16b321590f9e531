//! Reading a run's stdout or stderr without keeping all of it, and at
//! memory speed: every metric line is found as the output streams by, only
//! a bounded tail is kept for error messages and a digest of the rest for
//! the answer check, so a chatty program can neither exhaust perflab's
//! memory nor be slowed down by perflab's reading (a program printing
//! 200 MB of short lines would otherwise wait for perflab line by line).
//!
//! Lines are looked at one by one only where they must be: the lines
//! holding `PERFLAB_` (found with a vectorised substring search over the
//! whole chunk), every line where `--metric` patterns are given, and the
//! last lines of each chunk for the tail. The other lines are hashed in
//! bulk, as they are.

use std::collections::{BTreeMap, VecDeque};

use memchr::{memchr, memmem, memrchr};
use xxhash_rust::xxh3::Xxh3;

use crate::{MetricExtractor, MetricValue};

/// Lines kept from the end of each stream.
const TAIL_LINES: usize = 20;
/// Lines of the answer (lines without metrics) kept, to show a difference.
const ANSWER_LINES: usize = 5;
/// Longest line kept or scanned. A longer line is never a metric line; it
/// is hashed whole, and kept cut to this length.
const MAX_LINE_BYTES: usize = 64 * 1024;
/// What every metric line holds (`PERFLAB_METRIC`, `PERFLAB_COUNT`).
const MARKER: &[u8] = b"PERFLAB_";

/// Splits a byte stream into lines as chunks arrive, scanning each line
/// that can hold a metric.
#[derive(Default)]
pub(crate) struct LineScanner {
    /// The start of a line whose end has not arrived yet, at most
    /// [`MAX_LINE_BYTES`].
    partial: Vec<u8>,
    /// The current partial line is longer than [`MAX_LINE_BYTES`]: what
    /// arrives of it goes straight into the digest.
    overlong: bool,
    /// The digest of every line that holds no metric, newlines included.
    hasher: Xxh3,
    /// Metrics found, last value wins.
    pub metrics: BTreeMap<String, MetricValue>,
    /// Metrics whose last line held no readable value, with what is wrong.
    pub unreadable: BTreeMap<String, String>,
    /// The last lines of the stream.
    pub tail: VecDeque<String>,
    /// What the program printed apart from its measurements (its digest
    /// is set by [`LineScanner::finish`]).
    pub answer: Answer,
}

impl std::fmt::Debug for LineScanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineScanner")
            .field("metrics", &self.metrics)
            .field("unreadable", &self.unreadable)
            .field("tail", &self.tail)
            .field("answer", &self.answer)
            .finish_non_exhaustive()
    }
}

/// The lines of a stream that held no metric, to compare variants' outputs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answer {
    /// XXH3 (64-bit) of all of them, each with its newline: stable across
    /// processes and releases, unlike std's hasher, enough to tell two
    /// outputs apart, and fast enough to hash output as it streams.
    pub digest: u64,
    /// The last of them.
    pub last_lines: VecDeque<String>,
}

impl LineScanner {
    /// Takes the next chunk of the stream.
    pub(crate) fn feed(&mut self, chunk: &[u8], extractor: &MetricExtractor) {
        let Some(first_end) = memchr(b'\n', chunk) else {
            self.push_partial(chunk);
            return;
        };
        self.push_partial(&chunk[..first_end]);
        self.end_partial(extractor);
        let rest = &chunk[first_end + 1..];
        let Some(last_end) = memrchr(b'\n', rest) else {
            self.push_partial(rest);
            return;
        };
        let (lines, partial) = rest.split_at(last_end + 1);
        self.complete_lines(lines, extractor);
        self.push_partial(partial);
    }

    /// The stream ended: a last line without a newline still counts.
    pub(crate) fn finish(&mut self, extractor: &MetricExtractor) {
        if !self.partial.is_empty() || self.overlong {
            self.end_partial(extractor);
        }
        self.answer.digest = self.hasher.digest();
    }

    fn push_partial(&mut self, bytes: &[u8]) {
        if !self.overlong && self.partial.len() + bytes.len() <= MAX_LINE_BYTES {
            self.partial.extend_from_slice(bytes);
            return;
        }
        if !self.overlong {
            self.overlong = true;
            self.hasher.update(&self.partial);
            let room = MAX_LINE_BYTES - self.partial.len();
            self.partial
                .extend_from_slice(&bytes[..room.min(bytes.len())]);
        }
        self.hasher.update(bytes);
    }

    /// The partial line got its end.
    fn end_partial(&mut self, extractor: &MetricExtractor) {
        let partial = std::mem::take(&mut self.partial);
        if self.overlong {
            self.overlong = false;
            self.hasher.update(b"\n");
            self.keep(&partial, true);
        } else {
            self.line(&partial, extractor);
        }
        self.partial = partial;
        self.partial.clear();
    }

    /// Complete lines, each ended by a newline.
    fn complete_lines(&mut self, mut lines: &[u8], extractor: &MetricExtractor) {
        if extractor.has_patterns() {
            // Any line may match a pattern: each is looked at.
            for line in lines[..lines.len() - 1].split(|&b| b == b'\n') {
                self.line(line, extractor);
            }
            return;
        }
        let finder = memmem::Finder::new(MARKER);
        while let Some(at) = finder.find(lines) {
            let start = memrchr(b'\n', &lines[..at]).map_or(0, |i| i + 1);
            let end = at + memchr(b'\n', &lines[at..]).unwrap_or(lines.len() - at - 1);
            self.plain_lines(&lines[..start]);
            self.line(&lines[start..end], extractor);
            lines = &lines[end + 1..];
        }
        self.plain_lines(lines);
    }

    /// Complete lines known to hold no metric: hashed as they are; only the
    /// last of them are kept.
    fn plain_lines(&mut self, lines: &[u8]) {
        if lines.is_empty() {
            return;
        }
        self.hasher.update(lines);
        let mut last = Vec::with_capacity(TAIL_LINES);
        let mut end = lines.len() - 1;
        while last.len() < TAIL_LINES {
            let start = memrchr(b'\n', &lines[..end]).map_or(0, |i| i + 1);
            last.push(&lines[start..end]);
            if start == 0 {
                break;
            }
            end = start - 1;
        }
        for line in last.into_iter().rev() {
            self.keep(line, true);
        }
    }

    /// One line, without its newline, that may hold a metric.
    fn line(&mut self, bytes: &[u8], extractor: &MetricExtractor) {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_LINE_BYTES)]);
        let text = text.trim_end_matches('\r');
        let metric = bytes.len() <= MAX_LINE_BYTES
            && extractor.scan_line(text, &mut self.metrics, &mut self.unreadable);
        if !metric {
            self.hasher.update(bytes);
            self.hasher.update(b"\n");
        }
        self.keep_text(text, !metric);
    }

    /// Keeps a line (cut to [`MAX_LINE_BYTES`]) in the tail, and in the
    /// answer's last lines when it is part of the answer.
    fn keep(&mut self, bytes: &[u8], answer: bool) {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_LINE_BYTES)]);
        self.keep_text(text.trim_end_matches('\r'), answer);
    }

    fn keep_text(&mut self, text: &str, answer: bool) {
        if answer {
            if self.answer.last_lines.len() == ANSWER_LINES {
                self.answer.last_lines.pop_front();
            }
            self.answer.last_lines.push_back(text.to_string());
        }
        if self.tail.len() == TAIL_LINES {
            self.tail.pop_front();
        }
        self.tail.push_back(text.to_string());
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
    fn how_the_output_is_cut_into_chunks_changes_nothing() {
        let mut text = Vec::new();
        for i in 0..300 {
            text.extend_from_slice(format!("line {i}\r\n").as_bytes());
            if i % 37 == 0 {
                text.extend_from_slice(format!("log PERFLAB_METRIC m{i} {i}\n").as_bytes());
            }
            if i == 150 {
                text.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
                text.extend_from_slice(b" PERFLAB_COUNT hidden 1\n");
            }
        }
        text.extend_from_slice(b"last without newline");
        let whole = scan(&text, text.len());
        assert_eq!(whole.metrics.len(), 9, "{:?}", whole.metrics.keys());
        assert!(
            !whole.metrics.contains_key("hidden"),
            "an overlong line holds no metric"
        );
        assert_eq!(whole.tail.back().unwrap(), "last without newline");
        assert_eq!(
            whole.answer.last_lines.back().unwrap(),
            "last without newline"
        );
        for chunk in [1, 2, 7, 4096, 65536, 100_000] {
            let pieces = scan(&text, chunk);
            assert_eq!(pieces.metrics, whole.metrics, "chunks of {chunk}");
            assert_eq!(pieces.tail, whole.tail, "chunks of {chunk}");
            assert_eq!(pieces.answer, whole.answer, "chunks of {chunk}");
        }
    }

    #[test]
    fn with_patterns_every_line_is_looked_at() {
        let extractor = MetricExtractor::from_definitions(&["tp=tp=([0-9]+)".into()]).unwrap();
        let mut scanner = LineScanner::default();
        scanner.feed(b"a\ntp=12\nb\ntp=13\nc\n", &extractor);
        scanner.finish(&extractor);
        assert_eq!(scanner.metrics["tp"].value, 13.0);
        assert_eq!(scanner.answer.last_lines, ["a", "b", "c"]);
    }

    #[test]
    fn a_metric_line_split_across_chunks_is_found() {
        let scanner = scan(b"PERFLAB_METRIC tp 12.5K ops/s\n", 3);
        assert_eq!(scanner.metrics["tp"].value, 12_500.0);
    }
}
