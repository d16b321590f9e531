//! Folded stacks: one line per distinct stack, `root;caller;callee COUNT`,
//! the format flame graph tools read. The root frame is the process name.

use std::collections::BTreeMap;
use std::io::BufRead;

use inferno::collapse::Collapse;
use inferno::collapse::perf::{Folder, Options};

/// Distinct stacks and how many samples each got.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FoldedStacks {
    stacks: BTreeMap<String, u64>,
}

impl FoldedStacks {
    /// Folds the text of `perf script` (with the `comm`, `event`, `ip`, `sym`
    /// and `dso` fields; without `period`, so that every sample counts once).
    /// Kernel functions get a `_[k]` suffix.
    pub fn from_perf_script(script: impl BufRead) -> std::io::Result<Self> {
        Self::fold(script, None)
    }

    /// As [`FoldedStacks::from_perf_script`], for the samples of `event`
    /// only (as perf names it), each weighted by its period when the text
    /// has one.
    pub fn from_perf_script_event(script: impl BufRead, event: &str) -> std::io::Result<Self> {
        Self::fold(script, Some(event))
    }

    /// Without an event, inferno folds the samples of the first event it meets.
    fn fold(script: impl BufRead, event: Option<&str>) -> std::io::Result<Self> {
        let mut options = Options::default();
        options.annotate_kernel = true;
        options.nthreads = 1;
        options.event_filter = event.map(str::to_string);
        let mut folded = Vec::new();
        // inferno asserts on some malformed input (stack lines without a
        // sample header; a symbol ending in a multi-byte character) instead of
        // returning an error; such output is refused here like any other.
        let collapsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            Folder::from(options).collapse(script, &mut folded)
        }));
        match collapsed {
            Ok(result) => result?,
            Err(panic) => {
                let why = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("the folding stopped on malformed input ({why})"),
                ));
            }
        }
        Self::parse(&String::from_utf8_lossy(&folded))
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }

    /// Parses folded text; the message of an error names the line.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut stacks = BTreeMap::new();
        let mut total = 0u64;
        for (number, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let parsed = line
                .rsplit_once(' ')
                .and_then(|(stack, count)| Some((stack, count.trim().parse::<u64>().ok()?)));
            let Some((stack, count)) = parsed else {
                return Err(format!(
                    "line {}: '{line}' is not 'frame;frame;... COUNT'",
                    number + 1
                ));
            };
            // Checked once here, so that totals and sums per stack cannot overflow later.
            total = total.checked_add(count).ok_or_else(|| {
                format!(
                    "line {}: the counts add up to more than {}; these are not sample counts",
                    number + 1,
                    u64::MAX
                )
            })?;
            *stacks.entry(stack.to_string()).or_insert(0) += count;
        }
        Ok(Self { stacks })
    }

    /// The folded text, one stack per line, sorted.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        for (stack, count) in &self.stacks {
            text.push_str(stack);
            text.push(' ');
            text.push_str(&count.to_string());
            text.push('\n');
        }
        text
    }

    /// All samples.
    pub fn total(&self) -> u64 {
        self.stacks.values().sum()
    }

    /// True when no sample was taken.
    pub fn is_empty(&self) -> bool {
        self.stacks.is_empty()
    }

    /// Each stack as its frames, outermost (the process name) first, with its count.
    pub fn stacks(&self) -> impl Iterator<Item = (Vec<&str>, u64)> {
        self.stacks
            .iter()
            .map(|(stack, count)| (stack.split(';').collect(), *count))
    }

    /// The folded lines, for the flame graph writer.
    pub fn lines(&self) -> Vec<String> {
        self.to_text().lines().map(str::to_string).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = "\
two 17725/17725  1076.700527: cpu-clock: 
\t            116f heavy (/tmp/two)
\t            11b6 main (/tmp/two)
\t           2724a __libc_start_call_main (/usr/lib/libc.so.6)

two 17725/17725  1076.701497: cpu-clock: 
\t            116f heavy (/tmp/two)
\t            11b6 main (/tmp/two)
\t           2724a __libc_start_call_main (/usr/lib/libc.so.6)

two 17725/17725  1076.702497: cpu-clock: 
\tffffffff815ec647 handle_mm_fault ([kernel.kallsyms])
\t            11c0 [unknown] (/tmp/two)

";

    #[test]
    fn perf_script_output_folds_into_one_line_per_distinct_stack() {
        let folded = FoldedStacks::from_perf_script(SCRIPT.as_bytes()).unwrap();
        assert_eq!(
            folded.to_text(),
            "two;[two];handle_mm_fault_[k] 1\ntwo;__libc_start_call_main;main;heavy 2\n"
        );
        assert_eq!(folded.total(), 3);
    }

    #[test]
    fn folded_text_round_trips_and_adds_repeated_stacks() {
        let folded = FoldedStacks::parse("a;b 2\na;c 1\na;b 3\n").unwrap();
        assert_eq!(folded.to_text(), "a;b 5\na;c 1\n");
        assert_eq!(FoldedStacks::parse(&folded.to_text()).unwrap(), folded);
    }

    #[test]
    fn a_line_without_a_count_is_refused_with_its_number() {
        let err = FoldedStacks::parse("a;b 2\na;b\n").unwrap_err();
        assert!(err.starts_with("line 2:"), "{err}");
    }
}
