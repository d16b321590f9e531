//! Reading samples that already exist, for `perflab compare` and `perflab
//! import`: plain numbers, a perflab JSON result, a hyperfine export, and
//! the results of the benchmark harnesses people already use (criterion,
//! Google Benchmark, pytest-benchmark, `go test -bench`, JMH, mitata,
//! tinybench).
//!
//! Each format is one module behind the [`Importer`] trait; the format is
//! detected from the content (a folder, the keys of a JSON object, the lines
//! of a text), or forced with `--format`. Every reader gives the same
//! [`Imported`]: named benchmarks with samples per metric. Times are in
//! seconds per iteration under the metric `wall` (and `cpu` where the
//! harness measures it), so that one name means one thing across harnesses.

mod criterion;
mod format;
mod go_bench;
mod google_benchmark;
mod hyperfine;
mod imported;
mod jmh;
mod mitata;
mod perflab_json;
mod pytest_benchmark;
mod text;
mod tinybench;

use std::path::{Path, PathBuf};

pub use format::Format;
pub use imported::{Benchmark, Imported, Series};

use crate::error::{Error, Result};
use perflab_format::contention::CpuWaitDoc;
use perflab_format::vocabulary::PeakMemorySource;

/// One input as given on the command line, read once.
#[derive(Debug, Clone)]
pub struct Input {
    /// The file or folder.
    pub path: PathBuf,
    /// What followed `#`: a benchmark (or a criterion baseline).
    pub selector: Option<String>,
    /// The file's text (`None` for a folder).
    pub text: Option<String>,
    /// The text parsed as JSON, when it is JSON.
    pub json: Option<serde_json::Value>,
}

/// A reader of one format.
pub trait Importer: Sync {
    /// The format it reads.
    fn format(&self) -> Format;
    /// Whether the input looks like this format (detection from content).
    fn recognises(&self, input: &Input) -> bool;
    /// Reads the input, or says what was found instead and what to do.
    fn read(&self, input: &Input) -> Result<Imported>;
}

/// An input read, with the benchmark its `#SELECTOR` picked.
#[derive(Debug, Clone)]
pub struct Source {
    /// What the input holds.
    pub imported: Imported,
    /// The benchmark picked with `#SELECTOR`.
    pub pick: Option<usize>,
}

impl Source {
    /// Whether this input stands for many benchmarks compared by name,
    /// rather than one series.
    pub fn is_family(&self) -> bool {
        let i = &self.imported;
        !i.alternatives && self.pick.is_none() && i.benchmarks.len() > 1
    }

    /// What the input holds, down to the benchmark picked if one was.
    pub fn narrowed(mut self) -> Imported {
        if let Some(index) = self.pick {
            let picked = self.imported.benchmarks.swap_remove(index);
            self.imported.benchmarks = vec![picked];
        }
        self.imported
    }
}

/// Splits `PATH#SELECTOR`, unless the whole text names an existing file.
fn split_selector(input: &str) -> (PathBuf, Option<&str>) {
    if Path::new(input).exists() {
        return (PathBuf::from(input), None);
    }
    match input.rsplit_once('#') {
        Some((path, selector)) => (PathBuf::from(path), Some(selector)),
        None => (PathBuf::from(input), None),
    }
}

/// Reads `PATH[#SELECTOR]` in the `forced` format, or the one detected.
///
/// A file of plain numbers is streamed (bounded memory beyond its values);
/// any other file is read whole and detected from its content.
pub fn read_source(input: &str, forced: Option<Format>) -> Result<Source> {
    let (path, selector) = split_selector(input);
    let selector = selector.map(str::to_string);
    if !path.is_dir() && matches!(forced, None | Some(Format::Text)) {
        refuse_too_large(&path)?;
        let file = std::fs::File::open(&path).map_err(|e| unreadable(&path, &e))?;
        match text::stream_plain_numbers(&path, file, forced.is_none()) {
            Ok(Some(values)) => {
                let imported = text::plain_numbers(&path, values);
                return checked_source(&path, selector.as_deref(), Format::Text, imported);
            }
            // Another format: read whole, as below.
            Ok(None) => {}
            Err(text::StreamError::Read(e)) => return Err(unreadable(&path, &e)),
            Err(text::StreamError::Numbers(e)) => return Err(e),
        }
    }
    let text = if path.is_dir() {
        None
    } else {
        refuse_too_large(&path)?;
        Some(std::fs::read_to_string(&path).map_err(|e| unreadable(&path, &e))?)
    };
    let json = match &text {
        // JMH writes an array of objects.
        Some(t) if t.trim_start().starts_with(['{', '[']) => Some(
            serde_json::from_str(t)
                .map_err(|e| Error::input(&path, format!("is not valid JSON: {e}")))?,
        ),
        _ => None,
    };
    let input = Input {
        path,
        selector,
        text,
        json,
    };
    let importer = match forced {
        Some(format) => format.importer(),
        None => detect(&input)?,
    };
    let imported = importer.read(&input)?;
    checked_source(
        &input.path,
        input.selector.as_deref(),
        importer.format(),
        imported,
    )
}

/// The error for a samples file that cannot be read.
fn unreadable(path: &Path, e: &std::io::Error) -> Error {
    let hint = if e.kind() == std::io::ErrorKind::InvalidData {
        "give a text file of numbers, a JSON result or a benchmark harness's output"
    } else {
        "check the path"
    };
    Error::input(path, format!("cannot read the samples: {e}; {hint}"))
}

/// What an input of `format` holds, once every value is possible, with the
/// benchmark its `#SELECTOR` picks.
fn checked_source(
    path: &Path,
    selector: Option<&str>,
    format: Format,
    imported: Imported,
) -> Result<Source> {
    for b in &imported.benchmarks {
        for (metric, series) in &b.metrics {
            if let Some(problem) = series.values.iter().find_map(|&v| impossible(v, series)) {
                return Err(Error::input(
                    path,
                    format!("benchmark '{}' has a {metric} of {problem}", b.name),
                ));
            }
        }
    }
    let pick = match (selector, format) {
        // A criterion selector names the baseline, already read.
        (_, Format::Criterion) | (None, _) => None,
        (Some(_), Format::Text) => {
            return Err(Error::input(
                path,
                "a #SELECTOR only applies to JSON results and benchmark outputs; remove it for a text file",
            ));
        }
        (Some(s), _) => Some(imported.select(s)?),
    };
    Ok(Source { imported, pick })
}

fn detect(input: &Input) -> Result<&'static dyn Importer> {
    if let Some(found) = Format::ALL
        .iter()
        .map(|f| f.importer())
        .find(|i| i.recognises(input))
    {
        return Ok(found);
    }
    let what = if input.text.is_none() {
        "is a folder without criterion's results (no sample.json below it); give a criterion \
         folder (target/criterion, a group or a benchmark) or a file"
    } else {
        "is JSON but none of the formats perflab reads: a perflab result (\"format\"), a hyperfine \
         export (\"results\"), Google Benchmark (\"context\" and \"benchmarks\"), pytest-benchmark \
         (\"machine_info\" and \"benchmarks\"), criterion's sample.json (\"iters\" and \"times\"), \
         JMH (an array of runs with \"primaryMetric\"), mitata (\"layout\" and \"benchmarks\") or \
         tinybench's tasks (\"tasks\" with their \"result\"); if it is one of these, force it with --format to see what is missing"
    };
    Err(Error::input(&input.path, what))
}

/// The largest input file read: 1 GiB, about 100 million values as text.
/// A file is read whole and its values kept, so a larger one would take
/// more memory than a comparison should; it is refused before reading.
const LARGEST_INPUT_BYTES: u64 = 1 << 30;

/// Refuses a file larger than [`LARGEST_INPUT_BYTES`], with what to do.
fn refuse_too_large(path: &Path) -> Result<()> {
    let Ok(meta) = std::fs::metadata(path) else {
        // Not there, or unreadable: reading it says which.
        return Ok(());
    };
    if meta.len() > LARGEST_INPUT_BYTES {
        return Err(Error::input(
            path,
            format!(
                "is {:.1} GiB; perflab reads samples files of up to 1 GiB (about 100 million \
                 values): compare a sample of the runs, for example every tenth line \
                 (awk 'NR % 10 == 0')",
                meta.len() as f64 / (1u64 << 30) as f64
            ),
        ));
    }
    Ok(())
}

/// The longest time a sample may take: a year. A longer one is a unit
/// mistaken (nanoseconds read as seconds) or a damaged file, not a
/// benchmark, and would only print as a number of hundreds of digits.
const LONGEST_SAMPLE_S: f64 = 365.0 * 24.0 * 3600.0;

/// What makes `value` of `series` impossible, or `None`: every value must
/// be finite; times (unit `s`) must lie between 0 and a year, and byte
/// and allocation counts per operation must not be negative.
fn impossible(value: f64, series: &imported::Series) -> Option<String> {
    if !value.is_finite() {
        return Some(format!("{value}, which is not a finite number"));
    }
    let unit = series.unit.as_str();
    if value < 0.0 && matches!(unit, "s" | "B/op" | "allocs/op") {
        return Some(format!(
            "{value} {unit}, which cannot be negative; check that the file is the harness's own output"
        ));
    }
    if unit == "s" && value > LONGEST_SAMPLE_S {
        return Some(format!(
            "{value:e} s, more than a year per sample; check the file's time unit"
        ));
    }
    None
}

/// Samples read from one input.
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    /// A name for tables: the selected variant or command, or the file name.
    pub name: String,
    /// The values.
    pub values: Vec<f64>,
    /// Their unit, if the source says.
    pub unit: String,
    /// The metric they are of, if the source says (`wall` for hyperfine).
    pub metric: Option<String>,
    /// How long the runs they come from waited for a CPU, if the source
    /// says (a perflab result's variant).
    pub cpu_wait: Option<CpuWaitDoc>,
    /// Where the runs they come from read their peak memory, each source
    /// once; empty where the source does not say.
    pub peak_memory_sources: Vec<PeakMemorySource>,
}

/// Reads one series from `PATH[#SELECTOR]`; `metric` picks a metric.
pub fn read_samples(input: &str, metric: Option<&str>) -> Result<Samples> {
    one_series(&read_source(input, None)?, metric)
}

/// The one series a source stands for: the benchmark picked, or its only one.
pub fn one_series(source: &Source, measure: Option<&str>) -> Result<Samples> {
    let (index, metric) = locate_one_series(source, measure)?;
    let imported = &source.imported;
    let series = imported.series(index, metric.as_deref())?;
    Ok(Samples {
        name: imported.benchmarks[index].name.clone(),
        values: series.values.clone(),
        unit: series.unit.clone(),
        metric,
        cpu_wait: imported.benchmarks[index].cpu_wait.clone(),
        peak_memory_sources: imported.benchmarks[index].peak_memory_sources.clone(),
    })
}

/// [`one_series`], the values moved out of the source rather than copied
/// (a large sample is then held once); the source keeps everything else,
/// its machine description included.
pub fn take_one_series(source: &mut Source, measure: Option<&str>) -> Result<Samples> {
    let (index, metric) = locate_one_series(source, measure)?;
    let benchmark = &mut source.imported.benchmarks[index];
    let name = benchmark.name.clone();
    let cpu_wait = benchmark.cpu_wait.clone();
    let peak_memory_sources = benchmark.peak_memory_sources.clone();
    let series = benchmark
        .metrics
        .get_mut(metric.as_deref().unwrap_or("value"))
        .expect("located above");
    Ok(Samples {
        name,
        values: std::mem::take(&mut series.values),
        unit: series.unit.clone(),
        metric,
        cpu_wait,
        peak_memory_sources,
    })
}

/// The benchmark and metric of the one series a source stands for, once
/// the series is known to exist and to hold enough values.
fn locate_one_series(source: &Source, measure: Option<&str>) -> Result<(usize, Option<String>)> {
    let imported = &source.imported;
    let path = &imported.path;
    let index = match (source.pick, imported.benchmarks.len()) {
        (Some(i), _) => i,
        (None, 1) => 0,
        (None, 0) => {
            return Err(Error::input(
                path,
                format!(
                    "holds no samples: it is {} without any benchmark",
                    imported.format.describe()
                ),
            ));
        }
        (None, n) => {
            return Err(Error::input(
                path,
                format!(
                    "holds {n} series ({}); pick one with {}#NAME or {}#INDEX",
                    imported.listing(),
                    path.display(),
                    path.display()
                ),
            ));
        }
    };
    let metric = imported.metric(measure);
    let series = imported.series(index, metric)?;
    check_count(path, &series.values)?;
    Ok((index, metric.map(str::to_string)))
}

/// Refuses fewer than 2 values: no noise can be estimated from them.
pub fn check_count(path: &Path, values: &[f64]) -> Result<()> {
    if values.len() < 2 {
        return Err(Error::input(
            path,
            format!(
                "holds {} value(s); at least 2 are needed to estimate the noise, and 10 or more to decide well",
                values.len()
            ),
        ));
    }
    Ok(())
}

/// The file's name without its extension, for a name in tables.
pub fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// A number in a JSON object, or an error naming the field.
fn number(path: &Path, value: &serde_json::Value, field: &str, what: &str) -> Result<f64> {
    value
        .get(field)
        .and_then(serde_json::Value::as_f64)
        .ok_or_else(|| Error::input(path, format!("{what} has no number \"{field}\"")))
}

/// What a JavaScript harness recorded of a benchmark that threw: the
/// error's `message`, or the whole error as JSON when it has none.
pub(crate) fn error_message(error: &serde_json::Value) -> String {
    error
        .get("message")
        .and_then(|m| m.as_str())
        .map(str::to_string)
        .unwrap_or_else(|| error.to_string())
}
