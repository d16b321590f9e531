//! The public API is the same with probes on and off. `api/every_public_item.rs`
//! uses every public item and is compiled here (probes on) and by
//! `tests/feature-off` (probes off); the tests below check that the two
//! implementations declare the same public methods, and that every one of
//! them is used in that file, so that a method added to one build only, or
//! left out of the file, fails a test.

use std::collections::BTreeSet;
use std::path::Path;

#[path = "api/every_public_item.rs"]
mod every_public_item;

#[test]
fn every_public_item_is_usable_and_a_profile_comes_out_only_with_probes_on() {
    assert_eq!(every_public_item::use_every_public_item(), perflab::ENABLED);
}

/// `Type::method` for every `pub fn` inside an inherent `impl Type` block
/// of the Rust files under `dir`, and `Type` for every `pub struct` and
/// `pub trait`, outside the macros' support module.
fn public_methods(dir: &Path) -> BTreeSet<String> {
    let mut items = BTreeSet::new();
    for entry in std::fs::read_dir(dir).expect("the implementation folder is readable") {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|extension| extension != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let mut impl_type: Option<String> = None;
        for line in text.lines() {
            if line.starts_with("pub mod macro_support") {
                break;
            }
            if let Some(rest) = line.strip_prefix("impl") {
                // `impl Type {` or `impl<T> Type<T> {`; trait impls (`for`) have no `pub fn`.
                let rest = rest.trim_start_matches(|c| c != ' ').trim();
                impl_type = (!rest.contains(" for "))
                    .then(|| rest.split(['<', ' ', '{']).next().unwrap().to_string());
            } else if line.starts_with('}') {
                impl_type = None;
            } else if let Some(rest) = line.trim_start().strip_prefix("pub fn ") {
                if let Some(type_name) = &impl_type {
                    let method = rest.split(['(', '<']).next().unwrap();
                    items.insert(format!("{type_name}::{method}"));
                }
            } else if let Some(rest) = line
                .strip_prefix("pub struct ")
                .or_else(|| line.strip_prefix("pub trait "))
            {
                items.insert(rest.split([' ', '<', '{', ';']).next().unwrap().to_string());
            }
        }
    }
    items
}

fn source(folder: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(folder)
}

/// The public types of the implementations: what `lib.rs` re-exports from them.
const PUBLIC_TYPES: [&str; 10] = [
    "Session",
    "SessionBuilder",
    "SessionHandle",
    "AttachGuard",
    "SpanGuard",
    "CountAmount",
    "GaugeValue",
    "RegisteredSite",
    "SpanLife",
    "Entry",
];

fn public_api(folder: &str) -> BTreeSet<String> {
    public_methods(&source(folder))
        .into_iter()
        .filter(|item| PUBLIC_TYPES.contains(&item.split("::").next().unwrap()))
        .collect()
}

#[test]
fn the_implementation_without_probes_has_the_same_public_methods_as_the_recording_one() {
    let enabled = public_api("enabled");
    let disabled = public_api("disabled");
    assert!(enabled.contains("SessionBuilder::name"), "{enabled:?}");
    assert_eq!(
        enabled, disabled,
        "src/enabled and src/disabled must declare the same public types and methods"
    );
}

/// Whether `name` occurs in `text` as a whole identifier.
fn contains_word(text: &str, name: &str) -> bool {
    let is_identifier = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(start, _)| {
        let before = text[..start].chars().next_back();
        let after = text[start + name.len()..].chars().next();
        !before.is_some_and(is_identifier) && !after.is_some_and(is_identifier)
    })
}

#[test]
fn every_public_type_and_method_is_used_in_the_api_file() {
    let api = include_str!("api/every_public_item.rs");
    let mut items = public_api("enabled");
    items.extend(public_methods(&source("sync")));
    let unused: Vec<&String> = items
        .iter()
        .filter(|item| !contains_word(api, item.rsplit("::").next().unwrap()))
        .collect();
    assert!(
        unused.is_empty(),
        "public items not used in tests/api/every_public_item.rs: {unused:?}"
    );
}
