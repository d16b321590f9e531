//! The compile errors of `#[perflab::measure]` and `#[perflab::main]`, one
//! file per mistake in `tests/ui`, each with the message it must give.
//! `TRYBUILD=overwrite cargo test -p perflab --test macro_errors` rewrites
//! the expected `.stderr` files after a deliberate change of wording.

#[test]
fn each_misuse_of_the_attributes_fails_to_compile_with_its_message() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
