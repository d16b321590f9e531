//! perf output: `perf script` text folded into stacks, and folded text as
//! stored (`frame;frame;... COUNT`).

use perflab_cli::profilers::CallGraph;
use perflab_report::sampling::FoldedStacks;
use proptest::prelude::*;

use crate::near_miss::{CASES, near_miss, near_miss_bytes, odd_value};

const SCRIPT: &str = "\
two 17725/17725  1076.700527: cpu-clock: 
\t            116f heavy (/tmp/two)
\t            11b6 main (/tmp/two)
\t           2724a __libc_start_call_main (/usr/lib/libc.so.6)

two 17725/17725  1076.701497: cpu-clock: 
\t            116f heavy (/tmp/two)
\t            11b6 main (/tmp/two)

two 17725/17725  1076.702497: cpu-clock: 
\tffffffff815ec647 handle_mm_fault ([kernel.kallsyms])
\t            11c0 [unknown] (/tmp/two)

";

const FOLDED: &str = "two;main;heavy 2\ntwo;[two];handle_mm_fault_[k] 1\ntwo;main 40\n";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn perf_script_output_of_any_bytes_folds_or_is_refused(bytes in near_miss_bytes(SCRIPT.to_string())) {
        if let Ok(folded) = FoldedStacks::from_perf_script(bytes.as_slice()) {
            prop_assert_eq!(FoldedStacks::parse(&folded.to_text()), Ok(folded.clone()));
            prop_assert_eq!(folded.stacks().map(|(_, n)| n).sum::<u64>(), folded.total());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES * 4))]

    #[test]
    fn a_call_graph_is_fp_or_dwarf_or_refused_naming_the_flag(text in odd_value()) {
        match CallGraph::parse(&text) {
            Ok(graph) => prop_assert!(["fp", "frame-pointers", "dwarf"].contains(&text.as_str()), "{graph:?}"),
            Err(e) => prop_assert!(e.to_string().starts_with("--call-graph: "), "{e}"),
        }
    }

    #[test]
    fn folded_text_round_trips_or_is_refused_with_its_line(
        text in prop_oneof![near_miss(FOLDED.to_string()), any::<String>()],
    ) {
        match FoldedStacks::parse(&text) {
            Ok(folded) => {
                prop_assert_eq!(FoldedStacks::parse(&folded.to_text()), Ok(folded.clone()));
                let _ = folded.total();
            }
            Err(message) => {
                let lines = text.lines().count();
                let line: usize = message
                    .strip_prefix("line ")
                    .and_then(|rest| rest.split_once(':'))
                    .and_then(|(n, _)| n.parse().ok())
                    .unwrap_or_else(|| panic!("no line number in: {message}"));
                prop_assert!(line >= 1 && line <= lines, "{message}");
            }
        }
    }
}

#[test]
fn counts_that_add_up_beyond_64_bits_are_refused_with_their_line() {
    let message = FoldedStacks::parse("a;b 18446744073709551615\na;c 1\n").unwrap_err();
    assert!(message.starts_with("line 2:"), "{message}");
    let message = FoldedStacks::parse("a;b 18446744073709551615\na;b 1\n").unwrap_err();
    assert!(message.starts_with("line 2:"), "{message}");
}

#[test]
fn stack_lines_under_an_unreadable_sample_header_are_refused() {
    let script = b"two \xff17725/17725  1076.700527: cpu-clock: \n\t 116f heavy (/tmp/two)\n\n";
    let error = FoldedStacks::from_perf_script(&script[..]).unwrap_err();
    assert!(error.to_string().contains("malformed"), "{error}");
}

#[test]
fn a_symbol_ending_in_multibyte_characters_is_folded_or_refused() {
    let script = format!(
        "{}\t 116f {} (/tmp/two)\n\n",
        SCRIPT.lines().next().unwrap(),
        "é".repeat(9)
    );
    let _ = FoldedStacks::from_perf_script(script.as_bytes());
}
