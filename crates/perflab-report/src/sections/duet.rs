//! The duet mode's setup and overlap, in one line, for every format.

use perflab_format::duet::DuetDoc;

/// "Duet: A and B started together, each on a CPU of its own (1 and 0,
/// swapped every block); they ran together for a median 98% of the longer
/// run (lowest 91%) over 20 pairs."
pub(crate) fn duet_line(d: &DuetDoc) -> String {
    format!(
        "Duet: A and B started together, each on a CPU of its own ({} and {}, swapped every \
         block); they ran together for a median {:.0}% of the longer run (lowest {:.0}%) over {} \
         pair{}.",
        d.cpus[0],
        d.cpus[1],
        d.median_overlap * 100.0,
        d.min_overlap * 100.0,
        d.pairs.len(),
        if d.pairs.len() == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use perflab_format::duet::DuetPairDoc;

    #[test]
    fn the_line_gives_the_cpus_and_the_median_and_lowest_overlap() {
        let d = DuetDoc {
            cpus: [1, 0],
            median_overlap: 0.984,
            min_overlap: 0.91,
            pairs: vec![DuetPairDoc::new(1, [0.0, 1.0], [0.0, 1.0]); 20],
        };
        assert_eq!(
            duet_line(&d),
            "Duet: A and B started together, each on a CPU of its own (1 and 0, swapped every \
             block); they ran together for a median 98% of the longer run (lowest 91%) over 20 pairs."
        );
    }
}
