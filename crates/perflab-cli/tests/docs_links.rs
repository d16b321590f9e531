//! Every relative link of the documentation resolves: README.md, every page
//! under docs/ and examples/, and the crates' READMEs. A link names a file or
//! folder that exists, and a `#anchor` names a heading of the page it points
//! to, by GitHub's rules.

mod common;

use std::path::{Path, PathBuf};

use common::Scratch;
use common::markdown::{anchors, github_slug, links, markdown_below, read, repository};

/// The pages whose links are checked.
fn documentation(root: &Path) -> Vec<PathBuf> {
    let mut pages = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    for folder in ["docs", "examples", "crates", "python"] {
        pages.extend(markdown_below(&root.join(folder)));
    }
    pages
}

/// Why a link of `page` does not resolve, or `None` when it does. Links
/// with a scheme (`https:`, `mailto:`) are not the repository's and are
/// left alone.
fn broken(root: &Path, page: &Path, destination: &str) -> Option<String> {
    if destination.contains("://") || destination.starts_with("mailto:") {
        return None;
    }
    let (path, anchor) = match destination.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor)),
        None => (destination, None),
    };
    let path = path.replace("%20", " ");
    let target = if path.is_empty() {
        page.to_path_buf()
    } else if let Some(from_top) = path.strip_prefix('/') {
        root.join(from_top)
    } else {
        page.parent().expect("a page's folder").join(&path)
    };
    if !target.exists() {
        return Some(format!("{} does not exist", target.display()));
    }
    let anchor = anchor?;
    if target.extension().is_none_or(|e| e != "md") {
        // Anchors of source files (#L10) and folders are GitHub's views, not headings.
        return None;
    }
    let headings = anchors(&read(&target));
    if headings.contains(anchor) {
        None
    } else {
        let mut known: Vec<_> = headings.into_iter().collect();
        known.sort();
        Some(format!(
            "{} has no heading with the anchor #{anchor}; its anchors: {}",
            target.display(),
            known.join(", ")
        ))
    }
}

/// Every broken link of the pages, one line each: page, line, link, why.
fn broken_links(root: &Path, pages: &[PathBuf]) -> Vec<String> {
    let mut found = Vec::new();
    for page in pages {
        for link in links(&read(page)) {
            if let Some(why) = broken(root, page, &link.destination) {
                found.push(format!(
                    "{}:{}: ({}) {why}",
                    page.strip_prefix(root).unwrap_or(page).display(),
                    link.line,
                    link.destination
                ));
            }
        }
    }
    found
}

#[test]
fn every_relative_link_of_the_documentation_resolves() {
    let root = repository();
    let pages = documentation(&root);
    assert!(
        pages.iter().any(|p| p.ends_with("docs/guide/README.md")),
        "the guide's index is among the pages checked"
    );
    let linked: usize = pages.iter().map(|p| links(&read(p)).len()).sum();
    assert!(
        linked > 100,
        "only {linked} links found: is the parser reading the pages?"
    );
    let broken = broken_links(&root, &pages);
    assert!(
        broken.is_empty(),
        "{} broken link(s):\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn a_link_to_a_missing_file_or_heading_is_reported_and_a_good_one_is_not() {
    let s = Scratch::new();
    let root = s.dir.path();
    std::fs::create_dir_all(root.join("docs/guide")).unwrap();
    s.write(
        "docs/guide/ab.md",
        "# Comparing two commands: `perflab ab`\n\n## What happens\n\n## What happens\n",
    );
    s.write(
        "README.md",
        "See [ab](docs/guide/ab.md#comparing-two-commands-perflab-ab), \
         [steps](docs/guide/ab.md#what-happens-1), [top](#readme), [guide](docs/guide),\n\
         [site](https://example.invalid/x#y) and `[code](missing.md)`.\n\n\
         [gone](docs/guide/sweep.md) [no heading](docs/guide/ab.md#what-happened) \
         [here](#nowhere)\n\n# README\n",
    );
    let broken = broken_links(root, &[root.join("README.md")]);
    assert_eq!(broken.len(), 3, "{broken:#?}");
    assert!(
        broken[0].starts_with("README.md:4: (docs/guide/sweep.md)"),
        "{broken:#?}"
    );
    assert!(broken[0].contains("does not exist"), "{broken:#?}");
    assert!(
        broken[1].contains("no heading with the anchor #what-happened"),
        "{broken:#?}"
    );
    assert!(broken[2].contains("#nowhere"), "{broken:#?}");
}

#[test]
fn anchors_are_lower_case_with_hyphens_for_spaces_and_no_punctuation() {
    assert_eq!(
        github_slug("Suites: scenarios × variants"),
        "suites-scenarios--variants"
    );
    assert_eq!(
        github_slug("Async Rust: futures, locks and tracing"),
        "async-rust-futures-locks-and-tracing"
    );
    assert_eq!(github_slug("perflab_cli's `Store`"), "perflab_clis-store");
    assert_eq!(
        github_slug("perflab-result/1 (sweep)"),
        "perflab-result1-sweep"
    );
    let page = "# A `code` heading\n\n```sh\n# not a heading\n```\n\n## Twice\n\n## Twice\n";
    let found = anchors(page);
    for anchor in ["a-code-heading", "twice", "twice-1"] {
        assert!(found.contains(anchor), "{anchor} in {found:?}");
    }
    assert!(!found.contains("not-a-heading"), "{found:?}");
}
