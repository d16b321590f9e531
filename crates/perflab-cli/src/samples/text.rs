//! Plain numbers: one or more per line, the format of last resort.
//!
//! A file of numbers can hold tens of millions of them, so it is read as a
//! stream ([`stream_plain_numbers`]): a bounded buffer, the values into one
//! `Vec<f64>`, never the whole file as text. A file that turns out to be
//! something else (JSON, `go test -bench` output) is read whole by the format
//! that reads it, as before.

use std::io::Read;
use std::path::Path;

use perflab_runner::parse_si_number;

use super::go_bench::result_line;
use super::{Benchmark, Format, Imported, Importer, Input, file_stem};
use crate::error::{Error, Result};

/// A text file of numbers.
pub(super) struct PlainNumbers;

impl Importer for PlainNumbers {
    fn format(&self) -> Format {
        Format::Text
    }

    fn recognises(&self, input: &Input) -> bool {
        input.text.is_some() && input.json.is_none()
    }

    fn read(&self, input: &Input) -> Result<Imported> {
        let text = input.text.as_deref().ok_or_else(|| {
            Error::input(&input.path, "is a folder; a file of numbers was expected")
        })?;
        let values = read_text(&input.path, text)?;
        Ok(plain_numbers(&input.path, values))
    }
}

/// What a file of plain numbers holds.
pub(super) fn plain_numbers(path: &Path, values: Vec<f64>) -> Imported {
    Imported {
        path: path.to_path_buf(),
        format: Format::Text,
        benchmarks: vec![Benchmark::with_metric(file_stem(path), "value", "", values)],
        default_metric: None,
        alternatives: true,
        machine: None,
        runtime: None,
    }
}

/// Numbers separated by white space, commas or brackets; `#` starts a comment.
fn read_text(path: &Path, text: &str) -> Result<Vec<f64>> {
    let mut numbers = Numbers::new(path);
    for line in text.lines() {
        numbers.piece(line);
        if let Some(error) = numbers.error.take() {
            return Err(error);
        }
        numbers.end_line();
    }
    Ok(numbers.values)
}

/// The bytes read at a time; a line longer than this is taken in pieces
/// cut after a separator, so memory stays bounded whatever the file's
/// length (only a single number longer than this widens the buffer).
const CHUNK_BYTES: usize = 64 * 1024;

/// Reads `file` (the samples file at `path`) as plain numbers, a bounded
/// buffer at a time, exactly as [`PlainNumbers`] reads the whole text: the
/// same values, and the same first error with its line. `None` when the
/// text is not plain numbers but another format read from the whole text:
/// JSON (its first character is `{`) or, when `detect_go`, `go test -bench`
/// output (a result line anywhere). An error reading the file (bytes that
/// are not UTF-8 included, wherever they are) comes before a number that
/// is wrong, as it does when the whole text is read first.
///
/// # Errors
/// The file cannot be read, is not UTF-8, or holds something that is not a
/// number (the first such, with its line).
pub(super) fn stream_plain_numbers(
    path: &Path,
    file: impl Read,
    detect_go: bool,
) -> std::result::Result<Option<Vec<f64>>, StreamError> {
    stream_in_chunks(path, file, detect_go, CHUNK_BYTES)
}

/// [`stream_plain_numbers`] with a buffer of `chunk_bytes` to start with.
fn stream_in_chunks(
    path: &Path,
    file: impl Read,
    detect_go: bool,
    chunk_bytes: usize,
) -> std::result::Result<Option<Vec<f64>>, StreamError> {
    let mut scan = Scan {
        numbers: Numbers::new(path),
        detect_go,
        seen_text: false,
        array_opened: false,
        line_field_seen: false,
        first_error: None,
    };
    let mut reader = Chunks::new(file, chunk_bytes);
    while let Some(piece) = reader.next_piece()? {
        if scan.piece(piece)? {
            return Ok(None);
        }
    }
    match scan.first_error {
        Some(error) => Err(StreamError::Numbers(error)),
        None => {
            let mut values = scan.numbers.values;
            values.shrink_to_fit();
            Ok(Some(values))
        }
    }
}

/// Why streaming a samples file stopped.
#[derive(Debug)]
pub(super) enum StreamError {
    /// The file could not be read (or is not UTF-8).
    Read(std::io::Error),
    /// A token is not a number.
    Numbers(Error),
}

impl From<std::io::Error> for StreamError {
    fn from(e: std::io::Error) -> Self {
        StreamError::Read(e)
    }
}

/// The scan of a streamed file: numbers until the first error, then only
/// the checks that could still make it another format or unreadable.
struct Scan<'p> {
    numbers: Numbers<'p>,
    detect_go: bool,
    /// Whether anything but white space was seen (the first character
    /// decides JSON).
    seen_text: bool,
    /// Whether the text so far is `[` alone: an array whose first element
    /// decides (an object starts JMH's JSON, a number a list of numbers).
    array_opened: bool,
    /// Whether the current line's first field was seen (a long line's
    /// first piece decides whether it can be a go result line).
    line_field_seen: bool,
    first_error: Option<Error>,
}

impl Scan<'_> {
    /// Takes one piece; true when the file is another format.
    fn piece(&mut self, piece: Piece<'_>) -> std::result::Result<bool, StreamError> {
        let text = piece.text;
        if !self.seen_text || self.array_opened {
            let mut rest = text.trim_start();
            if !rest.is_empty() && !self.seen_text {
                self.seen_text = true;
                if let Some(inside) = rest.strip_prefix('[') {
                    self.array_opened = true;
                    rest = inside.trim_start();
                }
            }
            if !rest.is_empty() {
                if rest.starts_with('{') {
                    return Ok(true);
                }
                self.array_opened = false;
            }
        }
        if self.detect_go && piece.whole_line {
            // A result line's first field starts with its name.
            if text.trim_start().starts_with("Benchmark") && result_line(text).is_some() {
                return Ok(true);
            }
        } else if self.detect_go && !self.line_field_seen {
            if let Some(first) = text.split_whitespace().next() {
                if first.starts_with("Benchmark") {
                    // A result line this long is not likely, but only the
                    // whole line can tell: the whole text decides.
                    return Ok(true);
                }
                self.line_field_seen = true;
            }
        }
        if self.first_error.is_none() {
            self.numbers.piece(text);
            self.first_error = self.numbers.error.take();
            if self.first_error.is_some() {
                self.numbers.values = Vec::new();
            }
        }
        if piece.ends_line {
            self.numbers.end_line();
            self.line_field_seen = false;
        }
        Ok(false)
    }
}

/// Numbers read from a text one piece of a line at a time; a piece ends
/// at a line's end or after a separator, so no number is cut in two.
struct Numbers<'p> {
    path: &'p Path,
    /// The current line, from 1.
    line: usize,
    /// Whether a `#` started a comment earlier on this line.
    in_comment: bool,
    values: Vec<f64>,
    /// The first token that is not a number, once found.
    error: Option<Error>,
}

impl<'p> Numbers<'p> {
    fn new(path: &'p Path) -> Self {
        Numbers {
            path,
            line: 1,
            in_comment: false,
            values: Vec::new(),
            error: None,
        }
    }

    fn piece(&mut self, piece: &str) {
        if self.in_comment {
            return;
        }
        let content = match piece.split_once('#') {
            Some((before, _)) => {
                self.in_comment = true;
                before
            }
            None => piece,
        };
        for token in content.split(is_separator).filter(|t| !t.is_empty()) {
            match plain_number(token).or_else(|| parse_si_number(token)) {
                Some(value) => self.values.push(value),
                None => {
                    self.error = Some(Error::input(
                        format!("{}:{}", self.path.display(), self.line),
                        format!(
                            "'{token}' is not a number; the file must hold one number per line (K/M/G suffixes allowed, # for comments), \
                                 or be a benchmark harness's output that perflab reads (see --format)"
                        ),
                    ));
                    return;
                }
            }
        }
    }

    fn end_line(&mut self) {
        self.line += 1;
        self.in_comment = false;
    }
}

/// What separates numbers: white space, commas, semicolons and brackets.
fn is_separator(c: char) -> bool {
    c.is_whitespace() || matches!(c, ',' | ';' | '[' | ']')
}

/// A token of digits, signs, points and exponents only, read as
/// [`parse_si_number`] reads it (no suffix, no separator to drop: the
/// number itself, if finite) without its checks for what it does not hold;
/// `None` for anything else, which goes to [`parse_si_number`].
fn plain_number(token: &str) -> Option<f64> {
    let plain = token
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'));
    plain
        .then(|| token.parse::<f64>().ok())
        .flatten()
        .filter(|v| v.is_finite())
}

/// An ASCII byte after which a long line may be cut: a separator or `#`
/// (never inside a multi-byte character, whose bytes are all >= 0x80).
fn is_cut_byte(b: u8) -> bool {
    matches!(
        b,
        b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ' | b',' | b';' | b'[' | b']' | b'#'
    )
}

/// A piece of the text: a whole line, or part of a long one.
struct Piece<'a> {
    /// The text, without the line's `\n` (and a `\r` before it, as
    /// `str::lines` drops).
    text: &'a str,
    /// Whether the piece is the line from its start to its end.
    whole_line: bool,
    /// Whether the line ends with this piece.
    ends_line: bool,
}

/// A reader handing out pieces of lines from a bounded buffer.
struct Chunks<R> {
    file: R,
    buffer: Vec<u8>,
    /// buffer[start..end] is read and not yet handed out.
    start: usize,
    end: usize,
    at_eof: bool,
    /// Whether the next piece starts a line.
    at_line_start: bool,
}

impl<R: Read> Chunks<R> {
    fn new(file: R, chunk_bytes: usize) -> Self {
        Chunks {
            file,
            buffer: vec![0; chunk_bytes.max(1)],
            start: 0,
            end: 0,
            at_eof: false,
            at_line_start: true,
        }
    }

    /// The next piece, or `None` at the end of the file.
    fn next_piece(&mut self) -> std::io::Result<Option<Piece<'_>>> {
        loop {
            let pending = &self.buffer[self.start..self.end];
            if let Some(newline) = pending.iter().position(|&b| b == b'\n') {
                let (from, to) = (self.start, self.start + newline);
                self.start = to + 1;
                return self.piece(from, to, true);
            }
            if self.at_eof {
                if self.start == self.end {
                    return Ok(None);
                }
                let (from, to) = (self.start, self.end);
                self.start = self.end;
                return self.piece(from, to, true);
            }
            if self.start > 0 {
                self.buffer.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if self.end == self.buffer.len() {
                // A line longer than the buffer: hand out what ends at its
                // last cut byte; with none, make room for a longer token.
                match self.buffer.iter().rposition(|&b| is_cut_byte(b)) {
                    Some(cut) => {
                        self.start = cut + 1;
                        return self.piece(0, cut + 1, false);
                    }
                    None => {
                        let longer = self.buffer.len() * 2;
                        self.buffer.resize(longer, 0);
                    }
                }
            }
            let read = loop {
                match self.file.read(&mut self.buffer[self.end..]) {
                    Ok(read) => break read,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            };
            self.end += read;
            self.at_eof = read == 0;
        }
    }

    /// buffer[from..to] as a piece; `line_end` when a line ends there.
    fn piece(
        &mut self,
        from: usize,
        to: usize,
        line_end: bool,
    ) -> std::io::Result<Option<Piece<'_>>> {
        let mut bytes = &self.buffer[from..to];
        if line_end {
            bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        }
        let text = std::str::from_utf8(bytes).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            )
        })?;
        let whole_line = self.at_line_start && line_end;
        self.at_line_start = line_end;
        Ok(Some(Piece {
            text,
            whole_line,
            ends_line: line_end,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_with_suffixes_brackets_and_comments_is_read() {
        let values =
            read_text(Path::new("x"), "# run 1\n[45.52M, 44.88M]\n\n1.5K # note\n").unwrap();
        assert_eq!(values, vec![45.52e6, 44.88e6, 1500.0]);
    }

    /// A reader giving at most `step` bytes per read, as a pipe may.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    fn streamed(
        text: &str,
        detect_go: bool,
        chunk_bytes: usize,
        step: usize,
    ) -> std::result::Result<Option<Vec<f64>>, String> {
        let file = Trickle {
            bytes: text.as_bytes(),
            step,
        };
        stream_in_chunks(Path::new("s.txt"), file, detect_go, chunk_bytes).map_err(|e| match e {
            StreamError::Read(e) => format!("read: {e}"),
            StreamError::Numbers(e) => e.to_string(),
        })
    }

    fn piece() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::prop_oneof![
            proptest::prelude::Just("12.5".to_string()),
            proptest::prelude::Just("1.5K".to_string()),
            proptest::prelude::Just("-3e2".to_string()),
            proptest::prelude::Just("1_000".to_string()),
            proptest::prelude::Just(" ".to_string()),
            proptest::prelude::Just("\t".to_string()),
            proptest::prelude::Just(",".to_string()),
            proptest::prelude::Just("; ".to_string()),
            proptest::prelude::Just("[".to_string()),
            proptest::prelude::Just("]".to_string()),
            proptest::prelude::Just("\n".to_string()),
            proptest::prelude::Just("\r\n".to_string()),
            proptest::prelude::Just("# note 7 ".to_string()),
            proptest::prelude::Just("\u{2003}".to_string()),
            proptest::prelude::Just("é".to_string()),
            proptest::prelude::Just("fast".to_string()),
            proptest::prelude::Just("{".to_string()),
            proptest::prelude::Just("BenchmarkSort-8 100 95 ns/op".to_string()),
            proptest::prelude::Just("Benchmark".to_string()),
        ]
    }

    proptest::proptest! {
        #[test]
        fn streaming_reads_what_the_whole_text_gives(
            pieces in proptest::collection::vec(piece(), 0..40),
            chunk_bytes in proptest::sample::select(vec![1usize, 3, 8, 64, CHUNK_BYTES]),
            step in 1usize..20,
        ) {
            let text: String = pieces.concat();
            let whole = read_text(Path::new("s.txt"), &text).map_err(|e| e.to_string());
            // An object, or an array of objects (JMH's JSON).
            let start = text.trim_start();
            let json = start.starts_with('{')
                || start.strip_prefix('[').is_some_and(|r| r.trim_start().starts_with('{'));
            // Without detecting go output: the plain numbers, or JSON.
            let plain = streamed(&text, false, chunk_bytes, step);
            if json {
                proptest::prop_assert_eq!(plain, Ok(None));
            } else {
                proptest::prop_assert_eq!(plain, whole.clone().map(Some));
            }
            // Detecting go output: a result line anywhere makes it go output;
            // a line starting with a Benchmark name longer than the buffer may.
            let go = text.lines().any(|l| result_line(l).is_some());
            let maybe_go = text.lines().any(|l| {
                l.len() + 2 > chunk_bytes
                    && l.split_whitespace().next().is_some_and(|f| f.starts_with("Benchmark"))
            });
            match streamed(&text, true, chunk_bytes, step) {
                Ok(None) => proptest::prop_assert!(json || go || maybe_go, "{text:?}"),
                other => {
                    proptest::prop_assert!(!json && !go, "{text:?}");
                    proptest::prop_assert_eq!(other, whole.map(Some));
                }
            }
        }
    }

    #[test]
    fn plain_tokens_read_as_numbers_with_suffixes_read_them() {
        for token in [
            "12.5", "-0", "+5", ".5", "5.", "1E5", "-3e-2", "1e400", "-1e400", "e5", "1-2", "--1",
            "1.5.2", "", "00012", "1e", "-",
        ] {
            if let Some(value) = plain_number(token) {
                let reference = parse_si_number(token).unwrap();
                assert_eq!(value.to_bits(), reference.to_bits(), "{token}");
            } else {
                assert_eq!(
                    parse_si_number(token),
                    None,
                    "{token} is left to parse_si_number"
                );
            }
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_a_read_error_wherever_they_are() {
        let mut bytes = b"fast\n1\n".to_vec();
        bytes.extend_from_slice(&[0xff, b'\n']);
        let file = Trickle {
            bytes: &bytes,
            step: 3,
        };
        match stream_in_chunks(Path::new("s.txt"), file, true, 4) {
            Err(StreamError::Read(e)) => {
                assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
                assert_eq!(e.to_string(), "stream did not contain valid UTF-8");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_line_of_many_numbers_is_read_in_pieces() {
        let line: String = (0..50_000).map(|i| format!("{i}, ")).collect();
        let text = format!("{line}\n7\nfast\n");
        let err = streamed(&text, true, CHUNK_BYTES, 4096).unwrap_err();
        assert!(err.starts_with("s.txt:3:"), "{err}");
        let values = streamed(&text[..text.len() - 5], true, CHUNK_BYTES, 4096)
            .unwrap()
            .unwrap();
        assert_eq!(values.len(), 50_001);
        assert_eq!(values[49_999], 49_999.0);
    }

    #[test]
    fn an_array_of_objects_is_another_format_and_an_array_of_numbers_is_read() {
        for chunk in [1, 3, CHUNK_BYTES] {
            let jmh = streamed("[\n    {\n \"benchmark\": \"a\"}\n]\n", true, 4, chunk);
            assert_eq!(jmh.unwrap(), None, "chunk {chunk}");
            let numbers = streamed("[\n 1.5, 2]\n", true, 4, chunk);
            assert_eq!(numbers.unwrap(), Some(vec![1.5, 2.0]), "chunk {chunk}");
        }
    }

    #[test]
    fn a_word_in_the_file_is_reported_with_its_line() {
        let err = read_text(Path::new("s.txt"), "1\n2\nfast\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("s.txt:3:"), "{err}");
        assert!(err.contains("'fast'"), "{err}");
    }
}
