//! Inferno's flame graph SVG made fit to sit inside the report page.
//!
//! Inferno writes a standalone document: an XML prolog, a script for zooming
//! and searching (started by an `onload` handler), a style sheet whose rules
//! (`text { ... }`, `#title`) would restyle the whole page once inlined, and
//! ids that would collide between two flame graphs. The page forbids scripts
//! (its Content-Security-Policy would block them and log an error), so the
//! picture is kept and the machinery dropped: comments, prolog, script,
//! style, event handlers, namespaces only the script reads, and the texts
//! only the script fills (search, zoom, details). What is left is checked
//! against a short list of elements and attributes; anything else makes the
//! flame graph refused rather than inlined.
//!
//! Text and attribute values are copied as inferno escaped them.

use std::fmt::Write;

use super::escape::esc;

/// Elements a flame graph is drawn with.
const ELEMENTS: [&str; 8] = [
    "svg",
    "defs",
    "linearGradient",
    "stop",
    "g",
    "title",
    "rect",
    "text",
];

/// Attributes kept, besides `id` and `class`, which are rewritten.
const ATTRIBUTES: [&str; 14] = [
    "width",
    "height",
    "viewBox",
    "xmlns",
    "x",
    "y",
    "x1",
    "x2",
    "y1",
    "y2",
    "fill",
    "stop-color",
    "offset",
    "text-anchor",
];

/// Texts only inferno's script fills or reacts to.
const SCRIPT_TEXTS: [&str; 3] = ["unzoom", "search", "matched"];

/// The SVG to inline, with its ids prefixed by `flame-{id}-`, each frame a
/// `mark`, and `axis_label` where inferno leaves room for hover details;
/// `None` if inferno's output holds anything this does not know (or a
/// write into the new text fails).
pub(crate) fn inline_flamegraph(svg: &str, id: usize, axis_label: &str) -> Option<String> {
    let mut rest = &svg[svg.find("<svg")?..];
    let mut out = String::with_capacity(rest.len());
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        rest = &rest[open..];
        let skip_to = [
            ("<!--", "-->"),
            ("<script", "</script>"),
            ("<style", "</style>"),
        ]
        .iter()
        .find(|(start, _)| rest.starts_with(start))
        .map(|(_, end)| *end);
        if let Some(end) = skip_to {
            rest = &rest[rest.find(end)? + end.len()..];
            continue;
        }
        let close = rest.find('>')?;
        let tag = &rest[1..close];
        rest = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            ELEMENTS.contains(&name.trim()).then_some(())?;
            write!(out, "</{}>", name.trim()).ok()?;
            continue;
        }
        let tag = Tag::parse(tag)?;
        ELEMENTS.contains(&tag.name).then_some(())?;
        let element_id = tag.attribute("id");
        if tag.name == "text" && element_id.is_some_and(|i| SCRIPT_TEXTS.contains(&i)) {
            rest = &rest[rest.find("</text>")? + "</text>".len()..];
            continue;
        }
        if tag.name == "text" && element_id == Some("details") {
            write!(
                out,
                r#"<text class="axis-label" x="{}" y="{}">{}</text>"#,
                tag.attribute("x")?,
                tag.attribute("y")?,
                esc(axis_label)
            )
            .ok()?;
            rest = &rest[rest.find("</text>")? + "</text>".len()..];
            continue;
        }
        out.push_str(&rewrite_tag(&tag, id)?);
    }
    out.ends_with("</svg>").then_some(out)
}

/// A start tag written again with only the attributes that draw; `None`
/// as for [`inline_flamegraph`].
fn rewrite_tag(source: &Tag<'_>, id: usize) -> Option<String> {
    let (name, attributes) = (source.name, &source.attributes);
    let mut tag = format!("<{name}");
    let mut classes: Vec<String> = Vec::new();
    match name {
        "svg" if attributes.iter().any(|(k, _)| *k == "xmlns") => classes.push("flamegraph".into()),
        "g" => classes.push("frame mark".into()),
        _ => {}
    }
    for (key, value) in attributes {
        match *key {
            "id" if *value == "background" => {
                write!(tag, r#" id="flame-{id}-background""#).ok()?;
            }
            "id" => classes.push(format!("flame-{value}")),
            "class" => classes.push(value.to_string()),
            "fill" if value.contains("url(") => {
                (*value == "url(#background)").then_some(())?;
                write!(tag, r##" fill="url(#flame-{id}-background)""##).ok()?;
            }
            k if ATTRIBUTES.contains(&k) => {
                write!(tag, r#" {k}="{value}""#).ok()?;
            }
            // Handlers (`onload`), the script's namespaces and data
            // (`xmlns:fg`, `fg:x`, `total_samples`), links: not drawn.
            _ => {}
        }
    }
    if !classes.is_empty() {
        write!(tag, r#" class="{}""#, classes.join(" ")).ok()?;
    }
    tag.push_str(if source.empty { "/>" } else { ">" });
    Some(tag)
}

/// A start tag: its name, its `key="value"` attributes, and whether it closes itself.
struct Tag<'a> {
    name: &'a str,
    attributes: Vec<(&'a str, &'a str)>,
    empty: bool,
}

impl<'a> Tag<'a> {
    /// The tag between `<` and `>`; `None` for any other way of writing attributes.
    fn parse(tag: &'a str) -> Option<Self> {
        let (body, empty) = match tag.strip_suffix('/') {
            Some(body) => (body, true),
            None => (tag, false),
        };
        let name_end = body.find(char::is_whitespace).unwrap_or(body.len());
        let (name, mut rest) = body.split_at(name_end);
        let mut attributes = Vec::new();
        loop {
            rest = rest.trim_start();
            if rest.is_empty() {
                break;
            }
            let (key, after) = rest.split_once("=\"")?;
            let (value, after) = after.split_once('"')?;
            if key.contains(char::is_whitespace) {
                return None;
            }
            attributes.push((key, value));
            rest = after;
        }
        Some(Self {
            name,
            attributes,
            empty,
        })
    }

    /// The value of attribute `key`.
    fn attribute(&self, key: &str) -> Option<&'a str> {
        self.attributes.iter().find(|(k, _)| *k == key).map(|a| a.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::FoldedStacks;
    use crate::sampling::flamegraph::{flamegraph_svg, options};

    fn inferno(folded: &str) -> String {
        let folded = FoldedStacks::parse(folded).unwrap();
        let svg = flamegraph_svg(&folded, &mut options("<title>", "sub")).unwrap();
        String::from_utf8(svg).unwrap()
    }

    #[test]
    fn the_inlined_flame_graph_keeps_its_frames_and_drops_script_style_and_handlers() {
        let svg = inferno("p;main;heavy 3\np;main;<script>alert(\"x\")</script> onload=\"y\" 1\n");
        assert!(svg.contains("<script") && svg.contains("onload="));
        let inlined = inline_flamegraph(&svg, 7, "width: share of samples (%)").unwrap();
        assert!(inlined.starts_with("<svg") && inlined.ends_with("</svg>"));
        assert!(!inlined.contains("<script") && !inlined.contains("<style"));
        assert!(
            !inlined.contains(" onload=\""),
            "an event handler is left: {inlined}"
        );
        let outside = inlined.replace(r#"xmlns="http://www.w3.org/2000/svg""#, "");
        assert!(!outside.contains("http"), "{outside}");
        assert!(inlined.contains("heavy") && inlined.contains("&lt;script&gt;"));
        assert!(inlined.matches(r#"class="frame mark""#).count() >= 4);
        assert!(inlined.contains(r##"fill="url(#flame-7-background)""##));
        assert!(!inlined.contains(r#"id="title""#) && inlined.contains("flame-title"));
        assert!(inlined.contains(r#"class="axis-label""#) && !inlined.contains("Search"));
    }

    #[test]
    fn an_element_it_does_not_know_makes_the_flame_graph_refused() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg"><foreignObject/></svg>"#;
        assert_eq!(inline_flamegraph(svg, 1, "x"), None);
        let svg =
            r#"<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(http://x/#a)"/></svg>"#;
        assert_eq!(inline_flamegraph(svg, 1, "x"), None);
    }
}
