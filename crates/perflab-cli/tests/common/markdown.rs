//! The project's Markdown as GitHub reads it: which files make the
//! documentation, and their links, headings and fenced code blocks.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

/// The top of the repository.
pub fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository's folder")
}

/// `README.md` and every `*.md` below `docs/`: the pages whose command
/// lines are contracts.
pub fn readme_and_docs(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md")];
    files.extend(markdown_below(&root.join("docs")));
    files
}

/// Every `*.md` file below `dir`, in path order, leaving out hidden folders
/// and build output.
pub fn markdown_below(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    collect_markdown(dir, &mut found);
    found.sort();
    found
}

fn collect_markdown(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                collect_markdown(&path, found);
            }
        } else if name.ends_with(".md") {
            found.push(path);
        }
    }
}

/// The file's text; fails the test naming the file when it cannot be read.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The 1-based line of a byte offset.
pub fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

fn parser(text: &str) -> Parser<'_> {
    Parser::new_ext(text, Options::ENABLE_TABLES)
}

/// A link or image of a page: where it points and on which line.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub line: usize,
    pub destination: String,
}

/// Every link and image destination of a Markdown text (inline, reference
/// and autolinks; text in code spans and code blocks is not a link).
pub fn links(text: &str) -> Vec<Link> {
    parser(text)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => Some(Link {
                line: line_of(text, range.start),
                destination: dest_url.into_string(),
            }),
            _ => None,
        })
        .collect()
}

/// The anchors GitHub gives a page's headings: each heading's text
/// lower-cased, spaces turned into `-`, every other character that is not
/// a letter, a digit, `-` or `_` dropped; a repeated anchor gets `-1`,
/// `-2`, ... in order.
pub fn anchors(text: &str) -> HashSet<String> {
    let mut anchors = HashSet::new();
    let mut heading: Option<String> = None;
    for event in parser(text) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            // Inline HTML (`<code>`) is markup: GitHub leaves it out of the anchor.
            Event::Text(t) | Event::Code(t) => {
                if let Some(heading) = heading.as_mut() {
                    heading.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let slug = github_slug(&heading.take().unwrap_or_default());
                let mut candidate = slug.clone();
                let mut n = 0;
                while anchors.contains(&candidate) {
                    n += 1;
                    candidate = format!("{slug}-{n}");
                }
                anchors.insert(candidate);
            }
            _ => {}
        }
    }
    anchors
}

/// GitHub's anchor for a heading's text.
pub fn github_slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// A fenced code block: its info string (`sh`, `text`, ...), its first
/// line's number and its text.
#[derive(Debug, Clone)]
pub struct CodeBlock {
    pub info: String,
    pub first_line: usize,
    pub text: String,
}

/// Every fenced code block of a Markdown text, in order.
pub fn fenced_code_blocks(text: &str) -> Vec<CodeBlock> {
    let mut blocks = Vec::new();
    let mut open: Option<CodeBlock> = None;
    for (event, range) in parser(text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                open = Some(CodeBlock {
                    info: info.trim().to_string(),
                    // The block's text starts on the line after the fence.
                    first_line: line_of(text, range.start) + 1,
                    text: String::new(),
                });
            }
            Event::Text(t) => {
                if let Some(block) = open.as_mut() {
                    block.text.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => blocks.extend(open.take()),
            _ => {}
        }
    }
    blocks
}
