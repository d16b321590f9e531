//! Flame graph SVGs (inferno): one profile, or the difference of two, where
//! red frames grew and blue frames shrank from the baseline to the candidate.

use std::path::Path;

use inferno::flamegraph::{self, Options};

use super::folded::FoldedStacks;
use crate::{Error, Result};

/// Writes the flame graph of `folded` to `path`.
pub fn write_flamegraph(
    folded: &FoldedStacks,
    title: &str,
    subtitle: &str,
    path: &Path,
) -> Result<()> {
    let svg =
        flamegraph_svg(folded, &mut options(title, subtitle)).map_err(|e| svg_error(path, e))?;
    write(path, &svg)
}

/// Writes the differential flame graph of `baseline` to `candidate` (see
/// [`differential_svg`]) to `path`.
pub fn write_differential(
    baseline: &FoldedStacks,
    candidate: &FoldedStacks,
    title: &str,
    subtitle: &str,
    path: &Path,
) -> Result<()> {
    let svg = differential_svg(baseline, candidate, &mut options(title, subtitle))
        .map_err(|e| svg_error(path, e))?;
    write(path, &svg)
}

/// The flame graph SVG of `folded`, as inferno draws it with `options`.
pub(crate) fn flamegraph_svg(
    folded: &FoldedStacks,
    options: &mut Options<'_>,
) -> std::io::Result<Vec<u8>> {
    let lines = folded.lines();
    let mut svg = Vec::new();
    flamegraph::from_lines(options, lines.iter().map(String::as_str), &mut svg)?;
    Ok(svg)
}

/// The differential flame graph SVG of `baseline` to `candidate`: frames
/// sized by the candidate, coloured by how their self samples changed, the
/// baseline scaled to the candidate's total first (shares, not counts).
pub fn differential_svg(
    baseline: &FoldedStacks,
    candidate: &FoldedStacks,
    options: &mut Options<'_>,
) -> std::io::Result<Vec<u8>> {
    let mut both = Vec::new();
    let diff_options = inferno::differential::Options {
        normalize: true,
        ..Default::default()
    };
    inferno::differential::from_readers(
        diff_options,
        baseline.to_text().as_bytes(),
        candidate.to_text().as_bytes(),
        &mut both,
    )?;
    let text = String::from_utf8_lossy(&both);
    let mut svg = Vec::new();
    flamegraph::from_lines(options, text.lines(), &mut svg)?;
    Ok(svg)
}

/// The options of every perflab flame graph: titled, counting samples, and
/// the same picture for the same input.
pub fn options(title: &str, subtitle: &str) -> Options<'static> {
    let mut options = Options::default();
    options.title = title.to_string();
    options.subtitle = Some(subtitle.to_string());
    options.count_name = "samples".into();
    // Same input, same picture: colours from the names, not at random.
    options.hash = true;
    options.deterministic = true;
    options
}

fn svg_error(path: &Path, e: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

fn write(path: &Path, svg: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    std::fs::write(path, svg).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flame_graph_names_its_functions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.svg");
        let folded = FoldedStacks::parse("p;main;heavy 3\np;main;light 1\n").unwrap();
        write_flamegraph(&folded, "t", "s", &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<?xml"), "{}", &svg[..40]);
        assert!(svg.contains("heavy") && svg.contains("light"));
    }

    #[test]
    fn a_differential_flame_graph_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.svg");
        let a = FoldedStacks::parse("p;main;heavy 3\np;main;light 1\n").unwrap();
        let b = FoldedStacks::parse("p;main;heavy 1\np;main;light 1\n").unwrap();
        write_differential(&a, &b, "t", "s", &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.contains("heavy"));
    }
}
