//! Where the runs' peak memory was read, said once per experiment beside
//! the peak memory figures: a memory cgroup's peak charge (the whole
//! process tree, page cache and kernel memory included) and rusage's
//! largest resident set are different figures, and a reader comparing
//! them must know which one a report shows.

use perflab_format::result::ResultDocument;
use perflab_format::vocabulary::PeakMemorySource;

/// The metric whose source this is.
pub const PEAK_MEMORY: &str = "peak-memory";

/// What a figure read from these sources is: one source's description,
/// or "partly ... and partly ..." when the runs differ.
pub fn describe_sources(sources: &[PeakMemorySource]) -> String {
    match sources {
        [one] => one.describe().to_string(),
        several => {
            let parts: Vec<&str> = several.iter().map(|s| s.describe()).collect();
            format!("partly {}", parts.join(" and partly "))
        }
    }
}

/// "peak memory: the process tree's peak cgroup memory charge (...)", for
/// runs with these sources (a run whose source is not known counts for
/// none); `None` when no run's source is known. Runs of both sources are
/// counted, since their figures do not compare.
pub fn source_line(sources: impl IntoIterator<Item = Option<PeakMemorySource>>) -> Option<String> {
    let mut counts = [0usize; 2];
    for source in sources.into_iter().flatten() {
        counts[index(source)] += 1;
    }
    let known: Vec<PeakMemorySource> = PeakMemorySource::ALL
        .iter()
        .copied()
        .filter(|s| counts[index(*s)] > 0)
        .collect();
    match known.as_slice() {
        [] => None,
        [one] => Some(format!("peak memory: {}", one.describe())),
        several => {
            let parts: Vec<String> = several
                .iter()
                .map(|s| format!("{} of the runs from {}", counts[index(*s)], s.describe()))
                .collect();
            Some(format!(
                "peak memory: {}; the two are different figures, which do not compare",
                parts.join(", ")
            ))
        }
    }
}

fn index(source: PeakMemorySource) -> usize {
    match source {
        PeakMemorySource::Cgroup => 0,
        PeakMemorySource::Rusage => 1,
    }
}

/// The line of a result document whose decision or a guard is about peak
/// memory, from its variants' runs; `None` for other metrics, and for
/// documents whose runs do not say (older ones, imported samples).
pub fn document_line(doc: &ResultDocument) -> Option<String> {
    let about_memory =
        doc.metric.name == PEAK_MEMORY || doc.guards.iter().any(|g| g.metric == PEAK_MEMORY);
    if !about_memory {
        return None;
    }
    source_line(
        doc.variants
            .iter()
            .flat_map(|v| &v.run_details)
            .map(|r| r.peak_memory_source),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_one_source_are_described_once() {
        let line = source_line([Some(PeakMemorySource::Cgroup), None]).unwrap();
        assert!(
            line.starts_with("peak memory: the process tree's peak cgroup memory charge"),
            "{line}"
        );
        let line = source_line([Some(PeakMemorySource::Rusage)]).unwrap();
        assert_eq!(
            line,
            "peak memory: the largest process's maximum resident set (rusage)"
        );
        assert_eq!(source_line([None, None]), None);
    }

    #[test]
    fn runs_of_both_sources_are_counted_and_said_not_to_compare() {
        let line = source_line([
            Some(PeakMemorySource::Rusage),
            Some(PeakMemorySource::Cgroup),
            Some(PeakMemorySource::Rusage),
        ])
        .unwrap();
        assert!(
            line.contains("1 of the runs from the process tree's"),
            "{line}"
        );
        assert!(
            line.contains("2 of the runs from the largest process's"),
            "{line}"
        );
        assert!(line.ends_with("do not compare"), "{line}");
    }

    #[test]
    fn sources_of_a_side_are_described_as_one_or_as_parts() {
        let both = describe_sources(PeakMemorySource::ALL);
        assert!(both.starts_with("partly the process tree's"), "{both}");
        assert!(both.contains(" and partly the largest process's"), "{both}");
        assert_eq!(
            describe_sources(&[PeakMemorySource::Rusage]),
            PeakMemorySource::Rusage.describe()
        );
    }
}
